# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cfn_refusals role's summary table, one line per stack of its results (cfn_refusals_summary): a step
of the cfn_refusals_step filter."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import dict_list

SUMMARY_HEADER = "stack | final status | refusals (class: remedy, action) | retained | seconds"


def _refusals(result):
    """Each refusal as CLASS, REMEDY, ACTION (a remedy that may not be applied is null: "None"), joined by "; "."""
    return "; ".join(", ".join(str(r.get(k)) for k in ("class", "remedy", "action"))
                     for r in result.get("refusals") or [] if isinstance(r, dict))


def _retained(result):
    return ", ".join(str(r.get("physical_id")) for r in result.get("retained") or [] if isinstance(r, dict))


def _status(result):
    # a kept stack says why it stays (tagged teardown.gates/protected, or held by one that is)
    return "%s (%s)" % (result.get("status"), result["reason"]) if result.get("reason") else result.get("status")


def cfn_refusals_summary(results):
    """The header, then per stack: its name, final status, refusals (or "-"), retained physical IDs (or "-") and
    seconds, separated by " | "."""
    results = dict_list(results, "cfn_refusals_summary", "the results of the cfn_refusals role (one dict per stack)")
    return [SUMMARY_HEADER] + [
        " | ".join(str(v) for v in (r.get("stack"), _status(r), _refusals(r) or "-", _retained(r) or "-", r.get("elapsed")))
        for r in results]
