# -*- coding: utf-8 -*-
"""kinds/release_prune.py: the prune's plan (releases in batches, what convoy prunes), its report
verdict, the unreachable-cluster hint rule.
The plan tests moved here from test_kind_plans.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import release_prune, registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib


def test_release_prune_batches_the_releases_and_lists_what_convoy_prunes():
    info = {"releases": [
        {"name": "r2", "uid": "u2", "state": "present", "deleting": False,
         "inventory": {"entries": [{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "app", "name": "cm"}]}},
        {"name": "r1", "uid": "u1", "state": "present", "deleting": True, "inventory": {"entries": []}},
    ], "absent_names": ["r0"], "clusters": []}
    plan = registry.planner("release_prune")({"info": info}, {"namespace": "team-a", "batch_size": 1, "prune_cluster": False, "timeout": 600})
    assert [(e["order"], e["action"], e["id"]) for e in plan["entries"]] == [
        (10, "wait", "team-a/r1"), (12, "delete", "team-a/r2"), (13, "pruned by convoy", "app/cm")]
    assert "timeout" not in plan["options"]
    assert plan["kept"] == [{"type": "Release", "id": "team-a/r0", "reason": "already absent"}]


def test_an_unreachable_convoy_cluster_is_hinted_first():
    cluster = {"kind": "Cluster", "group": "core.convoy.kumodo.io", "status": {"reachable": False}}
    [(where, hint)] = release_prune.unreachable_cluster_rule(cluster)
    assert where == "first" and "status.reachable is false" in hint
    # reachable, unknown, or a Cluster of another group (CAPI's) says nothing
    assert release_prune.unreachable_cluster_rule(dict(cluster, status={"reachable": True})) == []
    assert release_prune.unreachable_cluster_rule(dict(cluster, status={})) == []
    assert release_prune.unreachable_cluster_rule(dict(cluster, group="cluster.x-k8s.io")) == []


def test_claims_only_the_reports_of_its_role():
    assert release_prune.claims({"role": "teardown.gates.release_prune"})
    assert not release_prune.claims({"role": "teardown.gates.diagnose_deletion"}) and not release_prune.claims({})


def test_verdict_is_ok_only_when_pruned():
    assert release_prune.verdict({"outcome": "pruned"}) == ("ok", "pruned")
    assert release_prune.verdict({"outcome": "timeout"}) == ("bad", "timeout")
    assert release_prune.verdict({}) == ("bad", "None")


def test_the_chart_draws_a_release_never_seen_absent_open_with_what_held_it():
    report = {"started": "2026-01-01T00:00:00Z", "finished": "2026-01-01T00:01:00Z", "outcome": "timeout",
              "input": {"release_namespace": "team-a"},
              "held": [{"name": "r2", "diagnosis": ["a preDelete hook failed"]}],
              "waits": [{"name": "batch 1", "state": "timeout", "started": "2026-01-01T00:00:00Z",
                         "finished": "2026-01-01T00:01:00Z",
                         "releases": [{"name": "r1", "first_observed_absent": "2026-01-01T00:00:30Z",
                                       "first_observed_terminating": "2026-01-01T00:00:10Z"},
                                      {"name": "r2", "finalizers": ["core.convoy.kumodo.io/release"]}]}]}
    chart = release_prune.chart(report)
    assert chart["title"] == "Prune of convoy Releases in team-a"
    releases = dict((r["label"], r) for r in chart["rows"] if r["section"] == "Releases")
    assert (releases["Release r1"]["state"], releases["Release r1"]["open"]) == ("deleted", False)
    assert [m["label"] for m in releases["Release r1"]["marks"]] == ["first terminating"]
    assert releases["Release r2"]["open"] is True
    assert releases["Release r2"]["note"] == (
        "not gone: finalizers core.convoy.kumodo.io/release; a preDelete hook failed")


def test_release_prune_a_protected_release_is_kept_and_holds_its_cluster():
    info = {"releases": [{"name": "r1", "uid": "u1", "state": "present", "deleting": False, "inventory": {"entries": []}}],
            "clusters": [{"name": "c1", "uid": "uc", "state": "present", "prune_releases": True}], "absent_names": []}
    options = {"namespace": "team-a", "batch_size": 1, "prune_cluster": True, "cluster_name": "c1"}
    plain = registry.planner("release_prune")({"info": info}, options)
    assert (1, "delete", "team-a/c1") in [(e["order"], e["action"], e["id"]) for e in plain["entries"]]
    info["protected"] = [{"name": "r2", "uid": "u2", "cluster": "c1", "reason": "labelled teardown.gates/protected"}]
    kept = registry.planner("release_prune")({"info": info}, options)
    assert "team-a/c1" not in [e["id"] for e in kept["entries"]] and "team-a/r2" not in [e["id"] for e in kept["entries"]]
    assert {(k["type"], k["id"], k["reason"]) for k in kept["kept"]} == {
        ("Release", "team-a/r2", "labelled teardown.gates/protected"), ("Cluster", "team-a/c1", "holds kept Release(s) r2")}
    assert planlib.plan_digest(plain) != planlib.plan_digest(kept)


def test_release_prune_a_release_younger_than_min_age_is_kept_with_the_reason_and_holds_its_cluster():
    young = "created 2026-12-05T01:02:03Z, less than min_age (3600 s) ago"
    info = {"releases": [{"name": "old", "uid": "u1", "state": "present", "deleting": False, "inventory": {"entries": []}}],
            "clusters": [{"name": "c1", "uid": "uc", "state": "present", "prune_releases": False}], "absent_names": [],
            "protected": [{"name": "new", "uid": "u2", "cluster": "c1", "reason": young}]}
    options = {"namespace": "team-a", "batch_size": 1, "prune_cluster": True, "cluster_name": "c1", "min_age": 3600}
    p = registry.planner("release_prune")({"info": info}, options)
    assert [(e["action"], e["id"]) for e in p["entries"]] == [("delete", "team-a/old")]
    assert {(k["type"], k["id"], k["reason"]) for k in p["kept"]} == {
        ("Release", "team-a/new", young), ("Cluster", "team-a/c1", "holds kept Release(s) new")}
    # min_age shapes the plan: it is in the options, so in the digest
    assert p["options"]["min_age"] == 3600
    off = registry.planner("release_prune")({"info": dict(info, protected=[])}, dict(options, min_age=0))
    assert off["options"]["min_age"] == 0 and planlib.plan_digest(off) != planlib.plan_digest(p)
