# -*- coding: utf-8 -*-
"""The release_prune role's step filter (plugins/filter/release_prune_step.py): each step its plugin_utils function."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.release_prune_step import STEPS, FilterModule
from ansible_collections.teardown.gates.plugins.plugin_utils import release_prune_input
from ansible_collections.teardown.gates.plugins.plugin_utils import release_prune_messages

release_prune_step = FilterModule().filters()["release_prune_step"]


def test_the_role_has_one_step_filter_named_after_it():
    assert [(name, f.__name__) for name, f in FilterModule().filters().items()] == [("release_prune_step", "release_prune_step")]


def test_release_prune_each_step_runs_its_plugin_utils_function():
    assert STEPS == {
        "selection_problem": release_prune_input.selection_problem, "input_problem": release_prune_input.input_problem,
        "cluster_line": release_prune_input.cluster_line, "cluster_held": release_prune_input.cluster_held,
        "orphaning_refusal_message": release_prune_messages.orphaning_refusal_message,
        "held_releases_message": release_prune_messages.held_releases_message,
        "wait_summaries": release_prune_messages.wait_summaries}


def test_release_prune_the_steps_answer_as_the_role_calls_them():
    # what test_role_decisions asserted of the filters these steps were
    assert release_prune_step("", "selection_problem", 0).startswith("release_namespace: required")
    assert release_prune_step(False, "input_problem", "", 0, 1, []).startswith("timeout: ")
    assert release_prune_step({"state": "absent"}, "cluster_line", "c", True) == "Cluster c: absent, will be deleted."
    assert release_prune_step([{"name": "r", "cluster": "c"}, {"name": "s", "cluster": "d"}], "cluster_held", "c") == ["r"]
    assert release_prune_step([], "wait_summaries") == []
    assert release_prune_step([], "held_releases_message", 30).startswith("0 Release(s) still present after 30 s")
    assert release_prune_step([], "orphaning_refusal_message").startswith("Refusing to delete 0 Release(s)")


def test_release_prune_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="release_prune_step: no step 'cluster'; the steps are cluster_held, cluster_line"):
        release_prune_step({}, "cluster")
