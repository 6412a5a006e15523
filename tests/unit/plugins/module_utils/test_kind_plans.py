# -*- coding: utf-8 -*-
"""Each kind's plan (#33), built from what its role read before its first change: by ID, in order, with the
options that shaped it; what is kept out says why; what is only known at run time says by which rule.

A concern test over every kind in the registry and preflight/plan.py's canonical form; each kind's own plan
tests are in kinds/test_<kind>.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as p


@pytest.mark.parametrize("name", registry.names())
def test_every_kind_has_a_planner_that_gives_a_canonical_plan_for_an_empty_world(name):
    plan = registry.planner(name)({}, {})
    assert plan["kind"] == name and plan["entries"] == []
    assert plan == p.canonical(plan)
