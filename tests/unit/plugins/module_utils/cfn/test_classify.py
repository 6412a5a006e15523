# -*- coding: utf-8 -*-
"""cfn/classify.py: a CloudFormation refusal classified from AWS's own wording, the remedy decision, the order
of a set of stacks and the imports a template names. Split out of test_cfn.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.cfn import classify as cfn_classify


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


def test_order_from_info_keeps_a_protected_stack_and_what_it_holds():
    def facts(name, parent=None, exports=(), imports=(), tags=None):
        return {"stack_description": {"stack_id": "arn:" + name, "stack_name": name, "parent_id": parent,
                                      "stack_status": "DELETE_FAILED",
                                      "outputs": [{"output_key": "O", "export_name": e} for e in exports]},
                "stack_template": {"R": [{"Fn::ImportValue": i} for i in imports]}, "stack_tags": tags or {}}
    on = {"teardown.gates/protected": "TRUE", "team": "a"}
    info = {"exp": facts("exp", exports=["exp-Arn"]), "imp": facts("imp", imports=["exp-Arn"], tags=on),
            "par": facts("par"), "par-Child-1": facts("par-Child-1", parent="arn:par", tags=on),
            "other": facts("other", tags={"teardown.gates/protected": "false"}),
            "top": facts("top", tags=on), "top-Kid": facts("top-Kid", parent="arn:top")}
    out = cfn_classify.order_from_info(info)
    assert [s["name"] for s in out["order"]] == ["other"] and out["handled_by_parent"] == []
    reasons = dict((k["name"], k["reason"]) for k in out["kept"])
    assert reasons == {"imp": "tagged teardown.gates/protected", "par-Child-1": "tagged teardown.gates/protected",
                       "top": "tagged teardown.gates/protected",
                       "exp": "stack imp, kept, imports its export exp-Arn",
                       "par": "nested stack par-Child-1 is kept", "top-Kid": "its parent top is kept"}
    plain = dict((n, dict(f, stack_tags={})) for n, f in info.items())
    assert cfn_classify.order_from_info(plain)["kept"] == []


def test_order_from_info_keeps_a_stack_younger_than_min_age_and_what_it_holds():
    import datetime
    now = datetime.datetime(2026, 12, 5, 2, 0, 0, tzinfo=datetime.timezone.utc)

    def facts(name, created, imports=(), exports=()):
        # cloudformation_info's creation_time, as boto3's datetime comes out of it
        return {"stack_description": {"stack_id": "arn:" + name, "stack_name": name, "stack_status": "DELETE_FAILED",
                                      "creation_time": created,
                                      "outputs": [{"output_key": "O", "export_name": e} for e in exports]},
                "stack_template": {"R": [{"Fn::ImportValue": i} for i in imports]}, "stack_tags": {}}
    info = {"old": facts("old", "2026-11-01T00:00:00.123000+00:00"),
            "young": facts("young", "2026-12-05T01:30:00.500000+00:00", imports=["net-Vpc"]),
            "net": facts("net", "2026-11-01T00:00:00+00:00", exports=["net-Vpc"])}
    out = cfn_classify.order_from_info(info, min_age="1h", now=now)
    assert [s["name"] for s in out["order"]] == ["old"]
    assert dict((k["name"], k["reason"]) for k in out["kept"]) == {
        "young": "created 2026-12-05T01:30:00Z, less than min_age (3600 s) ago",
        "net": "stack young, kept, imports its export net-Vpc"}
    # min_age 0 (the default) is off: every stack is ordered
    assert sorted(s["name"] for s in cfn_classify.order_from_info(info, now=now)["order"]) == ["net", "old", "young"]
    assert cfn_classify.order_from_info(info, min_age=0, now=now)["kept"] == []
