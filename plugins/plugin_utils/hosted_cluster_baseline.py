# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_destroy role's baseline step left in the role (hosted_cluster_destroy_step 'aws_cleanup_runs',
Phases 1 and 4): the code is module_utils/kinds/hosted_cluster_baseline.py's, whose other rules the
hosted_cluster_baseline module runs; here its BaselineError becomes the AnsibleFilterError a filter raises, with the
same message."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster_baseline as pure


def _filter(func):
    """``func`` with its BaselineError raised as an AnsibleFilterError (the same message)."""
    @functools.wraps(func)
    def call(*args):
        try:
            return func(*args)
        except pure.BaselineError as e:
            raise AnsibleFilterError(str(e))
    return call


aws_cleanup_runs = _filter(pure.aws_cleanup_runs)
