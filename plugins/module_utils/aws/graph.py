# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Resource types of an infra ID, what each must wait for, and the planner.

A manifest is a dict: CloudFormation type name -> list of IDs (the ID is what the type's own API
takes: an instance ID, a role name, a bucket name, an ARN for OIDC providers, managed policies and
ELBv2 objects, ``ZONEID/NAME/TYPE`` for a record set, ``BUCKET/PREFIX/`` for an S3 prefix).

``plan()`` orders the manifest by the type dependencies below (what the destroy command learned the
hard way: a subnet cannot go before the NAT gateways and instances in it are terminal, the internet
gateway cannot be detached while a NAT gateway in its VPC is not ``deleted``, ...). A resource's level
is the length of the longest chain of types it waits for; resources of one level are independent.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

INSTANCE = "AWS::EC2::Instance"
ELB = "AWS::ElasticLoadBalancing::LoadBalancer"
ELBV2 = "AWS::ElasticLoadBalancingV2::LoadBalancer"
TARGET_GROUP = "AWS::ElasticLoadBalancingV2::TargetGroup"
RECORD = "AWS::Route53::RecordSet"
ZONE = "AWS::Route53::HostedZone"
BUCKET = "AWS::S3::Bucket"
PREFIX = "Custom::S3Prefix"
ENDPOINT = "AWS::EC2::VPCEndpoint"
ENDPOINT_SERVICE = "AWS::EC2::VPCEndpointService"
ROUTE_TABLE = "AWS::EC2::RouteTable"
NAT = "AWS::EC2::NatGateway"
IGW = "AWS::EC2::InternetGateway"
SG = "AWS::EC2::SecurityGroup"
SUBNET = "AWS::EC2::Subnet"
EIP = "AWS::EC2::EIP"
VPC = "AWS::EC2::VPC"
DHCP = "AWS::EC2::DHCPOptions"
PROFILE = "AWS::IAM::InstanceProfile"
ROLE = "AWS::IAM::Role"
POLICY = "AWS::IAM::ManagedPolicy"
OIDC = "AWS::IAM::OIDCProvider"
VOLUME = "AWS::EC2::Volume"

# type -> types whose resources must be gone (absent or terminal) before this type's deletes start
TYPE_DEPS = {
    INSTANCE: [],
    ELB: [],
    ELBV2: [ENDPOINT_SERVICE],
    TARGET_GROUP: [ELBV2],
    RECORD: [],
    BUCKET: [],
    PREFIX: [],
    # a VPC endpoint service configuration (PrivateLink, an AWSEndpointService's) goes before the network load
    # balancer behind it (AWS refuses to delete an NLB an endpoint service still uses: ResourceInUse) and, as in
    # HyperShift's DestroyInfra (openshift/hypershift@3ee9615 cmd/infra/aws/destroy.go:283-284, :475-526), before
    # the VPCs and their endpoints: its delete first rejects the endpoints connected to it, ours among them
    ENDPOINT_SERVICE: [],
    ENDPOINT: [ENDPOINT_SERVICE],
    ZONE: [],
    NAT: [],
    ROUTE_TABLE: [ENDPOINT],
    IGW: [NAT, INSTANCE],
    SG: [INSTANCE, ELB, ELBV2, ENDPOINT],
    SUBNET: [INSTANCE, NAT, ELB, ELBV2, ENDPOINT],
    EIP: [NAT, INSTANCE],
    VPC: [SUBNET, SG, ROUTE_TABLE, IGW, ENDPOINT, ENDPOINT_SERVICE, ZONE, NAT, INSTANCE, ELB, ELBV2, TARGET_GROUP],
    DHCP: [VPC],
    PROFILE: [INSTANCE],
    ROLE: [PROFILE],
    POLICY: [ROLE],
    OIDC: [],
    # an in-use volume cannot be deleted (VolumeInUse): its instance goes first, and with it the volumes AWS
    # deletes itself (DeleteOnTermination); the others are then detached (available)
    VOLUME: [INSTANCE],
}
IAM_TYPES = frozenset([PROFILE, ROLE, POLICY, OIDC])

# what "gone" means for a type whose delete only starts a state change
TERMINAL = {INSTANCE: "terminated", NAT: "deleted", VOLUME: "deleting or deleted"}

# the steps one resource's deletion takes (shown in the check-mode plan)
STEPS = {
    INSTANCE: ["terminate", "wait for terminated"],
    ELB: ["delete load balancer", "wait until its ENIs are released (they hold its subnets and groups)"],
    ELBV2: ["delete load balancer", "wait until its ENIs are released (they hold its subnets and groups)"],
    TARGET_GROUP: ["delete target group"],
    RECORD: ["delete the record set"],
    ZONE: ["delete records other than NS/SOA", "delete zone"],
    BUCKET: ["delete every object version and delete marker", "delete bucket"],
    PREFIX: ["delete every object version and delete marker under the prefix"],
    ENDPOINT: ["delete endpoint"],
    ENDPOINT_SERVICE: ["reject its endpoint connections", "delete the service configuration"],
    ROUTE_TABLE: ["disassociate subnets", "delete route table"],
    NAT: ["delete", "wait for deleted (its ENI and EIP are held until then)"],
    IGW: ["detach from its VPC", "delete"],
    SG: ["revoke rules that reference other groups (all groups first)", "delete"],
    SUBNET: ["delete"],
    EIP: ["release"],
    VPC: ["delete"],
    DHCP: ["delete"],
    PROFILE: ["remove its roles", "delete"],
    ROLE: ["detach managed policies", "delete inline policies", "delete"],
    POLICY: ["delete"],
    OIDC: ["delete"],
    VOLUME: ["look it up again by ID once its instance is terminated",
             "deleted with its instance (DeleteOnTermination): verify only; else delete (available)",
             "wait for deleting or gone"],
}


class PlanError(TeardownGatesError):
    """The manifest or the dependency graph cannot be planned; the message says why."""


def validate_manifest(manifest, known=None):
    """Return a normalised manifest (type -> sorted unique IDs) or raise PlanError naming the problem."""
    known = TYPE_DEPS if known is None else known
    if not isinstance(manifest, dict):
        raise PlanError("manifest must be a mapping of resource type to a list of IDs, got %s" % type(manifest).__name__)
    unknown = sorted(t for t in manifest if t not in known)
    if unknown:
        raise PlanError("manifest has unknown resource type(s) %s; known types: %s" % (
            ", ".join(unknown), ", ".join(sorted(known))))
    out = {}
    for rtype, ids in manifest.items():
        if ids is None:
            ids = []
        if isinstance(ids, str) or not isinstance(ids, (list, tuple)):
            raise PlanError("manifest[%s] must be a list of IDs, got %s" % (rtype, type(ids).__name__))
        bad = [i for i in ids if not isinstance(i, str) or not i.strip()]
        if bad:
            raise PlanError("manifest[%s] has IDs that are not non-empty strings: %r" % (rtype, bad))
        if ids:
            out[rtype] = sorted(set(i.strip() for i in ids))
    return out


def find_cycle(types, deps):
    """A dependency cycle among ``types`` as a list [a, b, ..., a], or None."""
    color = {}
    stack = []

    def visit(t):
        color[t] = 1
        stack.append(t)
        for d in deps.get(t, []):
            if d not in types:
                continue
            if color.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if color.get(d) is None:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        color[t] = 2
        return None

    for t in sorted(types):
        if color.get(t) is None:
            found = visit(t)
            if found:
                return found
    return None


def _blocked(active, kept, deps):
    """{(type, id): [kept "TYPE ID", ...]} for each resource of ``active`` that waits, through the type order (IAM
    after every infrastructure type included), on a resource of ``kept``: it cannot be deleted while that stays.
    By type, as the plan orders them: conservative, it never names fewer than the real dependents."""
    kept_by_type = {}
    for r in kept:
        kept_by_type.setdefault(r["type"], []).append("%s %s" % (r["type"], r["id"]))
    present = set(active) | set(kept_by_type)
    infra = [t for t in present if t not in IAM_TYPES]
    memo = {}

    def reach(t, path=()):
        # every kept resource of the types t waits for, directly or through other present types
        if t in memo:
            return memo[t]
        waits = set(d for d in deps.get(t, []) if d in present)
        if t in IAM_TYPES and not any(d in IAM_TYPES for d in waits):
            waits |= set(infra)
        out = set()
        for d in waits:
            if d in path:
                continue
            out |= set(kept_by_type.get(d, []))
            out |= reach(d, path + (t,))
        memo[t] = out
        return out
    out = {}
    for t, ids in active.items():
        by = sorted(reach(t))
        if by:
            for i in ids:
                out[(t, i)] = by
    return out


def plan(manifest, preserve_iam=False, deps=None, retain=None, protected=None):
    """Order a manifest.

    Returns a dict: ``levels`` (list of lists of resources, each {type, id, level, waits_on, steps}),
    ``retained`` (IAM resources kept by preserve_iam, and the IDs of ``retain``, a manifest of what to keep
    as it is), ``type_levels`` and ``waits`` (type -> the present types it waits for), ``kept`` (the resources of
    ``protected``, a list of {type, id, reason}: never deleted) and ``blocked`` (what waits on a kept resource, each
    {type, id, blocked_by}: not deleted either). Raises PlanError on unknown types, bad IDs or a dependency cycle.
    """
    deps = TYPE_DEPS if deps is None else deps
    manifest = validate_manifest(manifest, known=deps)
    keep = validate_manifest(retain or {}, known=deps)
    retained = []
    active = {}
    for rtype, ids in manifest.items():
        if preserve_iam and rtype in IAM_TYPES:
            retained.extend({"type": rtype, "id": i, "reason": "preserve_iam"} for i in ids)
            continue
        kept = [i for i in ids if i in keep.get(rtype, [])]
        retained.extend({"type": rtype, "id": i, "reason": "retain"} for i in kept)
        if len(kept) < len(ids):
            active[rtype] = [i for i in ids if i not in kept]
    # protected: out of the plan, and with it everything that waits on it (a retained resource is kept as it is,
    # like before: it never blocked the rest)
    held = [dict(r) for r in protected or [] if r["id"] in active.get(r["type"], [])]
    for r in held:
        active[r["type"]].remove(r["id"])
    blocked = _blocked(active, held, deps)
    for (t, i) in blocked:
        active[t].remove(i)
    active = dict((t, ids) for t, ids in active.items() if ids)
    cycle = find_cycle(set(active), deps)
    if cycle:
        raise PlanError("dependency cycle among resource types: %s; no order can delete them" % " -> ".join(cycle))
    waits = {t: sorted(d for d in deps.get(t, []) if d in active) for t in active}
    # IAM goes last, as in HyperShift's destroyPlatformSpecifics (openshift/hypershift@3ee9615,
    # cmd/cluster/aws/destroy.go: DestroyInfra, then DestroyIAM): the roles are the credentials of the
    # controllers that made the infrastructure. Unlike it, IAM is not attempted once an infrastructure delete
    # failed (the executor's rule for any dependent): the run stops naming that resource and a re-run resumes.
    infra = [t for t in active if t not in IAM_TYPES]
    for t in active:
        if t in IAM_TYPES and not any(d in IAM_TYPES for d in waits[t]):
            waits[t] = sorted(set(waits[t]) | set(infra))
    level = {}

    def lvl(t):
        if t not in level:
            level[t] = 0 if not waits[t] else 1 + max(lvl(d) for d in waits[t])
        return level[t]

    for t in active:
        lvl(t)
    depth = 1 + max(level.values()) if level else 0
    levels = [[] for dummy in range(depth)]
    for t in sorted(active, key=lambda x: (level[x], x)):
        for i in active[t]:
            levels[level[t]].append({
                "type": t, "id": i, "level": level[t],
                "waits_on": ["%s %s" % (d, TERMINAL.get(d, "absent")) for d in waits[t]],
                "steps": list(STEPS.get(t, ["delete"])),
            })
    return {"levels": levels, "retained": retained, "type_levels": dict(level), "waits": waits,
            "manifest": manifest, "kept": sorted(held, key=lambda r: (r["type"], r["id"])),
            "blocked": [{"type": t, "id": i, "blocked_by": by} for (t, i), by in sorted(blocked.items())]}
