# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The HostedCluster a module works on (its spec: module_utils/core/args.py hosted_cluster_spec). Its namespace
    # stays in each module: it has a default (hosted_cluster_info) or is required (hosted_cluster_take_over).
    DOCUMENTATION = r"""
options:
  name:
    description: The HostedCluster's name.
    type: str
    required: true
"""
