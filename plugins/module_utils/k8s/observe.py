# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Observe Kubernetes objects with three outcomes: present, absent, unknown.

Every query here returns what it saw *and* the times it rests on. A query that fails (timeout,
connection refused, 5xx, 403, discovery failure) is ``unknown``: it is never read as ``absent``.
Only a successful GET answering 404, a successful LIST that does not contain the object, or a
DELETED watch event proves absence.

Public functions (reused by modules and roles); the client itself is k8s_client's, watches are k8s_watch's:

- ``utc_iso(ts=None)``: UTC ISO-8601 with milliseconds (``2026-01-02T03:04:05.678Z``).
- ``parse_k8s_time(value)``: a Kubernetes timestamp to epoch seconds (or None).
- ``get_object(resource, name, namespace=None, request_timeout=..., attempts=1)``: an Observation dict;
  with ``attempts`` above 1 a transient failure (429, 5xx, a dropped connection) is read again
  (``k8s_client.retry_read``).
- ``list_objects(resource, namespace=None, name=None, label_selector=None, request_timeout=..., attempts=1)``.
- ``read_object`` / ``read_objects``: the same reads, with the client's own exception of a failed one beside
  the observation (k8s_reads' service hands it to modules that word errors their own way).
- ``delete_object(resource, name, namespace=None, uid=None, ...)``: one DELETE (with the uid as a
  precondition when given): ``deleted``, ``absent`` (404), ``refused`` (the server said no) or ``unknown``.
- ``patch_object(resource, name, ops, namespace=None, request_timeout=...)``: one JSON patch, bounded.
- ``list_contents(dyn, namespace=None)``: every object of every listable kind in a namespace (or
  every cluster-scoped object), by listing; the truth a Namespace's conditions only summarise.
- ``object_summary(obj)``: the deletion-relevant fields of an object as a flat dict.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import json
import time

from ansible_collections.teardown.gates.plugins.module_utils.k8s.diagnosis import status_conditions
from ansible_collections.teardown.gates.plugins.module_utils.core.states import ABSENT, PRESENT, UNKNOWN
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import parse_iso, utc_iso  # noqa: F401 - utc_iso: read here by the Kubernetes modules
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import (
    DEFAULT_REQUEST_TIMEOUT, READ_ATTEMPTS, error_text, retry_read, status_of, timeout_tuple, transient)


def parse_k8s_time(value):
    """'2026-01-02T03:04:05Z' (optionally with fractions) to epoch seconds; None stays None."""
    dt = parse_iso(value)
    return None if dt is None else dt.timestamp()


def query_record(verb, started, error=None, **extra):
    q = {"verb": verb, "started": utc_iso(started), "finished": utc_iso(), "ok": error is None}
    if error is not None:
        q["error"] = error
    q.update(extra)
    return q


def to_dict(obj):
    if obj is None:
        return None
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    return obj


def _send_read(send, attempts, sleep=None):
    """``send()`` (a GET or LIST, or a DELETE, which is as repeatable) as ``retry_read`` allows: ``attempts`` times
    at most, again only after a transient failure. Returns ``(answer, error, sent)``: the answer or the last
    failure, and how many were sent."""
    sent = []

    def counted():
        sent.append(1)
        return send()
    try:
        # retry_read's own pause unless the caller gave one (a test may have replaced retry_read's)
        tried = retry_read(counted, attempts=attempts) if sleep is None else retry_read(counted, attempts=attempts,
                                                                                        sleep=sleep)
        return tried[0], None, len(sent)
    except Exception as e:  # pylint: disable=broad-except
        # the caller records it: unknown, never absent
        return None, e, len(sent)


def get_object(resource, name, namespace=None, request_timeout=DEFAULT_REQUEST_TIMEOUT, attempts=1):
    """GET one object; with ``attempts`` above 1, a transient failure is read again (see ``retry_read``) and
    the query says how many were sent (``attempts``).

    Returns ``{"state": present|absent|unknown, "object": dict|None, "query": {...}}``;
    ``absent`` only for a 404 answer, ``unknown`` for any other failure (the last one, after the tries).
    """
    return read_object(resource, name, namespace, request_timeout, attempts)[0]


def read_object(resource, name, namespace=None, request_timeout=DEFAULT_REQUEST_TIMEOUT, attempts=1,
                sleep=None):
    """``get_object``, and the client's own exception of the last failed try (None after an answer): a module
    that words its errors its own way (k8s_reads) needs it."""
    started = time.time()
    kwargs = {"name": name, "_request_timeout": timeout_tuple(request_timeout)}
    if resource.namespaced:
        kwargs["namespace"] = namespace
    obj, error, sent = _send_read(functools.partial(resource.get, **kwargs), attempts, sleep)
    extra = {"attempts": sent} if attempts > 1 else {}
    if error is None:
        return {"state": PRESENT, "object": to_dict(obj), "query": query_record("get", started, **extra)}, None
    if status_of(error) == 404:
        return {"state": ABSENT, "object": None, "query": query_record("get", started, status=404, **extra)}, error
    return {"state": UNKNOWN, "object": None,
            "query": query_record("get", started, error=error_text(error), **extra)}, error


def delete_object(resource, name, namespace=None, uid=None, propagation_policy=None,
                  request_timeout=DEFAULT_REQUEST_TIMEOUT):
    """DELETE one object; with ``uid``, only that object (a newer one of the same name is refused, 409).

    Returns ``{"state": deleted|absent|refused|unknown, "query": {...}}``. ``absent`` is a 404 to the first
    attempt: there was nothing to delete. A 404 to a retry is ``deleted``: the attempt before it went
    unanswered (a lost connection, a 5xx) and most likely removed the object. ``unknown`` means no
    answer came (timeout, connection lost after the tries ``retry_read`` allows): the deletion may or
    may not have been applied. A DELETE is repeatable, so the same retries as a read are safe.
    """
    started = time.time()
    body = {"apiVersion": "v1", "kind": "DeleteOptions"}
    if uid:
        body["preconditions"] = {"uid": uid}
    if propagation_policy:
        body["propagationPolicy"] = propagation_policy
    kwargs = {"name": name, "body": body, "_request_timeout": timeout_tuple(request_timeout)}
    if resource.namespaced:
        kwargs["namespace"] = namespace
    dummy, error, sent = _send_read(functools.partial(resource.delete, **kwargs), READ_ATTEMPTS)
    if error is None:
        return {"state": "deleted", "query": query_record("delete", started, retries=sent - 1)}
    status = status_of(error)
    if status == 404 and sent > 1:
        return {"state": "deleted", "query": query_record(
            "delete", started, status=404, retries=sent - 1,
            detail="gone at the retry: the unanswered attempt before it most likely deleted it")}
    if status == 404:
        return {"state": ABSENT, "query": query_record("delete", started, status=404)}
    state = "refused" if status is not None and not transient(error) else UNKNOWN
    return {"state": state, "query": query_record("delete", started, error=error_text(error), status=status)}


JSON_PATCH = "application/json-patch+json"


def patch_object(resource, name, ops, namespace=None, request_timeout=DEFAULT_REQUEST_TIMEOUT):
    """Send one JSON patch (``ops``, a list; start it with a ``test`` of ``/metadata/uid`` so a recreated object
    is refused) and return the object the server answered with, as a dict.

    Sent once: the caller decides what a failure means, since a patch whose answer was lost may have been
    applied (only a re-read can tell). Raises what the client raised.
    """
    kwargs = {"name": name, "body": ops, "content_type": JSON_PATCH, "_request_timeout": timeout_tuple(request_timeout)}
    if resource.namespaced:
        kwargs["namespace"] = namespace
    return to_dict(resource.patch(**kwargs))


def selector_kwargs(resource, namespace, name, label_selector, field_selector=None):
    """The list/watch arguments that select objects: one place, so a list and its watch never disagree."""
    kwargs = {}
    if resource.namespaced and namespace:
        kwargs["namespace"] = namespace
    fields = ["metadata.name=%s" % name] if name else []
    if field_selector:
        fields.append(field_selector)
    if fields:
        kwargs["field_selector"] = ",".join(fields)
    if label_selector:
        kwargs["label_selector"] = label_selector
    return kwargs


def list_objects(resource, namespace=None, name=None, label_selector=None,
                 request_timeout=DEFAULT_REQUEST_TIMEOUT, attempts=1):
    """LIST objects (one name through a field selector, or a label selector); ``attempts`` as in ``get_object``.

    Returns ``{"ok": bool, "items": [dict], "resource_version": str|None, "query": {...}}``.
    A failed list has ``ok: False`` and no items: the caller must treat it as unknown; its query says the HTTP
    status (None without an answer), so a caller can tell a kind that is not served (404) from no answer.
    """
    return read_objects(resource, namespace, name, label_selector, request_timeout, attempts)[0]


def read_objects(resource, namespace=None, name=None, label_selector=None, request_timeout=DEFAULT_REQUEST_TIMEOUT,
                 attempts=1, field_selector=None, sleep=None):
    """``list_objects`` (``field_selector`` added to the name's), and the client's own exception of the last
    failed try (None after an answer), as ``read_object`` gives it."""
    started = time.time()
    kwargs = selector_kwargs(resource, namespace, name, label_selector, field_selector)
    kwargs["_request_timeout"] = timeout_tuple(request_timeout)
    answer, error, sent = _send_read(functools.partial(resource.get, **kwargs), attempts, sleep)
    extra = {"attempts": sent} if attempts > 1 else {}
    if error is not None:
        return {"ok": False, "items": [], "resource_version": None,
                "query": query_record("list", started, error=error_text(error), status=status_of(error),
                                      **extra)}, error
    result = to_dict(answer)
    items = result.get("items") or []
    api_version = resource.group_version if hasattr(resource, "group_version") else None
    for item in items:  # list items carry no apiVersion/kind
        item.setdefault("kind", resource.kind)
        if api_version:
            item.setdefault("apiVersion", api_version)
    rv = (result.get("metadata") or {}).get("resourceVersion")
    return {"ok": True, "items": items, "resource_version": rv, "query": query_record("list", started, **extra)}, None


def object_summary(obj):
    """The deletion-relevant fields of an object dict, flat; pods get their grace deadline."""
    meta = obj.get("metadata") or {}
    out = {
        "api_version": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "name": meta.get("name"),
        "namespace": meta.get("namespace"),
        "uid": meta.get("uid"),
        "resource_version": meta.get("resourceVersion"),
        "deletion_timestamp": meta.get("deletionTimestamp"),
        "finalizers": list(meta.get("finalizers") or []),
        "conditions": [dict((k, c.get(k)) for k in ("type", "status", "reason", "message", "lastTransitionTime")
                            if c.get(k) is not None)
                       for c in status_conditions(obj)],
    }
    if obj.get("kind") == "Namespace":
        out["spec_finalizers"] = list((obj.get("spec") or {}).get("finalizers") or [])
    if meta.get("deletionGracePeriodSeconds") is not None:
        out["deletion_grace_period_seconds"] = meta.get("deletionGracePeriodSeconds")
    if obj.get("kind") == "Pod":
        spec = obj.get("spec") or {}
        if spec.get("terminationGracePeriodSeconds") is not None:
            out["termination_grace_period_seconds"] = spec.get("terminationGracePeriodSeconds")
        # for a pod, deletionTimestamp is the end of the grace period, not the request time
        if meta.get("deletionTimestamp"):
            out["grace_deadline"] = meta.get("deletionTimestamp")
    return out


def owner_uids(obj):
    return [r.get("uid") for r in ((obj.get("metadata") or {}).get("ownerReferences") or []) if r.get("uid")]


def _discover_listable(dyn, namespaced, request_timeout):
    """(group_version, kind, plural) of every listable kind, preferred versions only."""
    to = timeout_tuple(request_timeout)
    out = []
    errors = []
    group_versions = ["v1"]
    try:
        groups = json.loads(dyn.request("get", "/apis", serialize=False, _request_timeout=to).data)
        for g in groups.get("groups") or []:
            pv = (g.get("preferredVersion") or {}).get("groupVersion")
            if pv:
                group_versions.append(pv)
    except Exception as e:
        errors.append("discovery /apis: %s" % error_text(e))
    for gv in group_versions:
        path = "/api/v1" if gv == "v1" else "/apis/%s" % gv
        try:
            doc = json.loads(dyn.request("get", path, serialize=False, _request_timeout=to).data)
        except Exception as e:
            errors.append("discovery %s: %s" % (path, error_text(e)))
            continue
        for r in doc.get("resources") or []:
            if "/" in r.get("name", "") or "list" not in (r.get("verbs") or []):
                continue
            if bool(r.get("namespaced")) != bool(namespaced):
                continue
            out.append((gv, r.get("kind"), r.get("name")))
    return out, errors


def list_contents(dyn, namespace=None, request_timeout=DEFAULT_REQUEST_TIMEOUT, skip_kinds=("Event",)):
    """List every object of every listable kind in ``namespace`` (or every cluster-scoped one).

    ``dyn`` is a DynamicClient (``get_api_client(...).client``). Returns
    ``{"ok": bool, "items": [object_summary + owner_uids and owner_refs (uid, blockOwnerDeletion)], "errors": [str], "query": {...}}``;
    ``ok`` is False when discovery or any list failed: the contents are then incomplete (unknown),
    never "empty".
    """
    started = time.time()
    kinds, errors = _discover_listable(dyn, namespaced=namespace is not None, request_timeout=request_timeout)
    to = timeout_tuple(request_timeout)
    items = []
    for gv, kind, plural in kinds:
        if kind in skip_kinds:
            continue
        base = "/api/v1" if gv == "v1" else "/apis/%s" % gv
        path = "%s/namespaces/%s/%s" % (base, namespace, plural) if namespace else "%s/%s" % (base, plural)
        try:
            doc = json.loads(dyn.request("get", path, serialize=False, _request_timeout=to).data)
        except Exception as e:
            if status_of(e) in (404, 405):
                continue
            errors.append("list %s: %s" % (path, error_text(e)))
            continue
        for item in doc.get("items") or []:
            item.setdefault("apiVersion", gv)
            item.setdefault("kind", kind)
            summary = object_summary(item)
            summary["owner_uids"] = owner_uids(item)
            summary["owner_refs"] = [{"uid": r.get("uid"), "blockOwnerDeletion": bool(r.get("blockOwnerDeletion"))}
                                     for r in (item.get("metadata") or {}).get("ownerReferences") or []]
            items.append(summary)
    return {"ok": not errors, "items": items, "errors": errors,
            "query": query_record("list-contents", started, error="; ".join(errors) if errors else None)}
