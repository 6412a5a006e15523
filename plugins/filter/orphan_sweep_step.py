# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The orphan_sweep role's internal steps: ``value | teardown.gates.orphan_sweep_step(STEP, ...)`` runs the function of STEP
(plugins/plugin_utils) on ``value`` and the arguments after STEP (filter_input.role_steps); orphan_sweep_step.yml
documents each step. Not a stable interface: the steps follow their role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import orphan_sweep_messages, orphan_sweep_outcome
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value | (the arguments after STEP)
STEPS = {
    "recheck_verdict": orphan_sweep_outcome.recheck_verdict,  # the re-check | (infra_id)
    "record": orphan_sweep_outcome.record,  # infra ID | (aws_infra_cleanup's result, still, why_not, check_mode, finished)
    "verified": orphan_sweep_outcome.sweep_verified,          # the records | (infra_ids)
    "found_message": orphan_sweep_messages.orphan_sweep_found_message,
    "unread_message": orphan_sweep_messages.orphan_sweep_unread_message,
    "failed_message": orphan_sweep_messages.orphan_sweep_failed_message,
}


class FilterModule(object):
    def filters(self):
        return {"orphan_sweep_step": role_steps("orphan_sweep_step", STEPS)}
