"""hosted-cluster: a running HyperShift HostedCluster on AWS, as the teardown seed describes it.

Kubernetes: the HostedCluster (finalizers `hypershift.openshift.io/finalizer`,
`hypershift.io/aws-oidc-discovery`), its NodePools, the HCP namespace `<ns>-<name>` (labelled as an
HCP namespace) with the HostedControlPlane, the CAPI Cluster named after the infra ID
(controlPlaneRef -> HCP, infrastructureRef -> AWSCluster), per NodePool a MachineDeployment, a
MachineSet, Machines and AWSMachines (with instance IDs), control-plane Deployments and pods (with a
nodeName and terminationGracePeriodSeconds), LoadBalancer Services backed by ELBs, a PVC backed by
an EBS volume, and AWSEndpointServices: each with the finalizers tests/sandbox/spec/hypershift.md names. In the
HostedCluster's namespace, the Secrets `create cluster` labels for the infra ID (HC-13) and a neighbour's for
`<infraID>-2`, returned as `cli_secrets`.

AWS: the worker-VPC infrastructure of the infra ID (from `aws_infra.seed` when that scenario
exists, else a VPC and a subnet made here), worker instances, the guest's cloud resources that HCCO
removes (a router ELB with the `k8s-elb-<name>` group the guest's cloud provider makes for it and deletes after
it, a PV's EBS volume, the image-registry bucket, all tagged with the infra ID),
the management side's ELBs and volume behind the HCP Services and PVC, the OIDC documents under
`<infraID>/` in the shared OIDC bucket, and what CPO makes per AWSEndpointService (HS-21: a security group,
an interface VPC endpoint in the worker VPC, a CNAME record in the private zone `<name>.hypershift.local`
made here on that VPC), named in its status and returned as `endpoint_cloud`; and what HO makes per
AWSEndpointService (HS-31: a VPC endpoint service configuration tagged `kubernetes.io/cluster/<infraID>: owned`,
backed by an internal network load balancer on the management side, which CPO's endpoint connects to), its
service name in the status and its ID returned as `endpoint_service_cloud`.

Knobs (`--knob K=V`; each is also written as `sandbox.teardown.gates/knob-K` on the HC, its NodePools
and the HCP namespace, where the twins read them; `set_knob()` changes one later):
  shape:    nodepools=N (1), replicas=N (2), infra_id=ID, region=R, aws_infra=false (only the minimum
            AWS made here even when the aws-infra scenario exists: quicker, for tests of the twins),
            zones, base_domain, oidc_bucket, faults (passed on to aws-infra)
  real annotations: cleanup_cloud_resources=true, skip_namespace_delete=true, destroy_grace_period=DUR
  timings:  grace_period=DUR (pods' terminationGracePeriodSeconds, 2s), requeue=DUR (1s),
            hcco_requeue=DUR (2s), cleanup_timeout=DUR (60s), endpoint_timeout=DUR (10m),
            nat_seconds=N (NAT gateway deleting -> deleted, through the AWS realism layer)
  failures: ho|nodepool|cpo|hcco|kubelet=down (twins), capi|capa=down (the real managers, through
            Cluster API's pause: see PAUSE_KNOBS), credentials=invalid, ho_credentials=invalid (HO's own
            AWS credentials: its endpoint controller keeps its finalizer, HS-31), cleanup=timeout,
            pod_stuck=true (kube-apiserver pods) or a pod name, instance_stuck=true (the worker
            instances stay shutting-down once terminated, until set_knob clears it)
"""
import hashlib
import importlib
import importlib.util
import json
import os
import time
import urllib.request
import uuid

from botocore.exceptions import ClientError
from kubernetes.client import ApiException

from ..twins.hostedcommon import (aws, AWSMACHINE_FINALIZER, BUCKET_ANN, CAPA, CAPI, CLEANUP_ANN,
                                  CLUSTER_FINALIZER, CLUSTER_NAME_LABEL, MACHINESET_FINALIZER, CPO_FINALIZER, ELB_ANN, GRACE_ANN,
                                  HCP_NS_LABEL, HO_ENDPOINT_FINALIZER, HO_FINALIZER, HS, LB_FINALIZER, MACHINE_FINALIZER, NODEPOOL_ANN,
                                  OIDC_FINALIZER, PVC_FINALIZER, SKIP_NS_ANN, VOLUME_ANN, parse_duration)
from ..procs import SandboxError
from ..realism import HOLD_TAG
from .common import core_v1, ensure_namespace, kube

KNOB = "sandbox.teardown.gates/knob-"
OIDC_BUCKET = "sandbox-hypershift-oidc"
MGMT_TAG = "kubernetes.io/cluster/sandbox-management"
RELEASE = "quay.io/openshift-release-dev/ocp-release:4.18.0-multi"
HO_IMAGE = "quay.io/hypershift/hypershift-operator:sandbox"
CPO_IMAGE = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:" + "0" * 64
SEED_ONLY = {"nodepools", "replicas", "infra_id", "region", "aws_infra"}
# the CLI's label on the Secrets `hypershift create cluster` made, value the infra ID (HC-13)
AUTO_INFRA_LABEL = "hypershift.openshift.io/auto-created-for-infra"
# passed on to the aws-infra scenario when it exists
AWS_INFRA_KNOBS = ("zones", "base_domain", "oidc_bucket", "faults", "shared_role", "nat_deleting_seconds",
                   "instance_shutting_down_seconds", "elb_eni_linger_seconds")


def _h(*parts, n=8):
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


def _tags(d):
    return [{"Key": k, "Value": v} for k, v in d.items()]


class _Seeder:
    def __init__(self, name, namespace, knobs):
        self.name, self.ns, self.knobs = name, namespace, knobs
        self.hcp_ns = f"{namespace}-{name}"
        self.infra = knobs.get("infra_id") or f"{name}-{uuid.uuid4().hex[:5]}"
        self.region = knobs.get("region") or os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
        self.dyn = kube()
        self.objects = []
        self.cluster_tag = f"kubernetes.io/cluster/{self.infra}"

    # -- kubernetes --------------------------------------------------------------------------
    def create(self, api_version, kind, body, status=None):
        api = self.dyn.resources.get(api_version=api_version, kind=kind)
        body = dict(body, apiVersion=api_version, kind=kind)
        ns = body["metadata"].get("namespace")
        obj = api.create(body=body, namespace=ns).to_dict()
        if status:
            obj["status"] = status
            obj = api.status.replace(body=obj, namespace=ns).to_dict()
        md = obj["metadata"]
        self.objects.append({"apiVersion": api_version, "kind": kind, "name": md["name"], "namespace": md.get("namespace"),
                             "uid": md["uid"], "finalizers": md.get("finalizers") or []})
        return obj

    def wait_for_managers(self, hcp_ns, infra, n_machines, timeout=120.0, kinds=None):
        """The upstream managers put their finalizers on what they own once they have reconciled it (CAPA
        only after the Cluster's infrastructure is provisioned and the instance is found). Wait for
        that, so that the seeded cluster is the running cluster the scenario promises, then record the
        finalizers the managers wrote. ``kinds``: wait for these kinds only."""
        want = {("Cluster", CLUSTER_FINALIZER): 1, ("MachineSet", MACHINESET_FINALIZER): None,
                ("Machine", MACHINE_FINALIZER): n_machines, ("AWSMachine", AWSMACHINE_FINALIZER): n_machines}
        want = dict((k, v) for k, v in want.items() if kinds is None or k[0] in kinds)
        deadline = time.monotonic() + timeout
        missing = []
        while True:
            missing = []
            for (kind, fin), count in want.items():
                objs = self.dyn.resources.get(api_version=CAPA if kind.startswith("AWS") else CAPI, kind=kind).get(
                    namespace=hcp_ns).to_dict()["items"]
                have = [o for o in objs if fin in (o["metadata"].get("finalizers") or [])]
                expected = count if count is not None else len(objs)
                # no Machines is what replicas=0 asks for; a kind with a count to reach must be there
                if len(have) < expected or (not objs and count != 0):
                    missing.append(f"{kind} ({len(have)}/{expected} with {fin})")
                for o in objs:
                    for rec in self.objects:
                        if rec["uid"] == o["metadata"]["uid"]:
                            rec["finalizers"] = o["metadata"].get("finalizers") or []
            if not missing:
                return
            if time.monotonic() > deadline:
                raise SandboxError(f"the CAPI/CAPA managers did not take over {hcp_ns}/{infra} in {timeout:.0f} s: "
                                   f"{', '.join(missing)}; see .sandbox/logs/capi-manager.log and capa-manager.log")
            time.sleep(0.5)

    def knob_annotations(self):
        return {KNOB + k: str(v) for k, v in self.knobs.items() if k not in SEED_ONLY}

    # -- aws ---------------------------------------------------------------------------------
    def aws_infra(self, workers):
        """The worker-VPC infrastructure: the aws-infra scenario's when it exists, else a minimum
        made here (VPC, private subnet, worker instances). Returns what the rest of the seed uses."""
        mod = None
        wanted = str(self.knobs.get("aws_infra", "true")).lower() not in ("false", "0", "no", "minimal")
        if wanted and importlib.util.find_spec(f"{__package__}.aws_infra") is not None:
            mod = importlib.import_module(f"{__package__}.aws_infra")
        net = {"source": "aws_infra" if mod else "hosted_cluster", "result": None, "oidc_bucket": None,
               "router_elb": None, "registry_buckets": []}
        if mod is not None:
            fwd = {k: v for k, v in self.knobs.items() if k in AWS_INFRA_KNOBS}
            if "nat_seconds" in self.knobs:
                fwd["nat_deleting_seconds"] = self.knobs["nat_seconds"]
            fwd.pop("nat_seconds", None)
            fwd["workers"] = str(workers)
            fwd["cluster_name"] = self.name  # the *.apps record is named after the HostedCluster
            res = mod.seed(name=self.infra, namespace=None, knobs=fwd)
            ids = res["aws"]
            az = sorted(res["details"]["subnets"])[0]
            net.update(result=res, vpc=ids["AWS::EC2::VPC"][0], az=az, subnet=res["details"]["subnets"][az]["private"],
                       instances=list(ids["AWS::EC2::Instance"])[:workers], oidc_bucket=res.get("oidc_bucket"),
                       registry_buckets=list(ids.get("AWS::S3::Bucket", [])))
            elbs = ids.get("AWS::ElasticLoadBalancing::LoadBalancer", [])
            if elbs:
                # the router's ELB is the guest ingress Service's: the guest cloud provider tags it so
                aws("elb").add_tags(LoadBalancerNames=[elbs[0]], Tags=[
                    {"Key": "kubernetes.io/service-name", "Value": "openshift-ingress/router-default"}])
                net["router_elb"] = elbs[0]
            return net
        ec2 = aws("ec2")
        net["vpc"] = ec2.create_vpc(CidrBlock="10.0.0.0/16", TagSpecifications=[{"ResourceType": "vpc", "Tags": _tags(
            {self.cluster_tag: "owned", "Name": f"{self.infra}-vpc"})}])["Vpc"]["VpcId"]
        net["az"] = az = self.region + "a"
        net["subnet"] = ec2.create_subnet(VpcId=net["vpc"], CidrBlock="10.0.128.0/20", AvailabilityZone=az, TagSpecifications=[{
            "ResourceType": "subnet", "Tags": _tags({self.cluster_tag: "owned",
                                                     "Name": f"{self.infra}-private-{az}"})}])["Subnet"]["SubnetId"]
        if self.knobs.get("nat_seconds") not in (None, ""):
            self._realism_knob("nat_deleting_seconds", float(self.knobs["nat_seconds"]))
        r = ec2.run_instances(ImageId="ami-12c6146b", MinCount=workers, MaxCount=workers, InstanceType="m5.large",
                              SubnetId=net["subnet"], TagSpecifications=[{"ResourceType": "instance", "Tags": _tags({
                                  self.cluster_tag: "owned", "Name": f"{self.infra}-worker"})}])
        net["instances"] = [i["InstanceId"] for i in r["Instances"]]
        return net

    def _realism_knob(self, key, value):
        url = os.environ.get("SANDBOX_AWS_CONTROL")
        if not url:
            return
        req = urllib.request.Request(url + "/realism/knobs", data=json.dumps({key: value}).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(req, timeout=5).read()
        except OSError:
            pass

    def elb(self, name, tags, subnet=None, groups=None):
        elb = aws("elb")
        kw = {"Subnets": [subnet]} if subnet else {"AvailabilityZones": [self.region + "a"]}
        if groups:
            kw["SecurityGroups"] = list(groups)
        dns = elb.create_load_balancer(LoadBalancerName=name, Listeners=[{
            "Protocol": "TCP", "LoadBalancerPort": 443, "InstanceProtocol": "TCP", "InstancePort": 443}],
            Tags=_tags(tags), **kw)["DNSName"]
        return dns

    def elb_group(self, vpc, lb, service):
        """The group the guest's cloud provider makes for a classic ELB of a Service (cloud-provider-aws@63ec440
        pkg/providers/v1/aws.go:2008-2010 buildELBSecurityGroupList, :1555-1636 ensureSecurityGroup): named
        k8s-elb-<load balancer name>, tagged the cluster's (owned), open on the listener's port."""
        ec2 = aws("ec2")
        gid = ec2.create_security_group(
            GroupName=f"k8s-elb-{lb}", Description=f"Security group for Kubernetes ELB {lb} ({service})", VpcId=vpc,
            TagSpecifications=[{"ResourceType": "security-group", "Tags": _tags({self.cluster_tag: "owned"})}])["GroupId"]
        ec2.authorize_security_group_ingress(GroupId=gid, IpPermissions=[
            {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}])
        return gid

    def volume(self, az, tags):
        return aws("ec2").create_volume(AvailabilityZone=az, Size=8, VolumeType="gp3", TagSpecifications=[{
            "ResourceType": "volume", "Tags": _tags(tags)}])["VolumeId"]


def seed(name=None, namespace=None, knobs=None):
    name = name or "hc-" + uuid.uuid4().hex[:6]
    namespace = namespace or "clusters"
    knobs = dict(knobs or {})
    s = _Seeder(name, namespace, knobs)
    hc_api = s.dyn.resources.get(api_version=HS, kind="HostedCluster")
    try:
        hc_api.get(name=name, namespace=namespace)
        raise SandboxError(f"HostedCluster {namespace}/{name} already exists: seed another --name")
    except ApiException as e:
        if e.status != 404:
            raise
    infra, hcp_ns, region = s.infra, s.hcp_ns, s.region
    nodepools = int(knobs.get("nodepools", 1))
    replicas = int(knobs.get("replicas", 2))
    grace = int(parse_duration(knobs.get("grace_period"), 2))
    creds_ok = str(knobs.get("credentials", "valid")).lower() != "invalid"
    knob_ann = s.knob_annotations()

    # ---- AWS -----------------------------------------------------------------------------------
    net = s.aws_infra(nodepools * replicas)
    instance_ids = net["instances"]
    if str(knobs.get("instance_stuck", "")).lower() == "true":
        aws("ec2").create_tags(Resources=instance_ids, Tags=[{"Key": HOLD_TAG, "Value": "true"}])
    placement = {i["InstanceId"]: i["Placement"]["AvailabilityZone"] for r in aws("ec2").describe_instances(
        InstanceIds=instance_ids)["Reservations"] for i in r["Instances"]}
    s3 = aws("s3")
    # the guest's router ELB, with the group the guest's cloud provider makes for it (HS-30)
    router_svc = "openshift-ingress/router-default"
    if net["router_elb"]:
        guest_elb = net["router_elb"]
        guest_group = s.elb_group(net["vpc"], guest_elb, router_svc)
        elb_api = aws("elb")
        had = elb_api.describe_load_balancers(LoadBalancerNames=[guest_elb])["LoadBalancerDescriptions"][0]
        elb_api.apply_security_groups_to_load_balancer(LoadBalancerName=guest_elb, SecurityGroups=list(
            had.get("SecurityGroups") or []) + [guest_group])
        # the workers' group lets the load balancer's group in (aws.go:2980-3099
        # updateInstanceSecurityGroupsForLoadBalancer): a rule the cloud provider revokes before deleting the group
        worker = ((net["result"].get("details") or {}).get("security_groups") or {}).get("worker")
        if worker:
            aws("ec2").authorize_security_group_ingress(GroupId=worker, IpPermissions=[
                {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": guest_group}]}])
    else:
        guest_elb = "a" + _h(infra, "router-default", n=31)
        guest_group = s.elb_group(net["vpc"], guest_elb, router_svc)
        s.elb(guest_elb, {s.cluster_tag: "owned", "kubernetes.io/service-name": router_svc}, subnet=net["subnet"],
              groups=[guest_group])
    guest_volume = s.volume(net["az"], {s.cluster_tag: "owned", "kubernetes.io/created-for/pvc/name": "prometheus-data-0",
                                        "kubernetes.io/created-for/pvc/namespace": "openshift-monitoring"})
    registry_buckets = net["registry_buckets"]
    if not registry_buckets:
        registry_buckets = [f"{infra}-image-registry-{region}-{_h(infra, 'registry', n=12)}"[:63]]
        s3.create_bucket(Bucket=registry_buckets[0])
        s3.put_object(Bucket=registry_buckets[0], Key="docker/registry/v2/blobs/sha256/00/data", Body=b"layer")
    oidc_bucket = net["oidc_bucket"] or OIDC_BUCKET
    oidc_keys = [f"{infra}/.well-known/openid-configuration", f"{infra}/openid/v1/jwks"]
    if not net["oidc_bucket"]:
        try:
            s3.create_bucket(Bucket=oidc_bucket)
        except ClientError as e:
            if e.response["Error"]["Code"] not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                raise
        for k in oidc_keys:
            s3.put_object(Bucket=oidc_bucket, Key=k, Body=b"{}")
    mgmt_elbs = {}
    for svc in ("kube-apiserver", "router"):
        lb = _h(hcp_ns, svc, infra, n=32)
        mgmt_elbs[svc] = (lb, s.elb(lb, {MGMT_TAG: "owned", "kubernetes.io/service-name": f"{hcp_ns}/{svc}"}))
    etcd_volume = s.volume(region + "a", {MGMT_TAG: "owned", "kubernetes.io/created-for/pvc/name": "data-etcd-0",
                                          "kubernetes.io/created-for/pvc/namespace": hcp_ns})

    # ---- HostedCluster and NodePools ------------------------------------------------------------
    ensure_namespace(namespace)
    hc_ann = dict(knob_ann, **{BUCKET_ANN: oidc_bucket})
    if str(knobs.get("cleanup_cloud_resources", "")).lower() == "true":
        hc_ann[CLEANUP_ANN] = "true"
    if str(knobs.get("skip_namespace_delete", "")).lower() == "true":
        hc_ann[SKIP_NS_ANN] = "true"
    if knobs.get("destroy_grace_period"):
        hc_ann[GRACE_ANN] = knobs["destroy_grace_period"]
    ready = lambda t, ok=True, reason="AsExpected", msg="": (  # noqa: E731
        {"type": t, "status": "True" if ok else "False", "reason": reason, "message": msg,
         "lastTransitionTime": "2026-01-01T00:00:00Z"})
    idp = ready("ValidAWSIdentityProvider") if creds_ok else ready(
        "ValidAWSIdentityProvider", False, "InvalidIdentityProvider",
        "InvalidClientTokenId: The security token included in the request is invalid.")
    platform = {"type": "AWS", "aws": {"region": region, "cloudProviderConfig": {
        "vpc": net["vpc"], "subnet": {"id": net["subnet"]}, "zone": net["az"]}}}
    hc = s.create(HS, "HostedCluster", {
        "metadata": {"name": name, "namespace": namespace, "finalizers": [HO_FINALIZER, OIDC_FINALIZER],
                     "annotations": hc_ann},
        "spec": {"infraID": infra, "clusterID": str(uuid.uuid4()), "release": {"image": RELEASE},
                 "platform": platform, "issuerURL": f"https://{oidc_bucket}.s3.{region}.amazonaws.com/{infra}",
                 # the public zone that holds the guest's *.apps record (the destroy command deletes it)
                 "dns": {"baseDomain": (net["result"] or {}).get("base_domain") or knobs.get("base_domain")
                         or "sandbox.example.com"}}},
        status={"conditions": [ready("Available"), ready("Progressing", False), idp],
                "version": {"desired": {"image": RELEASE}}, "controlPlaneEndpoint": {
                    "host": mgmt_elbs["kube-apiserver"][1], "port": 6443}})
    zones = [region + z for z in "abcdef"]
    nps = []
    for i in range(nodepools):
        nps.append(s.create(HS, "NodePool", {
            "metadata": {"name": f"{name}-{zones[i % 6]}" + (f"-{i}" if i >= 6 else ""), "namespace": namespace,
                         "finalizers": [HO_FINALIZER], "annotations": dict(knob_ann)},
            "spec": {"clusterName": name, "replicas": replicas, "release": {"image": RELEASE},
                     "platform": {"type": "AWS", "aws": {"instanceType": "m5.large", "subnet": {"id": net["subnet"]}}}}},
            status={"replicas": replicas, "conditions": [ready("Ready")]}))
    cli_secrets = _cli_secrets(name, namespace, infra)

    # ---- HCP namespace ---------------------------------------------------------------------------
    v1 = core_v1()
    v1.create_namespace({"metadata": {"name": hcp_ns, "labels": {HCP_NS_LABEL: "true"},
                                      "annotations": dict(knob_ann)}})
    ns_obj = v1.read_namespace(hcp_ns)
    s.objects.append({"apiVersion": "v1", "kind": "Namespace", "name": hcp_ns, "namespace": None,
                      "uid": ns_obj.metadata.uid, "finalizers": ns_obj.spec.finalizers or []})
    hcp_ann = {CLEANUP_ANN: "true"} if hc_ann.get(CLEANUP_ANN) == "true" else {}
    hcp = s.create(HS, "HostedControlPlane", {
        "metadata": {"name": name, "namespace": hcp_ns, "finalizers": [HO_FINALIZER], "annotations": hcp_ann},
        "spec": {"infraID": infra, "releaseImage": RELEASE, "platform": platform}},
        status={"conditions": [ready("Available"), idp], "ready": True})
    # ---- Cluster API objects, as HyperShift writes them; the real CAPI and CAPA managers reconcile them
    endpoint = {"host": mgmt_elbs["kube-apiserver"][1], "port": 6443}
    # HO: reconcileAWSCluster (hostedcluster/internal/platform/aws/aws.go): externally managed, so CAPA
    # never reconciles it (and puts no finalizer on it); HO sets its status. Named after the HostedCluster, not the
    # infra ID (openshift/hypershift@3ee9615 aws.go:74-78)
    s.create(CAPA, "AWSCluster", {
        "metadata": {"name": name, "namespace": hcp_ns, "annotations": {"cluster.x-k8s.io/managed-by": "external"}},
        "spec": {"region": region, "controlPlaneEndpoint": endpoint, "network": {"vpc": {"id": net["vpc"]}}}},
        status={"ready": True})
    # HO: reconcileCAPICluster: the Cluster is named after the infra ID
    cluster = s.create(CAPI, "Cluster", {
        "metadata": {"name": infra, "namespace": hcp_ns},
        "spec": {"controlPlaneEndpoint": endpoint,
                 "controlPlaneRef": {"apiVersion": HS, "kind": "HostedControlPlane", "name": name, "namespace": hcp_ns},
                 "infrastructureRef": {"apiVersion": CAPA, "kind": "AWSCluster", "name": name, "namespace": hcp_ns}}})

    # ---- workers: per NodePool a MachineSet (NodePool upgradeType InPlace: nodepool/capi.go
    # reconcileMachineSet) of Machines whose AWSMachines adopt the seeded instances
    machines, machinesets = [], []
    it = iter(instance_ids)
    for np in nps:
        npn = np["metadata"]["name"]
        np_ann = {NODEPOOL_ANN: f"{namespace}/{npn}"}
        resources = f"{name}-{npn}"  # nodepool/capi.go generateName: the selector's label key and value
        labels = {CLUSTER_NAME_LABEL: infra}
        tmpl = f"{npn}-{_h(npn, infra, n=8)}"
        user_data = f"user-data-{npn}-{_h(npn, 'ud', n=8)}"
        s.create("v1", "Secret", {"metadata": {"name": user_data, "namespace": hcp_ns, "annotations": np_ann},
                                  "type": "Opaque", "data": {"value": "e30="}})
        s.create(CAPA, "AWSMachineTemplate", {
            "metadata": {"name": tmpl, "namespace": hcp_ns, "annotations": np_ann},
            "spec": {"template": {"spec": {"instanceType": "m5.large", "ami": {"id": "ami-0123456789abcdef0"},
                                           "subnet": {"id": net["subnet"]}}}}})
        machine_spec = {"clusterName": infra, "bootstrap": {"dataSecretName": user_data}, "version": "v1.31.0",
                        "infrastructureRef": {"apiVersion": CAPA, "kind": "AWSMachineTemplate", "name": tmpl,
                                              "namespace": hcp_ns}}
        msn = f"{npn}-{_h(npn, infra, n=5)}"
        # made paused (Cluster API's pause contract): a MachineSet that reconciled before its seeded Machines were in
        # CAPI's cache scaled up from its template, then down, deleting a seeded Machine whose AWSMachine CAPI's cache
        # did not show yet; the Machine went at once, and its AWSMachine stayed, held by CAPA's finalizer for good
        # (CAPA reconciles an AWSMachine only through its Machine; chaos seed 42000, 2026-12-05). Unpaused below
        ms = s.create(CAPI, "MachineSet", {
            "metadata": {"name": msn, "namespace": hcp_ns, "labels": dict(labels),
                         "annotations": dict(np_ann, **{PAUSED_ANN: ""})},
            "spec": {"clusterName": infra, "replicas": replicas,
                     "selector": {"matchLabels": {resources: resources}},
                     "template": {"metadata": {"labels": {resources: resources, CLUSTER_NAME_LABEL: infra},
                                               "annotations": dict(np_ann)},
                                  "spec": machine_spec}}})
        for r in range(replicas):
            iid = next(it)
            mname = f"{msn}-{_h(msn, str(r), n=5)}"
            provider = f"aws:///{placement.get(iid, net['az'])}/{iid}"
            m = s.create(CAPI, "Machine", {
                "metadata": {"name": mname, "namespace": hcp_ns,
                             "labels": {resources: resources, CLUSTER_NAME_LABEL: infra,
                                        "cluster.x-k8s.io/set-name": msn},
                             "annotations": dict(np_ann), "ownerReferences": [_owner(ms)]},
                "spec": dict(machine_spec, providerID=provider, infrastructureRef={
                    "apiVersion": CAPA, "kind": "AWSMachine", "name": mname, "namespace": hcp_ns})})
            s.create(CAPA, "AWSMachine", {
                "metadata": {"name": mname, "namespace": hcp_ns, "labels": dict(labels), "annotations": np_ann,
                             "ownerReferences": [_owner(m)]},
                "spec": {"instanceID": iid, "providerID": provider, "instanceType": "m5.large",
                         "ami": {"id": "ami-0123456789abcdef0"}, "subnet": {"id": net["subnet"]}}})
            machines.append({"machine": mname, "instance_id": iid})
        machinesets.append(msn)
    # every seeded Machine reconciled (its finalizer on): CAPI's cache holds them, so the MachineSets, unpaused, count
    # them and create or delete none
    s.wait_for_managers(hcp_ns, infra, len(machines), kinds=("Machine",))
    ms_api = s.dyn.resources.get(api_version=CAPI, kind="MachineSet")
    for msn in machinesets:
        _merge_patch_retrying(ms_api, msn, hcp_ns, {"metadata": {"annotations": {PAUSED_ANN: None}}}, missing_ok=False)
    s.wait_for_managers(hcp_ns, infra, len(machines))
    for key in PAUSE_KNOBS:
        if knobs.get(key):
            _pause(s.dyn, hcp_ns, key, knobs[key])

    # ---- control-plane workloads -----------------------------------------------------------------
    apps = ["kube-apiserver", "etcd", "cluster-version-operator", "control-plane-operator",
            "hosted-cluster-config-operator"]
    # the sandbox runs no Deployment controller: the status is the one a running operator's Deployment shows, and a
    # twin that is down (cpo, hcco) shows as a crashed one does, no replica ready (spec/hypershift.md, Knobs)
    twin_of = {"control-plane-operator": "cpo", "hosted-cluster-config-operator": "hcco"}
    for app in apps:
        if app == "etcd":
            continue
        ready = 0 if str(knobs.get(twin_of.get(app, ""), "")).lower() == "down" else 1
        s.create("apps/v1", "Deployment", {"metadata": {"name": app, "namespace": hcp_ns, "labels": {"app": app}},
                                           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": app}},
                                                    "template": {"metadata": {"labels": {"app": app}},
                                                                 "spec": {"containers": [{"name": app, "image": CPO_IMAGE}]}}}},
                 status={"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": ready,
                         "availableReplicas": ready, "unavailableReplicas": 1 - ready})
    s.create("v1", "PersistentVolumeClaim", {
        "metadata": {"name": "data-etcd-0", "namespace": hcp_ns, "annotations": {VOLUME_ANN: etcd_volume}},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3-csi", "resources": {"requests": {"storage": "8Gi"}}}})
    _ensure_finalizer(v1, hcp_ns, "data-etcd-0")
    pods = []
    for i, app in enumerate(apps):
        pname = "etcd-0" if app == "etcd" else f"{app}-{_h(hcp_ns, app, n=10)}-{_h(app, n=5)}"
        spec = {"nodeName": f"mgmt-worker-{i % 3}", "terminationGracePeriodSeconds": grace,
                "containers": [{"name": app, "image": CPO_IMAGE}]}
        if app == "etcd":
            spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data-etcd-0"}}]
        p = s.create("v1", "Pod", {"metadata": {"name": pname, "namespace": hcp_ns, "labels": {"app": app}}, "spec": spec})
        try:
            v1.patch_namespaced_pod_status(pname, hcp_ns, {"status": {"phase": "Running"}})
        except ApiException:
            pass
        pods.append(p["metadata"]["name"])
    for svc, (lb, dns) in mgmt_elbs.items():
        port = 6443 if svc == "kube-apiserver" else 443
        s.create("v1", "Service", {
            "metadata": {"name": svc, "namespace": hcp_ns, "finalizers": [LB_FINALIZER], "annotations": {ELB_ANN: lb}},
            "spec": {"type": "LoadBalancer", "selector": {"app": svc}, "ports": [{"port": port, "targetPort": port}]}})
        v1.patch_namespaced_service_status(svc, hcp_ns, {"status": {"loadBalancer": {"ingress": [{"hostname": dns}]}}})
    s.create("v1", "Service", {"metadata": {"name": "etcd-client", "namespace": hcp_ns},
                               "spec": {"selector": {"app": "etcd"}, "ports": [{"port": 2379}]}})
    # CPO's AWSEndpointService controller (HS-21) made, per AWSEndpointService, a security group, an interface VPC
    # endpoint in the guest's VPC and the CNAME records of its names in the private zone <hcp name>.hypershift.local,
    # and wrote their IDs in its status; on deletion it deletes them by those IDs before its finalizer comes off
    # and HO's (HS-31) made the VPC endpoint service configuration those endpoints connect to, behind the internal
    # NLB the management side made for the Service, and wrote its service name in the status
    endpoint_services = _endpoint_services(s, infra, region)
    endpoint_cloud = _endpoint_cloud(s, name, infra, region, net, endpoint_services)
    for ep in ENDPOINT_RECORDS:
        s.create(HS, "AWSEndpointService", {
            "metadata": {"name": ep, "namespace": hcp_ns, "finalizers": [CPO_FINALIZER, HO_ENDPOINT_FINALIZER]},
            "spec": {"networkLoadBalancerName": endpoint_services[ep]["nlb_name"],
                     "resourceTags": [{"key": s.cluster_tag, "value": "owned"}]}},
            status=dict(endpoint_cloud["status"][ep], endpointServiceName=endpoint_services[ep]["service_name"]))

    return {
        "scenario": "hosted-cluster", "name": name, "namespace": namespace, "hcp_namespace": hcp_ns,
        "infra_id": infra, "region": region, "uid": hc["metadata"]["uid"], "knobs": knobs,
        "release_image": RELEASE, "operator_images": {"hypershift-operator": HO_IMAGE, "control-plane-operator": CPO_IMAGE},
        "capi_cluster": {"name": cluster["metadata"]["name"], "namespace": hcp_ns, "uid": cluster["metadata"]["uid"]},
        "hcp": {"name": hcp["metadata"]["name"], "namespace": hcp_ns, "uid": hcp["metadata"]["uid"]},
        "machines": machines, "pods": pods,
        # the Secrets `create cluster` made for this infra ID (destroy deletes them), and a neighbour's that stays
        "cli_secrets": cli_secrets,
        "objects": s.objects,
        # the worker-VPC infrastructure by CloudFormation type (all of aws-infra's when it made it)
        "aws": dict(net["result"]["aws"], **{"AWS::Route53::HostedZone": sorted(
            set(net["result"]["aws"].get("AWS::Route53::HostedZone", [])) | {endpoint_cloud["zone"]})})
        if net["result"] else {
            "AWS::EC2::VPC": [net["vpc"]], "AWS::EC2::Subnet": [net["subnet"]], "AWS::EC2::Instance": instance_ids,
            "AWS::Route53::HostedZone": [endpoint_cloud["zone"]]},
        "aws_source": net["source"],
        "aws_infra": net["result"],
        "guest_cloud": {
            "AWS::ElasticLoadBalancing::LoadBalancer": [guest_elb], "AWS::EC2::SecurityGroup": [guest_group],
            "AWS::EC2::Volume": [guest_volume], "AWS::S3::Bucket": registry_buckets},
        "management_cloud": {
            "AWS::ElasticLoadBalancing::LoadBalancer": [lb for lb, _ in mgmt_elbs.values()],
            "dns": {svc: dns for svc, (_, dns) in mgmt_elbs.items()},
            "AWS::EC2::Volume": [etcd_volume]},
        "oidc": {"bucket": oidc_bucket, "prefix": f"{infra}/", "keys": oidc_keys},
        # what CPO deletes on an AWSEndpointService's deletion (its status names them); the private zone that
        # holds the records is the infrastructure's (the CLI's), in "aws"
        "endpoint_cloud": endpoint_cloud["ids"],
        # what HO deletes on an AWSEndpointService's deletion (HS-31: the configuration its endpointServiceName
        # names); the NLB behind it is the management side's, whose cloud provider deletes it with the Service
        "endpoint_service_cloud": {
            "AWS::EC2::VPCEndpointService": sorted(e["service_id"] for e in endpoint_services.values()),
            "nlbs": sorted(e["nlb_arn"] for e in endpoint_services.values())},
    }


def _cli_secrets(name, namespace, infra):
    """The Secrets `hypershift create cluster` made in the HostedCluster's namespace (cmd/cluster/core/create.go: the
    pull secret :280 and the SSH key :461, each labelled AUTO_INFRA_LABEL=<infraID> at :641), which `destroy cluster`
    deletes by that label (destroy.go:202-215); and a neighbour's, labelled for the infra ID <infraID>-2, which it must
    not touch (an equality selector; a prefix would take it). Not in the seed's ``objects``: the neighbour stays."""
    v1 = core_v1()
    made = {"pull-secret": ("kubernetes.io/dockerconfigjson", {".dockerconfigjson": "eyJhdXRocyI6e319"}),
            "ssh-key": ("Opaque", {"id_rsa.pub": "c3NoLXJzYSBBQUFBQg=="})}

    def secret(sname, infra_id, kind):
        stype, data = made[kind]
        v1.create_namespaced_secret(namespace, {"metadata": {"name": sname, "labels": {AUTO_INFRA_LABEL: infra_id}},
                                                "type": stype, "data": data})
        return sname

    return {"label": AUTO_INFRA_LABEL, "names": [secret(f"{name}-{kind}", infra, kind) for kind in sorted(made)],
            "neighbour": {"name": secret(f"{name}-neighbour-pull-secret", f"{infra}-2", "pull-secret"),
                          "infra_id": f"{infra}-2"}}


ENDPOINT_RECORDS = {"kube-apiserver-private": "api", "private-router": "*.apps"}  # PL-CTRL recordsForService


def _endpoint_services(s, infra, region):
    """Per AWSEndpointService what HO made in AWS (hypershift-operator/controllers/platform/aws/controller.go:506-600,
    ensureVpcEndpointService): a VPC endpoint service configuration, acceptance not required, backed by the
    internal NLB of the HCP's private Service (made by the management cluster's cloud provider, so tagged as the
    management cluster's, in its default VPC), tagged with the AWSEndpointService's resourceTags - which hold
    kubernetes.io/cluster/<infraID>: owned (hostedcluster_controller.go:5050-5075) - and the management
    cluster's own tag (:562-569). Returns {ep: {nlb_name, nlb_arn, service_id, service_name}}."""
    ec2, elbv2 = aws("ec2"), aws("elbv2")
    default = [sn["SubnetId"] for sn in ec2.describe_subnets(
        Filters=[{"Name": "default-for-az", "Values": ["true"]}])["Subnets"]][:1]
    out = {}
    for ep in ENDPOINT_RECORDS:
        nlb_name = f"{infra}-{ep}"[:32]
        arn = elbv2.create_load_balancer(Name=nlb_name, Scheme="internal", Type="network", Subnets=default,
                                         Tags=_tags({MGMT_TAG: "owned"}))["LoadBalancers"][0]["LoadBalancerArn"]
        sc = ec2.create_vpc_endpoint_service_configuration(
            AcceptanceRequired=False, NetworkLoadBalancerArns=[arn], TagSpecifications=[{
                "ResourceType": "vpc-endpoint-service", "Tags": _tags({s.cluster_tag: "owned", MGMT_TAG: "owned"})}]
        )["ServiceConfiguration"]
        out[ep] = {"nlb_name": nlb_name, "nlb_arn": arn, "service_id": sc["ServiceId"],
                   "service_name": sc["ServiceName"]}
    return out


def _endpoint_cloud(s, name, infra, region, net, endpoint_services):
    """Per AWSEndpointService what CPO made in AWS (PL-CTRL reconcileAWSEndpointService): its status fields
    (endpointID, securityGroupID, dnsNames, dnsZoneID) and the IDs by type, with the private zone's ID. Each
    interface endpoint is of HO's configuration (``endpoint_services``), so connected to it."""
    ec2, r53 = aws("ec2"), aws("route53")
    zone_name = f"{name}.hypershift.local"  # PL-CTRL zoneName(hcp name)
    zone = r53.create_hosted_zone(Name=zone_name, CallerReference=str(uuid.uuid4()),
                                  VPC={"VPCRegion": region, "VPCId": net["vpc"]},
                                  HostedZoneConfig={"PrivateZone": True, "Comment": infra})["HostedZone"]["Id"].split("/")[-1]
    out = {"zone": zone, "status": {}, "ids": {"AWS::EC2::VPCEndpoint": [], "AWS::EC2::SecurityGroup": [],
                                                "AWS::Route53::RecordSet": []}}
    for ep, record in ENDPOINT_RECORDS.items():
        sg = ec2.create_security_group(GroupName=f"{infra}-vpce-{ep}", Description=f"VPC endpoint {ep}", VpcId=net["vpc"],
                                       TagSpecifications=[{"ResourceType": "security-group", "Tags": _tags({
                                           s.cluster_tag: "owned", "Name": f"{infra}-vpce-{ep}"})}])["GroupId"]
        vpce = ec2.create_vpc_endpoint(VpcId=net["vpc"], VpcEndpointType="Interface", SubnetIds=[net["subnet"]],
                                       SecurityGroupIds=[sg],
                                       ServiceName=endpoint_services[ep]["service_name"],
                                       TagSpecifications=[{"ResourceType": "vpc-endpoint", "Tags": _tags({
                                           s.cluster_tag: "owned", "Name": f"{infra}-{ep}"})}])["VpcEndpoint"]["VpcEndpointId"]
        fqdn = f"{record}.{zone_name}"
        r53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [
            {"Action": "CREATE", "ResourceRecordSet": {"Name": fqdn, "Type": "CNAME", "TTL": 300, "ResourceRecords": [
                {"Value": f"{vpce}-{_h(vpce, n=8)}.vpce-svc.{region}.vpce.amazonaws.com"}]}}]})
        listed = r53.list_resource_record_sets(HostedZoneId=zone, StartRecordName=fqdn, StartRecordType="CNAME",
                                               MaxItems="1")["ResourceRecordSets"][0]["Name"]  # as Route 53 spells it
        out["status"][ep] = {"endpointID": vpce, "securityGroupID": sg, "dnsNames": [fqdn], "dnsZoneID": zone}
        out["ids"]["AWS::EC2::VPCEndpoint"].append(vpce)
        out["ids"]["AWS::EC2::SecurityGroup"].append(sg)
        out["ids"]["AWS::Route53::RecordSet"].append(f"{zone}/{listed}/CNAME")
    return out


def _owner(obj):
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}


def _ensure_finalizer(v1, ns, pvc):
    """The StorageObjectInUseProtection admission plugin adds pvc-protection; make sure of it."""
    cur = v1.read_namespaced_persistent_volume_claim(pvc, ns)
    if PVC_FINALIZER not in (cur.metadata.finalizers or []):
        v1.patch_namespaced_persistent_volume_claim(pvc, ns, {"metadata": {"finalizers": (cur.metadata.finalizers or []) + [PVC_FINALIZER]}})


# A manager shared by every cluster of the sandbox cannot be stopped for one of them: `capi=down` and
# `capa=down` are played with Cluster API's own pause contract, which both managers honour (a paused
# Cluster stops CAPI's and CAPA's controllers for it; the paused annotation on an AWSMachine stops
# CAPA's alone), so the gates see the owner make no progress, as they would with the manager down.
PAUSE_KNOBS = ("capi", "capa")
PAUSED_ANN = "cluster.x-k8s.io/paused"


def _pause(dyn, hcp_ns, key, value):
    on = str(value or "").lower() in ("down", "true", "stopped")
    if key == "capi":
        targets, patch = [(CAPI, "Cluster")], {"spec": {"paused": on}}
    else:
        targets, patch = [(CAPA, "AWSMachine")], {"metadata": {"annotations": {PAUSED_ANN: "" if on else None}}}
    for av, kind in targets:
        api = dyn.resources.get(api_version=av, kind=kind)
        for o in api.get(namespace=hcp_ns).items:
            _merge_patch_retrying(api, o.metadata.name, hcp_ns, patch)


# The seeds' merge patches. One of a CAPI or CAPA object passes their managers' conversion and admission webhooks;
# with the machine saturated the apiserver gave up on one after its 60 s (504, CI of 4874dd6). A merge patch sent
# again is the same patch, so a server timeout is tried again, three times at most.
PATCH_TRIES = 3


def _merge_patch_retrying(api, name, namespace, patch, missing_ok=True):
    """Merge-patch one object; with ``missing_ok`` an object that is gone (404) is skipped."""
    for attempt in range(1, PATCH_TRIES + 1):
        try:
            api.patch(name=name, namespace=namespace, body=patch, content_type="application/merge-patch+json")
            return
        except ApiException as e:
            if e.status == 404 and missing_ok:
                return
            if e.status not in (500, 503, 504) or attempt == PATCH_TRIES:
                raise
            time.sleep(2 * attempt)


def set_knob(name, namespace, key, value):
    """Set (or, with value None, clear) a knob for a seeded hosted cluster: on its HostedCluster,
    NodePools and HCP namespace (capi and capa: the pause of its CAPI objects). Objects that are
    gone are skipped."""
    dyn = kube()
    if key in PAUSE_KNOBS:
        _pause(dyn, f"{namespace}-{name}", key, value)
    if key == "instance_stuck":
        ids = [(o.spec or {}).get("instanceID") for o in dyn.resources.get(api_version=CAPA, kind="AWSMachine").get(
            namespace=f"{namespace}-{name}").items]
        ids = [i for i in ids if i]
        if ids and str(value or "").lower() == "true":
            aws("ec2").create_tags(Resources=ids, Tags=[{"Key": HOLD_TAG, "Value": "true"}])
        elif ids:
            aws("ec2").delete_tags(Resources=ids, Tags=[{"Key": HOLD_TAG}])
    patch = {"metadata": {"annotations": {KNOB + key: None if value is None else str(value)}}}
    targets = [(HS, "HostedCluster", name, namespace)]
    np_api = dyn.resources.get(api_version=HS, kind="NodePool")
    targets += [(HS, "NodePool", np.metadata.name, namespace) for np in np_api.get(namespace=namespace).items
                if (np.spec or {}).get("clusterName") == name]
    targets.append(("v1", "Namespace", f"{namespace}-{name}", None))
    for av, kind, n, ns in targets:
        _merge_patch_retrying(dyn.resources.get(api_version=av, kind=kind), n, ns, patch)
