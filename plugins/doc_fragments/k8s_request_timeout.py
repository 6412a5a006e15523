# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The bound of one Kubernetes request, for a module that reports a failed read as unknown.
    DOCUMENTATION = r"""
options:
  request_timeout:
    description: Seconds one Kubernetes request may take before it counts as failed (the state is then unknown).
    type: float
    default: 10
"""
