# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.plugin_utils.hosted_cluster_input import problems

GOOD = {"name": "edge", "namespace": "clusters", "infra_id": "", "grace_period": 600, "aws_timeout": 900,
        "take_over": False, "take_over_after": 300, "report_dir": "/r"}


def check(**over):
    given = dict(GOOD, **over)
    return problems(given["name"], given["namespace"], given["infra_id"], given["grace_period"], given["aws_timeout"],
                    given["take_over"], given["take_over_after"], given["report_dir"])


def test_good_input_has_no_problem():
    assert check() == ""
    assert check(name="", infra_id="Ab-12", take_over="yes", grace_period="600", take_over_after="599") == ""


@pytest.mark.parametrize("over, said", [
    ({"name": "", "infra_id": ""}, "hosted_cluster_name: required (or infra_id for an infrastructure-only destroy); "),
    ({"name": "Edge_1"}, "hosted_cluster_name: Edge_1 is not a valid object name; "),
    ({"namespace": ""}, "hosted_cluster_namespace:  is not a valid namespace name; "),
    ({"namespace": "-x"}, "hosted_cluster_namespace: -x is not a valid namespace name; "),
    ({"infra_id": "a_b"}, "infra_id: a_b is not a valid infra ID (letters, digits, dashes); "),
    ({"grace_period": "0"}, "cluster_grace_period: must be more than 0 seconds; "),
    ({"aws_timeout": "none"}, "aws_cleanup_timeout: must be more than 0 seconds; "),
    ({"take_over": "maybe"}, "take_over_cleanup: maybe is not a boolean (true or false); "),
    ({"take_over_after": "1.5"}, "take_over_after: 1.5 is not a whole number of seconds above 0; "),
    ({"take_over_after": 0}, "take_over_after: 0 is not a whole number of seconds above 0; "),
    ({"take_over": True, "take_over_after": 600},
     "take_over_after: 600 s must be less than cluster_grace_period (600 s), or the gates time out before a stall can "
     "show; raise cluster_grace_period or lower take_over_after; "),
    ({"report_dir": ""}, "report_dir: required (the baseline kept there is what lets a re-run resume); "),
])
def test_each_problem(over, said):
    assert check(**over) == said


def test_a_stall_after_the_grace_period_matters_only_with_take_over_on():
    assert check(take_over="no", take_over_after=900) == ""
    assert check(take_over="TRUE", take_over_after=900).startswith("take_over_after: 900 s must be less")


def test_every_problem_in_phase_0s_order():
    said = check(name="", infra_id="", namespace="X", grace_period=0, aws_timeout=0, take_over="on", take_over_after="x",
                 report_dir="")
    assert said == ("hosted_cluster_name: required (or infra_id for an infrastructure-only destroy); "
                    "hosted_cluster_namespace: X is not a valid namespace name; "
                    "cluster_grace_period: must be more than 0 seconds; aws_cleanup_timeout: must be more than 0 seconds; "
                    "take_over_cleanup: on is not a boolean (true or false); "
                    "take_over_after: x is not a whole number of seconds above 0; "
                    "report_dir: required (the baseline kept there is what lets a re-run resume); ")
