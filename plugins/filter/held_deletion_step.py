# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The held_deletion role's internal steps: ``value | teardown.gates.held_deletion_step(STEP, ...)`` runs the function of STEP
(plugins/plugin_utils) on ``value`` and the arguments after STEP (filter_input.role_steps); held_deletion_step.yml
documents each step. Not a stable interface: the steps follow their role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import held_deletion_messages, held_deletion_plan
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value | (the arguments after STEP)
STEPS = {
    "decision": held_deletion_plan.decide,                    # one held object | (prefer_restore, abandon_uid, held_name)
    "still_held": held_deletion_plan.still_held,              # after | (action, check_mode)
    "waits": held_deletion_plan.waits,                        # the waits' results
    "unreleased_message": held_deletion_messages.held_deletion_unreleased_message,
}


class FilterModule(object):
    def filters(self):
        return {"held_deletion_step": role_steps("held_deletion_step", STEPS)}
