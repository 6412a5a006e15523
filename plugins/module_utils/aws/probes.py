# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the AWS cleanup reads by ID: one probe per resource type, batched into one filtered call where
the API allows it. A probe returns the IDs it found present (with their state); an ID it does not return
was answered as gone. A failed call raises: unknown is never absent."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import NOT_FOUND_CODES, chunks, list_all, pages

ENI = "AWS::EC2::NetworkInterface"


def _ec2_probe(describe, key, idfield, filter_name, state_fn=None, filter_param="Filters"):
    def probe(ex, ids):
        out = {}
        for chunk in chunks(ids, 150):
            kw = {filter_param: [{"Name": filter_name, "Values": chunk}]}
            resp = ex.c.call("ec2", describe, **kw)
            items = resp.get(key, [])
            if key == "Reservations":
                items = [i for r in items for i in r.get("Instances", [])]
            for item in items:
                st = state_fn(item) if state_fn else "present"
                out[item[idfield]] = dict(item, state=st)
        return out
    return probe


def _probe_endpoints(ex, ids):
    """By VpcEndpointIds (not every implementation filters on vpc-endpoint-id); one missing ID fails the
    whole call, so fall back to one call per ID then."""
    def one(chunk):
        resp = ex.c.call("ec2", "describe_vpc_endpoints", VpcEndpointIds=chunk)
        return dict((e["VpcEndpointId"], dict(e, state=_endpoint_state(e))) for e in resp.get("VpcEndpoints", []))
    return _each_if_one_is_gone(one, ids, NOT_FOUND_CODES)


def _each_if_one_is_gone(one, ids, gone_codes):
    """``one(ids)`` for all at once; when an answer in ``gone_codes`` fails the whole call for a missing ID, one
    call per ID, where that answer (and only that answer) reads as absent. Any other error raises: unknown."""
    try:
        return one(list(ids))
    except is_boto3_error_code(gone_codes):
        pass
    out = {}
    for i in ids:
        try:
            out.update(one([i]))
        except is_boto3_error_code(gone_codes):
            pass
    return out


# EC2's answers that a VPC endpoint service configuration is not there: DescribeVpcEndpointServiceConfigurations
# names a missing ServiceId so (and fails the whole call for it); DeleteVpcEndpointServiceConfigurations puts the
# other spelling in its Unsuccessful items (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html)
ENDPOINT_SERVICE_GONE = ("InvalidVpcEndpointService.NotFound", "InvalidVpcEndpointServiceId.NotFound")


def endpoint_service_state(item):
    """ServiceState (Pending | Available | Deleting | Deleted | Failed, API:ServiceConfiguration): ``Deleting`` is
    pending, ``Deleted`` terminal; ``Failed`` is a configuration that still exists."""
    return {"deleted": "terminal", "deleting": "pending"}.get((item.get("ServiceState") or "").lower(), "present")


def _probe_endpoint_services(ex, ids):
    """By ServiceIds; a missing ID fails the whole call with InvalidVpcEndpointServiceId.NotFound, so then one
    call per ID, where that answer (and only that answer) is absent. Any other error raises: unknown."""
    def one(chunk):
        resp = ex.c.call("ec2", "describe_vpc_endpoint_service_configurations", ServiceIds=chunk)
        return dict((sc["ServiceId"], dict(sc, state=endpoint_service_state(sc)))
                    for sc in resp.get("ServiceConfigurations", []) if sc.get("ServiceId") in chunk)
    return _each_if_one_is_gone(one, ids, ENDPOINT_SERVICE_GONE)


def instance_state(item):
    name = item.get("State", {}).get("Name")
    return {"terminated": "terminal", "shutting-down": "pending"}.get(name, "present")


def nat_state(item):
    return {"deleted": "terminal", "deleting": "pending", "failed": "terminal"}.get(item.get("State"), "present")


def volume_state(item):
    """An EBS volume: ``deleting`` and ``deleted`` are terminal (nothing stops a volume's deletion once
    AWS reports it); ``creating``, ``available``, ``in-use`` and ``error`` are present."""
    return "terminal" if item.get("State") in ("deleting", "deleted") else "present"


def _endpoint_state(item):
    return {"deleted": "terminal", "deleting": "pending"}.get((item.get("State") or "").lower(), "present")


def probe_elb(ex, ids):
    out = {}
    for i in ids:
        try:
            resp = ex.c.call("elb", "describe_load_balancers", LoadBalancerNames=[i])
        except is_boto3_error_code(NOT_FOUND_CODES):
            continue
        for lb in resp.get("LoadBalancerDescriptions", []):
            out[lb["LoadBalancerName"]] = dict(lb, state="present")
    return out


def _probe_elbv2(kind):
    def probe(ex, ids):
        out = {}
        for i in ids:
            try:
                if kind == "lb":
                    items = ex.c.call("elbv2", "describe_load_balancers", LoadBalancerArns=[i]).get("LoadBalancers", [])
                else:
                    items = ex.c.call("elbv2", "describe_target_groups", TargetGroupArns=[i]).get("TargetGroups", [])
            except is_boto3_error_code(NOT_FOUND_CODES):
                continue
            for item in items:
                out[i] = dict(item, state="present")
        return out
    return probe


def split_record_id(rid):
    zone, rest = rid.split("/", 1)
    name, rtype = rest.rsplit("/", 1)
    return zone, name, rtype


def _norm_name(name):
    return name.replace("\\052", "*").rstrip(".").lower()


def find_record(ex, rid):
    zone, name, rtype = split_record_id(rid)
    resp = ex.c.call("route53", "list_resource_record_sets", HostedZoneId=zone, StartRecordName=name,
                     StartRecordType=rtype, MaxItems="1")
    for rr in resp.get("ResourceRecordSets", []):
        if _norm_name(rr["Name"]) == _norm_name(name) and rr["Type"] == rtype:
            return zone, rr
    return zone, None


def _probe_records(ex, ids):
    out = {}
    for i in ids:
        try:
            dummy, rr = find_record(ex, i)
        except is_boto3_error_code(NOT_FOUND_CODES):
            continue
        if rr is not None:
            out[i] = {"state": "present", "record": rr}
    return out


def _probe_zones(ex, ids):
    out = {}
    for i in ids:
        try:
            z = ex.c.call("route53", "get_hosted_zone", Id=i)
        except is_boto3_error_code(NOT_FOUND_CODES):
            continue
        out[i] = {"state": "present", "name": z["HostedZone"]["Name"]}
    return out


def _probe_buckets(ex, ids):
    names = set(b["Name"] for b in ex.c.call("s3", "list_buckets").get("Buckets", []))
    return dict((i, {"state": "present"}) for i in ids if i in names)


def split_prefix_id(rid):
    bucket, prefix = rid.split("/", 1)
    return bucket, prefix


def _probe_prefixes(ex, ids):
    out = {}
    for i in ids:
        bucket, prefix = split_prefix_id(i)
        try:
            resp = ex.c.call("s3", "list_object_versions", Bucket=bucket, Prefix=prefix, MaxKeys=1)
        except is_boto3_error_code(NOT_FOUND_CODES):
            continue
        if resp.get("Versions") or resp.get("DeleteMarkers"):
            out[i] = {"state": "present"}
    return out


def _iam_list(ex, op, key, name_key):
    kw = {"Scope": "Local"} if op == "list_policies" else {}
    return dict((item[name_key], dict(item, state="present")) for item in list_all(ex.c, "iam", op, key, **kw))


def iam_roles_and_policies(ex):
    """{ROLE: {name: ...}, POLICY: {arn: ...}} from every page of GetAccountAuthorizationDetails."""
    out = {g.ROLE: {}, g.POLICY: {}}
    for page in pages(ex.c, "iam", "get_account_authorization_details", Filter=["Role", "LocalManagedPolicy"]):
        for r in page.get("RoleDetailList", []):
            out[g.ROLE][r["RoleName"]] = {"state": "present"}
        for p in page.get("Policies", []):
            out[g.POLICY][p["Arn"]] = {"state": "present"}
    return out


# the types whose look by ID answers with the resource's tags (EC2's Describe calls): the protect tag is read there
TAGGED_BY_LOOK = frozenset([g.INSTANCE, g.NAT, g.SUBNET, g.SG, g.ROUTE_TABLE, g.IGW, g.EIP, g.ENDPOINT, g.VPC, g.DHCP,
                            g.VOLUME, g.ENDPOINT_SERVICE])

PROBES = {
    g.INSTANCE: _ec2_probe("describe_instances", "Reservations", "InstanceId", "instance-id", instance_state),
    g.NAT: _ec2_probe("describe_nat_gateways", "NatGateways", "NatGatewayId", "nat-gateway-id", nat_state,
                      filter_param="Filter"),
    g.SUBNET: _ec2_probe("describe_subnets", "Subnets", "SubnetId", "subnet-id"),
    g.SG: _ec2_probe("describe_security_groups", "SecurityGroups", "GroupId", "group-id"),
    g.ROUTE_TABLE: _ec2_probe("describe_route_tables", "RouteTables", "RouteTableId", "route-table-id"),
    g.IGW: _ec2_probe("describe_internet_gateways", "InternetGateways", "InternetGatewayId", "internet-gateway-id"),
    g.EIP: _ec2_probe("describe_addresses", "Addresses", "AllocationId", "allocation-id"),
    g.ENDPOINT: _probe_endpoints,
    g.ENDPOINT_SERVICE: _probe_endpoint_services,
    g.VPC: _ec2_probe("describe_vpcs", "Vpcs", "VpcId", "vpc-id"),
    g.DHCP: _ec2_probe("describe_dhcp_options", "DhcpOptions", "DhcpOptionsId", "dhcp-options-id"),
    g.VOLUME: _ec2_probe("describe_volumes", "Volumes", "VolumeId", "volume-id", volume_state),
    ENI: _ec2_probe("describe_network_interfaces", "NetworkInterfaces", "NetworkInterfaceId", "network-interface-id"),
    g.ELB: probe_elb,
    g.ELBV2: _probe_elbv2("lb"),
    g.TARGET_GROUP: _probe_elbv2("tg"),
    g.RECORD: _probe_records,
    g.ZONE: _probe_zones,
    g.BUCKET: _probe_buckets,
    g.PREFIX: _probe_prefixes,
    g.ROLE: lambda ex, ids: _iam_list(ex, "list_roles", "Roles", "RoleName"),
    g.PROFILE: lambda ex, ids: _iam_list(ex, "list_instance_profiles", "InstanceProfiles", "InstanceProfileName"),
    g.POLICY: lambda ex, ids: _iam_list(ex, "list_policies", "Policies", "Arn"),
    g.OIDC: lambda ex, ids: dict((p["Arn"], {"state": "present"}) for p in ex.c.call(
        "iam", "list_open_id_connect_providers").get("OpenIDConnectProviderList", [])),
}
