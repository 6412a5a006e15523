# -*- coding: utf-8 -*-
"""cfn_run (#32): cloudformation_teardown's run against a fake module and a fake cfn.Teardown: the option checks and
their messages, the result's keys on success and on each failure, and check mode's changed."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.cfn import teardown as cfn
from ansible_collections.teardown.gates.plugins.module_utils.cfn import run as cfn_run
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import CheckModeViolation

from aws_module_double import AWSModuleDouble, Exited

KEYS = {"changed", "notes", "stack_status", "refusals", "retained", "retain_supported", "events", "api_calls",
        "elapsed"}


def cfn_module(check_mode=False, **params):
    defaults = dict(stack_name=" app ", clear=[], retain_unclearable=False, disable_termination_protection=False,
                    wait_timeout=900, poll_interval=2.0)
    return AWSModuleDouble(dict(defaults, **params), check_mode)


def fake_teardown(monkeypatch, outcome, described=None):
    made = {}

    class Teardown:
        def __init__(self, clients, **kw):
            made.update(kw, check_mode_clients=clients.check_mode)
            self.changed, self.notes, self.retained, self.retain_supported, self.events = False, [], [], None, []
            self.refusals = [{"logical_id": "Logs", "stack_id": "arn:stack/app/1"}]

        def run(self, name):
            made["name"] = name
            if isinstance(outcome, Exception):
                raise outcome
            self.changed = True
            return outcome

        def describe(self, name_or_id, track=False):
            made["described"] = name_or_id
            if described is None:
                raise RuntimeError("no answer")
            return described

        def observed_status(self, sid=None):
            return "UNKNOWN"
    monkeypatch.setattr(cfn_run.cfn, "Teardown", Teardown)
    return made


@pytest.mark.parametrize("params, message", [
    (dict(stack_name=" ", wait_timeout=0), "stack_name must not be empty"),
    (dict(wait_timeout=0, poll_interval=0), "wait_timeout must be at least 1 second, got 0"),
    (dict(poll_interval=0), "poll_interval must be more than 0 seconds, got 0"),
    (dict(release_outside_stack="eni-1"), "release_outside_stack must be a list of IDs, got str"),
    (dict(release_outside_stack=["eni-1", " "]), "release_outside_stack must be a list of IDs (a network interface "
                                                 "ID, a role, user or group name), got ' '"),
    # Ansible makes text of a dict in a list of str: no ID looks like it
    (dict(release_outside_stack=["{'id': 'eni-1'}"]), "release_outside_stack must be a list of IDs"),
])
def test_options_in_the_order_the_module_checked_them(params, message):
    with pytest.raises(BadInput) as e:
        cfn_run.options(cfn_module(**params).params)
    assert str(e.value).startswith(message)


def test_the_spec_takes_the_shared_wait_timeout():
    spec = cfn_run.argument_spec()
    assert spec["wait_timeout"] == dict(type="int", default=900)
    assert spec["stack_name"] == dict(type="str", required=True, aliases=["name"])


def test_a_deleted_stack(monkeypatch):
    made = fake_teardown(monkeypatch, ({"StackStatus": "DELETE_COMPLETE"}, "arn:stack/app/1"))
    out = cfn_run.run(cfn_module(clear=["empty_buckets"]))
    assert made["name"] == "app" and made["clear"] == ["empty_buckets"] and made["wait_timeout"] == 900
    assert made["check_mode_clients"] is False and made["poll"] == 2.0
    assert set(out) == KEYS | {"stack_id"}
    assert (out["stack_status"], out["stack_id"], out["changed"]) == ("DELETE_COMPLETE", "arn:stack/app/1", True)


def test_check_mode_would_change_a_stack_still_there(monkeypatch):
    fake_teardown(monkeypatch, ({"StackStatus": "CREATE_COMPLETE"}, "arn:stack/app/1"))
    out = cfn_run.run(cfn_module(check_mode=True))
    assert out["changed"] is True and out["stack_status"] == "CREATE_COMPLETE"


def test_a_missing_stack_has_no_stack_id(monkeypatch):
    fake_teardown(monkeypatch, (None, None))
    out = cfn_run.run(cfn_module())
    assert set(out) == KEYS and out["stack_status"] == "UNKNOWN"


def test_failed_reads_the_stack_again_by_its_arn_and_returns_the_keys(monkeypatch):
    made = fake_teardown(monkeypatch, cfn.Failed("stack app: Logs refused"),
                         described={"StackStatus": "DELETE_FAILED", "StackId": "arn:stack/app/1"})
    m = cfn_module()
    with pytest.raises(Exited):
        cfn_run.run(m)
    assert made["described"] == "arn:stack/app/1"
    assert m.failed["msg"] == "stack app: Logs refused" and "exception" not in m.failed
    assert (m.failed["stack_status"], m.failed["stack_id"]) == ("DELETE_FAILED", "arn:stack/app/1")
    assert set(m.failed) == KEYS | {"stack_id", "msg"}


def test_failed_with_no_answer_keeps_the_last_status(monkeypatch):
    fake_teardown(monkeypatch, cfn.Failed("stack app: gone quiet"))
    m = cfn_module()
    with pytest.raises(Exited):
        cfn_run.run(m)
    assert (m.failed["stack_status"], m.failed["stack_id"]) == ("UNKNOWN", "arn:stack/app/1")


def test_a_mutating_call_in_check_mode_is_an_internal_error(monkeypatch):
    fake_teardown(monkeypatch, CheckModeViolation("check mode sends reads only (Describe, List, Get, Head): refusing "
                                                  "cloudformation.DeleteStack"))
    m = cfn_module(check_mode=True)
    with pytest.raises(Exited):
        cfn_run.run(m)
    assert m.failed["msg"] == ("internal error, refused a mutating call in check mode: check mode sends reads only "
                               "(Describe, List, Get, Head): refusing cloudformation.DeleteStack")
    assert m.failed["changed"] is False and "stack_id" not in m.failed


def test_a_failed_request_names_the_stack_as_given(monkeypatch):
    fake_teardown(monkeypatch, botocore.exceptions.ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}},
                                                               "DeleteStack"))
    m = cfn_module()
    with pytest.raises(Exited):
        cfn_run.run(m)
    assert m.failed["msg"].startswith("stack  app : AWS request failed: ")
    assert m.failed["aws"] and set(m.failed) == KEYS | {"msg", "aws"}


def test_the_holders_outside_the_stack_named_reach_the_teardown(monkeypatch):
    made = fake_teardown(monkeypatch, ({"StackStatus": "DELETE_COMPLETE"}, "arn:stack/app/1"))
    cfn_run.run(cfn_module(release_outside_stack=[" eni-1", "their-role"]))
    assert made["release_outside_stack"] == ["eni-1", "their-role"]
    assert cfn_run.argument_spec()["release_outside_stack"] == dict(type="list", elements="str", default=[])
