# -*- coding: utf-8 -*-
"""report/render.py: the JSON report of a destroy (gate rows, the AWS outcome split, verified only when every check
says so), its Markdown, summary and outcome."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json

from ansible_collections.teardown.gates.plugins.module_utils.report import render as R

CLUSTER = {"namespace": "clusters", "name": "demo", "uid": "u-1", "infra_id": "demo-x1", "region": "us-east-1",
           "hcp_namespace": "clusters-demo"}
GATES = [
    {"name": "workers", "state": "passed", "started": "2026-01-01T10:00:00.000Z", "passed_at": "2026-01-01T10:00:02.500Z",
     "ended": "2026-01-01T10:00:02.500Z", "duration": 2.5, "first_observed_terminating": "2026-01-01T10:00:00.010Z",
     "objects": [{"kind": "Machine"}], "timeline": [{"at": "x"}]},
    {"name": "hcp", "state": "timeout", "started": "2026-01-01T10:00:02.500Z", "passed_at": None,
     "ended": "2026-01-01T10:01:02.500Z", "remaining": [{"kind": "HostedControlPlane", "namespace": "clusters-demo",
                                                         "name": "demo", "uid": "h", "finalizers": ["f"],
                                                         "inspect_next": ["cpo"]}]},
    {"name": "ns", "state": "not_started"},
]
RESOURCES = [
    {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "deleted", "verified_state": "absent"},
    {"type": "AWS::EC2::Instance", "id": "i-1", "outcome": "absent", "verified_state": "terminal"},
    {"type": "AWS::IAM::Role", "id": "demo-x1-node-pool", "outcome": "retained", "reason": "preserve_iam"},
    {"type": "AWS::IAM::Role", "id": "demo-x1-ingress", "outcome": "deleted", "verified_state": "absent"},
    {"type": "AWS::EC2::NatGateway", "id": "nat-1", "outcome": "failed", "error": "still deleting", "verified_state": "present",
     "blockers": [{"type": "x"}]},
]


def test_gate_rows_keep_the_issue_fields_and_compute_durations():
    rows = R.gate_rows(GATES)
    assert [r["name"] for r in rows] == ["workers", "hcp", "ns"]
    assert rows[0]["duration_s"] == 2.5 and rows[0]["passed_at"] == "2026-01-01T10:00:02.500Z"
    assert rows[1]["duration_s"] == 60.0  # from started and ended when the module gave none
    assert rows[1]["remaining"] == [{"kind": "HostedControlPlane", "namespace": "clusters-demo", "name": "demo",
                                     "uid": "h", "finalizers": ["f"]}]
    assert rows[2]["duration_s"] is None and rows[2]["state"] == "not_started"
    for r in rows:
        assert set(["name", "state", "started", "passed_at", "duration_s"]) <= set(r)
        assert "timeline" not in r and "objects" not in r


def test_split_aws_sorts_outcomes_and_keeps_iam_apart():
    aws, iam = R.split_aws(RESOURCES)
    assert sorted(r["id"] for r in aws["deleted"]) == ["demo-x1-ingress", "vpc-1"]
    assert [r["id"] for r in aws["absent"]] == ["i-1"]
    assert [r["id"] for r in aws["retained"]] == ["demo-x1-node-pool"]
    assert aws["remaining"] == [{"type": "AWS::EC2::NatGateway", "id": "nat-1", "outcome": "failed",
                                 "error": "still deleting", "state": "present", "blockers": [{"type": "x"}]}]
    assert [r["id"] for r in iam["deleted"]] == ["demo-x1-ingress"]
    assert [r["id"] for r in iam["retained"]] == ["demo-x1-node-pool"]


def test_an_unknown_outcome_is_remaining_not_absent():
    aws, dummy = R.split_aws([{"type": "AWS::EC2::Subnet", "id": "subnet-1", "outcome": None, "observed": "unknown"},
                              {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "planned", "observed": "present"}])
    assert aws["absent"] == [] and [r["id"] for r in aws["remaining"]] == ["subnet-1"]
    assert [r["id"] for r in aws["planned"]] == ["vpc-1"]


def test_verified_needs_the_command_every_check_and_aws():
    checks = [{"what": "HostedCluster", "state": "absent"}, {"what": "pods", "state": "retained"}]
    ok = R.build_report(CLUSTER, {}, gates=GATES[:1], aws_resources=RESOURCES[:4],
                        verification={"checks": checks, "aws_verified": True}, milestones={"command_succeeded": True})
    assert ok["verified"] and ok["command_succeeded"]
    assert not R.build_report(CLUSTER, {}, aws_resources=RESOURCES[:4], verification={"checks": checks, "aws_verified": True},
                              milestones={"command_succeeded": False})["verified"]
    unknown = checks + [{"what": "Namespace", "state": "unknown"}]
    r = R.build_report(CLUSTER, {}, aws_resources=RESOURCES[:4], verification={"checks": unknown, "aws_verified": True},
                       milestones={"command_succeeded": True})
    assert not r["verified"] and {"what": "Namespace", "state": "unknown"} in r["remaining"]
    assert not R.build_report(CLUSTER, {}, aws_resources=RESOURCES, verification={"checks": checks, "aws_verified": True},
                              milestones={"command_succeeded": True})["verified"]  # nat-1 remains
    assert not R.build_report(CLUSTER, {}, verification={"checks": [], "aws_verified": True},
                              milestones={"command_succeeded": True})["verified"]  # nothing checked is not verified
    assert not R.build_report(CLUSTER, {}, verification={"checks": checks, "aws_verified": True},
                              milestones={"command_succeeded": True}, check_mode=True)["verified"]


def test_report_has_the_issue_fields_and_says_why_things_were_retained():
    r = R.build_report(CLUSTER, {"preserve_iam": True}, gates=GATES, aws_resources=RESOURCES,
                       verification={"checks": [], "aws_verified": False}, namespace_retained=True,
                       milestones={"command_succeeded": False}, versions={"ansible_core": "2.19"})
    for key in ("cluster", "options", "gates", "aws", "iam", "namespace_retained", "command_succeeded", "verified", "versions"):
        assert key in r
    assert set(["namespace", "name", "uid", "infra_id"]) <= set(r["cluster"])
    assert set(r["aws"]) >= set(["deleted", "retained", "remaining"]) and set(r["iam"]) == set(["deleted", "retained"])
    whys = " ".join(x["why"] for x in r["retained"])
    assert "skip-delete-hosted-controlplane-namespace" in whys and "preserve_iam" in whys
    json.dumps(r)  # JSON-able


def test_missing_identity_fields_are_null_not_absent():
    r = R.build_report({"namespace": "clusters", "name": "x"}, {})
    assert r["cluster"] == {"namespace": "clusters", "name": "x", "uid": None, "infra_id": None}


def test_markdown_shows_result_gates_remaining_and_resume():
    stopped = {"gate": "hcp", "message": "gate 'hcp' timed out", "inspect_next": ["CPO logs"], "resume": "ansible-playbook x"}
    md = R.render_markdown(R.build_report(CLUSTER, {"preserve_iam": False}, gates=GATES, aws_resources=RESOURCES,
                                          verification={"checks": [{"what": "HC", "state": "present", "count": 1}]},
                                          milestones={"command_succeeded": False}, stopped=stopped))
    assert "**Result: NOT finished**" in md
    assert "| workers | passed |" in md and "| hcp | timeout |" in md
    assert "`AWS::EC2::NatGateway` nat-1 (present): still deleting" in md
    assert "Resume with:" in md and "ansible-playbook x" in md and "- inspect: CPO logs" in md
    check = R.render_markdown(R.build_report(CLUSTER, {}, check_mode=True))
    assert "check mode: plan only, nothing changed" in check


def test_markdown_of_a_refused_plan_says_it_is_not_resumed():
    stopped = {"gate": "Refuse before any change", "message": "Refused before any change: ...", "phase": 1,
               "plan_refused": True, "resume": "not with the same variables: run a new check"}
    md = R.render_markdown(R.build_report(CLUSTER, {}, stopped=stopped))
    assert "The approved plan was refused, the run is not resumed: not with the same variables: run a new check" in md
    assert "Resume with:" not in md


def test_markdown_escapes_pipes_in_messages():
    md = R.render_markdown(R.build_report(CLUSTER, {}, hcp_conditions={"CloudResourcesDestroyed": {
        "status": "False", "reason": "R", "message": "a | b\nc"}}))
    assert "a \\| b c" in md


def test_times_parse_and_archive_names_sort():
    # the parsing itself is core/timestamps.py's (core/test_timestamps.py); here what render makes of a time
    t = datetime.datetime(2026, 1, 1, 10, 0, 0, 123000, tzinfo=datetime.timezone.utc)
    assert R.archive_stamp(t) == "20260101T100000.123Z"
    assert R.seconds_between("2026-01-01T10:00:00Z", "2026-01-01T10:00:01.5Z") == 1.5
    assert R.seconds_between(None, "2026-01-01T10:00:01.5Z") is None


def test_manifests_merge_as_a_union_and_split_iam_off():
    stored = {"AWS::EC2::VPC": ["vpc-1"], "AWS::EC2::EIP": ["eipalloc-1"]}
    fresh = {"AWS::EC2::VPC": ["vpc-1"], "AWS::IAM::Role": ["r"], "AWS::EC2::Subnet": []}
    merged = R.merge_manifests(stored, fresh)
    assert merged == {"AWS::EC2::EIP": ["eipalloc-1"], "AWS::EC2::VPC": ["vpc-1"], "AWS::IAM::Role": ["r"]}
    infra, iam = R.split_manifest(merged)
    assert iam == {"AWS::IAM::Role": ["r"]} and "AWS::IAM::Role" not in infra


def test_summary_is_short():
    r = R.build_report(CLUSTER, {}, gates=GATES, aws_resources=RESOURCES, stopped={"gate": "hcp"})
    s = R.summary(r)
    assert s["cluster"] == "clusters/demo" and s["gates"] == {"workers": "passed", "hcp": "timeout", "ns": "not_started"}
    assert s["aws_remaining"] == 1 and s["iam_retained"] == 1 and s["stopped_at"] == "hcp"


def test_a_run_stopped_before_aws_says_what_it_did_not_observe():
    """A stop in Phase 1 ran no cleanup and no lookup: no count of 0, no namespace "deleted"."""
    r = R.build_report(CLUSTER, {}, stopped={"gate": "Phase 1 | read AWS", "message": "no answer"},
                       aws_cleanup_ran=False, aws_lookup_ran=False)
    assert R.summary(r)["aws_remaining"] is None
    line = R.outcome(r, "/r/x.md", "/r/x.html")
    assert "STOPPED at Phase 1 | read AWS" in line
    assert "phases that never ran: 2 retain, 3 delete and gates, 4 AWS infrastructure and IAM, " \
           "5 release the CLI finalizer, 6 verify;" in line
    assert "AWS cleanup not run, remaining not observed; namespace not observed" in line
    assert "remaining 0" not in line and "deleted (" not in line
    md = R.render_markdown(r)
    assert "The AWS cleanup did not run" in md and "remaining: 0" not in md


def test_a_stop_at_a_gate_names_only_the_phases_after_it():
    """A gate's name carries no phase ("NodePools and Machines gone"): the stop record's phase says where it was."""
    r = R.build_report(CLUSTER, {}, stopped={"gate": "NodePools and Machines gone", "phase": 3, "message": "timed out"},
                       aws_cleanup_ran=False, aws_lookup_ran=False)
    line = R.outcome(r, "/r/x.md", "/r/x.html")
    assert "phases that never ran: 4 AWS infrastructure and IAM, 5 release the CLI finalizer, 6 verify;" in line
    assert "1 baseline" not in line


def test_the_outcome_counts_only_what_a_look_produced():
    ran = R.build_report(CLUSTER, {}, aws_resources=RESOURCES, milestones={"command_succeeded": True},
                         verification={"checks": [{"what": "Namespace clusters-demo", "state": "absent"}],
                                       "aws_verified": False})
    line = R.outcome(ran, "a.md", "a.html")
    assert line.startswith("clusters/demo: command succeeded, teardown not verified;")
    assert "remaining 1 (looked up by ID)" in line and "namespace deleted (a read answered absent)" in line
    cleanup_only = R.build_report(CLUSTER, {}, aws_resources=RESOURCES, aws_lookup_ran=False)
    assert "remaining 1 (by the cleanup's own reads, not looked up by ID)" in R.outcome(cleanup_only, "a", "b")


def test_every_finalizer_a_take_over_removed_is_listed_with_its_evidence():
    removed = {"object": {"api_version": "hypershift.openshift.io/v1beta1", "kind": "NodePool", "namespace": "clusters",
                          "name": "demo-a"}, "uid": "np-uid", "finalizer": "hypershift.openshift.io/finalizer",
               "owner": "hypershift-operator", "evidence": [{"what": "Machine clusters-demo/m1",
                                                             "verified_absent_at": "2026-01-01T00:01:00.000Z"}],
               "at": "2026-01-01T00:01:01.000Z"}
    taken = {"owner": "hypershift-operator (HostedCluster and NodePool controllers)", "part": "operator",
             "reason": {"gate": "NodePools and Machines gone", "state": "stalled",
                        "last_progress": "2026-01-01T00:00:00.000Z", "last_progress_what": "gate opened"},
             "verified": True, "finalizers_removed": [removed]}
    r = R.build_report(CLUSTER, {}, taken_over=[taken, {}])
    assert r["taken_over"] == [taken] and R.summary(r)["finalizers_taken_over"] == 1
    md = R.render_markdown(r)
    assert "## Taken over (take_over_cleanup)" in md
    assert "| NodePool clusters/demo-a | np-uid | hypershift.openshift.io/finalizer | hypershift-operator |" in md
    assert "Machine clusters-demo/m1 (absent at 2026-01-01T00:01:00.000Z)" in md
    assert "no progress since 2026-01-01T00:00:00.000Z" in md
    from ansible_collections.teardown.gates.plugins.module_utils.report import html as H
    page = H.hosted_cluster_body(r)
    assert "Taken over (take_over_cleanup)" in page and "np-uid" in page
    assert "Taken over" not in R.render_markdown(R.build_report(CLUSTER, {}))


def test_split_aws_lists_kept_and_blocked_as_remaining_with_why():
    aws, dummy = R.split_aws([
        {"type": "AWS::EC2::NatGateway", "id": "nat-1", "outcome": "kept", "reason": "tagged teardown.gates/protected",
         "observed": "present"},
        {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "blocked", "blocked_by": ["AWS::EC2::NatGateway nat-1"],
         "verified_state": "present"},
        {"type": "AWS::EC2::Subnet", "id": "subnet-1", "outcome": "absent", "blocked_by": ["AWS::EC2::NatGateway nat-1"]}])
    assert aws["remaining"] == [
        {"type": "AWS::EC2::NatGateway", "id": "nat-1", "outcome": "kept", "state": "present",
         "reason": "tagged teardown.gates/protected"},
        {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "blocked", "state": "present",
         "blocked_by": ["AWS::EC2::NatGateway nat-1"]}]
    assert [r["id"] for r in aws["absent"]] == ["subnet-1"]


def test_tracked_states_say_why_a_kept_or_blocked_id_is_present():
    rows = R.tracked_states([
        {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "blocked", "observed": "present",
         "blocked_by": ["AWS::EC2::NatGateway nat-1"]},
        {"type": "AWS::EC2::NatGateway", "id": "nat-1", "outcome": "kept", "observed": "present",
         "reason": "tagged teardown.gates/protected"}])
    assert rows == [
        {"type": "AWS::EC2::NatGateway", "id": "nat-1", "state": "present", "kept": "tagged teardown.gates/protected"},
        {"type": "AWS::EC2::VPC", "id": "vpc-1", "state": "present", "blocked_by": ["AWS::EC2::NatGateway nat-1"]}]


MANIFEST = {"AWS::EC2::VPC": ["vpc-1"], "AWS::IAM::Role": ["r-2", "r-1"], "AWS::EC2::Subnet": []}


def test_a_run_stopped_before_its_aws_cleanup_lists_every_id_it_did_not_clean():
    """Nothing is lost in the report of a stop: each ID the run was to clean is named, not counted as remaining
    (no look of this run observed it); chaos seed 42000's re-run stopped at the NodePool gate and named none."""
    r = R.build_report(CLUSTER, {}, stopped={"gate": "NodePools and Machines gone", "phase": 3, "message": "timed out"},
                       aws_cleanup_ran=False, aws_lookup_ran=False, manifest=MANIFEST)
    assert [(x["type"], x["id"]) for x in r["aws"]["not_cleaned"]] == [
        ("AWS::EC2::VPC", "vpc-1"), ("AWS::IAM::Role", "r-1"), ("AWS::IAM::Role", "r-2")]
    assert r["aws"]["remaining"] == [] and R.summary(r)["aws_remaining"] is None
    assert R.summary(r)["aws_not_cleaned"] == 3
    assert "cleanup not run (3 IDs of the manifest not cleaned, listed by ID in the report)" in R.outcome(
        r, "/r/x.md", "/r/x.html")
    md = R.render_markdown(r)
    assert "Not cleaned (the manifest's IDs" in md and "- `AWS::IAM::Role` r-1" in md


def test_a_run_whose_cleanup_ran_or_that_only_planned_lists_nothing_as_not_cleaned():
    ran = R.build_report(CLUSTER, {}, aws_resources=RESOURCES, aws_cleanup_ran=True, manifest=MANIFEST)
    planned = R.build_report(CLUSTER, {}, aws_cleanup_ran=False, check_mode=True, manifest=MANIFEST)
    assert ran["aws"]["not_cleaned"] == [] and planned["aws"]["not_cleaned"] == []
    assert "Not cleaned" not in R.render_markdown(ran)


CLI_SECRETS = {"namespace": "clusters", "selector": "hypershift.openshift.io/auto-created-for-infra=demo-x1", "listed": True,
               "error": "", "secrets": [{"name": "demo-pull-secret", "uid": "u-1"}, {"name": "demo-ssh-key", "uid": "u-2"}],
               "deleted": ["demo-ssh-key", "demo-pull-secret"], "absent": [], "planned": [],
               "failed": [{"name": "demo-etcd-encryption-key", "error": "HTTP 409"}]}


def test_the_report_names_the_cli_secrets_deleted_and_not_deleted():
    r = R.build_report(CLUSTER, {}, cli_secrets=CLI_SECRETS)
    assert r["cli_secrets"] == {"namespace": "clusters", "selector": CLI_SECRETS["selector"],
                                "deleted": ["demo-pull-secret", "demo-ssh-key"], "absent": [], "planned": [],
                                "failed": [{"name": "demo-etcd-encryption-key", "error": "HTTP 409"}]}
    md = R.render_markdown(r)
    assert "## Secrets the CLI made" in md and "`%s` in clusters" % CLI_SECRETS["selector"] in md
    assert "Deleted:\n\n- demo-pull-secret\n- demo-ssh-key" in md
    assert "Not deleted:\n\n- demo-etcd-encryption-key: HTTP 409" in md
    json.dumps(r)


def test_the_report_of_a_plan_names_the_cli_secrets_it_would_delete_and_none_when_not_listed():
    planned = dict(CLI_SECRETS, deleted=[], failed=[], planned=["demo-pull-secret"])
    r = R.build_report(CLUSTER, {}, cli_secrets=planned, check_mode=True)
    assert r["cli_secrets"]["planned"] == ["demo-pull-secret"] and r["cli_secrets"]["deleted"] == []
    assert "Would delete:\n\n- demo-pull-secret" in R.render_markdown(r)
    # the run stopped before Phase 5, or an infrastructure-only destroy: nothing listed, nothing said
    for nothing in (None, {}, {"selector": "", "deleted": []}):
        r = R.build_report(CLUSTER, {}, cli_secrets=nothing)
        assert r["cli_secrets"] == {} and "Secrets the CLI made" not in R.render_markdown(r)
    none_left = R.build_report(CLUSTER, {}, cli_secrets=dict(CLI_SECRETS, deleted=[], failed=[]))
    assert "None left to delete." in R.render_markdown(none_left)
