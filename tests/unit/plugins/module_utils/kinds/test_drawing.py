# -*- coding: utf-8 -*-
"""kinds/drawing.py: the pieces every kind's chart and page are drawn from. A gate result becomes a row (open while
it never passed, held by what remained), AWS IDs become a row per type with what they waited on, and the HTML
helpers escape whatever came from the cluster."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.kinds import drawing as D

T0 = "2026-01-01T00:00:00Z"


def at(seconds):
    return "2026-01-01T00:%02d:%02dZ" % divmod(seconds, 60)


def test_epoch_reads_the_collections_times_and_nothing_else():
    assert D.epoch("1970-01-01T00:01:40Z") == 100.0
    assert D.epoch("1970-01-01T00:00:00.250Z") == 0.25
    assert D.epoch(None) is None and D.epoch("soon") is None


def test_a_passed_gate_is_a_closed_row_from_start_to_pass_with_its_first_terminating_mark():
    g = {"name": "NodePools", "state": "passed", "started": at(0), "passed_at": at(30),
         "first_observed_terminating": at(5)}
    r = D.gate_row(g, "Gates", D.epoch(at(90)))
    assert (r["section"], r["label"], r["state"], r["open"], r["note"]) == ("Gates", "NodePools", "passed", False, "")
    assert r["end"] - r["start"] == 30
    assert r["marks"] == [{"label": "first terminating", "at": D.epoch(at(5)), "kind": "terminating"}]


@pytest.mark.parametrize("extra,length", [
    ({"ended": at(20)}, 20), ({"duration_s": 12}, 12), ({"duration": "7.5"}, 7.5), ({}, 90)])
def test_an_open_gate_ends_when_it_ended_after_its_duration_or_at_the_runs_end(extra, length):
    g = dict({"name": "HostedControlPlane", "state": "timeout", "started": at(0)}, **extra)
    r = D.gate_row(g, "Gates", D.epoch(at(90)))
    assert r["open"] is True and r["end"] - r["start"] == length


def test_an_open_gate_names_what_held_it_or_its_reason():
    remaining = [{"kind": "HostedControlPlane", "namespace": "clusters-a", "name": "a",
                  "finalizers": ["hypershift.openshift.io/finalizer"]}, {"name": "b"}]
    g = {"state": "timeout", "started": at(0), "remaining": remaining, "reason": "ignored when something remains"}
    assert D.gate_row(g, "Gates", None)["note"] == (
        "open (timeout): held by HostedControlPlane clusters-a/a (finalizers: hypershift.openshift.io/finalizer); "
        "object b")
    g = {"state": "unknown", "started": at(0), "reason": "the API server did not answer"}
    assert D.gate_row(g, "Gates", None)["note"] == "open (unknown): the API server did not answer"


def test_a_gate_that_never_started_has_no_bar_and_says_its_state_in_words():
    r = D.gate_row({"state": "not_started"}, "Gates", 100.0)
    assert (r["label"], r["start"], r["end"], r["open"], r["note"]) == ("gate", None, None, False, "not started")


def test_aws_rows_are_one_per_type_in_the_order_their_deletes_began():
    report = {"aws": {
        "deleted": [{"type": "AWS::EC2::Subnet", "id": "subnet-1", "started": at(10), "ended": at(20),
                     "waited_on": [{"type": "AWS::EC2::NetworkInterface", "id": "eni-1", "state": "in-use",
                                    "at": at(12)}]},
                    {"type": "AWS::EC2::Subnet", "id": "subnet-2", "started": at(11), "ended": at(25),
                     "waited_on": [{"type": "AWS::EC2::NetworkInterface", "id": "eni-1", "state": "in-use"}]},
                    {"type": "AWS::EC2::Instance", "id": "i-1", "started": at(2), "ended": at(8)}],
        "absent": [{"type": "AWS::EC2::VPC", "id": "vpc-1"}],  # no recorded time: not drawn
        "remaining": [{"type": "AWS::IAM::Role", "id": "r-1", "started": at(30)}]}}
    rows = D.aws_rows(report, D.epoch(at(60)))
    assert [r["label"] for r in rows] == ["Instance", "Subnet", "Role"]
    subnet = rows[1]
    assert subnet["note"] == "2 IDs; waited on NetworkInterface eni-1 (in-use)"
    assert subnet["end"] - subnet["start"] == 15
    assert [m["label"] for m in subnet["marks"]] == ["refused: waits on NetworkInterface eni-1"]
    role = rows[2]
    assert (role["state"], role["open"], role["end"]) == ("failed", True, D.epoch(at(60)))
    assert role["note"] == "1 ID; NOT deleted: r-1"


def test_a_report_without_aws_times_has_no_aws_rows():
    assert D.aws_rows({"aws": {"deleted": [{"type": "AWS::EC2::VPC", "id": "vpc-1"}]}}, 0.0) == []
    assert D.aws_rows({}, 0.0) == []


def test_finish_spans_every_time_drawn_and_drops_milestones_without_a_time():
    rows = [D.row("A", "a", "passed", 10.0, 20.0, marks=[{"label": "m", "at": 25.0, "kind": "refused"}])]
    chart = D.finish("k", "title", rows, [{"label": "done", "at": 30.0}, {"label": "never", "at": None}], t0=5.0)
    assert (chart["t0"], chart["t1"]) == (5.0, 30.0)
    assert [m["label"] for m in chart["milestones"]] == ["done"]
    assert (D.finish("k", "t", [], [])["t0"], D.finish("k", "t", [], [])["t1"]) == (0.0, 0.0)


def test_the_html_helpers_escape_what_came_from_the_cluster():
    assert D.esc('<b a="1">') == "&lt;b a=&quot;1&quot;&gt;" and D.esc(None) == "-" and D.esc(0) == "0"
    assert D.html_list([]) == "<p>None.</p>"
    assert D.html_list(["<i>already escaped</i>"]) == "<ul><li><i>already escaped</i></li></ul>"
    assert D.html_table(["a<"], [("x&", None)]) == "<table><tr><th>a&lt;</th></tr><tr><td>x&amp;</td><td>-</td></tr></table>"
    assert D.html_table([], []) == "<table></table>"
    assert D.aws_id({"type": "AWS::EC2::VPC", "id": "vpc-<1>"}) == "<code>AWS::EC2::VPC</code> vpc-&lt;1&gt;"


def test_condition_is_the_first_of_its_type():
    conds = ["junk", {"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}]
    assert D.condition(conds, "Ready") == {"type": "Ready", "status": "False"}
    assert D.condition(conds, "Deleting") is None and D.condition(None, "Ready") is None
