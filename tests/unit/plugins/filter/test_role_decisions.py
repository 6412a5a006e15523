# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.filter.role_decisions import FilterModule

FILTERS = FilterModule().filters()


def test_each_filter_is_published():
    # the hosted cluster's decisions are steps of hosted_cluster_destroy_step (test_hosted_cluster_destroy_step.py)
    assert sorted(FILTERS) == ["teardown_plan", "teardown_plan_digest_problem", "teardown_plan_restrict", "teardown_plan_verdict"]
