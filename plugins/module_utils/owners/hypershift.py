# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The names HyperShift and Cluster API publish that a teardown reads or writes: API versions, finalizers,
annotations. One place, so a rename upstream is one change here (sources: openshift/hypershift@3ee9615,
api/hypershift/v1beta1 and support/...; kubernetes-sigs/cluster-api v1.13 and cluster-api-provider-aws v2.13,
whose managers the sandbox runs)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

HYPERSHIFT_API = "hypershift.openshift.io/v1beta1"
CAPI_API = "cluster.x-k8s.io/v1beta1"
CAPA_API = "infrastructure.cluster.x-k8s.io/v1beta2"

# the CLI's own finalizer (hypershift destroy cluster adds it and removes it last)
CLI_FINALIZER = "openshift.io/destroy-cluster"
# the hypershift-operator's finalizer on HostedCluster and NodePool; the same name on a HostedControlPlane is CPO's
# (control-plane-operator/controllers/hostedcontrolplane/hostedcontrolplane_controller.go:147), not HO's
HO_FINALIZER = "hypershift.openshift.io/finalizer"
# guards the OIDC documents under <infraID>/ in the OIDC bucket
OIDC_FINALIZER = "hypershift.io/aws-oidc-discovery"
# CPO's on an AWSEndpointService: it deletes the VPC endpoint, its security group and DNS records first
ENDPOINT_FINALIZER = "hypershift.openshift.io/control-plane-operator-finalizer"
# HO's on an AWSEndpointService: it deletes the VPC endpoint service configuration first
# (hypershift-operator/controllers/platform/aws/controller.go:54)
HO_ENDPOINT_FINALIZER = "hypershift.openshift.io/hypershift-operator-finalizer"
# the CLI's label, value the infra ID, on the Secrets `create cluster` made (pull secret, SSH key, etcd encryption
# key ...); `destroy cluster` deletes the HostedCluster namespace's Secrets so labelled before its finalizer comes off
AUTO_INFRA_LABEL = "hypershift.openshift.io/auto-created-for-infra"

NODEPOOL_ANN = "hypershift.openshift.io/nodePool"
SKIP_NS_ANN = "hypershift.openshift.io/skip-delete-hosted-controlplane-namespace"
CLEANUP_ANN = "hypershift.openshift.io/cleanup-cloud-resources"
