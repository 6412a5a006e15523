"""Orphan logic: which names carry an infra ID, min_age parsing, the protected tag, and the status of an infra ID
(live beats everything, an unread management cluster makes every other ID unknown, then protected, young, orphan)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import orphans as o

NOW = datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.timezone.utc)
OLD = NOW - datetime.timedelta(days=3)
NEW = NOW - datetime.timedelta(minutes=5)


@pytest.mark.parametrize("value, seconds", [
    ("24h", 86400), ("90m", 5400), ("1d12h", 129600), ("0", 0), (0, 0), (3600, 3600), ("45s", 45), ("2w", 1209600),
    (" 1h 30m ", 5400)])
def test_parse_age(value, seconds):
    assert o.parse_age(value) == seconds


@pytest.mark.parametrize("value", ["-1", -5, "-2h", "soon", "", None, "12x", "h", True, "1h-"])
def test_parse_age_refuses(value):
    with pytest.raises(ValueError):
        o.parse_age(value)


def test_names_carry_the_infra_id_as_hypershift_names_them():
    assert o.infra_id_from_tag("kubernetes.io/cluster/demo-x7k2q", "owned") == "demo-x7k2q"
    assert o.infra_id_from_tag("kubernetes.io/cluster/demo-x7k2q", "shared") is None  # a shared VPC is not its own
    assert o.infra_id_from_tag("Name", "owned") is None
    assert o.infra_id_from_role("demo-x7k2q-node-pool") == "demo-x7k2q"
    assert o.infra_id_from_role("demo-x7k2q-aws-ebs-csi-driver-controller") == "demo-x7k2q"
    assert o.infra_id_from_role("someone-elses-role") is None
    assert o.infra_id_from_role("-node-pool") is None
    assert o.infra_id_from_profile("demo-x7k2q-worker") == "demo-x7k2q"
    assert o.infra_id_from_profile("worker") is None
    assert o.infra_id_from_oidc_arn(
        "arn:aws:iam::123456789012:oidc-provider/my-oidc.s3.us-east-1.amazonaws.com/demo-x7k2q") == "demo-x7k2q"
    assert o.infra_id_from_oidc_arn("arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com") is None
    assert o.infra_id_from_bucket("demo-x7k2q-image-registry-us-east-1-abcdef") == "demo-x7k2q"
    assert o.infra_id_from_bucket("logs-bucket") is None


def test_protected_tag():
    assert o.is_protected([{"Key": "teardown.gates/protected", "Value": "true"}])
    assert o.is_protected([{"Key": "teardown.gates/protected", "Value": "True"}])
    assert o.is_protected({"teardown.gates/protected": "true"})
    assert not o.is_protected([{"Key": "teardown.gates/protected", "Value": "false"}])
    assert not o.is_protected(None)


def test_creation_times_read_every_field_aws_uses():
    times = o.creation_times({"LaunchTime": OLD, "CreateDate": "2026-11-30T10:00:00Z", "Name": "x"})
    assert sorted(times) == [OLD, datetime.datetime(2026, 11, 30, 10, 0, tzinfo=datetime.timezone.utc)]
    assert o.creation_times({"CreationDate": "not a time"}) == []


def test_live_wins_even_when_another_cluster_is_unread():
    status, reason = o.classify("a", {"a": ["clusters/a (context m)"]}, False, set(), [OLD], 0, NOW)
    assert status == "live" and "clusters/a" in reason


def test_unread_management_cluster_makes_every_other_id_unknown():
    assert o.classify("a", {}, False, set(), [OLD], 0, NOW)[0] == "unknown"


def test_protected_before_age():
    status, reason = o.classify("a", {}, True, {("AWS::EC2::VPC", "vpc-1")}, [OLD], 0, NOW)
    assert status == "protected" and "vpc-1" in reason


def test_young_by_the_oldest_time():
    assert o.classify("a", {}, True, set(), [NEW], 3600, NOW)[0] == "young"
    assert o.classify("a", {}, True, set(), [NEW, OLD], 3600, NOW)[0] == "orphan"
    assert o.classify("a", {}, True, set(), [NEW], 0, NOW)[0] == "orphan"


def test_no_readable_time_is_not_old_enough():
    assert o.classify("a", {}, True, set(), [], 60, NOW)[0] == "young"
    assert o.classify("a", {}, True, set(), [], 0, NOW)[0] == "orphan"


class FakeClients:
    """Answers by (service, operation); records every call."""

    def __init__(self, answers):
        self.answers = answers
        self.sent = []

    def call(self, service, op, **kw):
        self.sent.append((service, op))
        answer = self.answers.get((service, op), {})
        return answer(**kw) if callable(answer) else answer


def test_scan_region_attributes_each_kind_of_evidence():
    arn = "arn:aws:iam::1:oidc-provider/b.s3.us-east-1.amazonaws.com/inf-b"
    owned = {"Tags": [{"Key": "kubernetes.io/cluster/inf-a", "Value": "owned", "ResourceType": "vpc", "ResourceId": "vpc-a"}]}
    kept = {"Tags": [{"Key": "teardown.gates/protected", "Value": "true", "ResourceType": "vpc", "ResourceId": "vpc-a"}]}
    c = FakeClients({
        ("ec2", "describe_tags"): lambda Filters: owned if Filters[0]["Name"] == "value" else kept,
        ("ec2", "describe_vpcs"): {"Vpcs": [{"VpcId": "vpc-a"}]},
        ("iam", "get_account_authorization_details"): {"RoleDetailList": [
            {"RoleName": "inf-b-node-pool", "CreateDate": OLD}, {"RoleName": "admin"}]},
        ("iam", "list_instance_profiles"): {"InstanceProfiles": [{"InstanceProfileName": "inf-c-worker", "CreateDate": NEW}]},
        ("iam", "list_open_id_connect_providers"): {"OpenIDConnectProviderList": [{"Arn": arn}]},
        ("iam", "get_open_id_connect_provider"): {"CreateDate": OLD},
        ("route53", "list_hosted_zones"): {"HostedZones": [{"Id": "/hostedzone/Z1", "Config": {"PrivateZone": True}},
                                                           {"Id": "/hostedzone/Z2", "Config": {"PrivateZone": False}}]},
        ("route53", "list_tags_for_resource"): {"ResourceTagSet": {"Tags": []}},
        ("route53", "get_hosted_zone"): {"VPCs": [{"VPCId": "vpc-a"}]},
        ("s3", "list_buckets"): {"Buckets": [{"Name": "inf-d-image-registry-us-east-1-x", "CreationDate": OLD},
                                             {"Name": "unrelated"}]},
        ("s3", "get_bucket_tagging"): {"TagSet": []},
        ("s3", "list_objects_v2"): {"CommonPrefixes": [{"Prefix": "inf-e/"}]},
    })
    found = o.scan_region(c, oidc_bucket="oidc")
    assert sorted(found.ids) == ["inf-a", "inf-b", "inf-c", "inf-d", "inf-e"]
    assert ("AWS::Route53::HostedZone", "Z1") in found.ids["inf-a"]["evidence"]  # by its VPC's tag
    assert found.ids["inf-a"]["protected"] == {("EC2 vpc", "vpc-a")}
    assert found.ids["inf-b"]["created"] == [OLD, OLD]
    assert ("Custom::S3Prefix", "oidc/inf-e/") in found.ids["inf-e"]["evidence"]
    assert ("route53", "get_hosted_zone") in c.sent and c.sent.count(("route53", "list_tags_for_resource")) == 1
    # upstream's marks: the cluster tag, the OIDC provider's path; a role, profile, untagged bucket or prefix that
    # only reads like an infra ID carries none
    assert found.ids["inf-a"]["marked"] and found.ids["inf-b"]["marked"] == {("AWS::IAM::OIDCProvider", arn)}
    assert not found.ids["inf-c"]["marked"] and not found.ids["inf-d"]["marked"] and not found.ids["inf-e"]["marked"]


def _trusting(arn):
    return {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                           "Principal": {"Federated": arn}}]}


def test_a_role_is_marked_by_trusting_the_oidc_provider_of_its_infra_id_and_a_profile_by_its_worker_role():
    arn = "arn:aws:iam::1:oidc-provider/b.s3.us-east-1.amazonaws.com/inf-b"
    other = "arn:aws:iam::1:oidc-provider/b.s3.us-east-1.amazonaws.com/inf-b-2"
    assert o.trusted_oidc_infra_ids({"AssumeRolePolicyDocument": _trusting(arn)}) == {"inf-b"}
    # as IAM sends it: URL-encoded JSON text
    text = "%7B%22Statement%22%3A%5B%7B%22Principal%22%3A%7B%22Federated%22%3A%5B%22" + arn.replace(
        ":", "%3A").replace("/", "%2F") + "%22%5D%7D%7D%5D%7D"
    assert o.trusted_oidc_infra_ids({"AssumeRolePolicyDocument": text}) == {"inf-b"}
    assert o.trusted_oidc_infra_ids({"AssumeRolePolicyDocument": {"Statement": [
        {"Principal": {"Service": "ec2.amazonaws.com"}}]}}) == set()
    assert o.trusted_oidc_infra_ids({"AssumeRolePolicyDocument": "not json"}) == set()
    assert o.trusted_oidc_infra_ids({}) == set()
    c = FakeClients({
        ("iam", "get_account_authorization_details"): {"RoleDetailList": [
            {"RoleName": "inf-b-node-pool", "AssumeRolePolicyDocument": _trusting(arn)},
            {"RoleName": "inf-x-node-pool", "AssumeRolePolicyDocument": _trusting(other)},
            {"RoleName": "team-node-pool", "AssumeRolePolicyDocument": {"Statement": []}}]},
        ("iam", "list_instance_profiles"): {"InstanceProfiles": [
            {"InstanceProfileName": "inf-c-worker", "Roles": [{"RoleName": "inf-c-worker-role"}]},
            {"InstanceProfileName": "web-worker", "Roles": [{"RoleName": "web-nodes"}]}]},
    })
    found = o.scan_region(c)
    assert found.ids["inf-b"]["marked"] == {("AWS::IAM::Role", "inf-b-node-pool")}
    assert found.ids["inf-c"]["marked"] == {("AWS::IAM::InstanceProfile", "inf-c-worker")}
    # a role trusting another infra ID's provider, a team's role and profile that only end in a component's name
    assert not found.ids["inf-x"]["marked"] and not found.ids["team"]["marked"] and not found.ids["web"]["marked"]


def test_an_infra_id_seen_only_by_name_is_uncertain_never_an_orphan():
    ev = {("AWS::IAM::Role", "team-node-pool")}
    status, reason = o.classify("team", {}, True, set(), [OLD], 0, NOW, marked=False, evidence=ev)
    assert status == "uncertain" and "AWS::IAM::Role team-node-pool" in reason and "never deleted" in reason
    # live, unknown and protected still come first; marked, it is an orphan as before
    assert o.classify("team", {"team": ["x"]}, True, set(), [OLD], 0, NOW, marked=False)[0] == "live"
    assert o.classify("team", {}, False, set(), [OLD], 0, NOW, marked=False)[0] == "unknown"
    assert o.classify("team", {}, True, {("AWS::IAM::Role", "r")}, [OLD], 0, NOW, marked=False)[0] == "protected"
    assert o.classify("team", {}, True, set(), [OLD], 0, NOW, marked=True)[0] == "orphan"


def test_a_tag_of_what_is_gone_is_not_evidence():
    # DescribeTags still lists a terminated instance, and (here) a subnet deleted a moment ago
    tags = {"Tags": [
        {"Key": "kubernetes.io/cluster/inf-a", "Value": "owned", "ResourceType": "instance", "ResourceId": "i-1"},
        {"Key": "kubernetes.io/cluster/inf-a", "Value": "owned", "ResourceType": "subnet", "ResourceId": "subnet-1"},
        {"Key": "kubernetes.io/cluster/inf-b", "Value": "owned", "ResourceType": "instance", "ResourceId": "i-2"},
        {"Key": "kubernetes.io/cluster/inf-b", "Value": "owned", "ResourceType": "nat-gateway", "ResourceId": "nat-1"},
        {"Key": "kubernetes.io/cluster/inf-c", "Value": "owned", "ResourceType": "snapshot", "ResourceId": "snap-1"},
        # a guest volume the CSI driver is deleting, and one still there
        {"Key": "kubernetes.io/cluster/inf-d", "Value": "owned", "ResourceType": "volume", "ResourceId": "vol-1"},
        {"Key": "kubernetes.io/cluster/inf-e", "Value": "owned", "ResourceType": "volume", "ResourceId": "vol-2"},
    ]}
    c = FakeClients({
        ("ec2", "describe_tags"): lambda Filters: tags if Filters[0]["Name"] == "value" else {},
        ("ec2", "describe_instances"): {"Reservations": [{"Instances": [
            {"InstanceId": "i-1", "State": {"Name": "terminated"}},
            {"InstanceId": "i-2", "State": {"Name": "shutting-down"}}]}]},
        ("ec2", "describe_subnets"): {"Subnets": []},
        ("ec2", "describe_nat_gateways"): {"NatGateways": [{"NatGatewayId": "nat-1", "State": "deleted"}]},
        ("ec2", "describe_volumes"): {"Volumes": [{"VolumeId": "vol-1", "State": "deleting"},
                                                  {"VolumeId": "vol-2", "State": "available"}]},
    })
    found = o.scan_region(c)
    # inf-a: everything gone, so it is not in the region any more; inf-b: a shutting-down instance is still there;
    # inf-d: a deleting volume is as good as gone (AWS finishes it), inf-e's available one is there
    assert sorted(found.ids) == ["inf-b", "inf-c", "inf-e"]
    assert found.ids["inf-b"]["evidence"] == {("EC2 instance", "i-2")}
    assert found.ids["inf-e"]["evidence"] == {("EC2 volume", "vol-2")}
    # a type the scan has no look for stays evidence
    assert found.ids["inf-c"]["evidence"] == {("EC2 snapshot", "snap-1")}
    # one look for both volumes
    assert c.sent.count(("ec2", "describe_volumes")) == 1


def test_a_zone_or_bucket_deleted_during_the_scan_is_skipped_not_a_failed_scan():
    # another teardown in the account deletes a zone and a bucket between our list and our read of each
    def gone(code, op):
        def raise_(**kw):
            raise botocore.exceptions.ClientError({"Error": {"Code": code, "Message": "gone (fake)"}}, op)
        return raise_
    c = FakeClients({
        ("route53", "list_hosted_zones"): {"HostedZones": [{"Id": "/hostedzone/Z1", "Config": {"PrivateZone": True}}]},
        ("route53", "list_tags_for_resource"): gone("NoSuchHostedZone", "ListTagsForResource"),
        ("s3", "list_buckets"): {"Buckets": [{"Name": "inf-d-image-registry-us-east-1-x", "CreationDate": OLD},
                                             {"Name": "inf-f-image-registry-us-east-1-y", "CreationDate": OLD}]},
        ("s3", "get_bucket_tagging"): lambda Bucket: gone("NoSuchBucket", "GetBucketTagging")() if "inf-d" in Bucket
        else gone("NoSuchTagSet", "GetBucketTagging")(),
    })
    found = o.scan_region(c)
    assert sorted(found.ids) == ["inf-f"]  # the untagged bucket that is there; nothing of what went


def test_what_the_scan_saw_and_the_inventory_did_not_is_added_by_type_volumes_among_them():
    main_table = {"RouteTableId": "rtb-main", "Associations": [{"Main": True}]}
    c = FakeClients({("ec2", "describe_route_tables"): {"RouteTables": [main_table]}})
    evidence = {("EC2 volume", "vol-9"), ("EC2 volume", "vol-1"), ("EC2 route-table", "rtb-main"),
                ("EC2 snapshot", "snap-1"), ("AWS::S3::Bucket", "inf-image-registry")}
    manifest = {"AWS::EC2::Volume": ["vol-1"]}
    # vol-1 the inventory found; the main route table goes with its VPC; a snapshot is no type the cleanup deletes
    assert o.extra_ids(c, evidence, manifest) == [("AWS::S3::Bucket", "inf-image-registry"), ("AWS::EC2::Volume", "vol-9")]
