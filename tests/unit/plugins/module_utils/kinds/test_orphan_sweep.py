# -*- coding: utf-8 -*-
"""kinds/orphan_sweep.py: the sweep's plan (the orphans' IDs in dependency order, IAM last or kept out),
its digest, and the AWS actions the sweep needs.
The plan tests moved here from test_kind_plans.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import orphan_sweep, registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as p


VPC, SUBNET, ROLE = "AWS::EC2::VPC", "AWS::EC2::Subnet", "AWS::IAM::Role"


def ids(plan, action="delete"):
    return [(e["order"], e["type"], e["id"]) for e in plan["entries"] if e["action"] == action]


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


def test_the_plan_of_no_orphan_has_nothing_known_only_at_run_time_and_keeps_each_infra_id_with_why():
    facts = {"found": {"infra_ids": [{"infra_id": "young-d", "status": "young", "reason": "created 2h ago"},
                                     "not a row"]}}
    plan = orphan_sweep.plan(facts, {"aws_region": "eu-west-1", "management_contexts": ["b", "a"]})
    assert plan["entries"] == [] and plan["unknown"] == []
    assert [(k["type"], k["id"], k["reason"]) for k in plan["kept"]] == [
        ("infra ID", "young-d", "young: created 2h ago")]
    assert plan["target"] == {"region": "eu-west-1", "management_contexts": ["a", "b"]}


def test_orphans_are_swept_one_after_another_in_infra_id_order():
    manifest = {VPC: ["vpc-1"]}
    rows = [{"infra_id": "b", "status": "orphan", "manifest": manifest},
            {"infra_id": "a", "status": "orphan", "manifest": {VPC: ["vpc-2"]}}]
    plan = orphan_sweep.plan({"found": {"infra_ids": rows}}, {})
    # orphan n's deletes are steps n*100 + level: a (first by ID) before b
    assert [(e["id"], e["order"] // 100) for e in plan["entries"]] == [("vpc-2", 0), ("vpc-1", 1)]


def test_a_protected_id_given_as_a_bare_string_is_kept_as_a_resource():
    rows = [{"infra_id": "p", "status": "protected", "reason": "tag", "protected": ["sg-1"]}]
    kept = orphan_sweep.plan({"found": {"infra_ids": rows}}, {})["kept"]
    assert ("resource", "sg-1", "tagged teardown.gates/protected (of p)") in [
        (k["type"], k["id"], k["reason"]) for k in kept]


def test_aws_actions_scan_always_and_clean_up_only_when_the_sweep_deletes():
    from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster
    scan = orphan_sweep.aws_actions(sweep_delete=False)
    assert scan == tuple(sorted(orphan_sweep.AWS_SCAN_ACTIONS))
    full = orphan_sweep.aws_actions()
    assert set(full) == set(scan) | set(hosted_cluster.aws_actions())
    assert list(full) == sorted(set(full))
