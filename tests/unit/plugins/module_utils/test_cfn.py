"""CloudFormation refusals: classification from AWS's own wording, the remedy decision, the order of a
set of stacks, and the delete loop against a fake CloudFormation that refuses until the cause is cleared."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.cfn import teardown as cfn
from ansible_collections.teardown.gates.plugins.module_utils.cfn import classify as cfn_classify
from ansible_collections.teardown.gates.plugins.module_utils.cfn import remedies as cfn_remedies
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import CheckModeViolation, Clients


@pytest.mark.parametrize("reason,rtype,expected", [
    ("The bucket you tried to delete is not empty (Service: Amazon S3; Status Code: 409; Error Code: BucketNotEmpty;"
     " Request ID: 1)", "AWS::S3::Bucket", cfn_classify.BUCKET_NOT_EMPTY),
    ('Resource handler returned message: "The bucket you tried to delete is not empty (Service: S3, Status Code: 409)"',
     "AWS::S3::Bucket", cfn_classify.BUCKET_NOT_EMPTY),
    ("Cannot delete entity, must detach all policies first. (Service: AmazonIdentityManagement; Status Code: 409; "
     "Error Code: DeleteConflict; Request ID: 2)", "AWS::IAM::Role", cfn_classify.DELETE_CONFLICT),
    ("Cannot delete entity, must remove roles from instance profile first.", "AWS::IAM::Role", cfn_classify.DELETE_CONFLICT),
    ("Cannot delete entity, must delete policies first.", "AWS::IAM::Role", cfn_classify.DELETE_CONFLICT),
    ("resource sg-0abc has a dependent object (Service: AmazonEC2; Status Code: 400; Error Code: "
     "DependencyViolation)", "AWS::EC2::SecurityGroup", cfn_classify.DEPENDENCY_VIOLATION),
    ("The subnet 'subnet-1' has dependencies and cannot be deleted.", "AWS::EC2::Subnet", cfn_classify.DEPENDENCY_VIOLATION),
    ("Cannot delete protected Cluster, please disable deletion protection and try again. (Service: Rds, Status "
     "Code: 400)", "AWS::RDS::DBCluster", cfn_classify.DELETION_PROTECTION),
    ("Cannot delete protected DB Instance, please disable deletion protection and try again.",
     "AWS::RDS::DBInstance", cfn_classify.DELETION_PROTECTION),
    ("Embedded stack arn:aws:cloudformation:us-east-1:123:stack/p-parent-Child-1/x was not successfully deleted: "
     "The following resource(s) failed to delete: [Bucket]. ", "AWS::CloudFormation::Stack", cfn_classify.CHILD_STACK_FAILED),
    ("The following resource(s) failed to delete: [Bucket].", "AWS::CloudFormation::Stack", cfn_classify.CHILD_STACK_FAILED),
    ("Export p-exporter-VpcId cannot be deleted as it is in use by p-importer", None, cfn_classify.EXPORT_IN_USE),
    ("Stack [p-protected] cannot be deleted while TerminationProtection is enabled", None,
     cfn_classify.TERMINATION_PROTECTION),
    ("Rate exceeded (Service: AmazonEC2; Status Code: 400; Error Code: RequestLimitExceeded)",
     "AWS::EC2::SecurityGroup", cfn_classify.TRANSIENT),
    ("We encountered an internal error (Service: Amazon S3; Status Code: 500; Error Code: InternalError)",
     "AWS::S3::Bucket", cfn_classify.TRANSIENT),
    ("Access Denied (Service: Amazon S3; Status Code: 403; Error Code: AccessDenied)", "AWS::S3::Bucket", cfn_classify.OTHER),
    ("", "AWS::S3::Bucket", cfn_classify.OTHER),
])
def test_classify(reason, rtype, expected):
    assert cfn_classify.classify(reason, rtype) == expected


def test_error_code_wins_over_wording():
    # the wording mentions a dependent object, the service's code says the bucket is not empty
    assert cfn_classify.classify("x has a dependent object (Error Code: BucketNotEmpty)") == cfn_classify.BUCKET_NOT_EMPTY


@pytest.mark.parametrize("cls,clear,kw,expected", [
    (cfn_classify.BUCKET_NOT_EMPTY, ["empty_buckets"], {}, "clear"),
    (cfn_classify.BUCKET_NOT_EMPTY, ["detach_iam"], {}, "stop"),
    (cfn_classify.BUCKET_NOT_EMPTY, [], {"retain_unclearable": True}, "retain"),
    (cfn_classify.DELETE_CONFLICT, ["detach_iam"], {"attempts": 3}, "stop"),
    (cfn_classify.DELETE_CONFLICT, ["detach_iam"], {"attempts": 3, "retain_unclearable": True}, "retain"),
    (cfn_classify.TRANSIENT, [], {}, "retry"),
    (cfn_classify.TRANSIENT, [], {"attempts": 3}, "stop"),
    (cfn_classify.TERMINATION_PROTECTION, [], {}, "stop"),
    (cfn_classify.TERMINATION_PROTECTION, [], {"disable_termination_protection": True}, "clear"),
    (cfn_classify.EXPORT_IN_USE, list(cfn_classify.CLEAR_CHOICES), {"retain_unclearable": True}, "stop"),
    (cfn_classify.OTHER, list(cfn_classify.CLEAR_CHOICES), {}, "stop"),
    (cfn_classify.CHILD_STACK_FAILED, ["nested"], {}, "clear"),
])
def test_decide(cls, clear, kw, expected):
    assert cfn_classify.decide(cls, clear, **kw)[0] == expected


@pytest.mark.parametrize("cls,option", [
    (cfn_classify.BUCKET_NOT_EMPTY, "clear: [empty_buckets]"), (cfn_classify.DELETE_CONFLICT, "clear: [detach_iam]"),
    (cfn_classify.DELETION_PROTECTION, "clear: [disable_deletion_protection]"),
    (cfn_classify.DEPENDENCY_VIOLATION, "clear: [release_dependencies]"), (cfn_classify.CHILD_STACK_FAILED, "clear: [nested]"),
    (cfn_classify.TERMINATION_PROTECTION, "disable_termination_protection=true"), (cfn_classify.OTHER, "retain_unclearable=true"),
])
def test_stop_names_the_option(cls, option):
    action, detail = cfn_classify.decide(cls, [])
    assert action == "stop" and option in detail


def s(name, **kw):
    d = dict(name=name, id="arn:" + name)
    d.update(kw)
    return d


def test_order_importers_before_exporters():
    stacks = [s("exporter", exports=["vpc"]), s("importer", imports=["vpc"], exports=["sub"]),
              s("leaf", imports=["sub"]), s("alone")]
    ordered, handled = cfn_classify.order_stacks(stacks)
    names = [x["name"] for x in ordered]
    assert names.index("leaf") < names.index("importer") < names.index("exporter")
    assert set(names) == {"exporter", "importer", "leaf", "alone"} and handled == []


def test_order_parent_handles_child_and_child_imports_count_for_parent():
    stacks = [s("exporter", exports=["vpc"]), s("parent"), s("child", parent_id="arn:parent", imports=["vpc"])]
    ordered, handled = cfn_classify.order_stacks(stacks)
    assert [x["name"] for x in ordered] == ["parent", "exporter"]
    assert [x["name"] for x in handled] == ["child"]


def test_order_child_without_parent_in_set_runs_alone():
    ordered, handled = cfn_classify.order_stacks([s("child", parent_id="arn:elsewhere")])
    assert [x["name"] for x in ordered] == ["child"] and handled == []


def test_order_cycle_is_an_error():
    with pytest.raises(cfn_classify.OrderError, match="a, b"):
        cfn_classify.order_stacks([s("a", exports=["x"], imports=["y"]), s("b", exports=["y"], imports=["x"])])


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


def test_template_imports_from_dict_json_and_yaml():
    assert cfn_classify.template_imports({"Resources": {"P": {"Properties": {"Value": {"Fn::ImportValue": "x-Arn"}}}}}) == [
        "x-Arn"]
    assert cfn_classify.template_imports('{"Resources": {"P": {"Properties": {"V": {"Fn::ImportValue": "y"}}}}}') == ["y"]
    yaml_text = "Resources:\n  P:\n    Properties:\n      V: !ImportValue z-Vpc\n      W:\n        Fn::ImportValue: w\n"
    assert sorted(cfn_classify.template_imports(yaml_text)) == ["w", "z-Vpc"]
    # built at run time: unknown, said so
    assert cfn_classify.template_imports({"R": {"Fn::ImportValue": {"Fn::Sub": "${Env}-vpc"}}}) == [None]


def test_order_from_info():
    def facts(name, parent=None, exports=(), template=None, status="DELETE_FAILED"):
        return {"stack_description": {"stack_id": "arn:" + name, "stack_name": name, "parent_id": parent,
                                      "stack_status": status,
                                      "outputs": [{"output_key": "O", "export_name": e} for e in exports]},
                "stack_template": template or {}}
    info = {"exp": facts("exp", exports=["exp-Arn"]),
            "imp": facts("imp", template={"R": {"Fn::ImportValue": "exp-Arn"}}),
            "par": facts("par"), "par-Child-1": facts("par-Child-1", parent="arn:par"),
            "other": facts("other")}
    out = cfn_classify.order_from_info(info)
    names = [s["name"] for s in out["order"]]
    assert names.index("imp") < names.index("exp") and "par-Child-1" not in names
    assert [s["after"] for s in out["order"] if s["name"] == "exp"] == [["imp"]]
    assert out["handled_by_parent"] == [{"name": "par-Child-1", "id": "arn:par-Child-1", "parent_id": "arn:par"}]
    chosen = cfn_classify.order_from_info(info, names=["par", "arn:exp"])
    assert [s["name"] for s in chosen["order"]] == ["par", "exp"] or [s["name"] for s in chosen["order"]] == [
        "exp", "par"]
    assert [s["name"] for s in chosen["handled_by_parent"]] == ["par-Child-1"]


def test_order_from_info_finds_children_without_parent_id():
    info = {"par": {"stack_description": {"stack_id": "arn:par", "stack_status": "DELETE_FAILED"},
                    "stack_resource_list": [{"resource_type": "AWS::CloudFormation::Stack",
                                             "physical_resource_id": "arn:kid"}]},
            "kid": {"stack_description": {"stack_id": "arn:kid", "stack_status": "DELETE_FAILED"}}}
    out = cfn_classify.order_from_info(info)
    assert [s["name"] for s in out["order"]] == ["par"]
    assert [s["name"] for s in out["handled_by_parent"]] == ["kid"]


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
