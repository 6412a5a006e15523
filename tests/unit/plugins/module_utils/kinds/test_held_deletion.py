# -*- coding: utf-8 -*-
"""kinds/held_deletion.py: the held-deletion plan (restores, then abandons, the rest kept), the hint
rules over a Terraform state hold, and the permissions its options need.
The plan tests moved here from test_kind_plans.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import held_deletion, registry


def test_held_deletion_plans_restores_then_abandons_and_keeps_the_rest():
    decided = [{"name": "b", "uid": "ub", "action": "abandon"}, {"name": "a", "uid": "ua", "action": "restore", "backup_serial": 7},
               {"name": "c", "uid": "uc", "action": "none", "reason": "DependentsExist"}]
    plan = registry.planner("held_deletion")({"plan": decided}, {"namespace": "ns", "held_kind": "Workspace", "abandon_uid": "ub"})
    assert [(e["order"], e["action"], e["id"]) for e in plan["entries"]] == [(1, "restore", "ns/a"), (2, "abandon", "ns/b")]
    assert "backup serial 7" in plan["entries"][0]["detail"]
    assert plan["kept"] == [{"type": "Workspace", "id": "ns/c", "reason": "left alone: DependentsExist"}]
