# -*- coding: utf-8 -*-
"""aws/deletes.py: how each type is deleted. One call naming the ID for most; links detached first (route tables,
internet gateways, profiles, roles, policy versions) from what discovery saw, with a detach whose target is gone
taken as done; a record, an endpoint or a volume someone else removed is "absent", not "deleted"; a volume AWS
deletes with its instance is left to it. Also the ENI signals the load balancer, NAT and instance waits read.
(The bucket emptying S3 partly refuses is in cfn/test_remedies.py; the ENI waits end to end in test_eni_wait.py.)"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import types

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import deletes as D
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g


def err(code, msg="fake", op="op"):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": msg}}, op)


class Calls:
    """ex.c: answers by operation (a value, an exception to raise, or a function of the params); records calls."""

    def __init__(self, answers=None):
        self.answers = answers or {}
        self.calls = []

    def call(self, service, op, **kw):
        self.calls.append((op, kw))
        answer = self.answers.get(op, {})
        if isinstance(answer, Exception):
            raise answer
        return answer(**kw) if callable(answer) else answer

    def ops(self):
        return [op for op, kw in self.calls]


def ex(answers=None, in_manifest=(), observed=None):
    return types.SimpleNamespace(c=Calls(answers), in_manifest=set(in_manifest), observed=observed or {})


def test_how_aws_describes_a_load_balancers_enis():
    assert D.elb_eni_description(g.ELB, "a1b2") == "ELB a1b2"
    arn = "arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/app/router/abc"
    assert D.elb_eni_description(g.ELBV2, arn) == "ELB app/router/abc"


def test_a_load_balancer_waits_while_an_eni_carries_its_description():
    arn = "arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/net/r/1"
    e = ex({"describe_network_interfaces": {"NetworkInterfaces": [
        {"NetworkInterfaceId": "eni-1", "Description": "ELB net/r/1"},
        {"NetworkInterfaceId": "eni-2", "Description": "ELB net/r/1"},
        {"NetworkInterfaceId": "eni-3", "Description": "someone else"}]}})
    found = D.WAIT_PROBES[g.ELBV2](e, [arn, arn.replace("/r/1", "/gone/2")])
    assert found == {arn: {"state": "pending", "enis": ["eni-1", "eni-2"]}}
    assert e.c.calls[0][1]["Filters"] == [{"Name": "description", "Values": ["ELB net/gone/2", "ELB net/r/1"]}]


def test_eni_signals_say_holding_or_released_for_each_waiter():
    enis = [{"NetworkInterfaceId": "eni-nat"}, {"NetworkInterfaceId": "eni-i", "Attachment": {"InstanceId": "i-1"}},
            {"NetworkInterfaceId": "eni-lb", "Description": "ELB a1"}]
    waiters = [{"type": g.NAT, "id": "nat-1", "enis": ["eni-nat"]}, {"type": g.NAT, "id": "nat-2", "enis": ["eni-9"]},
               {"type": g.NAT, "id": "nat-3"},
               {"type": g.INSTANCE, "id": "i-1"}, {"type": g.INSTANCE, "id": "i-2"},
               {"type": g.ELB, "id": "a1", "desc": "ELB a1"}, {"type": g.ELB, "id": "a2", "desc": "ELB a2"}]
    assert D.eni_signals(waiters, enis) == {
        (g.NAT, "nat-1"): "holding", (g.NAT, "nat-2"): "released", (g.NAT, "nat-3"): "released",
        (g.INSTANCE, "i-1"): "holding", (g.INSTANCE, "i-2"): "released",
        (g.ELB, "a1"): "holding", (g.ELB, "a2"): "released"}


def test_instances_are_terminated_in_one_call_and_a_refused_batch_starts_none():
    e = ex({"terminate_instances": lambda InstanceIds: {
        "TerminatingInstances": [{"InstanceId": i} for i in InstanceIds]}})
    assert D.BATCH_DELETES[g.INSTANCE](e, ["i-1", "i-2"]) == {"i-1", "i-2"}
    assert e.c.calls == [("terminate_instances", {"InstanceIds": ["i-1", "i-2"]})]
    e = ex({"terminate_instances": err("InvalidInstanceID.NotFound")})
    assert D.BATCH_DELETES[g.INSTANCE](e, ["i-1", "i-gone"]) == set()


def test_a_single_call_delete_names_the_id_the_way_its_api_wants_it():
    e = ex()
    assert D.DELETES[g.INSTANCE](e, "i-1", {}) == "pending"
    assert D.DELETES[g.SUBNET](e, "subnet-1", {}) == "deleted"
    assert D.DELETES[g.NAT](e, "nat-1", {}) == "pending"
    assert e.c.calls == [("terminate_instances", {"InstanceIds": ["i-1"]}), ("delete_subnet", {"SubnetId": "subnet-1"}),
                         ("delete_nat_gateway", {"NatGatewayId": "nat-1"})]


def test_every_type_of_the_graph_has_a_delete():
    assert set(g.TYPE_DEPS) - set(D.DELETES) == set()


def test_a_record_seen_by_discovery_is_deleted_as_it_was_seen():
    rr = {"Name": "api.a.example.com.", "Type": "A", "TTL": 60}
    e = ex()
    assert D.DELETES[g.RECORD](e, "Z1/api.a.example.com./A", {"record": rr}) == "deleted"
    assert e.c.calls == [("change_resource_record_sets", {
        "HostedZoneId": "Z1", "ChangeBatch": {"Changes": [{"Action": "DELETE", "ResourceRecordSet": rr}]}})]


def test_a_record_deleted_by_someone_else_meanwhile_is_absent_only_after_a_fresh_read():
    vanished = err("InvalidChangeBatch", "Tried to delete resource record set [name='x.', type='A'] but it was not found")
    e = ex({"change_resource_record_sets": vanished, "list_resource_record_sets": {"ResourceRecordSets": []}})
    assert D.DELETES[g.RECORD](e, "Z1/x./A", {"record": {"Name": "x.", "Type": "A"}}) == "absent"
    assert e.c.ops() == ["change_resource_record_sets", "list_resource_record_sets"]
    # the fresh read still finds it: the refusal is raised, not read as absent
    e = ex({"change_resource_record_sets": vanished,
            "list_resource_record_sets": {"ResourceRecordSets": [{"Name": "x.", "Type": "A"}]}})
    with pytest.raises(botocore.exceptions.ClientError):
        D.DELETES[g.RECORD](e, "Z1/x./A", {"record": {"Name": "x.", "Type": "A"}})


def test_only_route53s_not_found_batch_refusal_means_the_record_vanished():
    assert D._record_vanished(err("InvalidChangeBatch", "... but it was not found"))
    assert not D._record_vanished(err("InvalidChangeBatch", "RRSet already exists"))
    assert not D._record_vanished(err("Throttling", "not found"))


def test_an_endpoint_answered_not_found_in_unsuccessful_is_absent_and_another_error_raises():
    gone = {"Unsuccessful": [{"Error": {"Code": "InvalidVpcEndpointId.NotFound", "Message": "gone"}}]}
    assert D.DELETES[g.ENDPOINT](ex({"delete_vpc_endpoints": gone}), "vpce-1", {}) == "absent"
    refused = {"Unsuccessful": [{"Error": {"Code": "UnauthorizedOperation", "Message": "no"}}]}
    with pytest.raises(botocore.exceptions.ClientError, match="UnauthorizedOperation"):
        D.DELETES[g.ENDPOINT](ex({"delete_vpc_endpoints": refused}), "vpce-1", {})
    assert D.DELETES[g.ENDPOINT](ex(), "vpce-1", {}) == "deleted"


def test_a_route_table_leaves_its_subnets_first_but_not_the_main_association():
    def disassociate(AssociationId):
        if AssociationId == "rtbassoc-gone":
            raise err("InvalidAssociationID.NotFound")
        return {}
    e = ex({"disassociate_route_table": disassociate})
    obs = {"Associations": [{"Main": True, "RouteTableAssociationId": "rtbassoc-main"},
                            {"RouteTableAssociationId": "rtbassoc-1"}, {"RouteTableAssociationId": "rtbassoc-gone"}]}
    assert D.DELETES[g.ROUTE_TABLE](e, "rtb-1", obs) == "deleted"
    assert e.c.calls == [("disassociate_route_table", {"AssociationId": "rtbassoc-1"}),
                         ("disassociate_route_table", {"AssociationId": "rtbassoc-gone"}),
                         ("delete_route_table", {"RouteTableId": "rtb-1"})]


def test_a_route_table_discovery_did_not_see_is_probed_and_absent_when_the_probe_finds_none():
    e = ex({"describe_route_tables": {"RouteTables": []}})
    assert D.DELETES[g.ROUTE_TABLE](e, "rtb-1", {}) == "absent"
    assert e.c.ops() == ["describe_route_tables"]


def test_an_internet_gateway_is_detached_from_its_vpcs_then_deleted():
    e = ex()
    assert D.DELETES[g.IGW](e, "igw-1", {"Attachments": [{"VpcId": "vpc-1"}, {"State": "detached"}]}) == "deleted"
    assert e.c.calls == [("detach_internet_gateway", {"InternetGatewayId": "igw-1", "VpcId": "vpc-1"}),
                         ("delete_internet_gateway", {"InternetGatewayId": "igw-1"})]


def test_a_profile_lets_go_of_its_roles_read_now_when_discovery_did_not_see_them():
    e = ex({"get_instance_profile": {"InstanceProfile": {"Roles": [{"RoleName": "r-1"}]}}})
    assert D.DELETES[g.PROFILE](e, "p-1", {}) == "deleted"
    assert e.c.ops() == ["get_instance_profile", "remove_role_from_instance_profile", "delete_instance_profile"]


def test_a_role_is_cleared_from_what_discovery_saw_without_listing_again():
    e = ex()
    obs = {"AttachedManagedPolicies": [{"PolicyArn": "arn:p"}], "RolePolicyList": [{"PolicyName": "inline"}]}
    assert D.DELETES[g.ROLE](e, "r-1", obs) == "deleted"
    assert e.c.calls == [("detach_role_policy", {"RoleName": "r-1", "PolicyArn": "arn:p"}),
                         ("delete_role_policy", {"RoleName": "r-1", "PolicyName": "inline"}),
                         ("delete_role", {"RoleName": "r-1"})]


def test_a_role_discovery_did_not_see_is_listed_now():
    e = ex({"list_attached_role_policies": {"AttachedPolicies": []}, "list_role_policies": {"PolicyNames": ["x"]}})
    D.clear_role(e, "r-1")
    assert e.c.ops() == ["list_attached_role_policies", "list_role_policies", "delete_role_policy"]


def test_a_policy_deletes_its_versions_but_the_default_then_itself():
    e = ex()
    obs = {"PolicyVersionList": [{"VersionId": "v1", "IsDefaultVersion": True}, {"VersionId": "v2"}]}
    assert D.DELETES[g.POLICY](e, "arn:p", obs) == "deleted"
    assert e.c.calls == [("delete_policy_version", {"PolicyArn": "arn:p", "VersionId": "v2"}),
                         ("delete_policy", {"PolicyArn": "arn:p"})]


def test_a_detach_that_fails_otherwise_than_not_found_stops_the_delete():
    e = ex({"detach_role_policy": err("AccessDenied")})
    with pytest.raises(botocore.exceptions.ClientError):
        D.DELETES[g.ROLE](e, "r-1", {"AttachedManagedPolicies": [{"PolicyArn": "arn:p"}], "RolePolicyList": []})
    assert "delete_role" not in e.c.ops()


def test_a_volume_deleted_with_an_instance_of_the_manifest_is_left_to_aws():
    e = ex(in_manifest=[(g.INSTANCE, "i-1")])
    assert D.deleted_with_instance(e, {"Attachments": [{"InstanceId": "i-1", "DeleteOnTermination": True}]}) == "i-1"
    # an answer without the field takes what discovery saw of that attachment
    seen = {"Attachments": [{"InstanceId": "i-1", "DeleteOnTermination": True}]}
    assert D.deleted_with_instance(e, {"Attachments": [{"InstanceId": "i-1"}]}, seen) == "i-1"
    assert D.deleted_with_instance(e, {"Attachments": [{"InstanceId": "i-1", "DeleteOnTermination": False}]}, seen) is None
    # an instance outside the manifest is not ours to terminate: the volume is not deleted with it here
    assert D.deleted_with_instance(e, {"Attachments": [{"InstanceId": "i-9", "DeleteOnTermination": True}]}) is None


@pytest.mark.parametrize("volumes,outcome,deleted", [
    ([], "absent", False),
    ([{"VolumeId": "vol-1", "State": "deleting"}], "absent", False),
    ([{"VolumeId": "vol-1", "State": "in-use", "Attachments": [{"InstanceId": "i-1", "DeleteOnTermination": True}]}],
     "with-instance", False),
    ([{"VolumeId": "vol-1", "State": "available"}], "pending", True),
])
def test_a_volume_is_looked_up_again_before_its_delete(volumes, outcome, deleted):
    e = ex({"describe_volumes": {"Volumes": volumes}}, in_manifest=[(g.INSTANCE, "i-1")])
    assert D.DELETES[g.VOLUME](e, "vol-1", {}) == outcome
    assert ("delete_volume" in e.c.ops()) is deleted


def test_rules_referencing_groups_are_revoked_per_direction_keeping_only_their_ports():
    group = {"GroupId": "sg-1",
             "IpPermissions": [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": "0/0"}],
                                "UserIdGroupPairs": [{"GroupId": "sg-2", "UserId": "1"}, {"GroupId": "sg-3"}]},
                               {"IpProtocol": "-1", "IpRanges": [{"CidrIp": "10.0.0.0/8"}]}],
             "IpPermissionsEgress": [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": "sg-2"}]}]}
    e = ex()
    D.revoke_group_refs(e, group, only_to="sg-2")
    assert e.c.calls == [
        ("revoke_security_group_ingress", {"GroupId": "sg-1", "IpPermissions": [
            {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "UserIdGroupPairs": [{"GroupId": "sg-2"}]}]}),
        ("revoke_security_group_egress", {"GroupId": "sg-1", "IpPermissions": [
            {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": "sg-2"}]}]})]
    assert D.group_refs({"UserIdGroupPairs": [{"GroupId": "sg-2"}, {"UserId": "1"}]}) == [{"GroupId": "sg-2"}]


def test_a_rule_already_gone_is_what_the_revoke_wanted():
    e = ex({"revoke_security_group_ingress": err("InvalidPermission.NotFound")})
    D.revoke_group_refs(e, {"GroupId": "sg-1", "IpPermissions": [{"UserIdGroupPairs": [{"GroupId": "sg-2"}]}]})
    assert e.c.ops() == ["revoke_security_group_ingress"]


def test_groups_are_prepared_only_when_observed_present():
    refs = [{"UserIdGroupPairs": [{"GroupId": "sg-x"}]}]
    e = ex(observed={g.SG: {"sg-1": {"GroupId": "sg-1", "state": "present", "IpPermissions": refs},
                            "sg-2": {"GroupId": "sg-2", "state": "absent", "IpPermissions": refs}}})
    D.PREPARE[g.SG](e, ["sg-1", "sg-2", "sg-3"])
    assert [kw["GroupId"] for op, kw in e.c.calls] == ["sg-1"]


def _connections(*rows):
    return {"VpcEndpointConnections": [{"ServiceId": "vpce-svc-1", "VpcEndpointId": i, "VpcEndpointState": s}
                                       for i, s in rows]}


def test_an_endpoint_service_rejects_its_live_connections_then_is_deleted():
    e = ex({"describe_vpc_endpoint_connections": _connections(
        ("vpce-a", "available"), ("vpce-p", "pendingAcceptance"), ("vpce-q", "Pending"), ("vpce-r", "rejected"),
        ("vpce-d", "deleting"), ("vpce-x", "deleted"), ("vpce-e", "expired"), ("vpce-f", "failed")),
        "delete_vpc_endpoint_service_configurations": {"Unsuccessful": []}})
    # "pending": AWS may list it Deleting for a while; the executor waits for it gone before the NLB behind it
    assert D.DELETES[g.ENDPOINT_SERVICE](e, "vpce-svc-1", {}) == "pending"
    assert e.c.calls == [
        ("describe_vpc_endpoint_connections", {"Filters": [{"Name": "service-id", "Values": ["vpce-svc-1"]}]}),
        ("reject_vpc_endpoint_connections", {"ServiceId": "vpce-svc-1", "VpcEndpointIds": ["vpce-a", "vpce-p", "vpce-q"]}),
        ("delete_vpc_endpoint_service_configurations", {"ServiceIds": ["vpce-svc-1"]})]


def test_an_endpoint_service_without_connections_is_deleted_without_a_reject():
    e = ex({"describe_vpc_endpoint_connections": _connections()})
    assert D.DELETES[g.ENDPOINT_SERVICE](e, "vpce-svc-1", {}) == "pending"
    assert e.c.ops() == ["describe_vpc_endpoint_connections", "delete_vpc_endpoint_service_configurations"]


def test_an_endpoint_service_answered_not_found_is_absent_and_another_answer_raises():
    for code in ("InvalidVpcEndpointService.NotFound", "InvalidVpcEndpointServiceId.NotFound"):
        gone = {"Unsuccessful": [{"ResourceId": "vpce-svc-1", "Error": {"Code": code, "Message": "gone"}}]}
        assert D.DELETES[g.ENDPOINT_SERVICE](ex({"delete_vpc_endpoint_service_configurations": gone}),
                                             "vpce-svc-1", {}) == "absent"
    # still connected (a connection accepted meanwhile): the refusal the executor retries after a new rejection
    held = {"Unsuccessful": [{"ResourceId": "vpce-svc-1", "Error": {"Code": "ExistingVpcEndpointConnections",
                                                                    "Message": "has connections"}}]}
    with pytest.raises(botocore.exceptions.ClientError, match="ExistingVpcEndpointConnections"):
        D.DELETES[g.ENDPOINT_SERVICE](ex({"delete_vpc_endpoint_service_configurations": held}), "vpce-svc-1", {})


def test_a_rejection_of_an_endpoint_gone_meanwhile_is_done_and_another_failure_raises():
    found = {"describe_vpc_endpoint_connections": _connections(("vpce-a", "available"))}
    gone = {"Unsuccessful": [{"ResourceId": "vpce-a", "Error": {"Code": "InvalidVpcEndpointId.NotFound"}}]}
    assert D.DELETES[g.ENDPOINT_SERVICE](ex(dict(found, reject_vpc_endpoint_connections=gone)), "vpce-svc-1", {}) == "pending"
    refused = {"Unsuccessful": [{"ResourceId": "vpce-a", "Error": {"Code": "UnauthorizedOperation", "Message": "no"}}]}
    e = ex(dict(found, reject_vpc_endpoint_connections=refused))
    with pytest.raises(botocore.exceptions.ClientError, match="UnauthorizedOperation"):
        D.DELETES[g.ENDPOINT_SERVICE](e, "vpce-svc-1", {})
    assert "delete_vpc_endpoint_service_configurations" not in e.c.ops()  # not deleted with a connection left


def test_an_endpoint_service_delete_in_check_mode_sends_neither_the_reject_nor_the_delete():
    from ansible_collections.teardown.gates.plugins.module_utils.aws.client import CheckModeViolation, Clients

    class FakeEC2(object):
        def __init__(self):
            self.sent = []

        def describe_vpc_endpoint_connections(self, **kw):
            self.sent.append("DescribeVpcEndpointConnections")
            return _connections(("vpce-a", "available"))

        def reject_vpc_endpoint_connections(self, **kw):  # pragma: no cover - must never be reached
            self.sent.append("RejectVpcEndpointConnections")
            return {}

        def delete_vpc_endpoint_service_configurations(self, **kw):  # pragma: no cover - must never be reached
            self.sent.append("DeleteVpcEndpointServiceConfigurations")
            return {}
    fake = FakeEC2()
    e = types.SimpleNamespace(c=Clients(lambda service: fake, concurrency=1, check_mode=True))
    with pytest.raises(CheckModeViolation):
        D.DELETES[g.ENDPOINT_SERVICE](e, "vpce-svc-1", {})
    assert fake.sent == ["DescribeVpcEndpointConnections"]
