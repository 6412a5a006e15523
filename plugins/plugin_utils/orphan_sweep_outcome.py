# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The orphan_sweep role's judges for one infra ID: whether the re-check right before deleting still finds an
orphan (and why not), and the outcome of its cleanup as the sweep records it."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import as_bool, dict_list, one_dict, printed

UNREAD = "a management cluster could not be read at the re-check"
VERIFIED = "every resource verified absent by ID"
# the keys of a cleanup resource the record keeps
RESOURCE_KEYS = ("type", "id", "outcome", "verified_state", "error")


def recheck_verdict(recheck, infra_id):
    """{'still': whether infra_id is still an orphan, 'why_not': why it is left alone, or ''} from the result of
    aws_orphan_inventory run again for that one infra ID. Still an orphan: every management cluster was read and
    the infra ID is either reported as an orphan again or not reported at all (nothing claims it)."""
    recheck = one_dict(recheck, "orphan_sweep_recheck_verdict", "the result of aws_orphan_inventory")
    known = as_bool(recheck.get("management_known"))
    again = [i for i in recheck.get("infra_ids") or [] if isinstance(i, dict) and i.get("infra_id") == infra_id]
    if not known:
        return {"still": False, "why_not": UNREAD}
    if again and again[0].get("status") != "orphan":
        return {"still": False, "why_not": again[0].get("reason", "")}
    return {"still": True, "why_not": ""}


def outcome(aws_result, still, check_mode):
    """left_alone (no longer an orphan), planned (check mode), nothing_to_delete (no cleanup ran and none failed),
    failed (the cleanup failed or did not verify), destroyed (this run deleted some of it) or already_gone (every ID
    was found absent)."""
    aws_result = one_dict(aws_result or {}, "orphan_sweep_record", "the result of aws_infra_cleanup")
    error = printed(aws_result.get("msg"))
    ran = "resources" in aws_result
    if not as_bool(still):
        return "left_alone"
    if as_bool(check_mode):
        return "planned"
    if not ran and not error:
        return "nothing_to_delete"
    if error or not _verified(aws_result):
        return "failed"
    resources = [r for r in aws_result.get("resources") or [] if isinstance(r, dict)]
    return "destroyed" if any(r.get("outcome") == "deleted" for r in resources) else "already_gone"


def _verified(aws_result):
    """The cleanup ran, reported no error, and verified (when it says so) every ID absent."""
    return "resources" in aws_result and not printed(aws_result.get("msg")) and bool(aws_result.get("verified", True))


def record(infra_id, aws_result, still, why_not, check_mode, finished):
    """The sweep's record of one infra ID: its outcome, the reason, whether verified, the IDs remaining, the plan,
    each resource reduced to RESOURCE_KEYS, and when it finished."""
    aws_result = one_dict(aws_result or {}, "orphan_sweep_record", "the result of aws_infra_cleanup")
    resources = [r for r in aws_result.get("resources") or [] if isinstance(r, dict)]
    error = printed(aws_result.get("msg"))
    judged = outcome(aws_result, still, check_mode)
    if judged == "left_alone":
        reason = why_not
    elif error:
        reason = error
    else:
        reason = VERIFIED if judged in ("destroyed", "already_gone") else ""
    return {
        "infra_id": infra_id,
        "outcome": judged,
        "reason": reason,
        "verified": _verified(aws_result) if not as_bool(check_mode) else False,
        "remaining": [r.get("id") for r in resources if r.get("outcome") == "failed"],
        "plan": aws_result.get("plan", []),
        "resources": [dict((k, v) for k, v in r.items() if k in RESOURCE_KEYS) for r in resources],
        "finished": finished,
    }


def sweep_verified(results, infra_ids):
    """The sweep's verdict: True only when no infra ID is unknown (every management cluster was read), none failed,
    and every destroyed one was verified absent by ID."""
    results = dict_list(results, "orphan_sweep_verified", "the sweep's records (orphan_sweep_results)")
    infra_ids = dict_list(infra_ids or [], "orphan_sweep_verified", "the infra IDs of aws_orphan_inventory")
    destroyed = [r for r in results if r.get("outcome") == "destroyed"]
    return (all(r.get("verified") for r in destroyed)
            and not any(i.get("status") == "unknown" for i in infra_ids)
            and not any(r.get("outcome") == "failed" for r in results))
