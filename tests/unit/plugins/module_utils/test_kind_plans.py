# -*- coding: utf-8 -*-
"""Each kind's plan (#33), built from what its role read before its first change: by ID, in order, with the
options that shaped it; what is kept out says why; what is only known at run time says by which rule."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as p

VPC, SUBNET, ROLE = "AWS::EC2::VPC", "AWS::EC2::Subnet", "AWS::IAM::Role"


def ids(plan, action="delete"):
    return [(e["order"], e["type"], e["id"]) for e in plan["entries"] if e["action"] == action]


@pytest.mark.parametrize("name", registry.names())
def test_every_kind_has_a_planner_that_gives_a_canonical_plan_for_an_empty_world(name):
    plan = registry.planner(name)({}, {})
    assert plan["kind"] == name and plan["entries"] == []
    assert plan == p.canonical(plan)


# orphan_sweep


def found(extra_subnet=False, order=1):
    manifest = {VPC: ["vpc-1"], SUBNET: ["subnet-1"] + (["subnet-2"] if extra_subnet else []), ROLE: ["r-1"]}
    rows = [
        {"infra_id": "orph-a", "status": "orphan", "reason": "no HostedCluster", "manifest": manifest, "protected": []},
        {"infra_id": "live-b", "status": "live", "reason": "HostedCluster ns/b has spec.infraID live-b", "manifest": {}},
        {"infra_id": "prot-c", "status": "protected", "reason": "tagged", "manifest": {},
         "protected": [{"type": VPC, "id": "vpc-9"}], "oldest_created": "2026-01-01T00:00:00Z"},
    ]
    return {"found": {"infra_ids": rows[::order]}}


SWEEP_OPTIONS = {"preserve_iam": False, "aws_region": "us-east-1", "management_contexts": ["m2", "m1"], "min_age_seconds": 86400}


def test_orphan_sweep_deletes_the_orphans_ids_in_dependency_order_iam_last():
    plan = registry.planner("orphan_sweep")(found(), SWEEP_OPTIONS)
    assert ids(plan) == [(0, SUBNET, "subnet-1"), (1, VPC, "vpc-1"), (2, ROLE, "r-1")]
    assert plan["target"] == {"region": "us-east-1", "management_contexts": ["m1", "m2"]}
    assert plan["options"] == {"preserve_iam": False, "min_age_seconds": 86400}
    kept = dict((k["id"], k["reason"]) for k in plan["kept"])
    assert kept["live-b"].startswith("live: HostedCluster ns/b")
    assert "teardown.gates/protected" in kept["vpc-9"]
    assert plan["unknown"][0]["rule"].startswith("discovered at run time by the re-check")


def test_orphan_sweep_digest_is_stable_and_a_resource_tagged_into_scope_changes_it():
    planner = registry.planner("orphan_sweep")
    a = p.plan_digest(planner(found(), SWEEP_OPTIONS))
    assert a == p.plan_digest(planner(found(order=-1), SWEEP_OPTIONS))
    grown = planner(found(extra_subnet=True), SWEEP_OPTIONS)
    assert p.plan_digest(grown) != a
    assert [e["id"] for e in p.diff(planner(found(), SWEEP_OPTIONS), grown)["added"]] == ["subnet-2"]


def test_orphan_sweep_preserve_iam_keeps_iam_out_of_the_plan():
    plan = registry.planner("orphan_sweep")(found(), dict(SWEEP_OPTIONS, preserve_iam=True))
    assert (2, ROLE, "r-1") not in ids(plan)
    assert {"type": ROLE, "id": "r-1", "reason": "preserve_iam (of orph-a)"} in plan["kept"]


# hosted_cluster

CLUSTER = {"namespace": "clusters", "name": "hc1", "uid": "u-1", "infra_id": "hc1-x", "region": "us-east-1", "hcp_namespace": "clusters-hc1"}


def test_hosted_cluster_plan_finalizer_annotation_delete_then_aws_then_release():
    facts = {"cluster": CLUSTER, "present": True, "deleting": False, "cli_finalizer_on": False, "cleanup_preexisting": False,
             "nodepools": ["np-b", "np-a"], "manifest": {VPC: ["vpc-1"], SUBNET: ["subnet-1"]}}
    options = {"destroy_cloud_resources": True, "preserve_iam": False, "skip_namespace_delete": False, "resumed": True}
    plan = registry.planner("hosted_cluster")(facts, options)
    actions = [(e["order"], e["action"], e["id"]) for e in plan["entries"]]
    assert actions[:3] == [(1, "add finalizer", "clusters/hc1"), (2, "annotate", "clusters/hc1"), (3, "delete", "clusters/hc1")]
    assert (4, "deleted by HyperShift", "clusters/np-a") in actions
    assert (4, "deleted by HyperShift", "clusters-hc1") in actions
    assert (10, "delete", "subnet-1") in actions and (11, "delete", "vpc-1") in actions
    assert actions[-1] == (90, "remove finalizer", "clusters/hc1")
    assert "resumed" not in plan["options"]  # how the run began is not part of what it would do
    assert any("discovered at run time by HyperShift" in u["rule"] for u in plan["unknown"])


def test_hosted_cluster_already_gone_plans_the_aws_ids_only():
    facts = {"cluster": CLUSTER, "present": False, "manifest": {VPC: ["vpc-1"]}}
    plan = registry.planner("hosted_cluster")(facts, {})
    assert [(e["action"], e["id"]) for e in plan["entries"]] == [("delete", "vpc-1")]


# release_prune


def test_release_prune_batches_the_releases_and_lists_what_convoy_prunes():
    info = {"releases": [
        {"name": "r2", "uid": "u2", "state": "present", "deleting": False,
         "inventory": {"entries": [{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "app", "name": "cm"}]}},
        {"name": "r1", "uid": "u1", "state": "present", "deleting": True, "inventory": {"entries": []}},
    ], "absent_names": ["r0"], "clusters": []}
    plan = registry.planner("release_prune")({"info": info}, {"namespace": "team-a", "batch_size": 1, "prune_cluster": False, "timeout": 600})
    assert [(e["order"], e["action"], e["id"]) for e in plan["entries"]] == [
        (10, "wait", "team-a/r1"), (12, "delete", "team-a/r2"), (13, "pruned by convoy", "app/cm")]
    assert "timeout" not in plan["options"]
    assert plan["kept"] == [{"type": "Release", "id": "team-a/r0", "reason": "already absent"}]


# cfn


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


# held_deletion


def test_held_deletion_plans_restores_then_abandons_and_keeps_the_rest():
    decided = [{"name": "b", "uid": "ub", "action": "abandon"}, {"name": "a", "uid": "ua", "action": "restore", "backup_serial": 7},
               {"name": "c", "uid": "uc", "action": "none", "reason": "DependentsExist"}]
    plan = registry.planner("held_deletion")({"plan": decided}, {"namespace": "ns", "held_kind": "Workspace", "abandon_uid": "ub"})
    assert [(e["order"], e["action"], e["id"]) for e in plan["entries"]] == [(1, "restore", "ns/a"), (2, "abandon", "ns/b")]
    assert "backup serial 7" in plan["entries"][0]["detail"]
    assert plan["kept"] == [{"type": "Workspace", "id": "ns/c", "reason": "left alone: DependentsExist"}]


def test_hosted_cluster_deleting_is_read_from_its_deletion_timestamp_text():
    facts = {"cluster": CLUSTER, "present": "True", "deleting": "2026-12-04T10:00:00Z", "cli_finalizer_on": "False", "manifest": {}}
    actions = [e["action"] for e in registry.planner("hosted_cluster")(facts, {})["entries"]]
    assert "delete" not in actions and "add finalizer" not in actions
    assert actions[-1] == "remove finalizer"
