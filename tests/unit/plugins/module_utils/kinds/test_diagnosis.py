# -*- coding: utf-8 -*-
"""kinds/diagnosis.py: the diagnosis kind's page. Its plan is empty (it changes nothing), it claims the reports of
its role, its chart draws the object from its deletion request with one row per blocker, and its verdict names what
holds the object. (Its verdict on a real k8s/deletion_diagnosis report is also checked in
k8s/test_deletion_diagnosis.py.)"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import diagnosis as page
from ansible_collections.teardown.gates.plugins.module_utils.kinds.drawing import epoch


def report(**kw):
    base = {"role": "teardown.gates.diagnose_deletion", "state": "present",
            "target": {"kind": "Namespace", "name": "team-a"},
            "started": "2026-01-01T00:10:00Z", "finished": "2026-01-01T00:10:30Z",
            "object": {"deletion_timestamp": "2026-01-01T00:00:00Z"},
            "blockers": [{"what": "finalizer", "name": "kubernetes", "detail": "3 objects left"},
                         {"what": "webhook", "name": "w.<x>"}]}
    base.update(kw)
    return base


def test_the_plan_is_empty_whatever_the_world_holds():
    plan = page.plan({"anything": [1, 2]}, {"namespace": "x"})
    assert (plan["kind"], plan["entries"], plan["kept"], plan["unknown"]) == ("diagnosis", [], [], [])


def test_claims_only_the_reports_of_its_role():
    assert page.claims(report()) and not page.claims(report(role="teardown.gates.release_prune"))


def test_the_chart_starts_at_the_deletion_request_and_draws_each_blocker():
    chart = page.chart(report())
    obj, first_blocker = chart["rows"][0], chart["rows"][1]
    assert chart["title"] == "Why won't Namespace team-a delete"
    assert (obj["start"], obj["end"], obj["open"]) == (
        epoch("2026-01-01T00:00:00Z"), epoch("2026-01-01T00:10:30Z"), True)
    assert obj["note"] == "finalizer kubernetes; webhook w.<x>"
    assert [m["label"] for m in obj["marks"]] == ["deletion requested"]
    assert (first_blocker["section"], first_blocker["label"], first_blocker["note"]) == (
        "Blockers", "finalizer kubernetes", "3 objects left")
    assert [m["label"] for m in chart["milestones"]] == ["diagnosed"]


def test_an_object_not_deleting_is_drawn_from_the_runs_start_and_a_namespaced_one_is_named_with_its_namespace():
    chart = page.chart(report(object={}, blockers=[], state="absent",
                              target={"kind": "Pod", "namespace": "ns", "name": "p"}))
    [obj] = chart["rows"]
    assert obj["label"] == "Pod ns/p" and obj["start"] == epoch("2026-01-01T00:10:00Z")
    assert (obj["open"], obj["note"], obj["marks"]) == (False, "absent", [])


def test_verdict():
    assert page.verdict(report(state="absent")) == ("ok", "absent: nothing to diagnose")
    assert page.verdict(report(state="unknown")) == ("bad", "unknown: the object could not be read")
    assert page.verdict(report()) == ("bad", "held by finalizer kubernetes; webhook w.<x>")
    assert page.verdict(report(blockers=[])) == ("bad", "present, no blocker observed")
    many = [{"what": "finalizer", "name": str(n)} for n in range(7)]
    assert page.verdict(report(blockers=many))[1].count(";") == 4  # the first five only


def test_the_body_escapes_the_blockers_and_says_when_nothing_is_there():
    body = page.body(report(ways_out=[]))
    assert "w.&lt;x&gt;" in body and "w.<x>" not in body
    assert "<h2>The way out</h2>\n<p>None.</p>" in body
