# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The approved plan, for the roles (issue 33): build a kind's plan and its digest from what the role read before
its first change, check ``approved_plan_digest`` (its form, then against the plan recomputed from the live world),
and keep a cleanup's manifest to the plan's IDs. The plan itself is plugins/module_utils/preflight/plan.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import as_bool, one_dict, printed


def planned(facts, kind, options):
    """{'plan', 'plan_digest'} of ``kind`` from the role's ``facts`` and ``options``."""
    facts = one_dict(facts, "teardown_plan", "the facts the role read before its first change (a dict)")
    options = one_dict(options, "teardown_plan", "the options that shape the plan (a dict)")
    try:
        return planlib.with_digest(registry.planner(printed(kind))(facts, options))
    except TeardownGatesError as e:
        raise AnsibleFilterError("teardown_plan: %s" % e)


def digest_problem(value):
    """'' for an empty or well-formed approved_plan_digest, else what is wrong with it, naming the option."""
    return planlib.digest_problem(value)


def verdict(plan_and_digest, approved_digest, approved_plan=None, report_dir=""):
    """The comparison of the recomputed plan with ``approved_digest``: {'asked', 'match', 'plan_digest',
    'approved_plan_digest', 'diff', 'message'} (plugins/module_utils/preflight/plan.py ``verdict``)."""
    p = one_dict(plan_and_digest, "teardown_plan_verdict", "the result of teardown_plan (a dict with plan)")
    try:
        return planlib.verdict(p.get("plan") or {}, printed(approved_digest), approved_plan or None, printed(report_dir))
    except TeardownGatesError as e:
        raise AnsibleFilterError(str(e))


def restrict(manifest, plan_and_digest, of="", approved=True):
    """``manifest`` (type -> IDs) with only the IDs the plan deletes (of ``of``, when given): an apply under an
    approved digest deletes nothing outside the plan, even what a later look found. ``approved`` false (no digest
    was given) returns the manifest as it is."""
    manifest = one_dict(manifest, "teardown_plan_restrict", "an AWS manifest (type -> list of IDs)")
    if not as_bool(approved):
        return manifest
    p = one_dict(plan_and_digest, "teardown_plan_restrict", "the result of teardown_plan (a dict with plan)")
    allowed = set((e.get("type"), e.get("id")) for e in (p.get("plan") or {}).get("entries") or []
                  if e.get("action") == "delete" and (not of or e.get("of") == printed(of)))
    out = {}
    for rtype, ids in manifest.items():
        kept = [i for i in ids or [] if (rtype, i) in allowed]
        if kept:
            out[rtype] = kept
    return out
