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
