# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_destroy role's internal steps: ``value | teardown.gates.hosted_cluster_destroy_step(STEP, ...)`` runs the function of STEP
(plugins/plugin_utils) on ``value`` and the arguments after STEP (filter_input.role_steps); hosted_cluster_destroy_step.yml
documents each step. Not a stable interface: the steps follow their role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_cli_secrets
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_input
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_messages
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_stop
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_verify
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_wait
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value | (the arguments after STEP)
STEPS = {
    # Phase 0 and 1: the input, whether the AWS cleanup runs (the baseline itself: the hosted_cluster_baseline module)
    # name | (namespace, infra_id, grace_period, aws_timeout, take_over_cleanup, take_over_after, report_dir)
    "input_problems": hosted_cluster_input.problems,
    "aws_cleanup_runs": hosted_cluster_baseline.aws_cleanup_runs,  # the manifest
    # Phase 3: the gates
    "cli_finalizer_on": hosted_cluster_wait.cli_finalizer_on,  # Phase 2's result | (finalizer_on, check_mode, deleting)
    "gates": hosted_cluster_wait.gates_of,                    # cluster | (hosted_cluster)
    # the gates | (grace_period, will_delete, take_over, take_over_after)
    "gates_plan_message": hosted_cluster_messages.gates_plan_message,
    # a gate | (diagnosis, take_over, hc_present, manifest, guest_volumes, guest_groups)
    "gate_stop_message": hosted_cluster_messages.gate_stop_message,
    # Phase 4: the AWS levels
    "aws_plan_message": hosted_cluster_messages.aws_plan_message,  # aws_infra_cleanup's result
    # Phase 5: the Secrets the CLI made, deleted before its finalizer comes off
    "cli_secrets_reads": hosted_cluster_cli_secrets.cli_secrets_reads,      # name | (namespace, infra_id)
    "cli_secrets_found": hosted_cluster_cli_secrets.cli_secrets_found,      # deletion_info's result | (namespace, infra_id)
    "cli_secrets_deleted": hosted_cluster_cli_secrets.cli_secrets_deleted,  # the record | (the deletes' result, check_mode)
    "cli_secrets_message": hosted_cluster_cli_secrets.cli_secrets_message,  # the record
    "cli_secrets_stopped": hosted_cluster_cli_secrets.cli_secrets_stopped,  # the record
    # Phase 6: the verification
    "verification_reads": hosted_cluster_wait.verification_reads,  # name | (namespace, hcp_namespace, infra_id)
    # deletion_info's objects | (name, namespace, namespace_retained)
    "verification_checks": hosted_cluster_verify.verification_checks,
    "verification_message": hosted_cluster_verify.verification_message,  # the checks | (aws_check, manifest)
    # Phase 7 and a stop: the report, the stop record, the message
    "report_gates": hosted_cluster_wait.report_gates,         # wait_gate's result | (gates, check_mode)
    "aws_verified": hosted_cluster_wait.aws_verified,         # the AWS lookup's result | (checks, manifest)
    "stop_record": hosted_cluster_stop.stop_record,  # the stop record | (failed_task, failed_result, resume, plan_verdict)
    # the stop record | (namespace, name, resume, finalizer_on, baseline_path, report_path)
    "stop_message": hosted_cluster_stop.stop_message,
}


class FilterModule(object):
    def filters(self):
        return {"hosted_cluster_destroy_step": role_steps("hosted_cluster_destroy_step", STEPS)}
