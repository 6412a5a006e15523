# -*- coding: utf-8 -*-
"""kinds/rules.py: a hint rule over one condition gives the hint of its first case that holds, where it was told."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds.rules import condition_rule

RULE = condition_rule("Ready", (
    (lambda c: c.get("status") == "False", lambda c: "not ready (%s)" % c.get("reason")),
    (lambda c: c.get("reason") == "Waiting", "waiting"),
), where="last")


def view(*conditions):
    return {"conditions": list(conditions)}


def test_the_first_case_that_holds_gives_the_one_hint_in_its_place():
    assert RULE(view({"type": "Ready", "status": "False", "reason": "Waiting"})) == [("last", "not ready (Waiting)")]
    assert RULE(view({"type": "Ready", "status": "True", "reason": "Waiting"})) == [("last", "waiting")]


def test_no_such_condition_or_no_case_holding_says_nothing():
    assert RULE(view()) == []
    assert RULE(view({"type": "Other", "status": "False"})) == []
    assert RULE(view({"type": "Ready", "status": "True", "reason": "Done"})) == []


def test_the_rule_looks_at_the_first_condition_of_its_type_only_and_defaults_to_first():
    rule = condition_rule("Ready", ((lambda c: True, lambda c: c["reason"]),))
    assert rule(view({"type": "Ready", "reason": "a"}, {"type": "Ready", "reason": "b"})) == [("first", "a")]
