# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The finalizer module's driver: add or remove finalizers on one object, read through KubeReads (one try per
read, as the module always had), with a JSON patch (metadata) or the Namespace's /finalize (spec).

With O(annotations) (state=present), the annotations go in the same JSON patch as the added finalizers. On a
deleting object the API refuses a new finalizer: the annotations are then sent alone, and the module still fails
with refused=object_deleting (after that request), as it fails without them."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from, TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.finalizers import (
    annotation_changes,
    apply_with_retry,
    build_patch,
    build_present_patch,
    desired_finalizers,
    is_deleting_refusal,
    namespace_finalize_body,
    validate_finalizer_name,
)
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import ABSENT, UNKNOWN

CALLER = "finalizer"
ATTEMPTS = 1  # a read is sent once per round; apply_with_retry's rounds (retries) are the module's retry


class Refused(TeardownGatesError):
    """The module refuses to change the object; ``reason`` is the result's ``refused``."""

    def __init__(self, reason, msg):
        super(Refused, self).__init__(msg)
        self.reason = reason


class Reread(TeardownGatesError):
    """The API refused the new finalizer of a request that also set annotations: the object began deleting after
    the read. A conflict (status 409) for apply_with_retry, which reads again and sends the annotations alone."""
    status = 409

    def __init__(self, err):
        super(Reread, self).__init__("the object began deleting after the read: %s" % (getattr(err, "body", None) or err))


class QueryFailed(TeardownGatesError):
    unknown = True  # the object could not be read: its state is unknown

    def __init__(self, obs):
        super(QueryFailed, self).__init__(obs["query"].get("error"))
        self.obs = obs


def validate(params):
    """Input errors, each naming the option; empty when the input is valid."""
    errors = []
    if not params["finalizer"]:
        errors.append("finalizer: give at least one finalizer")
    for f in params["finalizer"] or []:
        why = validate_finalizer_name(f)
        if why:
            errors.append("finalizer: %s" % why)
    if params["retries"] < 1:
        errors.append("retries: must be 1 or more, got %d" % params["retries"])
    if params["request_timeout"] <= 0:
        errors.append("request_timeout: must be more than 0 seconds")
    if params["scope"] == "spec" and (params["kind"] != "Namespace" or params["api_version"] != "v1"):
        errors.append("scope: spec is only for kind Namespace, api_version v1 (its spec.finalizers)")
    if params["only_if_deleting"] and params["state"] == "present":
        errors.append("only_if_deleting: applies to state=absent only")
    errors.extend(annotation_errors(params))
    return errors


def annotation_errors(params):
    """The errors of O(annotations): each key a qualified name, each value a string, only with state=present on
    metadata."""
    annotations = params.get("annotations")
    if annotations is None:
        return []
    errors = []
    if params["state"] != "present" or params["scope"] != "metadata":
        errors.append("annotations: only with state=present and scope=metadata (set in the request that adds the "
                      "finalizers)")
    for key in sorted(annotations, key=str):
        why = validate_finalizer_name(key)  # an annotation key is a qualified name, as a finalizer is
        if why:
            errors.append("annotations: %s" % why.replace("a finalizer must", "an annotation key must"))
        if not isinstance(annotations[key], str):
            errors.append("annotations: the value of %s must be a string (quote it), got %s"
                          % (key, type(annotations[key]).__name__))
    return errors


def current_list(obj, scope):
    if scope == "spec":
        return list((obj.get("spec") or {}).get("finalizers") or [])
    return list((obj.get("metadata") or {}).get("finalizers") or [])


def where_of(p):
    """The object as messages name it: ``Kind [namespace/]name``."""
    return "%s %s%s" % (p["kind"], (p["namespace"] + "/") if p["namespace"] else "", p["name"])


def only_if_deleting(p):
    """O(only_if_deleting) with its default: true for state=absent."""
    if p["only_if_deleting"] is None:
        return p["state"] == "absent"
    return p["only_if_deleting"]


def deleting_refusal(p, obj):
    """The Refused (object_deleting) when O(state=present) would add a finalizer to ``obj`` while it is being
    deleted (the API refuses that), else None."""
    names = p["finalizer"]
    meta = (obj or {}).get("metadata") or {}
    current = current_list(obj or {}, p["scope"])
    if p["state"] != "present" or not meta.get("deletionTimestamp"):
        return None
    if desired_finalizers(current, names, "present") == current:
        return None
    return Refused("object_deleting", "%s is being deleted (deletionTimestamp %s): the API refuses new "
                   "finalizers on a deleting object; %s not added"
                   % (where_of(p), meta.get("deletionTimestamp"), ", ".join(f for f in names if f not in current)))


def compute(p, obj):
    """The change to send for ``obj`` (a JSON patch, or the /finalize body for scope=spec), None when there is
    nothing to do (or no object); raises Refused when the module must not touch it. On a deleting object that
    refuses the new finalizer, the annotations still wanted are the patch alone (run reports the refusal after)."""
    if obj is None:
        return None
    names, state, scope, where = p["finalizer"], p["state"], p["scope"], where_of(p)
    meta = obj.get("metadata") or {}
    current = current_list(obj, scope)
    if p["expected_uid"] and meta.get("uid") != p["expected_uid"]:
        raise Refused("uid_mismatch", "expected_uid: %s has uid %s, not the expected %s: it was recreated; "
                      "refusing to touch it" % (where, meta.get("uid"), p["expected_uid"]))
    annotations = p.get("annotations") or {}
    wanted = desired_finalizers(current, names, state)
    if wanted == current and not annotation_changes(obj, annotations):
        return None
    if wanted != current and state == "absent" and only_if_deleting(p) and not meta.get("deletionTimestamp"):
        raise Refused("not_deleting", "%s is not being deleted (no deletionTimestamp): refusing to remove %s "
                      "(only_if_deleting is true; set it to false to remove a finalizer from a live object)"
                      % (where, ", ".join(f for f in names if f in current)))
    refusal = deleting_refusal(p, obj)
    if refusal is not None:
        if not annotation_changes(obj, annotations):
            raise refusal
        return build_present_patch(obj, [], annotations)
    if scope == "spec":
        return namespace_finalize_body(obj, names, state)
    if annotations:
        return build_present_patch(obj, names, annotations)
    return build_patch(obj, names, state)


def annotation_outcome(p, before, after):
    """The result's annotations_before and annotations_after (the keys of O(annotations), None where unset), or {}
    without O(annotations). ``after`` None: as read, or predicted when a change is due (check mode)."""
    annotations = p.get("annotations")
    if annotations is None:
        return {}

    def values(obj):
        current = (obj.get("metadata") or {}).get("annotations") or {}
        return dict((k, current.get(k)) for k in sorted(annotations))

    ann_before = values(before)
    if after is not None:
        ann_after = values(after)
    elif compute(p, before) is not None:  # check mode: predict
        ann_after = dict(ann_before, **annotation_changes(before, annotations))
    else:
        ann_after = dict(ann_before)
    return dict(annotations_before=ann_before, annotations_after=ann_after)


def outcome(p, before, after, diff=False):
    """The result keys for a read ``before`` and a change ``after`` (None: nothing sent, or check mode, whose
    finalizers are then predicted)."""
    scope = p["scope"]
    fin_before = current_list(before, scope)
    if after is None and compute(p, before) is not None and deleting_refusal(p, before) is None:  # check mode
        fin_after = desired_finalizers(fin_before, p["finalizer"], p["state"])
        src = before
    elif after is None:
        fin_after = fin_before
        src = before
    else:
        fin_after = current_list(after, scope)
        src = after
    meta = src.get("metadata") or {}
    ann = annotation_outcome(p, before, after)
    result = dict(
        object_state="present",
        changed=fin_after != fin_before or ann.get("annotations_before") != ann.get("annotations_after"),
        uid=meta.get("uid"),
        resource_version=meta.get("resourceVersion"),
        deletion_timestamp=meta.get("deletionTimestamp"),
        finalizers_before=fin_before,
        finalizers_after=fin_after,
        **ann
    )
    if diff:
        key = "spec.finalizers" if scope == "spec" else "metadata.finalizers"
        where = where_of(p)
        result["diff"] = {"before": {key: fin_before}, "after": {key: fin_after},
                          "before_header": where, "after_header": where}
        if ann:
            result["diff"]["before"]["metadata.annotations"] = ann["annotations_before"]
            result["diff"]["after"]["metadata.annotations"] = ann["annotations_after"]
    return result


def check(module):
    errors = validate(module.params)
    if errors:
        module.fail_json(msg="invalid input: " + "; ".join(errors))


def client_failed(module, err, started=None):
    if err.unknown:
        fail_from(module, err, what=where_of(module.params), then="its state is unknown, nothing was changed",
                  object_state=UNKNOWN)
    fail_from(module, err, what="kind")


def run(module, reads):
    p = module.params
    where = where_of(p)
    try:
        resource = reads.resource(p["api_version"], p["kind"])
    except ResourceLookupError as e:
        client_failed(module, e)
    if resource.namespaced and not p["namespace"]:
        module.fail_json(msg="namespace: required, %s %s is namespaced" % (p["api_version"], p["kind"]))

    result = dict(changed=False, attempts=0)
    last = {}

    def fetch():
        obs = reads.get(p["api_version"], p["kind"], p["name"], p["namespace"])
        last["obs"] = obs
        if obs["state"] == UNKNOWN:
            raise QueryFailed(obs)
        return obs["object"]

    def send(obj, payload):
        result["attempts"] += 1
        if module.check_mode:
            return None
        if p["scope"] == "spec":
            return reads.finalize_namespace(p["name"], payload)
        try:
            return reads.patch(p["api_version"], p["kind"], p["name"], payload, namespace=p["namespace"])
        except Exception as e:  # pylint: disable=broad-except
            if p.get("annotations") and is_deleting_refusal(e):
                raise Reread(e)  # read again: the annotations go alone on the deleting object
            raise

    try:
        before, after, dummy = apply_with_retry(fetch, lambda obj: compute(p, obj), send, attempts=p["retries"])
    except QueryFailed as e:
        # str(e) is the query's error (QueryFailed's message)
        fail_from(module, e, what="could not read %s" % where, then="its state is unknown, nothing was changed",
                  object_state=UNKNOWN, query=e.obs["query"], **result)
    except Refused as e:
        obj = (last.get("obs") or {}).get("object") or {}
        meta = obj.get("metadata") or {}
        fail_from(module, e, refused=e.reason, object_state="present", uid=meta.get("uid"),
                  resource_version=meta.get("resourceVersion"), deletion_timestamp=meta.get("deletionTimestamp"),
                  finalizers_before=current_list(obj, p["scope"]), finalizers_after=current_list(obj, p["scope"]),
                  query=last["obs"]["query"], **dict(result, **annotation_outcome(p, obj, obj)))
    except Exception as e:  # pylint: disable=broad-except
        if is_deleting_refusal(e) or isinstance(e, Reread):
            module.fail_json(msg="%s is being deleted: the API refused the new finalizer (%s)" % (where, e),
                             refused="object_deleting", **result)
        module.fail_json(msg="could not change the finalizers of %s: %s" % (where, getattr(e, "body", None) or e),
                         exception=traceback.format_exc(), query=(last.get("obs") or {}).get("query"), **result)

    result["query"] = last["obs"]["query"]
    result["attempts"] = max(result["attempts"], 1)
    if before is None:
        if p["state"] == "present":
            module.fail_json(msg="%s does not exist (a successful read answered 404): cannot add a finalizer" % where,
                             refused="absent", object_state=ABSENT, finalizers_before=[], finalizers_after=[], **result)
        module.exit_json(object_state=ABSENT, finalizers_before=[], finalizers_after=[],
                         msg="%s is absent: no finalizer to remove" % where, **result)
    result.update(outcome(p, before, after, diff=module._diff))
    refusal = deleting_refusal(p, before)
    if refusal is not None:  # the annotations went alone (or were already set): the finalizer is still refused
        fail_from(module, refusal, refused=refusal.reason, **result)
    module.exit_json(**result)
