# -*- coding: utf-8 -*-
"""kinds/cfn.py: the CloudFormation kind's plan (each refusal cleared before its stack, in the stacks' order),
its verdict and the AWS actions its options need.
The plan tests moved here from test_kind_plans.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import cfn, registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib


def test_cfn_clears_each_refusal_before_its_stack_in_the_stacks_order():
    order = {"order": [{"name": "importer", "id": "arn:imp"}, {"name": "exporter", "id": "arn:exp"}],
             "handled_by_parent": [{"name": "child", "id": "arn:child", "parent_id": "arn:exp"}], "unknown_imports": []}
    info = {"exporter": {"stack_resource_list": [
        {"resource_type": "AWS::S3::Bucket", "physical_resource_id": "bkt", "resource_status": "DELETE_FAILED"},
        {"resource_type": "AWS::SNS::Topic", "physical_resource_id": "t", "resource_status": "DELETE_COMPLETE"}]}}
    plan = registry.planner("cfn")({"order": order, "info": info, "missing": ["gone"]}, {"stack_prefix": "x-"})
    assert [(e["order"], e["action"], e["id"]) for e in plan["entries"]] == [
        (10, "delete", "arn:imp"), (19, "clear refusal", "bkt"), (20, "delete", "arn:exp")]
    assert {k["id"] for k in plan["kept"]} == {"arn:child", "gone"}
    assert plan["unknown"][0]["rule"].startswith("discovered at run time by the stack's DELETE_FAILED events")


def test_a_stack_with_a_malformed_resource_list_is_deleted_and_an_unknown_import_is_left_to_run_time():
    order = {"order": [{"name": "solo"}], "unknown_imports": ["dyn"]}
    plan = cfn.plan({"order": order, "info": {"solo": {"stack_resource_list": [None, "x"]}}},
                    {"stacks": ["b", "a"], "aws_region": "eu-west-1", "ignored": 1})
    # a stack without an ID is named; a malformed resource row is not a refusal
    assert [(e["order"], e["action"], e["id"]) for e in plan["entries"]] == [(10, "delete", "solo")]
    assert sorted(u["what"] for u in plan["unknown"]) == [
        "how each refusal is cleared (emptied, deleted, or retained)",
        "the stacks that import from dyn (its imports name a value known only then)"]
    assert plan["options"] == {"stacks": ["a", "b"]}


def test_claims_a_report_that_lists_stacks():
    assert cfn.claims({"stacks": []}) and not cfn.claims({"gates": []})


def test_verdict_counts_the_stacks_not_deleted_or_gone():
    assert cfn.verdict({"stacks": [{"status": "DELETE_COMPLETE"}, {"status": "NOT_FOUND"}]}) == (
        "ok", "every stack deleted")
    assert cfn.verdict({"stacks": [{"status": "DELETE_FAILED"}, {}, {"status": "DELETE_COMPLETE"}]}) == (
        "bad", "2 stack(s) not deleted")
    assert cfn.verdict({}) == ("ok", "every stack deleted")


def test_aws_actions_are_the_delete_the_roles_lookup_and_only_the_remedies_allowed():
    assert cfn.aws_actions() == tuple(sorted(set(cfn.AWS_DELETE_ACTIONS + cfn.AWS_LOOKUP_ACTIONS)))
    assert "cloudformation:GetTemplate" in cfn.aws_actions()
    with_buckets = cfn.aws_actions(clear=["empty_buckets"], disable_termination_protection=True)
    assert "s3:ListBucketVersions" in with_buckets and "cloudformation:UpdateTerminationProtection" in with_buckets
    assert "iam:DetachRolePolicy" not in with_buckets
    assert list(with_buckets) == sorted(set(with_buckets))
    assert cfn.aws_actions(clear=["nested"]) == cfn.aws_actions()


def test_every_clear_choice_has_its_actions():
    from ansible_collections.teardown.gates.plugins.module_utils.cfn.classify import CLEAR_CHOICES
    assert set(CLEAR_CHOICES) <= set(cfn.AWS_REMEDY_ACTIONS)


def test_the_chart_marks_each_refusal_and_each_delete_after_the_first():
    ev = [{"type": "AWS::CloudFormation::Stack", "status": s, "timestamp": "2026-01-01T00:00:%02dZ" % t}
          for s, t in (("DELETE_IN_PROGRESS", 0), ("DELETE_FAILED", 5), ("DELETE_IN_PROGRESS", 8),
                       ("DELETE_COMPLETE", 12))]
    report = {"started": "2026-01-01T00:00:00Z", "finished": "2026-01-01T00:00:20Z", "stacks": [
        {"stack": "p", "status": "DELETE_COMPLETE", "events": ev,
         "refusals": [{"logical_id": "Logs", "class": "BucketNotEmpty", "remedy": "empty_buckets", "action": "clear"}]},
        {"stack": "q", "status": "NOT_FOUND"}]}
    rows = cfn.chart(report)["rows"]
    assert [m["label"] for m in rows[0]["marks"]] == ["DELETE_FAILED", "deleted again"]
    assert rows[0]["note"] == "Logs BucketNotEmpty: empty_buckets, clear"
    assert rows[1]["note"] == "already gone"


def test_cfn_a_protected_stack_is_kept_with_the_reason_and_changes_the_digest():
    order = {"order": [{"name": "a", "id": "arn:a"}, {"name": "b", "id": "arn:b"}], "handled_by_parent": [],
             "unknown_imports": [], "kept": []}
    plain = registry.planner("cfn")({"order": order}, {"stack_prefix": "x-"})
    order = dict(order, order=[{"name": "a", "id": "arn:a"}],
                 kept=[{"name": "b", "id": "arn:b", "reason": "tagged teardown.gates/protected"}])
    kept = registry.planner("cfn")({"order": order}, {"stack_prefix": "x-"})
    assert [e["id"] for e in kept["entries"]] == ["arn:a"]
    assert kept["kept"] == [{"type": "AWS::CloudFormation::Stack", "id": "arn:b", "reason": "tagged teardown.gates/protected"}]
    assert planlib.plan_digest(plain) != planlib.plan_digest(kept)


def test_cfn_a_young_stack_is_kept_with_the_reason_and_min_age_is_in_the_digest():
    young = "created 2026-12-05T01:30:00Z, less than min_age (3600 s) ago"
    order = {"order": [{"name": "a", "id": "arn:a"}], "handled_by_parent": [], "unknown_imports": [],
             "kept": [{"name": "b", "id": "arn:b", "reason": young}]}
    p = registry.planner("cfn")({"order": order}, {"stack_prefix": "x-", "min_age": 3600})
    assert [e["id"] for e in p["entries"]] == ["arn:a"]
    assert p["kept"] == [{"type": "AWS::CloudFormation::Stack", "id": "arn:b", "reason": young}]
    assert p["options"]["min_age"] == 3600
    off = registry.planner("cfn")({"order": dict(order, kept=[])}, {"stack_prefix": "x-", "min_age": 0})
    assert planlib.plan_digest(off) != planlib.plan_digest(p)
