# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the orphan_sweep role shows it found (from aws_orphan_inventory), and its two stop messages
(orphan_sweep_found_message, orphan_sweep_unread_message, orphan_sweep_failed_message): steps of the
orphan_sweep_step filter."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import dict_list, one_dict, printed


def _context(m):
    read = ("%d HostedClusters" % len(m.get("hosted_clusters") or [])) if m.get("ok") else "NOT READ (%s)" % (m.get("error"),)
    return "context %s: %s; " % (printed(m.get("context")), read)


def _infra_id(e):
    total = (", %s resources" % (e.get("total"),)) if e.get("total") else ""
    age = (", age %s s" % (e.get("age_seconds"),)) if e.get("age_seconds") is not None else ""
    return "%s: %s (%s)%s%s; " % (printed(e.get("infra_id")), printed(e.get("status")), printed(e.get("reason")), total, age)


def orphan_sweep_found_message(found, sweep_delete=False):
    """Per management context, how many HostedClusters were read (or why not); per infra ID, its status, reason,
    resource count and age; then how many orphans there are, and whether they are to be swept."""
    name = "orphan_sweep_found_message"
    found = one_dict(found, name, "the result of aws_orphan_inventory")
    management = dict_list(found.get("management") or [], name, "management to be a list")
    infra_ids = dict_list(found.get("infra_ids") or [], name, "infra_ids to be a list")
    return "%s %s %d orphan(s)%s." % ("".join(_context(m) for m in management), "".join(_infra_id(e) for e in infra_ids),
                                      len(found.get("orphans") or []), " to sweep" if sweep_delete else "")


def orphan_sweep_unread_message(management, report_path):
    """Each management context that could not be read, with its error; that nothing was swept; the report."""
    management = dict_list(management, "orphan_sweep_unread_message", "the management of aws_orphan_inventory")
    return "%s nothing was swept. Report: %s" % (
        "".join("context %s: %s; " % (printed(m.get("context")), printed(m.get("error"))) for m in management if not m.get("ok")),
        printed(report_path))


def orphan_sweep_failed_message(results, report_path):
    """Each infra ID whose sweep failed, with why; the report; that a re-run resumes."""
    results = dict_list(results, "orphan_sweep_failed_message", "the results of the orphan_sweep role (one dict per infra ID)")
    return "%sReport: %s. A re-run resumes." % (
        "".join("%s: %s; " % (printed(r.get("infra_id")), printed(r.get("reason"))) for r in results if r.get("outcome") == "failed"),
        printed(report_path))
