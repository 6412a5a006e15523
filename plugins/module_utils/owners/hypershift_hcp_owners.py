# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""When the HostedControlPlane's owners are verifiably gone, and what releasing CPO's finalizer needs.

CPO keeps ``hypershift.openshift.io/finalizer`` on a deleting HostedControlPlane until the guest's cloud
resources are destroyed (HCCO reports ``CloudResourcesDestroyed``; tests/sandbox/spec/hypershift.md HS-16 to
HS-24, and HS-30 for the guest's cloud provider). Both run as Deployments in the HCP namespace
(``control-plane-operator``, ``hosted-cluster-config-operator``). Their owners are taken as gone only on three
successful reads, each recorded as evidence:

* the CPO Deployment is absent or has no ready replica;
* the HCCO Deployment likewise;
* ``CloudResourcesDestroyed`` has not changed for ``take_over_after`` seconds: its lastTransitionTime (or, when
  CPO never set it, the HCP's deletionTimestamp) is that old. Whatever it says, the guest's resources are
  verified by ID before anything is released: a condition is what an owner said, not what AWS holds.

Then the collection does their part for them: the guest's cloud resources that the baseline found by the
cluster's tag (``kubernetes.io/cluster/<infraID>: owned``; the guest load balancers of the tagged VPC and
their target groups, the security groups only those load balancers use, the guest's persistent volumes (tagged
by the EBS CSI driver for a PVC, HS-29), the image-registry buckets) are deleted through the ordered AWS cleanup
and verified absent by ID; only that verification releases CPO's finalizer (``guest_evidence``). A read that
fails is unknown, never gone.

The security groups: HCCO removes the guest's load balancers by deleting its Services of type LoadBalancer
(openshift/hypershift@3ee9615, control-plane-operator/hostedclusterconfigoperator/controllers/resources/
resources.go:2886-2899 in ``ensureCloudResourcesDestroyed``, :3278-3300 ``ensureServiceLoadBalancersRemoved``),
and reports ``loadbalancers`` remaining until they are gone. The guest's cloud provider then does the AWS part
(kubernetes/cloud-provider-aws@63ec440, pkg/providers/v1/aws.go:3277-3395 ``EnsureLoadBalancerDeleted``): it
takes the load balancer's groups that carry the cluster tag (:3210-3274 ``buildSecurityGroupsToDelete``),
revokes the rules of the instances' cluster-tagged groups that let the load balancer's group in (:3373-3379,
:2980-3099 ``updateInstanceSecurityGroupsForLoadBalancer``), deletes the load balancer, and deletes those
groups, retrying while ``DependencyViolation`` says the load balancer's ENIs still hold them (:3119-3162
``deleteSecurityGroupsWithBackoff``). The group it made for a classic ELB is ``k8s-elb-<load balancer name>``
(:2008), tagged ``kubernetes.io/cluster/<cluster ID>: owned`` (:1595). The cloud provider runs in the HCP
namespace too: with CPO and HCCO gone, nobody deletes that group. The take-over takes only the groups the
inventory marked as made for a guest load balancer and used by nothing else of the manifest
(``aws/inventory.py`` ``guest_groups``); the ordered cleanup deletes them after the load balancers and waits on
their lingering ENIs, and revokes, as the cloud provider does, a rule of another group owned by the same
cluster that lets one of them in (``graph.TYPE_DEPS``, ``blockers._b_sg``).
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import parse_iso, utc_iso

CPO_DEPLOYMENT = "control-plane-operator"
HCCO_DEPLOYMENT = "hosted-cluster-config-operator"
OWNERS = "control-plane-operator (CPO) and hosted-cluster-config-operator (HCCO)"
CONDITION = "CloudResourcesDestroyed"
# what HCCO and CPO remove of the guest's, as the baseline's manifest types them (the guest's persistent
# volumes are the tagged volumes the inventory marked as the EBS CSI driver's, not every volume of the infra ID;
# the security groups, only those the inventory marked as made for a guest load balancer: inventory.guest_groups)
GUEST_TYPES = (g.ELB, g.ELBV2, g.TARGET_GROUP, g.BUCKET)


def _meta(obj):
    return (obj or {}).get("metadata") or {}


def deployment_state(deployments, name):
    """``(gone, text)`` for the Deployment ``name`` among ``deployments`` (a successful list of the HCP namespace):
    gone when absent, or when no replica is ready."""
    found = [d for d in deployments or [] if _meta(d).get("name") == name]
    if not found:
        return True, "absent"
    status = found[0].get("status") or {}
    ready = int(status.get("readyReplicas") or 0)
    wanted = (found[0].get("spec") or {}).get("replicas")
    wanted = 1 if wanted is None else int(wanted)
    if ready > 0:
        return False, "%d of %d replicas ready" % (ready, wanted)
    return True, "not ready (0 of %d replicas ready)" % wanted


def _condition(hcp, ctype):
    for c in (hcp.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def owners_gone(hcp, deployments, now, take_over_after, finalizer):
    """The evidence (a list of ``{"what", "state", "read_at"}``) that CPO and HCCO are gone and the HCP's cleanup
    made no progress for ``take_over_after`` seconds, or None when any of it does not hold. ``hcp`` and
    ``deployments`` come from successful reads at ``now`` (epoch seconds); the HCP must be deleting and hold
    ``finalizer`` (CPO's)."""
    m = _meta(hcp)
    if not hcp or not m.get("deletionTimestamp") or finalizer not in (m.get("finalizers") or []):
        return None
    at = utc_iso(now)
    evidence = []
    for name, who in ((CPO_DEPLOYMENT, "CPO"), (HCCO_DEPLOYMENT, "HCCO")):
        gone, text = deployment_state(deployments, name)
        if not gone:
            return None
        evidence.append({"what": "%s Deployment %s/%s" % (who, m.get("namespace"), name), "state": text,
                         "read_at": at})
    cond = _condition(hcp, CONDITION)
    since_text = (cond or {}).get("lastTransitionTime") or m.get("deletionTimestamp")
    since = parse_iso(since_text)
    if since is None or now - since.timestamp() < take_over_after:
        return None
    if cond:
        state = "%s=%s (%s) unchanged since %s, %d s or more" % (CONDITION, cond.get("status"), cond.get("reason") or "-",
                                                                 since_text, take_over_after)
    else:
        state = "no %s condition since the deletion was requested at %s, %d s or more" % (
            CONDITION, since_text, take_over_after)
    evidence.append({"what": "HostedControlPlane %s/%s" % (m.get("namespace"), m.get("name")), "state": state,
                     "read_at": at})
    return evidence


def guest_manifest(manifest, guest_volumes, guest_groups=None):
    """The guest's part of the baseline's manifest (type -> IDs): its load balancers, target groups, registry
    buckets, persistent volumes and the security groups only its load balancers use; what HCCO and CPO (and the
    guest's cloud provider, gone with the HCP namespace) would remove. The groups go in the same manifest: the
    ordered cleanup deletes them after the load balancers and their ENIs (graph.TYPE_DEPS)."""
    out = {}
    for t in GUEST_TYPES:
        if (manifest or {}).get(t):
            out[t] = sorted(manifest[t])
    for t, ids in ((g.VOLUME, guest_volumes), (g.SG, guest_groups)):
        picked = sorted(set(ids or []) & set((manifest or {}).get(t) or []))
        if picked:
            out[t] = picked
    return out


def guest_text(guest):
    """``type: id, id; ...`` for a message; ``none`` when there is none."""
    return "; ".join("%s: %s" % (t, ", ".join(ids)) for t, ids in sorted((guest or {}).items()) if ids) or "none"


def guest_evidence(cleanup_resources, guest):
    """``(verified, evidence, left)``: every guest ID came back from the AWS cleanup read gone by ID
    (``verified_state`` ``absent``, or ``terminal``: a state nothing stops, an EBS volume ``deleting``, as the
    cleanup's own verification takes it). ``left``: the IDs not verified, each with what the cleanup said of it."""
    by_id = dict(((r.get("type"), r.get("id")), r) for r in cleanup_resources or [])
    evidence, left = [], []
    for t, ids in sorted((guest or {}).items()):
        for rid in ids:
            r = by_id.get((t, rid))
            if r and r.get("verified_state") in ("absent", "terminal"):
                evidence.append({"what": "%s %s" % (t, rid), "verified_state": r["verified_state"],
                                 "verified_absent_at": utc_iso()})
            else:  # with the cleanup's reason when it gave one (a refusal names why)
                why = (r or {}).get("outcome") or "not in the cleanup's results"
                if (r or {}).get("error"):
                    why = "%s: %s" % (why, r["error"])
                left.append("%s %s (%s)" % (t, rid, why))
    return not left, evidence, left


# -- CPO's AWSEndpointService part (tests/sandbox/spec/hypershift.md HS-21) ------------------------------------
# On an AWSEndpointService's deletion CPO deletes, by the IDs in its status, the VPC endpoint (status.endpointID),
# the endpoint's security group (status.securityGroupID) and the CNAME records of status.dnsNames in
# status.dnsZoneID, and only then removes its finalizer. (The VPC endpoint *service* configuration is HO's.)
ENDPOINT_OWNER = "control-plane-operator (CPO, its AWSEndpointService controller)"


def endpoint_resources(ep):
    """What CPO deletes for the AWSEndpointService ``ep`` before its finalizer comes off, as a manifest (type -> IDs;
    a record as ``ZONEID/NAME/CNAME``), from its status; empty when the status names nothing."""
    st = (ep or {}).get("status") or {}
    out = {}
    if st.get("endpointID"):
        out[g.ENDPOINT] = [st["endpointID"]]
    if st.get("securityGroupID"):
        out[g.SG] = [st["securityGroupID"]]
    zone = st.get("dnsZoneID")
    names = [n for n in st.get("dnsNames") or [] if n]
    if zone and names:
        out[g.RECORD] = sorted("%s/%s./CNAME" % (zone, n.rstrip(".").replace("*", "\\052")) for n in names)
    return out


def endpoint_owner_gone(endpoint_services, deployments, now, take_over_after, finalizer):
    """``(held, evidence)`` when CPO is read gone at HS-6: the CPO Deployment absent or with no ready replica, and
    each AWSEndpointService that is deleting and still holds CPO's ``finalizer`` deleting for ``take_over_after``
    seconds or more (no progress: CPO drops it as soon as what it guards is gone). ``held``:
    held_endpoint_services; ``(None, None)`` when there is none or any of it does not hold. The reads are successful
    lists of the HCP namespace at ``now`` (epoch seconds)."""
    held = held_endpoint_services(endpoint_services, finalizer)
    if not held:
        return None, None
    gone, text = deployment_state(deployments, CPO_DEPLOYMENT)
    if not gone:
        return None, None
    at = utc_iso(now)
    evidence = [{"what": "CPO Deployment %s/%s" % (held[0]["namespace"], CPO_DEPLOYMENT), "state": text, "read_at": at}]
    waited = held_long_enough(held, endpoint_services, now, take_over_after, finalizer)
    if waited is None:
        return None, None
    return held, evidence + waited


def held_long_enough(held, endpoint_services, now, take_over_after, finalizer, whose=""):
    """The evidence rows of the ``held`` AWSEndpointServices, each deleting for ``take_over_after`` seconds or more
    at ``now`` and still held by ``finalizer`` (``whose`` says more of it); None when one is younger or its
    deletionTimestamp cannot be read."""
    at = utc_iso(now)
    since = dict((_meta(ep).get("name"), _meta(ep).get("deletionTimestamp")) for ep in endpoint_services)
    evidence = []
    for e in held:
        started = parse_iso(since.get(e["name"]))
        if started is None or now - started.timestamp() < take_over_after:
            return None
        evidence.append({"what": "AWSEndpointService %s/%s" % (e["namespace"], e["name"]), "read_at": at,
                         "state": "deleting since %s, %d s or more, still held by %s%s" % (
                             since.get(e["name"]), take_over_after, finalizer, whose)})
    return evidence


def held_endpoint_services(endpoint_services, finalizer):
    """The deleting AWSEndpointServices that still hold CPO's ``finalizer``, each as
    ``{"namespace", "name", "uid", "resources"}`` (its AWS IDs, endpoint_resources), sorted by name."""
    out = []
    for ep in endpoint_services or []:
        m = _meta(ep)
        if m.get("deletionTimestamp") and finalizer in (m.get("finalizers") or []):
            out.append({"namespace": m.get("namespace"), "name": m.get("name"), "uid": m.get("uid"),
                        "resources": endpoint_resources(ep)})
    return sorted(out, key=lambda e: e["name"] or "")


# -- HO's AWSEndpointService part (tests/sandbox/spec/hypershift.md HS-31, conformance HC-7) --------------------
# HO's AWSEndpointServiceReconciler, in the hypershift-operator's process, keeps its own finalizer on each
# AWSEndpointService (openshift/hypershift@3ee9615 hypershift-operator/controllers/platform/aws/controller.go:54,
# added :313-320). On deletion (``delete()``, :702-760) it takes the configuration ID from
# status.endpointServiceName (its last "." segment, :714-716), deletes that VPC endpoint service configuration
# (rejecting its connections when refused, :719-752; InvalidVpcEndpointService.NotFound is already gone, :739-741)
# and only then drops its finalizer (:291-307), retrying every 5 s (:55). The configuration carries the
# HostedCluster's resourceTags, which HO keeps holding kubernetes.io/cluster/<infraID>: owned
# (hostedcluster_controller.go:5050-5075); CPO copies them to the AWSEndpointService
# (control-plane-operator/controllers/awsprivatelink/awsprivatelink_controller.go:177-183) and HO onto the
# configuration (controller.go:559-578).
HO_ENDPOINT_OWNER = "hypershift-operator (HO, its AWSEndpointService controller)"
CLUSTER_TAG = "kubernetes.io/cluster/%s"


def endpoint_service_id(service_name):
    """The configuration ID HO deletes for ``service_name`` (status.endpointServiceName): its last "." segment, as
    HO derives it (com.amazonaws.vpce.us-west-1.vpce-svc-014f... -> vpce-svc-014f...); None when there is none."""
    last = (service_name or "").strip().split(".")[-1]
    return last or None


def ho_endpoint_resources(ep):
    """What HO deletes for the AWSEndpointService ``ep`` before its finalizer comes off, as a manifest: the VPC
    endpoint service configuration its status names; empty when it names none (HO then has nothing to clean up)."""
    sid = endpoint_service_id(((ep or {}).get("status") or {}).get("endpointServiceName"))
    return {g.ENDPOINT_SERVICE: [sid]} if sid else {}


def held_by_ho(endpoint_services, finalizer):
    """The deleting AWSEndpointServices that still hold HO's ``finalizer``, each as ``{"namespace", "name", "uid",
    "service_name", "resources"}`` (ho_endpoint_resources), sorted by name."""
    out = []
    for ep in endpoint_services or []:
        m = _meta(ep)
        if m.get("deletionTimestamp") and finalizer in (m.get("finalizers") or []):
            out.append({"namespace": m.get("namespace"), "name": m.get("name"), "uid": m.get("uid"),
                        "service_name": ((ep.get("status") or {}).get("endpointServiceName")) or "",
                        "resources": ho_endpoint_resources(ep)})
    return sorted(out, key=lambda e: e["name"] or "")


def ho_endpoint_owner_gone(endpoint_services, now, take_over_after, finalizer):
    """``(held, evidence)`` when HO's part is read stalled: each AWSEndpointService that is deleting and still holds
    HO's ``finalizer`` has been deleting for ``take_over_after`` seconds or more (HO retries every 5 s and drops its
    finalizer as soon as its delete succeeds). The take-over runs only once a gate showed the hypershift-operator
    making no progress for that long (its ``stalled_gate``): this is the same evidence for its endpoint controller,
    which runs in that process. ``(None, None)`` when none is held or one is younger. ``endpoint_services``: a
    successful list of the HCP namespace at ``now`` (epoch seconds)."""
    held = held_by_ho(endpoint_services, finalizer)
    if not held:
        return None, None
    evidence = held_long_enough(held, endpoint_services, now, take_over_after, finalizer,
                                " (HO's, retried every 5 s)")
    if evidence is None:
        return None, None
    return held, evidence


def cluster_owned(tags, infra_id):
    """``(owned, why)``: whether AWS tags (a list of Key/Value) carry ``kubernetes.io/cluster/<infra_id>: owned``;
    ``why`` says what they carry instead (untagged, tagged for another infra ID, or ``shared``)."""
    want = CLUSTER_TAG % infra_id
    cluster = sorted((t.get("Key"), t.get("Value")) for t in tags or []
                     if (t.get("Key") or "").startswith(CLUSTER_TAG % ""))
    if (want, "owned") in cluster:
        return True, "tagged %s=owned" % want
    if not cluster:
        return False, "it carries no %s tag (untagged): not shown to be this cluster's" % (CLUSTER_TAG % "<infraID>")
    return False, "tagged %s, not %s=owned: not this cluster's" % (
        ", ".join("%s=%s" % kv for kv in cluster), want)


NOT_OWNED_PREFIX = "refused: not shown to be infra ID"


def not_owned_rows(observed, infra_id, resources):
    """The rows (``{type, id, reason}``) of ``resources`` (a manifest) that the first look by ID (``observed``: type ->
    {id: its answer, with ``Tags`` and ``state``}) found present but not tagged ``kubernetes.io/cluster/<infra_id>:
    owned`` (cluster_owned): not deleted, each with why. Gone already is nothing to refuse; a look that failed is
    left to the cleanup's own rule for unknown tags (never deleted, never absent)."""
    rows = []
    for rtype, ids in sorted((resources or {}).items()):
        for rid in sorted(ids or []):
            item = ((observed or {}).get(rtype) or {}).get(rid)
            if item is None or item.get("state") in ("absent", "terminal", "unknown"):
                continue
            owned, why = cluster_owned(item.get("Tags"), infra_id)
            if not owned:
                rows.append({"type": rtype, "id": rid, "reason": "%s %s's: %s; not deleted" % (
                    NOT_OWNED_PREFIX, infra_id, why)})
    return rows


def merge_manifests(*manifests):
    """One manifest (type -> sorted unique IDs) of several."""
    out = {}
    for m in manifests:
        for t, ids in (m or {}).items():
            if ids:
                out[t] = sorted(set(out.get(t, [])) | set(ids))
    return out


def endpoint_services_text(endpoint_services):
    """``ns/name (type: id, ...)`` for each AWSEndpointService; ``none`` when there is none."""
    return "; ".join("AWSEndpointService %s/%s (%s)" % (e.get("namespace"), e.get("name"),
                                                        guest_text(e.get("resources")))
                     for e in endpoint_services or []) or "none"
