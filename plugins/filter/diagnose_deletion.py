# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The diagnose_deletion role's decisions, in Python (plugins/module_utils/k8s/deletion_diagnosis.py):

- its JSON report from deletion_info's answer (diagnose_deletion_report);
- its input problems, before any request (diagnose_deletion_input_problem)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.k8s import deletion_diagnosis


def diagnose_deletion_report(answer, item, started, finished, check_mode=False):
    return deletion_diagnosis.report(answer, item, started, finished, check_mode)


def diagnose_deletion_input_problem(item):
    return deletion_diagnosis.input_problem(item)


class FilterModule(object):
    def filters(self):
        return {
            "diagnose_deletion_report": diagnose_deletion_report,
            "diagnose_deletion_input_problem": diagnose_deletion_input_problem,
        }
