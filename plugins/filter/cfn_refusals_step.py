# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cfn_refusals role's internal steps, one filter: ``value | cfn_refusals_step(STEP, ...)`` runs the
plugins/plugin_utils function of STEP on ``value`` and the arguments after STEP. Not a stable interface: the steps
follow the role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import cfn_refusals_messages
from ansible_collections.teardown.gates.plugins.plugin_utils import cfn_refusals_stack
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value and the arguments after STEP
STEPS = {
    "missing": cfn_refusals_stack.missing,
    "stack_error": cfn_refusals_stack.stack_error,
    "stack_record": cfn_refusals_stack.stack_record,
    "summary": cfn_refusals_messages.cfn_refusals_summary,
}

cfn_refusals_step = role_steps("cfn_refusals_step", STEPS)


class FilterModule(object):
    def filters(self):
        return {"cfn_refusals_step": cfn_refusals_step}
