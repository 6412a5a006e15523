# -*- coding: utf-8 -*-
"""aws/probes.py: what the AWS cleanup reads by ID. A probe returns the IDs it found present with their state; an
ID it does not return was answered as gone; a not-found answer is gone, any other failure raises (unknown is
never absent). The states of instances, NAT gateways, volumes and endpoints map onto terminal/pending/present."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import types

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws import probes as P
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import NOT_FOUND, REFUSALS


def err(code, op):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": code + " (fake)"}}, op)


class Calls:
    """ex.c: answers each (service, operation) from ``answers`` (a dict, or a function of the call's params),
    recording every call."""

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def call(self, service, op, **kw):
        self.calls.append((service, op, kw))
        answer = self.answers[(service, op)]
        return answer(**kw) if callable(answer) else answer


def ex(answers):
    return types.SimpleNamespace(c=Calls(answers))


def test_volume_states_deleting_and_deleted_are_terminal():
    assert P.volume_state({"State": "deleting"}) == "terminal" and P.volume_state({"State": "deleted"}) == "terminal"
    assert all(P.volume_state({"State": s}) == "present" for s in ("creating", "available", "in-use", "error"))
    assert "InvalidVolume.NotFound" in NOT_FOUND and "VolumeInUse" in REFUSALS


@pytest.mark.parametrize("state,expected", [
    ("terminated", "terminal"), ("shutting-down", "pending"), ("running", "present"), ("stopped", "present"),
    (None, "present")])
def test_instance_state(state, expected):
    item = {"State": {"Name": state}} if state else {}
    assert P.instance_state(item) == expected


@pytest.mark.parametrize("state,expected", [
    ("deleted", "terminal"), ("failed", "terminal"), ("deleting", "pending"), ("available", "present")])
def test_nat_state(state, expected):
    assert P.nat_state({"State": state}) == expected


def test_endpoint_state_ignores_the_case_aws_writes_it_in():
    assert P._endpoint_state({"State": "Deleted"}) == "terminal"
    assert P._endpoint_state({"State": "deleting"}) == "pending"
    assert P._endpoint_state({"State": "Available"}) == "present" and P._endpoint_state({}) == "present"


def test_a_record_id_is_zone_name_and_type_and_the_name_may_hold_slashes():
    assert P.split_record_id("Z1/api.a.example.com./A") == ("Z1", "api.a.example.com.", "A")
    assert P.split_record_id("Z1/x/y.example.com/TXT") == ("Z1", "x/y.example.com", "TXT")
    assert P.split_prefix_id("oidc-bucket/infra-1/keys.json") == ("oidc-bucket", "infra-1/keys.json")


def test_an_ec2_probe_asks_once_per_150_ids_by_filter_and_keeps_only_what_answered():
    ids = ["vpc-%d" % n for n in range(151)]

    def describe_vpcs(Filters):
        # only the even IDs are still there
        return {"Vpcs": [{"VpcId": i} for i in Filters[0]["Values"] if int(i.split("-")[1]) % 2 == 0]}
    e = ex({("ec2", "describe_vpcs"): describe_vpcs})
    found = P.PROBES[g.VPC](e, ids)
    assert [len(kw["Filters"][0]["Values"]) for s, o, kw in e.c.calls] == [150, 1]
    assert e.c.calls[0][2]["Filters"][0]["Name"] == "vpc-id"
    assert sorted(found) == sorted(i for i in ids if int(i.split("-")[1]) % 2 == 0)
    assert found["vpc-0"] == {"VpcId": "vpc-0", "state": "present"}


def test_instances_are_read_out_of_their_reservations_with_their_state():
    e = ex({("ec2", "describe_instances"): {"Reservations": [
        {"Instances": [{"InstanceId": "i-1", "State": {"Name": "shutting-down"}}]},
        {"Instances": [{"InstanceId": "i-2", "State": {"Name": "terminated"}}]}]}})
    found = P.PROBES[g.INSTANCE](e, ["i-1", "i-2", "i-3"])
    assert dict((i, v["state"]) for i, v in found.items()) == {"i-1": "pending", "i-2": "terminal"}


def test_nat_gateways_are_filtered_with_the_singular_filter_parameter():
    e = ex({("ec2", "describe_nat_gateways"): {"NatGateways": [{"NatGatewayId": "nat-1", "State": "deleting"}]}})
    assert P.PROBES[g.NAT](e, ["nat-1"])["nat-1"]["state"] == "pending"
    assert list(e.c.calls[0][2]) == ["Filter"]


def test_endpoints_fall_back_to_one_call_per_id_when_one_missing_id_fails_the_batch():
    def describe_vpc_endpoints(VpcEndpointIds):
        if "vpce-gone" in VpcEndpointIds:
            raise err("InvalidVpcEndpointId.NotFound", "DescribeVpcEndpoints")
        return {"VpcEndpoints": [{"VpcEndpointId": i, "State": "available"} for i in VpcEndpointIds]}
    e = ex({("ec2", "describe_vpc_endpoints"): describe_vpc_endpoints})
    found = P.PROBES[g.ENDPOINT](e, ["vpce-1", "vpce-gone", "vpce-2"])
    assert sorted(found) == ["vpce-1", "vpce-2"] and found["vpce-1"]["state"] == "present"
    assert [kw["VpcEndpointIds"] for s, o, kw in e.c.calls] == [
        ["vpce-1", "vpce-gone", "vpce-2"], ["vpce-1"], ["vpce-gone"], ["vpce-2"]]


def test_an_endpoint_read_that_fails_otherwise_raises_never_reads_as_gone():
    def describe_vpc_endpoints(VpcEndpointIds):
        raise err("RequestLimitExceeded", "DescribeVpcEndpoints")
    with pytest.raises(botocore.exceptions.ClientError):
        P.PROBES[g.ENDPOINT](ex({("ec2", "describe_vpc_endpoints"): describe_vpc_endpoints}), ["vpce-1"])


def test_a_record_is_found_by_its_normalised_name_and_type():
    answer = {"ResourceRecordSets": [{"Name": "\\052.apps.a.example.com.", "Type": "A"}]}
    e = ex({("route53", "list_resource_record_sets"): answer})
    zone, rr = P.find_record(e, "Z1/*.Apps.a.example.com/A")
    assert zone == "Z1" and rr == answer["ResourceRecordSets"][0]
    assert e.c.calls[0][2] == {"HostedZoneId": "Z1", "StartRecordName": "*.Apps.a.example.com",
                               "StartRecordType": "A", "MaxItems": "1"}
    # the next record of another type is not the one asked for
    assert P.find_record(e, "Z1/*.apps.a.example.com/TXT") == ("Z1", None)


def test_records_and_zones_answered_not_found_are_gone():
    def gone(**kw):
        raise err("NoSuchHostedZone", "op")
    e = ex({("route53", "list_resource_record_sets"): gone, ("route53", "get_hosted_zone"): gone})
    assert P.PROBES[g.RECORD](e, ["Z1/a.example.com/A"]) == {}
    assert P.PROBES[g.ZONE](e, ["Z1"]) == {}
    e = ex({("route53", "get_hosted_zone"): {"HostedZone": {"Name": "a.example.com."}}})
    assert P.PROBES[g.ZONE](e, ["Z1"]) == {"Z1": {"state": "present", "name": "a.example.com."}}


def test_buckets_are_one_listing_and_a_prefix_is_present_while_it_holds_a_version_or_marker():
    e = ex({("s3", "list_buckets"): {"Buckets": [{"Name": "b1"}, {"Name": "other"}]}})
    assert P.PROBES[g.BUCKET](e, ["b1", "b2"]) == {"b1": {"state": "present"}}
    answers = {"b/with-marker": {"DeleteMarkers": [{"Key": "k"}]}, "b/empty": {}, "b/with-version": {"Versions": [{}]}}
    e = ex({("s3", "list_object_versions"): lambda Bucket, Prefix, MaxKeys: answers[Bucket + "/" + Prefix]})
    assert sorted(P.PROBES[g.PREFIX](e, sorted(answers))) == ["b/with-marker", "b/with-version"]


def test_every_type_of_the_graph_has_a_probe():
    # verification reads each ID of the plan back by its type: a type without a probe could never be verified
    assert set(g.TYPE_DEPS) - set(P.PROBES) == set()
    assert all(callable(probe) for probe in P.PROBES.values())


@pytest.mark.parametrize("state,expected", [
    ("Available", "present"), ("Pending", "present"), ("Failed", "present"), ("Deleting", "pending"),
    ("deleted", "terminal"), (None, "present")])
def test_endpoint_service_state(state, expected):
    assert P.endpoint_service_state({"ServiceState": state} if state else {}) == expected


def test_endpoint_services_fall_back_to_one_call_per_id_when_one_missing_id_fails_the_batch():
    def describe(ServiceIds):
        if "vpce-svc-gone" in ServiceIds:
            raise err("InvalidVpcEndpointServiceId.NotFound", "DescribeVpcEndpointServiceConfigurations")
        return {"ServiceConfigurations": [{"ServiceId": i, "ServiceState": "Available",
                                           "Tags": [{"Key": "k", "Value": "v"}]} for i in ServiceIds]}
    e = ex({("ec2", "describe_vpc_endpoint_service_configurations"): describe})
    found = P.PROBES[g.ENDPOINT_SERVICE](e, ["vpce-svc-1", "vpce-svc-gone"])
    assert sorted(found) == ["vpce-svc-1"] and found["vpce-svc-1"]["state"] == "present"
    assert found["vpce-svc-1"]["Tags"] == [{"Key": "k", "Value": "v"}]  # the protect tag is read from the look
    assert g.ENDPOINT_SERVICE in P.TAGGED_BY_LOOK
    assert [kw["ServiceIds"] for s, o, kw in e.c.calls] == [
        ["vpce-svc-1", "vpce-svc-gone"], ["vpce-svc-1"], ["vpce-svc-gone"]]


def test_an_endpoint_service_missing_from_the_answer_is_gone():
    e = ex({("ec2", "describe_vpc_endpoint_service_configurations"): {"ServiceConfigurations": [
        {"ServiceId": "vpce-svc-other", "ServiceState": "Available"}]}})
    assert P.PROBES[g.ENDPOINT_SERVICE](e, ["vpce-svc-1"]) == {}


@pytest.mark.parametrize("code", ["RequestLimitExceeded", "UnauthorizedOperation", "InvalidVpcEndpointId.NotFound",
                                  "InternalError"])
def test_an_endpoint_service_read_that_fails_otherwise_is_unknown_never_gone(code):
    def describe(ServiceIds):
        raise err(code, "DescribeVpcEndpointServiceConfigurations")
    with pytest.raises(botocore.exceptions.ClientError, match=code):
        P.PROBES[g.ENDPOINT_SERVICE](ex({("ec2", "describe_vpc_endpoint_service_configurations"): describe}),
                                     ["vpce-svc-1"])
    assert "InvalidVpcEndpointServiceId.NotFound" in NOT_FOUND and "ExistingVpcEndpointConnections" in REFUSALS
