# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What holds a refused AWS delete: for each type whose delete AWS refuses while something still uses it
(``BLOCKERS``), the lookup of that something by ID (ENIs by subnet, group or VPC, the NAT gateway still
deleting, the rule that references a group, the instance still shutting down), with whether it is going
away and what to do about it. A rule that lets a refused group in is revoked when its group goes too, or when
its group, kept, is owned by the same cluster (and not protected): what the cloud provider does before deleting a
load balancer's group."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import list_all
from ansible_collections.teardown.gates.plugins.module_utils.aws.deletes import clear_role, group_refs, revoke_group_refs
from ansible_collections.teardown.gates.plugins.module_utils.aws.probes import ENI, PROBES, endpoint_service_state, probe_elb
from ansible_collections.teardown.gates.plugins.module_utils.core.protect import is_protected


class Blocker:
    """Something that holds a refused delete: by type and ID, its state, and what to do about it."""

    def __init__(self, rtype, rid, state, going_away=False, note=None, action=None):
        self.type, self.id, self.state, self.going_away, self.note, self.action = rtype, rid, state, going_away, note, action

    def as_dict(self):
        out = {"type": self.type, "id": self.id, "state": self.state}
        if self.note:
            out["what_to_do"] = self.note
        return out


def no_blockers(ex, rid, obs, code):
    return []


def _eni_blocker(ex, eni, nat_enis):
    """Classify an ENI found in the way: whose it is, whether it is going away, what to do."""
    eid = eni["NetworkInterfaceId"]
    if eid in nat_enis:
        return None  # the NAT gateway is the blocker, reported on its own
    att = eni.get("Attachment") or {}
    if att.get("InstanceId"):
        return None  # the instance is the blocker, reported on its own
    desc = eni.get("Description") or ""
    if desc.startswith("ELB "):
        lb = desc[4:]
        if "/" in lb:  # ELBv2: app/name/id or net/name/id
            owners = [a for a in ex.manifest.get(g.ELBV2, []) if a.endswith("loadbalancer/" + lb)]
            alive = bool(owners) and any(ex.results.get((g.ELBV2, a), {}).get("outcome") == "failed" for a in owners)
            known = bool(owners)
        else:
            known = lb in ex.manifest.get(g.ELB, [])
            ours = ex.results.get((g.ELB, lb), {}).get("outcome")
            alive = False if ours in ("deleted", "absent") else bool(probe_elb(ex, [lb]))
        if not alive:
            return Blocker(ENI, eid, eni.get("Status", "in-use"), going_away=True,
                           note="ENI of load balancer %s, which is gone; AWS releases it shortly" % lb)
        return Blocker(ENI, eid, eni.get("Status", "in-use"), going_away=False,
                       note="ENI of load balancer %s, which still exists%s: delete that load balancer" % (
                           lb, "" if known else " and is not in the manifest"))
    if (ENI, eid) in ex.in_manifest:
        return Blocker(ENI, eid, eni.get("Status"), going_away=False, note="in the manifest but not deletable here")
    note = "network interface %s (%s) is not in the manifest: find its owner (requester %s) and delete it there, " \
        "or delete the ENI" % (eid, desc or "no description", eni.get("RequesterId", "unknown"))
    return Blocker(ENI, eid, eni.get("Status"), going_away=False, note=note)


def _nats(ex, name, value):
    resp = ex.c.call("ec2", "describe_nat_gateways", Filter=[{"Name": name, "Values": [value]}])
    return [n for n in resp.get("NatGateways", []) if n.get("State") != "deleted"]


def _nat_blocker(ex, n):
    if n.get("State") == "deleting":
        return Blocker(g.NAT, n["NatGatewayId"], "deleting", going_away=True)
    if (g.NAT, n["NatGatewayId"]) in ex.in_manifest:
        return Blocker(g.NAT, n["NatGatewayId"], n.get("State"), going_away=False,
                       note="in the manifest but not deleted; see its own result")
    return Blocker(g.NAT, n["NatGatewayId"], n.get("State"), going_away=False,
                   note="NAT gateway not in the manifest: delete it (it holds its ENI and EIP until 'deleted') "
                        "or add it to the manifest")


def _instance_blockers(ex, name, value):
    resp = ex.c.call("ec2", "describe_instances", Filters=[{"Name": name, "Values": [value]}])
    out = []
    for r in resp.get("Reservations", []):
        for i in r.get("Instances", []):
            st = i.get("State", {}).get("Name")
            if st == "terminated":
                continue
            going = st == "shutting-down"
            out.append(Blocker(g.INSTANCE, i["InstanceId"], st, going_away=going,
                               note=None if going else "instance not terminated and %s: terminate it" % (
                                   "in the manifest" if (g.INSTANCE, i["InstanceId"]) in ex.in_manifest
                                   else "not in the manifest")))
    return out


def _enis(ex, name, value):
    return ex.c.call("ec2", "describe_network_interfaces",
                     Filters=[{"Name": name, "Values": [value]}]).get("NetworkInterfaces", [])


def _nat_eni_ids(nats):
    return set(a.get("NetworkInterfaceId") for n in nats for a in n.get("NatGatewayAddresses", []))


def _b_subnet(ex, rid, obs, code):
    nats = _nats(ex, "subnet-id", rid)
    out = [_nat_blocker(ex, n) for n in nats]
    out += _instance_blockers(ex, "subnet-id", rid)
    nat_enis = _nat_eni_ids(nats)
    for eni in _enis(ex, "subnet-id", rid):
        b = _eni_blocker(ex, eni, nat_enis)
        if b is not None:
            out.append(b)
    return out


def _owned_by(group):
    """The cluster tag keys (``kubernetes.io/cluster/<ID>``) ``group`` (as described, or None) carries with ``owned``."""
    return set(t.get("Key") for t in (group or {}).get("Tags") or []
               if (t.get("Key") or "").startswith("kubernetes.io/cluster/") and t.get("Value") == "owned")


def _b_sg(ex, rid, obs, code):
    if code == "CannotDelete":
        return [Blocker(g.SG, rid, "default", note="a VPC's default group goes with its VPC: remove it from the manifest")]
    out = _instance_blockers(ex, "instance.group-id", rid)
    for eni in _enis(ex, "group-id", rid):
        b = _eni_blocker(ex, eni, set())
        if b is not None:
            out.append(b)
    groups = ex.c.call("ec2", "describe_security_groups").get("SecurityGroups", [])
    mine = _owned_by(next((o for o in groups if o["GroupId"] == rid), obs))
    for other in groups:
        if other["GroupId"] == rid:
            continue
        refs = any(p.get("GroupId") == rid for perm in other.get("IpPermissions", []) + other.get(
            "IpPermissionsEgress", []) for p in group_refs(perm))
        if not refs:
            continue
        if (g.SG, other["GroupId"]) in ex.in_manifest:
            # a group of the same infra: its rule goes with it, revoke it now (what the destroy command does)
            out.append(Blocker(g.SG, other["GroupId"], "references %s" % rid,
                               action=lambda o=other: revoke_group_refs(ex, o, only_to=rid)))
        elif mine & _owned_by(other) and not is_protected(other.get("Tags")):
            # a group the same cluster owns (the workers'), kept: only its rule that lets the refused group in goes,
            # as the cloud provider revokes it before deleting a load balancer's group (cloud-provider-aws@63ec440,
            # pkg/providers/v1/aws.go:3373-3379, updateInstanceSecurityGroupsForLoadBalancer :2980-3099)
            out.append(Blocker(g.SG, other["GroupId"], "references %s (a group of the same cluster, kept: only that "
                               "rule is revoked)" % rid, action=lambda o=other: revoke_group_refs(ex, o, only_to=rid)))
        else:
            out.append(Blocker(g.SG, other["GroupId"], "references %s" % rid, going_away=False,
                               note="a rule of group %s (not in the manifest) references %s: revoke that rule" % (
                                   other["GroupId"], rid)))
    return out


def _b_igw(ex, rid, obs, code):
    found = PROBES[g.IGW](ex, [rid]).get(rid, {})
    out = []
    for a in found.get("Attachments", []):
        vpc = a.get("VpcId")
        nats = _nats(ex, "vpc-id", vpc)
        out += [_nat_blocker(ex, n) for n in nats]
        nat_enis = _nat_eni_ids(nats)
        for eni in _enis(ex, "vpc-id", vpc):
            if eni["NetworkInterfaceId"] in nat_enis or not (eni.get("Association") or {}).get("PublicIp"):
                continue
            att = eni.get("Attachment") or {}
            if att.get("InstanceId"):
                out += _instance_blockers(ex, "instance-id", att["InstanceId"])
            else:
                out.append(Blocker(ENI, eni["NetworkInterfaceId"], "has public address %s" % eni["Association"]["PublicIp"],
                                   note="disassociate the public address of this ENI (not in the manifest)"))
    return out


def _b_eip(ex, rid, obs, code):
    addrs = PROBES[g.EIP](ex, [rid])
    a = addrs.get(rid)
    if not a:
        return []
    out = []
    if a.get("NetworkInterfaceId"):
        nats = [n for n in ex.c.call("ec2", "describe_nat_gateways").get("NatGateways", [])
                if n.get("State") != "deleted"
                and any(x.get("AllocationId") == rid for x in n.get("NatGatewayAddresses", []))]
        if nats:
            out += [_nat_blocker(ex, n) for n in nats]
        elif a.get("InstanceId"):
            out += _instance_blockers(ex, "instance-id", a["InstanceId"])
        else:
            out.append(Blocker(ENI, a["NetworkInterfaceId"], "holds %s" % a.get("PublicIp"),
                               note="the address is associated with ENI %s: disassociate it (association %s)" % (
                                   a["NetworkInterfaceId"], a.get("AssociationId"))))
    elif a.get("InstanceId"):
        out += _instance_blockers(ex, "instance-id", a["InstanceId"])
    return out


def _b_vpc(ex, rid, obs, code):
    out = []

    def add(rtype, ids, note):
        for i in ids:
            if (rtype, i) in ex.in_manifest:
                res = ex.results.get((rtype, i), {})
                out.append(Blocker(rtype, i, res.get("outcome", "pending"), note="in the manifest; its own result: %s" % (
                    res.get("error") or res.get("outcome"))))
            else:
                out.append(Blocker(rtype, i, "present", note=note))

    vf = [{"Name": "vpc-id", "Values": [rid]}]
    add(g.SUBNET, [s["SubnetId"] for s in ex.c.call("ec2", "describe_subnets", Filters=vf).get("Subnets", [])],
        "subnet not in the manifest: delete it or add it")
    add(g.IGW, [i["InternetGatewayId"] for i in ex.c.call("ec2", "describe_internet_gateways", Filters=[
        {"Name": "attachment.vpc-id", "Values": [rid]}]).get("InternetGateways", [])],
        "internet gateway attached and not in the manifest: detach it")
    add(g.SG, [s["GroupId"] for s in ex.c.call("ec2", "describe_security_groups", Filters=vf).get("SecurityGroups", [])
               if s.get("GroupName") != "default"], "security group not in the manifest: delete it")
    add(g.ROUTE_TABLE, [r["RouteTableId"] for r in ex.c.call("ec2", "describe_route_tables", Filters=vf).get(
        "RouteTables", []) if not any(a.get("Main") for a in r.get("Associations", []))],
        "route table not in the manifest: delete it")
    add(g.ENDPOINT, [e["VpcEndpointId"] for e in ex.c.call("ec2", "describe_vpc_endpoints", Filters=vf).get(
        "VpcEndpoints", []) if (e.get("State") or "").lower() not in ("deleted", "deleting")],
        "VPC endpoint not in the manifest: delete it")
    nats = _nats(ex, "vpc-id", rid)
    out += [_nat_blocker(ex, n) for n in nats]
    for eni in _enis(ex, "vpc-id", rid):
        b = _eni_blocker(ex, eni, _nat_eni_ids(nats))
        if b is not None:
            out.append(b)
    # blockers whose own deletion failed are not going away
    return out


def _b_elbv2(ex, rid, obs, code):
    """ResourceInUse: "Load balancer '<ARN>' cannot be deleted because it is currently associated with another
    service" - the VPC endpoint service configurations whose load balancers include it (no filter names an NLB:
    every configuration is listed). One ``Deleting`` is going away; one of the manifest has its own result; any
    other is not ours to delete and is reported."""
    out = []
    for sc in list_all(ex.c, "ec2", "describe_vpc_endpoint_service_configurations", "ServiceConfigurations"):
        if rid not in (sc.get("NetworkLoadBalancerArns") or []) + (sc.get("GatewayLoadBalancerArns") or []):
            continue
        sid, state = sc["ServiceId"], endpoint_service_state(sc)
        if state in ("pending", "terminal"):
            out.append(Blocker(g.ENDPOINT_SERVICE, sid, sc.get("ServiceState"), going_away=True))
        elif (g.ENDPOINT_SERVICE, sid) in ex.in_manifest:
            res = ex.results.get((g.ENDPOINT_SERVICE, sid), {})
            out.append(Blocker(g.ENDPOINT_SERVICE, sid, sc.get("ServiceState"), note="in the manifest; its own "
                               "result: %s" % (res.get("error") or res.get("outcome", "pending"))))
        else:
            out.append(Blocker(g.ENDPOINT_SERVICE, sid, sc.get("ServiceState"),
                               note="VPC endpoint service %s (not in the manifest) uses this load balancer: reject its "
                                    "endpoint connections and delete it, or add it to the manifest" % sid))
    return out


def _b_dhcp(ex, rid, obs, code):
    vpcs = ex.c.call("ec2", "describe_vpcs", Filters=[{"Name": "dhcp-options-id", "Values": [rid]}]).get("Vpcs", [])
    return [Blocker(g.VPC, v["VpcId"], "uses these DHCP options",
                    note="associate VPC %s with other options (or 'default'), or delete it" % v["VpcId"]) for v in vpcs]


def _b_role(ex, rid, obs, code):
    out = []
    profiles = ex.c.call("iam", "list_instance_profiles_for_role", RoleName=rid).get("InstanceProfiles", [])
    for p in profiles:
        out.append(Blocker(g.PROFILE, p["InstanceProfileName"], "contains the role", action=lambda p=p: ex.c.call(
            "iam", "remove_role_from_instance_profile", InstanceProfileName=p["InstanceProfileName"], RoleName=rid)))
    if not profiles:
        out.append(Blocker(g.ROLE, rid, "has policies", action=lambda: clear_role(ex, rid)))
    return out


def _b_policy(ex, rid, obs, code):
    resp = ex.c.call("iam", "list_entities_for_policy", PolicyArn=rid)
    out = []
    for kind, key, name in (("AWS::IAM::Role", "PolicyRoles", "RoleName"), ("AWS::IAM::User", "PolicyUsers", "UserName"),
                            ("AWS::IAM::Group", "PolicyGroups", "GroupName")):
        for e in resp.get(key, []):
            out.append(Blocker(kind, e[name], "policy attached",
                               note="detach %s from %s %s (not deleted by this run)" % (rid, kind, e[name])))
    return out


def _b_volume(ex, rid, obs, code):
    """VolumeInUse: the instances the volume is still attached to (one shutting down is going away)."""
    out = []
    for a in PROBES[g.VOLUME](ex, [rid]).get(rid, {}).get("Attachments") or []:
        if a.get("InstanceId"):
            out += _instance_blockers(ex, "instance-id", a["InstanceId"])
    return out


BLOCKERS = {g.VOLUME: _b_volume, g.SUBNET: _b_subnet, g.SG: _b_sg, g.IGW: _b_igw, g.EIP: _b_eip, g.VPC: _b_vpc, g.DHCP: _b_dhcp,
            g.ROLE: _b_role, g.POLICY: _b_policy, g.ELBV2: _b_elbv2}
