# -*- coding: utf-8 -*-
"""aws/blockers.py: what holds a refused delete, found by reading around it. Each blocker says whether it is going
away on its own (a NAT gateway deleting, an instance shutting down, the ENI of a load balancer already gone) or
what to do, and tells the resources of the manifest (their own result) from those outside it. Against a fake
EC2/IAM that answers by operation."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import types

from ansible_collections.teardown.gates.plugins.module_utils.aws import blockers as B
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.probes import ENI


class Calls:
    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def call(self, service, op, **kw):
        self.calls.append((op, kw))
        answer = self.answers.get(op, {})
        return answer(**kw) if callable(answer) else answer


def ex(answers, in_manifest=(), manifest=None, results=None):
    return types.SimpleNamespace(c=Calls(answers), in_manifest=set(in_manifest), manifest=manifest or {},
                                 results=results or {})


def rows(blockers):
    return [(b.type, b.id, b.state, b.going_away) for b in blockers]


def test_a_blocker_reports_what_to_do_only_when_there_is_something():
    assert B.Blocker(g.NAT, "nat-1", "deleting", going_away=True).as_dict() == {
        "type": g.NAT, "id": "nat-1", "state": "deleting"}
    assert B.Blocker(g.VPC, "vpc-1", "present", note="delete it").as_dict()["what_to_do"] == "delete it"
    assert B.no_blockers(None, "x", None, "Code") == []


def test_a_subnet_is_held_by_its_nat_its_instances_and_enis_of_no_one_else():
    e = ex({
        "describe_nat_gateways": {"NatGateways": [
            {"NatGatewayId": "nat-1", "State": "deleting", "NatGatewayAddresses": [{"NetworkInterfaceId": "eni-nat"}]},
            {"NatGatewayId": "nat-old", "State": "deleted"}]},
        "describe_instances": {"Reservations": [{"Instances": [
            {"InstanceId": "i-1", "State": {"Name": "shutting-down"}},
            {"InstanceId": "i-2", "State": {"Name": "running"}},
            {"InstanceId": "i-3", "State": {"Name": "terminated"}}]}]},
        "describe_network_interfaces": {"NetworkInterfaces": [
            {"NetworkInterfaceId": "eni-nat"},
            {"NetworkInterfaceId": "eni-i2", "Attachment": {"InstanceId": "i-2"}},
            {"NetworkInterfaceId": "eni-x", "Status": "in-use", "Description": "Lambda", "RequesterId": "lambda"}]},
    })
    found = B.BLOCKERS[g.SUBNET](e, "subnet-1", None, "DependencyViolation")
    assert rows(found) == [(g.NAT, "nat-1", "deleting", True), (g.INSTANCE, "i-1", "shutting-down", True),
                           (g.INSTANCE, "i-2", "running", False), (ENI, "eni-x", "in-use", False)]
    assert found[2].note == "instance not terminated and not in the manifest: terminate it"
    assert found[3].note.startswith("network interface eni-x (Lambda) is not in the manifest")
    assert "requester lambda" in found[3].note
    assert e.c.calls[0] == ("describe_nat_gateways", {"Filter": [{"Name": "subnet-id", "Values": ["subnet-1"]}]})


def test_the_eni_of_a_classic_load_balancer_we_deleted_is_going_away():
    e = ex({"describe_network_interfaces": {"NetworkInterfaces": [
        {"NetworkInterfaceId": "eni-lb", "Status": "in-use", "Description": "ELB a1b2"}]}},
        manifest={g.ELB: ["a1b2"]}, results={(g.ELB, "a1b2"): {"outcome": "deleted"}})
    [b] = B.BLOCKERS[g.SUBNET](e, "subnet-1", None, "DependencyViolation")
    assert (b.type, b.going_away) == (ENI, True)
    assert b.note == "ENI of load balancer a1b2, which is gone; AWS releases it shortly"
    # the load balancer's own result said gone: it was not looked up again
    assert "describe_load_balancers" not in [op for op, kw in e.c.calls]


def test_the_eni_of_an_elbv2_that_failed_to_delete_names_it_and_one_outside_the_manifest_says_so():
    arn = "arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/net/router/abc"
    eni = {"NetworkInterfaceId": "eni-lb", "Status": "in-use", "Description": "ELB net/router/abc"}
    e = ex({"describe_network_interfaces": {"NetworkInterfaces": [eni]}},
           manifest={g.ELBV2: [arn]}, results={(g.ELBV2, arn): {"outcome": "failed"}})
    [b] = B.BLOCKERS[g.SUBNET](e, "subnet-1", None, "DependencyViolation")
    assert b.going_away is False
    assert b.note == "ENI of load balancer net/router/abc, which still exists: delete that load balancer"
    # an ELBv2 the manifest does not know is taken as gone (nothing here can say it still exists)
    e = ex({"describe_network_interfaces": {"NetworkInterfaces": [eni]}})
    assert B.BLOCKERS[g.SUBNET](e, "subnet-1", None, "DependencyViolation")[0].going_away is True


def test_a_default_security_group_goes_with_its_vpc():
    [b] = B.BLOCKERS[g.SG](ex({}), "sg-default", None, "CannotDelete")
    assert (b.type, b.id, b.state) == (g.SG, "sg-default", "default") and "goes with its VPC" in b.note


def test_a_group_referencing_the_refused_one_is_revoked_when_ours_and_named_when_not():
    groups = [{"GroupId": "sg-1", "IpPermissions": []},
              {"GroupId": "sg-ours", "IpPermissions": [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": "sg-1"}]}]},
              {"GroupId": "sg-theirs", "IpPermissionsEgress": [{"IpProtocol": "tcp",
                                                                "UserIdGroupPairs": [{"GroupId": "sg-1"}]}]},
              {"GroupId": "sg-unrelated", "IpPermissions": [{"UserIdGroupPairs": [{"GroupId": "sg-9"}]}]}]
    e = ex({"describe_security_groups": {"SecurityGroups": groups}}, in_manifest=[(g.SG, "sg-ours")])
    found = B.BLOCKERS[g.SG](e, "sg-1", None, "DependencyViolation")
    assert [(b.id, b.state) for b in found] == [("sg-ours", "references sg-1"), ("sg-theirs", "references sg-1")]
    assert callable(found[0].action) and found[0].note is None
    assert found[1].action is None and "revoke that rule" in found[1].note


def test_a_vpc_lists_what_is_left_in_it_but_its_default_group_and_main_route_table():
    e = ex({
        "describe_subnets": {"Subnets": [{"SubnetId": "subnet-ours"}, {"SubnetId": "subnet-x"}]},
        "describe_internet_gateways": {"InternetGateways": []},
        "describe_security_groups": {"SecurityGroups": [{"GroupId": "sg-d", "GroupName": "default"}]},
        "describe_route_tables": {"RouteTables": [{"RouteTableId": "rtb-main", "Associations": [{"Main": True}]},
                                                  {"RouteTableId": "rtb-x", "Associations": []}]},
        "describe_vpc_endpoints": {"VpcEndpoints": [{"VpcEndpointId": "vpce-1", "State": "Deleting"}]},
    }, in_manifest=[(g.SUBNET, "subnet-ours")],
        results={(g.SUBNET, "subnet-ours"): {"outcome": "failed", "error": "DependencyViolation"}})
    found = B.BLOCKERS[g.VPC](e, "vpc-1", None, "DependencyViolation")
    assert [(b.type, b.id, b.state) for b in found] == [
        (g.SUBNET, "subnet-ours", "failed"), (g.SUBNET, "subnet-x", "present"), (g.ROUTE_TABLE, "rtb-x", "present")]
    assert found[0].note == "in the manifest; its own result: DependencyViolation"
    assert found[1].note == "subnet not in the manifest: delete it or add it"


def test_dhcp_options_are_held_by_the_vpcs_that_use_them():
    e = ex({"describe_vpcs": {"Vpcs": [{"VpcId": "vpc-1"}]}})
    [b] = B.BLOCKERS[g.DHCP](e, "dopt-1", None, "DependencyViolation")
    assert (b.type, b.id) == (g.VPC, "vpc-1") and "associate VPC vpc-1 with other options" in b.note


def test_a_role_is_released_from_its_profiles_or_cleared_of_its_policies():
    e = ex({"list_instance_profiles_for_role": {"InstanceProfiles": [{"InstanceProfileName": "p1"}]}})
    [b] = B.BLOCKERS[g.ROLE](e, "r-1", None, "DeleteConflict")
    assert (b.type, b.id) == (g.PROFILE, "p1")
    b.action()
    assert e.c.calls[-1] == ("remove_role_from_instance_profile", {"InstanceProfileName": "p1", "RoleName": "r-1"})
    [b] = B.BLOCKERS[g.ROLE](ex({}), "r-1", None, "DeleteConflict")
    assert (b.type, b.id, b.state) == (g.ROLE, "r-1", "has policies") and callable(b.action)


def test_a_policy_names_each_entity_it_is_attached_to():
    e = ex({"list_entities_for_policy": {"PolicyRoles": [{"RoleName": "r"}], "PolicyUsers": [{"UserName": "u"}]}})
    found = B.BLOCKERS[g.POLICY](e, "arn:p", None, "DeleteConflict")
    assert [(b.type, b.id) for b in found] == [("AWS::IAM::Role", "r"), ("AWS::IAM::User", "u")]
    assert found[1].note == "detach arn:p from AWS::IAM::User u (not deleted by this run)"


def test_a_volume_in_use_is_held_by_the_instances_it_is_attached_to():
    e = ex({"describe_volumes": {"Volumes": [{"VolumeId": "vol-1", "State": "in-use",
                                              "Attachments": [{"InstanceId": "i-1"}]}]},
            "describe_instances": {"Reservations": [{"Instances": [
                {"InstanceId": "i-1", "State": {"Name": "running"}}]}]}},
           in_manifest=[(g.INSTANCE, "i-1")])
    [b] = B.BLOCKERS[g.VOLUME](e, "vol-1", None, "VolumeInUse")
    assert (b.type, b.id, b.going_away) == (g.INSTANCE, "i-1", False)
    assert b.note == "instance not terminated and in the manifest: terminate it"


def test_an_eip_held_by_a_nat_gateway_names_the_nat():
    e = ex({"describe_addresses": {"Addresses": [{"AllocationId": "eipalloc-1", "NetworkInterfaceId": "eni-n"}]},
            "describe_nat_gateways": {"NatGateways": [
                {"NatGatewayId": "nat-1", "State": "available", "NatGatewayAddresses": [{"AllocationId": "eipalloc-1"}]}]}})
    [b] = B.BLOCKERS[g.EIP](e, "eipalloc-1", None, "InvalidIPAddress.InUse")
    assert (b.type, b.id) == (g.NAT, "nat-1") and b.note.startswith("NAT gateway not in the manifest")
    # an address already gone holds nothing
    assert B.BLOCKERS[g.EIP](ex({"describe_addresses": {"Addresses": []}}), "eipalloc-1", None, "x") == []


def test_a_kept_group_of_the_same_cluster_has_only_its_rule_revoked_as_the_cloud_provider_does():
    owned = [{"Key": "kubernetes.io/cluster/infra1", "Value": "owned"}]
    groups = [{"GroupId": "sg-elb", "Tags": owned},
              {"GroupId": "sg-worker", "Tags": owned,
               "IpPermissions": [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": "sg-elb"}, {"GroupId": "sg-w"}]}]},
              {"GroupId": "sg-kept", "Tags": owned + [{"Key": "teardown.gates/protected", "Value": "true"}],
               "IpPermissions": [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": "sg-elb"}]}]},
              {"GroupId": "sg-other", "Tags": [{"Key": "kubernetes.io/cluster/infra2", "Value": "owned"}],
               "IpPermissions": [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": "sg-elb"}]}]}]
    e = ex({"describe_security_groups": {"SecurityGroups": groups}, "revoke_security_group_ingress": {}},
           in_manifest=[(g.SG, "sg-elb")])
    found = B.BLOCKERS[g.SG](e, "sg-elb", {}, "DependencyViolation")
    assert [b.id for b in found] == ["sg-worker", "sg-kept", "sg-other"]
    assert callable(found[0].action) and found[0].note is None and "same cluster" in found[0].state
    assert found[1].action is None and "revoke that rule" in found[1].note  # protected: named, not touched
    assert found[2].action is None and "revoke that rule" in found[2].note  # another cluster's
    found[0].action()
    assert e.c.calls[-1] == ("revoke_security_group_ingress", {
        "GroupId": "sg-worker", "IpPermissions": [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": "sg-elb"}]}]})


NLB = "arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/net/n/1"


def test_an_nlb_refused_resource_in_use_is_held_by_the_endpoint_services_that_use_it():
    e = ex({"describe_vpc_endpoint_service_configurations": {"ServiceConfigurations": [
        {"ServiceId": "vpce-svc-going", "ServiceState": "Deleting", "NetworkLoadBalancerArns": [NLB]},
        {"ServiceId": "vpce-svc-ours", "ServiceState": "Available", "NetworkLoadBalancerArns": [NLB]},
        {"ServiceId": "vpce-svc-theirs", "ServiceState": "Available", "NetworkLoadBalancerArns": ["x", NLB]},
        {"ServiceId": "vpce-svc-other-lb", "ServiceState": "Available", "NetworkLoadBalancerArns": ["x"]}]}},
        in_manifest=[(g.ENDPOINT_SERVICE, "vpce-svc-ours")],
        results={(g.ENDPOINT_SERVICE, "vpce-svc-ours"): {"outcome": "failed", "error": "refused"}})
    found = B.BLOCKERS[g.ELBV2](e, NLB, {}, "ResourceInUse")
    assert rows(found) == [(g.ENDPOINT_SERVICE, "vpce-svc-going", "Deleting", True),
                           (g.ENDPOINT_SERVICE, "vpce-svc-ours", "Available", False),
                           (g.ENDPOINT_SERVICE, "vpce-svc-theirs", "Available", False)]
    assert "its own result: refused" in found[1].note and "not in the manifest" in found[2].note
    assert e.c.calls == [("describe_vpc_endpoint_service_configurations", {})]
    # no endpoint service uses it: no blocker found (the executor's quiet retries, then a failure naming the refusal)
    assert B.BLOCKERS[g.ELBV2](ex({}), NLB, {}, "ResourceInUse") == []
