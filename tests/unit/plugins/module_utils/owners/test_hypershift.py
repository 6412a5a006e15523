# -*- coding: utf-8 -*-
"""owners/hypershift.py: the names HyperShift and Cluster API publish, in one place. The values are the upstream
ones the gates and the sandbox's managers use; a typo here would make a gate wait for a finalizer nobody sets."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift as H


def test_api_versions_are_the_served_group_versions():
    assert (H.HYPERSHIFT_API, H.CAPI_API, H.CAPA_API) == (
        "hypershift.openshift.io/v1beta1", "cluster.x-k8s.io/v1beta1", "infrastructure.cluster.x-k8s.io/v1beta2")


def test_finalizers_are_the_upstream_strings():
    assert H.CLI_FINALIZER == "openshift.io/destroy-cluster"
    assert H.HO_FINALIZER == "hypershift.openshift.io/finalizer"
    assert H.OIDC_FINALIZER == "hypershift.io/aws-oidc-discovery"
    assert H.ENDPOINT_FINALIZER == "hypershift.openshift.io/control-plane-operator-finalizer"
    assert H.HO_ENDPOINT_FINALIZER == "hypershift.openshift.io/hypershift-operator-finalizer"


def test_annotations_are_the_upstream_strings():
    assert H.NODEPOOL_ANN == "hypershift.openshift.io/nodePool"
    assert H.SKIP_NS_ANN == "hypershift.openshift.io/skip-delete-hosted-controlplane-namespace"
    assert H.CLEANUP_ANN == "hypershift.openshift.io/cleanup-cloud-resources"


def test_the_cli_label_is_the_upstream_string():
    # cmd/util/client.go:19 AutoInfraLabelName, on the Secrets `create cluster` made (HC-13)
    assert H.AUTO_INFRA_LABEL == "hypershift.openshift.io/auto-created-for-infra"


def test_every_name_is_a_qualified_kubernetes_name():
    names = [getattr(H, n) for n in dir(H) if n.isupper()]
    assert len(names) == 12
    # a finalizer or annotation key is prefix/name; an apiVersion is group/version
    assert all(isinstance(v, str) and v.count("/") == 1 and "." in v.split("/")[0] for v in names)
