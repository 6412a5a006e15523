# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What to inspect next when a deletion is pending: the seeds' rules, as data.

Nothing here removes anything: the hints select evidence to inspect. Removing a finalizer is
never the advice; the owners' own release paths are.

Public data and functions:

- ``FINALIZER_OWNERS``: finalizer -> (owner, what it waits for).
- ``KIND_RULES``: (api group, kind) -> list of hints (the seed's "Remaining gate / Inspect first").
- ``UNKNOWN_HINT``: the hint for a failed query.
- ``finalizer_owner(name)``: ``{"name", "owner", "waits_for"}`` (owner ``unknown`` when not known).
- ``inspect_next(obj_or_summary, state=...)``: the hints for one object, kind rules first, then
  hints drawn from its conditions and fields (CAPTF holds, convoy reachability, HCP cleanup...).
- ``status_conditions(obj)``: an object's conditions, Cluster API's v1beta2 ones included.
- ``deleting_condition(conditions)``: the condition that says what a deleting object waits for.
- ``kind_label(api_version, kind)``: ``Kind.group``, as kubectl names a kind (``Cluster`` alone is
  ambiguous: Cluster API's and convoy's).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

FINALIZER_OWNERS = {
    "hypershift.openshift.io/finalizer": (
        "HyperShift operator (HostedCluster, NodePool, HostedControlPlane)",
        "NodePools requested, CAPI Cluster absent, HCP gone, credentials, endpoint services, RBAC and the OIDC "
        "documents cleaned (hypershift.io/aws-oidc-discovery comes off then), the HCP namespace gone unless kept, "
        "the destroy grace period over"),
    "openshift.io/destroy-cluster": (
        "hypershift destroy CLI",
        "the CLI's own wait; it removes it after the AWS infrastructure and IAM are destroyed"),
    "hypershift.io/aws-oidc-discovery": (
        "HyperShift operator (OIDC cleanup)",
        "the <infraID>/ prefix of the OIDC bucket deleted"),
    "hypershift.openshift.io/control-plane-operator-finalizer": (
        "control-plane operator (AWSEndpointService)",
        "the VPC endpoint service deleted in AWS; HO drops it itself after 10 minutes or with invalid credentials"),
    "cluster.cluster.x-k8s.io": (
        "CAPI manager (Cluster)",
        "worker MachineDeployments/MachineSets/Machines gone, then controlPlaneRef, then infrastructureRef"),
    "cluster.x-k8s.io/machinedeployment": (
        "CAPI manager (MachineDeployment)", "its MachineSets and their Machines deleted"),
    "cluster.x-k8s.io/machineset": (
        "CAPI manager (MachineSet)", "its Machines deleted"),
    "machine.cluster.x-k8s.io": (
        "CAPI manager (Machine)", "its AWSMachine (infrastructure) deleted"),
    "awsmachine.infrastructure.cluster.x-k8s.io": (
        "CAPA (AWSMachine)", "the EC2 instance terminated (CAPA looks again every minute while it is shutting-down)"),
    "awscluster.infrastructure.cluster.x-k8s.io": (
        "CAPA (AWSCluster)", "the cluster's AWS network infrastructure deleted (HyperShift's AWSCluster is "
        "externally managed: CAPA puts no finalizer on it)"),
    "terraformcluster.infrastructure.cluster.x-k8s.io": (
        "CAPTF (TerraformCluster)", "machines and pools gone, then a destroy Job, or an abandon with the UID"),
    "terraformmachine.infrastructure.cluster.x-k8s.io": (
        "CAPTF (TerraformMachine)", "a destroy Job, or an abandon with the UID"),
    "terraformmachinepool.infrastructure.cluster.x-k8s.io": (
        "CAPTF (TerraformMachinePool)", "a destroy Job, or an abandon with the UID"),
    "release.core.convoy.kumodo.io/prune-workloads": (
        "convoy (Release)", "preDelete hooks, deletion of the Release's objects on the target cluster"),
    "cluster.core.convoy.kumodo.io/prune-releases": (
        "convoy (Cluster)", "the Cluster's Releases pruned"),
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

UNKNOWN_HINT = ("A failed query: inspect authentication, permissions, throttling or API connectivity; "
                "a failed observation is not evidence that a resource was deleted.")

_HCP = ("Check CPO and HCCO health and logs, the CVOScaledDown and CloudResourcesDestroyed conditions, "
        "guest load balancers or storage, endpoint services, and Service/PVC finalizers.")
_MACHINES = ("Inspect NodePool finalizers, Machine Deleting conditions, AWSMachine finalizers, CAPI manager "
             "and CAPA logs, and EC2 states. WaitingForInfrastructureDeletion can be normal while an "
             "instance is shutting down.")
_CAPI_CLUSTER = ("Check worker descendants first (MachineDeployments, MachineSets, Machines), then the HCP "
                 "named by spec.controlPlaneRef, then spec.infrastructureRef. Inspect CAPI manager health, "
                 "deletion conditions, provider errors, and finalizers.")
_CAPTF = ("Read StateReadable, DeletionBlocked and ApplyJobSucceeded. A hold is StateReadable=False with "
          "StateLost, StateCorrupt, StateEncrypted or StateInconsistent (StateLocked is not a hold: look "
          "for a stale state lock). Leave a hold with captf.io/restore-state=<serial from "
          "status.stateBackups> or captf.io/abandon-infrastructure=<metadata.uid>; never strip the finalizer.")

# (api group, kind) -> hints. Group "" is the core group.
KIND_RULES = {
    ("hypershift.openshift.io", "NodePool"): [_MACHINES],
    ("cluster.x-k8s.io", "Machine"): [_MACHINES],
    ("cluster.x-k8s.io", "MachineSet"): [_MACHINES],
    ("cluster.x-k8s.io", "MachineDeployment"): [_MACHINES],
    ("infrastructure.cluster.x-k8s.io", "AWSMachine"): [_MACHINES],
    ("cluster.x-k8s.io", "Cluster"): [_CAPI_CLUSTER],
    ("infrastructure.cluster.x-k8s.io", "AWSCluster"): [
        _CAPI_CLUSTER,
        "VPC or network dependencies: ENIs, VPC endpoints, subnets, route tables, security groups, "
        "internet gateway and Elastic IPs; a NAT gateway in `deleting` is still pending."],
    ("hypershift.openshift.io", "HostedControlPlane"): [_HCP],
    ("hypershift.openshift.io", "AWSEndpointService"): [
        "CPO drops the endpoint service finalizer after deleting it (after 10 minutes, or with invalid "
        "credentials, it gives up): check CPO logs and the AWS endpoint service."],
    ("hypershift.openshift.io", "HostedCluster"): [
        "HyperShift operator logs and the HostedClusterDestroyed condition (WaitingForGracePeriod is the "
        "destroy grace period). Remaining gates in order: NodePools/Machines, CAPI Cluster, HCP, HCP "
        "namespace, OIDC documents.",
        "With only the CLI destroy finalizer (openshift.io/destroy-cluster) left: destroy command progress "
        "and remaining AWS infrastructure. If the command exited, follow the interrupted-command recovery "
        "(re-run the destroy; it resumes)."],
    ("", "Namespace"): [
        "An HCP namespace: first verify CAPI Cluster absence; HO does not delete the namespace before that "
        "gate. If the namespace is terminating, inspect its conditions and remaining resource finalizers; "
        "distinguish normal termination from discovery failure (NamespaceDeletionDiscoveryFailure).",
        "Believe the listed contents over the conditions: conditions can report no remaining content while "
        "terminating pods or component objects are still present."],
    ("", "Pod"): [
        "A terminating pod: deletionTimestamp is the grace deadline, not the request time. Without a kubelet "
        "(or with an unreachable node) nothing confirms termination; check the node and the pod's finalizers."],
    ("", "Service"): [
        "A LoadBalancer Service keeps service.kubernetes.io/load-balancer-cleanup until the cloud load "
        "balancer is gone: check the cloud controller (HCCO for guest Services) and the ELB."],
    ("", "PersistentVolumeClaim"): ["kubernetes.io/pvc-protection stays while a pod uses the claim: find that pod."],
    ("core.convoy.kumodo.io", "Release"): [
        "convoy Release: check the target Cluster's status.reachable (convoy does not connect to check), "
        "preDelete hooks (a failed hook with onFailure: Fail keeps the finalizer; hooks are rechecked every "
        "10 s), spec.deletionPolicy.keepWorkloads, and the ReleaseInventory."],
    ("core.convoy.kumodo.io", "Cluster"): [
        "convoy Cluster: its Releases must be pruned first (spec.deletionPolicy.pruneReleases); list the "
        "Releases whose clusterRef names it."],
    ("infrastructure.cluster.x-k8s.io", "TerraformCluster"): [
        _CAPTF, "DeletionBlocked=True/DependentsExist: TerraformMachines or TerraformMachinePools remain "
        "(an abandon does not release this)."],
    ("infrastructure.cluster.x-k8s.io", "TerraformMachine"): [_CAPTF],
    ("infrastructure.cluster.x-k8s.io", "TerraformMachinePool"): [_CAPTF],
}

CAPTF_HOLD_REASONS = ("StateLost", "StateCorrupt", "StateEncrypted", "StateInconsistent")


def finalizer_owner(name):
    """``{"name", "owner", "waits_for"}`` for a finalizer; owner ``unknown`` when not known."""
    owner, waits = FINALIZER_OWNERS.get(name, ("unknown", None))
    out = {"name": name, "owner": owner}
    if waits:
        out["waits_for"] = waits
    return out


def _group(api_version):
    return api_version.split("/", 1)[0] if api_version and "/" in api_version else ""


def status_conditions(obj):
    """An object's status conditions. Cluster API v1.11+ objects read as v1beta1 (as HyperShift reads
    them) carry the new conditions, among them ``Deleting``, in ``status.v1beta2.conditions``; read as
    v1beta2 they are ``status.conditions``, and the old ones move to ``status.deprecated.v1beta1``.
    The new ones come first; an old one is kept when no new one has its type."""
    status = (obj or {}).get("status") or {}
    newer = (status.get("v1beta2") or {}).get("conditions") or []
    out = [c for c in newer if isinstance(c, dict)]
    seen = set(c.get("type") for c in out)
    out += [c for c in status.get("conditions") or [] if isinstance(c, dict) and c.get("type") not in seen]
    return out


def deleting_condition(conditions):
    """``"Deleting=True Reason: message"`` for the condition a deleting Cluster API object uses to say
    what it waits for (Machine WaitingForInfrastructureDeletion, Cluster WaitingForWorkersDeletion...),
    or None."""
    c = _cond(conditions or [], "Deleting")
    if not c or str(c.get("status")) != "True":
        return None
    message = " ".join(str(c.get("message") or "").split())
    return "Deleting=True %s%s" % (c.get("reason") or "", (": " + message) if message else "")


def kind_label(api_version, kind):
    group = _group(api_version)
    return "%s.%s" % (kind, group) if group else kind


def object_text(label, namespace, name, uid, finalizers, note=None):
    """How every message names an object that holds a teardown: ``KIND.group NS/NAME (uid U, finalizers: A,
    B) - NOTE``; an empty ``finalizers`` says "no finalizers" (then the object is going, not held)."""
    return "%s %s%s (uid %s, %s)%s" % (label, (namespace + "/") if namespace else "", name, uid,
                                       ("finalizers: " + ", ".join(finalizers)) if finalizers else "no finalizers",
                                       (" - " + note) if note else "")


def _conditions(obj):
    if "conditions" in obj and "metadata" not in obj:  # an object_summary
        return obj.get("conditions") or []
    return status_conditions(obj)


def _cond(conds, ctype):
    for c in conds:
        if isinstance(c, dict) and c.get("type") == ctype:
            return c
    return None


def inspect_next(obj, state="present"):
    """Hints (strings) for one object (a full object dict or an ``object_summary``).

    ``state`` is the observation: ``unknown`` yields the failed-query hint only; ``absent`` none.
    """
    if state == "unknown":
        return [UNKNOWN_HINT]
    if state == "absent" or not obj:
        return []
    api_version = obj.get("apiVersion") or obj.get("api_version")
    kind = obj.get("kind")
    hints = list(KIND_RULES.get((_group(api_version), kind), []))
    conds = _conditions(obj)
    status = obj.get("status") or {}
    meta = obj.get("metadata") or {}
    finalizers = meta.get("finalizers") if meta else obj.get("finalizers")
    finalizers = list(finalizers or [])

    sr = _cond(conds, "StateReadable")
    if sr and sr.get("status") == "False" and sr.get("reason") in CAPTF_HOLD_REASONS:
        hints.insert(0, "CAPTF deletion hold (%s): restore a backup from status.stateBackups with "
                        "captf.io/restore-state, or abandon with captf.io/abandon-infrastructure=<uid> "
                        "(teardown.gates.held_deletion)." % sr.get("reason"))
    elif sr and sr.get("reason") == "StateLocked":
        hints.insert(0, "StateLocked is not a hold: a stale state lock makes the destroy Job fail after "
                        "lockTimeoutSeconds; inspect the lock Lease.")
    db = _cond(conds, "DeletionBlocked")
    if db and db.get("status") == "True":
        hints.insert(0, "DeletionBlocked (%s): %s" % (db.get("reason"), db.get("message") or "dependents remain"))
    aj = _cond(conds, "ApplyJobSucceeded")
    if aj and aj.get("status") == "False":
        hints.append("Last destroy Job failed (%s): it retries with backoff; read the Job's logs." % aj.get("reason"))
    crd = _cond(conds, "CloudResourcesDestroyed")
    if crd and crd.get("status") != "True":
        detail = crd.get("message") or "remaining cloud resources"
        hints.insert(0, "CloudResourcesDestroyed=%s (%s): %s" % (crd.get("status"), crd.get("reason"), detail))
    for c in conds:
        if isinstance(c, dict) and c.get("reason") == "WaitingForInfrastructureDeletion":
            hints.insert(0, "WaitingForInfrastructureDeletion: the AWSMachine and its EC2 instance state "
                            "(shutting-down is normal, terminated is done; CAPA looks again every minute).")
            break
    why = deleting_condition(conds)
    if why:
        hints.insert(0, "%s %s: %s" % (kind_label(api_version, kind), (meta or obj).get("name") or "", why))
    hcd = _cond(conds, "HostedClusterDestroyed")
    if hcd and hcd.get("reason") == "WaitingForGracePeriod":
        hints.insert(0, "HostedClusterDestroyed/WaitingForGracePeriod: the destroy grace period annotation "
                        "is holding the HO finalizer; this is expected until it elapses.")
    if kind == "Cluster" and _group(api_version) == "core.convoy.kumodo.io" and status.get("reachable") is False:
        hints.insert(0, "convoy Cluster status.reachable is false: convoy skips deleting objects on it "
                        "(they stay on the target cluster).")
    if finalizers == ["openshift.io/destroy-cluster"] and kind == "HostedCluster":
        hints.insert(0, "Only the CLI destroy finalizer remains: the HO is done; the destroy command owns "
                        "the rest (AWS infrastructure, IAM).")
    unknown_owners = [f for f in finalizers if f not in FINALIZER_OWNERS]
    if unknown_owners:
        hints.append("Finalizers with no known owner: %s; find the controller that added them "
                     "(managedFields show the manager)." % ", ".join(unknown_owners))
    return hints
