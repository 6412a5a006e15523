# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Core Kubernetes: the finalizers and objects every kind meets (namespaces, the garbage collector, volumes,
load balancers). Not a teardown kind: ground truth the kinds share. registry.py reads it beside KINDS."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

NAME = "kubernetes"

FINALIZERS = {
    "kubernetes": (
        "namespace controller (Namespace spec.finalizers)", "every object in the namespace deleted"),
    "foregroundDeletion": (
        "garbage collector", "dependents with blockOwnerDeletion deleted first"),
    "orphan": (
        "garbage collector", "dependents' ownerReferences removed"),
    "kubernetes.io/pv-protection": ("PV protection controller", "no PVC bound to the volume"),
    "kubernetes.io/pvc-protection": ("PVC protection controller", "no pod using the claim"),
    "service.kubernetes.io/load-balancer-cleanup": (
        "cloud controller manager (Service)", "the cloud load balancer deleted"),
}

OBJECT_HINTS = {
    ("", "Pod"): [
        "A terminating pod: deletionTimestamp is the grace deadline, not the request time. Without a kubelet "
        "(or with an unreachable node) nothing confirms termination; check the node and the pod's finalizers."],
    ("", "Service"): [
        "A LoadBalancer Service keeps service.kubernetes.io/load-balancer-cleanup until the cloud load "
        "balancer is gone: check the cloud controller (HCCO for guest Services) and the ELB."],
    ("", "PersistentVolumeClaim"): ["kubernetes.io/pvc-protection stays while a pod uses the claim: find that pod."],
}

# the core controllers (kube-controller-manager, the garbage collector) run in the control plane, not as
# Deployments the API lists
CONTROLLERS = ()

HINT_RULES = ()
