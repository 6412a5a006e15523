# -*- coding: utf-8 -*-
"""cfn/remedies.py: the holders of a refused resource (a bucket's versions, a role's policies and profiles) are
found and released with the call each needs; one gone already is not counted, one S3 refuses is named.
Split out of test_cfn.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.cfn import remedies as cfn_remedies
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import Clients


def err(code, msg, op):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": msg}}, op)


class FakeVersionedS3:
    """A versioned bucket: two versions of one key, a version and a delete marker of another; pages of 2."""

    def __init__(self):
        self.versions = [("keep", "v1"), ("keep", "v2"), ("gone", "v3")]
        self.markers = [("gone", "m1")]
        self.deleted = []

    def list_object_versions(self, Bucket, MaxKeys=1000, **kw):
        return {"Versions": [{"Key": k, "VersionId": v} for k, v in self.versions[:2]],
                "DeleteMarkers": [{"Key": k, "VersionId": v} for k, v in self.markers[:1]],
                "IsTruncated": len(self.versions) > 2}

    def list_objects_v2(self, Bucket, **kw):
        return {"KeyCount": 0, "Contents": []}

    def delete_objects(self, Bucket, Delete):
        for o in Delete["Objects"]:
            self.deleted.append((o["Key"], o.get("VersionId")))
            pair = (o["Key"], o.get("VersionId"))
            if pair in self.versions:
                self.versions.remove(pair)
            if pair in self.markers:
                self.markers.remove(pair)
        return {}


def test_empty_buckets_deletes_every_version_and_delete_marker():
    s3 = FakeVersionedS3()
    c = Clients(lambda service: s3)
    holders = cfn_remedies.find_holders(c, "empty_buckets", "AWS::S3::Bucket", "b")
    assert holders and "3+" in holders[0]["what"]
    cfn_remedies.release(c, "empty_buckets", "AWS::S3::Bucket", "b", holders)
    assert s3.versions == [] and s3.markers == []
    assert sorted(s3.deleted) == [("gone", "m1"), ("gone", "v3"), ("keep", "v1"), ("keep", "v2")]
    assert cfn_remedies.find_holders(c, "empty_buckets", "AWS::S3::Bucket", "b") == []


class _RecordingClients:
    """Records each call; a list call answers from ``lists`` (one page)."""

    def __init__(self, lists=None):
        self.calls = []
        self.lists = lists or {}

    def call(self, service, op, **kw):
        self.calls.append((service, op, kw))
        return self.lists.get(op, {})


def test_iam_principals_are_released_with_the_call_each_holder_needs():
    c = _RecordingClients()
    cfn_remedies.release(c, "detach_iam", "AWS::IAM::Role", "r", [
        dict(kind="attached_policy", id="arn:p"), dict(kind="inline_policy", id="i"), dict(kind="instance_profile", id="ip")])
    cfn_remedies.release(c, "detach_iam", "AWS::IAM::User", "u", [dict(kind="attached_policy", id="arn:p"), dict(kind="group", id="g")])
    assert c.calls == [
        ("iam", "detach_role_policy", {"RoleName": "r", "PolicyArn": "arn:p"}),
        ("iam", "delete_role_policy", {"RoleName": "r", "PolicyName": "i"}),
        ("iam", "remove_role_from_instance_profile", {"RoleName": "r", "InstanceProfileName": "ip"}),
        ("iam", "detach_user_policy", {"UserName": "u", "PolicyArn": "arn:p"}),
        ("iam", "remove_user_from_group", {"UserName": "u", "GroupName": "g"}),
    ]


def test_iam_principals_holders_are_listed_with_the_call_each_kind_needs():
    lists = {"list_attached_role_policies": {"AttachedPolicies": [{"PolicyArn": "arn:rp"}]},
             "list_role_policies": {"PolicyNames": ["ri"]},
             "list_instance_profiles_for_role": {"InstanceProfiles": [{"InstanceProfileName": "ip"}]},
             "list_attached_user_policies": {"AttachedPolicies": [{"PolicyArn": "arn:up"}]},
             "list_user_policies": {"PolicyNames": []},
             "list_groups_for_user": {"Groups": [{"GroupName": "g"}]}}
    c = _RecordingClients(lists)
    role = cfn_remedies.find_holders(c, "detach_iam", "AWS::IAM::Role", "r")
    user = cfn_remedies.find_holders(c, "detach_iam", "AWS::IAM::User", "u")
    assert [(h["kind"], h["id"], h["what"]) for h in role] == [
        ("attached_policy", "arn:rp", "managed policy attached to role r"),
        ("inline_policy", "ri", "inline policy of role r"),
        ("instance_profile", "ip", "instance profile holding role r")]
    assert [(h["kind"], h["id"], h["what"]) for h in user] == [
        ("attached_policy", "arn:up", "managed policy attached to user u"),
        ("group", "g", "group membership of user u")]
    assert [(op, kw) for dummy, op, kw in c.calls] == [
        ("list_attached_role_policies", {"RoleName": "r"}), ("list_role_policies", {"RoleName": "r"}),
        ("list_instance_profiles_for_role", {"RoleName": "r"}), ("list_attached_user_policies", {"UserName": "u"}),
        ("list_user_policies", {"UserName": "u"}), ("list_groups_for_user", {"UserName": "u"})]


class GoneIAM:
    """Every holder of the role already let go (another run came first): each release answers NoSuchEntity."""

    def __init__(self):
        self.calls = []

    def _gone(self, op):
        self.calls.append(op)
        raise err("NoSuchEntity", "gone (fake)", op)

    def detach_role_policy(self, **kw):
        self._gone("DetachRolePolicy")

    def delete_role_policy(self, **kw):
        self._gone("DeleteRolePolicy")

    def remove_role_from_instance_profile(self, **kw):
        self._gone("RemoveRoleFromInstanceProfile")


def test_a_release_whose_every_call_finds_its_target_gone_accepted_nothing():
    holders = [{"kind": "attached_policy", "id": "arn:aws:iam::1:policy/p"}, {"kind": "inline_policy", "id": "i"},
               {"kind": "instance_profile", "id": "prof"}]
    fake = GoneIAM()
    c = Clients(lambda service: fake)
    assert cfn_remedies.release(c, "detach_iam", "AWS::IAM::Role", "r", holders) == 0
    assert len(fake.calls) == 3


class RefusingS3(FakeVersionedS3):
    """DeleteObjects answers one key in Errors (as S3 does for, say, an object under legal hold)."""

    def delete_objects(self, Bucket, Delete):
        FakeVersionedS3.delete_objects(self, Bucket, Delete)
        return {"Errors": [{"Key": "keep", "VersionId": "v1", "Code": "AccessDenied", "Message": "Access Denied"}]}


def test_objects_s3_refuses_to_delete_are_named_not_read_as_deleted():
    from ansible_collections.teardown.gates.plugins.module_utils.aws import deletes as aws_deletes
    c = Clients(lambda service: RefusingS3())
    with pytest.raises(aws_deletes.ObjectsNotDeleted, match="first keep: Access Denied"):
        aws_deletes.empty_bucket(c, "b")
    # the CloudFormation remedy says it cannot release the bucket, with the same words
    with pytest.raises(cfn_remedies.Unclear, match="could not be deleted, first keep"):
        cfn_remedies.release(c, "empty_buckets", "AWS::S3::Bucket", "b", [dict(kind="objects", id="b", what="3 objects")])


# ---- holders outside the stack (#55)

ENIS = {"NetworkInterfaces": [
    {"NetworkInterfaceId": "eni-own", "Status": "in-use", "VpcId": "v", "Attachment": {"InstanceId": "i-own"},
     "Groups": [{"GroupId": "sg-1"}, {"GroupId": "sg-2"}]},
    {"NetworkInterfaceId": "eni-theirs", "Status": "in-use", "VpcId": "v", "Attachment": {"InstanceId": "i-theirs"},
     "Groups": [{"GroupId": "sg-1"}]},
    {"NetworkInterfaceId": "eni-loose", "Status": "available", "VpcId": "v", "Groups": [{"GroupId": "sg-1"}]},
    {"NetworkInterfaceId": "eni-lambda", "Status": "in-use", "VpcId": "v", "RequesterManaged": True,
     "Attachment": {}, "Groups": [{"GroupId": "sg-1"}]},
]}


def test_interfaces_say_whether_they_are_the_stacks_and_what_the_remedy_would_do():
    c = _RecordingClients({"describe_network_interfaces": ENIS})
    h = cfn_remedies.find_holders(c, "release_dependencies", "AWS::EC2::SecurityGroup", "sg-1", {"sg-1", "i-own"})
    assert [(x["id"], x["outside_stack"], x["would"]) for x in h] == [
        ("eni-own", False, "move it to its other groups sg-2"),
        ("eni-theirs", True, "move it to the VPC's default group"),
        ("eni-loose", True, "delete it"),
        ("eni-lambda", True, None)]  # never touched: a service's interface is Unclear
    assert h[1]["what"] == "network interface eni-theirs (in-use, attached to instance i-theirs) uses sg-1"
    # the stack's tree unknown: nothing is proven the stack's
    assert all(x["outside_stack"] for x in cfn_remedies.find_holders(
        c, "release_dependencies", "AWS::EC2::SecurityGroup", "sg-1"))
    # the interface itself a resource of the stack
    assert not cfn_remedies.find_holders(c, "release_dependencies", "AWS::EC2::Subnet", "sub-1", {"eni-loose"})[2][
        "outside_stack"]
    assert [x["id"] for x in cfn_remedies.needs_consent(h, ["eni-loose"])] == ["eni-theirs"]


def test_a_holder_outside_the_stack_not_named_is_refused_before_any_call():
    c = _RecordingClients({"describe_network_interfaces": ENIS})
    h = cfn_remedies.find_holders(c, "release_dependencies", "AWS::EC2::SecurityGroup", "sg-1", {"i-own"})
    del c.calls[:]
    with pytest.raises(cfn_remedies.OutsideStack, match="eni-theirs is outside the stack; name it in "
                                                        "release_outside_stack to let the remedy move it"):
        cfn_remedies.release(c, "release_dependencies", "AWS::EC2::SecurityGroup", "sg-1", h[:3], ["eni-loose"])
    assert c.calls == []
    c.lists = {"describe_security_groups": {"SecurityGroups": [{"GroupId": "sg-default"}]}}
    cfn_remedies.release(c, "release_dependencies", "AWS::EC2::SecurityGroup", "sg-1", h[:3],
                         ["eni-theirs", "eni-loose"])
    assert [(op, kw.get("NetworkInterfaceId"), kw.get("Groups")) for dummy, op, kw in c.calls if op != "describe_security_groups"] == [
        ("modify_network_interface_attribute", "eni-own", ["sg-2"]),
        ("modify_network_interface_attribute", "eni-theirs", ["sg-default"]),
        ("delete_network_interface", "eni-loose", None)]


def test_a_policys_principals_outside_the_stack_need_consent():
    c = _RecordingClients({"list_entities_for_policy": {
        "PolicyRoles": [{"RoleName": "own"}, {"RoleName": "theirs"}], "PolicyUsers": [{"UserName": "u"}],
        "PolicyGroups": [{"GroupName": "g"}]},
        "list_policy_versions": {"Versions": [{"VersionId": "v1", "IsDefaultVersion": True}, {"VersionId": "v2"}]}})
    h = cfn_remedies.find_holders(c, "detach_iam", "AWS::IAM::ManagedPolicy", "arn:p", {"arn:p", "own", "g"})
    assert [(x["kind"], x["id"], x.get("outside_stack")) for x in h] == [
        ("role", "own", False), ("role", "theirs", True), ("user", "u", True), ("group", "g", False),
        ("version", "v2", None)]
    assert [x["id"] for x in cfn_remedies.needs_consent(h)] == ["theirs", "u"]
    del c.calls[:]
    with pytest.raises(cfn_remedies.OutsideStack):
        cfn_remedies.release(c, "detach_iam", "AWS::IAM::ManagedPolicy", "arn:p", h, ["u"])
    assert c.calls == []
    cfn_remedies.release(c, "detach_iam", "AWS::IAM::ManagedPolicy", "arn:p", h, ["u", "theirs"])
    assert [(op, kw) for dummy, op, kw in c.calls] == [
        ("detach_role_policy", {"PolicyArn": "arn:p", "RoleName": "own"}),
        ("detach_role_policy", {"PolicyArn": "arn:p", "RoleName": "theirs"}),
        ("detach_user_policy", {"PolicyArn": "arn:p", "UserName": "u"}),
        ("detach_group_policy", {"PolicyArn": "arn:p", "GroupName": "g"}),
        ("delete_policy_version", {"PolicyArn": "arn:p", "VersionId": "v2"})]
