# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.failed_resources import failed_resources


def test_names_each_failed_resource_with_its_blockers_after_the_lead():
    resources = [
        {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "failed",
         "blockers": [{"type": "ENI", "id": "eni-1", "state": "in-use"}, {"id": "eni-2"}]},
        {"type": "AWS::EC2::Subnet", "id": "subnet-1", "outcome": "deleted"},
        {"type": "AWS::IAM::Role", "id": "r", "outcome": "failed"},
    ]
    assert failed_resources(resources, "2 left") == (
        "2 left; AWS::EC2::VPC vpc-1 blocked by ENI eni-1 (in-use) blocked by ? eni-2 (); AWS::IAM::Role r")


def test_nothing_failed_and_no_lead_is_empty():
    assert failed_resources([{"type": "t", "id": "i", "outcome": "deleted"}]) == ""
    assert failed_resources([], "only the message") == "only the message"


def test_refuses_what_is_not_a_list():
    with pytest.raises(AnsibleFilterError, match="expects the list"):
        failed_resources({"resources": []})
