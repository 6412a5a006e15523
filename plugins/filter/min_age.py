# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The min_age_problem and min_age_seconds filters: what is wrong with a role's ``min_age`` (core/age.py reads it, as
the modules do), so that the role refuses it in its input check, before any request; and its seconds, for the plan's
options (``24h`` and ``86400`` are the same plan, with the same digest)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.teardown.gates.plugins.module_utils.core.age import min_age_problem, parse_age


def min_age_seconds(value):
    """``min_age`` in seconds; a bad one fails naming min_age (the role's input check refuses it first)."""
    problem = min_age_problem(value)
    if problem:
        raise AnsibleFilterError(problem)
    return parse_age(value)


class FilterModule(object):
    def filters(self):
        return {"min_age_problem": min_age_problem, "min_age_seconds": min_age_seconds}
