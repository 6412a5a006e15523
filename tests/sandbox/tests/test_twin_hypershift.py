"""The HyperShift, CAPI and CAPA twins against the `hosted-cluster` seed.

Each test seeds a hosted cluster, deletes it the way the destroy command does (add
`openshift.io/destroy-cluster`, delete, wait until only that finalizer is left, remove it) while a
recorder takes snapshots, and checks the ORDER the controllers follow (tests/sandbox/spec/hypershift.md) and the
knobs' effects. Snapshots read the later object of each pair first, so an order that holds in
every snapshot held in the world. No timing assertions: only generous bounds.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import threading
import time
import uuid

import boto3
import pytest
from botocore.exceptions import ClientError
from kubernetes.client import ApiException

HS = "hypershift.openshift.io/v1beta1"
CAPI = "cluster.x-k8s.io/v1beta1"
CAPA = "infrastructure.cluster.x-k8s.io/v1beta2"
HO_FIN = "hypershift.openshift.io/finalizer"
CLI_FIN = "openshift.io/destroy-cluster"
NS = "clusters"
SANDBOX = os.path.join(os.path.dirname(__file__), "..", "sandbox")


def _aws(service):
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")


# one hosted cluster per test, seeded all at once (in parallel) when each module starts; the full
# aws-infra scenario for the chain test, the seed's own minimum AWS for the knob tests (quicker)
# "timeout": HCCO must report RemainingCloudResources before CPO gives up; CPO's clock starts at CVOScaledDown and
# HCCO's first look lists the sandbox's load balancers, volumes and buckets, so 3 s was missed on a loaded machine
SEEDS = {
    "chain": {"cleanup_cloud_resources": "true", "nodepools": 2, "replicas": 1},
    "nocleanup": {"skip_namespace_delete": "true", "destroy_grace_period": "2s", "aws_infra": "false"},
    "capi_down": {"capi": "down", "aws_infra": "false"},
    "timeout": {"cleanup_cloud_resources": "true", "cleanup": "timeout", "cleanup_timeout": "15s", "aws_infra": "false"},
    "pod_stuck": {"pod_stuck": "true", "grace_period": "1s", "aws_infra": "false"},
    "bad_creds": {"cleanup_cloud_resources": "true", "credentials": "invalid", "aws_infra": "false"},
    "cpo_down": {"cpo": "down", "aws_infra": "false"},
    "hcco_down": {"cleanup_cloud_resources": "true", "hcco": "down", "cleanup_timeout": "4s", "aws_infra": "false"},
}


def seed(**knobs):
    name = "hc" + uuid.uuid4().hex[:6]
    knobs.setdefault("zones", 1)  # the aws-infra scenario's: one zone is enough here and quicker
    args = [SANDBOX, "seed", "hosted-cluster", "--name", name, "--namespace", NS]
    for k, v in knobs.items():
        args += ["--knob", f"{k}={v}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def seed_all(keys):
    with concurrent.futures.ThreadPoolExecutor(len(keys)) as pool:
        futures = {k: pool.submit(seed, **SEEDS[k]) for k in keys}
        return {k: f.result() for k, f in futures.items()}


# the knob tests whose controllers are held (CAPI, CPO, HCCO down, a pod stuck, a cleanup timeout) are in
# test_twin_hypershift_held.py, so that a parallel run gives them a worker of their own
@pytest.fixture(scope="module")
def seeded(api_client):
    return seed_all(["chain", "nocleanup", "bad_creds"])


def set_knob(info, key, value):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from sandboxctl.scenarios.hosted_cluster import set_knob as _set  # the seed's own helper
    _set(info["name"], info["namespace"], key, value)


def _get(dyn, av, kind, name, ns=None):
    try:
        return dyn.resources.get(api_version=av, kind=kind).get(name=name, namespace=ns).to_dict()
    except ApiException as e:
        if e.status == 404:
            return None
        raise


def _list(dyn, av, kind, ns):
    return [i.to_dict() for i in dyn.resources.get(api_version=av, kind=kind).get(namespace=ns).items]


def _conds(obj):
    """Conditions by type; the real CAPI manager's v1beta2 ones (status.v1beta2 in the v1beta1 view) win."""
    status = (obj or {}).get("status") or {}
    out = {c["type"]: c for c in status.get("conditions") or []}
    out.update({c["type"]: c for c in (status.get("v1beta2") or {}).get("conditions") or []})
    return out


class Recorder(threading.Thread):
    """Snapshots of the chain every 0.2 s; checks the order invariants in each one."""

    def __init__(self, dyn, info):
        super().__init__(daemon=True)
        self.dyn, self.info = dyn, info
        self.stop = threading.Event()
        self.violations, self.hcp_conds, self.hc_conds, self.cluster_conds, self.machine_conds = [], set(), set(), set(), set()
        self.hcp_messages = []
        self.snapshots = 0
        self.error = None

    def halt(self):
        """Stop recording and assert that no snapshot broke the order invariants."""
        self.stop.set()
        self.join(5)
        assert not self.violations, self.violations[:5]

    def start(self):
        # every status write too, by watch: a condition can live shorter than a snapshot period
        for av, kind, ns in ((HS, "HostedControlPlane", self.info["hcp_namespace"]),
                             (HS, "HostedCluster", NS), (CAPI, "Cluster", self.info["hcp_namespace"]),
                             (CAPI, "Machine", self.info["hcp_namespace"])):
            api = self.dyn.resources.get(api_version=av, kind=kind)
            rv = api.get(namespace=ns).metadata.resourceVersion
            threading.Thread(target=self.watch, args=(api, ns, rv), daemon=True).start()
        super().start()

    def watch(self, api, ns, rv):
        while not self.stop.is_set():
            try:
                for ev in api.watch(namespace=ns, resource_version=rv, timeout=2):
                    obj = ev["object"].to_dict()
                    rv = obj["metadata"]["resourceVersion"]
                    self.note(obj)
            except Exception:  # noqa: BLE001 - expired watch: carry on from now
                rv = api.get(namespace=ns).metadata.resourceVersion

    def note(self, obj):
        bucket = {"HostedControlPlane": self.hcp_conds, "HostedCluster": self.hc_conds,
                  "Cluster": self.cluster_conds, "Machine": self.machine_conds}[obj["kind"]]
        if obj["kind"] == "HostedCluster" and obj["metadata"]["name"] != self.info["name"]:
            return
        for c in _conds(obj).values():
            bucket.add((c["type"], c["status"], c.get("reason")))  # CAPI's old-style True conditions have none
            if c["type"] == "CloudResourcesDestroyed":
                self.hcp_messages.append(c.get("message", ""))

    def run(self):
        try:
            while not self.stop.is_set():
                self.snap()
                time.sleep(0.2)
        except Exception as e:  # noqa: BLE001 - surfaced by the test
            self.error = e

    def snap(self):
        d, i = self.dyn, self.info
        hcp_ns, infra = i["hcp_namespace"], i["infra_id"]
        skip_ns = str(i["knobs"].get("skip_namespace_delete", "")).lower() == "true"
        # later-in-the-chain objects first
        hc = _get(d, HS, "HostedCluster", i["name"], NS)
        nso = _get(d, "v1", "Namespace", hcp_ns)
        cluster = _get(d, CAPI, "Cluster", infra, hcp_ns)
        hcp = _get(d, HS, "HostedControlPlane", i["name"], hcp_ns)
        machines = _list(d, CAPI, "Machine", hcp_ns)
        nps = [n for n in _list(d, HS, "NodePool", NS) if n["spec"].get("clusterName") == i["name"]]
        self.snapshots += 1
        for o in [hc, hcp, cluster] + machines:
            if o:
                self.note(o)

        def bad(msg):
            self.violations.append(msg)
        if cluster and cluster["metadata"].get("deletionTimestamp") and any(
                not n["metadata"].get("deletionTimestamp") for n in nps):
            bad("CAPI Cluster deleting while a NodePool was not")
        if (hcp is None or hcp["metadata"].get("deletionTimestamp")) and machines:
            bad(f"HCP deleting/absent while Machines remain: {[m['metadata']['name'] for m in machines]}")
        if (nso is None or nso["metadata"].get("deletionTimestamp")) and cluster is not None and not skip_ns:
            bad("HCP namespace deleting/absent while the CAPI Cluster is present")
        if hc is not None and HO_FIN not in (hc["metadata"].get("finalizers") or []):
            left = [k for k, v in (("namespace", None if skip_ns else nso), ("cluster", cluster), ("hcp", hcp)) if v]
            if left or nps:
                bad(f"HO finalizer removed while {left + ['nodepools'] * bool(nps)} remain")


def destroy(dyn, info, timeout=300, until_only_cli=True):
    """As the destroy command: add its finalizer, delete the HC. With until_only_cli, wait until
    only its finalizer is left and remove it; returns the seconds that took."""
    api = dyn.resources.get(api_version=HS, kind="HostedCluster")
    hc = api.get(name=info["name"], namespace=NS)
    api.patch(name=info["name"], namespace=NS, content_type="application/json-patch+json", body=[
        {"op": "test", "path": "/metadata/uid", "value": hc.metadata.uid},
        {"op": "add", "path": "/metadata/finalizers/-", "value": CLI_FIN}])
    api.delete(name=info["name"], namespace=NS)
    if until_only_cli:
        return finish(dyn, info, timeout)
    return None


def finish(dyn, info, timeout=300):
    api = dyn.resources.get(api_version=HS, kind="HostedCluster")
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        hc = api.get(name=info["name"], namespace=NS)
        fins = hc.metadata.finalizers or []
        if fins == [CLI_FIN]:
            api.patch(name=info["name"], namespace=NS, content_type="application/json-patch+json", body=[
                {"op": "test", "path": "/metadata/uid", "value": hc.metadata.uid},
                {"op": "test", "path": "/metadata/finalizers/0", "value": CLI_FIN},
                {"op": "remove", "path": "/metadata/finalizers/0"}])
            wait_for(lambda: _get(dyn, HS, "HostedCluster", info["name"], NS) is None, 20, "HC gone")
            return time.monotonic() - t0
        time.sleep(0.5)
    raise AssertionError(f"HC {info['name']} still has {fins} after {timeout} s")


def wait_for(pred, timeout, what):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = pred()
        if v:
            return v
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout} s waiting for: {what}")


def audit_offset():
    return os.path.getsize(os.environ["SANDBOX_AUDIT_LOG"])


def audit_deletes(offset):
    """(resource, namespace, name) of each delete request answered after offset, in order."""
    out = []
    with open(os.environ["SANDBOX_AUDIT_LOG"]) as f:
        f.seek(offset)
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if ev.get("verb") == "delete" and ev.get("stage") == "ResponseComplete":
                ref = ev.get("objectRef") or {}
                out.append((ref.get("resource"), ref.get("namespace"), ref.get("name")))
    return out


def elb_exists(name):
    try:
        return bool(_aws("elb").describe_load_balancers(LoadBalancerNames=[name])["LoadBalancerDescriptions"])
    except ClientError as e:
        if e.response["Error"]["Code"] in ("LoadBalancerNotFound", "AccessPointNotFound"):
            return False
        raise


def volume_exists(vid):
    try:
        vols = _aws("ec2").describe_volumes(VolumeIds=[vid])["Volumes"]
        return bool(vols) and vols[0]["State"] not in ("deleted",)
    except ClientError as e:
        if e.response["Error"]["Code"] == "InvalidVolume.NotFound":
            return False
        raise


def group_exists(gid):
    try:
        return bool(_aws("ec2").describe_security_groups(GroupIds=[gid])["SecurityGroups"])
    except ClientError as e:
        if e.response["Error"]["Code"] == "InvalidGroup.NotFound":
            return False
        raise


def instance_states(ids):
    return {i["InstanceId"]: i["State"]["Name"] for r in _aws("ec2").describe_instances(InstanceIds=ids)["Reservations"]
            for i in r["Instances"]}


@pytest.fixture()
def recorder(dyn):
    recs = []

    def start(info):
        r = Recorder(dyn, info)
        r.start()
        recs.append(r)
        return r
    yield start
    for r in recs:
        r.stop.set()
        r.join(5)


def endpoint_cloud_left(info):
    """The IDs CPO's AWSEndpointService controller deletes (HS-21) that AWS still holds, each looked up by ID."""
    ec2, r53 = _aws("ec2"), _aws("route53")
    ids = info["endpoint_cloud"]

    def held(call, key, not_found, **by_id):
        try:
            return [x for x in call(**by_id)[key] if (x.get("State") or "").lower() != "deleted"]
        except ClientError as e:
            if e.response["Error"]["Code"] == not_found:
                return []
            raise
    left = [v for v in ids["AWS::EC2::VPCEndpoint"]
            if held(ec2.describe_vpc_endpoints, "VpcEndpoints", "InvalidVpcEndpointId.NotFound", VpcEndpointIds=[v])]
    left += [g for g in ids["AWS::EC2::SecurityGroup"]
             if held(ec2.describe_security_groups, "SecurityGroups", "InvalidGroup.NotFound", GroupIds=[g])]
    for rid in ids["AWS::Route53::RecordSet"]:
        zone, name, rtype = rid.split("/", 2)
        sets = r53.list_resource_record_sets(HostedZoneId=zone, StartRecordName=name, StartRecordType=rtype,
                                             MaxItems="1")["ResourceRecordSets"]
        left += [rid for rr in sets if rr["Name"] == name and rr["Type"] == rtype]
    return left


def check_seeded(dyn, core, info):
    """What the seed promises: a running hosted cluster with its finalizers, references and AWS."""
    hcp_ns, infra = info["hcp_namespace"], info["infra_id"]
    assert hcp_ns == f"{NS}-{info['name']}"
    hc = _get(dyn, HS, "HostedCluster", info["name"], NS)
    assert set(hc["metadata"]["finalizers"]) == {HO_FIN, "hypershift.io/aws-oidc-discovery"}
    assert hc["spec"]["infraID"] == infra and hc["metadata"]["uid"] == info["uid"]
    cluster = _get(dyn, CAPI, "Cluster", infra, hcp_ns)
    assert cluster["spec"]["controlPlaneRef"]["kind"] == "HostedControlPlane"
    assert cluster["spec"]["infrastructureRef"]["kind"] == "AWSCluster"
    assert "cluster.cluster.x-k8s.io" in cluster["metadata"]["finalizers"]
    assert len([n for n in _list(dyn, HS, "NodePool", NS) if n["spec"]["clusterName"] == info["name"]]) == 2
    ams = _list(dyn, CAPA, "AWSMachine", hcp_ns)
    assert len(ams) == 2 and all(a["spec"]["instanceID"] for a in ams)
    assert set(instance_states([a["spec"]["instanceID"] for a in ams]).values()) <= {"pending", "running"}
    pods = core.list_namespaced_pod(hcp_ns).items
    assert pods and all(p.spec.node_name and p.spec.termination_grace_period_seconds is not None for p in pods)
    svcs = [s for s in core.list_namespaced_service(hcp_ns).items if s.spec.type == "LoadBalancer"]
    assert svcs and all("service.kubernetes.io/load-balancer-cleanup" in s.metadata.finalizers for s in svcs)
    assert "kubernetes.io/pvc-protection" in core.read_namespaced_persistent_volume_claim("data-etcd-0", hcp_ns).metadata.finalizers
    eps = _list(dyn, HS, "AWSEndpointService", hcp_ns)
    assert eps and all("hypershift.openshift.io/control-plane-operator-finalizer" in e["metadata"]["finalizers"] for e in eps)
    # CPO made each one's VPC endpoint, security group and DNS record, and named them in its status (HS-21)
    assert sorted(e["status"]["endpointID"] for e in eps) == sorted(info["endpoint_cloud"]["AWS::EC2::VPCEndpoint"])
    assert all(e["status"]["securityGroupID"] and e["status"]["dnsZoneID"] and e["status"]["dnsNames"] for e in eps)
    assert sorted(endpoint_cloud_left(info)) == sorted(i for ids in info["endpoint_cloud"].values() for i in ids)
    uids = {(o["kind"], o["name"]): o["uid"] for o in info["objects"]}
    assert uids[("HostedControlPlane", info["name"])] == info["hcp"]["uid"]
    assert all(elb_exists(lb) for lb in info["guest_cloud"]["AWS::ElasticLoadBalancing::LoadBalancer"])
    # the guest's cloud provider made the router ELB's group, k8s-elb-<name>, tagged the cluster's, attached (HS-30)
    [lb], [group] = info["guest_cloud"]["AWS::ElasticLoadBalancing::LoadBalancer"], info["guest_cloud"]["AWS::EC2::SecurityGroup"]
    sg = _aws("ec2").describe_security_groups(GroupIds=[group])["SecurityGroups"][0]
    assert sg["GroupName"] == "k8s-elb-" + lb and {"Key": f"kubernetes.io/cluster/{infra}", "Value": "owned"} in sg["Tags"]
    assert group in _aws("elb").describe_load_balancers(LoadBalancerNames=[lb])["LoadBalancerDescriptions"][0]["SecurityGroups"]


def test_destroy_with_cleanup_follows_the_chain(dyn, core, seeded, recorder):
    info = seeded["chain"]
    check_seeded(dyn, core, info)
    hcp_ns, infra = info["hcp_namespace"], info["infra_id"]
    rec = recorder(info)
    off = audit_offset()
    destroy(dyn, info)
    rec.halt()
    assert rec.error is None, rec.error
    assert rec.snapshots > 5
    # delete requests in the order HO, CAPI and the namespace need
    deletes = audit_deletes(off)

    def first(resource, name):
        return next(i for i, d in enumerate(deletes) if d[0] == resource and d[2] == name)
    np_names = [o["name"] for o in info["objects"] if o["kind"] == "NodePool"]
    assert max(first("nodepools", n) for n in np_names) < first("clusters", infra)
    assert first("clusters", infra) < first("hostedcontrolplanes", info["name"]) < first("namespaces", hcp_ns)
    # the cleanup annotation: CPO scaled CVO down, HCCO reported and finished
    assert ("CVOScaledDown", "True", "AsExpected") in rec.hcp_conds
    assert ("CloudResourcesDestroyed", "True", "AsExpected") in rec.hcp_conds
    assert ("Deleting", "True", "WaitingForWorkersDeletion") in rec.cluster_conds
    assert ("Deleting", "True", "WaitingForInfrastructureDeletion") in rec.machine_conds
    assert ("HostedClusterDestroyed", "False", "WaitingForCAPIClusterDeletion") in rec.hc_conds
    guest = info["guest_cloud"]
    assert not any(elb_exists(lb) for lb in guest["AWS::ElasticLoadBalancing::LoadBalancer"])
    # its group after it, once the workers' rule that let it in was revoked (the chain seed has the workers' group)
    assert not any(group_exists(g) for g in guest["AWS::EC2::SecurityGroup"])
    assert not any(volume_exists(v) for v in guest["AWS::EC2::Volume"])
    buckets = {b["Name"] for b in _aws("s3").list_buckets()["Buckets"]}
    assert not buckets & set(guest["AWS::S3::Bucket"])
    # the management side's ELBs and volume went with the HCP namespace's Services and PVC
    mgmt = info["management_cloud"]
    assert not any(elb_exists(lb) for lb in mgmt["AWS::ElasticLoadBalancing::LoadBalancer"])
    assert not any(volume_exists(v) for v in mgmt["AWS::EC2::Volume"])
    # and only this cluster's: the other hosted clusters seeded beside it keep their guest and etcd volumes
    others = [v for k, o in seeded.items() if k != "chain"
              for v in o["guest_cloud"]["AWS::EC2::Volume"] + o["management_cloud"]["AWS::EC2::Volume"]]
    assert others and all(volume_exists(v) for v in others), [v for v in others if not volume_exists(v)]
    # CAPA terminated the workers; HO deleted the OIDC documents
    assert set(instance_states([m["instance_id"] for m in info["machines"]]).values()) == {"terminated"}
    assert _aws("s3").list_objects_v2(Bucket=info["oidc"]["bucket"], Prefix=info["oidc"]["prefix"]).get("KeyCount", 0) == 0
    assert _get(dyn, "v1", "Namespace", hcp_ns) is None
    # CPO deleted each AWSEndpointService's VPC endpoint, security group and records before its finalizer came off
    assert endpoint_cloud_left(info) == []


def test_without_cleanup_guest_resources_stay_and_skip_namespace_is_honoured(dyn, seeded, recorder):
    info = seeded["nocleanup"]
    rec = recorder(info)
    destroy(dyn, info)
    rec.halt()
    assert not any(c[0] == "CVOScaledDown" for c in rec.hcp_conds)
    assert ("HostedClusterDestroyed", "True", "WaitingForGracePeriod") in rec.hc_conds
    # guest cloud resources are the CLI's to remove when cleanup is off
    assert all(elb_exists(lb) for lb in info["guest_cloud"]["AWS::ElasticLoadBalancing::LoadBalancer"])
    assert all(group_exists(g) for g in info["guest_cloud"]["AWS::EC2::SecurityGroup"])
    nso = _get(dyn, "v1", "Namespace", info["hcp_namespace"])
    assert nso is not None and not nso["metadata"].get("deletionTimestamp")
    assert _get(dyn, CAPI, "Cluster", info["infra_id"], info["hcp_namespace"]) is None
    dyn.resources.get(api_version="v1", kind="Namespace").delete(name=info["hcp_namespace"])


def test_invalid_credentials_skip_guest_cleanup_and_release_endpoint_services(dyn, core, seeded, recorder):
    info = seeded["bad_creds"]
    rec = recorder(info)
    destroy(dyn, info)
    rec.halt()
    assert not any(c[0] == "CVOScaledDown" for c in rec.hcp_conds)
    assert ("ValidAWSIdentityProvider", "False", "InvalidIdentityProvider") in rec.hcp_conds
    assert all(elb_exists(lb) for lb in info["guest_cloud"]["AWS::ElasticLoadBalancing::LoadBalancer"])
    reasons = {e.reason for e in core.list_namespaced_event(
        NS, field_selector=f"involvedObject.uid={info['uid']}").items}
    assert "AWSEndpointServiceFinalizerRemoved" in reasons, reasons
    # CPO could not delete what the AWSEndpointServices named: HO dropped its finalizer, the collection's AWS pass
    # is left to find them (by the VPC)
    assert sorted(endpoint_cloud_left(info)) == sorted(i for ids in info["endpoint_cloud"].values() for i in ids)
