# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deletion_info module's driver: why one object (or each of several) is not gone, read through KubeReads
(one try per read, as the module always had). When the API server did not answer while the client was built,
every object is unknown and the task fails; a kind that is not served is an input error."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.k8s import deletion_diagnosis as dd
from ansible_collections.teardown.gates.plugins.module_utils.k8s.diagnosis import finalizer_owner, inspect_next
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from, TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import ABSENT, PRESENT, UNKNOWN, object_summary
from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry

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


WEBHOOK_KINDS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
ADMISSION_API = "admissionregistration.k8s.io/v1"


def _listed(reads, unread, api_version, kind, namespace=None, label_selector=None):
    """The items of one LIST, or None when it got no answer (noted in ``unread``: unknown, never empty)."""
    try:
        listing = reads.list(api_version, kind, namespace=namespace, label_selector=label_selector)
    except ResourceLookupError as e:
        if not e.unknown:  # not served here: none of it can exist
            return []
        listing = {"state": UNKNOWN, "query": {"error": str(e)}}
    if listing["state"] == UNKNOWN:
        unread.append({"what": "%s %s%s" % (api_version, kind, (" in " + namespace) if namespace else ""),
                       "error": listing["query"].get("error")})
        return None
    return listing["items"]


def _webhooks(reads, unread, target):
    """The Fail webhooks that apply to an UPDATE of the target and whose Service has no ready endpoint."""
    hooks = []
    for kind in WEBHOOK_KINDS:
        hooks += dd.webhook_targets(_listed(reads, unread, ADMISSION_API, kind) or [])
    ready = {}
    for h in hooks:
        if h["failure_policy"] != "Fail" or not h["service"] or not dd.webhook_applies(h, target):
            continue
        key = "%s/%s" % (h["service"]["namespace"], h["service"]["name"])
        if key not in ready:
            slices = _listed(reads, unread, "discovery.k8s.io/v1", "EndpointSlice", namespace=h["service"]["namespace"],
                             label_selector="kubernetes.io/service-name=%s" % h["service"]["name"])
            ready[key] = None if slices is None else dd.ready_endpoints(slices)
    return dd.refusing_webhooks(hooks, ready, target)


def _ways_out(hints, fins, webhooks, apis):
    """The owners' own ways out: the runbooks of the kinds whose finalizers hold it, then the hints."""
    out = []
    for w in webhooks:
        out.append("Bring back the endpoints of %s (the webhook %s's Service), or scope the webhook away from this "
                   "object: then the finalizer's owner can patch it. Never remove the finalizer by hand." % (
                       w["service"], w["webhook"]))
    for a in apis:
        out.append("Make APIService %s Available again (its Service %s needs ready endpoints), or delete the "
                   "APIService if its API is retired: the namespace controller then lists and deletes the rest." % (
                       a["name"], a["service"]))
    for f in fins:
        try:
            kind = registry.by_finalizer(f["name"])
        except registry.UnknownKind:
            continue
        runbook = (getattr(kind, "FILES", None) or {}).get("runbook")
        if runbook:
            out.append("%s is %s's: follow %s (the owner's own path)." % (f["name"], f["owner"], runbook[0]))
    return out + [h for h in hints if h not in out]


def diagnose(reads, p, resource, obj, result, pool):
    """What else blocks the deletion of ``obj``: ``result["diagnosis"]`` (deletion_diagnosis' pieces)."""
    unread = []
    meta = obj.get("metadata") or {}
    fins = dd.finalizers(obj)
    fg = dd.foreground(obj, pool["items"] if pool else [])
    group, dummy, version = p["api_version"].rpartition("/")
    target = {"group": group, "version": version, "resource": resource.name, "namespace": p["namespace"],
              "labels": meta.get("labels") or {}, "namespace_labels": {}}
    if p["namespace"]:
        ns = reads.get("v1", "Namespace", p["namespace"])
        target["namespace_labels"] = ((ns.get("object") or {}).get("metadata") or {}).get("labels") or {}
    webhooks = _webhooks(reads, unread, target)
    apis, ns_state = [], None
    if "namespace" in result:
        listed = _listed(reads, unread, "apiregistration.k8s.io/v1", "APIService")
        apis = dd.unavailable_apiservices(listed or [])
        ns_state = "unknown" if listed is None else dd.namespace_state(result["namespace"], apis)
    observed = {}
    entries = registry.controllers_for(p["api_version"], meta.get("finalizers") or [])
    for c in entries:
        try:
            observed[(c["namespace"], c["name"])] = reads.get("apps/v1", "Deployment", c["name"], c["namespace"])
        except ResourceLookupError as e:
            unread.append({"what": "Deployment %s/%s" % (c["namespace"], c["name"]), "error": str(e)})
    ctrls = dd.controllers(entries, observed)
    found = dd.blockers(result["state"], result["deleting"], fins, fg, webhooks, apis, ns_state,
                        result.get("namespace"), ctrls)
    found += [{"what": "unread", "name": u["what"], "detail": "could not be read (%s): unknown, not absent" % u["error"]}
              for u in unread]
    result["diagnosis"] = {
        "finalizers": fins, "owners": fg["owners"], "foreground": fg, "webhooks": webhooks, "apiservices": apis,
        "namespace_state": ns_state, "controllers": ctrls, "blockers": found, "unread": unread,
        "ways_out": _ways_out(result["inspect_next"], fins, webhooks, apis)}


def read_one(reads, p, dependents, diagnosing=False):
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
        finalizers=[finalizer_owner(f, summary["api_version"], summary["kind"]) for f in summary["finalizers"]],
        conditions=summary["conditions"],
        owners=[dict((k, r.get(k)) for k in ("apiVersion", "kind", "name", "uid", "blockOwnerDeletion", "controller"))
                for r in meta.get("ownerReferences") or []],
    )
    hints = inspect_next(obj, state=PRESENT)

    contents = pool = None
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
        result["dependents"] = [dict((k, v) for k, v in d.items() if k not in ("owner_uids", "owner_refs")) for d in deps]
        result["dependents_complete"] = pool["ok"]
        if deps and result["deleting"]:
            hints.append("Dependents remain (%d): %s; the garbage collector or their owners delete them first "
                         "with foreground deletion." % (len(deps), ", ".join("%s %s" % (d["kind"], d["name"]) for d in deps[:10])))
    result["inspect_next"] = hints
    if diagnosing:
        diagnose(reads, p, resource, obj, result, pool)
    return result


def _field(obj, path):
    """The value at the dotted ``path`` of ``obj`` (None when a step is missing)."""
    for step in path.split("."):
        obj = obj.get(step) if isinstance(obj, dict) else None
    return obj


def list_one(reads, p):
    """The answer for one entry without a name (``p``: api_version, kind, namespace, label_selector, match): the
    objects of that kind left in the namespace (every one, for a cluster-scoped kind), ``match`` (dotted field path
    to value) keeping only those whose fields equal it. ``absent`` when the list answered and nothing is left,
    ``present`` with ``names`` and ``listed`` (each one's finalizers and deletion timestamp, as a single read gives
    them) when something is, ``unknown`` when the list got no answer - never absent. One LIST, bounded as a read."""
    where = "%s%s%s" % (p["kind"], (" in " + p["namespace"]) if p.get("namespace") else "",
                        (" (%s)" % p["label_selector"]) if p.get("label_selector") else "")
    result = dict(state=UNKNOWN, deleting=False, finalizers=[], conditions=[], listed=[], names=[], count=0)
    try:
        resource = reads.resource(p["api_version"], p["kind"])
    except ResourceLookupError as e:
        if e.unknown:
            return dict(result, msg="%s: %s; what is left is unknown, not nothing" % (where, e),
                        query={"ok": False, "error": str(e)}, inspect_next=inspect_next(None, state=UNKNOWN))
        raise InputError("kind: %s" % e)
    if resource.namespaced and not p.get("namespace"):
        raise InputError("namespace: required, %s %s is namespaced" % (p["api_version"], p["kind"]))
    listing = reads.list(p["api_version"], p["kind"], namespace=p.get("namespace") if resource.namespaced else None,
                         label_selector=p.get("label_selector"))
    result["query"] = listing["query"]
    if listing["state"] == UNKNOWN:
        result["msg"] = "could not list %s (%s): what is left is unknown, not nothing" % (
            where, listing["query"].get("error"))
        result["inspect_next"] = inspect_next(None, state=UNKNOWN)
        return result
    match = p.get("match") or {}
    left = [o for o in listing["items"]
            if all("%s" % _field(o, k) == "%s" % v and _field(o, k) is not None for k, v in match.items())]
    items = []
    for summary in sorted((object_summary(o) for o in left), key=lambda s: (s["namespace"] or "", s["name"] or "")):
        items.append(dict(name=summary["name"], namespace=summary["namespace"], uid=summary["uid"],
                          deleting=bool(summary["deletion_timestamp"]),
                          deletion_timestamp=summary["deletion_timestamp"],
                          finalizers=[finalizer_owner(f, p["api_version"], p["kind"]) for f in summary["finalizers"]]))
    result.update(state=PRESENT if items else ABSENT, listed=items, names=[i["name"] for i in items], count=len(items),
                  deleting=any(i["deleting"] for i in items), inspect_next=[])
    if items:
        result["inspect_next"] = ["%s left (%d): %s" % (where, len(items), ", ".join(_listed_name(i) for i in items[:10]))]
    return result


def _listed_name(item):
    """One listed object for a hint: its name, and its finalizers (or "terminating") when it is being deleted."""
    if not item["deleting"]:
        return item["name"]
    return "%s (%s)" % (item["name"], ", ".join(f["name"] for f in item["finalizers"]) or "terminating")


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


def check(module, p=None):
    """Input errors, before any request (``p``: the params to check, the module's by default)."""
    p = module.params if p is None else p
    if p["request_timeout"] <= 0:
        module.fail_json(msg="invalid input: request_timeout: must be more than 0 seconds")
    if not wanted_of(p):
        module.fail_json(msg="invalid input: objects: give at least one object")
    for n, item in enumerate(wanted_of(p)):
        where = ("objects[%d]." % n) if p["objects"] is not None else ""
        why = dd.check_api_version(item["api_version"])
        if why:
            module.fail_json(msg="invalid input: %sapi_version: %s" % (where, why))
        if not (item.get("kind") or "").strip():
            module.fail_json(msg="invalid input: %skind: required, the kind of the object to read (or of the objects "
                             "to list, without a name)" % where)
        listing = item.get("name") is None
        if not listing and not item["name"].strip():
            module.fail_json(msg="invalid input: %sname: required, the name of the object to read" % where)
        for option in ("label_selector", "match"):
            if not listing and item.get(option):
                module.fail_json(msg="invalid input: %s%s: lists only - give it on an entry without a name" % (
                    where, option))
        bad = [k for k in (item.get("match") or {}) if not k or "" in k.split(".")]
        if bad:
            module.fail_json(msg="invalid input: %smatch: %r is not a dotted field path (such as spec.clusterName)"
                             % (where, bad[0]))


def client_failed(module, err, started=None):
    if not err.unknown:
        fail_from(module, err, what="kind")
    # unknown: go on without a client, every answer is then unknown, never absent


def answers(module, reads, p=None):
    """The module's result for ``reads`` (no exit): ``(failed, result)``, ``failed`` when the API server did not
    answer while the client was built (every answer is then unknown). An input error fails the module. ``p``: the
    params (objects or kind and name, dependents, diagnose), the module's by default."""
    p = module.params if p is None else p
    wanted = wanted_of(p)
    found = []
    for n, item in enumerate(wanted):
        try:
            if item.get("name") is None:
                found.append(list_one(reads, item))
            else:
                found.append(read_one(reads, item, p["dependents"] or p["diagnose"], p["diagnose"]))
        except InputError as e:
            fail_from(module, e, what=("objects[%d]" % n) if p["objects"] is not None else None)
    # The API server did not answer within the client's bound: every answer is unknown, and the task fails
    # (a read that could not be sent is not an answer); a single read that timed out stays an unknown answer.
    failed = reads.unreachable is not None
    if p["objects"] is None:
        return failed, dict(changed=False, **found[0])
    for item, answer in zip(wanted, found):
        answer["item"] = dict((k, v) for k, v in item.items() if v is not None)
    extra = {"msg": "%s" % reads.unreachable} if reads.unreachable is not None else {}
    extra["inspect_next"] = [h for a in found for h in a["inspect_next"]][:10]
    return failed, dict(changed=False, state=worst_state([a["state"] for a in found]), objects=found, **extra)


def run(module, reads):
    failed, result = answers(module, reads)
    (module.fail_json if failed else module.exit_json)(**result)
