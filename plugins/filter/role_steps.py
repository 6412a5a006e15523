# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The roles' internal steps, one filter per role: ``value | <role>_step(STEP, ...)`` runs the plugins/plugin_utils
function of STEP on ``value`` and the arguments after STEP (filter_input.role_steps). Each filter's doc is
<role>_step.yml. Not a stable interface: the steps follow their role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import cfn_refusals_messages, cfn_refusals_stack
from ansible_collections.teardown.gates.plugins.plugin_utils import held_deletion_messages, held_deletion_plan
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline, hosted_cluster_input
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_messages, hosted_cluster_stop
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_verify, hosted_cluster_wait
from ansible_collections.teardown.gates.plugins.plugin_utils import orphan_sweep_messages, orphan_sweep_outcome
from ansible_collections.teardown.gates.plugins.plugin_utils import release_prune_input, release_prune_messages
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# role: {STEP: the function it runs, on the piped value | (the arguments after STEP)}
STEPS = {
    "cfn_refusals": {
        "missing": cfn_refusals_stack.missing,                    # the stacks chosen | (the plan)
        "stack_error": cfn_refusals_stack.stack_error,            # one stack's result | (blocked_by)
        "stack_record": cfn_refusals_stack.stack_record,          # one stack's result | (stack, error)
        "summary": cfn_refusals_messages.cfn_refusals_summary,    # the results
    },
    "held_deletion": {
        "decision": held_deletion_plan.decide,                    # one held object | (prefer_restore, abandon_uid, held_name)
        "still_held": held_deletion_plan.still_held,              # after | (action, check_mode)
        "waits": held_deletion_plan.waits,                        # the waits' results
        "unreleased_message": held_deletion_messages.held_deletion_unreleased_message,
    },
    "hosted_cluster_destroy": {
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
        # Phase 6: the verification
        "verification_reads": hosted_cluster_wait.verification_reads,  # name | (namespace, hcp_namespace)
        # deletion_info's objects | (name, namespace, namespace_retained)
        "verification_checks": hosted_cluster_verify.verification_checks,
        "verification_message": hosted_cluster_verify.verification_message,  # the checks | (aws_check, manifest)
        # Phase 7 and a stop: the report, the stop record, the message
        "report_gates": hosted_cluster_wait.report_gates,         # wait_gate's result | (gates, check_mode)
        "aws_verified": hosted_cluster_wait.aws_verified,         # the AWS lookup's result | (checks, manifest)
        "stop_record": hosted_cluster_stop.stop_record,  # the stop record | (failed_task, failed_result, resume, plan_verdict)
        # the stop record | (namespace, name, resume, finalizer_on, baseline_path, report_path)
        "stop_message": hosted_cluster_stop.stop_message,
    },
    "orphan_sweep": {
        "recheck_verdict": orphan_sweep_outcome.recheck_verdict,  # the re-check | (infra_id)
        "record": orphan_sweep_outcome.record,  # infra ID | (aws_infra_cleanup's result, still, why_not, check_mode, finished)
        "verified": orphan_sweep_outcome.sweep_verified,          # the records | (infra_ids)
        "found_message": orphan_sweep_messages.orphan_sweep_found_message,
        "unread_message": orphan_sweep_messages.orphan_sweep_unread_message,
        "failed_message": orphan_sweep_messages.orphan_sweep_failed_message,
    },
    "release_prune": {
        "selection_problem": release_prune_input.selection_problem,  # release_namespace | (selectors)
        "input_problem": release_prune_input.input_problem,    # prune_cluster | (cluster_name, timeout, batch_size, names)
        "cluster_line": release_prune_input.cluster_line,      # the plan's Cluster | (cluster_name, prune_cluster)
        "cluster_held": release_prune_input.cluster_held,      # the plan's kept Releases | (cluster_name)
        "orphaning_refusal_message": release_prune_messages.orphaning_refusal_message,
        "held_releases_message": release_prune_messages.held_releases_message,  # the Releases still present | (timeout)
        "wait_summaries": release_prune_messages.wait_summaries,  # wait_gate's gates
    },
}

FILTERS = dict((role + "_step", role_steps(role + "_step", steps)) for role, steps in STEPS.items())


class FilterModule(object):
    def filters(self):
        return dict(FILTERS)
