# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Orphaned infra IDs: which infra IDs a region holds, which a management cluster still owns, and what is left.

Where an infra ID shows in AWS (HyperShift's naming, as ``aws_inventory`` finds one ID's resources):

* EC2: the tag ``kubernetes.io/cluster/<infraID>: owned`` (one paged ``DescribeTags``, every EC2 type);
* IAM: the roles ``<infraID>-<suffix>`` (``aws_inventory.ROLE_SUFFIXES``), the instance profile
  ``<infraID>-worker``, the OIDC provider whose URL path is the infra ID;
* Route 53: a private zone tagged ``kubernetes.io/cluster/<infraID>``, or associated with a VPC of that tag;
* S3: buckets ``<infraID>-image-registry-*``, and the ``<infraID>/`` prefixes of the OIDC bucket when given.

An infra ID is an orphan when no HostedCluster of any management cluster read has it as ``spec.infraID``.
When one management cluster could not be read, every infra ID is unknown: nothing is an orphan.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json
import re
from urllib.parse import unquote

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import NOT_FOUND_CODES, list_all
from ansible_collections.teardown.gates.plugins.module_utils.aws.probes import PROBES
from ansible_collections.teardown.gates.plugins.module_utils.aws.inventory import ROLE_SUFFIXES
# the protect tag is shared with the other kinds (core/protect.py); the sweep reads it as it always did
from ansible_collections.teardown.gates.plugins.module_utils.core.protect import (  # noqa: F401 pylint: disable=unused-import
    PROTECTED_REASON, PROTECTED_TAG, is_protected)
# min_age's duration format is shared with the other kinds (core/age.py); the sweep parses it as it always did
from ansible_collections.teardown.gates.plugins.module_utils.core.age import parse_age  # noqa: F401 pylint: disable=unused-import

CLUSTER_TAG = "kubernetes.io/cluster/"
INFRA_ID = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$")
# the fields that carry a creation time in what discovery reads (EC2, ELB, IAM, S3 answers)
TIME_FIELDS = ("LaunchTime", "CreateTime", "CreateDate", "CreatedTime", "CreationTimestamp", "CreationDate")


def infra_id_from_tag(key, value):
    """The infra ID a ``kubernetes.io/cluster/<infraID>`` tag names when its value is ``owned``; else None."""
    if not key.startswith(CLUSTER_TAG) or (value or "").lower() != "owned":
        return None
    iid = key[len(CLUSTER_TAG):]
    return iid if INFRA_ID.match(iid) else None


def infra_id_from_role(name):
    for suffix in ROLE_SUFFIXES:
        if name.endswith("-" + suffix) and len(name) > len(suffix) + 1:
            return name[:-len(suffix) - 1]
    return None


def trusted_oidc_infra_ids(role):
    """The infra IDs whose OIDC provider a role's trust policy names as its federated principal: `create iam aws`
    makes each component role trust ``oidc-provider/<issuer host>/<infraID>`` (openshift/hypershift@3ee9615
    cmd/infra/aws/iam.go:913, oidcTrustPolicy). GetAccountAuthorizationDetails answers the document decoded or as
    URL-encoded JSON text; a document that cannot be read names none."""
    doc = role.get("AssumeRolePolicyDocument")
    if isinstance(doc, str):
        try:
            doc = json.loads(unquote(doc))
        except ValueError:
            return set()
    statements = (doc or {}).get("Statement") if isinstance(doc, dict) else None
    out = set()
    for st in statements if isinstance(statements, list) else [statements or {}]:
        federated = ((st or {}).get("Principal") or {}).get("Federated") if isinstance(st, dict) else None
        for arn in federated if isinstance(federated, list) else [federated]:
            iid = infra_id_from_oidc_arn(arn) if isinstance(arn, str) and ":oidc-provider/" in arn else None
            if iid:
                out.add(iid)
    return out


# the worker role `create iam aws` puts in the worker profile <infraID>-worker (iam.go:1180-1183)
WORKER_ROLE_SUFFIXES = ("-worker-role", "-worker-ROSA-Worker-Role")


def holds_worker_role(profile, iid):
    return any(r.get("RoleName") in [iid + s for s in WORKER_ROLE_SUFFIXES] for r in profile.get("Roles") or [])


def infra_id_from_profile(name):
    return name[:-len("-worker")] if name.endswith("-worker") and len(name) > len("-worker") else None


def infra_id_from_oidc_arn(arn):
    """``arn:aws:iam::ACCOUNT:oidc-provider/<host>/<infraID>`` -> infraID; a provider without a path -> None."""
    path = arn.split(":oidc-provider/", 1)[-1]
    if "/" not in path:
        return None
    iid = path.rstrip("/").rsplit("/", 1)[-1]
    return iid if INFRA_ID.match(iid) else None


def infra_id_from_bucket(name):
    if "-image-registry-" not in name:
        return None
    iid = name.split("-image-registry-", 1)[0]
    return iid if INFRA_ID.match(iid) else None


TAGS_UNKNOWN_PREFIX = "its tags are unknown"
TAGS_UNKNOWN = TAGS_UNKNOWN_PREFIX + " (its look by ID failed: %s); it may be tagged %s, so it is not deleted"


def protected_rows(observed, tagged_types=()):
    """The kept rows ({type, id, reason}): what a read found present and tagged protected (protected_rows_seen),
    and each resource of ``tagged_types`` (whose look answers with its tags) whose look failed, its reason saying so:
    unknown protection is never taken as none."""
    rows = protected_rows_seen(observed)
    for rtype, items in sorted((observed or {}).items()):
        for rid, item in sorted(items.items()) if rtype in tagged_types else []:
            if (item or {}).get("state") == "unknown":
                why = TAGS_UNKNOWN % ((item or {}).get("error") or "no answer", PROTECTED_TAG)
                rows.append({"type": rtype, "id": rid, "reason": why})
    return rows


def protected_rows_seen(observed):
    """The kept rows ({type, id, reason}) of what a read found present and tagged protected: ``observed`` is
    type -> {id: what the read answered (its ``Tags`` where the answer carries them), with ``state``}. Only answers
    that carry tags can show the tag (EC2's Describe calls do): nothing is read for it."""
    out = []
    for rtype, items in sorted((observed or {}).items()):
        for rid, item in sorted(items.items()):
            if (item or {}).get("state") not in ("absent", "terminal") and is_protected((item or {}).get("Tags")):
                out.append({"type": rtype, "id": rid, "reason": PROTECTED_REASON})
    return out


def as_utc(value):
    """A creation time as AWS clients return it (datetime, or ISO 8601 text) -> aware datetime, or None."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    if isinstance(value, str) and value:
        try:
            d = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return d if d.tzinfo else d.replace(tzinfo=datetime.timezone.utc)
    return None


def creation_times(item):
    return [t for t in (as_utc((item or {}).get(f)) for f in TIME_FIELDS) if t is not None]


class Found(object):
    """What the region scan saw of each infra ID: evidence (type, id), creation times, protected resources."""

    def __init__(self):
        self.ids = {}

    def add(self, iid, rtype, rid, created=None, protected=False, marked=False):
        """``marked``: the resource carries upstream's own mark of the infra ID (``UPSTREAM_MARKS``), not just a
        name that reads like one."""
        entry = self.ids.setdefault(iid, {"evidence": set(), "created": [], "protected": set(), "marked": set()})
        entry["evidence"].add((rtype, rid))
        if marked:
            entry["marked"].add((rtype, rid))
        entry["created"].extend(t for t in [as_utc(created)] if t is not None)
        if protected:
            entry["protected"].add((rtype, rid))


def ec2_gone(c, tagged):
    """The IDs among ``tagged`` ((infra ID, DescribeTags type, ID)) that a look by ID finds gone or terminal.

    DescribeTags is not proof of existence: it lists a terminated instance for about an hour, and a resource
    deleted a moment ago. Taken alone, a tag would keep an infra ID whose resources are all gone an orphan for
    ever. Each type is looked up by the same probes as the cleanup's verification; a type without one stays
    evidence."""
    by_type = {}
    for dummy, kind, rid in tagged:
        rtype = EC2_TYPES.get(kind)
        if rtype in PROBES:
            by_type.setdefault(rtype, set()).add(rid)
    looker = _Looker(c)
    gone = set()
    for rtype, ids in sorted(by_type.items()):
        seen = PROBES[rtype](looker, sorted(ids))
        gone.update(i for i in ids if seen.get(i, {}).get("state", "terminal") == "terminal")
    return gone


class _Looker(object):
    """What the probes of aws_execute need: the client wrapper as ``.c``."""

    def __init__(self, c):
        self.c = c


def scan_region(c, oidc_bucket=None, region="us-east-1"):
    """Every infra ID the region shows, as ``Found``. A failed query raises: an incomplete scan is never an answer."""
    found = Found()
    vpc_owner = {}
    tagged = []
    for t in list_all(c, "ec2", "describe_tags", "Tags", Filters=[{"Name": "value", "Values": ["owned"]}]):
        iid = infra_id_from_tag(t.get("Key", ""), t.get("Value"))
        if iid:
            tagged.append((iid, t.get("ResourceType", "resource"), t["ResourceId"]))
    gone = ec2_gone(c, tagged)
    for iid, rtype, rid in tagged:
        if rid in gone:
            continue
        found.add(iid, "EC2 " + rtype, rid, marked=True)
        if rtype == "vpc":
            vpc_owner[rid] = iid
    for t in list_all(c, "ec2", "describe_tags", "Tags", Filters=[{"Name": "key", "Values": [PROTECTED_TAG]}]):
        if str(t.get("Value", "")).lower() == "true":
            for iid, entry in found.ids.items():
                if any(rid == t["ResourceId"] for dummy, rid in entry["evidence"]):
                    entry["protected"].add(("EC2 " + t.get("ResourceType", "resource"), t["ResourceId"]))

    for r in list_all(c, "iam", "get_account_authorization_details", "RoleDetailList", Filter=["Role"]):
        iid = infra_id_from_role(r["RoleName"])
        if iid:
            found.add(iid, g.ROLE, r["RoleName"], r.get("CreateDate"), is_protected(r.get("Tags")),
                      marked=iid in trusted_oidc_infra_ids(r))
    for p in list_all(c, "iam", "list_instance_profiles", "InstanceProfiles"):
        iid = infra_id_from_profile(p["InstanceProfileName"])
        if iid:
            found.add(iid, g.PROFILE, p["InstanceProfileName"], p.get("CreateDate"), is_protected(p.get("Tags")),
                      marked=holds_worker_role(p, iid))
    for p in c.call("iam", "list_open_id_connect_providers").get("OpenIDConnectProviderList", []):
        iid = infra_id_from_oidc_arn(p["Arn"])
        if iid:
            try:
                d = c.call("iam", "get_open_id_connect_provider", OpenIDConnectProviderArn=p["Arn"])
            except is_boto3_error_code(NOT_FOUND_CODES):
                continue  # gone between the list and the read
            found.add(iid, g.OIDC, p["Arn"], d.get("CreateDate"), is_protected(d.get("Tags")), marked=True)

    for z in list_all(c, "route53", "list_hosted_zones", "HostedZones"):
        if not (z.get("Config") or {}).get("PrivateZone"):
            continue
        zid = z["Id"].split("/")[-1]
        try:
            tags = c.call("route53", "list_tags_for_resource", ResourceType="hostedzone",
                          ResourceId=zid).get("ResourceTagSet", {}).get("Tags", [])
            owners = set(i for i in (infra_id_from_tag(t["Key"], t.get("Value")) for t in tags) if i)
            if not owners:
                vpcs = c.call("route53", "get_hosted_zone", Id=zid).get("VPCs", [])
                owners = set(vpc_owner[v["VPCId"]] for v in vpcs if v.get("VPCId") in vpc_owner)
        except is_boto3_error_code(NOT_FOUND_CODES):
            continue  # deleted between the list and the read (another teardown in the account)
        for iid in owners:  # tagged for it, or associated with its tagged VPC
            found.add(iid, g.ZONE, zid, protected=is_protected(tags), marked=True)

    for b in c.call("s3", "list_buckets").get("Buckets", []):
        iid = infra_id_from_bucket(b["Name"])
        if not iid:
            continue
        try:
            tags = c.call("s3", "get_bucket_tagging", Bucket=b["Name"]).get("TagSet", [])
        except is_boto3_error_code(NOT_FOUND_CODES):
            continue  # the bucket went between the list and the read
        except is_boto3_error_code("NoSuchTagSet"):  # pylint: disable=duplicate-except
            tags = []
        found.add(iid, g.BUCKET, b["Name"], b.get("CreationDate"), is_protected(tags),
                  marked=any(infra_id_from_tag(t.get("Key", ""), t.get("Value")) == iid for t in tags))
    if oidc_bucket:
        try:
            prefixes = list_all(c, "s3", "list_objects_v2", "CommonPrefixes", Bucket=oidc_bucket, Delimiter="/")
        except is_boto3_error_code(NOT_FOUND_CODES):
            prefixes = []  # no such bucket: no prefixes in it
        for cp in prefixes:
            iid = cp["Prefix"].rstrip("/")
            if INFRA_ID.match(iid):
                found.add(iid, g.PREFIX, "%s/%s/" % (oidc_bucket, iid))
    return found


# DescribeTags resource types -> manifest types that aws_infra_cleanup deletes and verifies by ID
EC2_TYPES = {"instance": g.INSTANCE, "vpc": g.VPC, "subnet": g.SUBNET, "natgateway": g.NAT, "nat-gateway": g.NAT,
             "internet-gateway": g.IGW, "elastic-ip": g.EIP, "vpc-elastic-ip": g.EIP, "dhcp-options": g.DHCP,
             "vpc-endpoint": g.ENDPOINT, "route-table": g.ROUTE_TABLE, "security-group": g.SG, "volume": g.VOLUME,
             "vpc-endpoint-service": g.ENDPOINT_SERVICE}
NAMED_TYPES = (g.ZONE, g.BUCKET, g.PREFIX, g.ROLE, g.PROFILE, g.OIDC)


def extra_ids(c, evidence, manifest):
    """(type, id) of what the scan saw for an infra ID that its inventory did not find: a tagged subnet of an
    untagged VPC, a zone tagged for it whose VPC is gone. ``scan_region`` has already dropped the EC2 evidence
    that a look by ID found gone (``ec2_gone``); aws_infra_cleanup looks each one up by ID again before any
    delete. A route table or security group is added only when it is not its VPC's main table or default
    group, which go with the VPC and cannot be deleted on their own."""
    have = set(i for ids in manifest.values() for i in ids)
    out = []
    for kind, rid in sorted(evidence):
        if rid in have:
            continue
        rtype = EC2_TYPES.get(kind[4:]) if kind.startswith("EC2 ") else (kind if kind in NAMED_TYPES else None)
        if rtype == g.ROUTE_TABLE:
            found = c.call("ec2", "describe_route_tables", Filters=[{"Name": "route-table-id", "Values": [rid]}])
            if not [t for t in found.get("RouteTables", []) if not any(a.get("Main") for a in t.get("Associations", []))]:
                continue
        elif rtype == g.SG:
            found = c.call("ec2", "describe_security_groups", Filters=[{"Name": "group-id", "Values": [rid]}])
            if not [x for x in found.get("SecurityGroups", []) if x.get("GroupName") != "default"]:
                continue
        if rtype:
            out.append((rtype, rid))
    return out


def oldest(times):
    return min(times) if times else None


UNCERTAIN = ("seen only by names that read like infra ID %s (%s), and nothing carries upstream's own mark of it: the "
             "tag kubernetes.io/cluster/%s=owned, the OIDC provider of that path, a role trusting that provider, or "
             "the worker role in the worker profile; reported, never deleted")


def classify(iid, live, management_known, protected, created, min_age, now, marked=True, evidence=()):
    """(status, reason) for one infra ID. ``live``: {infra ID: [where its HostedCluster is]}.

    Statuses: ``live`` (a HostedCluster has it), ``unknown`` (a management cluster could not be read),
    ``protected`` (a resource carries teardown.gates/protected=true), ``uncertain`` (``marked`` false: what the
    scan saw of it (``evidence``, (type, id) pairs) reads like it by name only, hypershift#8964's class for what
    a sweep must never delete), ``young`` (its oldest readable creation time is less than ``min_age`` seconds ago,
    or none is readable while ``min_age`` is above 0), ``orphan``.
    """
    if iid in live:
        return "live", "HostedCluster %s has spec.infraID %s" % (", ".join(live[iid]), iid)
    if not management_known:
        return "unknown", ("a management cluster could not be read, so whether a HostedCluster still has "
                           "infra ID %s is unknown" % iid)
    if protected:
        return "protected", "tagged %s=true: %s" % (PROTECTED_TAG, ", ".join("%s %s" % p for p in sorted(protected)))
    if not marked:
        return "uncertain", UNCERTAIN % (iid, ", ".join("%s %s" % e for e in sorted(evidence)), iid)
    first = oldest(created)
    if min_age > 0 and first is None:
        return "young", "no creation time is readable, so it is not shown to be older than min_age (%d s)" % min_age
    if first is not None and (now - first).total_seconds() < min_age:
        return "young", "oldest creation time %s is less than min_age (%d s) ago" % (
            first.isoformat(), min_age)
    return "orphan", "no HostedCluster of the management clusters read has spec.infraID %s" % iid
