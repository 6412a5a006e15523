# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The orphan_sweep role's internal steps, one filter: ``value | orphan_sweep_step(STEP, ...)`` runs the
plugins/plugin_utils function of STEP on ``value`` and the arguments after STEP. Not a stable interface: the steps
follow the role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import orphan_sweep_messages
from ansible_collections.teardown.gates.plugins.plugin_utils import orphan_sweep_outcome as sweep
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value and the arguments after STEP
STEPS = {
    "recheck_verdict": sweep.recheck_verdict,
    "record": sweep.record,  # infra ID | (aws_infra_cleanup's result, still, why_not, check_mode, finished)
    "verified": sweep.sweep_verified,
    "found_message": orphan_sweep_messages.orphan_sweep_found_message,
    "unread_message": orphan_sweep_messages.orphan_sweep_unread_message,
    "failed_message": orphan_sweep_messages.orphan_sweep_failed_message,
}

orphan_sweep_step = role_steps("orphan_sweep_step", STEPS)


class FilterModule(object):
    def filters(self):
        return {"orphan_sweep_step": orphan_sweep_step}
