# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deletion_info module's driver: why one object (or each of several) is not gone, read through KubeReads
(one try per read, as the module always had). When the API server did not answer while the client was built,
every object is unknown and the task fails; a kind that is not served is an input error."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.k8s.diagnosis import finalizer_owner, inspect_next
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from, TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import PRESENT, UNKNOWN, object_summary

CALLER = "deletion_info"
ATTEMPTS = 1

NS_CONTENT_CONDITIONS = ("NamespaceContentRemaining", "NamespaceFinalizersRemaining")


def namespace_report(ns_obj, contents):
    """Compare a Namespace's conditions with its listed contents; say which to believe."""
    summary = object_summary(ns_obj)
    conds = summary["conditions"]
    by_type = dict((c.get("type"), c) for c in conds)
    content_conds = [by_type[t] for t in NS_CONTENT_CONDITIONS if t in by_type]
    conditions_say_empty = None
    if content_conds:
        conditions_say_empty = all(c.get("status") == "False" for c in content_conds)
    items = contents["items"]
    listing_says_empty = (not items) if contents["ok"] else None
    if not contents["ok"]:
        believe, note = "unknown", ("some lists failed (%s): the contents are incomplete; do not conclude the "
                                    "namespace is empty" % "; ".join(contents["errors"][:3]))
    elif conditions_say_empty and items:
        believe, note = "listing", ("the conditions report no remaining content but %d object(s) are listed: "
                                    "believe the listing" % len(items))
    else:
        believe, note = "listing", "the listing is the direct observation; conditions only summarise it"
    disc = by_type.get("NamespaceDeletionDiscoveryFailure")
    if disc and disc.get("status") == "True":
        note += "; NamespaceDeletionDiscoveryFailure is True: the namespace controller cannot list some kinds"
    return {
        "phase": (ns_obj.get("status") or {}).get("phase"),
        "conditions": conds,
        "spec_finalizers": list((ns_obj.get("spec") or {}).get("finalizers") or []),
        "contents": items,
        "contents_count": len(items),
        "contents_complete": contents["ok"],
        "contents_query": contents["query"],
        "conditions_say_empty": conditions_say_empty,
        "listing_says_empty": listing_says_empty,
        "believe": believe,
        "note": note,
    }


class InputError(TeardownGatesError):
    """Bad input for one object (kind not served, namespace missing): the task fails."""


def read_one(reads, p, dependents):
    """The answer for one object (``p``: api_version, kind, name, namespace) as a result dict.

    ``reads`` is the run's KubeReads; when the client could not be built (``reads.unreachable``) every kind raises
    that error, and the object is unknown. Raises InputError for what the caller must fix.
    """
    where = "%s %s%s" % (p["kind"], (p["namespace"] + "/") if p["namespace"] else "", p["name"])
    try:
        resource = reads.resource(p["api_version"], p["kind"])
    except ResourceLookupError as e:
        if e.unknown:  # the server did not answer discovery: report unknown, like a failed read
            return dict(msg="%s: %s; its state is unknown, not absent" % (where, e), state=UNKNOWN,
                        deleting=False, finalizers=[], conditions=[], query={"ok": False, "error": str(e)},
                        inspect_next=inspect_next(None, state=UNKNOWN))
        raise InputError("kind: %s" % e)
    if resource.namespaced and not p["namespace"]:
        raise InputError("namespace: required, %s %s is namespaced" % (p["api_version"], p["kind"]))

    obs = reads.get(p["api_version"], p["kind"], p["name"], p["namespace"])
    result = dict(state=obs["state"], query=obs["query"], deleting=False, finalizers=[],
                  conditions=[], inspect_next=inspect_next(obs["object"], state=obs["state"]))
    if obs["state"] != PRESENT:
        if obs["state"] == UNKNOWN:
            result["msg"] = "could not read %s (%s): its state is unknown, not absent" % (where, obs["query"].get("error"))
        return result

    obj = obs["object"]
    summary = object_summary(obj)
    summary["api_version"] = summary["api_version"] or p["api_version"]
    summary["kind"] = summary["kind"] or p["kind"]
    meta = obj.get("metadata") or {}
    result.update(
        deleting=bool(meta.get("deletionTimestamp")),
        object=dict((k, v) for k, v in summary.items() if k not in ("finalizers", "conditions")),
        finalizers=[finalizer_owner(f) for f in summary["finalizers"]],
        conditions=summary["conditions"],
        owners=[dict((k, r.get(k)) for k in ("apiVersion", "kind", "name", "uid", "blockOwnerDeletion", "controller"))
                for r in meta.get("ownerReferences") or []],
    )
    hints = inspect_next(obj, state=PRESENT)

    contents = None
    if p["kind"] == "Namespace" and p["api_version"] == "v1":
        contents = reads.contents(namespace=p["name"])
        result["namespace"] = namespace_report(obj, contents)
        left = [c for c in contents["items"] if c.get("finalizers") or c.get("deletion_timestamp")]
        if left:
            hints.insert(0, "Objects left in the namespace with finalizers or still terminating: %s" % ", ".join(
                "%s %s (%s)" % (c["kind"], c["name"], ", ".join(c["finalizers"]) or "terminating") for c in left[:10]))
        if not contents["ok"]:
            hints.insert(0, inspect_next(None, state=UNKNOWN)[0])
    if dependents:
        scope = p["namespace"] if resource.namespaced else None
        pool = reads.contents(namespace=scope)
        deps = [c for c in pool["items"] if meta.get("uid") in (c.get("owner_uids") or [])]
        result["dependents"] = [dict((k, v) for k, v in d.items() if k != "owner_uids") for d in deps]
        result["dependents_complete"] = pool["ok"]
        if deps and result["deleting"]:
            hints.append("Dependents remain (%d): %s; the garbage collector or their owners delete them first "
                         "with foreground deletion." % (len(deps), ", ".join("%s %s" % (d["kind"], d["name"]) for d in deps[:10])))
    result["inspect_next"] = hints
    return result


def worst_state(states):
    for s in (UNKNOWN, PRESENT):
        if s in states:
            return s
    return states[0] if states else UNKNOWN


def wanted_of(p):
    """The objects asked about: O(objects), or the one object of O(kind)/O(name)."""
    if p["objects"] is not None:
        return p["objects"]
    return [dict(api_version=p["api_version"], kind=p["kind"], name=p["name"], namespace=p["namespace"])]


def check(module):
    p = module.params
    if p["request_timeout"] <= 0:
        module.fail_json(msg="invalid input: request_timeout: must be more than 0 seconds")
    if not wanted_of(p):
        module.fail_json(msg="invalid input: objects: give at least one object")


def client_failed(module, err, started=None):
    if not err.unknown:
        fail_from(module, err, what="kind")
    # unknown: go on without a client, every answer is then unknown, never absent


def run(module, reads):
    p = module.params
    wanted = wanted_of(p)
    answers = []
    for n, item in enumerate(wanted):
        try:
            answers.append(read_one(reads, item, p["dependents"]))
        except InputError as e:
            fail_from(module, e, what=("objects[%d]" % n) if p["objects"] is not None else None)
    # The API server did not answer within the client's bound: every answer is unknown, and the task fails
    # (a read that could not be sent is not an answer); a single read that timed out stays an unknown answer.
    finish = module.fail_json if reads.unreachable is not None else module.exit_json
    if p["objects"] is None:
        finish(changed=False, **answers[0])
    for item, answer in zip(wanted, answers):
        answer["item"] = dict((k, v) for k, v in item.items() if v is not None)
    extra = {"msg": "%s" % reads.unreachable} if reads.unreachable is not None else {}
    extra["inspect_next"] = [h for a in answers for h in a["inspect_next"]][:10]
    finish(changed=False, state=worst_state([a["state"] for a in answers]), objects=answers, **extra)
