# -*- coding: utf-8 -*-
"""The pictures of a report: the chart rows, the SVG page and the Mermaid gantt, all from one stored JSON report.

fixtures/report-verified.json is docs/demo-report.json (a real make demo run) cut down to a few AWS IDs, with
the times and blocker that aws_infra_cleanup now records for them; fixtures/report-stopped.json is the same run
stopped at the HostedControlPlane gate (its finalizer held), as the role reports a stopped run.

A concern test over report/timeline.py, html.py and render.py together (one report, its chart, its page and its
Mermaid); what the HTML page and the fleet index alone promise is in test_html.py.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.report import render as R
from ansible_collections.teardown.gates.plugins.module_utils.report import html as H
from ansible_collections.teardown.gates.plugins.module_utils.report import timeline as T

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")  # shared with plugins/modules tests
SVG = "{http://www.w3.org/2000/svg}"


def load(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def svg_of(page):
    m = re.search(r"<svg .*?</svg>", page, re.S)
    assert m, "no SVG in the page"
    return ET.fromstring(m.group(0))


def bars(svg):
    return [r for r in svg.iter(SVG + "rect") if "bar" in (r.get("class") or "").split()]


@pytest.fixture(params=["report-verified.json", "report-stopped.json"])
def report(request):
    return load(request.param)


def test_html_and_markdown_show_the_same_rows_from_one_stored_report(report):
    ch = T.chart(report)
    page = H.render_html(report)
    md = R.render_markdown(report, T.render_mermaid(ch))
    drawn = [(b.get("data-section"), b.get("data-label")) for b in bars(svg_of(page))]
    mermaid = re.search(r"```mermaid\n(.*?)```", md, re.S).group(1)
    tasks = re.findall(r"^    (.+?) :(?:crit, |done, )?r\d+, (\d+), (\d+)$", mermaid, re.M)
    assert [t[0].replace(" (OPEN)", "") for t in tasks] == [T._mermaid_text(d[1]) for d in drawn]
    # the same start and length, in ms in the Mermaid and in seconds on the bar
    for (label, start, end), b in zip(tasks, bars(svg_of(page))):
        assert abs((int(end) - int(start)) / 1000.0 - float(b.get("data-seconds"))) <= 0.002, label
    assert len(drawn) == len([r for r in ch["rows"] if r["start"] is not None])


def test_one_bar_per_started_gate_with_widths_proportional_to_durations():
    report = load("report-verified.json")
    svg = svg_of(H.render_html(report))
    scale = float(svg.get("data-scale"))
    gate_bars = [b for b in bars(svg) if b.get("data-section") == "Gates"]
    assert [b.get("data-label") for b in gate_bars] == [g["name"] for g in report["gates"]]
    for b, g in zip(gate_bars, report["gates"]):
        seconds = R.seconds_between(g["started"], g["passed_at"])
        assert float(b.get("width")) == pytest.approx(seconds * scale, rel=0.001, abs=0.002)
        assert b.get("data-open") == "false"
    # the first terminating observation is marked on its gate's row
    rows = set(b.get("data-row") for b in gate_bars)
    marks = [p for p in svg.iter(SVG + "path") if p.get("class") == "mark terminating" and p.get("data-row") in rows]
    assert len(marks) == sum(1 for g in report["gates"] if g["first_observed_terminating"])


def test_the_aws_phase_names_what_it_waited_on():
    report = load("report-verified.json")
    rows = [r for r in T.chart(report)["rows"] if r["section"] == "AWS"]
    assert [r["label"] for r in rows] == ["NatGateway", "Subnet", "VPC", "Role"]  # in the order their work began
    subnet = rows[1]
    assert "waited on NatGateway nat-14298e32438dd69f0 (deleting)" in subnet["note"]
    assert [m["label"] for m in subnet["marks"]] == ["refused: waits on NatGateway nat-14298e32438dd69f0"]
    assert "waited on NatGateway nat-14298e32438dd69f0 (deleting)" in H.render_html(report)


def test_milestones_are_lines_command_finished_and_verified():
    report = load("report-verified.json")
    svg = svg_of(H.render_html(report))
    lines = dict((ln.get("data-milestone"), float(ln.get("data-at"))) for ln in svg.iter(SVG + "line")
                 if ln.get("data-milestone"))
    assert lines["command finished"] == T.epoch(report["milestones"]["command_finished"])
    assert lines["verified"] == T.epoch(report["milestones"]["finished"])


def test_a_stopped_run_draws_the_open_gate_open_with_what_held_it():
    report = load("report-stopped.json")
    page = H.render_html(report)
    svg = svg_of(page)
    open_bars = [b for b in bars(svg) if b.get("data-open") == "true"]
    assert [(b.get("data-section"), b.get("data-label")) for b in open_bars] == [
        ("Phases", "delete and wait on the gates"), ("Gates", "HostedControlPlane gone")]
    hcp = open_bars[1]
    assert float(hcp.get("data-seconds")) == pytest.approx(60.0)
    assert "held by HostedControlPlane clusters-demo-213650/demo-213650 (finalizers: hypershift.openshift.io/finalizer)" \
        in page
    # the gates it never reached have no bar, and say so
    assert [b.get("data-label") for b in bars(svg) if b.get("data-section") == "Gates"] == [
        "NodePools and Machines gone", "HostedControlPlane gone"]
    assert page.count(">not started<") == 3
    assert "NOT finished (stopped at Phase 3 | Wait for HostedControlPlane gone)" in page
    assert "verified" not in [ln.get("data-milestone") for ln in svg.iter(SVG + "line")]
    md = R.render_markdown(report, T.render_mermaid(T.chart(report)))
    assert "HostedControlPlane gone (OPEN) :crit, " in md


def test_mermaid_task_names_cannot_break_the_chart():
    assert T._mermaid_text("Phase 3: wait; #1") == "Phase 3 - wait, no.1"


def test_a_report_without_aws_times_has_no_aws_rows_but_keeps_its_phases():
    report = load("report-verified.json")
    for bucket in report["aws"].values():
        for r in bucket:
            r.pop("started", None)
            r.pop("ended", None)
    rows = T.chart(report)["rows"]
    assert not [r for r in rows if r["section"] == "AWS"]
    assert [r["label"] for r in rows if r["section"] == "Phases"] == [
        "check, baseline, retain", "delete and wait on the gates", "AWS infrastructure, IAM, CLI finalizer",
        "verify by independent queries"]


def test_split_aws_keeps_the_times_and_the_blockers_waited_on():
    nat = {"type": "AWS::EC2::NatGateway", "id": "nat-1", "state": "deleting"}
    refusals = [{"error": "DependencyViolation", "at": "t1", "blockers": [dict(nat)]},
                {"error": "DependencyViolation", "at": "t2", "blockers": [dict(nat)]}]
    aws = R.split_aws([{"type": "AWS::EC2::Subnet", "id": "subnet-1", "outcome": "deleted", "started": "a", "ended": "b",
                        "refusals": refusals}])[0]
    assert aws["deleted"] == [{"type": "AWS::EC2::Subnet", "id": "subnet-1", "started": "a", "ended": "b",
                               "waited_on": [{"type": "AWS::EC2::NatGateway", "id": "nat-1", "state": "deleting",
                                              "at": "t1"}]}]


# ------------------------------------------------------------------------ the other playbooks' reports
PRUNE = {
    "role": "teardown.gates.release_prune", "started": "2026-01-01T10:00:00.000Z", "finished": "2026-01-01T10:01:10.000Z",
    "outcome": "incomplete", "input": {"release_namespace": "apps"}, "deletion_requested": ["a", "b"],
    "held": [{"name": "b", "uid": "u-b", "diagnosis": ["preDelete hook job b-pre failed"]}],
    "waits": [{"name": "Releases of batch 1 gone", "state": "timeout", "started": "2026-01-01T10:00:05.000Z",
               "ended": "2026-01-01T10:01:05.000Z", "passed_at": None, "duration": 60.0,
               "releases": [{"kind": "Release", "name": "a", "first_observed_terminating": "2026-01-01T10:00:05.100Z",
                             "first_observed_absent": "2026-01-01T10:00:15.000Z"},
                            {"kind": "Release", "name": "b", "finalizers": ["convoy.io/hooks"],
                             "first_observed_terminating": "2026-01-01T10:00:05.100Z", "first_observed_absent": None}]}],
}


def test_prune_releases_draws_each_batch_and_each_release():
    ch = T.chart(PRUNE)
    assert ch["kind"] == "release_prune"
    rows = dict((r["label"], r) for r in ch["rows"])
    assert rows["Releases of batch 1 gone"]["open"] and rows["Releases of batch 1 gone"]["end"] == T.epoch(
        "2026-01-01T10:01:05.000Z")
    a, b = rows["Release a"], rows["Release b"]
    assert not a["open"] and a["end"] - a["start"] == pytest.approx(10.0)
    assert b["open"] and "convoy.io/hooks" in b["note"] and "preDelete hook job b-pre failed" in b["note"]
    page = H.render_html(PRUNE)
    assert 'data-label="Release b"' in page and "incomplete" in page
    assert "Release b (OPEN) :crit, " in T.render_mermaid(ch)


CFN = {
    "role": "teardown.gates.cfn_refusals", "started": "2026-01-01T10:00:00.000Z", "finished": "2026-01-01T10:00:40.000Z",
    "stacks": [
        {"stack": "app", "status": "DELETE_COMPLETE", "error": "", "retained": [],
         "refusals": [{"logical_id": "Logs", "type": "AWS::S3::Bucket", "class": "BucketNotEmpty", "remedy": "empty_buckets",
                       "action": "cleared"}],
         "events": [{"timestamp": "2026-01-01T10:00:01.000Z", "type": "AWS::CloudFormation::Stack", "status": "DELETE_IN_PROGRESS"},
                    {"timestamp": "2026-01-01T10:00:04.000Z", "type": "AWS::S3::Bucket", "status": "DELETE_FAILED"},
                    {"timestamp": "2026-01-01T10:00:05.000Z", "type": "AWS::CloudFormation::Stack", "status": "DELETE_FAILED"},
                    {"timestamp": "2026-01-01T10:00:09.000Z", "type": "AWS::CloudFormation::Stack", "status": "DELETE_IN_PROGRESS"},
                    {"timestamp": "2026-01-01T10:00:20.000Z", "type": "AWS::CloudFormation::Stack", "status": "DELETE_COMPLETE"}]},
        {"stack": "db", "status": "DELETE_FAILED", "error": "Data: DeleteConflict, no remedy allowed", "retained": [],
         "refusals": [], "events": [{"timestamp": "2026-01-01T10:00:21.000Z", "type": "AWS::CloudFormation::Stack",
                                     "status": "DELETE_IN_PROGRESS"}]},
        {"stack": "gone", "status": "NOT_FOUND", "refusals": [], "retained": [], "error": "", "events": []},
    ],
}


def test_clear_cfn_refusals_marks_the_refusal_and_the_re_delete():
    ch = T.chart(CFN)
    assert ch["kind"] == "cfn"
    app, db, gone = ch["rows"]
    assert app["end"] - app["start"] == pytest.approx(19.0) and not app["open"]
    assert [m["label"] for m in app["marks"]] == ["DELETE_FAILED", "deleted again"]
    assert "Logs BucketNotEmpty: empty_buckets, cleared" in app["note"]
    assert db["open"] and db["end"] == T.epoch(CFN["finished"]) and "DeleteConflict" in db["note"]
    assert gone["start"] is None and gone["note"] == "already gone"
    page = H.render_html(CFN)
    assert "1 stack(s) not deleted" in page
    md = H.render_markdown(CFN)
    assert md.startswith("# CloudFormation stacks out of DELETE_FAILED") and "```mermaid" in md


HELD = {
    "namespace": "infra", "kind": "TerraformCluster", "check_mode": False, "started_at": "2026-01-01T10:00:00.000Z",
    "finished_at": "2026-01-01T10:00:30.000Z",
    "plan": [{"name": "lost", "uid": "u1", "held": True, "reason": "StateLost", "action": "restore"},
             {"name": "stuck", "uid": "u2", "held": True, "reason": "DependentsExist", "action": "none"}],
    "waits": [{"name": "TerraformCluster infra/lost released", "state": "passed", "started": "2026-01-01T10:00:04.000Z",
               "passed_at": "2026-01-01T10:00:12.000Z"}],
    "restored": ["lost"], "abandoned": [], "saved_state": [],
    "still_held": [{"name": "stuck", "uid": "u2", "reason": "DependentsExist", "action_taken": "none",
                    "message": "2 workspaces still reference it"}],
}


def test_release_held_deletion_draws_the_hold_then_the_restore():
    ch = T.chart(HELD)
    assert ch["kind"] == "held_deletion"
    labels = [(r["section"], r["label"], r["open"]) for r in ch["rows"]]
    assert labels == [("Held", "TerraformCluster lost: restore", False), ("Held", "TerraformCluster stuck: none", True),
                      ("Released", "TerraformCluster infra/lost released", False)]
    assert "2 workspaces still reference it" in ch["rows"][1]["note"]
    assert "1 still held" in H.render_html(HELD)


def test_each_report_names_its_own_kind():
    assert [T.chart(r)["kind"] for r in (load("report-verified.json"), PRUNE, CFN, HELD)] == [
        "hosted_cluster", "release_prune", "cfn", "held_deletion"]


def test_a_resumed_run_keeps_its_own_axis():
    """The HostedCluster was deleted by an earlier run, hours ago: that is not drawn on this run's axis."""
    report = load("report-verified.json")
    report["milestones"]["hc_deletion_timestamp"] = "2026-11-29T09:00:00Z"
    ch = T.chart(report)
    assert ch["t0"] == T.epoch(report["milestones"]["started"])
    assert "delete requested" not in [m["label"] for m in ch["milestones"]]
