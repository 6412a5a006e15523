# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The convoy_release_info module's driver: the Releases of a namespace with their Cluster, inventory, Jobs,
Events and untracked objects, objects to verify and a plan to verify, every read through KubeReads (a failed
read is unknown, never absent)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.teardown.gates.plugins.module_utils.owners.convoy import (
    ABSENT,
    API_VERSION,
    LABEL_RELEASE,
    LABEL_RELEASE_UID,
    PRESENT,
    UNKNOWN,
    cluster_name,
    prune_releases,
    summarize_release,
    target_namespace,
    what_stayed,
)
from ansible_collections.teardown.gates.plugins.module_utils.core.age import min_age_problem, parse_age, too_young
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from
from ansible_collections.teardown.gates.plugins.module_utils.core.protect import PROTECTED_LABEL_REASON, labelled_protected
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError, missing_permission
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import utc_iso

CALLER = "convoy_release_info"


def short_error(e):
    """An API error as `status reason: message`, without the response headers."""
    status = getattr(e, "status", None)
    if status is None:
        return str(e)
    err = "%s %s" % (status, getattr(e, "reason", "") or "")
    if missing_permission(e):
        err += ": " + missing_permission(e)
    try:
        err += ": " + json.loads(e.body).get("message", "")
    except Exception:
        pass
    return err


def new_record():
    """What the reads leave to report besides their answers: the ones that failed (``unknown``) and the ones
    that answered only after a retry (``retried``), each named as the result words it."""
    return {"unknown": [], "retried": []}


def _answer(record, what, read):
    """``read()`` (a KubeReads list or find), noted in ``record``; a kind that could not be found is unknown."""
    try:
        obs = read()
    except ResourceLookupError as e:
        obs = {"state": UNKNOWN, "query": {}, "exception": e.cause if e.cause is not None else e}
    if obs["state"] == UNKNOWN:
        obs["error"] = short_error(obs["exception"])
        record["unknown"].append({"what": what, "error": obs["error"]})
    elif obs["query"].get("attempts", 1) > 1:
        record["retried"].append({"what": what, "retries": obs["query"]["attempts"] - 1})
    return obs


def list_of(reads, record, api_version, kind, namespace=None, label_selector=None, field_selector=None):
    """``{"state": present|unknown, "items", "error"}``; a failed list is unknown, whatever failed."""
    what = "list %s %s in %s%s" % (api_version, kind, namespace or "all namespaces",
                                   " (%s)" % (label_selector or field_selector) if label_selector or field_selector else "")
    obs = _answer(record, what, lambda: reads.list(api_version, kind, namespace, label_selector=label_selector,
                                                   field_selector=field_selector))
    if obs["state"] == UNKNOWN:
        return {"state": UNKNOWN, "items": None, "error": obs["error"]}
    return {"state": PRESENT, "items": obs["items"]}


def presence(reads, record, api_version, kind, name, namespace=None):
    """Presence by listing with a field selector: an empty successful list proves absence."""
    what = "list %s %s in %s (metadata.name=%s)" % (api_version, kind, namespace or "all namespaces", name)
    obs = _answer(record, what, lambda: reads.find(api_version, kind, name, namespace))
    if obs["state"] == UNKNOWN:
        return {"state": UNKNOWN, "object": None, "error": obs["error"]}
    return {"state": obs["state"], "object": obs["object"], "error": None}


def obs_from(listing, by, name):
    """One object's observation out of a listing ``by`` name: unknown when the listing failed."""
    if listing["state"] == UNKNOWN:
        return {"state": UNKNOWN, "object": None, "error": listing["error"]}
    return {"state": PRESENT, "object": by[name], "error": None} if name in by else \
        {"state": ABSENT, "object": None, "error": None}


def want_releases(p):
    """Whether the Releases are read: asked for by name, label or cluster, or nothing else was asked."""
    return bool(p["names"] or p["label_selector"] or p["cluster_name"]) or not (p["verify_objects"] or p["verify_plan"])


def input_errors(p):
    """The first input error (as the module words it), or None."""
    if p["request_timeout"] <= 0:
        return "request_timeout: must be more than 0 seconds"
    if min_age_problem(p.get("min_age", 0)):
        return min_age_problem(p.get("min_age", 0))
    for i, o in enumerate(p["verify_objects"]):
        missing = [k for k in ("apiVersion", "kind", "name") if not o.get(k)]
        if missing:
            return "verify_objects[%d]: missing %s" % (i, ", ".join(missing))
    return None


def check(module):
    error = input_errors(module.params)
    if error:
        module.fail_json(msg=error)


def client_failed(module, err, started=None):
    fail_from(module, err, what="could not create the API client (state unknown, nothing is taken as absent)")


def kept_reason(release, min_age):
    """Why a Release stays out of every plan (labelled protected, or younger than ``min_age`` seconds), or ""."""
    if labelled_protected(release):
        return PROTECTED_LABEL_REASON
    return too_young((release.get("metadata") or {}).get("creationTimestamp"), min_age)


def read_releases(module, reads, record):
    """``(releases, absent_names, clusters, protected)``; fails the module when the Releases cannot be listed.
    ``protected`` holds every kept Release with its reason: labelled protected, or younger than min_age."""
    p = module.params
    min_age = parse_age(p.get("min_age", 0))
    ns = p["namespace"]
    releases, absent_names, clusters, protected = [], [], [], []
    if want_releases(p):
        listing = list_of(reads, record, API_VERSION, "Release", ns, label_selector=p["label_selector"])
        if listing["state"] == UNKNOWN:
            module.fail_json(msg="could not list the Releases in %s (state unknown, nothing is taken as absent): %s"
                             % (ns, listing["error"]), unknown=record["unknown"], retried=record["retried"], query_times=dict(
                                 started=utc_iso(reads.started), finished=utc_iso()))
        items = listing["items"]
        if p["names"]:
            by_name = dict((r["metadata"]["name"], r) for r in items)
            absent_names = [n for n in p["names"] if n not in by_name]
            items = [by_name[n] for n in p["names"] if n in by_name]
        if p["cluster_name"]:
            items = [r for r in items if cluster_name(r) == p["cluster_name"]]
        cl = list_of(reads, record, API_VERSION, "Cluster", ns)
        inv = list_of(reads, record, API_VERSION, "ReleaseInventory", ns)
        cl_by = dict((c["metadata"]["name"], c) for c in cl["items"] or [])
        inv_by = dict((i["metadata"]["name"], i) for i in inv["items"] or [])
        for c in cl["items"] or []:
            md = c["metadata"]
            clusters.append({"name": md["name"], "uid": md.get("uid"), "state": PRESENT,
                             "reachable": (c.get("status") or {}).get("reachable"),
                             "prune_releases": prune_releases(c), "deleting": bool(md.get("deletionTimestamp")),
                             "finalizers": md.get("finalizers") or []})
        if p["cluster_name"] and cl["state"] == PRESENT and p["cluster_name"] not in cl_by:
            clusters.append({"name": p["cluster_name"], "state": ABSENT})

        kept = dict((r["metadata"]["name"], kept_reason(r, min_age)) for r in items)
        for r in [r for r in items if kept[r["metadata"]["name"]]]:
            # labelled teardown.gates/protected, or created less than min_age ago: out of every plan, listed as
            # kept (never deleted nor waited on)
            md = r["metadata"]
            protected.append({"name": md["name"], "namespace": ns, "uid": md.get("uid"), "cluster": cluster_name(r),
                              "reason": kept[md["name"]]})
        for r in [r for r in items if not kept[r["metadata"]["name"]]]:
            md = r["metadata"]
            jobs = events = None
            if p["diagnose"] and md.get("deletionTimestamp"):
                jobs = list_of(reads, record, "batch/v1", "Job", target_namespace(r),
                               label_selector="%s=%s" % (LABEL_RELEASE_UID, md["uid"]))["items"]
                events = list_of(reads, record, "v1", "Event", ns,
                                 field_selector="involvedObject.uid=%s" % md["uid"])["items"]
            s = summarize_release(md["name"], ns, {"state": PRESENT, "object": r},
                                  obs_from(cl, cl_by, cluster_name(r)), obs_from(inv, inv_by, md["name"]), jobs, events)
            s["selector"] = {"api_version": API_VERSION, "kind": "Release", "namespace": ns, "name": md["name"]}
            s["untracked"] = []
            if p["find_untracked"] and s["inventory"]["entries"]:
                recorded = set((e["apiVersion"], e["kind"], e.get("namespace"), e["name"]) for e in s["inventory"]["entries"])
                for av, kind in sorted(set((e["apiVersion"], e["kind"]) for e in s["inventory"]["entries"])):
                    for tns in sorted(set(e.get("namespace") for e in s["inventory"]["entries"] if e["kind"] == kind)):
                        found = list_of(reads, record, av, kind, tns, label_selector="%s=%s" % (LABEL_RELEASE, md["name"]))
                        for o in found["items"] or []:
                            key = (av, kind, o["metadata"].get("namespace"), o["metadata"]["name"])
                            if key not in recorded:
                                s["untracked"].append({"apiVersion": av, "kind": kind, "namespace": key[2],
                                                       "name": key[3]})
            releases.append(s)
    return releases, absent_names, clusters, protected


def run(module, reads):
    p = module.params
    record = new_record()
    objects = []
    for o in p["verify_objects"]:
        obs = presence(reads, record, o["apiVersion"], o["kind"], o["name"], o.get("namespace"))
        objects.append(dict(o, state=obs["state"], error=obs.get("error")))
    releases, absent_names, clusters, protected = read_releases(module, reads, record)
    result = {}
    if p["verify_plan"]:
        result["verification"] = verify(reads, record, p["verify_plan"])
    module.exit_json(changed=False, releases=releases, absent_names=absent_names, clusters=clusters, protected=protected,
                     objects=objects, unknown=record["unknown"], retried=record["retried"],
                     query_times=dict(started=utc_iso(reads.started), finished=utc_iso()), **result)


def verify(reads, record, plan):
    """Each planned Release, its inventory and its recorded (and untracked) objects: present, absent or unknown."""
    rel_states, inv_states, obj_states = {}, {}, {}
    for r in plan:
        if r.get("state") != PRESENT:
            continue
        ns = r.get("namespace")
        rel = presence(reads, record, API_VERSION, "Release", r["name"], ns)
        if rel["state"] == PRESENT and rel["object"]["metadata"].get("uid") != r.get("uid"):
            rel = {"state": ABSENT, "object": None, "error": None, "recreated_uid": rel["object"]["metadata"].get("uid")}
        rel_states[r["name"]] = rel["state"]
        inv_states[r["name"]] = presence(reads, record, API_VERSION, "ReleaseInventory", r["name"], ns)["state"]
        for e in list((r.get("inventory") or {}).get("entries") or []) + list(r.get("untracked") or []):
            key = (e["apiVersion"], e["kind"], e.get("namespace"), e["name"])
            if key not in obj_states:
                obj_states[key] = presence(reads, record, e["apiVersion"], e["kind"], e["name"],
                                           e.get("namespace"))["state"]
    out = what_stayed(plan, obj_states, rel_states)
    out["releases"] = [{"name": n, "state": s} for n, s in sorted(rel_states.items())]
    out["inventories"] = [{"name": n, "state": s} for n, s in sorted(inv_states.items())]
    return out
