# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CloudFormation deletion refusals: classify them, decide what may clear them, clear them, and
drive DeleteStack until DELETE_COMPLETE.

* Classification (pure): a resource's ``ResourceStatusReason`` (or a stack's status reason) as AWS
  words it -> one refusal class. The service error code is looked for first (``Error Code:
  BucketNotEmpty``), then the wording of the message, then the resource type.
* Remedies: each class has at most one remedy, named as the module's ``clear`` choices. A remedy
  first finds what holds the resource (read-only, so check mode can show it) and then releases
  those holders (mutating, never in check mode).
* Ordering (pure): in a set of stacks, a stack that imports another's export goes first, and a
  nested stack whose parent is in the set is left to its parent.
* The driver (:class:`Teardown`): delete, wait (bounded), on DELETE_FAILED classify every refusal,
  clear what is allowed, delete again, until DELETE_COMPLETE, a refusal it may not clear, or the
  deadline. A ``*_COMPLETE`` other than DELETE_COMPLETE after a delete is a refusal, not a success.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import time

from ansible_collections.teardown.gates.plugins.module_utils.aws_execute import is_read_operation

try:
    import botocore.exceptions
except ImportError:  # pragma: no cover - AnsibleAWSModule reports the missing dependency
    pass

DELETE_CONFLICT = "DeleteConflict"
DEPENDENCY_VIOLATION = "DependencyViolation"
BUCKET_NOT_EMPTY = "BucketNotEmpty"
DELETION_PROTECTION = "DeletionProtection"
CHILD_STACK_FAILED = "ChildStackFailed"
EXPORT_IN_USE = "ExportInUse"
TERMINATION_PROTECTION = "TerminationProtection"
TRANSIENT = "transient"
OTHER = "other"

NOT_FOUND = "NOT_FOUND"  # CloudFormation answered that no such stack exists
UNKNOWN = "UNKNOWN"  # no read answered: the stack may be in any state
CLASSES = (DELETE_CONFLICT, DEPENDENCY_VIOLATION, BUCKET_NOT_EMPTY, DELETION_PROTECTION, CHILD_STACK_FAILED,
           EXPORT_IN_USE, TERMINATION_PROTECTION, TRANSIENT, OTHER)

# class -> the module option (a ``clear`` choice, or a boolean option) that clears it
REMEDY = {
    BUCKET_NOT_EMPTY: "empty_buckets",
    DELETE_CONFLICT: "detach_iam",
    DELETION_PROTECTION: "disable_deletion_protection",
    DEPENDENCY_VIOLATION: "release_dependencies",
    CHILD_STACK_FAILED: "nested",
    TERMINATION_PROTECTION: "disable_termination_protection",
    TRANSIENT: "retry",
    EXPORT_IN_USE: None,
    OTHER: None,
}
CLEAR_CHOICES = ("empty_buckets", "detach_iam", "disable_deletion_protection", "release_dependencies", "nested")

WHY = {
    BUCKET_NOT_EMPTY: "the bucket still holds objects, versions or delete markers",
    DELETE_CONFLICT: "the IAM entity still has policies attached, inline policies or instance-profile membership",
    DELETION_PROTECTION: "deletion protection is enabled on the database",
    DEPENDENCY_VIOLATION: "an ENI or another security group's rule still refers to it",
    CHILD_STACK_FAILED: "a resource of the nested stack refused to go",
    TERMINATION_PROTECTION: "termination protection is enabled on the stack",
    EXPORT_IN_USE: "an export of this stack is still imported by another stack",
    TRANSIENT: "a transient service error",
    OTHER: "an error no remedy of this module clears",
}

_CODE_RE = re.compile(r"Error Code:\s*([A-Za-z0-9_.]+)")
_STATUS_CODE_RE = re.compile(r"Status Code:\s*(\d{3})")
_TRANSIENT_CODES = frozenset(["Throttling", "ThrottlingException", "RequestLimitExceeded", "ServiceUnavailable",
                              "InternalFailure", "InternalError", "SlowDown", "RequestTimeout", "TooManyRequestsException"])
_RULES = (
    (EXPORT_IN_USE, re.compile(r"export .* cannot be deleted as it is in use by|is in use by .*import", re.I)),
    (TERMINATION_PROTECTION, re.compile(r"termination ?protection is enabled", re.I)),
    (BUCKET_NOT_EMPTY, re.compile(r"bucket you tried to delete is not empty|bucket .*not empty", re.I)),
    (DELETION_PROTECTION, re.compile(r"deletion ?protection|cannot delete protected", re.I)),
    (DELETE_CONFLICT, re.compile(r"must (detach|delete|remove) .*first|cannot delete entity|"
                                 r"cannot delete a policy attached", re.I)),
    (DEPENDENCY_VIOLATION, re.compile(r"has a dependent object|has dependencies and cannot be deleted|"
                                      r"dependencyviolation", re.I)),
    (CHILD_STACK_FAILED, re.compile(r"embedded stack .* was not successfully deleted|nested stack", re.I)),
    (TRANSIENT, re.compile(r"rate exceeded|throttl|service unavailable|internal failure|try again later|timed out",
                           re.I)),
)
_CODE_CLASS = {
    "BucketNotEmpty": BUCKET_NOT_EMPTY,
    "DeleteConflict": DELETE_CONFLICT,
    "DependencyViolation": DEPENDENCY_VIOLATION,
    "InvalidDBClusterStateFault": None,
}


def classify(reason, resource_type=None):
    """The refusal class of one status reason (a resource's or the stack's)."""
    text = reason or ""
    m = _CODE_RE.search(text)
    if m:
        code = m.group(1)
        if code in _CODE_CLASS and _CODE_CLASS[code]:
            return _CODE_CLASS[code]
        if code in _TRANSIENT_CODES:
            return TRANSIENT
    for cls, rx in _RULES:
        if rx.search(text):
            return cls
    if resource_type == "AWS::CloudFormation::Stack" and text:
        return CHILD_STACK_FAILED
    m = _STATUS_CODE_RE.search(text)
    if m and m.group(1).startswith("5"):
        return TRANSIENT
    return OTHER


def decide(cls, clear, disable_termination_protection=False, retain_unclearable=False, attempts=0, max_attempts=3):
    """What to do about one refusal: ``(action, detail)`` where action is ``clear`` (apply REMEDY[cls]),
    ``retry`` (transient, delete again), ``retain`` (RetainResources) or ``stop``; detail names the
    option that would clear it when stopping."""
    remedy = REMEDY.get(cls)
    if cls == TRANSIENT:
        if attempts < max_attempts:
            return "retry", None
        return ("retain", None) if retain_unclearable else ("stop", "it kept failing after %d deletes" % attempts)
    if cls == TERMINATION_PROTECTION:
        return ("clear", None) if disable_termination_protection else ("stop", "disable_termination_protection=true")
    allowed = remedy is not None and remedy in (clear or ())
    if allowed and attempts < max_attempts:
        return "clear", None
    if retain_unclearable and cls not in (EXPORT_IN_USE,):
        return "retain", None
    if allowed:
        return "stop", "it kept refusing after %s was applied %d times" % (remedy, attempts)
    if remedy is None:
        if cls == EXPORT_IN_USE:
            return "stop", "delete the importing stacks first (the cfn_refusals role orders importers first)"
        return "stop", "retain_unclearable=true (keeps the resource, listed in retained) or clear it by hand"
    return "stop", "clear: [%s]" % remedy


class OrderError(Exception):
    pass


def order_stacks(stacks):
    """Order a set of stacks for deletion.

    ``stacks``: list of dicts with ``name``, ``id`` (ARN), optional ``parent_id`` (a nested stack's
    parent), ``exports`` (export names) and ``imports`` (export names it imports). Returns
    ``(ordered, handled_by_parent)``: importers come before the stacks whose exports they import;
    a nested stack whose parent is in the set is not run on its own (its parent handles it).
    Raises OrderError on an import cycle."""
    ids = set(s["id"] for s in stacks)
    handled = [s for s in stacks if s.get("parent_id") and s["parent_id"] in ids]
    handled_ids = set(s["id"] for s in handled)
    run = [s for s in stacks if s["id"] not in handled_ids]
    # a nested stack's exports and imports count as its top-level ancestor's
    by_id = dict((s["id"], s) for s in stacks)

    def top(s):
        seen = set()
        while s.get("parent_id") in by_id and s["id"] not in seen:
            seen.add(s["id"])
            s = by_id[s["parent_id"]]
        return s["id"]

    exporter_of = {}
    for s in stacks:
        for e in s.get("exports", ()):
            exporter_of[e] = top(s)
    must_precede = dict((s["id"], set()) for s in run)  # id -> ids that must be deleted before it
    for s in stacks:
        me = top(s)
        for e in s.get("imports", ()):
            exp = exporter_of.get(e)
            if exp is not None and exp != me and exp in must_precede:
                must_precede[exp].add(me)
    ordered, done = [], set()
    pending = list(run)
    while pending:
        ready = [s for s in pending if must_precede[s["id"]] <= done]
        if not ready:
            raise OrderError("import cycle between stacks: %s" % ", ".join(sorted(s["name"] for s in pending)))
        for s in ready:
            ordered.append(s)
            done.add(s["id"])
        pending = [s for s in pending if s["id"] not in done]
    return ordered, handled


# ---------------------------------------------------------------------------------------------------
# AWS side


def error_code(exc):
    try:
        return exc.response["Error"]["Code"]
    except (AttributeError, KeyError, TypeError):
        return None


def error_message(exc):
    try:
        return exc.response["Error"].get("Message") or str(exc)
    except (AttributeError, KeyError, TypeError):
        return str(exc)


def is_missing_stack(exc):
    return error_code(exc) == "ValidationError" and "does not exist" in error_message(exc)


def utc(ts):
    if ts is None:
        return None
    if hasattr(ts, "strftime"):
        try:
            return ts.astimezone(_UTC).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ts.microsecond // 1000)
        except (ValueError, TypeError):
            return str(ts)
    return str(ts)


try:
    from datetime import timezone as _tz
    _UTC = _tz.utc
except ImportError:  # pragma: no cover
    _UTC = None


class Unclear(Exception):
    """A remedy found something it cannot release."""


def _paginate(c, service, op, key, **kw):
    out = []
    token_in, token_out = {
        "list_object_versions": (None, None),
    }.get(op, ("NextToken", "NextToken"))
    marker_style = op in ("list_attached_role_policies", "list_role_policies", "list_instance_profiles_for_role",
                          "list_entities_for_policy", "list_attached_user_policies", "list_user_policies",
                          "list_groups_for_user", "list_access_keys", "list_attached_group_policies",
                          "list_group_policies", "get_group", "list_policy_versions")
    while True:
        resp = c.call(service, op, **kw)
        if isinstance(key, tuple):
            for k in key:
                out.extend(resp.get(k, []))
        else:
            out.extend(resp.get(key, []))
        if marker_style:
            if resp.get("IsTruncated"):
                kw["Marker"] = resp["Marker"]
                continue
            return out
        tok = resp.get(token_out) if token_out else None
        if not tok:
            return out
        kw[token_in] = tok


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


def _empty_bucket(c, bucket):
    deleted = 0
    while True:
        resp = c.call("s3", "list_object_versions", Bucket=bucket, MaxKeys=1000)
        objs = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                for v in resp.get("Versions", []) + resp.get("DeleteMarkers", [])]
        if not objs:
            plain = c.call("s3", "list_objects_v2", Bucket=bucket, MaxKeys=1000).get("Contents", [])
            objs = [{"Key": o["Key"]} for o in plain]
        if not objs:
            return deleted
        for i in range(0, len(objs), 1000):
            resp = c.call("s3", "delete_objects", Bucket=bucket, Delete={"Objects": objs[i:i + 1000], "Quiet": True})
            errors = resp.get("Errors") or []
            if errors:
                raise Unclear("bucket %s: %d objects could not be deleted, first %s: %s" % (
                    bucket, len(errors), errors[0].get("Key"), errors[0].get("Message") or errors[0].get("Code")))
        deleted += len(objs)


# A role's or a user's holders, one row per kind: how the holders are listed (IAM call, response key, the
# field naming each holder, or None for a list of names), how they are described, and how each is let go
# (IAM call, parameter naming the holder).
_PRINCIPALS = {
    "RoleName": ("role", (
        ("attached_policy", "list_attached_role_policies", "AttachedPolicies", "PolicyArn",
         "managed policy attached to", "detach_role_policy", "PolicyArn"),
        ("inline_policy", "list_role_policies", "PolicyNames", None,
         "inline policy of", "delete_role_policy", "PolicyName"),
        ("instance_profile", "list_instance_profiles_for_role", "InstanceProfiles", "InstanceProfileName",
         "instance profile holding", "remove_role_from_instance_profile", "InstanceProfileName"),
    )),
    "UserName": ("user", (
        ("attached_policy", "list_attached_user_policies", "AttachedPolicies", "PolicyArn",
         "managed policy attached to", "detach_user_policy", "PolicyArn"),
        ("inline_policy", "list_user_policies", "PolicyNames", None,
         "inline policy of", "delete_user_policy", "PolicyName"),
        ("group", "list_groups_for_user", "Groups", "GroupName",
         "group membership of", "remove_user_from_group", "GroupName"),
    )),
}


def _principal_holders(c, key, name):
    noun, rows = _PRINCIPALS[key]
    h = []
    for kind, op, resp_key, field, what, dummy_op, dummy_param in rows:
        for item in _paginate(c, "iam", op, resp_key, **{key: name}):
            h.append(dict(kind=kind, id=item[field] if field else item, what="%s %s %s" % (what, noun, name)))
    return h


def _release_principal(c, key, name, holders):
    release = dict((row[0], row[5:]) for row in _PRINCIPALS[key][1])
    for x in holders:
        op, param = release[x["kind"]]
        _ok_if_gone(c.call, "iam", op, **{key: name, param: x["id"]})


def _policy_holders(c, arn):
    h = []
    resp_kw = {"PolicyArn": arn}
    for r in _paginate(c, "iam", "list_entities_for_policy", "PolicyRoles", **resp_kw):
        h.append(dict(kind="role", id=r["RoleName"], what="role with policy %s attached" % arn))
    for u in _paginate(c, "iam", "list_entities_for_policy", "PolicyUsers", **resp_kw):
        h.append(dict(kind="user", id=u["UserName"], what="user with policy %s attached" % arn))
    for g in _paginate(c, "iam", "list_entities_for_policy", "PolicyGroups", **resp_kw):
        h.append(dict(kind="group", id=g["GroupName"], what="group with policy %s attached" % arn))
    for v in _paginate(c, "iam", "list_policy_versions", "Versions", PolicyArn=arn):
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
    except botocore.exceptions.ClientError as e:
        if error_code(e) == "NoSuchEntity":
            return []
        raise
    return [dict(kind="role", id=r["RoleName"], what="role in instance profile %s" % name) for r in ip.get("Roles", [])]


def _release_profile(c, name, holders):
    for x in holders:
        _ok_if_gone(c.call, "iam", "remove_role_from_instance_profile", InstanceProfileName=name, RoleName=x["id"])


# what a remedy's target (or the refused resource itself) answers once it is already gone
GONE_CODES = frozenset(["NoSuchEntity", "NoSuchBucket", "InvalidNetworkInterfaceID.NotFound", "InvalidPermission.NotFound",
                        "InvalidGroup.NotFound", "DBClusterNotFoundFault", "DBInstanceNotFound"])


def _ok_if_gone(call, service, op, **kw):
    try:
        return call(service, op, **kw)
    except botocore.exceptions.ClientError as e:
        if error_code(e) in GONE_CODES:
            return None
        raise


def _rds_holders(c, rtype, ident):
    try:
        if rtype == "AWS::RDS::DBCluster":
            items = c.call("rds", "describe_db_clusters", DBClusterIdentifier=ident).get("DBClusters", [])
        else:
            items = c.call("rds", "describe_db_instances", DBInstanceIdentifier=ident).get("DBInstances", [])
    except botocore.exceptions.ClientError as e:
        if error_code(e) in ("DBClusterNotFoundFault", "DBInstanceNotFound"):
            return []
        raise
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


def _sg_holders(c, gid):
    h = []
    for f in ("ip-permission.group-id", "egress.ip-permission.group-id"):
        for sg in _paginate(c, "ec2", "describe_security_groups", "SecurityGroups",
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
    for eni in _paginate(c, "ec2", "describe_network_interfaces", "NetworkInterfaces",
                         Filters=[{"Name": "group-id", "Values": [gid]}]):
        h.append(dict(kind="eni", id=eni["NetworkInterfaceId"], status=eni.get("Status"),
                      attached=bool(eni.get("Attachment")), vpc=eni.get("VpcId"),
                      groups=[g["GroupId"] for g in eni.get("Groups", [])],
                      requester_managed=bool(eni.get("RequesterManaged")),
                      what="network interface %s (%s) uses %s" % (eni["NetworkInterfaceId"], eni.get("Status"), gid)))
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


def _subnet_holders(c, sid):
    return [dict(kind="eni", id=e["NetworkInterfaceId"], status=e.get("Status"), attached=bool(e.get("Attachment")),
                 requester_managed=bool(e.get("RequesterManaged")), groups=[], vpc=e.get("VpcId"),
                 what="network interface %s (%s) in %s" % (e["NetworkInterfaceId"], e.get("Status"), sid))
            for e in _paginate(c, "ec2", "describe_network_interfaces", "NetworkInterfaces",
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


def find_holders(c, remedy, rtype, physical_id):
    """Read-only: what holds the resource, for a remedy; None when the remedy does not cover that type."""
    entry = REMEDIES.get((remedy, rtype))
    if entry is None or not physical_id:
        return None
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


def release(c, remedy, rtype, physical_id, holders):
    """Let go of what holds the resource; returns how many mutating calls AWS accepted."""
    tally = _Tally(c)
    REMEDIES[(remedy, rtype)][1](tally, physical_id, holders)
    return tally.accepted


# ---------------------------------------------------------------------------------------------------
# The driver


class Failed(Exception):
    def __init__(self, msg):
        Exception.__init__(self, msg)
        self.msg = msg


def event_dict(e):
    return dict(timestamp=utc(e.get("Timestamp")), logical_id=e.get("LogicalResourceId"),
                type=e.get("ResourceType"), physical_id=e.get("PhysicalResourceId"),
                status=e.get("ResourceStatus"), reason=e.get("ResourceStatusReason"), stack_id=e.get("StackId"))


class Teardown:
    """Drives one stack to DELETE_COMPLETE. ``c`` is an aws_execute.Clients (counted, retried, and
    guarded against mutating calls in check mode)."""

    def __init__(self, c, clear=(), retain_unclearable=False, disable_termination_protection=False,
                 wait_timeout=900, check_mode=False, poll=2.0, clock=time.monotonic, sleep=time.sleep,
                 max_attempts=3):
        self.c = c
        self.clear = tuple(clear or ())
        self.retain_unclearable = retain_unclearable
        self.disable_tp = disable_termination_protection
        self.check_mode = check_mode
        self.poll = poll
        self.clock, self.sleep = clock, sleep
        self.deadline = clock() + wait_timeout
        self.wait_timeout = wait_timeout
        self.max_attempts = max_attempts
        self.changed = False
        self.refusals = []
        self.retained = []
        self.events = []
        self._seen_events = set()
        self.attempts = {}  # (stack_id, logical_id) -> times a remedy was applied / delete retried
        self.retain_supported = None
        self.actions = []  # what was done (or would be, in check mode)
        self.notes = []  # what could not be known
        self.observed = None  # the last answer of describe(): a description, NOT_FOUND, or None (no answer yet)

    # -- reads
    def describe(self, name_or_id, track=False):
        """The stack's description, or None when CloudFormation answered that it does not exist.

        None only for that answer (a ValidationError "does not exist"): any other error is raised, and an answer
        without the stack and without an error raises Failed, so a missing answer is never read as absent.
        With ``track`` (the stack being torn down, not a nested one), ``observed`` keeps the last answer that said
        something: the description, or ``"NOT_FOUND"``."""
        try:
            stacks = self.c.call("cloudformation", "describe_stacks", StackName=name_or_id).get("Stacks") or []
        except botocore.exceptions.ClientError as e:
            if is_missing_stack(e):
                if track:
                    self.observed = NOT_FOUND
                return None
            raise
        if not stacks:
            raise Failed("DescribeStacks for %s answered without the stack and without an error: its state is "
                         "unknown" % name_or_id)
        if track:
            self.observed = stacks[0]
        return stacks[0]

    def observed_status(self, sid=None):
        """What the last successful read said: the stack's status, DELETE_COMPLETE when a stack known by ID was
        then answered as missing, NOT_FOUND when it was never found, UNKNOWN when no read answered."""
        if isinstance(self.observed, dict):
            return self.observed.get("StackStatus") or UNKNOWN
        if self.observed == NOT_FOUND:
            return "DELETE_COMPLETE" if sid else NOT_FOUND
        return UNKNOWN

    def resources(self, stack_id):
        return _paginate(self.c, "cloudformation", "list_stack_resources", "StackResourceSummaries",
                         StackName=stack_id)

    def new_events(self, stack_id, record=True):
        """Events not seen before, oldest first (one page or a few: stops at the first one seen)."""
        out, kw = [], {"StackName": stack_id}
        for dummy in range(20):
            resp = self.c.call("cloudformation", "describe_stack_events", **kw)
            page = resp.get("StackEvents", [])
            stop = False
            for e in page:
                if e["EventId"] in self._seen_events:
                    stop = True
                    break
                out.append(e)
            if stop or not resp.get("NextToken"):
                break
            kw["NextToken"] = resp["NextToken"]
        out.reverse()
        for e in out:
            self._seen_events.add(e["EventId"])
            if record:
                self.events.append(event_dict(e))
                if e.get("ResourceStatus") == "DELETE_SKIPPED":
                    self._retain_note({"StackId": e.get("StackId"), "StackName": e.get("StackName")}, e)
        return out

    def mark_events_seen(self, stack_id):
        self.new_events(stack_id, record=False)

    # -- refusals
    def collect(self, stack, path=()):
        """Refusals of a stack in DELETE_FAILED (and, through nested stacks, of its children)."""
        sid = stack["StackId"]
        out = []
        for r in self.resources(sid):
            st = r.get("ResourceStatus")
            if st == "DELETE_SKIPPED":
                self._retain_note(stack, r)
            if st != "DELETE_FAILED":
                continue
            cls = classify(r.get("ResourceStatusReason"), r.get("ResourceType"))
            ref = dict(stack=stack["StackName"], stack_id=sid, logical_id=r["LogicalResourceId"],
                       type=r.get("ResourceType"), physical_id=r.get("PhysicalResourceId"), class_=cls,
                       reason=r.get("ResourceStatusReason"))
            out.append(ref)
            if r.get("ResourceType") == "AWS::CloudFormation::Stack" and r.get("PhysicalResourceId"):
                child = self.describe(r["PhysicalResourceId"])
                if child is not None:
                    ref["children"] = self.collect(child, path + (stack["StackName"],))
        if not out:
            reason = stack.get("StackStatusReason") or ""
            cls = classify(reason, "AWS::CloudFormation::Stack")
            if reason:
                out.append(dict(stack=stack["StackName"], stack_id=sid, logical_id=stack["StackName"],
                                type="AWS::CloudFormation::Stack", physical_id=sid,
                                class_=cls if cls != CHILD_STACK_FAILED else OTHER, reason=reason))
        return out

    def _retain_note(self, stack, r):
        key = (stack["StackId"], r["LogicalResourceId"])
        if not any((x["stack_id"], x["logical_id"]) == key for x in self.retained):
            self.retained.append(dict(logical_id=r["LogicalResourceId"], type=r.get("ResourceType"),
                                      physical_id=r.get("PhysicalResourceId"), stack=stack["StackName"],
                                      stack_id=stack["StackId"], why="DeletionPolicy (DELETE_SKIPPED)"))

    def _actions_of(self, ref):
        """The action recorded so far for this refusal (a list of at most one)."""
        return [r["action"] for r in self.refusals
                if (r["stack"], r["logical_id"], r["class"]) == (ref["stack"], ref["logical_id"], ref["class_"])]

    def _record(self, ref, remedy, action):
        entry = dict(logical_id=ref["logical_id"], type=ref["type"], physical_id=ref["physical_id"],
                     stack=ref["stack"], reason=ref.get("reason"), remedy=remedy, action=action)
        entry["class"] = ref["class_"]
        for old in self.refusals:
            if (old["stack"], old["logical_id"], old["class"]) == (entry["stack"], entry["logical_id"], entry["class"]):
                old.update(entry)
                old["times"] = old.get("times", 1) + 1
                return old
        entry["times"] = 1
        self.refusals.append(entry)
        return entry

    def handle(self, refs, to_retain):
        """Decide and apply remedies for a list of refusals (recursing into nested stacks). Raises Failed
        for a refusal it may not clear. Appends logical IDs to retain (of the top stack) to ``to_retain``."""
        for ref in refs:
            cls = ref["class_"]
            key = (ref["stack_id"], ref["logical_id"])
            n = self.attempts.get(key, 0)
            action, detail = decide(cls, self.clear, self.disable_tp, self.retain_unclearable, n, self.max_attempts)
            remedy = REMEDY.get(cls)
            if action == "clear" and cls == CHILD_STACK_FAILED:
                entry = self._record(ref, remedy, "recurse")
                self.attempts[key] = n + 1
                children = ref.get("children") or []
                child_retain = []
                self.handle(children, child_retain)
                if child_retain:
                    # a child's resources cannot be retained from the parent: retain the whole child stack
                    to_retain.append(ref["logical_id"])
                    entry["action"] = "retain"
                continue
            if action == "clear" and cls != TERMINATION_PROTECTION:
                holders = None
                try:
                    holders = find_holders(self.c, remedy, ref["type"], ref["physical_id"])
                except botocore.exceptions.ClientError as e:
                    if error_code(e) in GONE_CODES:
                        holders = []  # the refused resource itself is gone now (another run deleted it)
                    else:
                        raise Failed("%s %s (%s) in stack %s refused (%s) and looking up what holds it failed: %s" % (
                            ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], cls, error_message(e)))
                if holders is None:
                    if self.retain_unclearable:
                        action = "retain"
                    else:
                        raise Failed("%s %s (%s) in stack %s refused to delete (%s: %s); %s has no remedy for %s; "
                                     "set retain_unclearable=true to keep it (listed in retained) or clear it by hand" % (
                                         ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], cls,
                                         ref.get("reason"), remedy, ref["type"]))
                elif not holders:
                    # nothing holds it any more (another run, or its owner, cleared it): retry the delete,
                    # and claim no clear this run did not make
                    self._record(ref, remedy, "cleared" if "cleared" in self._actions_of(ref) else "found clear")
                    self.attempts[key] = n + 1
                    continue
                else:
                    prior = self._actions_of(ref)
                    entry = self._record(ref, remedy, "would clear" if self.check_mode else "cleared")
                    entry["holders"] = [dict((k, v) for k, v in h.items() if k in ("kind", "id", "what"))
                                        for h in holders]
                    self.attempts[key] = n + 1
                    if not self.check_mode:
                        try:
                            if not release(self.c, remedy, ref["type"], ref["physical_id"], holders) and \
                                    "cleared" not in prior:
                                entry["action"] = "found clear"  # every holder was gone when we came to it
                        except Unclear as e:
                            if self.retain_unclearable:
                                action = "retain"
                            else:
                                raise Failed("%s %s in stack %s: %s cannot clear it: %s" % (
                                    ref["type"], ref["logical_id"], ref["stack"], remedy, e))
                        except botocore.exceptions.ClientError as e:
                            raise Failed("%s %s (%s) in stack %s: %s failed: %s: %s" % (
                                ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], remedy,
                                error_code(e), error_message(e)))
                        self.changed = True
                    if action != "retain":
                        continue
            if action == "retry":
                self._record(ref, "retry", "retry")
                self.attempts[key] = n + 1
                continue
            if action == "retain":
                self._record(ref, "retain_unclearable", "would retain" if self.check_mode else "retain")
                to_retain.append(ref["logical_id"])
                continue
            if action == "stop":
                self._record(ref, None, "stopped")
                raise Failed("%s %s (%s) in stack %s refused to delete: %s (%s: %s); to clear it: %s" % (
                    ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], cls, WHY.get(cls),
                    ref.get("reason"), detail))

    # -- the loop
    def wait(self, stack_id):
        """Poll until the stack leaves *_IN_PROGRESS or the deadline; returns the last description."""
        while True:
            st = self.describe(stack_id, track=True)
            self.new_events(stack_id)
            if st is None or not st["StackStatus"].endswith("_IN_PROGRESS"):
                return st
            if self.clock() >= self.deadline:
                raise Failed("stack %s still %s after wait_timeout=%ss; a re-run resumes" % (
                    st["StackName"], st["StackStatus"], self.wait_timeout))
            self.sleep(self.poll)

    def run(self, name_or_id):
        """Returns (final stack description or None, stack_id)."""
        st = self.describe(name_or_id, track=True)
        if st is None:
            return None, None
        sid = st["StackId"]
        if st["StackStatus"] == "DELETE_COMPLETE":
            return st, sid
        self.mark_events_seen(sid)
        if st.get("EnableTerminationProtection"):
            ref = dict(stack=st["StackName"], stack_id=sid, logical_id=st["StackName"],
                       type="AWS::CloudFormation::Stack", physical_id=sid, class_=TERMINATION_PROTECTION,
                       reason="termination protection is enabled")
            if not self.disable_tp:
                self._record(ref, None, "stopped")
                raise Failed("stack %s: termination protection is enabled, DeleteStack would be refused; "
                             "to clear it: disable_termination_protection=true" % st["StackName"])
            self._record(ref, "disable_termination_protection", "would clear" if self.check_mode else "cleared")
            if not self.check_mode:
                self.c.call("cloudformation", "update_termination_protection", StackName=sid,
                            EnableTerminationProtection=False)
                self.changed = True
        self.check_exports(st)
        if self.check_mode:
            if st["StackStatus"] == "DELETE_FAILED":
                self.handle(self.collect(st), [])
            else:
                self.predict(st)
            self.actions.append("DeleteStack %s" % st["StackName"])
            return st, sid
        to_retain = []
        last_retain = None
        while True:
            if st["StackStatus"] != "DELETE_IN_PROGRESS":
                kw = {"StackName": sid}
                if to_retain:
                    kw["RetainResources"] = sorted(set(to_retain))
                try:
                    self.c.call("cloudformation", "delete_stack", **kw)
                except botocore.exceptions.ClientError as e:
                    msg = error_message(e)
                    if to_retain and ("RetainResources" in msg or error_code(e) in (
                            "InvalidParameterValue", "InvalidParameterCombination", "NotImplemented",
                            "UnsupportedOperation")):
                        self.retain_supported = False
                        raise Failed("stack %s: the endpoint does not support RetainResources (%s: %s); the "
                                     "refusals of %s must be cleared instead" % (
                                         st["StackName"], error_code(e), msg, ", ".join(sorted(set(to_retain)))))
                    cls = classify(msg)
                    if cls == TERMINATION_PROTECTION:
                        raise Failed("stack %s: DeleteStack refused: %s; to clear it: "
                                     "disable_termination_protection=true" % (st["StackName"], msg))
                    raise Failed("stack %s: DeleteStack failed: %s: %s" % (st["StackName"], error_code(e), msg))
                self.changed = True
                last_retain = list(to_retain)
            st = self.wait(sid)
            if st is None or st["StackStatus"] == "DELETE_COMPLETE":
                if last_retain:
                    self.retain_supported = True  # an ignored RetainResources would have refused again
                break
            status = st["StackStatus"]
            if status != "DELETE_FAILED":
                reason = st.get("StackStatusReason") or self._last_failure_reason()
                self._record(dict(stack=st["StackName"], stack_id=sid, logical_id=st["StackName"],
                                  type="AWS::CloudFormation::Stack", physical_id=sid,
                                  class_=classify(reason or "", None), reason=reason), None, "stopped")
                raise Failed("DeleteStack of %s did not delete it: the stack went back to %s (%s)%s. This is a "
                             "refusal, not a success" % (st["StackName"], status, reason or "no reason given",
                                                         self._export_hint(reason)))
            refs = self.collect(st)
            if last_retain:
                still = [r for r in refs if r["logical_id"] in last_retain and r["stack_id"] == sid]
                if still:
                    self.retain_supported = False
                    gone = set(r["logical_id"] for r in still)
                    self.retained = [x for x in self.retained
                                     if not (x["stack_id"] == sid and x["logical_id"] in gone and
                                             x["why"].startswith("retain_unclearable"))]
                    raise Failed("stack %s: the endpoint ignored RetainResources for %s (still DELETE_FAILED); clear "
                                 "their cause instead: %s" % (st["StackName"], ", ".join(r["logical_id"] for r in still),
                                                              "; ".join("%s: %s" % (r["logical_id"], r["reason"])
                                                                        for r in still)))
                self.retain_supported = True
            self.handle(refs, to_retain)
            for ref in refs:
                if ref["logical_id"] in to_retain and ref["stack_id"] == sid:
                    self._retain_mark(ref)
            if self.clock() >= self.deadline:
                raise Failed("stack %s still DELETE_FAILED after wait_timeout=%ss; a re-run resumes" % (
                    st["StackName"], self.wait_timeout))
        return st, sid

    def _retain_mark(self, ref):
        if not any((x["stack_id"], x["logical_id"]) == (ref["stack_id"], ref["logical_id"]) for x in self.retained):
            self.retained.append(dict(logical_id=ref["logical_id"], type=ref["type"], physical_id=ref["physical_id"],
                                      stack=ref["stack"], stack_id=ref["stack_id"],
                                      why="retain_unclearable (%s)" % ref["class_"]))

    def _last_failure_reason(self):
        for e in reversed(self.events):
            if e["status"] and e["status"].endswith("FAILED") and e["reason"]:
                return e["reason"]
        for e in reversed(self.events):
            if e["reason"]:
                return e["reason"]
        return None

    def _export_hint(self, reason):
        if classify(reason or "") == EXPORT_IN_USE:
            return "; delete the importing stack first"
        return ""

    def check_exports(self, st):
        """ExportInUse before any delete: an export of this stack imported by a live stack."""
        exports = [o["ExportName"] for o in st.get("Outputs", []) if o.get("ExportName")]
        for name in exports:
            try:
                importers = _paginate(self.c, "cloudformation", "list_imports", "Imports", ExportName=name)
            except Exception as e:  # noqa: BLE001 - any failed lookup (a 500 parses as no ClientError) is unknown
                if "is not imported" in error_message(e):
                    continue
                # unknown, not absent: say so; the delete itself is then the test (a stack that goes
                # back to *_COMPLETE is reported as refused)
                self.notes.append("export %s: ListImports failed (%s), importers unknown" % (
                    name, error_code(e) or type(e).__name__))
                continue
            if importers:
                ref = dict(stack=st["StackName"], stack_id=st["StackId"], logical_id=st["StackName"],
                           type="AWS::CloudFormation::Stack", physical_id=st["StackId"], class_=EXPORT_IN_USE,
                           reason="Export %s cannot be deleted as it is in use by %s" % (name, ", ".join(importers)))
                if self.check_mode:
                    # the plan of a set deletes the importers first: say what this stack waits for, do not stop
                    self._record(ref, None, "would stop unless deleted first: %s" % ", ".join(importers))
                    continue
                self._record(ref, None, "stopped")
                raise Failed("stack %s: export %s is imported by %s; DeleteStack would be refused (ExportInUse). "
                             "Delete the importing stacks first (the cfn_refusals role orders importers first)" % (
                                 st["StackName"], name, ", ".join(importers)))

    def predict(self, st, path=()):
        """Check mode on a stack not yet deleting: look at each resource the remedies cover and say what
        holds it (read-only)."""
        for r in self.resources(st["StackId"]):
            if r.get("ResourceStatus", "").startswith("DELETE_COMPLETE"):
                continue
            rtype, pid = r.get("ResourceType"), r.get("PhysicalResourceId")
            if rtype == "AWS::CloudFormation::Stack" and pid:
                child = self.describe(pid)
                if child is not None and child["StackStatus"] != "DELETE_COMPLETE":
                    self.predict(child, path + (st["StackName"],))
                continue
            for (remedy, t) in REMEDIES:
                if t != rtype:
                    continue
                try:
                    holders = find_holders(self.c, remedy, rtype, pid)
                except botocore.exceptions.ClientError as e:
                    holders = [dict(kind="unknown", id=pid, what="lookup failed: %s" % error_message(e))]
                if holders:
                    cls = {"empty_buckets": BUCKET_NOT_EMPTY, "detach_iam": DELETE_CONFLICT,
                           "disable_deletion_protection": DELETION_PROTECTION,
                           "release_dependencies": DEPENDENCY_VIOLATION}[remedy]
                    ref = dict(stack=st["StackName"], stack_id=st["StackId"], logical_id=r["LogicalResourceId"],
                               type=rtype, physical_id=pid, class_=cls,
                               reason="predicted: " + "; ".join(h["what"] for h in holders))
                    action, detail = decide(cls, self.clear, self.disable_tp, self.retain_unclearable)
                    entry = self._record(ref, remedy if action == "clear" else (
                        "retain_unclearable" if action == "retain" else None),
                        {"clear": "would clear", "retain": "would retain"}.get(action, "would stop: " + str(detail)))
                    entry["holders"] = [dict((k, v) for k, v in h.items() if k in ("kind", "id", "what"))
                                        for h in holders]


# ---------------------------------------------------------------------------------------------------
# A set of stacks from amazon.aws.cloudformation_info (stack_template: true), in deletion order

_IMPORT_RE = re.compile(r"""(?:Fn::ImportValue|!ImportValue)["']?\s*:?\s*["']?([A-Za-z0-9:_\-./]+)""")


def template_imports(template):
    """Export names a template imports with a literal Fn::ImportValue (a dict, JSON or YAML text).
    An import built at run time (Fn::Sub ...) is reported as ``None`` in the list: unknown, not absent."""
    found = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "Fn::ImportValue":
                    found.append(v if isinstance(v, str) else None)
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    if isinstance(template, (dict, list)):
        walk(template)
    elif isinstance(template, str):
        import json
        try:
            walk(json.loads(template))
        except ValueError:
            for m in _IMPORT_RE.finditer(template):
                name = m.group(1)
                found.append(None if name.startswith(("Fn::", "!")) else name)
            if re.search(r"(?:Fn::ImportValue|!ImportValue)\s*:?\s*\n", template):
                found.append(None)
    return found


def order_from_info(info, names=None):
    """``info``: the ``cloudformation`` dict of amazon.aws.cloudformation_info (stack name -> facts, with
    ``stack_template``). ``names``: restrict to these stack names or ARNs (None: all). Returns a dict:
    ``order`` (names, importers before exporters, each with ``after``: the importers it waits for),
    ``handled_by_parent`` (nested stacks their parent deletes) and ``unknown_imports`` (stacks whose template
    imports a name not known until run time)."""
    stacks, unknown = [], []
    # a nested stack is known by its ParentId, or (where an endpoint leaves ParentId out) by being the
    # physical ID of a parent's AWS::CloudFormation::Stack resource (``stack_resources: true``)
    parent_of = {}
    for name, facts in (info or {}).items():
        d = facts.get("stack_description") or {}
        for r in facts.get("stack_resource_list") or []:
            if r.get("resource_type") == "AWS::CloudFormation::Stack" and r.get("physical_resource_id"):
                parent_of[r["physical_resource_id"]] = d.get("stack_id") or name
    for name, facts in (info or {}).items():
        d = facts.get("stack_description") or {}
        sid = d.get("stack_id") or name
        imports = template_imports(facts.get("stack_template"))
        if None in imports:
            unknown.append(name)
        parent = d.get("parent_id") or parent_of.get(sid) or parent_of.get(name)
        stacks.append(dict(name=name, id=sid, parent_id=parent, status=d.get("stack_status"),
                           exports=[o["export_name"] for o in d.get("outputs") or [] if o.get("export_name")],
                           imports=[i for i in imports if i]))
    if names is not None:
        wanted = set(names)
        chosen = [s for s in stacks if s["name"] in wanted or s["id"] in wanted]
        # a chosen parent's children come along, so that the parent is seen to handle them
        ids = set(s["id"] for s in chosen)
        chosen += [s for s in stacks if s["parent_id"] in ids and s["id"] not in ids]
        stacks = chosen
    ordered, handled = order_stacks(stacks)
    exporter_of = dict((e, s["name"]) for s in stacks for e in s["exports"])
    importers_of = {}
    for s in stacks:
        for i in s["imports"]:
            if i in exporter_of:
                importers_of.setdefault(exporter_of[i], set()).add(s["name"])
    by_id = dict((s["id"], s) for s in stacks)

    def top_name(s):
        while s.get("parent_id") in by_id:
            s = by_id[s["parent_id"]]
        return s["name"]

    out = []
    for s in ordered:
        after = sorted(set(top_name(by_id[x["id"]]) if x["id"] in by_id else x["name"]
                           for x in stacks if x["name"] in importers_of.get(s["name"], set())) - set([s["name"]]))
        out.append(dict(name=s["name"], id=s["id"], status=s["status"], after=after))
    return dict(order=out, handled_by_parent=[dict(name=s["name"], id=s["id"], parent_id=s["parent_id"])
                                              for s in handled],
                unknown_imports=sorted(unknown))
