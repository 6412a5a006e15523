"""HyperShift twins: HO (HostedCluster), the NodePool controller, CPO, HCCO, and the management
cluster's node-side parts (kubelet, cloud provider, CSI, pvc-protection) for HCP namespaces.

They follow tests/sandbox/spec/hypershift.md step by step (rule IDs HS-n in the comments below):

HO, on a deleting HostedCluster (requeued every `requeue`, 1 s here, 5 s for real): copy the cleanup
annotation to the HCP; request NodePool deletion (no wait); request CAPI Cluster deletion and wait
for its absence; delete AWSEndpointServices (dropping their CPO finalizer itself with invalid
credentials or after `endpoint_timeout`); delete the HCP if still present and wait; delete the OIDC
documents under `<infraID>/` and drop `hypershift.io/aws-oidc-discovery`; unless the skip
annotation is "true", delete the HCP namespace and wait for its absence; honour the destroy grace
period (HostedClusterDestroyed=True/WaitingForGracePeriod); remove its finalizer.
While it waits it says on what in HostedClusterDestroyed=False (reasons WaitingForCAPIClusterDeletion,
WaitingForAWSEndpointServiceDeletion, WaitingForHostedControlPlaneDeletion, WaitingForNamespaceDeletion:
the twin's own wording, for diagnosis).

HO's AWSEndpointService controller (same process: knob `ho` stops it too): adds its own finalizer; on deletion
deletes the VPC endpoint service configuration named by status.endpointServiceName (rejecting its endpoint
connections when the delete is refused) and drops its finalizer once a look by ID finds it gone; with its own
credentials invalid (knob ho_credentials=invalid: HO's, not the HostedCluster's) it keeps it (HS-31).

NodePool controller: deletes its MachineDeployments/MachineSets, waits for their Machines, drops
its finalizer. CPO: on a deleting HCP with cleanup on and valid credentials, scales CVO down
(CVOScaledDown=True), waits for CloudResourcesDestroyed=True or gives up after `cleanup_timeout`
(CloudResourcesDestroyed=False/CloudResourcesDeletionTimedOut), then drops the HCP finalizer. On a
deleting AWSEndpointService it deletes the VPC endpoint, security group and DNS records its status names,
then drops its finalizer (HS-21).
HCCO: deletes the guest's cloud resources it finds in AWS (classic ELBs with a service-name tag,
EBS volumes made for guest PVCs, image-registry buckets, all of the infra ID) and reports
"Remaining resources: ..." every `hcco_requeue` (2 s here, 30 s for real).

Knobs (annotation `sandbox.teardown.gates/knob-<name>` on the object, else on its namespace):
ho, nodepool, cpo, hcco, kubelet = down; credentials=invalid; ho_credentials=invalid (HO's own, HS-31);
cleanup=timeout (HCCO cannot delete);
cleanup_timeout (duration, default 60s; 10m for real); pod_stuck=true (kube-apiserver pods) or a pod
name; requeue, hcco_requeue, endpoint_timeout (durations).
"""
import calendar
import logging
import time

from botocore.exceptions import ClientError

from .base import Twin
from .hostedcommon import (aws, BUCKET_ANN, CLEANUP_ANN, CPO_FINALIZER, CAPI, ELB_ANN, GRACE_ANN,
                           HCP_NS_LABEL, HO_ENDPOINT_FINALIZER, HO_FINALIZER, HS, LB_FINALIZER, NODEPOOL_ANN, OIDC_FINALIZER,
                           PVC_FINALIZER, SKIP_NS_ANN, VOLUME_ANN, HostedTwinMixin, annotations, cond,
                           cond_age, deleting, parse_duration, run_all)

log = logging.getLogger("twin")


def creds_invalid(twin, obj):
    return str(twin.cluster_knob(obj, "credentials", "valid")).lower() == "invalid"


class HostedClusterOperator(HostedTwinMixin, Twin):
    NAME = "hypershift-operator"
    WATCHES = [(HS, "HostedCluster")]

    def reconcile(self, hc):
        if self.down(hc, "ho"):
            return 5
        md = hc["metadata"]
        ns, name = md["namespace"], md["name"]
        hcp_ns = f"{ns}-{name}"
        if not deleting(hc):
            self.add_finalizer(hc, HO_FINALIZER)  # HS-1
            self._propagate_cleanup(hc, hcp_ns)
            return None
        if HO_FINALIZER not in (md.get("finalizers") or []):
            return None
        rq = self.requeue_s(hc)  # HS-2
        infra = (hc.get("spec") or {}).get("infraID") or name
        self._propagate_cleanup(hc, hcp_ns)  # HS-3

        # 1. NodePools: request deletion, do not wait (HS-4)
        for np in self.list(HS, "NodePool", namespace=ns):
            if (np.get("spec") or {}).get("clusterName") == name and not deleting(np):
                self.delete(HS, "NodePool", np["metadata"]["name"], ns)
                self.event(hc, "Normal", "DeletingNodePool", f"requested deletion of NodePool {ns}/{np['metadata']['name']}")
        # 2. CAPI Cluster: request deletion, wait for absence (HS-5; the condition: HS-12)
        cluster = self.get(CAPI, "Cluster", infra, hcp_ns)
        if cluster is not None:
            if not deleting(cluster):
                self.delete(CAPI, "Cluster", infra, hcp_ns)
                self.event(hc, "Normal", "DeletingCAPICluster", f"requested deletion of CAPI Cluster {hcp_ns}/{infra}")
            return self._waiting(hc, "WaitingForCAPIClusterDeletion",
                                 f"Waiting for CAPI Cluster {hcp_ns}/{infra} to be deleted", rq)
        # 3. AWSEndpointServices (HS-6; credentials and RBAC are not modelled: HS-13)
        eps = self.list(HS, "AWSEndpointService", namespace=hcp_ns)
        if eps:
            timeout = parse_duration(self.cluster_knob(hc, "endpoint_timeout", None), 600)
            for ep in eps:
                if not deleting(ep):
                    self.delete(HS, "AWSEndpointService", ep["metadata"]["name"], hcp_ns)
                elif CPO_FINALIZER in (ep["metadata"].get("finalizers") or []) and (
                        creds_invalid(self, hc) or _age(ep["metadata"]["deletionTimestamp"]) > timeout):
                    if self.remove_finalizer(ep, CPO_FINALIZER):
                        self.event(hc, "Warning", "AWSEndpointServiceFinalizerRemoved",
                                   f"removed {CPO_FINALIZER} from AWSEndpointService {hcp_ns}/{ep['metadata']['name']} "
                                   + ("(invalid credentials)" if creds_invalid(self, hc) else f"after {timeout:.0f} s"))
            return self._waiting(hc, "WaitingForAWSEndpointServiceDeletion",
                                 "Waiting for AWSEndpointServices to be deleted: "
                                 + ", ".join(sorted(e["metadata"]["name"] for e in eps)), rq)
        # 4. HCP: a fallback delete for paths without an operational CAPI controller (HS-7)
        hcp = self.get(HS, "HostedControlPlane", name, hcp_ns)
        if hcp is not None:
            if not deleting(hcp):
                self.delete(HS, "HostedControlPlane", name, hcp_ns)
            return self._waiting(hc, "WaitingForHostedControlPlaneDeletion",
                                 f"Waiting for HostedControlPlane {hcp_ns}/{name} to be deleted", rq)
        # 5. OIDC documents (HS-8)
        if OIDC_FINALIZER in (md.get("finalizers") or []):
            bucket = annotations(hc).get(BUCKET_ANN)
            if bucket:
                self._delete_oidc(bucket, infra)
            self.remove_finalizer(hc, OIDC_FINALIZER)
            self.event(hc, "Normal", "OIDCDocumentsDeleted", f"deleted s3://{bucket}/{infra}/")
            return 0.05
        # 6. HCP namespace (HS-9)
        if annotations(hc).get(SKIP_NS_ANN) != "true":
            nso = self.get("v1", "Namespace", hcp_ns)
            if nso is not None:
                if not deleting(nso):
                    self.delete("v1", "Namespace", hcp_ns)
                    self.event(hc, "Normal", "DeletingNamespace", f"requested deletion of namespace {hcp_ns}")
                return self._waiting(hc, "WaitingForNamespaceDeletion", f"Waiting for namespace {hcp_ns} to be deleted", rq)
        # 7. destroy grace period (HS-10; AsExpected without one: HS-12)
        grace = parse_duration(annotations(hc).get(GRACE_ANN), 0)
        if grace > 0:
            c = cond(hc, "HostedClusterDestroyed")
            if not (c and c.get("status") == "True" and c.get("reason") == "WaitingForGracePeriod"):
                self.set_conditions(hc, [("HostedClusterDestroyed", "True", "WaitingForGracePeriod",
                                          f"Waiting for grace period ({annotations(hc).get(GRACE_ANN)})")])
                return min(grace, rq)
            left = grace - cond_age(c)
            if left > 0:
                return min(left, 5)
        else:
            self.set_conditions(hc, [("HostedClusterDestroyed", "True", "AsExpected",
                                      "The hosted cluster's resources were destroyed")])
        # 8. HO's finalizer (HS-11)
        cur = self.get(HS, "HostedCluster", name, ns)
        if cur is not None and self.remove_finalizer(cur, HO_FINALIZER):
            log.info("removed %s from HostedCluster %s/%s", HO_FINALIZER, ns, name)
            return None
        return 0.2

    def _waiting(self, hc, reason, message, rq):
        self.set_conditions(hc, [("HostedClusterDestroyed", "False", reason, message)])
        return rq

    def _propagate_cleanup(self, hc, hcp_ns):
        if annotations(hc).get(CLEANUP_ANN) != "true":
            return
        hcp = self.get(HS, "HostedControlPlane", hc["metadata"]["name"], hcp_ns)
        if hcp is not None and annotations(hcp).get(CLEANUP_ANN) != "true":
            self.patch_merge(hcp, {"metadata": {"annotations": {CLEANUP_ANN: "true"}}})

    def _delete_oidc(self, bucket, infra):
        s3 = aws("s3")
        try:
            keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=f"{infra}/").get("Contents", [])]
            if keys:
                s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys]})
        except ClientError as e:
            if e.response["Error"]["Code"] != "NoSuchBucket":
                raise


def _age(ts):
    try:
        return time.time() - calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S"))
    except (TypeError, ValueError):
        return 0.0


class EndpointServiceController(HostedTwinMixin, Twin):
    """HO's AWSEndpointServiceReconciler (HS-31; hypershift-operator/controllers/platform/aws/controller.go): it runs
    in the hypershift-operator's process, so the knob ``ho=down`` stops it too."""
    NAME = "hypershift-operator-endpoints"
    WATCHES = [(HS, "AWSEndpointService")]

    def reconcile(self, ep):
        if self.down(ep, "ho"):
            return 5
        md = ep["metadata"]
        if not deleting(ep):
            self.add_finalizer(ep, HO_ENDPOINT_FINALIZER)  # controller.go:313-320
            return None
        if HO_ENDPOINT_FINALIZER not in (md.get("finalizers") or []):
            return None
        # HO's own AWS credentials (the operator Deployment's, controller.go:131-136), not the HostedCluster's: the
        # knob ho_credentials, apart from credentials. Invalid: its delete fails and is retried, the finalizer stays
        if str(self.cluster_knob(ep, "ho_credentials", "valid")).lower() == "invalid":
            self.set_conditions(ep, [("AWSEndpointServiceAvailable", "False", "ErrorDeletingEndpointService",
                                      "InvalidClientTokenId: The security token included in the request is invalid.")])
            return self.requeue_s(ep, default=5)
        if not delete_endpoint_service(ep):
            return self.requeue_s(ep, default=5)  # endpointServiceDeletionRequeueDuration, :55
        if self.remove_finalizer(ep, HO_ENDPOINT_FINALIZER):
            log.info("AWSEndpointService %s/%s: endpoint service gone; removed %s", md["namespace"], md["name"],
                     HO_ENDPOINT_FINALIZER)
        return None


ENDPOINT_SERVICE_GONE = ("InvalidVpcEndpointService.NotFound", "InvalidVpcEndpointServiceId.NotFound")


def delete_endpoint_service(ep):
    """What HO deletes for an AWSEndpointService (HS-31): the configuration whose ID is the last "." segment of
    status.endpointServiceName (controller.go:714-716). A refused delete (ExistingVpcEndpointConnections) rejects
    the live connections and tries again at the next pass (:742-752). True once a look by ID finds it gone (the
    twin's own check: upstream drops its finalizer on the delete's success)."""
    name = (ep.get("status") or {}).get("endpointServiceName") or ""
    sid = name.split(".")[-1]
    if not sid:
        return True  # nothing to clean up (:709-712)
    ec2 = aws("ec2")
    resp = ec2.delete_vpc_endpoint_service_configurations(ServiceIds=[sid])
    for u in resp.get("Unsuccessful") or []:
        code = (u.get("Error") or {}).get("Code")
        if code == "ExistingVpcEndpointConnections":
            live = [c["VpcEndpointId"] for c in ec2.describe_vpc_endpoint_connections(
                Filters=[{"Name": "service-id", "Values": [sid]}]).get("VpcEndpointConnections", [])
                if (c.get("VpcEndpointState") or "").lower() in ("pendingacceptance", "pending", "available")]
            if live:
                ec2.reject_vpc_endpoint_connections(ServiceId=sid, VpcEndpointIds=live)
            return False
        if code not in ENDPOINT_SERVICE_GONE:
            log.warning("delete endpoint service %s: %s", sid, u.get("Error"))
            return False
    try:
        left = [sc for sc in ec2.describe_vpc_endpoint_service_configurations(ServiceIds=[sid]).get(
            "ServiceConfigurations", []) if (sc.get("ServiceState") or "").lower() != "deleted"]
    except ClientError as e:
        if e.response["Error"]["Code"] not in ENDPOINT_SERVICE_GONE:
            raise
        left = []
    return not left


class NodePoolController(HostedTwinMixin, Twin):
    NAME = "nodepool-controller"
    WATCHES = [(HS, "NodePool")]

    def reconcile(self, np):
        if self.down(np, "nodepool"):
            return 5
        md = np["metadata"]
        if not deleting(np):
            self.add_finalizer(np, HO_FINALIZER)  # HS-14
            return None
        if HO_FINALIZER not in (md.get("finalizers") or []):
            return None
        ns, name = md["namespace"], md["name"]
        hcp_ns = f"{ns}-{(np.get('spec') or {}).get('clusterName')}"
        key = f"{ns}/{name}"
        mine = lambda o: annotations(o).get(NODEPOOL_ANN) == key  # noqa: E731 - HS-15
        mds = [o for o in self.list(CAPI, "MachineDeployment", namespace=hcp_ns) if mine(o)]
        mss = [o for o in self.list(CAPI, "MachineSet", namespace=hcp_ns) if mine(o)]
        for kind, objs in (("MachineDeployment", mds), ("MachineSet", mss)):
            for o in objs:
                if not deleting(o):
                    self.delete(CAPI, kind, o["metadata"]["name"], hcp_ns)
        machines = [o for o in self.list(CAPI, "Machine", namespace=hcp_ns) if mine(o)]
        if mds or mss or machines:
            return self.requeue_s(np)
        if self.remove_finalizer(np, HO_FINALIZER):
            log.info("NodePool %s: machines gone; removed %s", key, HO_FINALIZER)
            return None
        return 0.2


class ControlPlaneOperator(HostedTwinMixin, Twin):
    NAME = "control-plane-operator"
    WATCHES = [(HS, "HostedControlPlane"), (HS, "AWSEndpointService")]

    def reconcile(self, obj):
        if self.down(obj, "cpo"):
            return 5
        if obj["kind"] == "AWSEndpointService":
            return self._endpoint_service(obj)
        hcp, md = obj, obj["metadata"]
        if not deleting(hcp):
            self.add_finalizer(hcp, HO_FINALIZER)  # HS-16
            return None
        if HO_FINALIZER not in (md.get("finalizers") or []):
            return None
        rq = self.requeue_s(hcp)
        if annotations(hcp).get(CLEANUP_ANN) == "true":  # HS-17
            if creds_invalid(self, hcp):
                self._once(hcp, "CloudResourceCleanupSkipped",
                           "guest cloud cleanup skipped: the cloud credentials are invalid")
            elif not self._remove_cloud_resources(hcp):
                return rq
        # remaining HCP cleanup, then the finalizer (HS-20)
        cur = self.get(HS, "HostedControlPlane", md["name"], md["namespace"])
        if cur is not None and self.remove_finalizer(cur, HO_FINALIZER):
            log.info("HCP %s/%s finalized", md["namespace"], md["name"])
            return None
        return 0.2

    def _once(self, hcp, reason, message):
        if not getattr(self, "_said", None):
            self._said = set()
        if (hcp["metadata"]["uid"], reason) not in self._said:
            self._said.add((hcp["metadata"]["uid"], reason))
            self.event(hcp, "Warning", reason, message)

    def _remove_cloud_resources(self, hcp):
        # HS-19: done on True or a terminal False; the timeout runs from the last report (or CVOScaledDown)
        destroyed = cond(hcp, "CloudResourcesDestroyed")
        if destroyed and (destroyed.get("status") == "True" or destroyed.get("reason") == "CloudResourcesDeletionTimedOut"):
            return True
        cvo = cond(hcp, "CVOScaledDown")
        if cvo and cvo.get("status") == "True":
            elapsed = cond_age(destroyed) if destroyed else cond_age(cvo)
            timeout = parse_duration(self.cluster_knob(hcp, "cleanup_timeout", None), 60)
            if elapsed > timeout:
                last = (destroyed or {}).get("message") or "no report from HCCO"
                self.set_conditions(hcp, [("CloudResourcesDestroyed", "False", "CloudResourcesDeletionTimedOut",
                                           f"Giving up on guest cloud resource deletion after {elapsed:.0f}s. {last}")])
                self.event(hcp, "Warning", "CloudResourcesDeletionTimedOut",
                           f"guest cloud resource cleanup timed out after {elapsed:.0f} s: {last}")
                return True
            return False
        # scale CVO down (HS-18)
        ns = hcp["metadata"]["namespace"]
        dep = self.get("apps/v1", "Deployment", "cluster-version-operator", ns)
        if dep is not None and (dep.get("spec") or {}).get("replicas") != 0:
            self.patch_merge(dep, {"spec": {"replicas": 0}})
        for pod in self.list("v1", "Pod", namespace=ns, label_selector="app=cluster-version-operator"):
            if not deleting(pod):
                self.delete("v1", "Pod", pod["metadata"]["name"], ns)
        self.set_conditions(hcp, [("CVOScaledDown", "True", "AsExpected", "CVO scaled down for guest cloud cleanup")])
        self.event(hcp, "Normal", "CVOScaledDown", "scaled down cluster-version-operator; waiting for guest cloud cleanup")
        return False

    def _endpoint_service(self, ep):  # HS-21
        if not deleting(ep):
            self.add_finalizer(ep, CPO_FINALIZER)
            return None
        if CPO_FINALIZER not in (ep["metadata"].get("finalizers") or []):
            return None
        if creds_invalid(self, ep):
            self.set_conditions(ep, [("AWSEndpointServiceAvailable", "False", "ErrorDeletingEndpointService",
                                      "InvalidClientTokenId: The security token included in the request is invalid.")])
            return self.requeue_s(ep, default=5)
        # PL-CTRL delete(): the VPC endpoint, its security group, the CNAME records of status.dnsNames, each by the
        # ID in the status; the finalizer comes off only once they are gone (the VPC endpoint *service* is HO's)
        if not delete_endpoint_cloud(ep):
            return self.requeue_s(ep, default=5)
        self.remove_finalizer(ep, CPO_FINALIZER)
        return None


def delete_endpoint_cloud(ep):
    """What real CPO deletes for an AWSEndpointService (HS-21), by the IDs in its status. True once all are gone."""
    st = ep.get("status") or {}
    ec2 = aws("ec2")
    vpce = st.get("endpointID")
    if vpce:
        ec2.delete_vpc_endpoints(VpcEndpointIds=[vpce])
        try:
            left = [e for e in ec2.describe_vpc_endpoints(VpcEndpointIds=[vpce]).get("VpcEndpoints", [])
                    if (e.get("State") or "").lower() != "deleted"]
        except ClientError as e:
            if e.response["Error"]["Code"] != "InvalidVpcEndpointId.NotFound":
                raise
            left = []
        if left:  # "resource requested for deletion but still present": requeue
            return False
    if st.get("securityGroupID"):
        try:
            ec2.delete_security_group(GroupId=st["securityGroupID"])
        except ClientError as e:
            code = e.response["Error"]["Code"]
            if code == "DependencyViolation":
                return False
            if code != "InvalidGroup.NotFound":
                raise
    zone = st.get("dnsZoneID")
    r53 = aws("route53")
    for fqdn in [n for n in st.get("dnsNames") or [] if n and zone]:
        try:
            sets = r53.list_resource_record_sets(HostedZoneId=zone, StartRecordName=fqdn, StartRecordType="CNAME",
                                                 MaxItems="1")["ResourceRecordSets"]
        except ClientError as e:
            if e.response["Error"]["Code"] == "NoSuchHostedZone":
                return True  # as CPO: no zone, nothing more to delete
            raise
        for rr in sets:
            if rr["Type"] == "CNAME" and rr["Name"].replace("\\052", "*").rstrip(".").lower() == fqdn.rstrip(".").lower():
                r53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [
                    {"Action": "DELETE", "ResourceRecordSet": rr}]})
    return True


def guest_cloud_resources(infra):
    """What HCCO would find of the guest's: {category: [ids]} (categories with something only). HS-24"""
    tag = f"kubernetes.io/cluster/{infra}"
    out = {}
    elb = aws("elb")
    # every page: a sandbox shared by parallel tests holds more load balancers than one page (50 in moto)
    names = [d["LoadBalancerName"] for page in elb.get_paginator("describe_load_balancers").paginate()
             for d in page.get("LoadBalancerDescriptions", [])]
    lbs = []
    for i in range(0, len(names), 20):
        for td in elb.describe_tags(LoadBalancerNames=names[i:i + 20]).get("TagDescriptions", []):
            keys = {t["Key"] for t in td.get("Tags", [])}
            if tag in keys and "kubernetes.io/service-name" in keys:
                lbs.append(td["LoadBalancerName"])
    if lbs:
        out["load-balancers"] = sorted(lbs)
    # the group the guest's cloud provider made for each classic ELB (k8s-elb-<name>, tagged the cluster's), HS-30:
    # it deletes it after the ELB, so it is left while that deletion is under way
    ec2 = aws("ec2")
    groups = [s for page in ec2.get_paginator("describe_security_groups").paginate(
        Filters=[{"Name": "tag-key", "Values": [tag]}]) for s in page.get("SecurityGroups", [])]
    elb_groups = [s["GroupId"] for s in groups if s.get("GroupName", "").startswith("k8s-elb-")
                  and {"Key": tag, "Value": "owned"} in (s.get("Tags") or [])]
    if elb_groups:
        out["load-balancer-groups"] = sorted(elb_groups)
    # one filter on the cluster's tag, the PVC tag checked here: moto keeps only the last of two filters of the
    # same name (a dict by name), so filtering on tag-key twice listed every cluster's PVC volumes, and a destroy
    # of one hosted cluster deleted the others' guest and etcd volumes (interruption campaign 42000's `same`)
    pages = aws("ec2").get_paginator("describe_volumes").paginate(Filters=[{"Name": "tag-key", "Values": [tag]}])
    vids = [v["VolumeId"] for page in pages for v in page.get("Volumes", [])
            if {tag, "kubernetes.io/created-for/pvc/name"} <= {t["Key"] for t in v.get("Tags") or []}
            and v.get("State") not in ("deleted", "deleting")]
    if vids:
        out["persistent-volumes"] = sorted(vids)
    buckets = [b["Name"] for b in aws("s3").list_buckets().get("Buckets", [])
               if b["Name"].startswith(f"{infra}-image-registry")]
    if buckets:
        out["image-registry"] = sorted(buckets)
    return out


def _revoke_refs_to(ec2, gid, tag):
    """The rules of the cluster's other groups that let ``gid`` in, revoked (cloud-provider-aws@63ec440
    pkg/providers/v1/aws.go:3373-3379, :2980-3099 updateInstanceSecurityGroupsForLoadBalancer, isDeleting)."""
    for page in ec2.get_paginator("describe_security_groups").paginate(Filters=[{"Name": "tag-key", "Values": [tag]}]):
        for other in page.get("SecurityGroups", []):
            perms = [{"IpProtocol": p["IpProtocol"], "UserIdGroupPairs": [{"GroupId": gid}],
                      **{k: p[k] for k in ("FromPort", "ToPort") if k in p}}
                     for p in other.get("IpPermissions", [])
                     if any(pair.get("GroupId") == gid for pair in p.get("UserIdGroupPairs", []))]
            if other["GroupId"] != gid and perms:
                ec2.revoke_security_group_ingress(GroupId=other["GroupId"], IpPermissions=perms)


def delete_guest_cloud_resources(found, infra=None):
    """Delete what guest_cloud_resources found, as HCCO and the guest's cloud provider would: a classic ELB's group
    after the ELB, its references in the cluster's other groups revoked first; a group still held by the ELB's
    lingering ENIs (DependencyViolation) is left for the next pass (aws.go:3119-3162 deleteSecurityGroupsWithBackoff)."""
    for name in found.get("load-balancers", []):
        aws("elb").delete_load_balancer(LoadBalancerName=name)
    ec2 = aws("ec2")
    for gid in found.get("load-balancer-groups", []):
        try:
            if infra:
                _revoke_refs_to(ec2, gid, f"kubernetes.io/cluster/{infra}")
            ec2.delete_security_group(GroupId=gid)
        except ClientError as e:
            if e.response["Error"]["Code"] not in ("DependencyViolation", "InvalidGroup.NotFound"):
                log.warning("delete security group %s: %s", gid, e)
    for vid in found.get("persistent-volumes", []):
        try:
            ec2.delete_volume(VolumeId=vid)
        except ClientError as e:
            if e.response["Error"]["Code"] != "InvalidVolume.NotFound":
                log.warning("delete volume %s: %s", vid, e)
    s3 = aws("s3")
    for b in found.get("image-registry", []):
        try:
            for page in s3.get_paginator("list_object_versions").paginate(Bucket=b):
                objs = [{"Key": o["Key"], "VersionId": o["VersionId"]}
                        for o in page.get("Versions", []) + page.get("DeleteMarkers", [])]
                if objs:
                    s3.delete_objects(Bucket=b, Delete={"Objects": objs})
            s3.delete_bucket(Bucket=b)
        except ClientError as e:
            if e.response["Error"]["Code"] != "NoSuchBucket":
                log.warning("delete bucket %s: %s", b, e)


def describe_remaining(found):
    return "Remaining resources: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in sorted(found.items()))


class HostedClusterConfigOperator(HostedTwinMixin, Twin):
    NAME = "hosted-cluster-config-operator"
    WATCHES = [(HS, "HostedControlPlane")]

    def reconcile(self, hcp):
        if self.down(hcp, "hcco"):
            return 5
        if not deleting(hcp) or annotations(hcp).get(CLEANUP_ANN) != "true":  # HS-22
            return None
        done = cond(hcp, "CloudResourcesDestroyed")
        if done and (done.get("status") == "True" or done.get("reason") == "CloudResourcesDeletionTimedOut"):
            return None
        cvo = cond(hcp, "CVOScaledDown")
        if not (cvo and cvo.get("status") == "True"):
            return self.requeue_s(hcp)
        rq = self.requeue_s(hcp, "hcco_requeue", 2.0)  # HS-23 (30 s for real)
        infra = (hcp.get("spec") or {}).get("infraID")
        found = guest_cloud_resources(infra)
        if found and str(self.cluster_knob(hcp, "cleanup", "")).lower() != "timeout" and not creds_invalid(self, hcp):
            delete_guest_cloud_resources(found, infra)
            found = guest_cloud_resources(infra)
        if found:
            self.set_conditions(hcp, [("CloudResourcesDestroyed", "False", "RemainingCloudResources",
                                       describe_remaining(found))])
            return rq
        self.set_conditions(hcp, [("CloudResourcesDestroyed", "True", "AsExpected", "All guest resources destroyed")])
        self.event(hcp, "Normal", "CloudResourcesDestroyed", "guest cloud resources destroyed")
        return None


class ManagementNode(HostedTwinMixin, Twin):
    """The management cluster's node-side parts, for HCP namespaces only: the kubelet (honours a
    terminating pod's grace period, then removes it), the cloud provider (deletes a LoadBalancer
    Service's ELB, drops `service.kubernetes.io/load-balancer-cleanup`), the CSI driver and the
    pvc-protection controller (a PVC goes once no pod uses it; its EBS volume is deleted)."""
    NAME = "management-node"
    WATCHES = [("v1", "Pod"), ("v1", "Service"), ("v1", "PersistentVolumeClaim")]

    def __init__(self):
        super().__init__()
        self._ns_cache = {}

    def _hcp_namespace(self, ns):
        hit = self._ns_cache.get(ns)
        if hit and hit[1] > time.monotonic():
            return hit[0]
        nso = self.get("v1", "Namespace", ns)
        val = bool(nso and ((nso["metadata"].get("labels") or {}).get(HCP_NS_LABEL) == "true"))
        self._ns_cache[ns] = (val, time.monotonic() + 30)
        return val

    def reconcile(self, obj):
        md = obj["metadata"]
        if not deleting(obj) or not self._hcp_namespace(md["namespace"]):
            return None
        if obj["kind"] == "Pod":
            return self._pod(obj)
        if obj["kind"] == "Service":  # HS-26
            if LB_FINALIZER in (md.get("finalizers") or []):
                name = annotations(obj).get(ELB_ANN)
                if name:
                    aws("elb").delete_load_balancer(LoadBalancerName=name)
                self.remove_finalizer(obj, LB_FINALIZER)
            return None
        if obj["kind"] == "PersistentVolumeClaim" and PVC_FINALIZER in (md.get("finalizers") or []):  # HS-27
            users = [p["metadata"]["name"] for p in self.list("v1", "Pod", namespace=md["namespace"])
                     if any(((v.get("persistentVolumeClaim") or {}).get("claimName") == md["name"])
                            for v in (p.get("spec") or {}).get("volumes") or [])]
            if users:
                return 1
            vid = annotations(obj).get(VOLUME_ANN)
            if vid:
                try:
                    aws("ec2").delete_volume(VolumeId=vid)
                except ClientError as e:
                    if e.response["Error"]["Code"] != "InvalidVolume.NotFound":
                        raise
            self.remove_finalizer(obj, PVC_FINALIZER)
        return None

    def _pod(self, pod):  # HS-25; the pod_stuck knob: HS-28
        md = pod["metadata"]
        if not (pod.get("spec") or {}).get("nodeName"):
            return None
        if self.down(pod, "kubelet"):
            return 5
        stuck = str(self.cluster_knob(pod, "pod_stuck", "") or "").lower()
        app = (md.get("labels") or {}).get("app", "")
        if stuck and stuck not in ("false", "0", "no") and (
                stuck == md["name"] or (stuck == "true" and app == "kube-apiserver")):
            log.info("pod %s/%s stays terminating (knob pod_stuck=%s)", md["namespace"], md["name"], stuck)
            return 5
        left = -_age(md["deletionTimestamp"])
        if left > 0:
            return left + 0.05
        self.delete_with("v1", "Pod", md["name"], md["namespace"], grace=0, uid=md["uid"])
        return None


TWINS = [HostedClusterOperator, EndpointServiceController, NodePoolController, ControlPlaneOperator,
         HostedClusterConfigOperator, ManagementNode]

if __name__ == "__main__":
    run_all([cls() for cls in TWINS], "hypershift")
