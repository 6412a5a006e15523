# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_destroy role's internal steps, one filter: ``value | hosted_cluster_destroy_step(STEP, ...)``
runs the plugins/plugin_utils function of STEP on ``value`` and the arguments after STEP. Not a stable interface:
the steps follow the role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline as baseline
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_wait as wait

# STEP: the function it runs, on the piped value and the arguments after STEP
STEPS = {
    "stored_baseline": baseline.stored_read,   # slurp result | (path)
    "gates": wait.gates_of,                    # cluster | (hosted_cluster)
    "verification_reads": wait.verification_reads,  # name | (namespace, hcp_namespace)
}


def hosted_cluster_destroy_step(value, step, *args):
    """What STEP of the hosted_cluster_destroy role makes of ``value`` and ``args``."""
    if step not in STEPS:
        raise AnsibleFilterError("hosted_cluster_destroy_step: no step %r; the steps are %s" % (step, ", ".join(sorted(STEPS))))
    return STEPS[step](value, *args)


class FilterModule(object):
    def filters(self):
        return {"hosted_cluster_destroy_step": hosted_cluster_destroy_step}
