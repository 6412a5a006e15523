# -*- coding: utf-8 -*-
"""kinds/release_prune.py: the prune's plan (releases in batches, what convoy prunes), its report
verdict, the unreachable-cluster hint rule.
The plan tests moved here from test_kind_plans.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import release_prune, registry


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
