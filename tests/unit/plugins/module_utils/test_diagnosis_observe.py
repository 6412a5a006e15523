# -*- coding: utf-8 -*-
"""A concern test of k8s/observe.py and k8s/diagnosis.py together with the kinds' hint rules: the summary observe
makes of an object is what diagnosis reads its finalizer owners and inspect-next hints from. Their own tests are
k8s/test_observe.py, k8s/test_diagnosis.py and kinds/test_<kind>.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.module_utils.k8s import diagnosis as D
from ansible_collections.teardown.gates.plugins.module_utils.k8s import observe as O


def test_utc_iso_has_milliseconds_and_z():
    assert O.utc_iso(0) == "1970-01-01T00:00:00.000Z"
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", O.utc_iso())
    assert O.parse_k8s_time("1970-01-01T00:00:10Z") == 10.0
    assert O.parse_k8s_time(None) is None


def test_pod_summary_keeps_grace_deadline():
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"terminationGracePeriodSeconds": 30},
           "metadata": {"name": "p", "uid": "u", "deletionTimestamp": "2026-01-01T00:00:30Z",
                        "deletionGracePeriodSeconds": 30}}
    s = O.object_summary(pod)
    assert s["grace_deadline"] == "2026-01-01T00:00:30Z"
    assert s["deletion_grace_period_seconds"] == 30 and s["termination_grace_period_seconds"] == 30


def test_finalizer_owners():
    assert "CAPI" in D.finalizer_owner("cluster.cluster.x-k8s.io")["owner"]
    assert D.finalizer_owner("example.com/mine")["owner"] == "unknown"


def test_unknown_state_gives_the_failed_query_hint_only():
    assert D.inspect_next(None, state="unknown") == [D.UNKNOWN_HINT]
    assert D.inspect_next(None, state="absent") == []


def test_kind_rules_and_condition_hints():
    tf = {"apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1", "kind": "TerraformMachine",
          "metadata": {"finalizers": ["terraformmachine.infrastructure.cluster.x-k8s.io"]},
          "status": {"conditions": [{"type": "StateReadable", "status": "False", "reason": "StateLost"}]}}
    hints = D.inspect_next(tf)
    assert "deletion hold (StateLost)" in hints[0]
    tf["status"]["conditions"][0]["reason"] = "StateLocked"
    assert "not a hold" in D.inspect_next(tf)[0]
    m = {"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine", "metadata": {},
         "status": {"conditions": [{"type": "Deleting", "status": "True", "reason": "WaitingForInfrastructureDeletion"}]}}
    assert "WaitingForInfrastructureDeletion" in D.inspect_next(m)[0]
    rel = {"api_version": "core.convoy.kumodo.io/v1alpha1", "kind": "Release", "finalizers": ["x.io/odd"],
           "conditions": []}
    hints = D.inspect_next(rel)  # an object_summary works too
    assert any("preDelete" in h for h in hints) and any("x.io/odd" in h for h in hints)
    hc = {"apiVersion": "hypershift.openshift.io/v1beta1", "kind": "HostedCluster",
          "metadata": {"finalizers": ["openshift.io/destroy-cluster"]}}
    assert "Only the CLI destroy finalizer" in D.inspect_next(hc)[0]


def test_every_rule_is_text_and_never_says_to_strip():
    for hints in D.KIND_RULES.values():
        for h in hints:
            assert isinstance(h, str) and "remove the finalizer" not in h.lower()
