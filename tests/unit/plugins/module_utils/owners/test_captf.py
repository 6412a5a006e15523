from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.owners import captf

UID = "11111111-2222-4333-8444-555555555555"
NOW = 1_800_000_000


def obj(deleting=True, conds=(), backups=(), spec=None, ann=None, fins=None, status_extra=None, labels=None):
    st = {"conditions": [dict(type=t, status=s, reason=r, message=m) for t, s, r, m in conds],
          "stateBackups": list(backups)}
    st.update(status_extra or {})
    md = {"name": "demo", "namespace": "ns", "uid": UID, "annotations": ann,
          "finalizers": fins if fins is not None else [captf.finalizer_for("TerraformCluster")], "labels": labels}
    if deleting:
        md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"apiVersion": captf.API_VERSION, "kind": "TerraformCluster", "metadata": md, "spec": spec or {},
            "status": st}


def diag(o, **kw):
    kw.setdefault("dependents", [])
    kw.setdefault("inputs", None)
    kw.setdefault("backup_secrets", [])
    return captf.diagnose(o, "TerraformCluster", "demo", "ns", now=NOW, **kw)


BACKUPS = [{"serial": 12, "secretName": "captf-state-backup-tc-demo-12", "createdAt": "2027-01-15T07:00:00Z"},
           {"serial": 11, "secretName": "captf-state-backup-tc-demo-11", "createdAt": "2027-01-15T06:00:00Z",
            "complete": False}]


def test_finalizer_names_follow_the_kind():
    assert captf.finalizer_for("TerraformMachinePool") == "terraformmachinepool.infrastructure.cluster.x-k8s.io"


@pytest.mark.parametrize("reason", captf.STATE_HOLD_REASONS)
def test_each_unreadable_state_reason_is_a_state_hold(reason):
    d = diag(obj(conds=[("StateReadable", "False", reason, "held")], backups=BACKUPS))
    assert d["held"] is True and d["reason"] == reason and d["hold_type"] == "state"
    assert d["abandon_cause"] == "state unreadable"


def test_state_locked_is_not_a_hold():
    d = diag(obj(conds=[("StateReadable", "False", "StateLocked", "lock held")]))
    assert d["held"] is False and d["reason"] == "InProgress"


def test_failing_destroy_is_held_and_abandon_cause_named():
    d = diag(obj(conds=[("StateReadable", "True", "StateRead", ""), ("ApplyJobSucceeded", "False", "DestroyFailed", "x")]))
    assert (d["held"], d["hold_type"], d["abandon_cause"]) == (True, "destroy", "last destroy failed")
    assert [o["action"] for o in d["options"]] == ["fix", "abandon"]


def test_order_paused_before_dependents_before_hold():
    held = [("StateReadable", "False", "StateLost", "")]
    assert diag(obj(conds=held, spec={"paused": True}), dependents=["TerraformMachine/m"])["reason"] == "Paused"
    d = diag(obj(conds=held), dependents=["TerraformMachine/m"])
    assert d["reason"] == "DependentsExist" and d["held"] is False and d["blocked_by_dependents"] is True
    assert diag(obj(conds=held, status_extra={"activeJob": {"type": "restore"}}))["reason"] == "JobRunning"


def test_unknown_dependents_are_not_taken_for_none():
    d = diag(obj(conds=[("StateReadable", "False", "StateLost", "")]), dependents=captf.UNKNOWN)
    assert d["held"] is None and d["blocked_by_dependents"] is None
    assert "could not list" in captf.check_abandon(d, UID)


def test_not_deleting_and_absent():
    assert diag(obj(deleting=False))["reason"] == "NotDeleting"
    d = captf.diagnose(None, "TerraformCluster", "demo", "ns")
    assert d["exists"] is False and d["held"] is False and d["reason"] == "Absent"


def test_ever_applied_by_each_signal_and_unknown():
    assert captf.ever_applied(obj(), None, [])["value"] is False
    assert captf.ever_applied(obj(status_extra={"initialization": {"provisioned": True}}), None, [])["value"] is True
    applied = {"metadata": {"annotations": {"captf.io/applied": "true"}}}
    assert captf.ever_applied(obj(), applied, [])["signals"]["inputs_applied"] is True
    digest = {"metadata": {"annotations": {"captf.io/pinned-digest": "sha256:ab"}}}
    assert captf.ever_applied(obj(), digest, [])["value"] is True
    assert captf.ever_applied(obj(), None, ["captf-state-backup-tc-demo-3"])["value"] is True
    unknown = captf.ever_applied(obj(), captf.UNKNOWN, [])
    assert unknown["value"] is None and unknown["signals"]["inputs_applied"] is None


def test_backups_carry_age_and_usability():
    o = obj(backups=BACKUPS, status_extra={"failedRestores": ["12"]})
    b = captf.list_backups(o, now=captf.parse_time("2027-01-15T08:00:00Z"))
    assert [x["serial"] for x in b] == [12, 11]
    assert b[0]["age_seconds"] == 3600 and b[0]["restore_failed"] and not b[0]["usable"]
    assert not b[1]["complete"] and not b[1]["usable"]


def test_options_list_usable_restores_newest_first_then_abandon():
    bk = [{"serial": 5}, {"serial": 4}, {"serial": 3, "complete": False}]
    d = diag(obj(conds=[("StateReadable", "False", "StateLost", "")], backups=bk))
    assert [(o["action"], o.get("backup_serial")) for o in d["options"]] == [
        ("restore", 5), ("restore", 4), ("abandon", None)]
    assert d["options"][-1]["confirm_uid"] == UID


def test_abandon_option_uses_deletion_policy_on_the_newer_generation():
    d = diag(obj(conds=[("StateReadable", "False", "StateLost", "")]), deletion_policy_supported=True)
    assert d["options"][-1]["via"] == "spec.deletionPolicy: Retain"


@pytest.mark.parametrize("serial,fragment", [(99, "is not one of"), (11, "not a complete backup")])
def test_restore_refuses_unknown_or_incomplete_serials(serial, fragment):
    d = diag(obj(conds=[("StateReadable", "False", "StateLost", "")], backups=BACKUPS))
    assert fragment in captf.check_restore(d, serial)
    assert captf.check_restore(d, 12) is None


def test_restore_refused_outside_a_state_hold_and_for_a_failed_serial():
    d = diag(obj(deleting=False, backups=BACKUPS))
    assert "not being deleted" in captf.check_restore(d, 12)
    d = diag(obj(conds=[("ApplyJobSucceeded", "False", "DestroyFailed", "")], backups=BACKUPS))
    assert "ignores" in captf.check_restore(d, 12)
    d = diag(obj(conds=[("StateReadable", "False", "StateLost", "")], backups=BACKUPS,
                 status_extra={"failedRestores": [12]}))
    assert "never retries" in captf.check_restore(d, 12)


def test_abandon_refusals():
    held = [("StateReadable", "False", "StateCorrupt", "")]
    d = diag(obj(conds=held))
    assert captf.check_abandon(d, UID) is None
    assert "does not equal" in captf.check_abandon(d, UID.replace("1", "9"))
    assert "not being deleted" in captf.check_abandon(diag(obj(deleting=False, conds=held)), UID)
    assert "paused" in captf.check_abandon(diag(obj(conds=held, ann={"cluster.x-k8s.io/paused": ""})), UID)
    assert "does not release DependentsExist" in captf.check_abandon(diag(obj(conds=held), dependents=["TerraformMachine/a"]), UID)
    assert "not held" in captf.check_abandon(diag(obj()), UID)


def test_crd_deletion_policy_detection():
    def crd(props):
        return {"spec": {"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema": {
            "properties": {"spec": {"properties": props}}}}}]}}
    assert captf.crd_has_deletion_policy(crd({"deletionPolicy": {"type": "string"}})) is True
    assert captf.crd_has_deletion_policy(crd({"paused": {"type": "boolean"}})) is False
    assert captf.crd_has_deletion_policy(crd({"deletionPolicy": {}}), version="v1beta1") is False


def test_the_deletion_policy_patch_tests_the_uid():
    # the annotations' patch: k8s/finalizers.set_annotation_patch (test_finalizers.py)
    ops = captf.deletion_policy_patch(obj())
    assert ops[0] == {"op": "test", "path": "/metadata/uid", "value": UID}
    assert ops[1] == {"op": "add", "path": "/spec/deletionPolicy", "value": "Retain"}


def test_portable_secret_drops_identity():
    s = captf.portable_secret({"metadata": {"name": "x", "namespace": "ns", "uid": "u", "resourceVersion": "1",
                                            "ownerReferences": [{}], "managedFields": []}, "data": {"k": "dg=="}})
    assert s["metadata"] == {"name": "x", "namespace": "ns"} and s["data"] == {"k": "dg=="}


def test_a_retry_of_a_failing_destroy_is_still_held_but_a_restore_job_is_not():
    failing = [("ApplyJobSucceeded", "False", "DestroyFailed", "x")]
    d = diag(obj(conds=failing, status_extra={"activeJob": {"type": "destroy"}}))
    assert (d["held"], d["hold_type"], d["reason"]) == (True, "destroy", "DestroyFailed")
    d = diag(obj(conds=[("StateReadable", "False", "StateLost", "")], status_extra={"activeJob": {"type": "restore"}}))
    assert (d["held"], d["reason"]) == (False, "JobRunning")
