# -*- coding: utf-8 -*-
"""The cfn_refusals role's step filter (plugins/filter/cfn_refusals_step.py): each step its plugin_utils function."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.cfn_refusals_step import STEPS, FilterModule
from ansible_collections.teardown.gates.plugins.plugin_utils import cfn_refusals_messages
from ansible_collections.teardown.gates.plugins.plugin_utils import cfn_refusals_stack

cfn_refusals_step = FilterModule().filters()["cfn_refusals_step"]


def test_the_role_has_one_step_filter_named_after_it():
    assert [(name, f.__name__) for name, f in FilterModule().filters().items()] == [("cfn_refusals_step", "cfn_refusals_step")]


def test_cfn_refusals_each_step_runs_its_plugin_utils_function():
    assert STEPS == {"missing": cfn_refusals_stack.missing, "stack_error": cfn_refusals_stack.stack_error,
                     "stack_record": cfn_refusals_stack.stack_record, "summary": cfn_refusals_messages.cfn_refusals_summary}


def test_cfn_refusals_the_steps_answer_as_the_role_calls_them():
    # what test_role_decisions asserted of the filters these steps were
    assert cfn_refusals_step(["a", "b"], "missing", {"order": [{"name": "a", "id": "i"}]}) == ["b"]
    assert cfn_refusals_step({"failed": True, "msg": "m"}, "stack_error", []) == "m"
    assert cfn_refusals_step({}, "stack_record", {"name": "s", "id": "i", "status": "S"}, "")["stack_id"] == "i"
    assert cfn_refusals_step([], "summary") == [cfn_refusals_messages.SUMMARY_HEADER]


def test_cfn_refusals_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="cfn_refusals_step: no step 'summary_table'; the steps are missing, stack_error"):
        cfn_refusals_step([], "summary_table")
