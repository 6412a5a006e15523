# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The release_prune role's internal steps, one filter: ``value | release_prune_step(STEP, ...)`` runs the
plugins/plugin_utils function of STEP on ``value`` and the arguments after STEP. Not a stable interface: the steps
follow the role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import release_prune_input as prune_input
from ansible_collections.teardown.gates.plugins.plugin_utils import release_prune_messages as messages
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value and the arguments after STEP
STEPS = {
    "selection_problem": prune_input.selection_problem,   # release_namespace | (selectors)
    "input_problem": prune_input.input_problem,           # prune_cluster | (cluster_name, timeout, batch_size, names)
    "cluster_line": prune_input.cluster_line,             # the plan's Cluster | (cluster_name, prune_cluster)
    "cluster_held": prune_input.cluster_held,             # the plan's kept Releases | (cluster_name)
    "orphaning_refusal_message": messages.orphaning_refusal_message,  # the Releases that would orphan workloads
    "held_releases_message": messages.held_releases_message,          # the Releases still present | (timeout)
    "wait_summaries": messages.wait_summaries,                        # wait_gate's gates
}

release_prune_step = role_steps("release_prune_step", STEPS)


class FilterModule(object):
    def filters(self):
        return {"release_prune_step": release_prune_step}
