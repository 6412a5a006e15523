"""EBS volumes in the inventory graph: they wait on their instances, a DeleteOnTermination volume of an instance of the
manifest is verified and never deleted a second time, a detached one is deleted, an in-use one waits on its
instance (VolumeInUse), and deleting/deleted/not found are terminal.

A concern test over aws/graph, execute, inventory, probes and report/render together; the pure volume
functions are tested in aws/test_inventory.py (instance_volumes, is_guest_volume) and aws/test_probes.py
(volume_state)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.exceptions

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import Clients
from ansible_collections.teardown.gates.plugins.module_utils.aws.execute import Executor


def err(code, op):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": code + " (fake)"}}, op)


class FakeEC2:
    """Instances and volumes as AWS holds them: terminating an instance deletes its DeleteOnTermination volumes
    (``deleting`` for ``deleting_looks`` looks, then gone) and detaches the others; DeleteVolume of an attached
    volume is refused with VolumeInUse; an ``available`` one goes ``deleting`` and then away."""

    def __init__(self, instances, volumes, deleting_looks=1):
        self.instances = dict(instances)  # id -> state
        self.volumes = volumes  # id -> {"State", "Attachments"}
        self.deleting_looks = deleting_looks
        self.looks = {}
        self.calls = []

    def describe_instances(self, Filters):
        self.calls.append("DescribeInstances")
        ids = Filters[0]["Values"]
        return {"Reservations": [{"Instances": [{"InstanceId": i, "State": {"Name": self.instances[i]}}
                                                for i in ids if i in self.instances]}]}

    def terminate_instances(self, InstanceIds):
        self.calls.append("TerminateInstances")
        for i in InstanceIds:
            self.instances[i] = "terminated"
            for vid, v in list(self.volumes.items()):
                atts = [a for a in v["Attachments"] if a["InstanceId"] == i]
                if atts:
                    v["Attachments"] = []
                    v["State"] = "deleting" if atts[0]["DeleteOnTermination"] else "available"
        return {"TerminatingInstances": [{"InstanceId": i} for i in InstanceIds]}

    def describe_volumes(self, Filters):
        self.calls.append("DescribeVolumes")
        out = []
        for vid in Filters[0]["Values"]:
            v = self.volumes.get(vid)
            if v is None:
                continue
            if v["State"] == "deleting":
                self.looks[vid] = self.looks.get(vid, 0) + 1
                if self.looks[vid] > self.deleting_looks:
                    del self.volumes[vid]
                    continue
            out.append(dict(v, VolumeId=vid))
        return {"Volumes": out}

    def delete_volume(self, VolumeId):
        self.calls.append("DeleteVolume:" + VolumeId)
        v = self.volumes.get(VolumeId)
        if v is None:
            raise err("InvalidVolume.NotFound", "DeleteVolume")
        if v["Attachments"]:
            raise err("VolumeInUse", "DeleteVolume")
        v["State"] = "deleting"

    def describe_network_interfaces(self, Filters):
        return {"NetworkInterfaces": []}


def att(iid, dot):
    return [{"InstanceId": iid, "DeleteOnTermination": dot, "State": "attached", "Device": "/dev/x"}]


def run(fake, manifest, check_mode=False):
    clients = Clients(lambda service: fake, concurrency=2, check_mode=check_mode)
    ex = Executor(clients, g.plan(manifest), wait_timeout=30, sleep=lambda s: None, poll_interval=0, max_poll_interval=0)
    return ex


def test_volumes_wait_on_their_instances_and_iam_waits_on_volumes():
    plan = g.plan({g.VOLUME: ["vol-1"], g.INSTANCE: ["i-1"], g.ROLE: ["x-node-pool"]})
    level = dict((r["type"], r["level"]) for lvl in plan["levels"] for r in lvl)
    assert level[g.INSTANCE] < level[g.VOLUME] < level[g.ROLE]
    vol = [r for lvl in plan["levels"] for r in lvl if r["type"] == g.VOLUME][0]
    assert vol["waits_on"] == [g.INSTANCE + " terminated"]


def test_root_volume_is_verified_not_deleted_twice_and_the_data_volume_is_deleted():
    fake = FakeEC2({"i-1": "running"}, {"vol-root": {"State": "in-use", "Attachments": att("i-1", True)},
                                        "vol-data": {"State": "in-use", "Attachments": att("i-1", False)}})
    ex = run(fake, {g.INSTANCE: ["i-1"], g.VOLUME: ["vol-data", "vol-root"]})
    verified, states = ex.run()
    assert verified, ex.results
    assert "DeleteVolume:vol-root" not in fake.calls  # AWS deleted it with its instance
    assert fake.calls.count("DeleteVolume:vol-data") == 1
    assert ex.results[(g.VOLUME, "vol-root")]["outcome"] == "absent"
    assert ex.results[(g.VOLUME, "vol-data")]["outcome"] == "deleted"
    assert set(states[g.VOLUME].values()) <= {"absent", "terminal"}


def test_root_volume_still_attached_after_termination_is_waited_on_not_deleted():
    """The instance reads terminated while its DeleteOnTermination volume still reads in-use: AWS is on it."""
    fake = FakeEC2({"i-1": "terminated"}, {"vol-root": {"State": "in-use", "Attachments": att("i-1", True)}})
    looks = [0]
    base = fake.describe_volumes

    def describe_volumes(Filters):
        looks[0] += 1
        if looks[0] == 3:  # AWS gets to it
            fake.volumes["vol-root"] = {"State": "deleting", "Attachments": []}
        return base(Filters)
    fake.describe_volumes = describe_volumes
    ex = run(fake, {g.INSTANCE: ["i-1"], g.VOLUME: ["vol-root"]})
    verified, dummy = ex.run()
    assert verified and ex.results[(g.VOLUME, "vol-root")]["outcome"] == "absent"
    assert not [c for c in fake.calls if c.startswith("DeleteVolume")]


def test_in_use_volume_of_an_instance_outside_the_manifest_is_reported_by_its_blocker():
    fake = FakeEC2({"i-9": "running"}, {"vol-pv": {"State": "in-use", "Attachments": att("i-9", False)}})
    ex = run(fake, {g.VOLUME: ["vol-pv"]})
    verified, dummy = ex.run()
    res = ex.results[(g.VOLUME, "vol-pv")]
    assert not verified and res["outcome"] == "failed"
    assert "VolumeInUse" in res["error"] and "i-9" in res["error"]
    assert res["blockers"][0]["type"] == g.INSTANCE and res["blockers"][0]["id"] == "i-9"
    assert fake.calls.count("DeleteVolume:vol-pv") == 1


def test_detached_volume_is_deleted_and_a_gone_one_costs_no_delete():
    fake = FakeEC2({}, {"vol-a": {"State": "available", "Attachments": []}})
    ex = run(fake, {g.VOLUME: ["vol-a", "vol-gone"]})
    verified, states = ex.run()
    assert verified
    assert ex.results[(g.VOLUME, "vol-a")]["outcome"] == "deleted"
    assert ex.results[(g.VOLUME, "vol-gone")]["outcome"] == "absent"
    assert fake.calls.count("DeleteVolume:vol-a") == 1 and "DeleteVolume:vol-gone" not in fake.calls


def test_check_mode_plan_says_a_root_volume_is_only_verified():
    fake = FakeEC2({"i-1": "running"}, {"vol-root": {"State": "in-use", "Attachments": att("i-1", True)},
                                        "vol-data": {"State": "in-use", "Attachments": att("i-1", False)}})
    ex = run(fake, {g.INSTANCE: ["i-1"], g.VOLUME: ["vol-data", "vol-root"]}, check_mode=True)
    rows = dict((r["id"], r) for lvl in ex.check_plan() for r in lvl)
    assert rows["vol-root"]["action"] == "verify: AWS deletes it with instance i-1 (DeleteOnTermination)"
    assert rows["vol-data"]["action"] == "delete"
    assert not [c for c in fake.calls if c.startswith(("DeleteVolume", "TerminateInstances"))]


def test_report_lists_each_tracked_id_with_the_state_its_look_found():
    from ansible_collections.teardown.gates.plugins.module_utils.report.render import build_report, tracked_states
    resources = [{"type": g.VOLUME, "id": "vol-2", "outcome": "absent", "observed": "terminal"},
                 {"type": g.VOLUME, "id": "vol-1", "outcome": "absent", "observed": "absent"},
                 {"type": g.ROLE, "id": "x-node-pool", "outcome": "retained", "reason": "preserve_iam"},
                 {"type": g.ELB, "id": "a1", "outcome": "planned", "observed": "present"}, "junk", {"id": "no-type"}]
    assert tracked_states(resources) == sorted([
        {"type": g.VOLUME, "id": "vol-1", "state": "absent"}, {"type": g.VOLUME, "id": "vol-2", "state": "terminal"},
        {"type": g.ROLE, "id": "x-node-pool", "state": "retained"},
        {"type": g.ELB, "id": "a1", "state": "present"}], key=lambda r: (r["type"], r["id"]))
    verification = {"checks": [], "aws_verified": True, "tracked": resources[:2]}
    report = build_report({"namespace": "ns", "name": "c"}, {}, verification=verification)
    assert [r["id"] for r in report["verification"]["tracked"]] == ["vol-1", "vol-2"]
    assert build_report({"namespace": "ns", "name": "c"}, {})["verification"]["tracked"] == []


def test_retained_ids_are_kept_as_they_are_and_the_rest_is_planned():
    plan = g.plan({g.INSTANCE: ["i-1"], g.VOLUME: ["vol-pv", "vol-root"]}, retain={g.VOLUME: ["vol-pv", "vol-other"]})
    planned = [(r["type"], r["id"]) for lvl in plan["levels"] for r in lvl]
    assert planned == [(g.INSTANCE, "i-1"), (g.VOLUME, "vol-root")]
    assert plan["retained"] == [{"type": g.VOLUME, "id": "vol-pv", "reason": "retain"}]
    everything = g.plan({g.VOLUME: ["vol-pv"]}, retain={g.VOLUME: ["vol-pv"]})
    assert everything["levels"] == [] and everything["retained"][0]["id"] == "vol-pv"


def test_retained_volume_is_reported_retained_and_costs_no_request():
    fake = FakeEC2({}, {"vol-pv": {"State": "available", "Attachments": []}})
    clients = Clients(lambda service: fake, concurrency=2)
    ex = Executor(clients, g.plan({g.VOLUME: ["vol-pv"]}, retain={g.VOLUME: ["vol-pv"]}), wait_timeout=30,
                  sleep=lambda s: None, poll_interval=0, max_poll_interval=0)
    verified, dummy = ex.run()
    assert verified and ex.results[(g.VOLUME, "vol-pv")]["outcome"] == "retained"
    assert fake.calls == []


def test_a_volume_retained_beside_others_of_its_type_keeps_them_planned_and_iam_after_them():
    fake = FakeEC2({"i-1": "running"}, {"vol-pv": {"State": "available", "Attachments": []},
                                        "vol-data": {"State": "in-use", "Attachments": att("i-1", False)}})
    clients = Clients(lambda service: fake, concurrency=2)
    plan = g.plan({g.INSTANCE: ["i-1"], g.VOLUME: ["vol-data", "vol-pv"]}, retain={g.VOLUME: ["vol-pv"]})
    ex = Executor(clients, plan, wait_timeout=30, sleep=lambda s: None, poll_interval=0, max_poll_interval=0)
    verified, states = ex.run()
    assert verified, ex.results
    assert ex.results[(g.VOLUME, "vol-pv")]["outcome"] == "retained" and "DeleteVolume:vol-pv" not in fake.calls
    assert ex.results[(g.VOLUME, "vol-data")]["outcome"] == "deleted"
    assert list(states[g.VOLUME]) == ["vol-data"] and states[g.VOLUME]["vol-data"] in ("absent", "terminal")
