"""The planner: orderings, cycles refused with a clear error, preserve_iam, bad manifests."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g


def level_of(plan, rtype):
    levels = {r["level"] for lvl in plan["levels"] for r in lvl if r["type"] == rtype}
    assert len(levels) == 1, levels
    return levels.pop()


FULL = {
    g.INSTANCE: ["i-1", "i-2"], g.NAT: ["nat-1"], g.IGW: ["igw-1"], g.SUBNET: ["subnet-1", "subnet-2"],
    g.ROUTE_TABLE: ["rtb-1"], g.SG: ["sg-1", "sg-2"], g.ENDPOINT: ["vpce-1"], g.EIP: ["eipalloc-1"],
    g.VPC: ["vpc-1"], g.DHCP: ["dopt-1"], g.ELB: ["lb"], g.ZONE: ["Z1"], g.RECORD: ["Z2/*.apps.x./A"],
    g.BUCKET: ["x-image-registry-1"], g.PREFIX: ["oidc/x/"], g.ROLE: ["x-node-pool"], g.PROFILE: ["x-worker"],
    g.POLICY: ["arn:aws:iam::1:policy/x-p"], g.OIDC: ["arn:aws:iam::1:oidc-provider/o/x"],
}


def test_every_dependency_comes_first():
    plan = g.plan(FULL)
    for rtype, deps in g.TYPE_DEPS.items():
        for dep in deps:
            if rtype in FULL and dep in FULL:
                assert level_of(plan, dep) < level_of(plan, rtype), (dep, rtype)


def test_known_orderings():
    plan = g.plan(FULL)
    assert level_of(plan, g.NAT) == 0 and level_of(plan, g.INSTANCE) == 0
    assert level_of(plan, g.IGW) > level_of(plan, g.NAT)  # detach refused while a NAT gateway is not deleted
    assert level_of(plan, g.EIP) > level_of(plan, g.NAT)  # a NAT gateway holds its EIP until deleted
    assert level_of(plan, g.SUBNET) > level_of(plan, g.ELB)
    assert level_of(plan, g.VPC) > level_of(plan, g.SUBNET)
    assert level_of(plan, g.DHCP) > level_of(plan, g.VPC)
    assert level_of(plan, g.ROLE) > level_of(plan, g.PROFILE) > level_of(plan, g.INSTANCE)
    assert level_of(plan, g.POLICY) > level_of(plan, g.ROLE)


def test_levels_only_count_types_present():
    plan = g.plan({g.VPC: ["vpc-1"], g.SUBNET: ["subnet-1"]})
    assert [[r["type"] for r in lvl] for lvl in plan["levels"]] == [[g.SUBNET], [g.VPC]]
    assert plan["levels"][1][0]["waits_on"] == [g.SUBNET + " absent"]


def test_waits_name_the_terminal_state():
    plan = g.plan({g.SUBNET: ["subnet-1"], g.NAT: ["nat-1"], g.INSTANCE: ["i-1"]})
    subnet = [r for lvl in plan["levels"] for r in lvl if r["type"] == g.SUBNET][0]
    assert g.NAT + " deleted" in subnet["waits_on"] and g.INSTANCE + " terminated" in subnet["waits_on"]


def test_preserve_iam_retains_iam_and_plans_the_rest():
    plan = g.plan(FULL, preserve_iam=True)
    planned = {r["type"] for lvl in plan["levels"] for r in lvl}
    assert not planned & g.IAM_TYPES
    assert {r["type"] for r in plan["retained"]} == g.IAM_TYPES
    assert all(r["reason"] == "preserve_iam" for r in plan["retained"])


def test_a_protected_resource_is_kept_and_what_waits_on_it_is_blocked_the_rest_planned():
    kept = [{"type": g.INSTANCE, "id": "i-1", "reason": "tagged teardown.gates/protected"}]
    plan = g.plan(FULL, protected=kept)
    planned = set((r["type"], r["id"]) for lvl in plan["levels"] for r in lvl)
    assert plan["kept"] == kept
    blocked = dict(((r["type"], r["id"]), r["blocked_by"]) for r in plan["blocked"])
    # an instance holds its subnet, groups, the VPC, the internet gateway, EIPs, the profile (and IAM, last)
    for rtype in (g.SUBNET, g.SG, g.VPC, g.DHCP, g.IGW, g.EIP, g.PROFILE, g.ROLE, g.POLICY, g.OIDC):
        for i in FULL[rtype]:
            assert blocked[(rtype, i)] == [g.INSTANCE + " i-1"], (rtype, i)
            assert (rtype, i) not in planned
    # the other instance and what never waits on instances are still deleted
    for rtype in (g.INSTANCE, g.NAT, g.ROUTE_TABLE, g.ENDPOINT, g.ELB, g.ZONE, g.RECORD, g.BUCKET, g.PREFIX):
        assert set((rtype, i) for i in FULL[rtype] if i != "i-1") <= planned, rtype
    assert (g.INSTANCE, "i-1") not in planned and (g.INSTANCE, "i-2") in planned
    every = planned | set(blocked) | {(g.INSTANCE, "i-1")}
    assert every == set((t, i) for t, ids in FULL.items() for i in ids)  # nothing is lost


def test_a_protected_id_outside_the_manifest_or_retained_changes_nothing():
    base = g.plan(FULL, retain={g.SUBNET: ["subnet-1"]})
    other = g.plan(FULL, retain={g.SUBNET: ["subnet-1"]},
                   protected=[{"type": g.NAT, "id": "nat-x", "reason": "r"},
                              {"type": g.SUBNET, "id": "subnet-1", "reason": "r"}])
    assert other["levels"] == base["levels"] and other["kept"] == [] and other["blocked"] == []


def test_cycle_is_refused_with_the_cycle_named():
    deps = dict(g.TYPE_DEPS)
    deps[g.NAT] = [g.SUBNET]  # a subnet waits for its NAT gateway; make the NAT wait for the subnet
    with pytest.raises(g.PlanError) as e:
        g.plan({g.NAT: ["nat-1"], g.SUBNET: ["subnet-1"]}, deps=deps)
    msg = str(e.value)
    assert "cycle" in msg and g.NAT in msg and g.SUBNET in msg


def test_cycle_among_absent_types_does_not_matter():
    deps = dict(g.TYPE_DEPS)
    deps[g.NAT] = [g.SUBNET]
    plan = g.plan({g.VPC: ["vpc-1"]}, deps=deps)
    assert plan["levels"][0][0]["id"] == "vpc-1"


def test_find_cycle():
    assert g.find_cycle({"a", "b", "c"}, {"a": ["b"], "b": ["c"], "c": ["a"]}) in (
        ["a", "b", "c", "a"], ["b", "c", "a", "b"], ["c", "a", "b", "c"])
    assert g.find_cycle({"a", "b"}, {"a": ["b"], "b": []}) is None


@pytest.mark.parametrize("manifest, words", [
    ({"AWS::EC2::Banana": ["x"]}, ["unknown resource type", "AWS::EC2::Banana"]),
    (["vpc-1"], ["must be a mapping"]),
    ({g.VPC: "vpc-1"}, ["must be a list"]),
    ({g.VPC: [""]}, ["not non-empty strings"]),
    ({g.VPC: [None]}, ["not non-empty strings"]),
])
def test_bad_manifests_are_refused(manifest, words):
    with pytest.raises(g.PlanError) as e:
        g.plan(manifest)
    for w in words:
        assert w in str(e.value)


def test_empty_and_duplicate_ids_normalised():
    plan = g.plan({g.VPC: ["vpc-1", "vpc-1"], g.SUBNET: []})
    assert plan["manifest"] == {g.VPC: ["vpc-1"]}
    assert g.plan({})["levels"] == []


def test_iam_is_planned_after_every_infrastructure_type():
    plan = g.plan(FULL)
    level = plan["type_levels"]
    infra = [t for t in level if t not in g.IAM_TYPES]
    assert all(level[i] > level[t] for i in g.IAM_TYPES for t in infra)
    # the chain inside IAM stays: profile, then role, then policy
    assert level[g.PROFILE] < level[g.ROLE] < level[g.POLICY]


def test_iam_alone_keeps_its_own_order():
    plan = g.plan({g.ROLE: ["r"], g.POLICY: ["arn:aws:iam::1:policy/p"], g.OIDC: ["arn:aws:iam::1:oidc-provider/o"]})
    assert plan["type_levels"] == {g.ROLE: 0, g.OIDC: 0, g.POLICY: 1}


def test_an_endpoint_service_goes_before_its_load_balancer_its_endpoints_and_the_vpc():
    # AWS refuses to delete an NLB an endpoint service configuration still uses (ResourceInUse); HyperShift's
    # DestroyInfra deletes the services (rejecting their connections) before the VPCs and their endpoints
    nlb = "arn:aws:elasticloadbalancing:x:1:loadbalancer/net/n/1"
    plan = g.plan(dict(FULL, **{g.ENDPOINT_SERVICE: ["vpce-svc-1"], g.ELBV2: [nlb],
                                g.TARGET_GROUP: ["arn:aws:elasticloadbalancing:x:1:targetgroup/t/1"]}))
    svc = level_of(plan, g.ENDPOINT_SERVICE)
    assert svc == 0
    assert svc < level_of(plan, g.ELBV2) < level_of(plan, g.TARGET_GROUP) < level_of(plan, g.VPC)
    assert svc < level_of(plan, g.ENDPOINT) < level_of(plan, g.SUBNET)
    step = [r for lvl in plan["levels"] for r in lvl if r["type"] == g.ENDPOINT_SERVICE][0]
    assert step["steps"] == ["reject its endpoint connections", "delete the service configuration"]
    elbv2 = [r for lvl in plan["levels"] for r in lvl if r["type"] == g.ELBV2][0]
    assert "%s absent" % g.ENDPOINT_SERVICE in elbv2["waits_on"]


def test_an_endpoint_service_alone_still_goes_before_the_vpc():
    plan = g.plan({g.ENDPOINT_SERVICE: ["vpce-svc-1"], g.VPC: ["vpc-1"]})
    assert level_of(plan, g.ENDPOINT_SERVICE) < level_of(plan, g.VPC)


def test_a_world_without_an_endpoint_service_plans_as_before():
    # the new type waits on nothing and only adds waits where it is present
    plan = g.plan(FULL)
    assert g.ENDPOINT_SERVICE not in plan["type_levels"] and level_of(plan, g.ENDPOINT) == 0
