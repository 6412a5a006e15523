# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.drivers import finalizer, wait_gate as wait_gate_driver
from ansible_collections.teardown.gates.plugins.modules import wait_gate


def params(**kw):
    p = dict(state="absent", finalizer=["example.com/f"], api_version="v1", kind="ConfigMap", name="x",
             namespace="default", only_if_deleting=None, expected_uid=None, scope="metadata", retries=5,
             request_timeout=10.0)
    p.update(kw)
    return p


def test_finalizer_input_ok():
    assert finalizer.validate(params()) == []


def test_finalizer_input_errors_name_the_option():
    assert finalizer.validate(params(finalizer=["not a name"]))[0].startswith("finalizer:")
    assert finalizer.validate(params(retries=0))[0].startswith("retries:")
    assert finalizer.validate(params(scope="spec"))[0].startswith("scope:")
    assert finalizer.validate(params(state="present", only_if_deleting=True))[0].startswith("only_if_deleting:")
    assert finalizer.validate(params(scope="spec", kind="Namespace")) == []


def test_wait_gate_argument_spec_reuses_kubernetes_core_auth():
    spec = wait_gate.argument_spec()
    assert "kubeconfig" in spec and "gates" in spec
    assert wait_gate_driver.clean_selector({"name": "a", "label_selector": None}) == {"name": "a"}
