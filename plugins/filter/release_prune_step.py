# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The release_prune role's internal steps: ``value | teardown.gates.release_prune_step(STEP, ...)`` runs the function of STEP
(plugins/plugin_utils) on ``value`` and the arguments after STEP (filter_input.role_steps); release_prune_step.yml
documents each step. Not a stable interface: the steps follow their role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import release_prune_input, release_prune_messages
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value | (the arguments after STEP)
STEPS = {
    "selection_problem": release_prune_input.selection_problem,  # release_namespace | (selectors)
    "input_problem": release_prune_input.input_problem,    # prune_cluster | (cluster_name, timeout, batch_size, names)
    "cluster_line": release_prune_input.cluster_line,      # the plan's Cluster | (cluster_name, prune_cluster)
    "cluster_held": release_prune_input.cluster_held,      # the plan's kept Releases | (cluster_name)
    "orphaning_refusal_message": release_prune_messages.orphaning_refusal_message,
    "held_releases_message": release_prune_messages.held_releases_message,  # the Releases still present | (timeout)
    "wait_summaries": release_prune_messages.wait_summaries,  # wait_gate's gates
}


class FilterModule(object):
    def filters(self):
        return {"release_prune_step": role_steps("release_prune_step", STEPS)}
