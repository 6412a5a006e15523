# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the cfn_refusals role records of each stack: which stacks asked for are already gone, why a stack was not
deleted (not attempted behind a stack that imports its exports, or the teardown's failure), and the result row the
summary, the report and AWX read."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import dict_list, parsed_dict, plain_list

# what the report keeps of each stack event, and which events it keeps: the deletion's
EVENT_KEYS = ("timestamp", "logical_id", "type", "status")
DELETE_STATUS = re.compile("DELETE_")


def missing(chosen, plan):
    """The stacks asked for (names or IDs) that the deletion order does not hold, by name or ID, that no parent
    takes and that are not kept (protected, younger than min_age, or held by one that is): they no longer exist.
    ``plan`` is the cfn_delete_order result."""
    chosen = plain_list(chosen, "cfn_refusals_missing", "the stacks chosen (a list of names or IDs)")
    plan = parsed_dict(plan, "cfn_refusals_missing", "the deletion order of cfn_delete_order")
    order = dict_list(plan.get("order") or [], "cfn_refusals_missing", "the plan's order")
    parent = dict_list(plan.get("handled_by_parent") or [], "cfn_refusals_missing", "the plan's handled_by_parent")
    kept = dict_list(plan.get("kept") or [], "cfn_refusals_missing", "the plan's kept")
    known = [s.get("name") for s in order] + [s.get("id") for s in order] + [s.get("name") for s in parent]
    known += [s.get("name") for s in kept] + [s.get("id") for s in kept]  # there, and kept: not gone
    return [c for c in chosen if c not in known]


def _flag(result, key):
    return bool(result.get(key, False))


def stack_error(result, blocked_by):
    """Why the stack is not deleted, or "" when it is: not attempted while ``blocked_by`` (the stacks importing its
    exports that are not deleted) skipped the teardown; else the teardown's message ("failed" without one) when it
    failed."""
    result = parsed_dict(result, "cfn_refusals_stack_error", "the registered result of cloudformation_teardown")
    if _flag(result, "skipped"):
        blocked_by = plain_list(blocked_by, "cfn_refusals_stack_error", "the stacks that block this one (a list)")
        return "not attempted: its exports are imported by %s, which are not deleted" % ", ".join(str(b) for b in blocked_by)
    if _flag(result, "failed"):
        return "%s" % (result.get("msg", "failed"),)
    return ""


def _events(result):
    kept = [dict((k, v) for k, v in e.items() if k in EVENT_KEYS)
            for e in dict_list(result.get("events", []), "cfn_refusals_stack_record", "the teardown's events")]
    return [e for e in kept if "status" in e and DELETE_STATUS.match(str(e["status"]))]


def stack_record(result, stack, error):
    """The row of one stack: its name and ID, final status, whether it changed, its refusals and what was retained,
    the seconds it took, ``error`` (stack_error) and its deletion events. What the teardown did not say (it was not
    attempted) comes from the plan's ``stack``."""
    result = parsed_dict(result, "cfn_refusals_stack_record", "the registered result of cloudformation_teardown")
    stack = parsed_dict(stack, "cfn_refusals_stack_record", "the stack of the deletion order")
    return {
        "stack": stack.get("name"),
        "stack_id": result.get("stack_id", stack.get("id")),
        "status": result.get("stack_status", stack.get("status")),
        "changed": result.get("changed", False),
        "refusals": result.get("refusals", []),
        "retained": result.get("retained", []),
        "elapsed": result.get("elapsed", 0),
        "error": error,
        "events": _events(result),
    }
