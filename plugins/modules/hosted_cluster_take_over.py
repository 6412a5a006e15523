#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: hosted_cluster_take_over
short_description: Finish a deleting HostedCluster's operator cleanup when the HyperShift operator is down, releasing its finalizers only on verified absence
version_added: 0.4.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - For a HostedCluster that is being deleted while the hypershift-operator (the HostedCluster and NodePool
    controllers, one process) makes no progress, does that operator's remaining part of the teardown, by ID,
    the way the operator would, and then removes exactly its finalizers.
  - "O(part=operator): requests deletion of the NodePools; per NodePool deletes its MachineDeployments and
    MachineSets and waits until none of its Machines remains (Cluster API and its infrastructure provider delete
    them), then removes C(hypershift.openshift.io/finalizer) from it; requests deletion of the CAPI Cluster named
    after the infra ID (first copying the HostedCluster's C(hypershift.openshift.io/cleanup-cloud-resources) annotation
    to the HostedControlPlane, as the operator does, so that the guest's cloud resources are removed), the
    AWSEndpointServices, the HostedControlPlane and (unless the HostedCluster's skip annotation is C(true)) the HCP
    namespace, waiting for each in turn; then removes
    C(hypershift.openshift.io/finalizer) from the HostedCluster."
  - "With O(take_over_after), O(part=operator) also stops waiting at the HostedControlPlane once its owners are read
    gone - the C(control-plane-operator) and C(hosted-cluster-config-operator) Deployments of the HCP namespace
    absent or with no ready replica, and its C(CloudResourcesDestroyed) condition unchanged (or never set since its
    deletion) for O(take_over_after) seconds - and returns that evidence in RV(hcp_owners), naming the guest's
    cloud resources (from O(aws_manifest), O(guest_volumes) and O(guest_groups)) left in AWS; CPO's finalizer stays."
  - "With O(take_over_after) and CPO read gone that way, O(part=operator) also stops at the AWSEndpointServices
    (HS-6) when one of them is deleting and still holds CPO's
    C(hypershift.openshift.io/control-plane-operator-finalizer): CPO deletes, by the IDs in its status, the VPC
    endpoint, its security group and the DNS records of its names before that finalizer comes off, and nobody else
    would until the hypershift-operator's own 10-minute timeout. RV(hcp_owners) then lists each such
    AWSEndpointService with those AWS IDs (C(endpoint_services)), and C(cleanup_manifest) is what the AWS cleanup is
    to delete by ID."
  - "With O(take_over_after), O(part=operator) also stops at the AWSEndpointServices when one of them is deleting and
    has held the hypershift-operator's own C(hypershift.openshift.io/hypershift-operator-finalizer) for
    O(take_over_after) seconds (its endpoint controller runs in the operator's process, already read stalled, and
    drops that finalizer as soon as it has deleted the VPC endpoint service configuration named by
    C(status.endpointServiceName), whose last C(.) segment is the configuration ID). RV(hcp_owners) then lists each
    such AWSEndpointService with that ID (C(ho_endpoint_services)), with C(ho_evidence), and C(require_owned): the
    AWS cleanup (M(teardown.gates.aws_infra_cleanup) O(teardown.gates.aws_infra_cleanup#module:require_owned))
    deletes a configuration only when it is tagged C(kubernetes.io/cluster/<infra_id>=owned), and refuses it
    otherwise, naming the ID and what it carries."
  - "O(part=hcp_finalizer): removes CPO's C(hypershift.openshift.io/finalizer) from the HostedControlPlane (the UID
    in O(hcp_owners)) once every guest resource recorded there came back from the AWS cleanup (O(aws_cleanup)) verified
    absent; the evidence of CPO and HCCO gone and of each guest resource gone is listed with it. Before that it
    removes CPO's C(hypershift.openshift.io/control-plane-operator-finalizer) from each AWSEndpointService recorded in
    O(hcp_owners) (C(endpoint_services); its UID tested) once every AWS ID of its status came back from O(aws_cleanup)
    verified absent, listing CPO's Deployment read gone and those IDs as its evidence. Likewise it removes
    C(hypershift.openshift.io/hypershift-operator-finalizer) from each AWSEndpointService recorded in
    C(ho_endpoint_services) once its configuration came back from O(aws_cleanup) verified absent (one refused as not
    this cluster's, or not read, keeps the finalizer and is named in RV(blockers)). When O(hcp_owners) says the
    guest's cleanup is not this run's (C(guest_cleanup) false), CPO's finalizer stays on the HostedControlPlane."
  - "O(part=oidc_finalizer): removes C(hypershift.io/aws-oidc-discovery) from the HostedCluster once the AWS
    phase has verified its OIDC documents gone (O(aws_cleanup) and O(aws_manifest) are that evidence)."
  - A finalizer comes off only after a successful read shows what it guards absent, through a JSON patch that
    tests the object's UID and the value at the finalizer's index. What remains at O(timeout) is named in
    RV(blockers) with its finalizers and their owners; no finalizer that guards it is removed, and the task fails.
  - A read that fails is unknown, never absent, and fails the task. A HostedCluster that is not deleting, or whose
    UID is not O(uid), is not touched.
  - In check mode only reads are sent; RV(planned) says what would be deleted and which finalizers would come off.
notes:
  - Time bound - building the client takes at most 3 x O(request_timeout); the waits together take at most
    O(timeout), each request at most O(request_timeout), so the task ends within about
    O(timeout) + 4 x O(request_timeout). Against an API server that accepts and never answers it fails as unknown,
    naming the server, after about 3 x O(request_timeout).
  - The rules it follows are HyperShift's (C(hostedcluster_controller.go) C(delete()), C(nodepool_controller.go)
    C(delete())); docs/runbook-destroy-hosted-cluster.md has the take-over section.
options:
  namespace:
    description: The HostedCluster's namespace.
    type: str
    required: true
  uid:
    description: The HostedCluster's UID (from the baseline); a HostedCluster with another UID is not touched.
    type: str
    required: true
  infra_id:
    description: Its infra ID (the CAPI Cluster's name).
    type: str
    required: true
  hcp_namespace:
    description: The HCP namespace (C(<namespace>-<name>) by default).
    type: str
  part:
    description: Which part to take over (see the description).
    type: str
    choices: [operator, oidc_finalizer, hcp_finalizer]
    default: operator
  stalled_gate:
    description:
      - What showed the operator down or stalled (a C(teardown.gates.wait_gate) gate result with state
        V(stalled)); recorded in RV(taken_over) as the reason.
    type: dict
  aws_cleanup:
    description: With O(part=oidc_finalizer) or O(part=hcp_finalizer), the C(resources) that C(teardown.gates.aws_infra_cleanup) returned in this run.
    type: list
    elements: dict
  aws_manifest:
    description: With O(part=oidc_finalizer) or O(take_over_after), the baseline's manifest (resource type -> IDs) the AWS phase worked from.
    type: dict
  oidc_bucket:
    description: With O(part=oidc_finalizer), the bucket that holds the C(<infra_id>/) OIDC documents.
    type: str
  take_over_after:
    description:
      - Seconds the HostedControlPlane's cleanup must show no progress, with CPO and HCCO read gone, before
        O(part=operator) stops at it and returns RV(hcp_owners). Without it the take-over waits for the
        HostedControlPlane as before.
    type: int
  guest_volumes:
    description:
      - The guest's persistent volumes of the baseline (IDs). With O(aws_manifest) and O(guest_groups) they make
        the guest's cloud resources - its load balancers, target groups, the security groups only those load
        balancers use, persistent volumes and image-registry buckets - named in
        the message when the take-over stops at the HostedControlPlane and returned in RV(hcp_owners)
        (C(guest_resources)); with O(part=hcp_finalizer), each of those recorded in O(hcp_owners) must be
        verified absent in O(aws_cleanup).
    type: list
    elements: str
  guest_groups:
    description:
      - The security groups of the baseline that only the guest's load balancers use (IDs; what
        M(teardown.gates.aws_infra_inventory) returns as RV(teardown.gates.aws_infra_inventory#module:guest_groups)).
        The guest's cloud provider deletes each after its load balancer, so they are part of the guest's cloud
        resources as O(guest_volumes) are, deleted after the load balancers and verified absent with them.
    type: list
    elements: str
  guest_cleanup:
    description: Whether this run deletes the guest's cloud resources (the cleanup annotation); only worded in the message.
    type: bool
    default: false
  hcp_owners:
    description: With O(part=hcp_finalizer), the RV(hcp_owners) a O(part=operator) run returned.
    type: dict
  timeout:
    description: Seconds the waits may take together.
    type: float
    default: 600
  poll_interval:
    description: Seconds between two reads of what a wait waits for.
    type: float
    default: 2
extends_documentation_fragment: [teardown.gates.hosted_cluster, teardown.gates.k8s_request_timeout, kubernetes.core.k8s_auth_options]
"""

EXAMPLES = r"""
- name: Take over the HyperShift operator's cleanup of clusters/demo
  teardown.gates.hosted_cluster_take_over:
    name: demo
    namespace: clusters
    uid: "{{ baseline.uid }}"
    infra_id: demo-x7k2p
    timeout: 900
"""

RETURN = r"""
taken_over:
  description:
    - C(owner) (the hypershift-operator), C(part), C(reason) (what showed it stalled - the gate, since when no
      progress, what the last progress was), C(started), C(ended), C(verified) (nothing blocks), C(error) (a failed
      read, or null), and RV(finalizers_removed) and RV(blockers) again, so that the report takes this one dict.
  returned: always
  type: dict
finalizers_removed:
  description:
    - One entry per finalizer removed - C(object) (api_version, kind, namespace, name), C(uid), C(finalizer),
      C(owner), C(taken_over_from), C(evidence) (what was verified absent, and when) and C(at).
  returned: always
  type: list
  elements: dict
blockers:
  description:
    - What remained at O(timeout) - kind, kind_label, namespace, name, uid, finalizers (each with its owner),
      waiting_for (a C(Deleting) condition) and C(guarded_by) (the finalizer that therefore stays).
  returned: always
  type: list
  elements: dict
steps:
  description: What was done and observed, in order (at, step, detail).
  returned: always
  type: list
  elements: dict
inspect_next:
  description: Per blocker, what to look at - the object, its finalizers' owners, and the finalizer that stays.
  returned: always
  type: list
  elements: str
hcp_owners:
  description:
    - When the take-over stopped at a HostedControlPlane whose owners are read gone - C(hcp) (its reference and UID),
      C(finalizer) (CPO's), C(owners), C(evidence) (what was read, its state, when), C(guest_resources) (type -> IDs,
      what the AWS cleanup is to delete and verify before CPO's finalizer comes off) and C(guest_cleanup). Empty
      otherwise.
    - When it stopped at the AWSEndpointServices, also C(endpoint_services) (each one's C(namespace), C(name),
      C(uid) and C(resources), the AWS IDs its status names, type -> IDs); C(cleanup_manifest) is the guest's
      resources (when C(guest_cleanup)) and those, for the AWS cleanup.
    - When the hypershift-operator's own AWSEndpointService finalizer held them, also C(ho_endpoint_services) (each
      one's C(namespace), C(name), C(uid), C(service_name) and C(resources), the configuration ID),
      C(ho_evidence), C(ho_finalizer), C(ho_owner) and C(require_owned) (C(infra_id), C(resources)) for the AWS
      cleanup; their configurations are in C(cleanup_manifest) too. C(finalizer), C(owners) and C(evidence) are
      CPO's when CPO's part is taken over too, else HO's.
  returned: always
  type: dict
planned:
  description: In check mode, what would be deleted, waited for and released.
  returned: always
  type: list
  elements: str
"""


from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.core.args import hosted_cluster_spec, k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_take_over as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module


def argument_spec():
    return k8s_argument_spec(
        uid=dict(type="str", required=True),
        infra_id=dict(type="str", required=True),
        hcp_namespace=dict(type="str"),
        part=dict(type="str", choices=["operator", "oidc_finalizer", "hcp_finalizer"], default="operator"),
        stalled_gate=dict(type="dict"),
        aws_cleanup=dict(type="list", elements="dict"),
        aws_manifest=dict(type="dict"),
        oidc_bucket=dict(type="str"),
        take_over_after=dict(type="int"),
        guest_volumes=dict(type="list", elements="str"),
        guest_groups=dict(type="list", elements="str"),
        guest_cleanup=dict(type="bool", default=False),
        hcp_owners=dict(type="dict"),
        timeout=dict(type="float", default=600),
        poll_interval=dict(type="float", default=2),
        **hosted_cluster_spec(namespace=dict(type="str", required=True))
    )


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True)
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
