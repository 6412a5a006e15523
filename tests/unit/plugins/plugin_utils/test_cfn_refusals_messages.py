# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.cfn_refusals_messages import SUMMARY_HEADER, cfn_refusals_summary


def _refusal(cls, remedy, action):
    return {"logical_id": "Res" + cls, "type": "AWS::S3::Bucket", "physical_id": "p-" + cls.lower(), "stack": "app", "class": cls,
            "remedy": remedy, "action": action, "reason": "The bucket you tried to delete is not empty", "holders": []}


# results as the role collects them (tasks/stack.yml, and NOT_FOUND for a stack already gone), events left out
RESULTS = [
    {"stack": "app", "stack_id": "arn:aws:cloudformation:eu-west-1:123456789012:stack/app/1", "status": "DELETE_COMPLETE", "changed": True,
     "refusals": [_refusal("BucketNotEmpty", "empty_buckets", "cleared"), _refusal("DependencyViolation", None, "stopped")],
     "retained": [{"logical_id": "Data", "type": "AWS::S3::Bucket", "physical_id": "p-retain-data", "why": "DeletionPolicy (DELETE_SKIPPED)"},
                  {"logical_id": "Db", "type": "AWS::RDS::DBInstance", "physical_id": "db-1", "why": "retain_unclearable"}],
     "elapsed": 88.25, "error": ""},
    {"stack": "net", "stack_id": "arn:aws:cloudformation:eu-west-1:123456789012:stack/net/2", "status": "DELETE_FAILED", "changed": True,
     "refusals": [_refusal("ExportInUse", None, "stopped")], "retained": [], "elapsed": 4.5, "error": "export in use"},
    {"stack": "gone", "status": "NOT_FOUND", "changed": False, "refusals": [], "retained": [], "elapsed": 0, "error": ""},
    {"stack": "odd", "stack_id": None, "status": None, "changed": False, "refusals": [], "retained": [], "elapsed": 0.1, "error": ""},
]


def test_summary_has_a_header_then_one_line_per_stack():
    assert cfn_refusals_summary(RESULTS) == [
        "stack | final status | refusals (class: remedy, action) | retained | seconds",
        "app | DELETE_COMPLETE | BucketNotEmpty, empty_buckets, cleared; DependencyViolation, None, stopped | p-retain-data, db-1 | 88.25",
        "net | DELETE_FAILED | ExportInUse, None, stopped | - | 4.5",
        "gone | NOT_FOUND | - | - | 0",
        "odd | None | - | - | 0.1",
    ]


def test_summary_of_no_stack_is_the_header():
    assert cfn_refusals_summary([]) == [SUMMARY_HEADER]


def test_summary_leaves_the_results_as_they_were():
    before = repr(RESULTS)
    cfn_refusals_summary(RESULTS)
    assert repr(RESULTS) == before


@pytest.mark.parametrize("value", [None, "app", {"stack": "app"}])
def test_refuses_what_is_not_a_list(value):
    with pytest.raises(AnsibleFilterError, match="cfn_refusals_summary: expects"):
        cfn_refusals_summary(value)
