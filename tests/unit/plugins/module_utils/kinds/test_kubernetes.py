# -*- coding: utf-8 -*-
"""kinds/kubernetes.py: the core Kubernetes finalizers and objects every kind meets. Not a teardown kind (no
controllers, no rules), only ground truth the diagnosis reads: each finalizer names who removes it and when."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import kubernetes


def test_it_is_named_kubernetes_and_owns_no_controller_or_rule():
    assert kubernetes.NAME == "kubernetes"
    assert kubernetes.CONTROLLERS == () and kubernetes.HINT_RULES == ()


def test_the_core_finalizers_are_all_there():
    assert sorted(kubernetes.FINALIZERS) == sorted([
        "kubernetes", "foregroundDeletion", "orphan", "kubernetes.io/pv-protection",
        "kubernetes.io/pvc-protection", "service.kubernetes.io/load-balancer-cleanup"])


def test_each_finalizer_names_its_remover_and_what_it_waits_for():
    for name, pair in kubernetes.FINALIZERS.items():
        assert isinstance(pair, tuple) and len(pair) == 2, name
        remover, waits_for = pair
        assert remover.strip() and waits_for.strip(), name
    assert kubernetes.FINALIZERS["kubernetes"][0].startswith("namespace controller")
    assert "garbage collector" in kubernetes.FINALIZERS["foregroundDeletion"][0]


def test_object_hints_are_keyed_by_core_group_and_kind():
    assert sorted(kubernetes.OBJECT_HINTS) == [("", "PersistentVolumeClaim"), ("", "Pod"), ("", "Service")]
    for key, hints in kubernetes.OBJECT_HINTS.items():
        assert hints and all(isinstance(h, str) and h for h in hints), key
    # the Service hint points at the finalizer the load balancer cleanup holds
    assert "service.kubernetes.io/load-balancer-cleanup" in kubernetes.OBJECT_HINTS[("", "Service")][0]
