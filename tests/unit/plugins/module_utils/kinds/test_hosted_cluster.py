# -*- coding: utf-8 -*-
"""kinds/hosted_cluster.py: the destroy's plan (finalizer, annotation, delete, AWS, release), its
report claims and verdict, the hint rules it adds to the diagnosis, and its AWS actions.
The plan tests moved here from test_kind_plans.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster, registry


VPC, SUBNET = "AWS::EC2::VPC", "AWS::EC2::Subnet"


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


def test_hosted_cluster_deleting_is_read_from_its_deletion_timestamp_text():
    facts = {"cluster": CLUSTER, "present": "True", "deleting": "2026-12-04T10:00:00Z", "cli_finalizer_on": "False", "manifest": {}}
    actions = [e["action"] for e in registry.planner("hosted_cluster")(facts, {})["entries"]]
    assert "delete" not in actions and "add finalizer" not in actions
    assert actions[-1] == "remove finalizer"
