# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The approved plan's decisions, shared by the roles and made in Python (plugins/plugin_utils/teardown_plan.py)
instead of Jinja: a kind's plan and its digest, what is wrong with an approved_plan_digest, whether the plan
recomputed now is the approved one, and a manifest kept to the plan's IDs (teardown_plan,
teardown_plan_digest_problem, teardown_plan_verdict, teardown_plan_restrict). A role's own decisions are steps of
its <role>_step filter (<role>_step.py)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import teardown_plan


def teardown_plan_of(facts, kind, options):
    return teardown_plan.planned(facts, kind, options)


def teardown_plan_digest_problem(value):
    return teardown_plan.digest_problem(value)


def teardown_plan_verdict(planned, approved_digest, approved_plan=None, report_dir=""):
    return teardown_plan.verdict(planned, approved_digest, approved_plan, report_dir)


def teardown_plan_restrict(manifest, planned, of="", approved=True):
    return teardown_plan.restrict(manifest, planned, of, approved)


class FilterModule(object):
    def filters(self):
        return {
            "teardown_plan": teardown_plan_of,
            "teardown_plan_digest_problem": teardown_plan_digest_problem,
            "teardown_plan_verdict": teardown_plan_verdict,
            "teardown_plan_restrict": teardown_plan_restrict,
        }
