# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.held_deletion_messages import held_deletion_unreleased_message

# the plan and the deletions still held as the role builds them (phases 3 and 7), reduced to what the message reads
PLAN = [{"name": "edge", "uid": "u-edge", "held": True, "action": "restore"}, {"name": "core", "uid": "u-core", "held": True, "action": "none"}]
UNRESOLVED = [
    {"name": "edge", "uid": "u-edge", "reason": "DestroyFailed", "message": "terraform destroy failed: AccessDenied on s3:DeleteBucket.",
     "options": [{"action": "restore", "backup_serial": 7}, {"action": "abandon"}], "action_taken": "restore"},
    {"name": "core", "uid": "u-core", "reason": "Paused", "message": "The object is paused.", "options": [], "action_taken": "none"},
]


def test_each_held_deletion_with_its_reason_diagnosis_and_ways_out():
    assert held_deletion_unreleased_message(UNRESOLVED, "TerraformCluster", "team-a", "", PLAN) == (
        "2 TerraformCluster deletion(s) in team-a not released: edge (u-edge): DestroyFailed after action restore - terraform "
        "destroy failed: AccessDenied on s3:DeleteBucket. Ways out: restore, abandon. core (u-core): Paused after action none - "
        "The object is paused. Ways out: none from here.  ")


def test_an_abandon_uid_of_the_plan_adds_nothing():
    assert held_deletion_unreleased_message(UNRESOLVED[1:], "TerraformCluster", "team-a", "u-core", PLAN) == (
        "1 TerraformCluster deletion(s) in team-a not released: core (u-core): Paused after action none - The object is paused. "
        "Ways out: none from here.  ")


def test_an_abandon_uid_of_no_held_object_says_nothing_was_abandoned():
    assert held_deletion_unreleased_message(UNRESOLVED[1:], "TerraformMachine", "team-b", "u-typo", PLAN) == (
        "1 TerraformMachine deletion(s) in team-b not released: core (u-core): Paused after action none - The object is paused. "
        "Ways out: none from here.  abandon_uid u-typo is the UID of none of the held objects; nothing was abandoned.")


def test_null_fields_print_as_nothing_and_a_null_action_as_none():
    absent = {"name": "pool", "uid": None, "reason": None, "message": "", "options": [{"action": None}], "action_taken": "abandon"}
    assert held_deletion_unreleased_message([absent], "TerraformMachinePool", "team-c", "u-pool") == (
        "1 TerraformMachinePool deletion(s) in team-c not released: pool ():  after action abandon -  Ways out: None.  "
        "abandon_uid u-pool is the UID of none of the held objects; nothing was abandoned.")


def test_no_deletion():
    assert held_deletion_unreleased_message([], "TerraformCluster", "team-a") == "0 TerraformCluster deletion(s) in team-a not released:  "


@pytest.mark.parametrize("call", [
    lambda: held_deletion_unreleased_message(None, "TerraformCluster", "team-a"),
    lambda: held_deletion_unreleased_message({"name": "edge"}, "TerraformCluster", "team-a"),
    lambda: held_deletion_unreleased_message(UNRESOLVED, "TerraformCluster", "team-a", "u-edge", {"uid": "u-edge"}),
])
def test_refuses_what_is_not_a_list(call):
    with pytest.raises(AnsibleFilterError, match="held_deletion_unreleased_message: expects"):
        call()
