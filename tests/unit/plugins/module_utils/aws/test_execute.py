"""The executor against a fake EC2: a refused delete waits on its blocker's own state, NotFound counts as
done, a blocker outside the manifest is reported, check mode sends nothing mutating, verification by ID."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import CheckModeViolation, Clients
from ansible_collections.teardown.gates.plugins.module_utils.aws.execute import Executor


def err(code, op):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": code + " (fake)"}}, op)


class FakeEC2:
    """One subnet in a VPC; a NAT gateway outside the manifest in state ``nat_state`` until ``nat_polls`` polls."""

    def __init__(self, nat_state="deleting", nat_polls=3):
        self.subnets = {"subnet-1"}
        self.nat_state, self.nat_polls = nat_state, nat_polls
        self.calls = []

    def _nat(self):
        return [{"NatGatewayId": "nat-9", "State": self.nat_state, "SubnetId": "subnet-1", "NatGatewayAddresses": []}]

    def describe_subnets(self, Filters):
        self.calls.append("DescribeSubnets")
        return {"Subnets": [{"SubnetId": s} for s in Filters[0]["Values"] if s in self.subnets]}

    def describe_nat_gateways(self, Filter):
        self.calls.append("DescribeNatGateways")
        if self.nat_state == "deleting":
            self.nat_polls -= 1
            if self.nat_polls < 0:
                self.nat_state = "deleted"
        by = Filter[0]["Name"]
        return {"NatGateways": [n for n in self._nat() if by != "nat-gateway-id" or n["NatGatewayId"] in Filter[0]["Values"]]}

    def describe_instances(self, Filters):
        self.calls.append("DescribeInstances")
        return {"Reservations": []}

    def describe_network_interfaces(self, Filters):
        self.calls.append("DescribeNetworkInterfaces")
        return {"NetworkInterfaces": []}

    def delete_subnet(self, SubnetId):
        self.calls.append("DeleteSubnet")
        if SubnetId not in self.subnets:
            raise err("InvalidSubnetID.NotFound", "DeleteSubnet")
        if self.nat_state != "deleted":
            raise err("DependencyViolation", "DeleteSubnet")
        self.subnets.discard(SubnetId)


def run(fake, manifest, check_mode=False):
    clients = Clients(lambda service: fake, concurrency=2, check_mode=check_mode)
    ex = Executor(clients, g.plan(manifest), wait_timeout=30, sleep=lambda s: None, poll_interval=0, max_poll_interval=0)
    return ex, clients


def test_refusal_waits_on_the_blocker_then_retries_only_the_refused_delete():
    fake = FakeEC2(nat_state="deleting", nat_polls=3)
    ex, dummy = run(fake, {g.SUBNET: ["subnet-1"]})
    verified, states = ex.run()
    res = ex.results[(g.SUBNET, "subnet-1")]
    assert verified and states[g.SUBNET]["subnet-1"] == "absent"
    assert res["outcome"] == "deleted"
    assert len(res["refusals"]) == 1
    assert res["refusals"][0]["blockers"] == [{"type": g.NAT, "id": "nat-9", "state": "deleting"}]
    assert fake.calls.count("DeleteSubnet") == 2


def test_blocker_outside_the_manifest_and_not_going_away_is_reported():
    fake = FakeEC2(nat_state="available")
    ex, dummy = run(fake, {g.SUBNET: ["subnet-1"]})
    verified, dummy = ex.run()
    res = ex.results[(g.SUBNET, "subnet-1")]
    assert not verified
    assert res["outcome"] == "failed"
    assert res["blockers"][0]["id"] == "nat-9" and "not in the manifest" in res["blockers"][0]["what_to_do"]
    assert "nat-9" in res["error"]
    assert fake.calls.count("DeleteSubnet") == 1  # never re-tried blindly


def test_already_absent_costs_no_mutating_call():
    fake = FakeEC2(nat_state="deleted")
    fake.subnets = set()
    ex, dummy = run(fake, {g.SUBNET: ["subnet-1"]})
    verified, dummy = ex.run()
    assert verified and ex.results[(g.SUBNET, "subnet-1")]["outcome"] == "absent"
    assert "DeleteSubnet" not in fake.calls


def test_check_mode_guard_refuses_mutating_calls():
    fake = FakeEC2()
    ex, clients = run(fake, {g.SUBNET: ["subnet-1"]}, check_mode=True)
    levels = ex.check_plan()
    assert levels[0][0]["observed"] == "present" and levels[0][0]["action"] == "delete"
    with pytest.raises(CheckModeViolation):
        clients.call("ec2", "delete_subnet", SubnetId="subnet-1")
    assert "DeleteSubnet" not in fake.calls


def test_failed_query_is_unknown_not_absent():
    class Broken(FakeEC2):
        def describe_subnets(self, Filters):
            raise err("InternalError", "DescribeSubnets")
    ex, dummy = run(Broken(), {g.SUBNET: ["subnet-1"]})
    assert ex.probe(g.SUBNET, ["subnet-1"])["subnet-1"]["state"] == "unknown"


class DeniedEC2(FakeEC2):
    def delete_subnet(self, SubnetId):
        self.calls.append("DeleteSubnet")
        raise err("AuthFailure", "DeleteSubnet")


def test_an_auth_failure_fails_at_once_without_a_blocker_search_or_retries():
    fake = DeniedEC2(nat_state="deleting")
    ex, dummy = run(fake, {g.SUBNET: ["subnet-1"]})
    verified, dummy = ex.run()
    res = ex.results[(g.SUBNET, "subnet-1")]
    assert not verified and res["outcome"] == "failed" and "AuthFailure" in res["error"]
    assert fake.calls.count("DeleteSubnet") == 1 and "DescribeNatGateways" not in fake.calls


class FinishedByAnotherRun(FakeEC2):
    """The delete meets an error we cannot place (moto's InvalidRoute.NotFound, when another run deleted an
    endpoint first); by then the subnet is gone."""

    def delete_subnet(self, SubnetId):
        self.calls.append("DeleteSubnet")
        self.subnets.discard(SubnetId)
        raise err("InvalidRoute.NotFound", "DeleteSubnet")


class OddErrorStillThere(FakeEC2):
    def delete_subnet(self, SubnetId):
        self.calls.append("DeleteSubnet")
        raise err("InvalidRoute.NotFound", "DeleteSubnet")


def test_an_error_we_cannot_place_is_absent_only_when_a_read_finds_it_gone():
    fake = FinishedByAnotherRun(nat_state="deleted")
    ex, dummy = run(fake, {g.SUBNET: ["subnet-1"]})
    verified, dummy = ex.run()
    assert verified and ex.results[(g.SUBNET, "subnet-1")]["outcome"] == "absent"  # not "deleted": not ours
    fake = OddErrorStillThere(nat_state="deleted")
    ex, dummy = run(fake, {g.SUBNET: ["subnet-1"]})
    verified, dummy = ex.run()
    res = ex.results[(g.SUBNET, "subnet-1")]
    assert not verified and res["outcome"] == "failed" and "InvalidRoute.NotFound" in res["error"]


class RacedZone:
    """A private zone whose record another run deletes between our list and our DELETE (chaos seed 42089):
    Route53 then refuses the whole batch with InvalidChangeBatch "... but it was not found"."""

    def __init__(self, races=1):
        self.zone = True
        self.records = {("api.c.local.", "A"), ("*.apps.c.local.", "A")}
        self.races = races
        self.calls = []

    def get_hosted_zone(self, Id):
        self.calls.append("GetHostedZone")
        if not self.zone:
            raise err("NoSuchHostedZone", "GetHostedZone")
        return {"HostedZone": {"Id": Id, "Name": "c.local."}}

    def list_resource_record_sets(self, HostedZoneId, **kw):
        self.calls.append("ListResourceRecordSets")
        rrs = [{"Name": n, "Type": t, "TTL": 60, "ResourceRecords": [{"Value": "10.0.0.1"}]} for n, t in sorted(self.records)]
        return {"ResourceRecordSets": [{"Name": "c.local.", "Type": "SOA"}] + rrs, "IsTruncated": False}

    def change_resource_record_sets(self, HostedZoneId, ChangeBatch):
        self.calls.append("ChangeResourceRecordSets")
        if self.races:
            self.races -= 1
            self.records.discard(min(self.records))  # the other run's DELETE lands first
        names = [(c["ResourceRecordSet"]["Name"], c["ResourceRecordSet"]["Type"]) for c in ChangeBatch["Changes"]]
        missing = [n for n in names if n not in self.records]
        if missing:
            raise botocore.exceptions.ClientError({"Error": {"Code": "InvalidChangeBatch", "Message": (
                "[Tried to delete resource record set [name='%s', type='%s'] but it was not found]" % missing[0])}},
                "ChangeResourceRecordSets")
        self.records.difference_update(names)

    def delete_hosted_zone(self, Id):
        self.calls.append("DeleteHostedZone")
        if self.records:
            raise err("HostedZoneNotEmpty", "DeleteHostedZone")
        self.zone = False


def test_a_zone_another_run_is_emptying_is_re_listed_and_deleted():
    fake = RacedZone(races=1)
    ex, dummy = run(fake, {g.ZONE: ["Z1"]})
    verified, dummy = ex.run()
    assert verified and ex.results[(g.ZONE, "Z1")]["outcome"] == "deleted"
    assert fake.calls.count("ListResourceRecordSets") == 2 and not fake.records and not fake.zone


def test_a_zone_whose_records_keep_vanishing_fails_after_a_bounded_number_of_re_lists():
    fake = RacedZone(races=99)
    fake.records |= {("a%d.c.local." % i, "A") for i in range(5)}
    ex, dummy = run(fake, {g.ZONE: ["Z1"]})
    verified, dummy = ex.run()
    res = ex.results[(g.ZONE, "Z1")]
    assert not verified and res["outcome"] == "failed" and "not found" in res["error"]


def test_a_change_batch_refused_for_another_reason_is_not_retried_and_fails():
    fake = RacedZone(races=0)

    def refuse(HostedZoneId, ChangeBatch):
        fake.calls.append("ChangeResourceRecordSets")
        raise err("InvalidChangeBatch", "ChangeResourceRecordSets")  # no "not found": a real refusal
    fake.change_resource_record_sets = refuse
    ex, dummy = run(fake, {g.ZONE: ["Z1"]})
    verified, dummy = ex.run()
    res = ex.results[(g.ZONE, "Z1")]
    assert not verified and res["outcome"] == "failed" and "InvalidChangeBatch" in res["error"]
    assert fake.zone and fake.records and fake.calls.count("ChangeResourceRecordSets") == 1
