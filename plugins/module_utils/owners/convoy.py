# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""convoy (core.convoy.kumodo.io/v1alpha1): what a Release's deletion will do, and why it is stuck.

Pure functions over observed objects, so the rules are unit-tested without a cluster:

- ``summarize_release(...)``: one Release's deletion facts - its inventory (what convoy will delete),
  the Cluster check convoy will make (``reachable``, ``unreachable``, ``absent``, ``unknown`` or
  ``not_needed``), whether deleting it now would leave workloads running and untracked, hooks, and,
  when it is deleting, why it has not gone (a failed ``onFailure: Fail`` preDelete hook Job, a step
  that keeps failing) with the owner's ways out.
- ``what_stayed(...)``: after a prune, the recorded objects still present and why each stayed.

Observations are dicts ``{"state": "present"|"absent"|"unknown", "object": dict|None, "error": str}``.
A failed query is ``unknown``: never read as absent, never as reachable.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core.states import ABSENT, PRESENT, UNKNOWN

GROUP = "core.convoy.kumodo.io"
API_VERSION = GROUP + "/v1alpha1"
RELEASE_FINALIZER = "release.core.convoy.kumodo.io/prune-workloads"
CLUSTER_FINALIZER = "cluster.core.convoy.kumodo.io/prune-releases"
LABEL_RELEASE = "convoy.kumodo.io/release"
LABEL_RELEASE_UID = "convoy.kumodo.io/release-uid"
LABEL_HOOK = "convoy.kumodo.io/hook"
LABEL_PHASE = "convoy.kumodo.io/hook-phase"


def _truthy(value):
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _spec(obj):
    return (obj or {}).get("spec") or {}


def _meta(obj):
    return (obj or {}).get("metadata") or {}


def _conditions(obj):
    return ((obj or {}).get("status") or {}).get("conditions") or []


def condition(obj, ctype):
    for c in _conditions(obj):
        if c.get("type") == ctype:
            return c
    return None


def hooks(release, phase):
    """The Release's hooks of a phase (preDelete or postDelete); onFailure defaults to Fail."""
    out = []
    for h in ((_spec(release).get("lifecycle") or {}).get(phase) or []):
        out.append({"name": h.get("name"), "type": h.get("type", "Job"), "onFailure": h.get("onFailure", "Fail"),
                    "timeout": h.get("timeout")})
    return out


def keep_workloads(release):
    return _truthy((_spec(release).get("deletionPolicy") or {}).get("keepWorkloads", False))


def prune_releases(cluster):
    return _truthy((_spec(cluster).get("deletionPolicy") or {}).get("pruneReleases", False))


def cluster_name(release):
    return (_spec(release).get("clusterRef") or {}).get("name")


def target_namespace(release):
    return _spec(release).get("targetNamespace") or _meta(release).get("namespace")


def entry_ref(entry):
    return {"apiVersion": entry.get("apiVersion"), "kind": entry.get("kind"),
            "namespace": entry.get("namespace"), "name": entry.get("name")}


def ref_text(ref):
    ns = ref.get("namespace")
    return "%s %s%s" % (ref.get("kind"), (ns + "/") if ns else "", ref.get("name"))


def cluster_check(release, cluster_obs):
    """What convoy's Cluster check will find for this Release's deletion.

    convoy resolves the Cluster only when it must delete objects or run delete hooks; then it reads
    ``status.reachable`` and skips the hooks and the object deletion when it is not true.
    """
    if keep_workloads(release) and not hooks(release, "preDelete") and not hooks(release, "postDelete"):
        return "not_needed"
    if cluster_obs is None or cluster_obs.get("state") == UNKNOWN:
        return UNKNOWN
    if cluster_obs["state"] == ABSENT:
        return ABSENT
    reachable = ((cluster_obs.get("object") or {}).get("status") or {}).get("reachable")
    return "reachable" if reachable is True else "unreachable"


def failed_hook_jobs(release, jobs):
    """preDelete hook Jobs of this Release (by its UID label) whose Failed condition is True, with the
    hook's onFailure as the Release's spec says now (the owner may have changed it)."""
    by_name = dict((h["name"], h) for h in hooks(release, "preDelete"))
    out = []
    for job in jobs or []:
        labels = _meta(job).get("labels") or {}
        if labels.get(LABEL_PHASE) != "preDelete":
            continue
        failed = condition(job, "Failed")
        if not failed or failed.get("status") != "True":
            continue
        hook = by_name.get(labels.get(LABEL_HOOK))
        out.append({
            "hook": labels.get(LABEL_HOOK),
            "job": _meta(job).get("name"),
            "namespace": _meta(job).get("namespace"),
            "attempt": (_meta(job).get("annotations") or {}).get("convoy.kumodo.io/attempt"),
            "onFailure": hook["onFailure"] if hook else None,
            "in_spec": hook is not None,
            "reason": failed.get("reason"),
            "message": failed.get("message"),
            "failed_at": failed.get("lastTransitionTime"),
        })
    return out


def warning_events(events):
    """Warning events, grouped by reason: count, last message, last time."""
    out = {}
    for e in events or []:
        if e.get("type") != "Warning":
            continue
        r = out.setdefault(e.get("reason"), {"reason": e.get("reason"), "count": 0, "message": None, "last": None})
        r["count"] += int(e.get("count") or 1)
        t = e.get("lastTimestamp") or e.get("eventTime") or (e.get("metadata") or {}).get("creationTimestamp")
        if r["last"] is None or (t and t >= r["last"]):
            r["last"], r["message"] = t, e.get("message")
    return sorted(out.values(), key=lambda r: r["reason"] or "")


def hook_ways_out(name, namespace, job):
    return [
        "fix what makes hook %s fail (read the logs of Job %s/%s); convoy runs the hook again and the "
        "deletion goes on" % (name, namespace, job),
        "if the Release may go without it, set that hook's onFailure to Continue in spec.lifecycle.preDelete "
        "(convoy records the failure and continues)",
        "or remove the hook from spec.lifecycle.preDelete",
        "do not remove the finalizer %s: the workloads and the ReleaseInventory would stay, untracked"
        % RELEASE_FINALIZER,
    ]


def summarize_release(name, namespace, release_obs, cluster_obs=None, inventory_obs=None, jobs=None, events=None):
    """One Release's deletion facts and, when it is deleting, the diagnosis."""
    state = release_obs["state"]
    release = release_obs.get("object")
    md = _meta(release)
    out = {"name": name, "namespace": namespace, "state": state, "error": release_obs.get("error")}
    if state != PRESENT:
        return out
    keep = keep_workloads(release)
    inv_state = (inventory_obs or {}).get("state", UNKNOWN)
    entries = [entry_ref(e) for e in (_spec((inventory_obs or {}).get("object")).get("entries") or [])]
    check = cluster_check(release, cluster_obs)
    pre, post = hooks(release, "preDelete"), hooks(release, "postDelete")
    cobj = (cluster_obs or {}).get("object")
    out.update({
        "uid": md.get("uid"),
        "deleting": bool(md.get("deletionTimestamp")),
        "deletion_timestamp": md.get("deletionTimestamp"),
        "finalizers": list(md.get("finalizers") or []),
        "convoy_finalizer": RELEASE_FINALIZER in (md.get("finalizers") or []),
        "cluster": {"name": cluster_name(release), "state": (cluster_obs or {}).get("state", UNKNOWN),
                    "reachable": ((cobj or {}).get("status") or {}).get("reachable"),
                    "error": (cluster_obs or {}).get("error")},
        "cluster_check": check,
        "keep_workloads": keep,
        "target_namespace": target_namespace(release),
        "hooks": {"preDelete": pre, "postDelete": post},
        "inventory": {"state": inv_state, "entries": entries, "error": (inventory_obs or {}).get("error")},
        "applied": condition(release, "Applied"),
        "deleting_condition": condition(release, "Deleting"),
    })
    # Deleting it now with the Cluster not reachable: convoy skips hooks and object deletion, deletes
    # the inventory anyway, and the objects stay on the cluster, untracked.
    orphans = []
    if check in ("unreachable", ABSENT, UNKNOWN):
        if not keep:
            orphans = entries
        why = {"unreachable": "not reachable (status.reachable is not true)", ABSENT: "absent",
               UNKNOWN: "unknown (the query failed)"}[check]
        skipped = (" and skips %d delete hook(s)" % (len(pre) + len(post))) if pre or post else ""
        if not keep:
            out["orphan_warning"] = (
                "Cluster %s is %s: deleting Release %s/%s now leaves its %d recorded object(s) running on the "
                "target%s; convoy still deletes the ReleaseInventory, so nothing tracks them afterwards"
                % (cluster_name(release), why, namespace, name, len(entries), skipped))
        else:
            out["orphan_warning"] = (
                "Cluster %s is %s: deleting Release %s/%s now skips its %d delete hook(s) (its objects stay, as "
                "keepWorkloads asks, and its ReleaseInventory goes)"
                % (cluster_name(release), why, namespace, name, len(pre) + len(post)))
    else:
        out["orphan_warning"] = None
    out["orphans"] = orphans
    out["orphan_risk"] = bool(out["orphan_warning"])
    # Why a deleting Release has not gone, from what is observable.
    blocked, diagnosis, ways_out = [], [], []
    if out["deleting"]:
        failed = failed_hook_jobs(release, jobs)
        blocked = [f for f in failed if f["onFailure"] == "Fail"]
        for b in blocked:
            diagnosis.append("preDelete hook %s failed (Job %s/%s%s: %s: %s) and its onFailure is Fail: convoy "
                             "keeps the finalizer and deletes no object until it succeeds"
                             % (b["hook"], b["namespace"], b["job"],
                                ", attempt %s" % b["attempt"] if b["attempt"] else "", b["reason"], b["message"]))
            ways_out.extend(hook_ways_out(b["hook"], b["namespace"], b["job"]))
        cond = out["deleting_condition"] or {}
        if cond.get("reason") == "DeleteStepFailed":
            diagnosis.append("a deletion step keeps failing: %s (convoy retries it; the finalizer stays until "
                             "it succeeds)" % cond.get("message"))
            ways_out.append("look at convoy's log and the Release's events for that step's error and clear its "
                            "cause; convoy retries by itself")
        warns = warning_events(events)
        out["warning_events"] = warns
        if not diagnosis:
            for w in warns:
                if w["reason"] in ("DeleteStepFailed", "PreDeleteHookFailed"):
                    diagnosis.append("%s (x%d): %s" % (w["reason"], w["count"], w["message"]))
        if not diagnosis and not out["convoy_finalizer"] and out["finalizers"]:
            diagnosis.append("convoy's finalizer is gone; other finalizers hold it: %s" % ", ".join(out["finalizers"]))
        if not diagnosis:
            diagnosis.append("no failure observed: convoy is still working on it (condition Deleting: %s %s)"
                             % (cond.get("reason"), cond.get("message")))
            ways_out.append("wait longer (raise timeout) and re-run; the role resumes from what it observes")
    out["blocked_by"] = blocked
    out["diagnosis"] = diagnosis
    out["ways_out"] = ways_out
    return out


def what_stayed(plan_releases, object_states, release_states):
    """After the prune: for each planned Release, each recorded object still present, and why.

    ``object_states``: {(apiVersion, kind, namespace, name): "present"|"absent"|"unknown"}.
    ``release_states``: {name: "present"|"absent"|"unknown"} of the Releases after the wait.
    """
    stayed, unverified, missing_cleanup = [], [], []
    for r in plan_releases:
        if r.get("state") != PRESENT:
            continue
        why = None
        if r.get("keep_workloads"):
            why = "keepWorkloads"
        elif r.get("cluster_check") in ("unreachable", ABSENT, UNKNOWN):
            why = "target_not_reachable"
        for e in (r.get("inventory") or {}).get("entries") or []:
            key = (e["apiVersion"], e["kind"], e.get("namespace"), e["name"])
            st = object_states.get(key, UNKNOWN)
            item = dict(e, release=r["name"], state=st)
            if st == UNKNOWN:
                unverified.append(item)
            elif st == PRESENT:
                if release_states.get(r["name"]) == PRESENT:
                    item["why"] = "release_still_present"
                else:
                    item["why"] = why or "not_deleted"
                    if not why:
                        missing_cleanup.append(item)
                stayed.append(item)
        for u in r.get("untracked") or []:
            if object_states.get((u["apiVersion"], u["kind"], u.get("namespace"), u["name"]), PRESENT) == PRESENT:
                stayed.append(dict(u, release=r["name"], state=PRESENT, why="not_in_inventory"))
    return {"stayed": stayed, "unverified": unverified, "not_deleted": missing_cleanup}
