# -*- coding: utf-8 -*-
"""report/html.py: the self-contained HTML page of a report and the fleet index. The page needs nothing from
outside and escapes what came from the cluster; the index lists the worst run first; durations, clipping and the
headline verdict (check mode is a plan, never a result). The page tests on the stored reports moved here from
test_timeline.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.report import html as H

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")  # shared with plugins/modules tests


def load(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def test_the_page_of_a_refused_plan_says_it_is_not_resumed():
    report = load("report-stopped.json")
    report["stopped"] = dict(report["stopped"], plan_refused=True, phase=1, resume="not with the same variables: run a new check")
    page = H.render_html(report)
    assert "the approved plan was refused, the run is not resumed: not with the same variables: run a new check" in page
    assert "resume: <code>" not in page


def test_the_page_needs_nothing_from_outside():
    for name in ("report-verified.json", "report-stopped.json"):
        page = H.render_html(load(name))
        assert "<script" not in page
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
        assert "@import" not in page and "url(http" not in page


def test_text_from_the_cluster_is_escaped():
    report = load("report-stopped.json")
    report["stopped"]["message"] = "<img src=x onerror=alert(1)>"
    report["gates"][1]["name"] = "a <b> & c"
    page = H.render_html(report)
    assert "<img src=x" not in page and "&lt;img src=x" in page
    assert "a &lt;b&gt; &amp; c" in page
    ET.fromstring(re.search(r"<svg .*?</svg>", page, re.S).group(0))  # still well-formed


def test_fleet_index_lists_worst_first_and_links_each_page():
    verified, stopped = load("report-verified.json"), load("report-stopped.json")
    unverified = dict(verified, verified=False, remaining=[{"type": "AWS::EC2::VPC", "id": "vpc-9", "outcome": "failed"}])
    unverified["cluster"] = dict(verified["cluster"], name="leaky")
    page = H.render_index([("clusters-demo-213650.html", verified), ("clusters-leaky.html", unverified),
                           ("clusters-stuck-213650.html", stopped)])
    hrefs = re.findall(r'<a href="([^"]+)">', page)
    assert hrefs == ["clusters-stuck-213650.html", "clusters-leaky.html", "clusters-demo-213650.html"]
    assert "3 clusters, 2 not verified" in page
    assert "1: vpc-9" in page
    assert page.count("unknown: not verified") == 1  # the stopped run lists nothing, and does not know
    assert "Phase 3 | Wait for HostedControlPlane gone" in page


@pytest.mark.parametrize("seconds,text", [
    (None, "-"), (0, "0.00 s"), (9.994, "9.99 s"), (10, "10.0 s"), (119.94, "119.9 s"), (120, "2m00s"),
    (3725.6, "62m06s")])
def test_durations_are_short_and_keep_the_precision_that_matters(seconds, text):
    assert H._fmt_s(seconds) == text


def test_clip_keeps_short_text_and_ends_long_text_with_an_ellipsis():
    assert H._clip("abc", 3) == "abc" and H._clip(12345, 4) == "123\u2026"


def test_layout_scales_the_span_to_the_width_and_gives_notes_room():
    rows = [{"section": "Gates", "note": "passed quietly", "open": False},
            {"section": "Gates", "note": "open (timeout)", "open": True},
            {"section": "AWS", "note": "", "open": False}]
    scale, places, height = H.layout({"t0": 100.0, "t1": 200.0, "rows": rows})
    assert scale == (H.RIGHT - H.LEFT) / 100.0
    # a closed gate's note is not drawn; an open one's is; a new section starts lower
    assert places == [H.TOP + 18, H.TOP + 18 + H.ROW_H, H.TOP + 18 + 2 * H.ROW_H + H.NOTE_H + 18]
    assert height == places[-1] + H.ROW_H + 28
    # a chart of one instant still has a scale
    assert H.layout({"t0": 5.0, "t1": 5.0, "rows": []})[0] == (H.RIGHT - H.LEFT) / 0.001


def test_the_headline_of_a_check_mode_report_is_a_plan_whatever_else_it_says():
    assert H.verdict({"check_mode": True, "verified": True}, "hosted_cluster") == (
        "plan", "check mode: plan only, nothing changed")
    assert H.verdict({"verified": True}, "hosted_cluster") == ("ok", "verified")
    assert H.verdict({"stacks": [{"status": "DELETE_FAILED"}]}, "cfn") == ("bad", "1 stack(s) not deleted")


def test_fleet_rows_rank_not_finished_then_unverified_then_check_mode_then_verified():
    def rep(name, **kw):
        base = {"cluster": {"namespace": "clusters", "name": name},
                "milestones": {"started": "2026-01-01T00:00:00Z", "finished": "2026-01-01T00:01:00Z"}}
        base.update(kw)
        return ("%s.html" % name, base)
    rows = H.fleet_rows([rep("v", verified=True), rep("plan", check_mode=True), rep("cmd", command_succeeded=True),
                         rep("stuck", stopped={"gate": "NodePools"}, milestones={}),
                         rep("leak", command_succeeded=True, remaining=[{"id": "vpc-1"}, {"what": "a role"}])])
    assert [(r["cluster"], r["rank"]) for r in rows] == [
        ("clusters/stuck", 0), ("clusters/leak", 1), ("clusters/cmd", 1), ("clusters/plan", 2), ("clusters/v", 3)]
    leak = rows[1]
    assert (leak["remaining"], leak["seconds"], leak["href"]) == (["vpc-1", "a role"], 60.0, "leak.html")
    assert (rows[0]["seconds"], rows[0]["stopped_at"]) == (None, "NodePools")


def test_the_index_of_a_verified_run_says_none_remain_and_clips_a_long_remaining_list():
    verified = ("v.html", {"cluster": {"namespace": "c", "name": "v"}, "verified": True})
    leaky = ("l.html", {"cluster": {"namespace": "c", "name": "l"}, "command_succeeded": True,
                        "remaining": [{"id": "id-%d" % n} for n in range(5)]})
    page = H.render_index([verified, leaky])
    assert "2 clusters, 1 not verified" in page
    assert "<td>none</td>" in page and "5: id-0, id-1, id-2, \u2026" in page


def test_the_markdown_of_a_kind_without_its_own_is_the_verdict_and_the_mermaid_timeline():
    report = {"role": "teardown.gates.release_prune", "outcome": "pruned", "input": {"release_namespace": "team-a"},
              "started": "2026-01-01T00:00:00Z", "finished": "2026-01-01T00:00:30Z", "waits": []}
    md = H.render_markdown(report)
    assert md.startswith("# Prune of convoy Releases in team-a\n\n**Result: pruned**\n\n## Timeline\n")
    assert "```mermaid" in md
