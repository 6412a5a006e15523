# -*- coding: utf-8 -*-
"""The approved plan's filters (#33): the plan and digest of a kind, a malformed digest refused naming the option,
and a cleanup manifest kept to the plan's IDs."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.teardown.gates.plugins.filter import role_decisions
from ansible_collections.teardown.gates.plugins.plugin_utils import teardown_plan

VPC, SUBNET = "AWS::EC2::VPC", "AWS::EC2::Subnet"
FOUND = {"found": {"infra_ids": [{"infra_id": "orph-a", "status": "orphan", "manifest": {VPC: ["vpc-1"], SUBNET: ["subnet-1"]}}]}}


def test_the_filters_are_registered():
    filters = role_decisions.FilterModule().filters()
    for name in ("teardown_plan", "teardown_plan_digest_problem", "teardown_plan_verdict", "teardown_plan_restrict"):
        assert name in filters


def test_planned_gives_the_plan_and_its_digest():
    out = teardown_plan.planned(FOUND, "orphan_sweep", {})
    assert len(out["plan_digest"]) == 64 and out["plan"]["kind"] == "orphan_sweep"


def test_an_unknown_kind_or_a_wrong_input_fails_naming_the_filter():
    with pytest.raises(AnsibleFilterError, match="teardown_plan: unknown teardown kind"):
        teardown_plan.planned({}, "nope", {})
    with pytest.raises(AnsibleFilterError, match="teardown_plan: expects"):
        teardown_plan.planned([], "orphan_sweep", {})


def test_a_malformed_digest_fails_the_verdict_naming_the_option():
    assert teardown_plan.digest_problem("") == ""
    assert "approved_plan_digest" in teardown_plan.digest_problem("xyz")
    with pytest.raises(AnsibleFilterError, match="approved_plan_digest"):
        teardown_plan.verdict(teardown_plan.planned(FOUND, "orphan_sweep", {}), "xyz")


def test_the_verdict_matches_its_own_digest():
    planned = teardown_plan.planned(FOUND, "orphan_sweep", {})
    assert teardown_plan.verdict(planned, planned["plan_digest"])["match"] is True


def test_restrict_keeps_only_the_plans_ids_of_that_infra_id():
    planned = teardown_plan.planned(FOUND, "orphan_sweep", {})
    grown = {VPC: ["vpc-1"], SUBNET: ["subnet-1", "subnet-late"], "AWS::EC2::EIP": ["eip-late"]}
    assert teardown_plan.restrict(grown, planned, "orph-a") == {VPC: ["vpc-1"], SUBNET: ["subnet-1"]}
    assert teardown_plan.restrict(grown, planned, "other") == {}


def test_restrict_without_an_approved_digest_changes_nothing():
    planned = teardown_plan.planned(FOUND, "orphan_sweep", {})
    grown = {SUBNET: ["subnet-1", "subnet-late"]}
    assert teardown_plan.restrict(grown, planned, "orph-a", False) == grown
