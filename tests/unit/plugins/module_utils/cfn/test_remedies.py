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
