# -*- coding: utf-8 -*-
"""The held_deletion role's step filter (plugins/filter/held_deletion_step.py): each step its plugin_utils function."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.held_deletion_step import STEPS, FilterModule
from ansible_collections.teardown.gates.plugins.plugin_utils import held_deletion_messages
from ansible_collections.teardown.gates.plugins.plugin_utils import held_deletion_plan

held_deletion_step = FilterModule().filters()["held_deletion_step"]


def test_the_role_has_one_step_filter_named_after_it():
    assert [(name, f.__name__) for name, f in FilterModule().filters().items()] == [("held_deletion_step", "held_deletion_step")]


def test_held_deletion_each_step_runs_its_plugin_utils_function():
    assert STEPS == {"decision": held_deletion_plan.decide, "still_held": held_deletion_plan.still_held,
                     "waits": held_deletion_plan.waits,
                     "unreleased_message": held_deletion_messages.held_deletion_unreleased_message}


# what test_role_decisions asserted of the filters these steps were

def test_held_deletion_decision():
    result = {"held": True, "hold_type": "state", "uid": "u", "diagnosis": {"options": [{"action": "restore", "backup_serial": 3}]}}
    assert held_deletion_step(result, "decision", True, "", "") == {"action": "restore", "backup_serial": 3}
    assert held_deletion_step(result, "decision", False, "u", "") == {"action": "abandon", "backup_serial": None}
    assert held_deletion_step(result, "decision", False, "", "") == {"action": "none", "backup_serial": None}


def test_held_deletion_still_held():
    assert held_deletion_step({"held": True, "reason": "DestroyFailed"}, "still_held", "none", False) is True
    assert held_deletion_step({"held": False, "reason": "Absent"}, "still_held", "restore", False) is False


def test_held_deletion_waits():
    assert held_deletion_step([{"gates": [{"name": "g", "objects": []}]}], "waits") == [{"name": "g"}]


def test_held_deletion_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="held_deletion_step: no step 'decide'; the steps are decision, still_held"):
        held_deletion_step({}, "decide")
