# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The message the held_deletion role fails with when a deletion is still held after its phases, from the
entries it collected in phase 7 (held_deletion_unreleased_message): a step of the held_deletion_step filter."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import dict_list, printed


def _held(entry):
    ways_out = ", ".join(str(o.get("action")) for o in entry.get("options") or [] if isinstance(o, dict))
    return "%s (%s): %s after action %s - %s Ways out: %s. " % (
        printed(entry.get("name")), printed(entry.get("uid")), printed(entry.get("reason")), printed(entry.get("action_taken")),
        printed(entry.get("message")), ways_out or "none from here")


def held_deletion_unreleased_message(unresolved, kind, namespace, abandon_uid="", plan=None):
    """How many deletions of ``kind`` in ``namespace`` are not released, each with its reason, the action taken, the
    diagnosis and the ways out; then, when ``abandon_uid`` is the UID of no object of ``plan``, that nothing was
    abandoned."""
    name = "held_deletion_unreleased_message"
    unresolved = dict_list(unresolved, name, "the deletions still held (held_deletion_unresolved)")
    uids = [p.get("uid") for p in dict_list(plan or [], name, "the plan (held_deletion_plan) as its fourth argument")]
    abandon_uid = printed(abandon_uid)
    wrong_uid = ("abandon_uid %s is the UID of none of the held objects; nothing was abandoned." % abandon_uid
                 if abandon_uid and abandon_uid not in uids else "")
    return "%d %s deletion(s) in %s not released: %s %s" % (
        len(unresolved), printed(kind), printed(namespace), "".join(_held(u) for u in unresolved), wrong_uid)
