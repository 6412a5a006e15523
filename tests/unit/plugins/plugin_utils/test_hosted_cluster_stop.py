# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.hosted_cluster_stop import (
    PHASES, finalizer_way_out, stop_message, stop_phase, stop_record)

RESUME = "ansible-playbook playbooks/destroy_hosted_cluster.yml -e hosted_cluster_name=demo"
WAY_OUT = (
    "The CLI finalizer openshift.io/destroy-cluster is still on the HostedCluster, so its identity survives: the way out "
    "is the Resume command below. Removing that finalizer by hand lets the HostedCluster go without the AWS cleanup and "
    "deletes none of its AWS resources; only do it after recording the resource IDs (baseline /r/clusters-demo.baseline.json, "
    "report /r/demo.json) and taking responsibility for their cleanup (-e infra_id=... later), then: ansible localhost -m "
    "teardown.gates.finalizer -a \"api_version=hypershift.openshift.io/v1beta1 kind=HostedCluster namespace=clusters "
    "name=demo finalizer=openshift.io/destroy-cluster state=absent\". ")


@pytest.mark.parametrize("stopped, phase", [
    ({"gate": "x", "phase": 4}, 4),
    ({"gate": "Phase 2 | y", "phase": "3"}, 3),
    ({"gate": "Phase 2 | Retain the CLI finalizer"}, 2),
    ({"gate": "Stopped | something"}, 0),
    ({"gate": None}, 0),
    ({}, 0),
    ({"phase": None}, 0),
    ({"phase": "2.0"}, 2),
    ({"phase": "later"}, 0),
])
def test_stop_phase(stopped, phase):
    assert stop_phase(stopped) == phase


def test_message_without_inspect_next_nor_finalizer_keeps_the_two_spaces_of_the_template():
    stopped = {"gate": "Phase 3 | Wait for the NodePools to go", "message": "timed out"}
    assert stop_message(stopped, "clusters", "demo", RESUME) == (
        "Teardown of HostedCluster clusters/demo stopped at Phase 3 | Wait for the NodePools to go: timed out "
        "(phases that never ran: 4 AWS infrastructure and IAM, 5 release the CLI finalizer, 6 verify.)  Resume: " + RESUME)


def test_message_with_inspect_next_and_the_finalizer_way_out():
    stopped = {"gate": "g", "message": "m", "phase": 1, "inspect_next": ["kubectl get nodepools", "the operator log"]}
    assert stop_message(stopped, "clusters", "demo", RESUME, True, "/r/clusters-demo.baseline.json", "/r/demo.json") == (
        "Teardown of HostedCluster clusters/demo stopped at g: m (phases that never ran: 2 retain, 3 delete and gates, "
        "4 AWS infrastructure and IAM, 5 release the CLI finalizer, 6 verify.) Inspect next: kubectl get nodepools; the "
        "operator log. " + WAY_OUT + "Resume: " + RESUME)


def test_message_when_every_phase_ran_says_none():
    assert "(phases that never ran: none.)" in stop_message({"gate": "g", "message": "m", "phase": 6}, "n", "c", "r")


def test_message_from_phase_zero_lists_every_phase():
    assert ", ".join(PHASES) in stop_message({"gate": "Stopped", "message": "m"}, "n", "c", "r")


@pytest.mark.parametrize("flag", [False, "False", None, ""])
def test_no_way_out_without_the_finalizer(flag):
    assert "CLI finalizer openshift.io" not in stop_message({"gate": "g", "message": "m"}, "n", "c", "r", flag)


def test_finalizer_on_as_text_on_ansible_core_2_16():
    assert finalizer_way_out("clusters", "demo", "/r/clusters-demo.baseline.json", "/r/demo.json") in stop_message(
        {"gate": "g", "message": "m"}, "clusters", "demo", "r", "True", "/r/clusters-demo.baseline.json", "/r/demo.json")


def test_way_out_defaults_name_report_dir():
    assert "(baseline in report_dir, report in report_dir)" in stop_message({"gate": "g"}, "n", "c", "r", True)


def test_a_stop_record_that_is_not_a_mapping_is_refused():
    with pytest.raises(AnsibleFilterError, match="^hosted_cluster_stop_message: expects the stop record"):
        stop_message("stopped", "n", "c", "r")


def test_stop_record_keeps_the_one_a_gate_wrote():
    kept = {"gate": "Phase 3 | Wait", "message": "timed out", "phase": 3, "inspect_next": ["x"]}
    assert stop_record(kept, {"name": "other"}, {"msg": "other"}, "r") is kept


@pytest.mark.parametrize("stopped", [{}, None])
def test_stop_record_of_the_failed_task(stopped):
    assert stop_record(stopped, {"name": "Phase 4 | Destroy", "action": "x"}, {"msg": ["a list"], "failed": True}, "r") == {
        "gate": "Phase 4 | Destroy", "message": ["a list"], "resume": "r"}


def test_stop_record_without_a_failed_task_nor_msg():
    assert stop_record({}, {}, {"failed": True}, "") == {"gate": "unknown task", "message": "failed", "resume": ""}
    assert stop_record({}, None, None, "") == {"gate": "unknown task", "message": "failed", "resume": ""}


def test_stop_record_refuses_a_record_that_is_not_a_mapping():
    with pytest.raises(AnsibleFilterError, match="^hosted_cluster_stop_record: expects the stop record"):
        stop_record(["x"], {}, {}, "")


REFUSAL = ("Refused before any change: the world has changed since the plan was approved. approved_plan_digest is "
           + "a" * 64 + ", the plan recomputed now is " + "b" * 64 + ". What differs ...")
REFUSED_VERDICT = {"asked": True, "match": False, "plan_digest": "b" * 64, "message": REFUSAL}
REFUSE_TASK = {"name": "Refuse before any change - the plan is not the approved one"}


@pytest.mark.parametrize("verdict", [REFUSED_VERDICT, dict(REFUSED_VERDICT, asked="True", match="False")])
def test_stop_record_of_a_refused_plan_asks_for_a_new_check(verdict):
    record = stop_record({}, REFUSE_TASK, {"msg": REFUSAL, "failed": True}, RESUME, verdict)
    assert record["plan_refused"] is True and record["phase"] == 1 and record["message"] == REFUSAL
    assert record["resume"] == (
        "not with the same variables: the old approved_plan_digest is refused again, and nothing was changed. Run a new "
        "check (" + RESUME + " --check), review its plan (the plan file in report_dir/plans) and approve its digest: "
        + RESUME + " -e approved_plan_digest=<the new check's plan_digest>")


@pytest.mark.parametrize("verdict, msg", [
    ({}, REFUSAL),  # no verdict made (a stop before the plan)
    (None, REFUSAL),
    (dict(REFUSED_VERDICT, match=True), REFUSAL),  # the plan matched: this failure is another
    (dict(REFUSED_VERDICT, asked=False), REFUSAL),
    (REFUSED_VERDICT, "timed out"),  # a verdict left from another cluster of the play: not this failure
    (dict(REFUSED_VERDICT, message=""), ""),
])
def test_stop_record_of_another_failure_keeps_the_resume_command(verdict, msg):
    assert stop_record({}, REFUSE_TASK, {"msg": msg}, RESUME, verdict) == {
        "gate": REFUSE_TASK["name"], "message": msg, "resume": RESUME}


def test_message_of_a_refused_plan_names_the_new_check_not_the_same_command():
    record = stop_record({}, REFUSE_TASK, {"msg": REFUSAL}, RESUME, REFUSED_VERDICT)
    message = stop_message(record, "clusters", "demo", RESUME)
    assert message.startswith("Teardown of HostedCluster clusters/demo stopped at " + REFUSE_TASK["name"] + ": " + REFUSAL)
    assert "(phases that never ran: 2 retain, 3 delete and gates," in message
    assert message.endswith("Resume: " + record["resume"])
    assert "Resume: " + RESUME not in message
