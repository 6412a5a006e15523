# -*- coding: utf-8 -*-
"""cfn/teardown.py: the delete loop against a fake CloudFormation that refuses until the cause is cleared,
check mode, the wait bound, and a failed or missing answer that is never read as NOT_FOUND. The classification
and the remedies are tested in test_classify.py and test_remedies.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.cfn import teardown as cfn
from ansible_collections.teardown.gates.plugins.module_utils.cfn import classify as cfn_classify
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import CheckModeViolation, Clients


# ---- the loop against a fake CloudFormation + S3

def err(code, msg, op):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": msg}}, op)


ARN = "arn:aws:cloudformation:us-east-1:1:stack/p/1"


class FakeAWS:
    """One stack with a bucket that refuses while it holds objects; ``retain_ok``: RetainResources honoured."""

    def __init__(self, objects=2, retain_ok=True, back_to_complete=False):
        self.objects = objects
        self.retain_ok = retain_ok
        self.back_to_complete = back_to_complete
        self.status = "CREATE_COMPLETE"
        self.bucket_status = "CREATE_COMPLETE"
        self.calls = []
        self.events = []

    # cloudformation
    def describe_stacks(self, StackName):
        self.calls.append("DescribeStacks")
        if self.status == "DELETE_COMPLETE" and not StackName.startswith("arn:"):
            raise err("ValidationError", "Stack with id %s does not exist" % StackName, "DescribeStacks")
        return {"Stacks": [{"StackName": "p", "StackId": ARN,
                            "StackStatus": self.status, "Outputs": []}]}

    def describe_stack_events(self, StackName, **kw):
        self.calls.append("DescribeStackEvents")
        return {"StackEvents": list(reversed(self.events))}

    def list_stack_resources(self, StackName, **kw):
        self.calls.append("ListStackResources")
        reason = ("The bucket you tried to delete is not empty (Service: Amazon S3; Status Code: 409; Error Code: "
                  "BucketNotEmpty)") if self.bucket_status == "DELETE_FAILED" else None
        return {"StackResourceSummaries": [{"LogicalResourceId": "Logs", "PhysicalResourceId": "p-logs",
                                            "ResourceType": "AWS::S3::Bucket", "ResourceStatus": self.bucket_status,
                                            "ResourceStatusReason": reason}]}

    def delete_stack(self, StackName, RetainResources=None):
        self.calls.append("DeleteStack")
        n = len(self.events)
        if self.back_to_complete:
            self.status = "UPDATE_COMPLETE"
            self.events.append({"EventId": str(n), "LogicalResourceId": "p", "ResourceStatus": "DELETE_FAILED",
                                "ResourceStatusReason": "Export p-x cannot be deleted as it is in use by q"})
            return {}
        if self.objects and not (RetainResources and self.retain_ok):
            self.status = self.bucket_status = "DELETE_FAILED"
        else:
            self.status = "DELETE_COMPLETE"
            self.bucket_status = "DELETE_SKIPPED" if RetainResources else "DELETE_COMPLETE"
        self.events.append({"EventId": str(n), "LogicalResourceId": "Logs", "ResourceStatus": self.bucket_status,
                            "StackId": ARN, "StackName": "p", "PhysicalResourceId": "p-logs",
                            "ResourceType": "AWS::S3::Bucket"})
        return {}

    # s3
    def list_object_versions(self, Bucket, **kw):
        self.calls.append("ListObjectVersions")
        return {"Versions": [{"Key": "k%d" % i, "VersionId": "v"} for i in range(self.objects)],
                "DeleteMarkers": []}

    def list_objects_v2(self, Bucket, **kw):
        self.calls.append("ListObjectsV2")
        return {"KeyCount": 0, "Contents": []}

    def delete_objects(self, Bucket, Delete):
        self.calls.append("DeleteObjects")
        self.objects -= len(Delete["Objects"])
        return {}


def run(fake, check_mode=False, name="p", **kw):
    c = Clients(lambda service: fake, check_mode=check_mode)
    td = cfn.Teardown(c, check_mode=check_mode, sleep=lambda s: None, **kw)
    try:
        st, sid = td.run(name)
    except cfn.Failed as e:
        return td, None, e.msg
    return td, st, None


def test_bucket_not_empty_is_cleared_when_allowed():
    fake = FakeAWS()
    td, st, msg = run(fake, clear=["empty_buckets"])
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE" and fake.objects == 0
    assert [(r["class"], r["remedy"], r["action"]) for r in td.refusals] == [
        ("BucketNotEmpty", "empty_buckets", "cleared")]
    assert fake.calls.count("DeleteStack") == 2 and td.changed


class EmptiedByAnotherRun(FakeAWS):
    """The bucket refused, then another run emptied it before this one looked at what held it."""

    def list_object_versions(self, Bucket, **kw):
        self.objects = 0
        return FakeAWS.list_object_versions(self, Bucket, **kw)


def test_a_refusal_found_clear_is_not_claimed_as_cleared():
    fake = EmptiedByAnotherRun()
    td, st, msg = run(fake, clear=["empty_buckets"])
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE"
    assert [(r["class"], r["remedy"], r["action"]) for r in td.refusals] == [
        ("BucketNotEmpty", "empty_buckets", "found clear")]
    assert "DeleteObjects" not in fake.calls and fake.calls.count("DeleteStack") == 2


class DeletedByAnotherRun(FakeAWS):
    """The bucket refused, then another run's delete of the stack removed it before this one looked."""

    def list_object_versions(self, Bucket, **kw):
        self.objects = 0
        raise err("NoSuchBucket", "The specified bucket does not exist", "ListObjectVersions")


def test_a_refused_resource_gone_when_we_look_is_found_clear_not_a_failure():
    fake = DeletedByAnotherRun()
    td, st, msg = run(fake, clear=["empty_buckets"])
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE"
    assert [r["action"] for r in td.refusals] == ["found clear"]


def test_bucket_not_empty_stops_when_not_allowed_naming_the_option():
    fake = FakeAWS()
    td, st, msg = run(fake, clear=["detach_iam"])
    assert "Logs" in msg and "p-logs" in msg and "BucketNotEmpty" in msg and "clear: [empty_buckets]" in msg
    assert fake.objects == 2 and "DeleteObjects" not in fake.calls


def test_retain_unclearable_lists_what_is_kept():
    fake = FakeAWS()
    td, st, msg = run(fake, retain_unclearable=True)
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE" and td.retain_supported is True
    assert [(r["logical_id"], r["physical_id"]) for r in td.retained] == [("Logs", "p-logs")]


def test_retain_ignored_by_the_endpoint_is_reported():
    fake = FakeAWS(retain_ok=False)
    td, st, msg = run(fake, retain_unclearable=True)
    assert "ignored RetainResources" in msg and td.retain_supported is False
    assert td.retained == []  # it was not retained: it still stands in the stack


def test_back_to_complete_after_delete_is_a_failure():
    fake = FakeAWS(back_to_complete=True)
    td, st, msg = run(fake, clear=list(cfn_classify.CLEAR_CHOICES))
    assert "went back to UPDATE_COMPLETE" in msg and "not a success" in msg and "in use by q" in msg


def test_check_mode_finds_and_plans_without_mutating():
    fake = FakeAWS()
    td, st, msg = run(fake, check_mode=True, clear=["empty_buckets"])
    assert msg is None
    assert not [x for x in fake.calls if x.startswith(("Delete", "Update", "Modify"))]
    assert td.refusals[0]["class"] == "BucketNotEmpty" and td.refusals[0]["action"] == "would clear"
    assert not td.changed


def test_check_mode_guard_refuses_mutating_calls():
    c = Clients(lambda service: FakeAWS(), check_mode=True)
    with pytest.raises(CheckModeViolation):
        c.call("cloudformation", "delete_stack", StackName="p")


def test_deleted_stack_by_name_is_absent_and_unchanged():
    fake = FakeAWS()
    fake.status = "DELETE_COMPLETE"
    td, st, msg = run(fake)
    assert st is None and msg is None and not td.changed and "DeleteStack" not in fake.calls


def test_timeout_is_bounded():
    class Stuck(FakeAWS):
        def delete_stack(self, StackName, RetainResources=None):
            self.calls.append("DeleteStack")
            self.status = "DELETE_IN_PROGRESS"
            return {}
    now = [0.0]

    def sleep(sec):
        now[0] += sec
    c = Clients(lambda service: Stuck())
    td = cfn.Teardown(c, wait_timeout=10, poll=1, clock=lambda: now[0], sleep=sleep)
    with pytest.raises(cfn.Failed, match="still DELETE_IN_PROGRESS after wait_timeout=10s"):
        td.run("p")


# ---- a failed or missing answer is never NOT_FOUND (chaos case cfn-refusals, seed 42004)

class Failing(FakeAWS):
    """DescribeStacks fails once the stack is DELETE_FAILED (throttled, dropped, a 500): nothing says it is gone."""

    def __init__(self, answer, **kw):
        super(Failing, self).__init__(**kw)
        self.answer = answer

    def describe_stacks(self, StackName):
        if self.status == "DELETE_FAILED":
            self.calls.append("DescribeStacks")
            if self.answer == "empty":
                return {"Stacks": []}
            raise err(self.answer, "Rate exceeded", "DescribeStacks")
        return super(Failing, self).describe_stacks(StackName)


@pytest.mark.parametrize("answer", ["Throttling", "InternalFailure", "empty"])
def test_a_failed_read_after_a_refusal_is_unknown_not_not_found(answer):
    fake = Failing(answer)
    td = cfn.Teardown(Clients(lambda service: fake), sleep=lambda s: None, clear=["empty_buckets"])
    with pytest.raises((cfn.Failed, botocore.exceptions.ClientError)):
        td.run("p")
    assert fake.status == "DELETE_FAILED"
    # the last answer that said anything said CREATE_COMPLETE (before DeleteStack): never NOT_FOUND
    assert td.observed_status(None) == "CREATE_COMPLETE"
    assert td.observed_status(ARN) != cfn_classify.NOT_FOUND


def test_no_answer_at_all_is_unknown():
    class Down(FakeAWS):
        def describe_stacks(self, StackName):
            raise err("InternalFailure", "internal error", "DescribeStacks")
    td = cfn.Teardown(Clients(lambda service: Down()), sleep=lambda s: None)
    with pytest.raises(botocore.exceptions.ClientError):
        td.run("p")
    assert td.observed_status(None) == cfn_classify.UNKNOWN


def test_not_found_only_from_the_answer_that_says_so():
    fake = FakeAWS()
    fake.status = "DELETE_COMPLETE"
    td = cfn.Teardown(Clients(lambda service: fake), sleep=lambda s: None)
    assert td.run("p") == (None, None)
    assert td.observed_status(None) == cfn_classify.NOT_FOUND


# ---- a remedy stays in the stack (#55): an interface or a principal outside it is touched only with consent

CHILD = "arn:aws:cloudformation:us-east-1:1:stack/p-Compute-1/2"


class HeldGroup(FakeAWS):
    """A stack whose security group refuses while a network interface uses it. The interface is attached to
    ``instance``; the stack holds the instance when ``own`` is "stack" (a resource of the stack) or "nested" (a
    resource of its nested stack), else it is someone else's."""

    def __init__(self, instance="i-theirs", own=None, **kw):
        super(HeldGroup, self).__init__(objects=0, **kw)
        self.group_status = "CREATE_COMPLETE"
        self.eni = {"NetworkInterfaceId": "eni-1", "Status": "in-use", "VpcId": "vpc-1",
                    "Attachment": {"InstanceId": instance}, "Groups": [{"GroupId": "sg-1"}]}
        self.own = own
        self.instance = instance
        self.mutations = []

    def list_stack_resources(self, StackName, **kw):
        self.calls.append("ListStackResources")
        if StackName == CHILD:
            return {"StackResourceSummaries": [{"LogicalResourceId": "Vm", "PhysicalResourceId": self.instance,
                                                "ResourceType": "AWS::EC2::Instance",
                                                "ResourceStatus": "CREATE_COMPLETE"}]}
        reason = ("resource sg-1 has a dependent object (Service: AmazonEC2; Status Code: 400; Error Code: "
                  "DependencyViolation)") if self.group_status == "DELETE_FAILED" else None
        rows = [{"LogicalResourceId": "Group", "PhysicalResourceId": "sg-1", "ResourceType": "AWS::EC2::SecurityGroup",
                 "ResourceStatus": self.group_status, "ResourceStatusReason": reason}]
        if self.own == "stack":
            rows.append({"LogicalResourceId": "Vm", "PhysicalResourceId": self.instance,
                         "ResourceType": "AWS::EC2::Instance", "ResourceStatus": "CREATE_COMPLETE"})
        elif self.own == "nested":
            rows.append({"LogicalResourceId": "Compute", "PhysicalResourceId": CHILD,
                         "ResourceType": "AWS::CloudFormation::Stack", "ResourceStatus": "CREATE_COMPLETE"})
        return {"StackResourceSummaries": rows}

    def delete_stack(self, StackName, RetainResources=None):
        self.calls.append("DeleteStack")
        held = any(g["GroupId"] == "sg-1" for g in self.eni["Groups"])
        if held and not (RetainResources and self.retain_ok):
            self.status = self.group_status = "DELETE_FAILED"
        else:
            self.status = "DELETE_COMPLETE"
            self.group_status = "DELETE_SKIPPED" if RetainResources else "DELETE_COMPLETE"
        return {}

    # ec2
    def describe_security_groups(self, Filters, **kw):
        self.calls.append("DescribeSecurityGroups")
        if Filters[0]["Name"] == "vpc-id":
            return {"SecurityGroups": [{"GroupId": "sg-default"}]}
        return {"SecurityGroups": []}

    def describe_network_interfaces(self, Filters, **kw):
        self.calls.append("DescribeNetworkInterfaces")
        uses = any(g["GroupId"] in Filters[0]["Values"] for g in self.eni["Groups"])
        return {"NetworkInterfaces": [dict(self.eni)] if uses else []}

    def modify_network_interface_attribute(self, NetworkInterfaceId, Groups):
        self.calls.append("ModifyNetworkInterfaceAttribute")
        self.mutations.append((NetworkInterfaceId, Groups))
        self.eni["Groups"] = [{"GroupId": g} for g in Groups]
        return {}


def test_an_interface_of_an_instance_outside_the_stack_is_not_moved_and_is_named():
    fake = HeldGroup()
    td, st, msg = run(fake, clear=["release_dependencies"])
    assert fake.mutations == [] and fake.status == "DELETE_FAILED"
    assert "eni-1 is outside the stack p" in msg and "attached to instance i-theirs" in msg
    assert "name it in release_outside_stack to let the remedy move it to the VPC's default group" in msg
    assert "retain_unclearable" in msg
    r = td.refusals[0]
    assert (r["class"], r["remedy"], r["action"]) == ("DependencyViolation", "release_dependencies", "stopped")
    assert [(h["id"], h["outside_stack"]) for h in r["holders"]] == [("eni-1", True)]
    assert r["not_released"] and r["not_released"][0].startswith("eni-1 is outside the stack p")
    assert not [c for c in fake.calls if c.startswith("Modify")]


def test_an_interface_outside_the_stack_is_moved_when_named():
    fake = HeldGroup()
    td, st, msg = run(fake, clear=["release_dependencies"], release_outside_stack=["eni-1"])
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE"
    assert fake.mutations == [("eni-1", ["sg-default"])]
    assert [(r["remedy"], r["action"]) for r in td.refusals] == [("release_dependencies", "cleared")]
    assert td.refusals[0]["holders"][0]["outside_stack"] is True


def test_another_id_named_is_no_consent_for_this_interface():
    fake = HeldGroup()
    td, st, msg = run(fake, clear=["release_dependencies"], release_outside_stack=["i-theirs", "eni-2"])
    assert fake.mutations == [] and "eni-1 is outside the stack" in msg


@pytest.mark.parametrize("own", ["stack", "nested"])
def test_an_interface_of_the_stacks_own_instance_is_moved_as_before(own):
    fake = HeldGroup(instance="i-ours", own=own)
    td, st, msg = run(fake, clear=["release_dependencies"])
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE"
    assert fake.mutations == [("eni-1", ["sg-default"])]
    assert td.refusals[0]["holders"][0]["outside_stack"] is False and "not_released" not in td.refusals[0]
    # the stack's tree is read from the pass's listings: the top stack once per pass, a nested stack once
    assert fake.calls.count("ListStackResources") == (1 if own == "stack" else 2)


def test_outside_the_stack_with_retain_unclearable_retains_without_touching_it():
    fake = HeldGroup()
    td, st, msg = run(fake, clear=["release_dependencies"], retain_unclearable=True)
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE" and fake.mutations == []
    assert [(x["logical_id"], x["physical_id"]) for x in td.retained] == [("Group", "sg-1")]
    r = td.refusals[0]
    assert (r["remedy"], r["action"]) == ("retain_unclearable", "retain") and r["times"] == 1
    assert r["not_released"][0].startswith("eni-1 is outside the stack p")


def test_check_mode_marks_the_holders_outside_the_stack_and_says_what_would_be_done():
    fake = HeldGroup()
    fake.eni["Attachment"] = None  # an unattached interface: the remedy would delete it
    fake.eni["Status"] = "available"
    td, st, msg = run(fake, check_mode=True, clear=["release_dependencies"])
    assert msg is None and not [c for c in fake.calls if c.startswith(("Delete", "Modify"))]
    r = td.refusals[0]
    assert r["action"].startswith("would stop: eni-1 is outside the stack p")
    assert "release_outside_stack" in r["action"] and "delete it" in r["action"]
    assert r["holders"] == [{"kind": "eni", "id": "eni-1", "outside_stack": True,
                             "what": "network interface eni-1 (available) uses sg-1; outside the stack: the remedy "
                                     "would delete it"}]
    # named, the plan would clear it
    td, st, msg = run(HeldGroup(), check_mode=True, clear=["release_dependencies"], release_outside_stack=["eni-1"])
    assert td.refusals[0]["action"] == "would clear" and td.refusals[0]["holders"][0]["outside_stack"] is True


def test_check_mode_on_a_refusing_stack_names_the_holder_outside_it():
    fake = HeldGroup()
    fake.status = fake.group_status = "DELETE_FAILED"
    td, st, msg = run(fake, check_mode=True, clear=["release_dependencies"])
    assert "eni-1 is outside the stack p" in msg and fake.mutations == []
    assert td.refusals[0]["holders"][0]["outside_stack"] is True


class HeldPolicy(FakeAWS):
    """A stack whose managed policy refuses while it is attached: to the stack's own role and to a role that is not
    the stack's."""

    POLICY = "arn:aws:iam::1:policy/p-policy"

    def __init__(self, **kw):
        super(HeldPolicy, self).__init__(objects=0, **kw)
        self.policy_status = "CREATE_COMPLETE"
        self.roles = ["p-own-role", "their-role"]
        self.detached = []

    def list_stack_resources(self, StackName, **kw):
        self.calls.append("ListStackResources")
        reason = "Cannot delete a policy attached to entities. (Service: Iam; Status Code: 409; Error Code: " \
                 "DeleteConflict)" if self.policy_status == "DELETE_FAILED" else None
        return {"StackResourceSummaries": [
            {"LogicalResourceId": "Policy", "PhysicalResourceId": self.POLICY, "ResourceType": "AWS::IAM::ManagedPolicy",
             "ResourceStatus": self.policy_status, "ResourceStatusReason": reason},
            {"LogicalResourceId": "Role", "PhysicalResourceId": "p-own-role", "ResourceType": "AWS::IAM::Role",
             "ResourceStatus": "DELETE_COMPLETE" if "p-own-role" not in self.roles else "CREATE_COMPLETE"}]}

    def delete_stack(self, StackName, RetainResources=None):
        self.calls.append("DeleteStack")
        if self.roles and not (RetainResources and self.retain_ok):
            self.status = self.policy_status = "DELETE_FAILED"
        else:
            self.status = "DELETE_COMPLETE"
        return {}

    def list_entities_for_policy(self, PolicyArn, **kw):
        self.calls.append("ListEntitiesForPolicy")
        return {"PolicyRoles": [{"RoleName": r} for r in self.roles], "PolicyUsers": [], "PolicyGroups": []}

    def list_policy_versions(self, PolicyArn, **kw):
        return {"Versions": [{"VersionId": "v1", "IsDefaultVersion": True}]}

    def detach_role_policy(self, RoleName, PolicyArn):
        self.calls.append("DetachRolePolicy")
        self.detached.append(RoleName)
        self.roles.remove(RoleName)
        return {}


def test_a_policy_is_not_detached_from_a_role_outside_the_stack():
    fake = HeldPolicy()
    td, st, msg = run(fake, clear=["detach_iam"])
    assert fake.detached == [] and fake.status == "DELETE_FAILED"
    assert "their-role is outside the stack p" in msg and "p-own-role is outside" not in msg
    assert "to let the remedy detach policy %s from it" % HeldPolicy.POLICY in msg
    assert [(h["id"], h["outside_stack"]) for h in td.refusals[0]["holders"]] == [
        ("p-own-role", False), ("their-role", True)]


def test_a_policy_is_detached_from_the_stacks_own_role_and_from_one_named():
    fake = HeldPolicy()
    fake.roles = ["p-own-role"]
    td, st, msg = run(fake, clear=["detach_iam"])
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE" and fake.detached == ["p-own-role"]
    fake = HeldPolicy()
    td, st, msg = run(fake, clear=["detach_iam"], release_outside_stack=["their-role"])
    assert msg is None and st["StackStatus"] == "DELETE_COMPLETE" and fake.detached == ["p-own-role", "their-role"]
