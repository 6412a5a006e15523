# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cfn_refusals role's internal steps: ``value | teardown.gates.cfn_refusals_step(STEP, ...)`` runs the function of STEP
(plugins/plugin_utils) on ``value`` and the arguments after STEP (filter_input.role_steps); cfn_refusals_step.yml
documents each step. Not a stable interface: the steps follow their role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import cfn_refusals_messages, cfn_refusals_stack
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value | (the arguments after STEP)
STEPS = {
    "missing": cfn_refusals_stack.missing,                    # the stacks chosen | (the plan)
    "stack_error": cfn_refusals_stack.stack_error,            # one stack's result | (blocked_by)
    "stack_record": cfn_refusals_stack.stack_record,          # one stack's result | (stack, error)
    "summary": cfn_refusals_messages.cfn_refusals_summary,    # the results
}


class FilterModule(object):
    def filters(self):
        return {"cfn_refusals_step": role_steps("cfn_refusals_step", STEPS)}
