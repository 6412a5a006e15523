# -*- coding: utf-8 -*-
"""owners/hypershift_hcp_owners.py: when CPO and HCCO count as gone, and what releases CPO's finalizer."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import parse_iso
from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift_hcp_owners as H

FIN = "hypershift.openshift.io/finalizer"
NOW = parse_iso("2026-01-01T01:00:00Z").timestamp()


def deployment(name, ready=0, replicas=1):
    return {"metadata": {"name": name}, "spec": {"replicas": replicas}, "status": {"readyReplicas": ready}}


def hcp(deleting="2026-01-01T00:00:00Z", fins=(FIN,), conditions=()):
    meta = {"name": "demo", "namespace": "clusters-demo", "uid": "hcp-uid", "finalizers": list(fins)}
    if deleting:
        meta["deletionTimestamp"] = deleting
    return {"metadata": meta, "status": {"conditions": list(conditions)}}


def test_a_deployment_absent_or_without_a_ready_replica_is_gone():
    assert H.deployment_state([], H.CPO_DEPLOYMENT) == (True, "absent")
    assert H.deployment_state([deployment(H.CPO_DEPLOYMENT)], H.CPO_DEPLOYMENT) == (
        True, "not ready (0 of 1 replicas ready)")
    assert H.deployment_state([deployment(H.CPO_DEPLOYMENT, replicas=0)], H.CPO_DEPLOYMENT)[0] is True
    assert H.deployment_state([deployment(H.CPO_DEPLOYMENT, ready=1)], H.CPO_DEPLOYMENT) == (False, "1 of 1 replicas ready")


def test_owners_gone_needs_both_down_the_finalizer_held_and_no_progress_for_take_over_after():
    down = [deployment(H.CPO_DEPLOYMENT)]  # HCCO absent, CPO not ready
    ev = H.owners_gone(hcp(), down, NOW, 900, FIN)
    assert [e["what"] for e in ev] == ["CPO Deployment clusters-demo/control-plane-operator",
                                       "HCCO Deployment clusters-demo/hosted-cluster-config-operator",
                                       "HostedControlPlane clusters-demo/demo"]
    assert "no CloudResourcesDestroyed condition since the deletion was requested" in ev[2]["state"]
    assert all(e["read_at"] for e in ev)
    # HCCO ready: not gone
    assert H.owners_gone(hcp(), down + [deployment(H.HCCO_DEPLOYMENT, ready=1)], NOW, 900, FIN) is None
    # not deleting, or CPO's finalizer already off: nothing to take over
    assert H.owners_gone(hcp(deleting=None), down, NOW, 900, FIN) is None
    assert H.owners_gone(hcp(fins=()), down, NOW, 900, FIN) is None
    # the deletion is younger than take_over_after
    assert H.owners_gone(hcp(), down, NOW, 7200, FIN) is None
    # the condition moved recently: progress
    moved = {"type": "CloudResourcesDestroyed", "status": "False", "reason": "RemainingCloudResources",
             "lastTransitionTime": "2026-01-01T00:59:00Z"}
    assert H.owners_gone(hcp(conditions=[moved]), down, NOW, 900, FIN) is None
    stale = dict(moved, lastTransitionTime="2026-01-01T00:10:00Z")
    ev = H.owners_gone(hcp(conditions=[stale]), down, NOW, 900, FIN)
    assert "CloudResourcesDestroyed=False (RemainingCloudResources) unchanged since 2026-01-01T00:10:00Z" in ev[2]["state"]
    # an unreadable time is no evidence
    assert H.owners_gone(hcp(deleting="soon"), down, NOW, 900, FIN) is None


def test_the_guest_manifest_is_the_guest_s_part_only():
    manifest = {H.g.ELB: ["router"], H.g.VOLUME: ["vol-guest", "vol-worker"], H.g.BUCKET: ["infra-image-registry-x"],
                H.g.VPC: ["vpc-1"], H.g.TARGET_GROUP: ["arn:tg"]}
    assert H.guest_manifest(manifest, ["vol-guest", "vol-gone-already"]) == {
        H.g.ELB: ["router"], H.g.TARGET_GROUP: ["arn:tg"], H.g.BUCKET: ["infra-image-registry-x"],
        H.g.VOLUME: ["vol-guest"]}
    assert H.guest_manifest({}, []) == {}


def test_the_guest_manifest_takes_the_groups_of_the_guest_s_load_balancers_the_inventory_marked():
    manifest = {H.g.ELB: ["a1b2"], H.g.SG: ["sg-elb", "sg-worker"], H.g.VPC: ["vpc-1"]}
    # the inventory's guest_groups: only those still in the manifest, never the manifest's other groups
    assert H.guest_manifest(manifest, [], ["sg-elb", "sg-gone-already"]) == {H.g.ELB: ["a1b2"], H.g.SG: ["sg-elb"]}
    assert H.guest_manifest(manifest, []) == {H.g.ELB: ["a1b2"]}
    # with the AWSEndpointServices' groups in one cleanup manifest, in the dependency order of graph.TYPE_DEPS
    merged = H.merge_manifests(H.guest_manifest(manifest, [], ["sg-elb"]), {H.g.SG: ["sg-vpce"]})
    assert merged[H.g.SG] == ["sg-elb", "sg-vpce"]
    assert H.g.ELB in H.g.TYPE_DEPS[H.g.SG] and H.g.ELBV2 in H.g.TYPE_DEPS[H.g.SG]
    assert H.guest_text({}) == "none"
    assert H.guest_text({H.g.ELB: ["a", "b"]}) == "%s: a, b" % H.g.ELB


def test_only_every_guest_id_verified_absent_is_evidence():
    guest = {H.g.ELB: ["router"], H.g.VOLUME: ["vol-1"]}
    done = [{"type": H.g.ELB, "id": "router", "outcome": "deleted", "verified_state": "absent"},
            {"type": H.g.VOLUME, "id": "vol-1", "outcome": "deleted", "verified_state": "terminal"}]
    ok, evidence, left = H.guest_evidence(done, guest)
    assert ok and left == [] and sorted(e["what"] for e in evidence) == sorted(["%s router" % H.g.ELB, "%s vol-1" % H.g.VOLUME])
    assert all(e["verified_absent_at"] for e in evidence)
    assert sorted(e["verified_state"] for e in evidence) == ["absent", "terminal"]  # a deleting volume: nothing stops it
    ok, evidence, left = H.guest_evidence(done[:1] + [dict(done[1], outcome="failed", verified_state="unknown")], guest)
    assert not ok and left == ["%s vol-1 (failed)" % H.g.VOLUME]
    ok, dummy, left = H.guest_evidence([], guest)
    assert not ok and len(left) == 2 and "not in the cleanup's results" in left[0]


CPO_EP_FINALIZER = "hypershift.openshift.io/control-plane-operator-finalizer"


def _ep(name, status=None, deleting=True, fins=(CPO_EP_FINALIZER,)):
    meta = {"name": name, "namespace": "clusters-demo", "uid": "uid-" + name, "finalizers": list(fins)}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"kind": "AWSEndpointService", "metadata": meta, "status": dict(status or {})}


def test_an_endpoint_service_s_aws_ids_are_what_its_status_names():
    st = {"endpointID": "vpce-1", "securityGroupID": "sg-1", "dnsZoneID": "Z1",
          "dnsNames": ["*.apps.demo.hypershift.local", "", "api.demo.hypershift.local."],
          "endpointServiceName": "com.amazonaws.vpce.us-east-1.vpce-svc-1"}  # HO's, not CPO's
    assert H.endpoint_resources(_ep("a", st)) == {
        "AWS::EC2::VPCEndpoint": ["vpce-1"], "AWS::EC2::SecurityGroup": ["sg-1"],
        "AWS::Route53::RecordSet": ["Z1/\\052.apps.demo.hypershift.local./CNAME", "Z1/api.demo.hypershift.local./CNAME"]}
    # names without a zone name no record; an empty status names nothing
    assert H.endpoint_resources(_ep("a", {"dnsNames": ["api.demo.hypershift.local"]})) == {}
    assert H.endpoint_resources(None) == {}


def test_only_deleting_endpoint_services_held_by_cpo_s_finalizer_are_taken_over():
    eps = [_ep("b", {"endpointID": "vpce-b"}), _ep("a"), _ep("c", deleting=False), _ep("d", fins=["other/x"])]
    held = H.held_endpoint_services(eps, CPO_EP_FINALIZER)
    assert [(e["name"], e["uid"], e["resources"]) for e in held] == [
        ("a", "uid-a", {}), ("b", "uid-b", {"AWS::EC2::VPCEndpoint": ["vpce-b"]})]
    assert H.held_endpoint_services(None, CPO_EP_FINALIZER) == []
    assert H.endpoint_services_text(held[1:]) == (
        "AWSEndpointService clusters-demo/b (AWS::EC2::VPCEndpoint: vpce-b)")
    assert H.endpoint_services_text([]) == "none"


def test_manifests_merge_into_sorted_unique_ids():
    assert H.merge_manifests({"T": ["b", "a"]}, None, {"T": ["a", "c"], "U": []}, {"V": ["x"]}) == {
        "T": ["a", "b", "c"], "V": ["x"]}
    assert H.merge_manifests() == {}


def test_an_endpoint_id_the_cleanup_could_not_read_is_left_never_absent():
    ids = {"AWS::EC2::VPCEndpoint": ["vpce-1"], "AWS::EC2::SecurityGroup": ["sg-1"]}
    results = [{"type": "AWS::EC2::VPCEndpoint", "id": "vpce-1", "verified_state": "absent"},
               {"type": "AWS::EC2::SecurityGroup", "id": "sg-1", "verified_state": "unknown", "outcome": "failed"}]
    ok, evidence, left = H.guest_evidence(results, ids)
    assert ok is False and [e["what"] for e in evidence] == ["AWS::EC2::VPCEndpoint vpce-1"]
    assert left == ["AWS::EC2::SecurityGroup sg-1 (failed)"]


def test_cpo_is_gone_at_hs_6_only_when_its_deployment_is_down_and_every_held_one_deleted_take_over_after_ago():
    now = parse_iso("2026-01-01T01:00:00Z").timestamp()
    cpo_down = [{"metadata": {"name": "control-plane-operator"}, "spec": {"replicas": 1}, "status": {}}]
    eps = [_ep("a", {"endpointID": "vpce-a"}), _ep("b", deleting=False)]
    held, evidence = H.endpoint_owner_gone(eps, cpo_down, now, 600, CPO_EP_FINALIZER)
    assert [e["name"] for e in held] == ["a"]
    assert [(e["what"], e["state"]) for e in evidence] == [
        ("CPO Deployment clusters-demo/control-plane-operator", "not ready (0 of 1 replicas ready)"),
        ("AWSEndpointService clusters-demo/a",
         "deleting since 2026-01-01T00:00:00Z, 600 s or more, still held by " + CPO_EP_FINALIZER)]
    assert all(e["read_at"].startswith("2026-01-01T01:00:00") for e in evidence)
    assert H.endpoint_owner_gone(eps, [], now, 600, CPO_EP_FINALIZER)[0] is not None  # CPO absent: gone too
    # CPO ready, deleting for less than take_over_after, nothing held: not taken as gone
    ready = [dict(cpo_down[0], status={"readyReplicas": 1})]
    assert H.endpoint_owner_gone(eps, ready, now, 600, CPO_EP_FINALIZER) == (None, None)
    assert H.endpoint_owner_gone(eps, cpo_down, now, 7200, CPO_EP_FINALIZER) == (None, None)
    assert H.endpoint_owner_gone([_ep("c", fins=[])], cpo_down, now, 600, CPO_EP_FINALIZER) == (None, None)


# -- HO's AWSEndpointService part (HS-31) ---------------------------------------------------------------------
HO_FIN = "hypershift.openshift.io/hypershift-operator-finalizer"
SVC_NAME = "com.amazonaws.vpce.us-west-1.vpce-svc-014f44db649a87c02"


def ho_held(name="private-router", deleting="2026-01-01T00:00:00Z", fins=(HO_FIN,), service_name=SVC_NAME):
    meta = {"name": name, "namespace": "clusters-demo", "uid": "uid-" + name, "finalizers": list(fins)}
    if deleting:
        meta["deletionTimestamp"] = deleting
    return {"metadata": meta, "status": {"endpointServiceName": service_name}}


def test_the_configuration_id_is_the_last_segment_of_the_service_name_as_ho_derives_it():
    assert H.endpoint_service_id(SVC_NAME) == "vpce-svc-014f44db649a87c02"
    assert H.endpoint_service_id("") is None and H.endpoint_service_id(None) is None
    assert H.ho_endpoint_resources(ho_held()) == {H.g.ENDPOINT_SERVICE: ["vpce-svc-014f44db649a87c02"]}
    assert H.ho_endpoint_resources(ho_held(service_name="")) == {}  # HO has nothing to clean up then


def test_ho_s_part_is_taken_over_only_when_every_one_it_holds_has_been_deleting_take_over_after():
    held, ev = H.ho_endpoint_owner_gone([ho_held(), ho_held("other", fins=())], NOW, 900, HO_FIN)
    assert [(e["name"], e["uid"], e["resources"]) for e in held] == [
        ("private-router", "uid-private-router", {H.g.ENDPOINT_SERVICE: ["vpce-svc-014f44db649a87c02"]})]
    assert [e["what"] for e in ev] == ["AWSEndpointService clusters-demo/private-router"]
    assert "still held by %s (HO's" % HO_FIN in ev[0]["state"] and ev[0]["read_at"]
    # deleting for less than take_over_after: HO (retrying every 5 s) may still be at it
    assert H.ho_endpoint_owner_gone([ho_held()], NOW, 7200, HO_FIN) == (None, None)
    assert H.ho_endpoint_owner_gone([ho_held(), ho_held("young", deleting="2026-01-01T00:59:00Z")], NOW, 900,
                                    HO_FIN) == (None, None)
    # not deleting, or HO's finalizer off: nothing of HO's to take over
    assert H.ho_endpoint_owner_gone([ho_held(deleting=None)], NOW, 900, HO_FIN) == (None, None)
    assert H.ho_endpoint_owner_gone([ho_held(fins=("other",))], NOW, 900, HO_FIN) == (None, None)
    assert H.ho_endpoint_owner_gone([ho_held(deleting="soon")], NOW, 900, HO_FIN) == (None, None)


def test_only_a_configuration_tagged_owned_for_this_infra_id_is_the_cluster_s():
    tag = "kubernetes.io/cluster/demo-x1"
    assert H.cluster_owned([{"Key": tag, "Value": "owned"}, {"Key": "Name", "Value": "x"}], "demo-x1")[0] is True
    # the neighbour's (an infra ID that merely starts the same), untagged, or shared: refused, saying what it carries
    ok, why = H.cluster_owned([{"Key": tag + "-2", "Value": "owned"}], "demo-x1")
    assert not ok and why == "tagged %s-2=owned, not %s=owned: not this cluster's" % (tag, tag)
    ok, why = H.cluster_owned([{"Key": "Name", "Value": "x"}], "demo-x1")
    assert not ok and "untagged" in why
    assert H.cluster_owned(None, "demo-x1")[0] is False
    ok, why = H.cluster_owned([{"Key": tag, "Value": "shared"}], "demo-x1")
    assert not ok and "%s=shared" % tag in why


def test_not_owned_rows_refuse_what_the_look_found_not_the_cluster_s_and_leave_unknown_and_gone_alone():
    sid = "vpce-svc-1"
    resources = {H.g.ENDPOINT_SERVICE: [sid]}

    def seen(item):
        return {H.g.ENDPOINT_SERVICE: {sid: item}}
    owned = [{"Key": "kubernetes.io/cluster/demo-x1", "Value": "owned"}]
    assert H.not_owned_rows(seen({"state": "present", "Tags": owned}), "demo-x1", resources) == []
    other = [{"Key": "kubernetes.io/cluster/demo-x1-2", "Value": "owned"}]
    (row,) = H.not_owned_rows(seen({"state": "present", "Tags": other}), "demo-x1", resources)
    assert (row["type"], row["id"]) == (H.g.ENDPOINT_SERVICE, sid) and row["reason"].startswith(H.NOT_OWNED_PREFIX)
    assert "demo-x1-2=owned" in row["reason"]
    assert len(H.not_owned_rows(seen({"state": "present", "Tags": []}), "demo-x1", resources)) == 1
    # a failed look is the cleanup's unknown-tags rule (never deleted, never absent); gone is nothing to refuse
    assert H.not_owned_rows(seen({"state": "unknown", "error": "boom"}), "demo-x1", resources) == []
    assert H.not_owned_rows(seen({"state": "absent"}), "demo-x1", resources) == []
    assert H.not_owned_rows({}, "demo-x1", resources) == []


def test_a_refused_id_is_left_with_the_cleanup_s_reason():
    res = [{"type": H.g.ENDPOINT_SERVICE, "id": "vpce-svc-1", "outcome": "failed",
            "error": "refused: not shown to be infra ID demo-x1's: tagged x"}]
    ok, evidence, left = H.guest_evidence(res, {H.g.ENDPOINT_SERVICE: ["vpce-svc-1"]})
    assert not ok and evidence == [] and left == [
        "%s vpce-svc-1 (failed: refused: not shown to be infra ID demo-x1's: tagged x)" % H.g.ENDPOINT_SERVICE]
