# -*- coding: utf-8 -*-
# diagnosis.FINALIZER_OWNERS against the documented behaviour of each controller: every finalizer the
# upstream projects (or, for convoy and CAPTF, their seed documents) name has an owner and says what it
# waits for, in words a reader can check against the source cited beside it. The expectations are written
# here from the spec (tests/sandbox/spec/), not read from the twins' code: a twin and the collection that
# both drift from upstream would otherwise still agree.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.k8s import diagnosis

HS = "openshift/hypershift@3ee9615567acffaf3e3ee25c2ca2942d650565cf"
CAPI = "kubernetes-sigs/cluster-api@ae7ff047db499ac3858ade268ba38db8c9f128bb"
CAPA = "kubernetes-sigs/cluster-api-provider-aws@2cf09d78547d32975570a4b9ba5496bdfe26abeb"
K8S_FINALIZERS = "https://kubernetes.io/docs/concepts/overview/working-with-objects/finalizers/"

# finalizer -> (a word the owner names, words "waits for" must contain, where the rule comes from)
DOCUMENTED = {
    "hypershift.openshift.io/finalizer": (
        "HyperShift", ["NodePool", "CAPI Cluster", "HCP", "OIDC", "namespace", "grace period"],
        HS + " hypershift-operator/controllers/hostedcluster/hostedcluster_controller.go:123 and delete() (HS-1..HS-11)"),
    "openshift.io/destroy-cluster": (
        "CLI", ["AWS infrastructure", "IAM"], HS + " cmd/cluster/core/destroy.go:39"),
    "hypershift.io/aws-oidc-discovery": (
        "OIDC", ["<infraID>/", "OIDC bucket"],
        HS + " hypershift-operator/controllers/hostedcluster/hostedcluster_controller.go:4897, cleanupOIDCBucketData (HS-8)"),
    "hypershift.openshift.io/control-plane-operator-finalizer": (
        "control-plane operator", ["endpoint service", "10 minutes", "invalid credentials"],
        HS + " control-plane-operator/controllers/awsprivatelink/awsprivatelink_controller.go:222; "
        "hostedcluster_controller.go deleteAWSEndpointServices (HS-6, HS-21)"),
    "cluster.cluster.x-k8s.io": (
        "CAPI", ["Machines", "controlPlaneRef", "infrastructureRef"], CAPI + " api/core/v1beta2/cluster_types.go:37"),
    "cluster.x-k8s.io/machinedeployment": (
        "CAPI", ["MachineSets"], CAPI + " api/core/v1beta2/machinedeployment_types.go:31"),
    "cluster.x-k8s.io/machineset": (
        "CAPI", ["Machines"], CAPI + " api/core/v1beta2/machineset_types.go:35"),
    "machine.cluster.x-k8s.io": (
        "CAPI", ["AWSMachine"], CAPI + " api/core/v1beta2/machine_types.go:28"),
    "awsmachine.infrastructure.cluster.x-k8s.io": (
        "CAPA", ["EC2 instance terminated"], CAPA + " api/v1beta2/awsmachine_types.go:28"),
    "awscluster.infrastructure.cluster.x-k8s.io": (
        "CAPA", ["network"], CAPA + " api/v1beta2/awscluster_types.go:28"),
    "terraformcluster.infrastructure.cluster.x-k8s.io": (
        "CAPTF", ["machines and pools", "destroy", "abandon", "UID"], "seed 002 rules table (TF-3, TF-10, TF-12..TF-14)"),
    "terraformmachine.infrastructure.cluster.x-k8s.io": (
        "CAPTF", ["destroy", "abandon", "UID"], "seed 002 rules table (TF-10, TF-12..TF-14)"),
    "terraformmachinepool.infrastructure.cluster.x-k8s.io": (
        "CAPTF", ["destroy", "abandon", "UID"], "seed 002 rules table (TF-10, TF-12..TF-14)"),
    "release.core.convoy.kumodo.io/prune-workloads": (
        "convoy", ["preDelete", "objects"], "seed 004, Deletion (CV-1, CV-4, CV-6)"),
    "cluster.core.convoy.kumodo.io/prune-releases": (
        "convoy", ["Releases"], "seed 004, Delete a Cluster (CV-12..CV-14)"),
    "kubernetes": (
        "namespace", ["every object in the namespace"],
        "https://kubernetes.io/docs/tasks/administer-cluster/namespaces/ (spec.finalizers)"),
    "foregroundDeletion": (
        "garbage collector", ["blockOwnerDeletion"],
        "https://kubernetes.io/docs/concepts/architecture/garbage-collection/#foreground-deletion"),
    "orphan": (
        "garbage collector", ["ownerReferences"],
        "https://kubernetes.io/docs/concepts/architecture/garbage-collection/#orphaned-dependents"),
    "kubernetes.io/pvc-protection": (
        "PVC", ["pod"], "https://kubernetes.io/docs/concepts/storage/persistent-volumes/#storage-object-in-use-protection"),
    "kubernetes.io/pv-protection": (
        "PV", ["PVC"], "https://kubernetes.io/docs/concepts/storage/persistent-volumes/#storage-object-in-use-protection"),
    "service.kubernetes.io/load-balancer-cleanup": (
        "cloud controller", ["load balancer"], K8S_FINALIZERS + " and the service controller of k8s.io/cloud-provider"),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_every_documented_finalizer_has_its_owner_and_what_it_waits_for(name):
    owner_word, waits_words, source = DOCUMENTED[name]
    got = diagnosis.finalizer_owner(name)
    assert got["name"] == name
    assert owner_word.lower() in got["owner"].lower(), (name, got, source)
    missing = [w for w in waits_words if w.lower() not in got.get("waits_for", "").lower()]
    assert not missing, (name, missing, got, source)


def test_the_oidc_cleanup_is_its_own_finalizer_and_ho_waits_for_it():
    # HS-8: HO cleans the <infraID>/ prefix and drops hypershift.io/aws-oidc-discovery before its own finalizer
    ho = diagnosis.finalizer_owner("hypershift.openshift.io/finalizer")["waits_for"]
    assert "hypershift.io/aws-oidc-discovery" in ho


def test_the_ho_finalizer_waits_in_upstream_order():
    # HS-4..HS-10, the order of hostedcluster_controller.go delete(): NodePools, CAPI Cluster, HCP, OIDC, namespace
    ho = diagnosis.finalizer_owner("hypershift.openshift.io/finalizer")["waits_for"]
    steps = ["NodePools", "CAPI Cluster", "HCP gone", "OIDC", "namespace", "grace period"]
    at = [ho.find(s) for s in steps]
    assert -1 not in at and at == sorted(at), (ho, dict(zip(steps, at)))


def test_a_finalizer_nobody_documents_has_an_unknown_owner():
    got = diagnosis.finalizer_owner("example.com/not-a-real-finalizer")
    assert got == {"name": "example.com/not-a-real-finalizer", "owner": "unknown"}


def test_the_ho_finalizer_is_cpo_s_on_a_hosted_control_plane():
    # HS @3ee9615 control-plane-operator/controllers/hostedcontrolplane/hostedcontrolplane_controller.go:147: CPO adds
    # and removes hypershift.openshift.io/finalizer on the HCP; HO's is the same name on HostedCluster and NodePool
    hcp = diagnosis.finalizer_owner("hypershift.openshift.io/finalizer", "hypershift.openshift.io/v1beta1",
                                    "HostedControlPlane")
    assert "control-plane operator" in hcp["owner"] and "HyperShift operator" not in hcp["owner"]
    assert "CloudResourcesDestroyed" in hcp["waits_for"]
    hc = diagnosis.finalizer_owner("hypershift.openshift.io/finalizer", "hypershift.openshift.io/v1beta1", "HostedCluster")
    assert hc["owner"].startswith("HyperShift operator")
