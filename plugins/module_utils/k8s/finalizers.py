# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Add and remove finalizers without racing the controllers that own them.

Never a merge patch of the whole list: a controller adding its own finalizer at the same moment
would lose it. Removal is a JSON patch that first ``test``s ``metadata.uid`` and the exact value
at each index it removes; addition appends with ``/-`` (or, when the list does not exist yet,
``test``s the resourceVersion first). When a test fails or the server answers a conflict, the
caller re-reads the object and recomputes, a bounded number of times (``apply_with_retry``).

A Namespace's ``spec.finalizers`` is different: it only changes through
``PUT /api/v1/namespaces/{name}/finalize`` with the whole object (``namespace_finalize_body``);
the resourceVersion in the body makes it an optimistic-lock update.

Annotations can ride in the same request as added finalizers (``build_present_patch``): the one ``test`` of
the UID covers both, an annotation that has a value is ``test``ed at that value before it is replaced (another
writer's change makes the caller re-read), and a missing ``metadata.annotations`` map is created only after a
``test`` of the resourceVersion, as the finalizer list is.

Public functions: ``validate_finalizer_name``, ``desired_finalizers``, ``build_remove_patch``,
``build_add_patch``, ``build_patch``, ``annotation_changes``, ``build_present_patch``, ``set_annotation_patch``,
``namespace_finalize_body``, ``is_conflict``, ``is_deleting_refusal``, ``apply_with_retry``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# A qualified name: optional DNS-1123 subdomain prefix and '/', then a name part of at most 63
# characters: alphanumerics, '-', '_', '.', starting and ending with an alphanumeric.
_NAME_PART = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def validate_finalizer_name(value):
    """Return None when ``value`` is a qualified name (as Kubernetes requires of a finalizer),
    else a sentence saying why not."""
    if not isinstance(value, str) or not value:
        return "a finalizer must be a non-empty string"
    if value.count("/") > 1:
        return "%r has more than one '/': a qualified name is [prefix/]name" % value
    if "/" in value:
        prefix, name = value.split("/", 1)
        if not prefix or len(prefix) > 253 or not all(_DNS_LABEL.match(p) for p in prefix.split(".")):
            return ("%r: the prefix %r is not a DNS subdomain (lowercase alphanumerics, '-' and '.', "
                    "at most 253 characters)" % (value, prefix))
    else:
        name = value
    if not _NAME_PART.match(name):
        return ("%r: the name part %r must be 1-63 characters of alphanumerics, '-', '_' or '.', "
                "starting and ending with an alphanumeric" % (value, name))
    return None


def desired_finalizers(current, names, state):
    """The list after adding (state=present, appended in order) or removing (absent) ``names``."""
    current = list(current or [])
    if state == "present":
        return current + [n for i, n in enumerate(names) if n not in current and n not in names[:i]]
    return [f for f in current if f not in names]


def build_remove_patch(obj, names):
    """JSON patch removing every occurrence of ``names`` from ``metadata.finalizers``.

    Each ``remove`` is preceded by a ``test`` of the value at that index; indices go from the
    highest down so earlier removals do not shift later ones; the first op tests the UID so a
    recreated object is never touched. Returns [] when there is nothing to remove.
    """
    meta = obj.get("metadata") or {}
    current = list(meta.get("finalizers") or [])
    ops = []
    for idx in range(len(current) - 1, -1, -1):
        if current[idx] in names:
            path = "/metadata/finalizers/%d" % idx
            ops.append({"op": "test", "path": path, "value": current[idx]})
            ops.append({"op": "remove", "path": path})
    if not ops:
        return []
    return [{"op": "test", "path": "/metadata/uid", "value": meta.get("uid")}] + ops


def build_add_patch(obj, names):
    """JSON patch appending the missing ``names`` to ``metadata.finalizers``.

    Appends with ``/metadata/finalizers/-`` so concurrent additions by others stay. When the list
    does not exist, creating it would overwrite one created meanwhile: that case tests the
    resourceVersion first (a conflict then makes the caller re-read). Returns [] when nothing is missing.
    """
    meta = obj.get("metadata") or {}
    current = meta.get("finalizers")
    missing = [n for i, n in enumerate(names) if n not in (current or []) and n not in names[:i]]
    if not missing:
        return []
    ops = [{"op": "test", "path": "/metadata/uid", "value": meta.get("uid")}]
    if current is None:
        ops.append({"op": "test", "path": "/metadata/resourceVersion", "value": meta.get("resourceVersion")})
        ops.append({"op": "add", "path": "/metadata/finalizers", "value": missing})
    else:
        for n in missing:
            ops.append({"op": "add", "path": "/metadata/finalizers/-", "value": n})
    return ops


def annotation_changes(obj, annotations):
    """The annotations of ``annotations`` (key: value) that ``obj`` does not already carry at that value, in key
    order; {} when every one is already set."""
    current = (obj.get("metadata") or {}).get("annotations") or {}
    return dict((k, v) for k, v in sorted((annotations or {}).items()) if current.get(k) != v)


def _pointer(key):
    """``key`` as one JSON pointer token (RFC 6901: ``~`` is ``~0``, ``/`` is ``~1``)."""
    return key.replace("~", "~0").replace("/", "~1")


def set_annotation_patch(obj, key, value):
    """JSON patch setting one annotation of ``obj`` (as read) to ``value``, whatever it was.

    The UID is ``test``ed first. A missing ``metadata.annotations`` map is created only after a ``test`` of the
    resourceVersion: ``add`` of the whole map would replace a map another writer created since the read, and its
    annotations with it. A failed test is a conflict (``is_conflict``): the caller re-reads and tries again.
    """
    meta = obj.get("metadata") or {}
    ops = [{"op": "test", "path": "/metadata/uid", "value": meta.get("uid")}]
    if meta.get("annotations") is None:
        ops.append({"op": "test", "path": "/metadata/resourceVersion", "value": meta.get("resourceVersion")})
        ops.append({"op": "add", "path": "/metadata/annotations", "value": {key: value}})
    else:
        ops.append({"op": "add", "path": "/metadata/annotations/" + _pointer(key), "value": value})
    return ops


def build_present_patch(obj, names, annotations=None):
    """One JSON patch that appends the missing ``names`` to ``metadata.finalizers`` and sets ``annotations``
    (key: value) that are not already at their value; [] when there is nothing to do.

    The first op tests the UID. A list or map that does not exist yet is created only after a ``test`` of the
    resourceVersion (sent once even when both are created); an annotation that already has another value is
    ``test``ed at that value, then replaced; a new key in an existing map is added. A failed test makes the caller
    re-read (``apply_with_retry``).
    """
    meta = obj.get("metadata") or {}
    fin_ops = build_add_patch(obj, names)[1:]  # without its test of the UID, sent once below
    changes = annotation_changes(obj, annotations)
    current = meta.get("annotations")
    ann_ops = []
    if changes and current is None:
        ann_ops.append({"op": "add", "path": "/metadata/annotations", "value": changes})
    else:
        for key, value in changes.items():
            path = "/metadata/annotations/" + _pointer(key)
            if key in current:
                ann_ops.append({"op": "test", "path": path, "value": current[key]})
                ann_ops.append({"op": "replace", "path": path, "value": value})
            else:
                ann_ops.append({"op": "add", "path": path, "value": value})
    if not fin_ops and not ann_ops:
        return []
    rv_test = {"op": "test", "path": "/metadata/resourceVersion", "value": meta.get("resourceVersion")}
    lock = [rv_test] if (changes and current is None and rv_test not in fin_ops) else []
    return [{"op": "test", "path": "/metadata/uid", "value": meta.get("uid")}] + lock + fin_ops + ann_ops


def build_patch(obj, names, state):
    """``build_add_patch`` for state=present, ``build_remove_patch`` for absent."""
    return build_add_patch(obj, names) if state == "present" else build_remove_patch(obj, names)


def namespace_finalize_body(ns_obj, names, state):
    """The Namespace body for ``PUT /api/v1/namespaces/{name}/finalize`` with ``spec.finalizers``
    changed, or None when it already has the wanted list. Keeps metadata.resourceVersion (the lock)."""
    spec = ns_obj.get("spec") or {}
    current = list(spec.get("finalizers") or [])
    wanted = desired_finalizers(current, names, state)
    if wanted == current:
        return None
    meta = ns_obj.get("metadata") or {}
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": meta.get("name"), "uid": meta.get("uid"),
                         "resourceVersion": meta.get("resourceVersion")},
            "spec": {"finalizers": wanted}}


def _status(exc):
    return getattr(exc, "status", None)


def _body_text(exc):
    return (str(getattr(exc, "body", "") or "") + " " + str(exc)).lower()


def is_conflict(exc):
    """A lost race: 409 Conflict, or a JSON patch whose ``test`` failed (the object moved)."""
    status = _status(exc)
    if status == 409:
        return True
    text = _body_text(exc)
    # a failed JSON patch op (our `test`s) answers 422 with this generic message and no causes
    return status == 422 and ("error in our request" in text or ("test" in text and "fail" in text))


def is_deleting_refusal(exc):
    """The API refuses new finalizers on an object that is being deleted (422 Forbidden)."""
    text = _body_text(exc)
    return _status(exc) == 422 and "no new finalizers can be added if the object is being deleted" in text


def apply_with_retry(fetch, compute, send, attempts=5):
    """Read, compute, send; on a conflict re-read and recompute, at most ``attempts`` times.

    ``fetch()`` returns the current object dict; ``compute(obj)`` returns the request payload or
    None when nothing is to change; ``send(obj, payload)`` performs it and returns the new object.
    Returns ``(before, after, tries)`` with ``after is None`` when nothing changed. Exceptions other
    than conflicts propagate; the last conflict propagates when attempts run out.
    """
    last = None
    for attempt in range(1, attempts + 1):
        before = fetch()
        payload = compute(before)
        if payload is None:
            return before, None, attempt
        try:
            return before, send(before, payload), attempt
        except Exception as e:
            if not is_conflict(e):
                raise
            last = e
    raise last
