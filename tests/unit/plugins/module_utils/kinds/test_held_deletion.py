# -*- coding: utf-8 -*-
"""kinds/held_deletion.py: the held-deletion plan (restores, then abandons, the rest kept), the hint
rules over a Terraform state hold, and the permissions its options need.
The plan tests moved here from test_kind_plans.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.kinds import held_deletion, registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib


def test_held_deletion_plans_restores_then_abandons_and_keeps_the_rest():
    decided = [{"name": "b", "uid": "ub", "action": "abandon"}, {"name": "a", "uid": "ua", "action": "restore", "backup_serial": 7},
               {"name": "c", "uid": "uc", "action": "none", "reason": "DependentsExist"}]
    plan = registry.planner("held_deletion")({"plan": decided}, {"namespace": "ns", "held_kind": "Workspace", "abandon_uid": "ub"})
    assert [(e["order"], e["action"], e["id"]) for e in plan["entries"]] == [(1, "restore", "ns/a"), (2, "abandon", "ns/b")]
    assert "backup serial 7" in plan["entries"][0]["detail"]
    assert plan["kept"] == [{"type": "Workspace", "id": "ns/c", "reason": "left alone: DependentsExist"}]


def view(*conditions):
    return {"conditions": list(conditions)}


@pytest.mark.parametrize("reason", ["StateLost", "StateCorrupt", "StateEncrypted", "StateInconsistent"])
def test_a_state_hold_names_restore_and_abandon(reason):
    [(where, hint)] = held_deletion.state_hold_rule(view({"type": "StateReadable", "status": "False", "reason": reason}))
    assert where == "first" and ("(%s)" % reason) in hint
    assert "captf.io/restore-state" in hint and "captf.io/abandon-infrastructure=<uid>" in hint


def test_a_state_lock_is_not_a_hold_and_a_readable_state_says_nothing():
    [(where, hint)] = held_deletion.state_hold_rule(view({"type": "StateReadable", "status": "False",
                                                          "reason": "StateLocked"}))
    assert hint.startswith("StateLocked is not a hold")
    assert held_deletion.state_hold_rule(view({"type": "StateReadable", "status": "True", "reason": "Read"})) == []
    assert held_deletion.state_hold_rule(view()) == []


def test_deletion_blocked_quotes_its_reason_and_message():
    blocked = {"type": "DeletionBlocked", "status": "True", "reason": "Dependents"}
    assert held_deletion.deletion_blocked_rule(view(dict(blocked, message="2 machines"))) == [
        ("first", "DeletionBlocked (Dependents): 2 machines")]
    assert held_deletion.deletion_blocked_rule(view(blocked)) == [
        ("first", "DeletionBlocked (Dependents): dependents remain")]
    assert held_deletion.deletion_blocked_rule(view(dict(blocked, status="False"))) == []


def test_a_failed_destroy_job_is_hinted_last():
    failed = {"type": "ApplyJobSucceeded", "status": "False", "reason": "BackoffLimitExceeded"}
    [(where, hint)] = held_deletion.destroy_job_rule(view(failed))
    assert where == "last" and "(BackoffLimitExceeded)" in hint
    assert held_deletion.destroy_job_rule(view(dict(failed, status="True"))) == []


def test_it_claims_any_report_as_the_last_page_kind():
    assert held_deletion.claims({}) and not held_deletion.claims([])


def test_verdict_counts_what_is_still_held():
    assert held_deletion.verdict({"still_held": ["a", "b"]}) == ("bad", "2 still held")
    assert held_deletion.verdict({"still_held": []}) == ("ok", "released")


@pytest.mark.parametrize("kind,plural", [
    ("TerraformMachine", "terraformmachines"), (None, "terraformclusters"), ("Unknown", "")])
def test_permission_options_add_the_plural_of_the_held_kind(kind, plural):
    options = {"held_kind": kind, "held_namespace": "ns"}
    assert held_deletion.permission_options(options) == dict(options, held_resource=plural)


def test_held_deletion_a_protected_object_is_kept_with_the_reason_and_changes_the_digest():
    options = {"namespace": "ns", "held_kind": "Workspace", "abandon_uid": "ub"}
    plain = registry.planner("held_deletion")({"plan": [{"name": "b", "uid": "ub", "action": "abandon"}]}, options)
    kept = registry.planner("held_deletion")({"plan": [{"name": "b", "uid": "ub", "action": "none", "reason": "DestroyFailed",
                                                        "kept": "labelled teardown.gates/protected"}]}, options)
    assert kept["entries"] == []
    assert kept["kept"] == [{"type": "Workspace", "id": "ns/b", "reason": "labelled teardown.gates/protected"}]
    assert planlib.plan_digest(plain) != planlib.plan_digest(kept)


def test_held_deletion_a_young_object_is_kept_with_the_reason_and_min_age_is_in_the_digest():
    young = "created 2026-12-05T01:30:00Z, less than min_age (3600 s) ago"
    decided = [{"name": "old", "uid": "u1", "action": "restore", "backup_serial": 7},
               {"name": "new", "uid": "u2", "action": "none", "kept": young, "reason": "DestroyFailed"}]
    p = registry.planner("held_deletion")({"plan": decided}, {"namespace": "ns", "held_kind": "TerraformCluster", "min_age": 3600})
    assert [(e["action"], e["id"]) for e in p["entries"]] == [("restore", "ns/old")]
    assert p["kept"] == [{"type": "TerraformCluster", "id": "ns/new", "reason": young}]
    assert p["options"]["min_age"] == 3600
    off = registry.planner("held_deletion")({"plan": decided}, {"namespace": "ns", "held_kind": "TerraformCluster", "min_age": 0})
    assert planlib.plan_digest(off) != planlib.plan_digest(p)
