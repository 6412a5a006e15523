# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.held_deletion_plan import decide, restore_options, still_held

RESTORE_7 = {"action": "restore", "backup_serial": 7}
RESTORE_5 = {"action": "restore", "backup_serial": 5}


def held(**over):
    """One result of the held_deletion diagnosis, as the role's Phase 3 loops over them."""
    result = {"item": "edge", "uid": "u-edge", "held": True, "hold_type": "state", "reason": "DestroyFailed",
              "diagnosis": {"options": [{"action": "abandon"}, RESTORE_7, RESTORE_5]}}
    result.update(over)
    return result


def test_a_state_hold_with_a_backup_is_restored_from_the_first_restore_option():
    assert decide(held(), True, "", "") == {"action": "restore", "backup_serial": 7}


def test_restore_wins_over_a_confirmed_abandon():
    assert decide(held(), "yes", "u-edge", "")["action"] == "restore"


@pytest.mark.parametrize("over, prefer", [
    ({"hold_type": "finalizer"}, True),            # not a state hold
    ({"diagnosis": {"options": [{"action": "abandon"}]}}, True),  # no backup to restore
    ({"diagnosis": {}}, True),                     # no options at all
    ({}, False),                                   # the operator prefers no restore
    ({}, "False"),                                 # ... said as text (ansible-core 2.16)
])
def test_no_restore_then_abandon_by_uid(over, prefer):
    assert decide(held(**over), prefer, "u-edge", "") == {"action": "abandon", "backup_serial": None}


def test_abandon_needs_the_uid_of_the_object_when_no_one_object_is_named():
    assert decide(held(hold_type="finalizer"), True, "u-other", "") == {"action": "none", "backup_serial": None}


def test_abandon_of_the_one_named_object_takes_the_uid_given():
    assert decide(held(hold_type="finalizer"), True, "u-other", "edge")["action"] == "abandon"


def test_no_abandon_uid_abandons_nothing():
    assert decide(held(hold_type="finalizer"), True, "", "edge")["action"] == "none"


@pytest.mark.parametrize("flag", [False, None, "False"])
def test_an_object_not_held_gets_no_action(flag):
    assert decide(held(held=flag), True, "u-edge", "edge") == {"action": "none", "backup_serial": None}


def test_held_as_text_on_ansible_core_2_16():
    assert decide(held(held="True"), True, "", "")["action"] == "restore"


def test_restore_options_without_a_diagnosis():
    assert restore_options({"item": "edge"}) == []
    assert restore_options({"diagnosis": {"options": None}}) == []
    assert restore_options(held()) == [RESTORE_7, RESTORE_5]


def test_a_result_that_is_not_a_mapping_is_refused():
    with pytest.raises(AnsibleFilterError, match="^held_deletion_decision: expects one result"):
        decide(["edge"], True, "", "")


@pytest.mark.parametrize("after, action, check, expected", [
    ({"held": True, "reason": "DestroyFailed"}, "none", False, True),
    ({"held": None, "reason": "Unknown"}, "none", False, True),
    ({"held": False, "reason": "Paused"}, "none", False, True),
    ({"held": False, "reason": "DependentsExist"}, "none", True, True),
    ({"held": False, "reason": "NotDeleting"}, "none", False, False),
    ({"held": "False", "reason": "Absent"}, "none", False, False),
    ({"held": False, "reason": "Absent"}, "restore", False, False),
    ({"held": False, "reason": "FinalizerGone"}, "abandon", False, False),
    ({"held": False, "reason": "Deleting"}, "abandon", False, True),
    ({"held": True, "reason": "DestroyFailed"}, "restore", True, False),  # check mode: the restore did not run
    ({"held": "True", "reason": "DestroyFailed"}, "none", "True", True),
])
def test_still_held(after, action, check, expected):
    assert still_held(after, action, check) is expected


def test_still_held_refuses_what_is_not_a_result():
    with pytest.raises(AnsibleFilterError, match="^held_deletion_still_held: expects one result"):
        still_held(None, "none", False)


def test_waits_are_the_gates_of_each_wait_without_objects_and_queries():
    from ansible_collections.teardown.gates.plugins.plugin_utils.held_deletion_plan import waits
    results = [
        {"item": "a", "gates": [{"name": "a gone", "state": "passed", "objects": [1], "queries": 2, "new_objects": [3]}]},
        {"item": "b", "skipped": True},
        {"item": "c", "gates": [[{"name": "c gone", "state": "timeout"}], None, "None"]},
        "not a result",
        {"item": "d", "gates": ["not a gate"]},
    ]
    assert waits(results) == [{"name": "a gone", "state": "passed"}, {"name": "c gone", "state": "timeout"}]
    assert waits([]) == []


def test_waits_need_a_list_of_results():
    from ansible_collections.teardown.gates.plugins.plugin_utils.held_deletion_plan import waits
    with pytest.raises(AnsibleFilterError, match="held_deletion_waits"):
        waits({"results": []})


def test_an_object_labelled_protected_is_kept_neither_restored_nor_abandoned_nor_named_still_held():
    kept = {"action": "none", "backup_serial": None, "kept": "labelled teardown.gates/protected"}
    assert decide(held(protected=True), True, "u-edge", "edge") == kept
    assert decide(held(protected=False), True, "", "")["action"] == "restore"
    assert still_held(held(protected=True), "none", False) is False
    assert still_held(held(protected=False), "none", False) is True


def test_an_object_younger_than_min_age_is_kept_with_the_reason_nor_named_still_held():
    young = "created 2026-12-05T01:30:00Z, less than min_age (3600 s) ago"
    assert decide(held(young=young), True, "u-edge", "edge") == {"action": "none", "backup_serial": None, "kept": young}
    assert decide(held(young=""), True, "", "")["action"] == "restore"  # min_age off, or old enough
    assert still_held(held(young=young), "none", False) is False
    assert still_held(held(young=""), "none", False) is True
