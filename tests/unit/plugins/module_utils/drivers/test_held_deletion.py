# -*- coding: utf-8 -*-
"""drivers/held_deletion.py: restore and abandon as plain functions that return the patch (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.owners import captf
from ansible_collections.teardown.gates.plugins.module_utils.drivers import held_deletion as H

UID = "11111111-2222-4333-8444-555555555555"


class Done(Exception):
    pass


class Module(object):
    check_mode = False
    _diff = False

    def __init__(self, **params):
        self.params = dict(dict(kind="TerraformCluster", namespace="ns", name="demo", api_version=captf.API_VERSION,
                                backup_serial=None, confirm_uid=None, backup_to=None), **params)
        self.warnings = []

    def exit_json(self, **kw):
        raise Done(("exit", kw))

    def fail_json(self, **kw):
        raise Done(("fail", kw))

    def warn(self, text):
        self.warnings.append(text)


def obj(annotations=None):
    return {"metadata": {"name": "demo", "namespace": "ns", "uid": UID, "annotations": annotations or {}},
            "spec": {}}


def before_after(o):
    before = {"annotations": dict(o["metadata"]["annotations"]), "deletionPolicy": o["spec"].get("deletionPolicy")}
    return before, copy.deepcopy(before)


def test_a_restore_already_asked_for_changes_nothing():
    o = obj({captf.RESTORE_ANNOTATION: "3"})
    before, after = before_after(o)
    with pytest.raises(Done) as e:
        H.plan_restore(Module(backup_serial=3), o, {"deleting": True}, before, after, {})
    kind, res = e.value.args[0]
    assert kind == "exit" and "already set" in res["msg"]


def test_abandon_by_annotation_returns_the_patch_and_the_after():
    o = obj()
    before, after = before_after(o)
    diag = {"exists": True, "deleting": True, "uid": UID, "deletion_policy": {"supported": False},
            "abandon_cause": "x"}
    module = Module(confirm_uid=UID)
    original = H.captf.check_abandon
    H.captf.check_abandon = lambda d, u: None
    try:
        ops = H.plan_abandon(module, o, diag, before, after, {})
    finally:
        H.captf.check_abandon = original
    assert after["annotations"][captf.ABANDON_ANNOTATION] == UID
    assert ops[0] == {"op": "test", "path": "/metadata/uid", "value": UID}


def test_the_result_never_holds_secret_data():
    d = {"held": True, "secrets": [{"data": {"tfstate": "e30="}}]}
    assert "secrets" not in H.public(d) and "secrets" in d


@pytest.mark.parametrize("action", ["restore", "abandon"])
def test_an_object_labelled_protected_is_neither_restored_nor_abandoned(monkeypatch, action):
    o = obj()
    o["metadata"]["labels"] = {"teardown.gates/protected": "true"}
    diag = {"held": True, "reason": "DestroyFailed", "hold_type": "state", "uid": UID, "deleting": True}
    monkeypatch.setattr(H, "gather", lambda module, reads, seen: (o, diag))
    patched = []
    monkeypatch.setattr(H, "patch", lambda module, reads, ops: patched.append(ops))
    with pytest.raises(Done) as e:
        H.run(Module(action=action, backup_serial=3, confirm_uid=UID), None)
    kind, res = e.value.args[0]
    assert kind == "fail" and res["protected"] is True and res["changed"] is False and patched == []
    assert "labelled teardown.gates/protected: it is neither restored nor abandoned; nothing changed" in res["msg"]
    o["metadata"]["labels"] = {}
    with pytest.raises(Done) as e:
        H.run(Module(action="diagnose"), None)
    assert e.value.args[0][0] == "exit" and e.value.args[0][1]["protected"] is False


@pytest.mark.parametrize("action", ["restore", "abandon"])
def test_an_object_younger_than_min_age_is_neither_restored_nor_abandoned(monkeypatch, action):
    import datetime
    o = obj()
    just_now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=30)
    o["metadata"]["creationTimestamp"] = just_now.strftime("%Y-%m-%dT%H:%M:%SZ")
    diag = {"held": True, "reason": "DestroyFailed", "hold_type": "state", "uid": UID, "deleting": True}
    monkeypatch.setattr(H, "gather", lambda module, reads, seen: (o, diag))
    patched = []
    monkeypatch.setattr(H, "patch", lambda module, reads, ops: patched.append(ops))
    with pytest.raises(Done) as e:
        H.run(Module(action=action, backup_serial=3, confirm_uid=UID, min_age="1h"), None)
    kind, res = e.value.args[0]
    assert kind == "fail" and res["changed"] is False and patched == []
    assert res["young"] == "created %s, less than min_age (3600 s) ago" % just_now.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert "neither restored nor abandoned; nothing changed" in res["msg"]
    # old enough, or min_age off: no reason, the diagnosis says so
    o["metadata"]["creationTimestamp"] = "2020-01-01T00:00:00Z"
    with pytest.raises(Done) as e:
        H.run(Module(action="diagnose", min_age="1h"), None)
    assert e.value.args[0][0] == "exit" and e.value.args[0][1]["young"] == ""
    o["metadata"]["creationTimestamp"] = just_now.strftime("%Y-%m-%dT%H:%M:%SZ")
    with pytest.raises(Done) as e:
        H.run(Module(action="diagnose", min_age=0), None)
    assert e.value.args[0][1]["young"] == ""


@pytest.mark.parametrize("value, why", [(-5, "is negative"), ("banana", "is not a duration")])
def test_a_bad_min_age_fails_naming_it_before_any_read(value, why):
    with pytest.raises(Done) as e:
        H.check(Module(action="diagnose", min_age=value))
    kind, res = e.value.args[0]
    assert kind == "fail" and res["msg"].startswith("min_age: ") and why in res["msg"]


class LostRace(Exception):
    """The API server's answer to a JSON patch whose `test` failed."""
    status = 422
    body = "the server rejected our request due to an error in our request"


class PatchingReads(object):
    """The read service as far as run() patches through it: the first ``lose`` patches lose a race."""

    def __init__(self, lose):
        self.lose, self.sent = lose, []

    def patch(self, api_version, kind, name, ops, namespace=None):
        self.sent.append(ops)
        if len(self.sent) <= self.lose:
            raise LostRace("test failed")


def held_restore_diag():
    return {"held": True, "reason": "StateUnreadable", "hold_type": "state", "uid": UID, "deleting": True,
            "exists": True, "paused": False,
            "backups": [{"serial": 3, "complete": True, "restore_failed": False, "usable": True}]}


def test_a_restore_that_lost_a_race_reads_again_and_finds_it_asked_for(monkeypatch):
    # another run set the annotation map between our read and our PATCH (seed 14039's two concurrent runs)
    reads_of_the_object = [obj(), obj({captf.RESTORE_ANNOTATION: "3"})]
    reads_of_the_object[0]["metadata"]["annotations"] = None  # no map yet: the patch tests the version read
    monkeypatch.setattr(H, "gather", lambda module, reads, seen: (reads_of_the_object.pop(0), held_restore_diag()))
    reads = PatchingReads(lose=1)
    with pytest.raises(Done) as e:
        H.run(Module(action="restore", backup_serial=3, min_age=0), reads)
    kind, res = e.value.args[0]
    assert kind == "exit" and res["changed"] is False and "already set" in res["msg"]
    assert len(reads.sent) == 1 and reads.sent[0][1]["path"] == "/metadata/resourceVersion"


def test_a_restore_that_keeps_losing_fails_after_its_attempts(monkeypatch):
    monkeypatch.setattr(H, "gather", lambda module, reads, seen: (obj(), held_restore_diag()))
    reads = PatchingReads(lose=H.PATCH_ATTEMPTS)
    with pytest.raises(Done) as e:
        H.run(Module(action="restore", backup_serial=3, min_age=0), reads)
    kind, res = e.value.args[0]
    assert kind == "fail" and "patching TerraformCluster ns/demo failed" in res["msg"]
    assert len(reads.sent) == H.PATCH_ATTEMPTS
