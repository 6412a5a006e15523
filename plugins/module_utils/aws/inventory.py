# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Discovery of what an infra ID owns, as the HyperShift destroy command finds it.

* EC2 by the tag ``kubernetes.io/cluster/<infraID>: owned``: instances (not terminated), VPCs,
  internet gateways (and those attached to a tagged VPC: one unfiltered list serves both), EIPs,
  DHCP option sets, EBS volumes (the guest's persistent volumes: the EBS CSI driver tags what it
  provisions so, tests/sandbox/spec/hypershift.md HS-29), VPC endpoint service configurations (not ``Deleted``);
* the EBS volumes of those instances, from their block device mappings (no further call), each with
  whether AWS deletes it with its instance (``DeleteOnTermination``);
* the children of each tagged VPC by ``vpc-id`` (tagged or not): subnets, route tables (not the
  main one), security groups (not ``default``), NAT gateways (not ``deleted``), VPC endpoints,
  classic ELBs, ELBv2 load balancers and target groups; of those groups, the ones only the guest's load
  balancers use, made for each by its controller (``guest_groups``: from what the same answers say, no
  further call);
* Route 53: private zones associated with a tagged VPC and with no VPC outside the cluster (a zone shared with
  another VPC is kept and reported, ``details["shared_zones"]``); the ``*.apps.<cluster>.<base domain>`` record in
  the public zone of ``base_domain``;
* S3: buckets named ``<infraID>-image-registry-*``; the ``<infraID>/`` prefix of ``oidc_bucket``;
* IAM by exact upstream name (``role_names``): the OIDC provider whose ARN's last segment is the infra ID, the
  roles ``hypershift create iam aws`` makes and ``destroy iam`` deletes (from one paged
  GetAccountAuthorizationDetails, which also carries each role's attached and inline policies, so the deletes need
  no further listing), the instance profile ``<infraID>-worker``. No customer managed policy is ever the cluster's:
  HyperShift writes inline policies only and attaches AWS-managed ones, which a role's delete detaches.

Every query either succeeds or fails the discovery: a failed query is unknown, never "nothing there".
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import NOT_FOUND_CODES, list_all, pages
from ansible_collections.teardown.gates.plugins.module_utils.aws import probes as x

# the component roles `hypershift create iam aws` makes, each ``<infraID>-<binding name>`` (openshift/hypershift@3ee9615
# cmd/infra/aws/iam.go:59, :97, :159, :461, :576, :659, :730, :804, the binding names; :1053 the role name), deleted
# by name by `destroy iam` (cmd/infra/aws/destroy_iam.go:170-188); the orphan sweep reads infra IDs from these names
ROLE_SUFFIXES = ("openshift-ingress", "openshift-image-registry", "aws-ebs-csi-driver-controller",
                 "cloud-controller", "node-pool", "control-plane-operator", "cloud-network-config-controller",
                 "kms-provider")
# ... and the other roles upstream makes and deletes by exact name: the Karpenter role (iam.go:247, destroy_iam.go:187),
# the single role of --shared-role (iam.go:1084, destroy_iam.go:157), the worker role in the worker instance profile,
# or its ROSA-managed-policy variant (iam.go:1180-1183, destroy_iam.go:309, :340), and the shared-VPC roles in the
# VPC owner's account (found here when that is this account): `create iam` names them -shared-vpc-route53 and
# -shared-vpc-endpoint (iam.go:763, :796, :1384) while `destroy iam` deletes -shared-vpc-ingress and
# -shared-vpc-control-plane (destroy_iam.go:382, :385): all four are HyperShift's exact names
OTHER_ROLE_SUFFIXES = ("karpenter", "shared-role", "worker-role", "worker-ROSA-Worker-Role", "shared-vpc-route53",
                       "shared-vpc-endpoint", "shared-vpc-ingress", "shared-vpc-control-plane")
# the worker instance profile (iam.go:833, DefaultProfileName)
PROFILE_SUFFIX = "worker"


def role_names(infra_id):
    """Every role name HyperShift's ``create iam aws`` may have made for ``infra_id``: exact names, never a prefix."""
    return set("%s-%s" % (infra_id, suffix) for suffix in ROLE_SUFFIXES + OTHER_ROLE_SUFFIXES)


def instance_volumes(instance):
    """(volume ID, attachment) for each EBS volume in an instance's block device mappings; the attachment
    carries the instance, the device and ``DeleteOnTermination`` as DescribeVolumes spells them."""
    out = []
    for m in instance.get("BlockDeviceMappings") or []:
        ebs = m.get("Ebs") or {}
        if ebs.get("VolumeId"):
            out.append((ebs["VolumeId"], {"InstanceId": instance.get("InstanceId"), "Device": m.get("DeviceName"),
                                          "State": ebs.get("Status", "attached"),
                                          "DeleteOnTermination": bool(ebs.get("DeleteOnTermination"))}))
    return out


# the tags the EBS CSI driver puts on a volume it provisions for a PVC (tests/sandbox/spec/hypershift.md HS-29)
CSI_VOLUME_TAG_PREFIX = "kubernetes.io/created-for/"


def is_guest_volume(volume):
    """A persistent volume of the guest cluster: the EBS CSI driver tagged it for a PVC or PV."""
    return any((t.get("Key") or "").startswith(CSI_VOLUME_TAG_PREFIX) for t in volume.get("Tags") or [])


# the security group a guest load balancer's own controller made for it, deleted right after that load balancer
# (kubernetes/cloud-provider-aws@63ec440, pkg/providers/v1/aws.go): a classic ELB's is named k8s-elb-<its name>
# (:2008, buildELBSecurityGroupList), an NLB's managed group carries this description (:2311-2312,
# ensureNLBSecurityGroup), both tagged kubernetes.io/cluster/<cluster ID>: owned (:1595, ensureSecurityGroup); the
# AWS Load Balancer Controller tags its own with elbv2.k8s.aws/cluster
ELB_GROUP_PREFIX = "k8s-elb-"
NLB_GROUP_DESCRIPTION = "[k8s] Managed SecurityGroup for LoadBalancer"
LBC_CLUSTER_TAG = "elbv2.k8s.aws/cluster"


def _tag_keys(item):
    return dict((t.get("Key"), t.get("Value")) for t in (item or {}).get("Tags") or [] if t.get("Key"))


def _groups_used(item):
    """The group IDs an instance or a VPC endpoint uses, as DescribeInstances and DescribeVpcEndpoints spell them."""
    out = set(s.get("GroupId") for s in item.get("SecurityGroups") or [] if isinstance(s, dict))
    out |= set(s.get("GroupId") for s in item.get("Groups") or [] if isinstance(s, dict))
    for n in item.get("NetworkInterfaces") or []:
        out |= set(s.get("GroupId") for s in n.get("Groups") or [])
    out.discard(None)
    return out


def guest_groups(observed, tag_key):
    """The security groups that only the guest's load balancers use: each referenced by a load balancer of the
    manifest (its ``SecurityGroups``) and made for it by its controller - a classic ELB's ``k8s-elb-<name>`` tagged
    ``tag_key: owned``; an ELBv2's managed group (``NLB_GROUP_DESCRIPTION``, tagged ``tag_key: owned``) or tagged
    ``elbv2.k8s.aws/cluster`` - and used by no instance or VPC endpoint of the manifest. A group of the infra attached
    to a load balancer (the workers', a router's group of ``create infra``, one a Service named by annotation) is
    not the load balancer's own, and stays. ``observed``: discovery's ``seen`` (type -> ID -> what it read)."""
    groups = observed.get(g.SG) or {}
    used = set()
    for t in (g.INSTANCE, g.ENDPOINT):
        for item in (observed.get(t) or {}).values():
            used |= _groups_used(item)
    out = set()
    for rtype in (g.ELB, g.ELBV2):
        for lb_id, lb in (observed.get(rtype) or {}).items():
            for gid in lb.get("SecurityGroups") or []:
                sg = groups.get(gid)
                if sg is None or gid in used:
                    continue
                tags = _tag_keys(sg)
                owned = tags.get(tag_key) == "owned"
                if rtype == g.ELB:
                    own = owned and sg.get("GroupName") == ELB_GROUP_PREFIX + lb_id
                else:
                    own = (owned and sg.get("Description") == NLB_GROUP_DESCRIPTION) or LBC_CLUSTER_TAG in tags
                if own:
                    out.add(gid)
    return sorted(out)


def _roles(c):
    """Every role of the account from GetAccountAuthorizationDetails, all pages (each with its policies)."""
    return (r for page in pages(c, "iam", "get_account_authorization_details", Filter=["Role"])
            for r in page.get("RoleDetailList", []))


SHARED_ZONE = "a private zone also associated with %s, outside the cluster: not the cluster's, kept"


def zone_shared_with(zone, vpcs, region):
    """The VPCs (``region/vpc-id``) outside ``vpcs`` that a private zone (GetHostedZone's answer) is associated
    with: a zone shared so is not the cluster's to delete, whatever its name says."""
    out = []
    for v in zone.get("VPCs") or []:
        if v.get("VPCId") not in vpcs or (v.get("VPCRegion") or region) != region:
            out.append("%s/%s" % (v.get("VPCRegion") or region, v.get("VPCId")))
    return sorted(out)


def _parallel(*fns):
    """Run independent discovery steps at once (the clients' semaphore bounds requests in flight).

    The first failure is raised as soon as it happens, without waiting for the other steps: a failed query
    fails the whole discovery anyway, and against an endpoint that does not answer, waiting for every step
    would add one call's bound per round of the semaphore. The steps still running are daemon threads that
    only read."""
    if not fns:
        return
    errors = []
    done = threading.Event()
    left = [len(fns)]
    lock = threading.Lock()

    def run(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - re-raised below in the caller's thread
            errors.append(e)
            done.set()
        finally:
            with lock:
                left[0] -= 1
                if not left[0]:
                    done.set()
    for fn in fns:
        th = threading.Thread(target=run, args=(fn,))
        th.daemon = True
        th.start()
    done.wait()
    if errors:
        raise errors[0]


def discover(c, infra_id, base_domain=None, cluster_name=None, oidc_bucket=None, region="us-east-1"):
    """Return (manifest, details) for ``infra_id`` using ``c`` (aws_client.Clients)."""
    tag_key = "kubernetes.io/cluster/%s" % infra_id
    tag = [{"Name": "tag:" + tag_key, "Values": ["owned"]}]

    def owned(item):  # the filter asks the service; the check keeps an emulator that ignores it honest
        return any(t.get("Key") == tag_key and t.get("Value") == "owned" for t in item.get("Tags", []))
    m = dict((t, set()) for t in g.TYPE_DEPS)
    details = {"vpcs": {}, "queries": 0}
    seen = dict((t, {}) for t in g.TYPE_DEPS)  # what discovery saw of each resource: the executor's first look
    lock = threading.Lock()
    vpcs = []
    shared_zones = []  # kept rows {type, id, reason}: private zones also associated with a VPC outside the cluster

    def keep(rtype, rid, item, state="present"):
        with lock:
            m[rtype].add(rid)
            seen[rtype][rid] = dict(item or {}, state=state)

    attached = {}  # volume ID -> its attachments as the instances' block device mappings show them
    guest_volumes = []  # the guest's persistent volumes (tagged for a PVC or PV), attached or not

    def instances():
        for r in list_all(c, "ec2", "describe_instances", "Reservations", Filters=tag):
            for i in r.get("Instances", []):
                if i.get("State", {}).get("Name") != "terminated" and owned(i):
                    keep(g.INSTANCE, i["InstanceId"], i, x.instance_state(i))
                    for vid, att in instance_volumes(i):
                        attached.setdefault(vid, []).append(att)

    gateways = []

    def internet_gateways():
        # tagged, or attached to a tagged VPC (tagged or not): one unfiltered list answers both, as AWS ANDs
        # filters of different names and an account holds few internet gateways; sorted out once the VPCs are known
        gateways.extend(list_all(c, "ec2", "describe_internet_gateways", "InternetGateways"))

    def tagged_network():
        for a in c.call("ec2", "describe_addresses", Filters=tag).get("Addresses", []):
            if a.get("AllocationId") and owned(a):
                keep(g.EIP, a["AllocationId"], a)
        for d in list_all(c, "ec2", "describe_dhcp_options", "DhcpOptions", Filters=tag):
            if owned(d):
                keep(g.DHCP, d["DhcpOptionsId"], d)
        for v in list_all(c, "ec2", "describe_volumes", "Volumes", Filters=tag):
            if owned(v) and v.get("State") not in ("deleting", "deleted"):
                keep(g.VOLUME, v["VolumeId"], v, x.volume_state(v))
                if is_guest_volume(v):
                    guest_volumes.append(v["VolumeId"])

    def endpoint_services():
        # VPC endpoint service configurations by the tag, wherever their load balancer is, as HyperShift's
        # DestroyVPCEndpointServices lists them (openshift/hypershift@3ee9615 cmd/infra/aws/destroy.go:475-478)
        for sc in list_all(c, "ec2", "describe_vpc_endpoint_service_configurations", "ServiceConfigurations",
                           Filters=tag):
            state = x.endpoint_service_state(sc)
            if owned(sc) and state != "terminal":
                keep(g.ENDPOINT_SERVICE, sc["ServiceId"], sc, state)

    def vpcs_and_children():
        for v in list_all(c, "ec2", "describe_vpcs", "Vpcs", Filters=tag):
            if owned(v):
                vpcs.append(v["VpcId"])
                keep(g.VPC, v["VpcId"], v)
        if not vpcs:
            return
        vf = [{"Name": "vpc-id", "Values": vpcs}]

        def subnets():
            for s in list_all(c, "ec2", "describe_subnets", "Subnets", Filters=vf):
                keep(g.SUBNET, s["SubnetId"], s)

        def route_tables():
            for rt in list_all(c, "ec2", "describe_route_tables", "RouteTables", Filters=vf):
                if not any(a.get("Main") for a in rt.get("Associations", [])):
                    keep(g.ROUTE_TABLE, rt["RouteTableId"], rt)

        def groups():
            for s in list_all(c, "ec2", "describe_security_groups", "SecurityGroups", Filters=vf):
                if s.get("GroupName") != "default":
                    keep(g.SG, s["GroupId"], s)

        def nats():
            for n in list_all(c, "ec2", "describe_nat_gateways", "NatGateways", Filter=vf):
                if n.get("State") not in ("deleted", "failed"):
                    keep(g.NAT, n["NatGatewayId"], n, x.nat_state(n))

        def endpoints():
            for e in list_all(c, "ec2", "describe_vpc_endpoints", "VpcEndpoints", Filters=vf):
                if (e.get("State") or "").lower() not in ("deleted", "deleting"):
                    keep(g.ENDPOINT, e["VpcEndpointId"], e)

        def load_balancers():
            for lb in list_all(c, "elb", "describe_load_balancers", "LoadBalancerDescriptions"):
                if lb.get("VPCId") in vpcs:
                    keep(g.ELB, lb["LoadBalancerName"], lb)

        def load_balancers_v2():
            for lb in list_all(c, "elbv2", "describe_load_balancers", "LoadBalancers"):
                if lb.get("VpcId") in vpcs:
                    keep(g.ELBV2, lb["LoadBalancerArn"], lb)
            for t in list_all(c, "elbv2", "describe_target_groups", "TargetGroups"):
                if t.get("VpcId") in vpcs:
                    keep(g.TARGET_GROUP, t["TargetGroupArn"], None)

        def private_zones():
            found = set()
            for vpc in vpcs:
                for z in list_all(c, "route53", "list_hosted_zones_by_vpc", "HostedZoneSummaries", VPCId=vpc,
                                  VPCRegion=region):
                    found.add(z["HostedZoneId"].split("/")[-1])
            for zid in sorted(found):  # one GetHostedZone each: every VPC the zone is associated with
                others = zone_shared_with(c.call("route53", "get_hosted_zone", Id=zid), vpcs, region)
                if others:
                    with lock:
                        shared_zones.append({"type": g.ZONE, "id": zid, "reason": SHARED_ZONE % ", ".join(others)})
                else:
                    keep(g.ZONE, zid, None)
        _parallel(subnets, route_tables, groups, nats, endpoints, load_balancers,
                  load_balancers_v2, private_zones)

    def apps_record():
        if not base_domain:
            return
        cluster = cluster_name or infra_id
        want = "*.apps.%s.%s" % (cluster, base_domain.rstrip("."))
        zones = [z for z in c.call("route53", "list_hosted_zones_by_name", DNSName=base_domain).get("HostedZones", [])
                 if z["Name"].rstrip(".").lower() == base_domain.rstrip(".").lower()
                 and not z.get("Config", {}).get("PrivateZone")]
        for z in zones:
            zid = z["Id"].split("/")[-1]
            resp = c.call("route53", "list_resource_record_sets", HostedZoneId=zid, StartRecordName=want,
                          MaxItems="10")
            for rr in resp.get("ResourceRecordSets", []):
                if rr["Name"].replace("\\052", "*").rstrip(".").lower() == want.lower():
                    keep(g.RECORD, "%s/%s/%s" % (zid, rr["Name"], rr["Type"]), {"record": rr})

    def storage():
        prefix = "%s-image-registry-" % infra_id
        for b in c.call("s3", "list_buckets").get("Buckets", []):
            if b["Name"].startswith(prefix):
                keep(g.BUCKET, b["Name"], None)
        if oidc_bucket:
            try:
                resp = c.call("s3", "list_object_versions", Bucket=oidc_bucket, Prefix=infra_id + "/", MaxKeys=1)
                if resp.get("Versions") or resp.get("DeleteMarkers"):
                    keep(g.PREFIX, "%s/%s/" % (oidc_bucket, infra_id), None)
            except is_boto3_error_code(NOT_FOUND_CODES):
                pass

    def iam():
        for p in c.call("iam", "list_open_id_connect_providers").get("OpenIDConnectProviderList", []):
            if p["Arn"].endswith("/" + infra_id):
                keep(g.OIDC, p["Arn"], None)
        # roles by exact name: one paged GetAccountAuthorizationDetails answers them all, with what their deletes
        # need (attached and inline policies), instead of a ListRoles and two list calls per role
        names = role_names(infra_id)
        for r in _roles(c):
            if r["RoleName"] in names:
                keep(g.ROLE, r["RoleName"], r)
        try:
            name = "%s-%s" % (infra_id, PROFILE_SUFFIX)
            keep(g.PROFILE, name, c.call("iam", "get_instance_profile", InstanceProfileName=name)["InstanceProfile"])
        except is_boto3_error_code(NOT_FOUND_CODES):
            pass

    _parallel(instances, tagged_network, internet_gateways, endpoint_services, vpcs_and_children, apps_record, storage,
              iam)
    for i in gateways:
        if owned(i) or any(a.get("VpcId") in vpcs for a in i.get("Attachments", [])):
            keep(g.IGW, i["InternetGatewayId"], i)
    for vid, atts in attached.items():
        if vid not in seen[g.VOLUME]:  # not tagged: what the instance's mapping says of it is what is known
            keep(g.VOLUME, vid, {"VolumeId": vid, "State": "in-use", "Attachments": atts})
        else:  # tagged too: the mapping says DeleteOnTermination where an answer leaves it out
            for a in seen[g.VOLUME][vid].get("Attachments") or []:
                for b in atts:
                    if a.get("InstanceId") == b["InstanceId"] and "DeleteOnTermination" not in a:
                        a["DeleteOnTermination"] = b["DeleteOnTermination"]

    manifest = dict((t, sorted(ids)) for t, ids in m.items() if ids)
    details["vpcs"] = vpcs
    details["guest_volumes"] = sorted(guest_volumes)
    details["guest_groups"] = guest_groups(seen, tag_key)
    details["shared_zones"] = sorted(shared_zones, key=lambda r: r["id"])
    details["observed"] = dict((t, v) for t, v in seen.items() if v)
    return manifest, details
