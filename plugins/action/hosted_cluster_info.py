# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# Runs the hosted_cluster_info module in Ansible's worker process when the target is the controller
# (plugins/plugin_utils/in_process.py says when, and why).

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils.in_process import (
    KUBERNETES_LIBRARIES,
    InProcessModuleAction,
    preload,
)

preload("hosted_cluster_info", KUBERNETES_LIBRARIES)


class ActionModule(InProcessModuleAction):
    MODULE = "hosted_cluster_info"
