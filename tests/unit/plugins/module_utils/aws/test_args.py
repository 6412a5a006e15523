# -*- coding: utf-8 -*-
"""aws_args (#32): the AWS modules' shared argument specs equal their doc fragments, BadInput names the option and
why, and checked() is the one path from BadInput to fail_json."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
import yaml

from ansible_collections.teardown.gates.plugins.doc_fragments.aws_infra_discovery import ModuleDocFragment as Discovery
from ansible_collections.teardown.gates.plugins.doc_fragments.aws_wait_timeout import ModuleDocFragment as WaitTimeout
from ansible_collections.teardown.gates.plugins.module_utils.aws import args as aws_args
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput, checked
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError


class Exited(Exception):
    pass


class FakeModule:
    def __init__(self):
        self.failed = None

    def fail_json(self, **kwargs):
        self.failed = kwargs
        raise Exited()


def _spec_of(doc):
    out = {}
    for name, opt in yaml.safe_load(doc)["options"].items():
        spec = dict(type=opt["type"])
        if "default" in opt:
            spec["default"] = opt["default"]
        out[name] = spec
    return out


def test_the_discovery_spec_is_what_its_fragment_documents():
    assert aws_args.discovery_spec() == _spec_of(Discovery.DOCUMENTATION)


def test_the_wait_timeout_spec_is_what_its_fragment_documents():
    assert {"wait_timeout": aws_args.wait_timeout_spec()} == _spec_of(WaitTimeout.DOCUMENTATION)


def test_specs_are_fresh_dicts():
    assert aws_args.discovery_spec() is not aws_args.discovery_spec()
    assert aws_args.wait_timeout_spec() is not aws_args.wait_timeout_spec()


def test_bad_input_is_one_of_the_collection_errors_and_known():
    e = BadInput("x")
    assert isinstance(e, TeardownGatesError) and not e.unknown


def test_checked_returns_the_run_result():
    assert checked(FakeModule(), lambda a, b=0: a + b, 1, b=2) == 3


def test_checked_fails_with_the_message_alone():
    m = FakeModule()

    def run():
        raise BadInput("wait_timeout must be at least 1 second, got 0")
    with pytest.raises(Exited):
        checked(m, run)
    assert m.failed == {"msg": "wait_timeout must be at least 1 second, got 0"}


def test_checked_lets_other_errors_through():
    def run():
        raise ValueError("not bad input")
    with pytest.raises(ValueError):
        checked(FakeModule(), run)


@pytest.mark.parametrize("check, args, message", [
    (aws_args.infra_id, ("  ",), "infra_id must not be empty: an empty infra ID would match every cluster's tag"),
    (aws_args.infra_id, (None,), "infra_id must not be empty: an empty infra ID would match every cluster's tag"),
    (aws_args.wait_timeout, (0,), "wait_timeout must be at least 1 second, got 0"),
    (aws_args.at_least_one, ("concurrency", 0), "concurrency must be at least 1, got 0"),
    (aws_args.more_than_zero, ("poll_interval", 0.0), "poll_interval must be more than 0 seconds, got 0.0"),
    (aws_args.more_than_zero, ("poll_interval", -1), "poll_interval must be more than 0 seconds, got -1"),
    (aws_args.not_empty, ("stack_name", " "), "stack_name must not be empty"),
])
def test_each_check_names_the_option_and_why(check, args, message):
    with pytest.raises(BadInput) as e:
        check(*args)
    assert str(e.value) == message


@pytest.mark.parametrize("check, args, value", [
    (aws_args.infra_id, (" demo-1 ",), "demo-1"),
    (aws_args.wait_timeout, (1,), 1),
    (aws_args.at_least_one, ("concurrency", 8), 8),
    (aws_args.more_than_zero, ("poll_interval", 0.5), 0.5),
    (aws_args.not_empty, ("stack_name", " s "), "s"),
])
def test_a_good_value_comes_back(check, args, value):
    assert check(*args) == value
