# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.cfn_refusals_stack import missing, stack_error, stack_record

PLAN = {"order": [{"name": "app", "id": "arn:app"}, {"name": "net", "id": "arn:net"}],
        "handled_by_parent": [{"name": "app-nested"}], "unknown_imports": []}
STACK = {"name": "app", "id": "arn:app", "status": "CREATE_COMPLETE", "after": []}


def test_missing_keeps_what_the_order_holds_neither_by_name_nor_id_nor_a_parent():
    chosen = ["app", "arn:net", "app-nested", "gone", "arn:gone"]
    assert missing(chosen, PLAN) == ["gone", "arn:gone"]


def test_a_kept_stack_is_not_missing_by_name_nor_by_id():
    # kept (tagged protected, or younger than min_age): it is there, so it is not "already gone"
    plan = dict(PLAN, kept=[{"name": "young", "id": "arn:young", "reason": "created ..., less than min_age (60 s) ago"}])
    assert missing(["young", "arn:young", "gone"], plan) == ["gone"]
    assert missing(["young"], PLAN) == ["young"]


def test_missing_of_an_empty_plan_is_every_stack_chosen_and_the_plan_may_be_json_text():
    assert missing(["a", "b"], {}) == ["a", "b"]
    assert missing(["app", "x"], json.dumps(PLAN)) == ["x"]


def test_missing_refuses_a_choice_that_is_not_a_list():
    with pytest.raises(AnsibleFilterError, match="cfn_refusals_missing"):
        missing("app", PLAN)


def test_a_skipped_teardown_names_the_stacks_that_block_it():
    skipped = {"changed": False, "skipped": True, "skip_reason": "Conditional result was False"}
    assert stack_error(skipped, ["web", "api"]) == \
        "not attempted: its exports are imported by web, api, which are not deleted"


def test_a_failed_teardown_gives_its_message_or_failed():
    assert stack_error({"failed": True, "msg": "DELETE_FAILED: bucket not empty"}, []) == "DELETE_FAILED: bucket not empty"
    assert stack_error({"failed": True}, []) == "failed"


@pytest.mark.parametrize("result", [{"changed": True, "stack_status": "DELETE_COMPLETE"}, {"failed": False}, "", None])
def test_a_teardown_that_did_not_fail_has_no_error(result):
    assert stack_error(result, []) == ""


def test_a_result_as_json_text_on_ansible_core_2_16():
    assert stack_error(json.dumps({"failed": True, "msg": "m"}), []) == "m"


def test_the_record_of_a_teardown_that_ran():
    one = {"changed": True, "stack_id": "arn:app/1", "stack_status": "DELETE_COMPLETE", "refusals": [{"class": "c"}],
           "retained": [{"physical_id": "b"}], "elapsed": 12.5,
           "events": [{"timestamp": "t1", "logical_id": "B", "type": "AWS::S3::Bucket", "status": "DELETE_FAILED", "reason": "r"},
                      {"timestamp": "t0", "logical_id": "B", "type": "AWS::S3::Bucket", "status": "CREATE_COMPLETE"},
                      {"timestamp": "t2", "logical_id": "Q"}, "not an event"]}
    record = stack_record(one, STACK, "")
    assert list(record) == ["stack", "stack_id", "status", "changed", "refusals", "retained", "elapsed", "error", "events"]
    assert record == {"stack": "app", "stack_id": "arn:app/1", "status": "DELETE_COMPLETE", "changed": True,
                      "refusals": [{"class": "c"}], "retained": [{"physical_id": "b"}], "elapsed": 12.5, "error": "",
                      "events": [{"timestamp": "t1", "logical_id": "B", "type": "AWS::S3::Bucket", "status": "DELETE_FAILED"}]}


def test_the_record_of_a_stack_not_attempted_takes_the_plan():
    record = stack_record({"changed": False, "skipped": True}, json.dumps(STACK), "not attempted: x")
    assert record == {"stack": "app", "stack_id": "arn:app", "status": "CREATE_COMPLETE", "changed": False, "refusals": [],
                      "retained": [], "elapsed": 0, "error": "not attempted: x", "events": []}
