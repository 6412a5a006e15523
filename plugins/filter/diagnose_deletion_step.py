# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The diagnose_deletion role's internal steps: ``value | teardown.gates.diagnose_deletion_step(STEP, ...)`` runs the
function of STEP (plugins/module_utils/k8s/deletion_diagnosis.py) on ``value`` and the arguments after STEP
(filter_input.role_steps); diagnose_deletion_step.yml documents each step. Not a stable interface: the steps follow
their role."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.k8s import deletion_diagnosis
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import role_steps

# STEP: the function it runs, on the piped value | (the arguments after STEP)
STEPS = {
    "input_problem": deletion_diagnosis.input_problem,  # the object asked about
    "report": deletion_diagnosis.report,                # deletion_info's answer | (item, started, finished, check_mode)
}


class FilterModule(object):
    def filters(self):
        return {"diagnose_deletion_step": role_steps("diagnose_deletion_step", STEPS)}
