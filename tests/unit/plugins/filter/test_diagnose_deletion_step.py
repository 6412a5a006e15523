# -*- coding: utf-8 -*-
"""The diagnose_deletion role's step filter (plugins/filter/diagnose_deletion_step.py): each step its function of
k8s/deletion_diagnosis.py (whose own tests are test_deletion_diagnosis.py)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.diagnose_deletion_step import STEPS, FilterModule
from ansible_collections.teardown.gates.plugins.module_utils.k8s import deletion_diagnosis

diagnose_deletion_step = FilterModule().filters()["diagnose_deletion_step"]


def test_the_role_has_one_step_filter_named_after_it():
    assert [(name, f.__name__) for name, f in FilterModule().filters().items()] == [
        ("diagnose_deletion_step", "diagnose_deletion_step")]


def test_each_step_runs_its_deletion_diagnosis_function():
    assert STEPS == {"input_problem": deletion_diagnosis.input_problem, "report": deletion_diagnosis.report}


def test_input_problem_as_the_role_calls_it():
    assert diagnose_deletion_step({"api_version": "v1", "kind": "Namespace", "name": "demo"}, "input_problem") == ""
    assert diagnose_deletion_step({"api_version": "v1", "kind": "Namespace", "name": ""}, "input_problem").startswith(
        "name: required")


def test_report_as_the_role_calls_it_positional():
    item = {"api_version": "v1", "kind": "Namespace", "name": "demo"}
    answer = {"state": "absent", "objects": []}
    got = diagnose_deletion_step(answer, "report", item, "2026-12-05T00:00:00.000Z", "2026-12-05T00:00:01.000Z", True)
    want = deletion_diagnosis.report(answer, item, "2026-12-05T00:00:00.000Z", "2026-12-05T00:00:01.000Z", True)
    assert got == want and got["check_mode"] is True


def test_an_unknown_step_is_refused_naming_the_steps():
    with pytest.raises(AnsibleFilterError, match="no step 'why'; the steps are input_problem, report"):
        diagnose_deletion_step({}, "why")
