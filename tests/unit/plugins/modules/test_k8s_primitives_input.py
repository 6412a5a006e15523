# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.drivers import wait_gate as wait_gate_driver
from ansible_collections.teardown.gates.plugins.modules import wait_gate


def test_wait_gate_argument_spec_reuses_kubernetes_core_auth():
    spec = wait_gate.argument_spec()
    assert "kubeconfig" in spec and "gates" in spec
    assert wait_gate_driver.clean_selector({"name": "a", "label_selector": None}) == {"name": "a"}
