# -*- coding: utf-8 -*-
"""The roles' step filters (plugins/filter/role_steps.py): one filter per role, each step its plugin_utils function."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.role_steps import FILTERS, STEPS, FilterModule
from ansible_collections.teardown.gates.plugins.plugin_utils import cfn_refusals_messages, cfn_refusals_stack
from ansible_collections.teardown.gates.plugins.plugin_utils import held_deletion_messages, held_deletion_plan
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline, hosted_cluster_input
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_messages, hosted_cluster_stop
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_verify, hosted_cluster_wait
from ansible_collections.teardown.gates.plugins.plugin_utils import orphan_sweep_messages, orphan_sweep_outcome
from ansible_collections.teardown.gates.plugins.plugin_utils import release_prune_input, release_prune_messages

cfn_refusals_step = FILTERS["cfn_refusals_step"]
held_deletion_step = FILTERS["held_deletion_step"]
hosted_cluster_destroy_step = FILTERS["hosted_cluster_destroy_step"]
orphan_sweep_step = FILTERS["orphan_sweep_step"]
release_prune_step = FILTERS["release_prune_step"]


def test_each_role_has_one_step_filter_named_after_it():
    assert sorted(FilterModule().filters()) == [
        "cfn_refusals_step", "held_deletion_step", "hosted_cluster_destroy_step", "orphan_sweep_step", "release_prune_step"]
    assert all(f.__name__ == name for name, f in FilterModule().filters().items())


# cfn_refusals

def test_cfn_refusals_each_step_runs_its_plugin_utils_function():
    assert STEPS["cfn_refusals"] == {"missing": cfn_refusals_stack.missing, "stack_error": cfn_refusals_stack.stack_error,
                                     "stack_record": cfn_refusals_stack.stack_record, "summary": cfn_refusals_messages.cfn_refusals_summary}


def test_cfn_refusals_the_steps_answer_as_the_role_calls_them():
    # what test_role_decisions asserted of the filters these steps were
    assert cfn_refusals_step(["a", "b"], "missing", {"order": [{"name": "a", "id": "i"}]}) == ["b"]
    assert cfn_refusals_step({"failed": True, "msg": "m"}, "stack_error", []) == "m"
    assert cfn_refusals_step({}, "stack_record", {"name": "s", "id": "i", "status": "S"}, "")["stack_id"] == "i"
    assert cfn_refusals_step([], "summary") == [cfn_refusals_messages.SUMMARY_HEADER]


def test_cfn_refusals_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="cfn_refusals_step: no step 'summary_table'; the steps are missing, stack_error"):
        cfn_refusals_step([], "summary_table")


# held_deletion

def test_held_deletion_each_step_runs_its_plugin_utils_function():
    assert STEPS["held_deletion"] == {"decision": held_deletion_plan.decide, "still_held": held_deletion_plan.still_held,
                                      "waits": held_deletion_plan.waits,
                                      "unreleased_message": held_deletion_messages.held_deletion_unreleased_message}


# what test_role_decisions asserted of the filters these steps were

def test_held_deletion_decision():
    result = {"held": True, "hold_type": "state", "uid": "u", "diagnosis": {"options": [{"action": "restore", "backup_serial": 3}]}}
    assert held_deletion_step(result, "decision", True, "", "") == {"action": "restore", "backup_serial": 3}
    assert held_deletion_step(result, "decision", False, "u", "") == {"action": "abandon", "backup_serial": None}
    assert held_deletion_step(result, "decision", False, "", "") == {"action": "none", "backup_serial": None}


def test_held_deletion_still_held():
    assert held_deletion_step({"held": True, "reason": "DestroyFailed"}, "still_held", "none", False) is True
    assert held_deletion_step({"held": False, "reason": "Absent"}, "still_held", "restore", False) is False


def test_held_deletion_waits():
    assert held_deletion_step([{"gates": [{"name": "g", "objects": []}]}], "waits") == [{"name": "g"}]


def test_held_deletion_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="held_deletion_step: no step 'decide'; the steps are decision, still_held"):
        held_deletion_step({}, "decide")


# hosted_cluster_destroy

def test_hosted_cluster_destroy_each_step_runs_its_plugin_utils_function():
    assert STEPS["hosted_cluster_destroy"] == {
        "input_problems": hosted_cluster_input.problems,
        "aws_cleanup_runs": hosted_cluster_baseline.aws_cleanup_runs, "cli_finalizer_on": hosted_cluster_wait.cli_finalizer_on,
        "gates": hosted_cluster_wait.gates_of, "gates_plan_message": hosted_cluster_messages.gates_plan_message,
        "gate_stop_message": hosted_cluster_messages.gate_stop_message,
        "aws_plan_message": hosted_cluster_messages.aws_plan_message,
        "verification_reads": hosted_cluster_wait.verification_reads,
        "verification_checks": hosted_cluster_verify.verification_checks,
        "verification_message": hosted_cluster_verify.verification_message,
        "report_gates": hosted_cluster_wait.report_gates, "aws_verified": hosted_cluster_wait.aws_verified,
        "stop_record": hosted_cluster_stop.stop_record, "stop_message": hosted_cluster_stop.stop_message}
    assert hosted_cluster_destroy_step("", "verification_reads", "clusters", "clusters-x") == [
        {"api_version": "v1", "kind": "Namespace", "name": "clusters-x"}]


# what test_role_decisions asserted of the filters these steps were (hosted_cluster_baseline, ..._aws_verified), with
# the arguments as the role passes them, positional

def test_hosted_cluster_destroy_baseline_steps():
    # the baseline itself is the hosted_cluster_baseline module's: no step of the filter decides it
    for gone in ("stored_baseline", "baseline", "manifest"):
        with pytest.raises(AnsibleFilterError, match="no step '%s'" % gone):
            hosted_cluster_destroy_step({}, gone)
    assert hosted_cluster_destroy_step({"vpc": ["a"]}, "aws_cleanup_runs") is True
    assert hosted_cluster_destroy_step({}, "aws_cleanup_runs") is False


def test_hosted_cluster_destroy_stop_steps():
    message = hosted_cluster_destroy_step({"gate": "Phase 5 | x", "message": "m"}, "stop_message", "n", "c", "r")
    assert message == "Teardown of HostedCluster n/c stopped at Phase 5 | x: m (phases that never ran: 6 verify.)  Resume: r"
    assert "(baseline b, report p)" in hosted_cluster_destroy_step({"gate": "g"}, "stop_message", "n", "c", "r", True, "b", "p")
    assert hosted_cluster_destroy_step({}, "stop_record", {"name": "t"}, {"msg": "m"}, "r") == {
        "gate": "t", "message": "m", "resume": "r"}
    refused = hosted_cluster_destroy_step({}, "stop_record", {"name": "t"}, {"msg": "m"}, "r",
                                          {"asked": True, "match": False, "message": "m"})
    assert refused["plan_refused"] is True and refused["resume"].startswith("not with the same variables")


def test_hosted_cluster_destroy_input_wait_and_report_steps():
    assert hosted_cluster_destroy_step("c", "input_problems", "clusters", "", 600, 900, False, 900, "/r") == ""
    assert hosted_cluster_destroy_step({}, "cli_finalizer_on", False, True, False) is True
    assert hosted_cluster_destroy_step({}, "report_gates", [{"name": "g"}], True) == [{"name": "g", "state": "planned"}]
    assert hosted_cluster_destroy_step({"verified": True}, "aws_verified", [], {}) is True


# the steps that were the filters of hosted_cluster_destroy_steps.py (their tests are in
# tests/unit/plugins/plugin_utils/test_hosted_cluster_messages.py and test_hosted_cluster_verify.py)

def test_hosted_cluster_destroy_message_and_verification_steps():
    assert hosted_cluster_destroy_step([{"name": "a"}, {"name": "b"}], "gates_plan_message", 600, False, False, 900) == (
        "would wait at most 600 s in all for:\na -> b")
    gate = {"name": "g", "state": "timeout", "duration": 1, "remaining": []}
    assert hosted_cluster_destroy_step(gate, "gate_stop_message", {}, False, True) == "gate 'g' timed out after 1 s; 0 object(s) remain"
    assert hosted_cluster_destroy_step({}, "aws_plan_message") == "0 IAM resources retained (preserve_iam)."
    listed = {"item": {"kind": "NodePool", "namespace": "clusters"}, "state": "absent", "names": [], "count": 0}
    checks = hosted_cluster_destroy_step([listed], "verification_checks", "demo", "clusters", False)
    assert checks == [{"what": "NodePools of demo in clusters", "state": "absent", "count": 0, "names": [], "error": ""}]
    assert hosted_cluster_destroy_step(checks, "verification_message", {}, {}) == (
        "NodePools of demo in clusters: absent; AWS: every tracked ID absent or terminal")


def test_no_public_filter_of_the_hosted_cluster_destroy_role_is_left():
    # the 16 per-role filters (hosted_cluster_gates, hosted_cluster_stop_message ...) are steps now
    import importlib
    import pathlib
    published = []
    for source in sorted((pathlib.Path(__file__).resolve().parents[4] / "plugins" / "filter").glob("*.py")):
        module = importlib.import_module("ansible_collections.teardown.gates.plugins.filter." + source.stem)
        published.extend(module.FilterModule().filters())
    assert "teardown_plan" in published and "hosted_cluster_destroy_step" in published
    assert [name for name in published if name.startswith("hosted_cluster_") and name != "hosted_cluster_destroy_step"] == []


def test_hosted_cluster_destroy_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="no step 'gate'; the steps are aws_cleanup_runs, aws_plan_message, aws_verified"):
        hosted_cluster_destroy_step({}, "gate")


# orphan_sweep

def test_orphan_sweep_each_step_runs_its_plugin_utils_function():
    assert STEPS["orphan_sweep"] == {"recheck_verdict": orphan_sweep_outcome.recheck_verdict, "record": orphan_sweep_outcome.record,
                                     "verified": orphan_sweep_outcome.sweep_verified,
                                     "found_message": orphan_sweep_messages.orphan_sweep_found_message,
                                     "unread_message": orphan_sweep_messages.orphan_sweep_unread_message,
                                     "failed_message": orphan_sweep_messages.orphan_sweep_failed_message}


# what test_role_decisions asserted of the filters these steps were (the record now takes the infra ID first,
# as orphan_sweep_outcome.record does: the role pipes the infra ID)

def test_orphan_sweep_steps():
    recheck = {"management_known": True, "infra_ids": [{"infra_id": "i", "status": "orphan"}]}
    assert orphan_sweep_step(recheck, "recheck_verdict", "i") == {"still": True, "why_not": ""}
    cleanup = {"resources": [{"type": "vpc", "id": "vpc-1", "outcome": "deleted"}], "plan": ["vpc"]}
    record = orphan_sweep_step("i", "record", cleanup, True, "", False, "t")
    assert (record["infra_id"], record["outcome"], record["finished"]) == ("i", "destroyed", "t")
    assert orphan_sweep_step("i", "record", {}, False, "claimed", False, "t")["outcome"] == "left_alone"


def test_orphan_sweep_verified():
    assert orphan_sweep_step([{"outcome": "destroyed", "verified": True}], "verified", [{"status": "orphan"}]) is True
    assert orphan_sweep_step([{"outcome": "failed"}], "verified", []) is False


def test_orphan_sweep_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="orphan_sweep_step: no step 'verdict'; the steps are failed_message"):
        orphan_sweep_step({}, "verdict")


# release_prune

def test_release_prune_each_step_runs_its_plugin_utils_function():
    assert STEPS["release_prune"] == {
        "selection_problem": release_prune_input.selection_problem, "input_problem": release_prune_input.input_problem,
        "cluster_line": release_prune_input.cluster_line, "cluster_held": release_prune_input.cluster_held,
        "orphaning_refusal_message": release_prune_messages.orphaning_refusal_message,
        "held_releases_message": release_prune_messages.held_releases_message,
        "wait_summaries": release_prune_messages.wait_summaries}


def test_release_prune_the_steps_answer_as_the_role_calls_them():
    # what test_role_decisions asserted of the filters these steps were
    assert release_prune_step("", "selection_problem", 0).startswith("release_namespace: required")
    assert release_prune_step(False, "input_problem", "", 0, 1, []).startswith("timeout: ")
    assert release_prune_step({"state": "absent"}, "cluster_line", "c", True) == "Cluster c: absent, will be deleted."
    assert release_prune_step([{"name": "r", "cluster": "c"}, {"name": "s", "cluster": "d"}], "cluster_held", "c") == ["r"]
    assert release_prune_step([], "wait_summaries") == []
    assert release_prune_step([], "held_releases_message", 30).startswith("0 Release(s) still present after 30 s")
    assert release_prune_step([], "orphaning_refusal_message").startswith("Refusing to delete 0 Release(s)")


def test_release_prune_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="release_prune_step: no step 'cluster'; the steps are cluster_held, cluster_line"):
        release_prune_step({}, "cluster")
