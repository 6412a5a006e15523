# -*- coding: utf-8 -*-
"""The hosted_cluster_destroy role's step filter (plugins/filter/hosted_cluster_destroy_step.py): each step its plugin_utils function."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.hosted_cluster_destroy_step import STEPS, FilterModule
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_cli_secrets
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_input
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_messages
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_stop
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_verify
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_wait

hosted_cluster_destroy_step = FilterModule().filters()["hosted_cluster_destroy_step"]


def test_the_role_has_one_step_filter_named_after_it():
    assert [(name, f.__name__) for name, f in FilterModule().filters().items()] == [("hosted_cluster_destroy_step", "hosted_cluster_destroy_step")]


def test_hosted_cluster_destroy_each_step_runs_its_plugin_utils_function():
    assert STEPS == {
        "input_problems": hosted_cluster_input.problems,
        "aws_cleanup_runs": hosted_cluster_baseline.aws_cleanup_runs, "cli_finalizer_on": hosted_cluster_wait.cli_finalizer_on,
        "gates": hosted_cluster_wait.gates_of, "gates_plan_message": hosted_cluster_messages.gates_plan_message,
        "gate_stop_message": hosted_cluster_messages.gate_stop_message,
        "aws_plan_message": hosted_cluster_messages.aws_plan_message,
        "cli_secrets_reads": hosted_cluster_cli_secrets.cli_secrets_reads,
        "cli_secrets_found": hosted_cluster_cli_secrets.cli_secrets_found,
        "cli_secrets_deleted": hosted_cluster_cli_secrets.cli_secrets_deleted,
        "cli_secrets_message": hosted_cluster_cli_secrets.cli_secrets_message,
        "cli_secrets_stopped": hosted_cluster_cli_secrets.cli_secrets_stopped,
        "verification_reads": hosted_cluster_wait.verification_reads,
        "verification_checks": hosted_cluster_verify.verification_checks,
        "verification_message": hosted_cluster_verify.verification_message,
        "report_gates": hosted_cluster_wait.report_gates, "aws_verified": hosted_cluster_wait.aws_verified,
        "stop_record": hosted_cluster_stop.stop_record, "stop_message": hosted_cluster_stop.stop_message}
    assert hosted_cluster_destroy_step("", "verification_reads", "clusters", "clusters-x") == [
        {"api_version": "v1", "kind": "Namespace", "name": "clusters-x"}]
    assert hosted_cluster_destroy_step("x", "cli_secrets_reads", "clusters", "x-1a2b3") == [
        {"api_version": "v1", "kind": "Secret", "namespace": "clusters",
         "label_selector": "hypershift.openshift.io/auto-created-for-infra=x-1a2b3"}]
    assert hosted_cluster_destroy_step("x", "verification_reads", "clusters", "clusters-x", "x-1a2b3")[-1]["kind"] == "Secret"


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
