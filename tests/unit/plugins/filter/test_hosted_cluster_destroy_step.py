# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.hosted_cluster_destroy_step import STEPS, FilterModule, hosted_cluster_destroy_step
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline, hosted_cluster_wait


def test_the_filter_is_the_one_name_the_role_uses():
    assert FilterModule().filters() == {"hosted_cluster_destroy_step": hosted_cluster_destroy_step}


def test_each_step_runs_its_plugin_utils_function():
    assert STEPS == {"stored_baseline": hosted_cluster_baseline.stored_read, "gates": hosted_cluster_wait.gates_of,
                     "verification_reads": hosted_cluster_wait.verification_reads}
    assert hosted_cluster_destroy_step("", "verification_reads", "clusters", "clusters-x") == [
        {"api_version": "v1", "kind": "Namespace", "name": "clusters-x"}]
    assert hosted_cluster_destroy_step({"skipped": True}, "stored_baseline", "out/x.baseline.json") == {}


def test_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="no step 'gate'; the steps are gates, stored_baseline, verification_reads"):
        hosted_cluster_destroy_step({}, "gate")
