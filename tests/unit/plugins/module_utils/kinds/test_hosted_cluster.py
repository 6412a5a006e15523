# -*- coding: utf-8 -*-
"""kinds/hosted_cluster.py: the destroy's plan (finalizer, annotation, delete, AWS, release), its
report claims and verdict, the hint rules it adds to the diagnosis, and its AWS actions.
The plan tests moved here from test_kind_plans.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster, registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib


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


def view(conditions=(), finalizers=(), kind="HostedCluster"):
    # the shape diagnosis.inspect_next hands each rule
    return {"conditions": list(conditions), "finalizers": list(finalizers), "kind": kind}


def test_cloud_resources_rule_quotes_the_condition_until_it_is_true():
    crd = {"type": "CloudResourcesDestroyed", "status": "False", "reason": "Waiting", "message": "2 ELBs left"}
    assert hosted_cluster.cloud_resources_rule(view([crd])) == [
        ("first", "CloudResourcesDestroyed=False (Waiting): 2 ELBs left")]
    no_message = dict(crd, message="")
    assert hosted_cluster.cloud_resources_rule(view([no_message]))[0][1].endswith(": remaining cloud resources")
    assert hosted_cluster.cloud_resources_rule(view([dict(crd, status="True")])) == []
    assert hosted_cluster.cloud_resources_rule(view()) == []


def test_infrastructure_deletion_rule_fires_on_the_capa_reason_only():
    waiting = {"type": "Ready", "status": "False", "reason": "WaitingForInfrastructureDeletion"}
    assert hosted_cluster.infrastructure_deletion_rule(view(["not a dict", waiting]))[0][0] == "first"
    assert hosted_cluster.infrastructure_deletion_rule(view([dict(waiting, reason="Deleting")])) == []


def test_grace_period_rule_says_the_wait_is_expected():
    hcd = {"type": "HostedClusterDestroyed", "status": "False", "reason": "WaitingForGracePeriod"}
    [(where, hint)] = hosted_cluster.grace_period_rule(view([hcd]))
    assert where == "first" and "expected until it elapses" in hint
    assert hosted_cluster.grace_period_rule(view([dict(hcd, reason="Other")])) == []


def test_cli_finalizer_rule_needs_the_cli_finalizer_alone_on_a_hosted_cluster():
    cli = hosted_cluster.CLI_FINALIZER
    assert hosted_cluster.cli_finalizer_rule(view(finalizers=[cli]))[0][0] == "first"
    assert hosted_cluster.cli_finalizer_rule(view(finalizers=[cli, "hypershift.openshift.io/finalizer"])) == []
    assert hosted_cluster.cli_finalizer_rule(view(finalizers=[cli], kind="NodePool")) == []


def test_the_rules_run_in_their_documented_order():
    assert [order for order, rule in hosted_cluster.HINT_RULES] == [50, 60, 80, 100]


def test_claims_a_report_with_gates_and_a_cluster():
    assert hosted_cluster.claims({"gates": [], "cluster": {}})
    assert not hosted_cluster.claims({"gates": []}) and not hosted_cluster.claims({"cluster": {}})


@pytest.mark.parametrize("report,expected", [
    ({"verified": True, "command_succeeded": True}, ("ok", "verified")),
    ({"command_succeeded": True}, ("warn", "command finished, NOT verified")),
    ({"stopped": {"gate": "HostedControlPlane"}}, ("bad", "NOT finished (stopped at HostedControlPlane)")),
    ({}, ("bad", "NOT finished")),
])
def test_verdict(report, expected):
    assert hosted_cluster.verdict(report) == expected


@pytest.mark.parametrize("value,on", [
    (True, True), (False, False), (None, False), ("", False), ("false", False), (" No ", False), ("off", False),
    ("0", False), ("None", False), ("2026-01-01T00:00:00Z", True), ("true", True), (1, True), (0, False)])
def test_a_role_fact_is_read_as_a_truth(value, on):
    assert hosted_cluster._on(value) is on


def test_a_cluster_the_cli_already_holds_is_not_given_the_finalizer_and_keeps_it_to_the_end():
    facts = {"cluster": CLUSTER, "present": True, "cli_finalizer_on": True, "cleanup_preexisting": True}
    plan = hosted_cluster.plan(facts, {"destroy_cloud_resources": True, "skip_namespace_delete": True,
                                       "not_a_plan_option": 1})
    # annotation already there, namespace kept by option: only the delete; the finalizer is the CLI's (it was on
    # before the run), so this run neither adds nor releases it
    assert [e["action"] for e in plan["entries"]] == ["delete"]
    assert plan["options"] == {"destroy_cloud_resources": True, "skip_namespace_delete": True}


def test_aws_actions_are_the_deletes_and_the_reads_sorted_once():
    actions = hosted_cluster.aws_actions()
    assert list(actions) == sorted(set(actions))
    assert set(actions) == set(hosted_cluster.AWS_DELETE_ACTIONS) | set(hosted_cluster.AWS_WAIT_ACTIONS)
    assert all(":" in a for a in actions)


def test_hosted_cluster_protected_nat_gateway_is_kept_with_what_waits_on_it_and_changes_the_digest():
    nat, eip, igw, rt = "AWS::EC2::NatGateway", "AWS::EC2::EIP", "AWS::EC2::InternetGateway", "AWS::EC2::RouteTable"
    manifest = {VPC: ["vpc-1"], SUBNET: ["subnet-1"], nat: ["nat-1"], eip: ["eip-1"], igw: ["igw-1"], rt: ["rtb-1"],
                "AWS::IAM::Role": ["r-1"]}
    facts = {"cluster": CLUSTER, "present": False, "manifest": manifest}
    plain = registry.planner("hosted_cluster")(facts, {})
    facts["protected"] = [{"type": nat, "id": "nat-1", "reason": "tagged teardown.gates/protected"}]
    kept = registry.planner("hosted_cluster")(facts, {})
    # only the route table waits on nothing the NAT gateway holds: it alone is still deleted
    assert [(e["type"], e["id"]) for e in kept["entries"]] == [(rt, "rtb-1")]
    reasons = dict((k["id"], k["reason"]) for k in kept["kept"])
    assert reasons == {"nat-1": "tagged teardown.gates/protected",
                       "vpc-1": "waits on kept %s nat-1" % nat, "subnet-1": "waits on kept %s nat-1" % nat,
                       "eip-1": "waits on kept %s nat-1" % nat, "igw-1": "waits on kept %s nat-1" % nat,
                       "r-1": "waits on kept %s nat-1" % nat}
    assert planlib.plan_digest(plain) != planlib.plan_digest(kept)
    # protection of an ID the manifest does not hold changes nothing
    facts["protected"] = [{"type": nat, "id": "nat-other", "reason": "tagged teardown.gates/protected"}]
    assert planlib.plan_digest(registry.planner("hosted_cluster")(facts, {})) == planlib.plan_digest(plain)


def test_hosted_cluster_a_young_instance_is_kept_with_what_waits_on_it_and_min_age_is_in_the_digest():
    inst = "AWS::EC2::Instance"
    young = "created 2026-12-05T01:30:00Z, less than min_age (3600 s) ago"
    manifest = {VPC: ["vpc-1"], SUBNET: ["subnet-1"], inst: ["i-new", "i-old"]}
    facts = {"cluster": CLUSTER, "present": False, "manifest": manifest,
             "protected": [{"type": inst, "id": "i-new", "reason": young}]}
    p = registry.planner("hosted_cluster")(facts, {"min_age": 3600})
    assert [(e["type"], e["id"]) for e in p["entries"]] == [(inst, "i-old")]
    reasons = dict((k["id"], k["reason"]) for k in p["kept"])
    assert reasons == {"i-new": young, "subnet-1": "waits on kept %s i-new" % inst, "vpc-1": "waits on kept %s i-new" % inst}
    assert p["options"]["min_age"] == 3600
    off = registry.planner("hosted_cluster")(dict(facts, protected=[]), {"min_age": 0})
    assert sorted(e["id"] for e in off["entries"]) == ["i-new", "i-old", "subnet-1", "vpc-1"]
    assert planlib.plan_digest(off) != planlib.plan_digest(p)


def test_the_page_of_a_stop_before_the_aws_cleanup_lists_what_it_did_not_clean():
    report = {"cluster": {"namespace": "c", "name": "d"}, "aws": {"not_cleaned": [
        {"type": "AWS::EC2::VPC", "id": "vpc-1", "state": "not cleaned: the run stopped before its AWS cleanup"}]}}
    page = hosted_cluster.body(report)
    assert "Not cleaned: the run stopped before its AWS cleanup" in page and "vpc-1" in page
    assert "Not cleaned" not in hosted_cluster.body({"cluster": {}, "aws": {"not_cleaned": []}})
