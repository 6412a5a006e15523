from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.owners import convoy

UID = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
ENTRIES = [{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "t", "name": "web-config"},
           {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "t", "name": "web"}]


def hook(name, on_failure=None):
    h = {"name": name, "type": "Job"}
    if on_failure:
        h["onFailure"] = on_failure
    return h


def release(keep=False, pre=(), post=(), deleting=False, fins=(convoy.RELEASE_FINALIZER,), conds=()):
    md = {"name": "web", "namespace": "apps", "uid": UID, "finalizers": list(fins)}
    if deleting:
        md["deletionTimestamp"] = "2026-11-29T10:00:00Z"
    return {"apiVersion": convoy.API_VERSION, "kind": "Release", "metadata": md,
            "spec": {"clusterRef": {"name": "dev"}, "targetNamespace": "t", "deletionPolicy": {"keepWorkloads": keep},
                     "lifecycle": {"preDelete": list(pre), "postDelete": list(post)}},
            "status": {"conditions": [dict(type=t, status=s, reason=r, message=m) for t, s, r, m in conds]}}


def present(o):
    return {"state": "present", "object": o, "error": None}


def cluster(reachable):
    return present({"metadata": {"name": "dev"}, "status": {"reachable": reachable} if reachable is not None else {}})


ABSENT = {"state": "absent", "object": None, "error": None}
UNKNOWN = {"state": "unknown", "object": None, "error": "connection refused"}
INVENTORY = present({"spec": {"entries": ENTRIES}})


def job(hook_name, failed=True, phase="preDelete", attempt="2"):
    conds = [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "exit 1",
              "lastTransitionTime": "2026-11-29T10:00:05Z"}] if failed else \
        [{"type": "Complete", "status": "True", "reason": "CompletionsReached"}]
    return {"metadata": {"name": "web-pre-%s-%s" % (hook_name, attempt), "namespace": "t",
                         "labels": {convoy.LABEL_HOOK: hook_name, convoy.LABEL_PHASE: phase,
                                    convoy.LABEL_RELEASE_UID: UID},
                         "annotations": {"convoy.kumodo.io/attempt": attempt}},
            "status": {"conditions": conds}}


def summarize(r, cl=None, inv=None, jobs=None, events=None):
    return convoy.summarize_release("web", "apps", present(r), cluster(True) if cl is None else cl,
                                    INVENTORY if inv is None else inv, jobs, events)


# -- the Cluster check convoy makes -------------------------------------------------------------

def test_reachable_cluster_no_orphans():
    s = summarize(release())
    assert s["cluster_check"] == "reachable"
    assert s["orphan_risk"] is False and s["orphans"] == []
    assert s["inventory"]["entries"] == ENTRIES


def test_unreachable_cluster_would_orphan_every_recorded_object():
    s = summarize(release(pre=[hook("snap", "Continue")]), cl=cluster(False))
    assert s["cluster_check"] == "unreachable"
    assert s["orphan_risk"] is True
    assert s["orphans"] == ENTRIES
    assert "not reachable" in s["orphan_warning"] and "2 recorded object(s)" in s["orphan_warning"]
    assert "skips 1 delete hook(s)" in s["orphan_warning"]


def test_missing_reachable_field_is_not_reachable():
    assert summarize(release(), cl=cluster(None))["cluster_check"] == "unreachable"


def test_absent_and_unknown_cluster_are_never_taken_as_reachable():
    assert summarize(release(), cl=ABSENT)["cluster_check"] == "absent"
    u = summarize(release(), cl=UNKNOWN)
    assert u["cluster_check"] == "unknown" and u["orphan_risk"] is True and "unknown" in u["orphan_warning"]


def test_keep_workloads_without_hooks_needs_no_cluster():
    s = summarize(release(keep=True), cl=cluster(False))
    assert s["cluster_check"] == "not_needed"
    assert s["orphan_risk"] is False


def test_keep_workloads_with_hooks_still_checks_but_orphans_nothing():
    s = summarize(release(keep=True, post=[hook("notify")]), cl=cluster(False))
    assert s["cluster_check"] == "unreachable"
    assert s["orphans"] == []
    assert s["orphan_risk"] is True and "skips its 1 delete hook(s)" in s["orphan_warning"]


def test_hook_on_failure_defaults_to_fail():
    assert convoy.hooks(release(pre=[hook("x")]), "preDelete")[0]["onFailure"] == "Fail"


# -- why a deleting Release has not gone ---------------------------------------------------------

def test_failed_fail_hook_is_the_blocker_with_ways_out():
    r = release(deleting=True, pre=[hook("snap", "Continue"), hook("backup", "Fail")])
    s = summarize(r, jobs=[job("snap", failed=False), job("backup")])
    assert [b["hook"] for b in s["blocked_by"]] == ["backup"]
    assert s["blocked_by"][0]["onFailure"] == "Fail" and s["blocked_by"][0]["attempt"] == "2"
    assert "preDelete hook backup failed" in s["diagnosis"][0] and "t/web-pre-backup-2" in s["diagnosis"][0]
    text = " ".join(s["ways_out"])
    assert "onFailure to Continue" in text and "remove the hook" in text
    assert "do not remove the finalizer" in text


def test_failed_continue_hook_does_not_block():
    r = release(deleting=True, pre=[hook("warn", "Continue")])
    s = summarize(r, jobs=[job("warn")])
    assert s["blocked_by"] == []
    assert s["diagnosis"][0].startswith("no failure observed")


def test_on_failure_is_read_from_the_spec_now():
    # the owner switched the hook to Continue: the failed Job no longer blocks
    r = release(deleting=True, pre=[hook("backup", "Continue")])
    assert summarize(r, jobs=[job("backup")])["blocked_by"] == []


def test_post_delete_failures_never_block():
    r = release(deleting=True, post=[hook("notify", "Fail")])
    assert summarize(r, jobs=[job("notify", phase="postDelete")])["blocked_by"] == []


def test_failing_step_is_named():
    r = release(deleting=True, conds=[("Deleting", "True", "DeleteStepFailed", "step inventory failed: 500")])
    s = summarize(r)
    assert "step inventory failed" in s["diagnosis"][0]


def test_warning_events_grouped_and_used_when_no_condition():
    ev = [{"type": "Warning", "reason": "DeleteStepFailed", "message": "old", "count": 2, "lastTimestamp": "2026-11-29T10:00:00Z"},
          {"type": "Warning", "reason": "DeleteStepFailed", "message": "new", "count": 1, "lastTimestamp": "2026-11-29T10:00:09Z"},
          {"type": "Normal", "reason": "HookStarted", "message": "x"}]
    s = summarize(release(deleting=True), events=ev)
    assert s["warning_events"] == [{"reason": "DeleteStepFailed", "count": 3, "message": "new", "last": "2026-11-29T10:00:09Z"}]
    assert s["diagnosis"] == ["DeleteStepFailed (x3): new"]


def test_other_finalizer_named_when_convoys_is_gone():
    s = summarize(release(deleting=True, fins=["example.com/other"]))
    assert "example.com/other" in s["diagnosis"][0]


def test_absent_or_unknown_release_has_no_plan():
    assert convoy.summarize_release("web", "apps", ABSENT)["state"] == "absent"
    assert convoy.summarize_release("web", "apps", UNKNOWN)["state"] == "unknown"


# -- what stayed ---------------------------------------------------------------------------------

def key(e):
    return (e["apiVersion"], e["kind"], e["namespace"], e["name"])


def test_what_stayed_names_each_object_and_why():
    plan = [summarize(release()), summarize(release(keep=True))]
    plan[1]["name"] = "kept"
    plan[0]["untracked"] = [{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "t", "name": "web-dropped"}]
    states = {key(ENTRIES[0]): "absent", key(ENTRIES[1]): "absent",
              ("v1", "ConfigMap", "t", "web-dropped"): "present"}
    out = convoy.what_stayed(plan, states, {"web": "absent", "kept": "absent"})
    # the kept Release shares entries here: they are absent, so nothing stays for it
    assert out["stayed"] == [{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "t", "name": "web-dropped",
                              "release": "web", "state": "present", "why": "not_in_inventory"}]
    states[key(ENTRIES[1])] = "present"
    out = convoy.what_stayed(plan, states, {"web": "absent", "kept": "absent"})
    assert [(o["release"], o["name"], o["why"]) for o in out["stayed"] if o["kind"] == "Deployment"] == [
        ("web", "web", "not_deleted"), ("kept", "web", "keepWorkloads")]
    assert [o["name"] for o in out["not_deleted"]] == ["web"]


def test_unknown_object_state_is_unverified_not_absent():
    plan = [summarize(release())]
    out = convoy.what_stayed(plan, {key(ENTRIES[0]): "unknown"}, {"web": "absent"})
    assert [o["name"] for o in out["unverified"]] == ["web-config", "web"]
    assert out["stayed"] == []


def test_objects_of_a_held_release_are_not_blamed_on_convoy():
    plan = [summarize(release())]
    out = convoy.what_stayed(plan, {key(e): "present" for e in ENTRIES}, {"web": "present"})
    assert {o["why"] for o in out["stayed"]} == {"release_still_present"}
    assert out["not_deleted"] == []


def test_unreachable_target_objects_are_listed():
    plan = [summarize(release(), cl=cluster(False))]
    out = convoy.what_stayed(plan, {key(e): "present" for e in ENTRIES}, {"web": "absent"})
    assert {o["why"] for o in out["stayed"]} == {"target_not_reachable"}
