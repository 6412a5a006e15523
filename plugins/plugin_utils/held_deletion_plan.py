# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the held_deletion role ends each hold (its Phase 3): restore when the hold is a state hold and a usable
backup exists (and prefer_restore is on), abandon only the object whose UID the operator confirmed (or the one
named object), else nothing."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core.protect import PROTECTED_LABEL_REASON
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import as_bool, dict_list, one_dict, printed


def restore_options(result):
    """The restore options the diagnosis of one held_deletion result offers, in its order."""
    diagnosis = result.get("diagnosis")
    options = diagnosis.get("options") if isinstance(diagnosis, dict) else None
    return [o for o in options or [] if isinstance(o, dict) and o.get("action") == "restore"]


def decide(result, prefer_restore, abandon_uid, held_name):
    """{'action': 'restore' | 'abandon' | 'none', 'backup_serial': the serial to restore, or None} for one result
    of the held_deletion module's diagnosis (a loop item: its own keys plus item, the object's name).

    Restore wins over abandon: a held state hold with a restore option is restored from the first one (the newest
    usable backup) when prefer_restore. Abandon needs abandon_uid, and it must be the object's UID unless
    held_name names the one object. An object that is not held gets 'none'; one labelled teardown.gates/protected,
    or created less than min_age ago (``young``), gets 'none' and ``kept``, the reason."""
    result = one_dict(result, "held_deletion_decision", "one result of the held_deletion diagnosis (a loop item)")
    if as_bool(result.get("protected")):
        # labelled teardown.gates/protected: kept, whatever holds it, with the reason
        return {"action": "none", "backup_serial": None, "kept": PROTECTED_LABEL_REASON}
    if printed(result.get("young")):
        # created less than min_age ago: kept as a protected one is, with the reason
        return {"action": "none", "backup_serial": None, "kept": printed(result.get("young"))}
    held = as_bool(result.get("held"))
    restores = restore_options(result)
    abandon_uid = printed(abandon_uid)
    if held and result.get("hold_type") == "state" and as_bool(prefer_restore) and restores:
        return {"action": "restore", "backup_serial": restores[0].get("backup_serial")}
    if held and abandon_uid and (abandon_uid == printed(result.get("uid")) or printed(held_name)):
        return {"action": "abandon", "backup_serial": None}
    return {"action": "none", "backup_serial": None}


# what a diagnosis says of an object nothing released yet, whatever was done, and of an object that went
NOT_RELEASED = ("DependentsExist", "Paused", "Unknown")
RELEASED = ("Absent", "FinalizerGone")


def still_held(after, action, check_mode):
    """Whether the role's Phase 7 names an object as still held, blocked or unknown, from its diagnosis ``after``
    the phases and the ``action`` the plan took. In check mode only an object the plan left alone is judged (a
    restore or abandon did not run). Named: a hold, or an unknown one (held None), or a reason that nothing from
    here releases, or an action taken that did not end in Absent or FinalizerGone."""
    after = one_dict(after, "held_deletion_still_held", "one result of the held_deletion diagnosis (phase 7)")
    if as_bool(after.get("protected")) or printed(after.get("young")):
        return False  # kept on purpose (labelled teardown.gates/protected, or younger than min_age): listed as kept, not as still held
    acted = printed(action) != "none"
    check_mode = as_bool(check_mode)
    if acted and check_mode:
        return False
    held = after.get("held")
    reason = after.get("reason")
    return bool(held is None or as_bool(held) or reason in NOT_RELEASED or (acted and reason not in RELEASED))


# what the report leaves out of each wait's gate: the objects and queries the timeline does not need
WAIT_LEFT_OUT = ("objects", "queries", "new_objects")


def _flat(items):
    """The items of nested lists in order, without None (and "None"), as ansible's flatten gives them."""
    flat = []
    for item in items:
        if isinstance(item, (list, tuple)):
            flat.extend(_flat(item))
        elif item is not None and item != "None":
            flat.append(item)
    return flat


def waits(results):
    """The gates of each wait_gate result (the role's waits for the finalizer to go, a loop's results), in order,
    without their objects and queries: the report's timeline. A result without gates (skipped) adds none."""
    results = dict_list(results, "held_deletion_waits", "the results of the role's wait_gate loop (a list)")
    gates = _flat([r["gates"] for r in results if "gates" in r])
    return [dict((k, v) for k, v in g.items() if k not in WAIT_LEFT_OUT) for g in gates if isinstance(g, dict)]
