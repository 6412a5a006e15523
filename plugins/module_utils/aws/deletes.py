# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the AWS cleanup deletes each resource type, once its dependents are gone: one function per type
(``DELETES``), the batched ones (``BATCH_DELETES``), what "gone" waits on after our own delete when it is not
the resource itself (``WAIT_PROBES``), and the preparation a type needs first (``PREPARE``). A delete returns
"deleted", "pending" (AWS finishes it later) or "absent" (a fresh read found it gone)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

try:
    import botocore.exceptions
except ImportError:  # pragma: no cover - AnsibleAWSModule reports the missing dependency
    pass

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import NOT_FOUND, NOT_FOUND_CODES, chunks, error_code, list_all, pages
from ansible_collections.teardown.gates.plugins.module_utils.aws.probes import (
    ENDPOINT_SERVICE_GONE, PROBES, find_record, split_prefix_id, split_record_id)
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError


def _one_call(service, operation, id_param, outcome="deleted", as_list=False):
    """A delete that is a single API call naming the resource's ID; "pending" when AWS finishes it later."""
    def delete(ex, rid, obs):
        ex.c.call(service, operation, **{id_param: [rid] if as_list else rid})
        return outcome
    return delete


def elb_eni_description(rtype, rid):
    """How AWS describes a load balancer's ENIs: "ELB <name>" (classic), "ELB app/<name>/<id>" (v2)."""
    return "ELB " + (rid.split(":loadbalancer/")[-1] if rtype == g.ELBV2 else rid)


def _probe_lb_enis(rtype):
    def probe(ex, ids):
        descs = dict((elb_eni_description(rtype, i), i) for i in ids)
        enis = ex.c.call("ec2", "describe_network_interfaces", Filters=[
            {"Name": "description", "Values": sorted(descs)}]).get("NetworkInterfaces", [])
        out = {}
        for e in enis:
            owner = descs.get(e.get("Description"))
            if owner:
                out.setdefault(owner, {"state": "pending", "enis": []})["enis"].append(e["NetworkInterfaceId"])
        return out
    return probe


def list_vpc_enis(ex, vpcs):
    """Every ENI of the given VPCs: one DescribeNetworkInterfaces (vpc-id filter) per 200 VPCs and page."""
    out = []
    for chunk in chunks(vpcs, 200):
        out.extend(list_all(ex.c, "ec2", "describe_network_interfaces", "NetworkInterfaces",
                            Filters=[{"Name": "vpc-id", "Values": chunk}]))
    return out


def eni_signals(waiters, enis):
    """What one look at the ENIs of the waiters' VPCs says of each waiter: (type, id) -> "holding" or
    "released".

    A NAT gateway holds while one of its ENI IDs is listed; an instance while an ENI is attached to it;
    a load balancer while an ENI carries its description (``ELB <name>``). "released" is a hint, not a
    proof, for a NAT gateway or an instance: the caller confirms their state by ID."""
    ids = set(e.get("NetworkInterfaceId") for e in enis)
    attached = set((e.get("Attachment") or {}).get("InstanceId") for e in enis)
    descs = set(e.get("Description") for e in enis)
    out = {}
    for w in waiters:
        if w["type"] == g.NAT:
            holding = bool(set(w.get("enis") or ()) & ids)
        elif w["type"] == g.INSTANCE:
            holding = w["id"] in attached
        else:
            holding = w.get("desc") in descs
        out[(w["type"], w["id"])] = "holding" if holding else "released"
    return out


def _batch_terminate(ex, ids):
    """One TerminateInstances for every instance of the level (AWS takes up to 1000 IDs per call); the
    IDs it accepted are started. Any error (one ID already gone fails the whole call) leaves every ID to
    its own delete, which sorts out NotFound and refusals one by one."""
    started = set()
    for chunk in chunks(ids, 1000):
        try:
            resp = ex.c.call("ec2", "terminate_instances", InstanceIds=chunk)
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError):
            continue
        started.update(i["InstanceId"] for i in resp.get("TerminatingInstances", []))
    return started


# deletes that AWS takes for many IDs in one call
BATCH_DELETES = {g.INSTANCE: _batch_terminate}


# after our own delete, what "gone" waits on when it is not the resource itself
WAIT_PROBES = {g.ELB: _probe_lb_enis(g.ELB), g.ELBV2: _probe_lb_enis(g.ELBV2)}


def _d_record(ex, rid, obs):
    zone, rr = find_record(ex, rid) if not obs.get("record") else (split_record_id(rid)[0], obs["record"])
    if rr is None:
        return "absent"
    try:
        ex.c.call("route53", "change_resource_record_sets", HostedZoneId=zone,
                  ChangeBatch={"Changes": [{"Action": "DELETE", "ResourceRecordSet": rr}]})
    except botocore.exceptions.ClientError as e:
        if not _record_vanished(e):
            raise
        # someone else deleted it between our read and our DELETE: only a fresh read may say absent
        if find_record(ex, rid)[1] is None:
            return "absent"
        raise
    return "deleted"


def _record_vanished(exc):
    """Route53 refuses a whole change batch when one DELETE names a record that is no longer there."""
    return error_code(exc) == "InvalidChangeBatch" and "not found" in str(exc)


# how often a zone is re-listed when a concurrent run deleted a record between our list and our DELETE
ZONE_RELIST_ATTEMPTS = 3


def _zone_records(ex, zone):
    return [rr for rr in list_all(ex.c, "route53", "list_resource_record_sets", "ResourceRecordSets", HostedZoneId=zone)
            if rr["Type"] not in ("NS", "SOA")]


def _empty_zone(ex, zone):
    for attempt in range(ZONE_RELIST_ATTEMPTS):
        changes = [{"Action": "DELETE", "ResourceRecordSet": rr} for rr in _zone_records(ex, zone)]
        try:
            for chunk in chunks(changes, 500):
                ex.c.call("route53", "change_resource_record_sets", HostedZoneId=zone,
                          ChangeBatch={"Changes": chunk})
            return
        except botocore.exceptions.ClientError as e:
            if not _record_vanished(e) or attempt == ZONE_RELIST_ATTEMPTS - 1:
                raise


def _d_zone(ex, rid, obs):
    try:
        _empty_zone(ex, rid)
        ex.c.call("route53", "delete_hosted_zone", Id=rid)
    except is_boto3_error_code("HostedZoneNotEmpty"):
        _empty_zone(ex, rid)  # a record written meanwhile: the zone's own contents, deleted with it
        ex.c.call("route53", "delete_hosted_zone", Id=rid)
    return "deleted"


class ObjectsNotDeleted(TeardownGatesError):
    """S3 refused to delete some objects of a bucket (DeleteObjects answers them in Errors, not as a failure)."""


def empty_bucket(c, bucket, prefix=""):
    """One pass: delete every version and delete marker listed (under ``prefix``; an unversioned object is
    listed as version "null"); returns how many it asked to delete. Objects S3 refuses to delete raise
    ObjectsNotDeleted, naming the first, instead of reading as deleted."""
    kw = {"Bucket": bucket}
    if prefix:
        kw["Prefix"] = prefix
    sent = 0
    for page in pages(c, "s3", "list_object_versions", **kw):
        objs = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in page.get("Versions", []) + page.get(
            "DeleteMarkers", [])]
        for chunk in chunks(objs, 1000):
            errors = c.call("s3", "delete_objects", Bucket=bucket, Delete={"Objects": chunk, "Quiet": True}).get("Errors")
            if errors:
                raise ObjectsNotDeleted("bucket %s: %d objects could not be deleted, first %s: %s" % (
                    bucket, len(errors), errors[0].get("Key"), errors[0].get("Message") or errors[0].get("Code")))
        sent += len(objs)
    return sent


def _d_bucket(ex, rid, obs):
    empty_bucket(ex.c, rid)
    try:
        ex.c.call("s3", "delete_bucket", Bucket=rid)
    except is_boto3_error_code("BucketNotEmpty"):
        empty_bucket(ex.c, rid)  # objects written meanwhile
        ex.c.call("s3", "delete_bucket", Bucket=rid)
    return "deleted"


def _d_prefix(ex, rid, obs):
    bucket, prefix = split_prefix_id(rid)
    # nothing left under the prefix (another run emptied it first): gone, but not deleted by us
    return "deleted" if empty_bucket(ex.c, bucket, prefix) else "absent"


def _d_endpoint(ex, rid, obs):
    resp = ex.c.call("ec2", "delete_vpc_endpoints", VpcEndpointIds=[rid])
    for u in resp.get("Unsuccessful", []):
        code = u.get("Error", {}).get("Code")
        if code in NOT_FOUND:
            return "absent"
        raise botocore.exceptions.ClientError({"Error": u.get("Error", {})}, "DeleteVpcEndpoints")
    return "deleted"


# the states of an endpoint's connection to a service that RejectVpcEndpointConnections acts on (API:
# VpcEndpointConnection, VpcEndpointState); rejected, deleting, deleted, failed and expired ones are on their way
# out or gone. AWS spells them in lower or camel case: compared lower-cased
REJECTABLE = ("pendingacceptance", "pending", "available")


def endpoint_connections(ex, service_id):
    """The connections of the endpoints to ``service_id``, every page (DescribeVpcEndpointConnections, service-id)."""
    return list_all(ex.c, "ec2", "describe_vpc_endpoint_connections", "VpcEndpointConnections",
                    Filters=[{"Name": "service-id", "Values": [service_id]}])


def _unsuccessful(resp, op, gone=NOT_FOUND):
    """The per-ID failures EC2's batch calls answer in ``Unsuccessful`` (with a 200): True when every one says the ID is
    gone (``gone`` codes), else the first other one raised as the ClientError it is."""
    for u in resp.get("Unsuccessful") or []:
        if (u.get("Error") or {}).get("Code") not in gone:
            raise botocore.exceptions.ClientError({"Error": u.get("Error") or {}}, op)
    return bool(resp.get("Unsuccessful"))


def _d_endpoint_service(ex, rid, obs):
    """A VPC endpoint service configuration, as HyperShift's DestroyVPCEndpointServices deletes it
    (openshift/hypershift@3ee9615 cmd/infra/aws/destroy.go:475-526): reject the endpoints still connected to it
    (AWS refuses to delete a service with Available or PendingAcceptance connections:
    ExistingVpcEndpointConnections), then delete the configuration. Both answer per ID in ``Unsuccessful``: an
    endpoint gone meanwhile needs no rejection; a configuration answered not found is "absent". AWS may list the
    configuration ``Deleting`` for a while: "pending", waited on by ID (its NLB cannot go before)."""
    live = sorted(set(cn["VpcEndpointId"] for cn in endpoint_connections(ex, rid)
                      if cn.get("VpcEndpointId") and (cn.get("VpcEndpointState") or "").lower() in REJECTABLE))
    for chunk in chunks(live, 100):
        _unsuccessful(ex.c.call("ec2", "reject_vpc_endpoint_connections", ServiceId=rid, VpcEndpointIds=chunk),
                      "RejectVpcEndpointConnections")
    resp = ex.c.call("ec2", "delete_vpc_endpoint_service_configurations", ServiceIds=[rid])
    if _unsuccessful(resp, "DeleteVpcEndpointServiceConfigurations", gone=ENDPOINT_SERVICE_GONE):
        return "absent"
    return "pending"


def _links(ex, rtype, rid, obs, key):
    """The resource's links (associations, attachments) from what discovery saw, else from a probe;
    None when the probe finds the resource gone."""
    if obs.get(key) is not None:
        return obs[key]
    found = PROBES[rtype](ex, [rid])
    return found[rid].get(key, []) if rid in found else None


def _call_unless_gone(ex, service, operation, **params):
    """A detach-style call whose target may already be gone: NotFound is what we wanted."""
    try:
        ex.c.call(service, operation, **params)
    except is_boto3_error_code(NOT_FOUND_CODES):
        pass


def _d_route_table(ex, rid, obs):
    assocs = _links(ex, g.ROUTE_TABLE, rid, obs, "Associations")
    if assocs is None:
        return "absent"
    for a in assocs:
        if not a.get("Main") and a.get("RouteTableAssociationId"):
            _call_unless_gone(ex, "ec2", "disassociate_route_table", AssociationId=a["RouteTableAssociationId"])
    ex.c.call("ec2", "delete_route_table", RouteTableId=rid)
    return "deleted"


def _d_igw(ex, rid, obs):
    atts = _links(ex, g.IGW, rid, obs, "Attachments")
    if atts is None:
        return "absent"
    for a in atts:
        if a.get("VpcId"):
            _call_unless_gone(ex, "ec2", "detach_internet_gateway", InternetGatewayId=rid, VpcId=a["VpcId"])
    ex.c.call("ec2", "delete_internet_gateway", InternetGatewayId=rid)
    return "deleted"


def _d_profile(ex, rid, obs):
    roles = obs.get("Roles")
    if roles is None:
        roles = ex.c.call("iam", "get_instance_profile", InstanceProfileName=rid)["InstanceProfile"].get("Roles", [])
    for r in roles:
        _call_unless_gone(ex, "iam", "remove_role_from_instance_profile", InstanceProfileName=rid, RoleName=r["RoleName"])
    ex.c.call("iam", "delete_instance_profile", InstanceProfileName=rid)
    return "deleted"


def clear_role(ex, rid, obs=None):
    """Detach the role's managed policies and delete its inline ones: from what discovery saw
    (GetAccountAuthorizationDetails) when it saw them, else listed now. A refusal later (a policy
    attached meanwhile) comes back here through the blocker lookup, which lists afresh."""
    obs = obs or {}
    attached = obs.get("AttachedManagedPolicies")
    if attached is None:
        attached = ex.c.call("iam", "list_attached_role_policies", RoleName=rid).get("AttachedPolicies", [])
    for p in attached:
        _call_unless_gone(ex, "iam", "detach_role_policy", RoleName=rid, PolicyArn=p["PolicyArn"])
    inline = obs.get("RolePolicyList")
    names = [p["PolicyName"] for p in inline] if inline is not None else ex.c.call(
        "iam", "list_role_policies", RoleName=rid).get("PolicyNames", [])
    for name in names:
        _call_unless_gone(ex, "iam", "delete_role_policy", RoleName=rid, PolicyName=name)


def _d_role(ex, rid, obs):
    clear_role(ex, rid, obs)
    ex.c.call("iam", "delete_role", RoleName=rid)
    return "deleted"


def _d_policy(ex, rid, obs):
    versions = obs.get("PolicyVersionList")
    if versions is None:
        versions = ex.c.call("iam", "list_policy_versions", PolicyArn=rid).get("Versions", [])
    for v in versions:
        if not v.get("IsDefaultVersion"):
            _call_unless_gone(ex, "iam", "delete_policy_version", PolicyArn=rid, VersionId=v["VersionId"])
    ex.c.call("iam", "delete_policy", PolicyArn=rid)
    return "deleted"


def deleted_with_instance(ex, volume, seen=None):
    """The instance of this run's manifest that AWS deletes ``volume`` with (an attachment marked
    DeleteOnTermination), or None: such a volume is verified by ID, never deleted a second time. An attachment
    that does not say (an answer without the field) takes what ``seen`` (discovery's look) said of it."""
    said = dict((a.get("InstanceId"), a.get("DeleteOnTermination")) for a in (seen or {}).get("Attachments") or [])
    for a in volume.get("Attachments") or []:
        iid = a.get("InstanceId")
        dot = a["DeleteOnTermination"] if "DeleteOnTermination" in a else said.get(iid)
        if dot and (g.INSTANCE, iid) in ex.in_manifest:
            return iid
    return None


def _d_volume(ex, rid, obs):
    """Looked up again first: what discovery saw was before its instance was terminated. Gone or ``deleting``:
    nothing to do. Still attached with DeleteOnTermination to an instance of the manifest: AWS deletes it
    ("with-instance", waited on and verified). Otherwise DeleteVolume; an attached volume is refused with
    VolumeInUse, whose blocker is its instance."""
    now = PROBES[g.VOLUME](ex, [rid]).get(rid)
    if now is None or now["state"] == "terminal":
        return "absent"
    if deleted_with_instance(ex, now, obs):
        return "with-instance"
    ex.c.call("ec2", "delete_volume", VolumeId=rid)
    return "pending"


DELETES = {
    g.VOLUME: _d_volume,
    g.RECORD: _d_record, g.ZONE: _d_zone, g.BUCKET: _d_bucket, g.PREFIX: _d_prefix, g.ENDPOINT: _d_endpoint,
    g.ENDPOINT_SERVICE: _d_endpoint_service,
    g.ROUTE_TABLE: _d_route_table, g.IGW: _d_igw, g.PROFILE: _d_profile, g.ROLE: _d_role, g.POLICY: _d_policy,
    g.INSTANCE: _one_call("ec2", "terminate_instances", "InstanceIds", "pending", as_list=True),
    g.NAT: _one_call("ec2", "delete_nat_gateway", "NatGatewayId", "pending"),
    # a load balancer is done when its ENIs are released: they hold its subnets and groups until then
    g.ELB: _one_call("elb", "delete_load_balancer", "LoadBalancerName", "pending"),
    g.ELBV2: _one_call("elbv2", "delete_load_balancer", "LoadBalancerArn", "pending"),
    g.TARGET_GROUP: _one_call("elbv2", "delete_target_group", "TargetGroupArn"),
    g.SG: _one_call("ec2", "delete_security_group", "GroupId"),
    g.SUBNET: _one_call("ec2", "delete_subnet", "SubnetId"),
    g.EIP: _one_call("ec2", "release_address", "AllocationId"),
    g.VPC: _one_call("ec2", "delete_vpc", "VpcId"),
    g.DHCP: _one_call("ec2", "delete_dhcp_options", "DhcpOptionsId"),
    g.OIDC: _one_call("iam", "delete_open_id_connect_provider", "OpenIDConnectProviderArn"),
}


# ====================================================================== preparation per type
def group_refs(perm):
    return [p for p in perm.get("UserIdGroupPairs", []) if p.get("GroupId")]


def revoke_group_refs(ex, group, only_to=None):
    """Revoke the rules of ``group`` that reference other groups (or only ``only_to``)."""
    for direction, key in (("ingress", "IpPermissions"), ("egress", "IpPermissionsEgress")):
        perms = []
        for perm in group.get(key, []):
            pairs = [p for p in group_refs(perm) if only_to is None or p["GroupId"] == only_to]
            if pairs:
                q = dict((k, v) for k, v in perm.items() if k in ("IpProtocol", "FromPort", "ToPort"))
                q["UserIdGroupPairs"] = [{"GroupId": p["GroupId"]} for p in pairs]
                perms.append(q)
        if perms:
            try:
                ex.c.call("ec2", "revoke_security_group_%s" % direction, GroupId=group["GroupId"], IpPermissions=perms)
            except is_boto3_error_code(NOT_FOUND_CODES):  # InvalidPermission.NotFound among them: the rule is gone
                pass


def _prepare_sgs(ex, ids):
    """Groups that reference each other cannot be deleted one by one: revoke those rules first."""
    obs = ex.observed.get(g.SG, {})
    for i in ids:
        group = obs.get(i)
        if group and group.get("state") == "present":
            revoke_group_refs(ex, group)


PREPARE = {g.SG: _prepare_sgs}
