# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the hosted_cluster_destroy role decides around its wait (Phase 3), its verification (Phase 6) and the
report of both (Phase 7): the gates and whether the CLI finalizer is on for them, what Phase 6 reads again, which
gates the report shows, and whether the AWS side is verified."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import (
    CAPA_API as CAPA, CAPI_API as CAPI, CLI_FINALIZER, HYPERSHIFT_API as HYPERSHIFT)
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import (
    as_bool, one_dict, parsed_dict, plain_list, printed)
from ansible_collections.teardown.gates.plugins.plugin_utils.hosted_cluster_cli_secrets import cli_secrets_reads


def cli_finalizer_on(retained, finalizer_on, check_mode, deleting):
    """Whether the gates wait with the CLI finalizer on: it was on when the run began (``finalizer_on``), or Phase 2
    put it on (``retained``, the finalizer module's result, lists it after), or a check-mode run would put it on (the
    HostedCluster is not yet deleting). The first of these that is set decides, read as ``| bool`` reads it."""
    retained = parsed_dict(retained, "hosted_cluster_cli_finalizer_on", "the result of Phase 2's finalizer task")
    put_on = CLI_FINALIZER in (retained.get("finalizers_after", []) or [])
    return as_bool(finalizer_on or put_on or (check_mode and not deleting))


def gates(nodepools, namespace, name, hcp_name, hcp_namespace, infra_id, hc_present, cli_finalizer_on, skip_namespace):
    """The gates of wait_gate, in the order the controllers pass them: the NodePools and the CAPI workers, the
    HostedControlPlane, the CAPI Cluster, the HCP namespace (unless ``skip_namespace``), and the HostedCluster
    (down to the CLI finalizer when ``cli_finalizer_on``; none when there is neither a HostedCluster nor a name)."""
    nodepools = plain_list(nodepools, "hosted_cluster_gates", "the names of the HostedCluster's NodePools")
    by_label = "cluster.x-k8s.io/cluster-name=" + printed(infra_id)
    workers = [{"api_version": HYPERSHIFT, "kind": "NodePool", "namespace": namespace, "name": n} for n in nodepools]
    workers += [{"api_version": api, "kind": kind, "namespace": hcp_namespace, "label_selector": by_label}
                for api, kind in ((CAPI, "MachineDeployment"), (CAPI, "MachineSet"), (CAPI, "Machine"), (CAPA, "AWSMachine"))]
    laid_out = [
        {"name": "NodePools and Machines gone", "until": "absent", "resources": workers},
        {"name": "HostedControlPlane gone", "until": "absent", "resources": [
            {"api_version": HYPERSHIFT, "kind": "HostedControlPlane", "namespace": hcp_namespace, "name": hcp_name}]},
        {"name": "CAPI Cluster gone", "until": "absent", "resources": [
            {"api_version": CAPI, "kind": "Cluster", "namespace": hcp_namespace, "name": infra_id},
            # the AWSCluster is named after the HostedCluster, as the HCP is (openshift/hypershift@3ee9615
            # hypershift-operator/controllers/hostedcluster/internal/platform/aws/aws.go:74-78)
            {"api_version": CAPA, "kind": "AWSCluster", "namespace": hcp_namespace, "name": hcp_name}]},
    ]
    if not skip_namespace:
        laid_out.append({"name": "HCP namespace gone", "until": "absent",
                         "resources": [{"api_version": "v1", "kind": "Namespace", "name": hcp_namespace}]})
    if hc_present or len(name) > 0:
        hc = [{"api_version": HYPERSHIFT, "kind": "HostedCluster", "namespace": namespace, "name": name}]
        if hc_present and cli_finalizer_on:
            laid_out.append({"name": "only the CLI finalizer left", "until": "finalizers_only",
                             "finalizers": [CLI_FINALIZER], "resources": hc})
        else:
            laid_out.append({"name": "HostedCluster gone", "until": "absent", "resources": hc})
    return laid_out


def gates_of(cluster, hosted_cluster):
    """The gates of ``gates`` for the ``cluster`` Phase 1 recorded (its namespace, name, hcp_namespace and infra_id)
    and what Phase 3 knows of the ``hosted_cluster`` (a mapping): its ``name`` as given (empty for an
    infrastructure-only destroy), whether it was ``present``, its ``nodepools``, whether ``cli_finalizer_on`` and
    whether ``skip_namespace`` keeps the HCP namespace."""
    fname = "hosted_cluster_destroy_step('gates')"
    cluster = one_dict(cluster, fname, "the cluster Phase 1 recorded")
    hosted_cluster = one_dict(hosted_cluster, fname, "what Phase 3 knows of the HostedCluster")
    return gates(hosted_cluster.get("nodepools"), cluster.get("namespace"), printed(hosted_cluster.get("name")),
                 cluster.get("name"), cluster.get("hcp_namespace"), cluster.get("infra_id"),
                 hosted_cluster.get("present"), hosted_cluster.get("cli_finalizer_on"),
                 hosted_cluster.get("skip_namespace"))


def verification_reads(name, namespace, hcp_namespace, infra_id=""):
    """What Phase 6 reads again through deletion_info: the HostedCluster ``namespace``/``name`` when it has a name
    (none for an infrastructure-only destroy), then the HCP namespace, then (with a name) the list of the NodePools
    left in ``namespace`` whose ``spec.clusterName`` is ``name`` - as hosted_cluster_info selects them - and the list
    of the Secrets the CLI made for ``infra_id`` that Phase 5 deleted (hosted_cluster_cli_secrets)."""
    if len(name) == 0:
        return [{"api_version": "v1", "kind": "Namespace", "name": hcp_namespace}]
    return [{"api_version": HYPERSHIFT, "kind": "HostedCluster", "namespace": namespace, "name": name},
            {"api_version": "v1", "kind": "Namespace", "name": hcp_namespace},
            {"api_version": HYPERSHIFT, "kind": "NodePool", "namespace": namespace, "match": {"spec.clusterName": name}}
            ] + cli_secrets_reads(name, namespace, infra_id)


def report_gates(waited, gates, check_mode):
    """The gates the report shows: as the wait judged them, or when no wait judged any, the laid-out gates marked
    V(planned) in check mode and V(not_started) otherwise."""
    waited = parsed_dict(waited, "hosted_cluster_report_gates", "the result of Phase 3's wait_gate")
    judged = waited.get("gates", [])
    if len(judged) > 0:
        return judged
    state = "planned" if check_mode else "not_started"
    laid_out = plain_list(gates, "hosted_cluster_report_gates", "the gates laid out in Phase 3 (a list)")
    return [dict(g, state=state) for g in laid_out]


def aws_verified(aws_check, checks, manifest):
    """Whether the report calls the AWS side verified: never when the Phase 6 lookup failed; else as the lookup
    said, and without a lookup (nothing to look up) only when Phase 6 ran its checks and the manifest is empty."""
    aws_check = parsed_dict(aws_check, "hosted_cluster_aws_verified", "the result of Phase 6's AWS lookup")
    if aws_check.get("failed", False):
        return False
    if "verified" in aws_check:
        return aws_check["verified"]
    checks = plain_list(checks, "hosted_cluster_aws_verified", "the checks of Phase 6 (a list)")
    manifest = parsed_dict(manifest, "hosted_cluster_aws_verified", "the AWS manifest (a dict)")
    return len(checks) > 0 and len(manifest) == 0
