# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.filter.role_decisions import FilterModule

FILTERS = FilterModule().filters()


def test_each_filter_is_published():
    assert sorted(FILTERS) == [
        "cfn_refusals_missing", "cfn_refusals_stack_error", "cfn_refusals_stack_record", "held_deletion_decision",
        "held_deletion_still_held", "held_deletion_waits", "hosted_cluster_aws_cleanup_runs", "hosted_cluster_aws_verified",
        "hosted_cluster_baseline",
        "hosted_cluster_cli_finalizer_on", "hosted_cluster_input_problems", "hosted_cluster_manifest", "hosted_cluster_report_gates",
        "hosted_cluster_stop_message",
        "hosted_cluster_stop_record", "orphan_sweep_recheck_verdict", "orphan_sweep_record", "orphan_sweep_verified",
        "release_prune_cluster_held", "release_prune_cluster_line", "release_prune_input_problem", "release_prune_selection_problem",
        "teardown_plan", "teardown_plan_digest_problem", "teardown_plan_restrict", "teardown_plan_verdict"]


def test_held_deletion_decision():
    result = {"held": True, "hold_type": "state", "uid": "u", "diagnosis": {"options": [{"action": "restore", "backup_serial": 3}]}}
    assert FILTERS["held_deletion_decision"](result, True, "", "") == {"action": "restore", "backup_serial": 3}
    assert FILTERS["held_deletion_decision"](result, False, "u", "") == {"action": "abandon", "backup_serial": None}
    assert FILTERS["held_deletion_decision"](result, False, "", "") == {"action": "none", "backup_serial": None}


def test_orphan_sweep_filters():
    recheck = {"management_known": True, "infra_ids": [{"infra_id": "i", "status": "orphan"}]}
    assert FILTERS["orphan_sweep_recheck_verdict"](recheck, "i") == {"still": True, "why_not": ""}
    cleanup = {"resources": [{"type": "vpc", "id": "vpc-1", "outcome": "deleted"}], "plan": ["vpc"]}
    record = FILTERS["orphan_sweep_record"](cleanup, "i", True, "", False, "t")
    assert (record["infra_id"], record["outcome"], record["finished"]) == ("i", "destroyed", "t")
    assert FILTERS["orphan_sweep_record"]({}, "i", False, "claimed", False, "t")["outcome"] == "left_alone"


def test_hosted_cluster_filters():
    got = FILTERS["hosted_cluster_baseline"]({}, {"cluster": {"region": "eu-west-1"}}, False)
    assert (got["region"], got["infra_id"]) == ("eu-west-1", "")
    assert FILTERS["hosted_cluster_baseline"]({}, {}, False, env_region="us-east-1")["region"] == "us-east-1"
    assert FILTERS["hosted_cluster_manifest"]({"vpc": ["a"]}, {"vpc": ["b"]}) == {"vpc": ["a", "b"]}
    assert FILTERS["hosted_cluster_aws_cleanup_runs"]({"vpc": ["a"]}) is True
    assert FILTERS["hosted_cluster_aws_cleanup_runs"]({}) is False
    message = FILTERS["hosted_cluster_stop_message"]({"gate": "Phase 5 | x", "message": "m"}, "n", "c", "r")
    assert message == "Teardown of HostedCluster n/c stopped at Phase 5 | x: m (phases that never ran: 6 verify.)  Resume: r"
    assert "(baseline b, report p)" in FILTERS["hosted_cluster_stop_message"]({"gate": "g"}, "n", "c", "r", True, "b", "p")


def test_held_deletion_still_held():
    assert FILTERS["held_deletion_still_held"]({"held": True, "reason": "DestroyFailed"}, "none", False) is True
    assert FILTERS["held_deletion_still_held"]({"held": False, "reason": "Absent"}, "restore", False) is False


def test_orphan_sweep_verified():
    assert FILTERS["orphan_sweep_verified"]([{"outcome": "destroyed", "verified": True}], [{"status": "orphan"}]) is True
    assert FILTERS["orphan_sweep_verified"]([{"outcome": "failed"}], []) is False


def test_hosted_cluster_stop_record():
    assert FILTERS["hosted_cluster_stop_record"]({}, {"name": "t"}, {"msg": "m"}, "r") == {"gate": "t", "message": "m", "resume": "r"}
    refused = FILTERS["hosted_cluster_stop_record"]({}, {"name": "t"}, {"msg": "m"}, "r",
                                                    {"asked": True, "match": False, "message": "m"})
    assert refused["plan_refused"] is True and refused["resume"].startswith("not with the same variables")


def test_the_wrappers_of_the_roles_records_and_messages():
    assert FILTERS["hosted_cluster_input_problems"]("c", "clusters", "", 600, 900, False, 900, "/r") == ""
    assert FILTERS["hosted_cluster_cli_finalizer_on"]({}, False, True, False) is True
    assert FILTERS["hosted_cluster_report_gates"]({}, [{"name": "g"}], True) == [{"name": "g", "state": "planned"}]
    assert FILTERS["hosted_cluster_aws_verified"]({"verified": True}, [], {}) is True
    assert FILTERS["held_deletion_waits"]([{"gates": [{"name": "g", "objects": []}]}]) == [{"name": "g"}]
    assert FILTERS["cfn_refusals_missing"](["a", "b"], {"order": [{"name": "a", "id": "i"}]}) == ["b"]
    assert FILTERS["cfn_refusals_stack_error"]({"failed": True, "msg": "m"}, []) == "m"
    assert FILTERS["cfn_refusals_stack_record"]({}, {"name": "s", "id": "i", "status": "S"}, "")["stack_id"] == "i"
    assert FILTERS["release_prune_selection_problem"]("", 0).startswith("release_namespace: required")
    assert FILTERS["release_prune_input_problem"](False, "", 0, 1, []).startswith("timeout: ")
    assert FILTERS["release_prune_cluster_line"]({"state": "absent"}, "c", True) == "Cluster c: absent, will be deleted."
    assert FILTERS["release_prune_cluster_held"]([{"name": "r", "cluster": "c"}, {"name": "s", "cluster": "d"}], "c") == ["r"]
