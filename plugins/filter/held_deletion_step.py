# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The held_deletion role's internal steps, one filter: ``value | held_deletion_step(STEP, ...)`` runs the
plugins/plugin_utils function of STEP on ``value`` and the arguments after STEP. Not a stable interface: the steps
follow the role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import held_deletion_messages
from ansible_collections.teardown.gates.plugins.plugin_utils import held_deletion_plan
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value and the arguments after STEP
STEPS = {
    "decision": held_deletion_plan.decide,
    "still_held": held_deletion_plan.still_held,
    "waits": held_deletion_plan.waits,
    "unreleased_message": held_deletion_messages.held_deletion_unreleased_message,
}

held_deletion_step = role_steps("held_deletion_step", STEPS)


class FilterModule(object):
    def filters(self):
        return {"held_deletion_step": held_deletion_step}
