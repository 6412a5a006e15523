# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_destroy role's internal steps, one filter: ``value | hosted_cluster_destroy_step(STEP, ...)``
runs the plugins/plugin_utils function of STEP on ``value`` and the arguments after STEP. Not a stable interface:
the steps follow the role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline as baseline
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_wait as wait
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value and the arguments after STEP
STEPS = {
    "stored_baseline": baseline.stored_read,   # slurp result | (path)
    "gates": wait.gates_of,                    # cluster | (hosted_cluster)
    "verification_reads": wait.verification_reads,  # name | (namespace, hcp_namespace)
}

hosted_cluster_destroy_step = role_steps("hosted_cluster_destroy_step", STEPS)


class FilterModule(object):
    def filters(self):
        return {"hosted_cluster_destroy_step": hosted_cluster_destroy_step}
