# -*- coding: utf-8 -*-
"""drivers/hosted_cluster_take_over.py: the take-over's input rules and words as plain functions (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_take_over as T


def params(**kw):
    p = dict(name="hc.one", namespace="clusters", uid="u", infra_id="i", hcp_namespace=None, part="operator",
             stalled_gate=None, timeout=600, request_timeout=10.0, poll_interval=2)
    p.update(kw)
    return p


def test_the_input_rules_name_the_option():
    assert T.validate(params()) == []
    assert T.validate(params(timeout=0, infra_id="")) == ["timeout: must be more than 0 seconds, got 0",
                                                          "infra_id: required, not empty"]


def test_the_hcp_namespace_is_derived_as_hypershift_does():
    assert T.hcp_namespace(params()) == "clusters-hc-one"
    assert T.hcp_namespace(params(hcp_namespace="x")) == "x"


def test_taken_over_names_the_stalled_gate_and_what_held_it():
    gate = {"name": "g", "state": "stalled", "remaining": [{"kind": "NodePool", "namespace": "clusters", "name": "np"}]}
    t = T.taken_over(params(stalled_gate=gate), 0)
    assert t["reason"]["held_by"] == ["NodePool clusters/np"] and t["started"].startswith("1970-01-01T00:00:00")
    assert T.taken_over(params(), 0)["reason"] == {}
