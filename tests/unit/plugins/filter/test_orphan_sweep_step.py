# -*- coding: utf-8 -*-
"""The orphan_sweep role's step filter (plugins/filter/orphan_sweep_step.py): each step its plugin_utils function."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.orphan_sweep_step import STEPS, FilterModule
from ansible_collections.teardown.gates.plugins.plugin_utils import orphan_sweep_messages
from ansible_collections.teardown.gates.plugins.plugin_utils import orphan_sweep_outcome

orphan_sweep_step = FilterModule().filters()["orphan_sweep_step"]


def test_the_role_has_one_step_filter_named_after_it():
    assert [(name, f.__name__) for name, f in FilterModule().filters().items()] == [("orphan_sweep_step", "orphan_sweep_step")]


def test_orphan_sweep_each_step_runs_its_plugin_utils_function():
    assert STEPS == {"recheck_verdict": orphan_sweep_outcome.recheck_verdict, "record": orphan_sweep_outcome.record,
                     "verified": orphan_sweep_outcome.sweep_verified,
                     "found_message": orphan_sweep_messages.orphan_sweep_found_message,
                     "unread_message": orphan_sweep_messages.orphan_sweep_unread_message,
                     "failed_message": orphan_sweep_messages.orphan_sweep_failed_message}


# what test_role_decisions asserted of the filters these steps were (the record now takes the infra ID first,
# as orphan_sweep_outcome.record does: the role pipes the infra ID)

def test_orphan_sweep_steps():
    recheck = {"management_known": True, "infra_ids": [{"infra_id": "i", "status": "orphan"}]}
    assert orphan_sweep_step(recheck, "recheck_verdict", "i") == {"still": True, "why_not": ""}
    cleanup = {"resources": [{"type": "vpc", "id": "vpc-1", "outcome": "deleted"}], "plan": ["vpc"]}
    record = orphan_sweep_step("i", "record", cleanup, True, "", False, "t")
    assert (record["infra_id"], record["outcome"], record["finished"]) == ("i", "destroyed", "t")
    assert orphan_sweep_step("i", "record", {}, False, "claimed", False, "t")["outcome"] == "left_alone"


def test_orphan_sweep_verified():
    assert orphan_sweep_step([{"outcome": "destroyed", "verified": True}], "verified", [{"status": "orphan"}]) is True
    assert orphan_sweep_step([{"outcome": "failed"}], "verified", []) is False


def test_orphan_sweep_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="orphan_sweep_step: no step 'verdict'; the steps are failed_message"):
        orphan_sweep_step({}, "verdict")
