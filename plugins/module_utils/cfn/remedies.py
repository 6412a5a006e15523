# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What holds a resource that CloudFormation refused to delete, and how each remedy releases it. A
remedy first finds the holders (reads only, so check mode can show them) and then releases them
(mutating, never in check mode); ``release`` counts what AWS accepted.

A holder that is a thing of its own - a network interface, or a role, user or group a managed policy is attached
to - says whether it is the stack's (``outside_stack``, from the physical IDs of the stack's tree): the remedy
touches one outside the stack only when the caller names it (release_outside_stack), since moving an interface or
detaching a policy changes what someone else runs (#55)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import NOT_FOUND_BY_SERVICE, NOT_FOUND_CODES, \
    error_code, is_read_operation, list_all, page_items, pages
from ansible_collections.teardown.gates.plugins.module_utils.aws.deletes import ObjectsNotDeleted, empty_bucket
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import datetime_iso
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError


def error_message(exc):
    try:
        return exc.response["Error"].get("Message") or str(exc)
    except (AttributeError, KeyError, TypeError):
        return str(exc)


def is_missing_stack(exc):
    return error_code(exc) == "ValidationError" and "does not exist" in error_message(exc)


def utc(ts):
    """A time botocore parsed (a datetime) in the report's format; anything else as it came."""
    if ts is None:
        return None
    if hasattr(ts, "astimezone"):
        try:
            return datetime_iso(ts)
        except (ValueError, TypeError):
            return str(ts)
    return str(ts)


class Unclear(TeardownGatesError):
    """A remedy found something it cannot release."""


class OutsideStack(Unclear):
    """A holder outside the stack that the caller did not name in release_outside_stack."""


def _inside(inside, *ids):
    """Whether any of ``ids`` is a physical ID of the stack's tree; with the tree unknown (None), nothing is."""
    return inside is not None and any(i and i in inside for i in ids)


def needs_consent(holders, consent=()):
    """The holders outside the stack that the remedy would change and the caller has not named."""
    named = set(consent or ())
    return [h for h in holders or [] if h.get("outside_stack") and h.get("would") and h["id"] not in named]


def outside_message(holder, stack):
    """The refusal of one holder, by ID, with the way to consent."""
    return "%s is outside the stack %s (%s); name it in release_outside_stack to let the remedy %s" % (
        holder["id"], stack, holder.get("what"), holder["would"])


# Each finder returns a list of holders: dicts {kind, id, what} (read-only). Each releaser undoes them.

def _bucket_holders(c, bucket):
    kw = {"Bucket": bucket, "MaxKeys": 1000}
    resp = c.call("s3", "list_object_versions", **kw)
    n = len(resp.get("Versions", [])) + len(resp.get("DeleteMarkers", []))
    if n == 0:
        resp2 = c.call("s3", "list_objects_v2", Bucket=bucket, MaxKeys=1)
        n = resp2.get("KeyCount", 0)
    if n == 0:
        return []
    more = "+" if resp.get("IsTruncated") else ""
    return [dict(kind="objects", id=bucket, what="%d%s object versions and delete markers" % (n, more))]


# passes of the executor's empty_bucket until a listing finds the bucket empty (objects written meanwhile)
EMPTY_PASSES = 10


def _empty_bucket(c, bucket):
    deleted = 0
    for dummy in range(EMPTY_PASSES):
        try:
            sent = empty_bucket(c, bucket)
        except ObjectsNotDeleted as e:
            raise Unclear(str(e))
        if not sent:
            return deleted
        deleted += sent
    raise Unclear("bucket %s still lists objects after %d passes that deleted %d" % (bucket, EMPTY_PASSES, deleted))


# A role's or a user's holders, one row per kind: how the holders are listed (IAM call, response key, the
# field naming each holder, or None for a list of names), how they are described, and how each is let go
# (IAM call, parameter naming the holder).
def _policies_of(principal):
    """The managed and the inline policies of a role or a user: IAM names their calls alike for both."""
    return (
        ("attached_policy", "list_attached_%s_policies" % principal, "AttachedPolicies", "PolicyArn",
         "managed policy attached to", "detach_%s_policy" % principal, "PolicyArn"),
        ("inline_policy", "list_%s_policies" % principal, "PolicyNames", None,
         "inline policy of", "delete_%s_policy" % principal, "PolicyName"),
    )


_PRINCIPALS = {
    "RoleName": ("role", _policies_of("role") + (
        ("instance_profile", "list_instance_profiles_for_role", "InstanceProfiles", "InstanceProfileName",
         "instance profile holding", "remove_role_from_instance_profile", "InstanceProfileName"),
    )),
    "UserName": ("user", _policies_of("user") + (
        ("group", "list_groups_for_user", "Groups", "GroupName",
         "group membership of", "remove_user_from_group", "GroupName"),
    )),
}


def _principal_holders(c, key, name):
    noun, rows = _PRINCIPALS[key]
    h = []
    for kind, op, resp_key, field, what, dummy_op, dummy_param in rows:
        for item in list_all(c, "iam", op, resp_key, **{key: name}):
            h.append(dict(kind=kind, id=item[field] if field else item, what="%s %s %s" % (what, noun, name)))
    return h


def _release_principal(c, key, name, holders):
    release = dict((row[0], row[5:]) for row in _PRINCIPALS[key][1])
    for x in holders:
        op, param = release[x["kind"]]
        _ok_if_gone(c.call, "iam", op, **{key: name, param: x["id"]})


def _policy_holders(c, arn, inside=None):
    h = []
    entities = pages(c, "iam", "list_entities_for_policy", PolicyArn=arn)
    for kind, key, field in (("role", "PolicyRoles", "RoleName"), ("user", "PolicyUsers", "UserName"),
                             ("group", "PolicyGroups", "GroupName")):
        for e in page_items(entities, key):
            # a principal's physical ID in CloudFormation is its name
            h.append(dict(kind=kind, id=e[field], what="%s with policy %s attached" % (kind, arn),
                          outside_stack=not _inside(inside, e[field]), would="detach policy %s from it" % arn))
    for v in list_all(c, "iam", "list_policy_versions", "Versions", PolicyArn=arn):
        if not v.get("IsDefaultVersion"):
            h.append(dict(kind="version", id=v["VersionId"], what="non-default version of policy %s" % arn))
    return h


def _release_policy(c, arn, holders):
    for x in holders:
        op, key = {"role": ("detach_role_policy", "RoleName"), "user": ("detach_user_policy", "UserName"),
                   "group": ("detach_group_policy", "GroupName"), "version": ("delete_policy_version", "VersionId")}[
            x["kind"]]
        _ok_if_gone(c.call, "iam", op, PolicyArn=arn, **{key: x["id"]})


def _profile_holders(c, name):
    try:
        ip = c.call("iam", "get_instance_profile", InstanceProfileName=name)["InstanceProfile"]
    except is_boto3_error_code(list(NOT_FOUND_BY_SERVICE["iam"])):
        return []
    return [dict(kind="role", id=r["RoleName"], what="role in instance profile %s" % name) for r in ip.get("Roles", [])]


def _release_profile(c, name, holders):
    for x in holders:
        _ok_if_gone(c.call, "iam", "remove_role_from_instance_profile", InstanceProfileName=name, RoleName=x["id"])


# what a remedy's target (or the refused resource itself) answers once it is already gone: the collection's one
# not-found vocabulary (aws_client.NOT_FOUND_BY_SERVICE says per service and per code why each means gone)
GONE_CODES = NOT_FOUND_CODES


def _ok_if_gone(call, service, op, **kw):
    try:
        return call(service, op, **kw)
    except is_boto3_error_code(GONE_CODES):
        return None


def _rds_holders(c, rtype, ident):
    try:
        if rtype == "AWS::RDS::DBCluster":
            items = c.call("rds", "describe_db_clusters", DBClusterIdentifier=ident).get("DBClusters", [])
        else:
            items = c.call("rds", "describe_db_instances", DBInstanceIdentifier=ident).get("DBInstances", [])
    except is_boto3_error_code(list(NOT_FOUND_BY_SERVICE["rds"])):
        return []
    if items and items[0].get("DeletionProtection"):
        return [dict(kind="deletion_protection", id=ident, what="DeletionProtection=true")]
    return []


def _release_rds(c, rtype, ident, holders):
    if not holders:
        return
    if rtype == "AWS::RDS::DBCluster":
        c.call("rds", "modify_db_cluster", DBClusterIdentifier=ident, DeletionProtection=False, ApplyImmediately=True)
    else:
        c.call("rds", "modify_db_instance", DBInstanceIdentifier=ident, DeletionProtection=False,
               ApplyImmediately=True)


def _eni_would(x, gid=None):
    """What the remedy does to a network interface (as _release_sg or, without ``gid``, _release_enis decides), or
    None when it never touches it (it raises Unclear for it instead)."""
    if x["requester_managed"]:
        return None
    if gid is None:  # in a refusing subnet: an unattached interface is deleted, an attached one goes with its instance
        return None if x["attached"] else "delete it"
    if not x["attached"] and x.get("status") in ("available", None):
        return "delete it"
    others = [g for g in x["groups"] if g != gid]
    if others:
        return "move it to its other groups %s" % ", ".join(others)
    return "move it to the VPC's default group"


def _eni_holder(eni, inside, holds, gid=None):
    """A network interface as a holder; ``holds`` says how it holds the refused resource."""
    nid = eni["NetworkInterfaceId"]
    instance = (eni.get("Attachment") or {}).get("InstanceId")
    x = dict(kind="eni", id=nid, status=eni.get("Status"), attached=bool(eni.get("Attachment")), vpc=eni.get("VpcId"),
             groups=[g["GroupId"] for g in eni.get("Groups", [])] if gid else [],
             requester_managed=bool(eni.get("RequesterManaged")), instance=instance,
             # the stack's own interface, or one attached to the stack's own instance
             outside_stack=not _inside(inside, nid, instance),
             what="network interface %s (%s%s) %s" % (
                 nid, eni.get("Status"), ", attached to instance %s" % instance if instance else "", holds))
    x["would"] = _eni_would(x, gid)
    return x


def _sg_holders(c, gid, inside=None):
    h = []
    for f in ("ip-permission.group-id", "egress.ip-permission.group-id"):
        for sg in list_all(c, "ec2", "describe_security_groups", "SecurityGroups",
                           Filters=[{"Name": f, "Values": [gid]}]):
            if sg["GroupId"] == gid:
                continue
            for direction, key in (("ingress", "IpPermissions"), ("egress", "IpPermissionsEgress")):
                for perm in sg.get(key, []):
                    pairs = [p for p in perm.get("UserIdGroupPairs", []) if p.get("GroupId") == gid]
                    if pairs:
                        rule = dict((k, v) for k, v in perm.items() if k in ("IpProtocol", "FromPort", "ToPort"))
                        rule["UserIdGroupPairs"] = [{"GroupId": gid}]
                        h.append(dict(kind="sg_rule_" + direction, id=sg["GroupId"], rule=rule,
                                      what="%s rule of %s refers to %s" % (direction, sg["GroupId"], gid)))
    for eni in list_all(c, "ec2", "describe_network_interfaces", "NetworkInterfaces",
                        Filters=[{"Name": "group-id", "Values": [gid]}]):
        h.append(_eni_holder(eni, inside, "uses %s" % gid, gid))
    # dedupe rules that appear under both filters
    seen, out = set(), []
    for x in h:
        k = (x["kind"], x["id"], repr(x.get("rule")))
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def _release_sg(c, gid, holders):
    for x in holders:
        if x["kind"] == "sg_rule_ingress":
            _ok_if_gone(c.call, "ec2", "revoke_security_group_ingress", GroupId=x["id"], IpPermissions=[x["rule"]])
        elif x["kind"] == "sg_rule_egress":
            _ok_if_gone(c.call, "ec2", "revoke_security_group_egress", GroupId=x["id"], IpPermissions=[x["rule"]])
        elif x["kind"] == "eni":
            if x["requester_managed"]:
                raise Unclear("%s is managed by an AWS service; delete the service resource that owns it" % x["id"])
            if not x["attached"] and x.get("status") in ("available", None):
                _ok_if_gone(c.call, "ec2", "delete_network_interface", NetworkInterfaceId=x["id"])
                continue
            others = [g for g in x["groups"] if g != gid]
            if not others:
                default = c.call("ec2", "describe_security_groups", Filters=[
                    {"Name": "vpc-id", "Values": [x["vpc"]]}, {"Name": "group-name", "Values": ["default"]}]).get(
                    "SecurityGroups", [])
                if not default:
                    raise Unclear("%s: no other group to move the attached interface to" % x["id"])
                others = [default[0]["GroupId"]]
            c.call("ec2", "modify_network_interface_attribute", NetworkInterfaceId=x["id"], Groups=others)


def _subnet_holders(c, sid, inside=None):
    return [_eni_holder(e, inside, "in %s" % sid)
            for e in list_all(c, "ec2", "describe_network_interfaces", "NetworkInterfaces",
                              Filters=[{"Name": "subnet-id", "Values": [sid]}])]


def _release_enis(c, rid, holders):
    for x in holders:
        if x["attached"] or x["requester_managed"]:
            raise Unclear("%s is attached or managed by a service; it goes with its instance or service" % x["id"])
        _ok_if_gone(c.call, "ec2", "delete_network_interface", NetworkInterfaceId=x["id"])


# (remedy, resource type) -> (finder, releaser)
REMEDIES = {
    ("empty_buckets", "AWS::S3::Bucket"): (_bucket_holders, lambda c, rid, h: _empty_bucket(c, rid)),
    ("detach_iam", "AWS::IAM::Role"): (lambda c, rid: _principal_holders(c, "RoleName", rid),
                                       lambda c, rid, h: _release_principal(c, "RoleName", rid, h)),
    ("detach_iam", "AWS::IAM::User"): (lambda c, rid: _principal_holders(c, "UserName", rid),
                                       lambda c, rid, h: _release_principal(c, "UserName", rid, h)),
    ("detach_iam", "AWS::IAM::ManagedPolicy"): (_policy_holders, _release_policy),
    ("detach_iam", "AWS::IAM::InstanceProfile"): (_profile_holders, _release_profile),
    ("disable_deletion_protection", "AWS::RDS::DBCluster"): (
        lambda c, rid: _rds_holders(c, "AWS::RDS::DBCluster", rid),
        lambda c, rid, h: _release_rds(c, "AWS::RDS::DBCluster", rid, h)),
    ("disable_deletion_protection", "AWS::RDS::DBInstance"): (
        lambda c, rid: _rds_holders(c, "AWS::RDS::DBInstance", rid),
        lambda c, rid, h: _release_rds(c, "AWS::RDS::DBInstance", rid, h)),
    ("release_dependencies", "AWS::EC2::SecurityGroup"): (_sg_holders, _release_sg),
    ("release_dependencies", "AWS::EC2::Subnet"): (_subnet_holders, _release_enis),
}


# the finders whose holders may be outside the stack: they take the physical IDs of the stack's tree
KNOWS_STACK = frozenset([("detach_iam", "AWS::IAM::ManagedPolicy"), ("release_dependencies", "AWS::EC2::SecurityGroup"),
                         ("release_dependencies", "AWS::EC2::Subnet")])


def find_holders(c, remedy, rtype, physical_id, inside=None):
    """Read-only: what holds the resource, for a remedy; None when the remedy does not cover that type. ``inside``:
    the physical IDs of the stack and its nested stacks (None: unknown, so every such holder is outside)."""
    entry = REMEDIES.get((remedy, rtype))
    if entry is None or not physical_id:
        return None
    if (remedy, rtype) in KNOWS_STACK:
        return entry[0](c, physical_id, inside)
    return entry[0](c, physical_id)


class _Tally:
    """The clients, counting the mutating calls AWS accepted: a release whose every call found its target
    already gone (another run let it go first) changed nothing."""

    def __init__(self, c):
        self.c, self.accepted = c, 0

    def call(self, service, op, **kw):
        resp = self.c.call(service, op, **kw)
        if not is_read_operation(op):
            self.accepted += 1
        return resp

    def __getattr__(self, name):
        return getattr(self.c, name)


def release(c, remedy, rtype, physical_id, holders, consent=()):
    """Let go of what holds the resource; returns how many mutating calls AWS accepted. A holder outside the stack
    not named in ``consent`` raises OutsideStack before any call."""
    refused = needs_consent(holders, consent)
    if refused:
        raise OutsideStack("; ".join("%s is outside the stack; name it in release_outside_stack to let the remedy %s"
                                     % (h["id"], h["would"]) for h in refused))
    tally = _Tally(c)
    REMEDIES[(remedy, rtype)][1](tally, physical_id, holders)
    return tally.accepted
