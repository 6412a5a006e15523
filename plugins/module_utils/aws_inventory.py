# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Discovery of what an infra ID owns, as the HyperShift destroy command finds it.

* EC2 by the tag ``kubernetes.io/cluster/<infraID>: owned``: instances (not terminated), VPCs,
  internet gateways, EIPs, DHCP option sets;
* the children of each tagged VPC by ``vpc-id`` (tagged or not): subnets, route tables (not the
  main one), security groups (not ``default``), NAT gateways (not ``deleted``), VPC endpoints,
  classic ELBs, ELBv2 load balancers and target groups;
* Route 53: private zones associated with a tagged VPC; the ``*.apps.<cluster>.<base domain>``
  record in the public zone of ``base_domain``;
* S3: buckets named ``<infraID>-image-registry-*``; the ``<infraID>/`` prefix of ``oidc_bucket``;
* IAM by name: the OIDC provider whose ARN ends in the infra ID, the roles ``<infraID>-<suffix>``,
  the instance profile ``<infraID>-worker``, customer managed policies named ``<infraID>-*``.

Every query either succeeds or fails the discovery: a failed query is unknown, never "nothing there".
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

try:
    import botocore.exceptions
except ImportError:  # pragma: no cover
    pass

from ansible_collections.teardown.gates.plugins.module_utils import aws_graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws_execute import error_code, NOT_FOUND

ROLE_SUFFIXES = ("openshift-ingress", "openshift-image-registry", "aws-ebs-csi-driver-controller",
                 "cloud-controller", "node-pool", "control-plane-operator", "cloud-network-config-controller",
                 "kms-provider")


def _pages(c, service, op, key, **kw):
    """All items of a paginated describe/list call (NextToken / Marker styles)."""
    out = []
    while True:
        resp = c.call(service, op, **kw)
        items = resp.get(key, [])
        out.extend(items)
        token = resp.get("NextToken")
        if token:
            kw["NextToken"] = token
            continue
        if resp.get("IsTruncated") and resp.get("Marker"):
            kw["Marker"] = resp["Marker"]
            continue
        if resp.get("NextMarker"):
            kw["Marker"] = resp["NextMarker"]
            continue
        return out


def discover(c, infra_id, base_domain=None, cluster_name=None, oidc_bucket=None, region="us-east-1"):
    """Return (manifest, details) for ``infra_id`` using ``c`` (aws_execute.Clients)."""
    tag_key = "kubernetes.io/cluster/%s" % infra_id
    tag = [{"Name": "tag:" + tag_key, "Values": ["owned"]}]

    def owned(item):  # the filter asks the service; the check keeps an emulator that ignores it honest
        return any(t.get("Key") == tag_key and t.get("Value") == "owned" for t in item.get("Tags", []))
    m = dict((t, set()) for t in g.TYPE_DEPS)
    details = {"vpcs": {}, "queries": 0}

    for r in _pages(c, "ec2", "describe_instances", "Reservations", Filters=tag):
        for i in r.get("Instances", []):
            if i.get("State", {}).get("Name") != "terminated" and owned(i):
                m[g.INSTANCE].add(i["InstanceId"])
    vpcs = [v["VpcId"] for v in _pages(c, "ec2", "describe_vpcs", "Vpcs", Filters=tag) if owned(v)]
    m[g.VPC].update(vpcs)
    m[g.IGW].update(i["InternetGatewayId"] for i in _pages(c, "ec2", "describe_internet_gateways", "InternetGateways",
                                                           Filters=tag) if owned(i))
    m[g.EIP].update(a["AllocationId"] for a in c.call("ec2", "describe_addresses", Filters=tag).get("Addresses", [])
                    if a.get("AllocationId") and owned(a))
    m[g.DHCP].update(d["DhcpOptionsId"] for d in _pages(c, "ec2", "describe_dhcp_options", "DhcpOptions", Filters=tag)
                     if owned(d))

    if vpcs:
        vf = [{"Name": "vpc-id", "Values": vpcs}]
        m[g.SUBNET].update(s["SubnetId"] for s in _pages(c, "ec2", "describe_subnets", "Subnets", Filters=vf))
        for rt in _pages(c, "ec2", "describe_route_tables", "RouteTables", Filters=vf):
            if not any(a.get("Main") for a in rt.get("Associations", [])):
                m[g.ROUTE_TABLE].add(rt["RouteTableId"])
        m[g.SG].update(s["GroupId"] for s in _pages(c, "ec2", "describe_security_groups", "SecurityGroups", Filters=vf)
                       if s.get("GroupName") != "default")
        m[g.NAT].update(n["NatGatewayId"] for n in _pages(c, "ec2", "describe_nat_gateways", "NatGateways", Filter=vf)
                        if n.get("State") not in ("deleted", "failed"))
        m[g.ENDPOINT].update(e["VpcEndpointId"] for e in _pages(c, "ec2", "describe_vpc_endpoints", "VpcEndpoints",
                                                                Filters=vf)
                             if (e.get("State") or "").lower() not in ("deleted", "deleting"))
        m[g.IGW].update(i["InternetGatewayId"] for i in _pages(c, "ec2", "describe_internet_gateways", "InternetGateways",
                                                               Filters=[{"Name": "attachment.vpc-id", "Values": vpcs}]))
        m[g.ELB].update(lb["LoadBalancerName"] for lb in _pages(c, "elb", "describe_load_balancers",
                                                                "LoadBalancerDescriptions") if lb.get("VPCId") in vpcs)
        m[g.ELBV2].update(lb["LoadBalancerArn"] for lb in _pages(c, "elbv2", "describe_load_balancers", "LoadBalancers")
                          if lb.get("VpcId") in vpcs)
        m[g.TARGET_GROUP].update(t["TargetGroupArn"] for t in _pages(c, "elbv2", "describe_target_groups", "TargetGroups")
                                 if t.get("VpcId") in vpcs)
        for vpc in vpcs:
            for z in _pages(c, "route53", "list_hosted_zones_by_vpc", "HostedZoneSummaries", VPCId=vpc, VPCRegion=region):
                m[g.ZONE].add(z["HostedZoneId"].split("/")[-1])

    if base_domain:
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
                    m[g.RECORD].add("%s/%s/%s" % (zid, rr["Name"], rr["Type"]))

    prefix = "%s-image-registry-" % infra_id
    m[g.BUCKET].update(b["Name"] for b in c.call("s3", "list_buckets").get("Buckets", []) if b["Name"].startswith(prefix))
    if oidc_bucket:
        try:
            resp = c.call("s3", "list_object_versions", Bucket=oidc_bucket, Prefix=infra_id + "/", MaxKeys=1)
            if resp.get("Versions") or resp.get("DeleteMarkers"):
                m[g.PREFIX].add("%s/%s/" % (oidc_bucket, infra_id))
        except botocore.exceptions.ClientError as e:
            if error_code(e) not in NOT_FOUND:
                raise

    for p in c.call("iam", "list_open_id_connect_providers").get("OpenIDConnectProviderList", []):
        if p["Arn"].endswith("/" + infra_id):
            m[g.OIDC].add(p["Arn"])
    for suffix in ROLE_SUFFIXES:
        name = "%s-%s" % (infra_id, suffix)
        try:
            c.call("iam", "get_role", RoleName=name)
            m[g.ROLE].add(name)
        except botocore.exceptions.ClientError as e:
            if error_code(e) not in NOT_FOUND:
                raise
    try:
        c.call("iam", "get_instance_profile", InstanceProfileName="%s-worker" % infra_id)
        m[g.PROFILE].add("%s-worker" % infra_id)
    except botocore.exceptions.ClientError as e:
        if error_code(e) not in NOT_FOUND:
            raise
    for p in _pages(c, "iam", "list_policies", "Policies", Scope="Local"):
        if p["PolicyName"].startswith(infra_id + "-"):
            m[g.POLICY].add(p["Arn"])

    manifest = dict((t, sorted(ids)) for t, ids in m.items() if ids)
    details["vpcs"] = vpcs
    return manifest, details
