# -*- coding: utf-8 -*-
"""aws_client's helpers for the AWS modules (#32): one way to build the Clients (module_clients), one not-found list
per service usable with amazon.aws's is_boto3_error_code (not_found), and the errors a run hands to fail_json_aws."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.config
import botocore.exceptions
import pytest

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws import client as aws_client
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import (
    AWS_ERRORS, NOT_FOUND, NOT_FOUND_BY_SERVICE, NOT_FOUND_CODES, REFUSAL_CODES, REFUSALS, Unanswered, module_clients,
    not_found)


class FakeModule:
    def __init__(self, check_mode):
        self.check_mode = check_mode
        self.made = []

    def client(self, service, config=None):
        self.made.append((service, config))
        return object()


def test_module_clients_builds_over_the_module_client_with_the_bounds_config():
    m = FakeModule(check_mode=True)
    clients = module_clients(m, "aws_infra_cleanup", concurrency=3)
    assert clients.check_mode is True
    assert m.made == []  # no client before the first call
    clients.client("ec2")
    (service, config), = m.made
    assert service == "ec2" and isinstance(config, botocore.config.Config)
    assert "aws_infra_cleanup" in config.user_agent_extra


def test_module_clients_check_mode_can_be_given():
    assert module_clients(FakeModule(check_mode=False), "x", concurrency=1, check_mode=True).check_mode is True
    assert module_clients(FakeModule(check_mode=True), "x", concurrency=1, check_mode=False).check_mode is False
    assert module_clients(FakeModule(check_mode=False), "x", concurrency=1).check_mode is False


def test_not_found_per_service_is_part_of_the_one_list():
    for service in NOT_FOUND_BY_SERVICE:
        codes = not_found(service)
        assert isinstance(codes, tuple) and set(codes) <= NOT_FOUND and set(codes) <= set(NOT_FOUND_CODES)
    assert "NoSuchEntity" in not_found("iam") and "NoSuchEntity" not in not_found("ec2")
    with pytest.raises(KeyError):
        not_found("no-such-service")


def test_refusal_codes_are_the_refusals_as_a_tuple():
    assert isinstance(REFUSAL_CODES, tuple) and set(REFUSAL_CODES) == REFUSALS
    assert not set(REFUSAL_CODES) & NOT_FOUND


def _raised(code):
    try:
        raise botocore.exceptions.ClientError({"Error": {"Code": code, "Message": "m"}}, "Op")
    except is_boto3_error_code(not_found("ec2")):
        return "gone"
    except is_boto3_error_code(REFUSAL_CODES):  # pylint: disable=duplicate-except
        return "refused"
    except AWS_ERRORS:
        return "other"


@pytest.mark.parametrize("code, what", [
    ("InvalidSubnetID.NotFound", "gone"), ("DependencyViolation", "refused"), ("UnauthorizedOperation", "other"),
    ("NoSuchEntity", "other"),  # IAM's not-found is not EC2's
])
def test_is_boto3_error_code_takes_the_tuples(code, what):
    assert _raised(code) == what


def test_aws_errors_catch_a_silent_endpoint_too():
    assert issubclass(Unanswered, AWS_ERRORS)
    assert aws_client.AWS_ERRORS == (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError)
