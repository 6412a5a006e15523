# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the hosted_cluster_destroy role decides around its wait (Phase 3) and reports of it (Phase 7): whether the
CLI finalizer is on for the gates, which gates the report shows, and whether the AWS side is verified."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import CLI_FINALIZER
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import as_bool, parsed_dict, plain_list


def cli_finalizer_on(retained, finalizer_on, check_mode, deleting):
    """Whether the gates wait with the CLI finalizer on: it was on when the run began (``finalizer_on``), or Phase 2
    put it on (``retained``, the finalizer module's result, lists it after), or a check-mode run would put it on (the
    HostedCluster is not yet deleting). The first of these that is set decides, read as ``| bool`` reads it."""
    retained = parsed_dict(retained, "hosted_cluster_cli_finalizer_on", "the result of Phase 2's finalizer task")
    put_on = CLI_FINALIZER in (retained.get("finalizers_after", []) or [])
    return as_bool(finalizer_on or put_on or (check_mode and not deleting))


def report_gates(waited, gates, check_mode):
    """The gates the report shows: as the wait judged them, or when no wait judged any, the laid-out gates marked
    V(planned) in check mode and V(not_started) otherwise."""
    waited = parsed_dict(waited, "hosted_cluster_report_gates", "the result of Phase 3's wait_gate")
    judged = waited.get("gates", [])
    if len(judged) > 0:
        return judged
    state = "planned" if check_mode else "not_started"
    laid_out = plain_list(gates, "hosted_cluster_report_gates", "the gates laid out in Phase 3 (a list)")
    return [dict(g, state=state) for g in laid_out]


def aws_verified(aws_check, checks, manifest):
    """Whether the report calls the AWS side verified: never when the Phase 6 lookup failed; else as the lookup
    said, and without a lookup (nothing to look up) only when Phase 6 ran its checks and the manifest is empty."""
    aws_check = parsed_dict(aws_check, "hosted_cluster_aws_verified", "the result of Phase 6's AWS lookup")
    if aws_check.get("failed", False):
        return False
    if "verified" in aws_check:
        return aws_check["verified"]
    checks = plain_list(checks, "hosted_cluster_aws_verified", "the checks of Phase 6 (a list)")
    manifest = parsed_dict(manifest, "hosted_cluster_aws_verified", "the AWS manifest (a dict)")
    return len(checks) > 0 and len(manifest) == 0
