# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift_take_over as T

NS, NAME, INFRA = "clusters", "demo", "demo-x1"
DELETED_AT = "2026-01-01T00:00:00Z"
WALL = 1767229200.0  # 2026-01-01T01:00:00Z: an hour after the HCP's deletion
HCP = "clusters-demo"
KEY = "%s/%s-a" % (NS, NAME)


def obj(kind, name, namespace=None, fins=(), ann=None, spec=None, uid=None):
    meta = {"name": name, "uid": uid or "uid-%s-%s" % (kind, name), "finalizers": list(fins),
            "annotations": dict(ann or {})}
    if namespace:
        meta["namespace"] = namespace
    return {"kind": kind, "metadata": meta, "spec": dict(spec or {})}


class FakeCluster(object):
    """The API server plus the controllers that still run: Cluster API (a deleting MachineSet's Machines go,
    then a deleting Cluster goes once no Machine is left, taking the HostedControlPlane with it), and the
    namespace controller. The hypershift-operator is down: nothing drops its finalizers."""

    def __init__(self, foreign_machine=False, fail_list=None, cpo_down=False):
        self.objs = {}
        self.cpo_down = cpo_down  # CPO and HCCO down: a deleting HCP keeps CPO's finalizer
        self.fail_list = fail_list
        self.requests = []
        hc = obj("HostedCluster", NAME, NS, fins=["openshift.io/destroy-cluster", T.HO_FINALIZER, T.OIDC_FINALIZER],
                 uid="hc-uid")
        hc["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        hc["metadata"]["annotations"][T.CLEANUP_ANN] = "true"
        self.add(hc)
        self.add(obj("NodePool", NAME + "-a", NS, fins=[T.HO_FINALIZER], spec={"clusterName": NAME}))
        self.add(obj("NodePool", "other-a", NS, fins=[T.HO_FINALIZER], spec={"clusterName": "other"}))
        self.add(obj("MachineSet", "ms1", HCP, ann={T.NODEPOOL_ANN: KEY}))
        self.add(obj("Machine", "m1", HCP, fins=["machine.cluster.x-k8s.io"], ann={T.NODEPOOL_ANN: KEY}))
        if foreign_machine:
            self.add(obj("Machine", "m2", HCP, fins=["example.com/foreign-hold"], ann={T.NODEPOOL_ANN: KEY}))
        self.add(obj("Cluster", INFRA, HCP, fins=["cluster.cluster.x-k8s.io"]))
        self.add(obj("HostedControlPlane", NAME, HCP, fins=[T.HO_FINALIZER]))
        self.add(obj("Namespace", HCP))

    def add(self, o):
        self.objs[(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"])] = o

    def _controllers(self):
        def deleting(o):
            return bool(o["metadata"].get("deletionTimestamp"))
        for k, o in list(self.objs.items()):
            if not deleting(o):
                continue
            if o["kind"] == "MachineSet":
                for mk, m in list(self.objs.items()):
                    if m["kind"] == "Machine":
                        m["metadata"]["deletionTimestamp"] = "now"
                        m["metadata"]["finalizers"] = [f for f in m["metadata"]["finalizers"]
                                                       if f != "machine.cluster.x-k8s.io"]
                self.objs.pop(k)
            elif o["kind"] == "Cluster" and self.cpo_down and ("HostedControlPlane", HCP, NAME) in self.objs:
                self.objs[("HostedControlPlane", HCP, NAME)]["metadata"].setdefault("deletionTimestamp", DELETED_AT)
            elif o["kind"] == "Cluster" and not any(m["kind"] == "Machine" for m in self.objs.values()):
                hcp = self.objs.get(("HostedControlPlane", HCP, NAME))
                self.hcp_cleanup = hcp is not None and hcp["metadata"]["annotations"].get(T.CLEANUP_ANN) == "true"
                self.objs.pop(k)
                self.objs.pop(("HostedControlPlane", HCP, NAME), None)
            elif o["kind"] == "Namespace" and not any(x["metadata"].get("namespace") == HCP for x in self.objs.values()):
                self.objs.pop(k)
        for k, o in list(self.objs.items()):  # finalizers all gone: the object goes
            if deleting(o) and not o["metadata"]["finalizers"]:
                self.objs.pop(k)

    def list(self, api_version, kind, namespace=None):
        self._controllers()
        if kind == self.fail_list:
            return {"ok": False, "items": [], "query": {"error": "read timed out"}}
        return {"ok": True, "items": [o for o in self.objs.values() if o["kind"] == kind
                                      and (namespace is None or o["metadata"].get("namespace") == namespace)],
                "query": {}}

    def get(self, api_version, kind, name, namespace=None):
        self._controllers()
        o = self.objs.get((kind, namespace, name))
        return {"state": "present" if o else "absent", "object": o, "query": {}}

    def delete(self, api_version, kind, name, namespace, uid):
        self.requests.append(("delete", kind, name))
        o = self.objs.get((kind, namespace, name))
        if o is None:
            return {"state": "absent", "query": {}}
        assert o["metadata"]["uid"] == uid
        o["metadata"]["deletionTimestamp"] = "now"
        return {"state": "deleted", "query": {}}

    def annotate(self, api_version, kind, name, namespace, uid, key, value):
        self.requests.append(("annotate", kind, name, key))
        o = self.objs[(kind, namespace, name)]
        assert o["metadata"]["uid"] == uid
        o["metadata"]["annotations"][key] = value
        return {"state": "done"}

    def remove_finalizers(self, api_version, kind, name, namespace, uid, names):
        self.requests.append(("unfinalize", kind, name, tuple(names)))
        o = self.objs.get((kind, namespace, name))
        if o is None:
            return {"state": "absent"}
        assert o["metadata"]["uid"] == uid
        if not set(names) & set(o["metadata"]["finalizers"]):
            return {"state": "not_held"}
        o["metadata"]["finalizers"] = [f for f in o["metadata"]["finalizers"] if f not in names]
        return {"state": "removed"}


class Clock(object):
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t

    def sleep(self, s):
        self.t += max(s, 0.01)


def job(kube, timeout=60, check_mode=False, take_over_after=None):
    clock = Clock()
    return T.TakeOver(kube, {"namespace": NS, "name": NAME, "uid": "hc-uid"}, INFRA, HCP, timeout,
                      check_mode=check_mode, poll=2, clock=clock, sleep=clock.sleep, take_over_after=take_over_after,
                      wall=lambda: WALL)


def test_the_operator_part_in_its_order_and_only_its_finalizers_come_off():
    kube = FakeCluster()
    j = job(kube)
    assert j.run() is True and not j.blockers
    released = [(r["object"]["kind"], r["object"]["name"], r["finalizer"]) for r in j.removed]
    assert released == [("NodePool", NAME + "-a", T.HO_FINALIZER), ("HostedCluster", NAME, T.HO_FINALIZER)]
    hc = kube.objs[("HostedCluster", NS, NAME)]
    # the CLI's finalizer and the OIDC one (its documents are in S3, for the AWS phase) stay
    assert hc["metadata"]["finalizers"] == ["openshift.io/destroy-cluster", T.OIDC_FINALIZER]
    assert ("NodePool", NS, "other-a") in kube.objs  # another cluster's NodePool is not touched
    deletes = [r[1] for r in kube.requests if r[0] == "delete"]
    assert deletes == ["NodePool", "MachineSet", "Cluster", "Namespace"]
    # the cleanup annotation reached the HostedControlPlane before its deletion (HS-3), so CPO cleans the guest
    assert kube.hcp_cleanup is True
    assert [r for r in kube.requests if r[0] == "annotate"] == [("annotate", "HostedControlPlane", NAME, T.CLEANUP_ANN)]
    np_evidence = [e["what"] for e in j.removed[0]["evidence"]]
    assert any("Machine %s/m1" % HCP in w for w in np_evidence)
    assert all(e["verified_absent_at"] for e in j.removed[1]["evidence"])
    assert j.removed[1]["uid"] == "hc-uid" and j.removed[1]["owner"] != "unknown"


def test_a_foreign_blocker_keeps_every_finalizer_that_guards_it_and_is_named():
    kube = FakeCluster(foreign_machine=True)
    j = job(kube, timeout=20)
    assert j.run() is False
    assert j.removed == []  # neither the NodePool's nor the HostedCluster's finalizer came off
    names = [(b["kind"], b["name"]) for b in j.blockers]
    assert ("Machine", "m2") in names
    m2 = [b for b in j.blockers if b["name"] == "m2"][0]
    assert m2["finalizers"] == [{"name": "example.com/foreign-hold", "owner": "unknown"}]
    assert "example.com/foreign-hold (unknown)" in T.blocker_text(m2)
    assert T.HO_FINALIZER in kube.objs[("HostedCluster", NS, NAME)]["metadata"]["finalizers"]
    assert T.HO_FINALIZER in kube.objs[("NodePool", NS, NAME + "-a")]["metadata"]["finalizers"]


def test_a_failed_read_is_unknown_and_nothing_is_released():
    kube = FakeCluster(fail_list="Machine")
    j = job(kube)
    with pytest.raises(T.Unknown, match="unknown"):
        j.run()
    assert j.removed == []
    assert not [r for r in kube.requests if r[0] == "unfinalize"]


def test_check_mode_sends_no_write_and_plans_both_releases():
    kube = FakeCluster()
    j = job(kube, check_mode=True)
    j.run()
    assert kube.requests == []
    assert j.removed == []
    assert any("would remove %s from NodePool" % T.HO_FINALIZER in p for p in j.planned)
    assert any("would delete Cluster.cluster.x-k8s.io %s/%s" % (HCP, INFRA) in p for p in j.planned)
    assert any("would set %s" % T.CLEANUP_ANN in p for p in j.planned)


def test_a_recreated_hosted_cluster_is_not_touched():
    kube = FakeCluster()
    kube.objs[("HostedCluster", NS, NAME)]["metadata"]["uid"] = "newer"
    with pytest.raises(T.Unknown, match="recreated"):
        job(kube).run()
    assert kube.requests == []


def test_the_oidc_finalizer_needs_the_aws_phase_s_verification():
    prefix = {"type": "Custom::S3Prefix", "id": "oidc-bucket/%s/" % INFRA}
    manifest = {"Custom::S3Prefix": [prefix["id"]]}
    ok, how = T.oidc_evidence([dict(prefix, outcome="deleted", verified_state="absent")], manifest, "oidc-bucket", INFRA)
    assert ok and "read them gone" in how
    ok, how = T.oidc_evidence([dict(prefix, outcome="failed", verified_state="present")], manifest, "oidc-bucket", INFRA)
    assert not ok and "failed" in how
    assert not T.oidc_evidence([], manifest, "oidc-bucket", INFRA)[0]  # held documents, no cleanup result
    assert T.oidc_evidence([], {}, "oidc-bucket", INFRA)[0]  # the inventory read the prefix empty
    assert not T.oidc_evidence([], {}, "", INFRA)[0]  # no bucket: nothing was read
    kube = FakeCluster()
    j = job(kube)
    assert j.release_oidc(False, "s3://oidc-bucket/x/: not verified") is False
    assert T.OIDC_FINALIZER in kube.objs[("HostedCluster", NS, NAME)]["metadata"]["finalizers"]
    assert j.release_oidc(True, "verified") is True
    assert T.OIDC_FINALIZER not in kube.objs[("HostedCluster", NS, NAME)]["metadata"]["finalizers"]


def test_the_take_over_and_the_gate_name_a_holder_the_same_way():
    from ansible_collections.teardown.gates.plugins.module_utils.k8s.diagnosis import object_text
    blocker = {"kind_label": "Machine.cluster.x-k8s.io", "namespace": "hcp", "name": "m2", "uid": "u2",
               "finalizers": [{"name": "example.com/hold", "owner": "unknown"}], "waiting_for": "the AWSMachine"}
    assert T.blocker_text(blocker) == ("Machine.cluster.x-k8s.io hcp/m2 (uid u2, finalizers: example.com/hold "
                                       "(unknown)) - the AWSMachine")
    assert object_text("Namespace", None, "hcp", "u3", []) == "Namespace hcp (uid u3, no finalizers)"


def _cpo_down(ready=0):
    kube = FakeCluster(cpo_down=True)
    d = obj("Deployment", "control-plane-operator", HCP, spec={"replicas": 1})
    d["status"] = {"readyReplicas": ready}
    kube.add(d)  # HCCO's Deployment is absent
    return kube


def test_cpo_and_hcco_gone_stop_the_take_over_at_the_hcp_with_their_evidence_and_release_nothing():
    kube = _cpo_down()
    j = job(kube, take_over_after=600)
    assert j.run() is False
    assert j.hcp_owners["hcp"]["uid"] == "uid-HostedControlPlane-%s" % NAME
    assert [e["what"] for e in j.hcp_owners["evidence"]] == [
        "CPO Deployment %s/control-plane-operator" % HCP, "HCCO Deployment %s/hosted-cluster-config-operator" % HCP,
        "HostedControlPlane %s/%s" % (HCP, NAME)]
    hcp_blocker = [b for b in j.blockers if b["kind"] == "HostedControlPlane"][0]
    assert "CPO's" in hcp_blocker["guarded_by"] and hcp_blocker["owners_gone"]
    # the NodePool's finalizer came off (its Machines are gone); nothing that guards the HCP did
    assert [(r["object"]["kind"], r["finalizer"]) for r in j.removed] == [("NodePool", T.HO_FINALIZER)]
    assert T.HO_FINALIZER in kube.objs[("HostedControlPlane", HCP, NAME)]["metadata"]["finalizers"]
    assert T.HO_FINALIZER in kube.objs[("HostedCluster", NS, NAME)]["metadata"]["finalizers"]


def test_without_take_over_after_or_with_cpo_ready_the_hcp_is_waited_for_as_before():
    j = job(_cpo_down(), timeout=20)
    assert j.run() is False and j.hcp_owners is None
    j = job(_cpo_down(ready=1), timeout=20, take_over_after=600)
    assert j.run() is False and j.hcp_owners is None
    assert [b["kind"] for b in j.blockers] == ["Cluster"]


def test_cpo_s_finalizer_comes_off_only_on_the_guest_s_verification_then_the_take_over_finishes():
    kube = _cpo_down()
    first = job(kube, take_over_after=600)
    first.run()
    owners = first.hcp_owners
    j = job(kube)
    assert j.release_hcp(owners["hcp"]["uid"], owners["evidence"], False, [], ["vol-1 (failed)"]) is False
    assert j.blockers[0]["guest_left"] == ["vol-1 (failed)"] and j.removed == []
    assert T.HO_FINALIZER in kube.objs[("HostedControlPlane", HCP, NAME)]["metadata"]["finalizers"]
    guest = [{"what": "AWS::EC2::Volume vol-1", "verified_absent_at": "2026-01-01T01:00:00Z"}]
    j = job(kube)
    assert j.release_hcp(owners["hcp"]["uid"], owners["evidence"], True, guest, []) is True
    (entry,) = j.removed
    assert entry["object"]["kind"] == "HostedControlPlane" and entry["uid"] == owners["hcp"]["uid"]
    assert entry["taken_over_from"].startswith("control-plane-operator (CPO)")
    assert [e["what"] for e in entry["evidence"]][-1] == "AWS::EC2::Volume vol-1"
    assert all(e["verified_absent_at"] for e in entry["evidence"])
    assert kube.objs[("HostedControlPlane", HCP, NAME)]["metadata"]["finalizers"] == []
    # the operator's part goes on from there, and a re-release changes nothing
    assert job(kube, take_over_after=600).run() is True
    again = job(kube)
    assert again.release_hcp(owners["hcp"]["uid"], owners["evidence"], True, guest, []) is True and again.removed == []


def test_a_recreated_hcp_is_not_released():
    kube = _cpo_down()
    first = job(kube, take_over_after=600)
    first.run()
    with pytest.raises(T.Unknown, match="recreated"):
        job(kube).release_hcp("another-uid", first.hcp_owners["evidence"], True, [], [])


def test_check_mode_reads_the_owners_and_sends_no_write():
    kube = _cpo_down()
    kube.objs[("HostedControlPlane", HCP, NAME)]["metadata"]["deletionTimestamp"] = DELETED_AT
    j = job(kube, check_mode=True, take_over_after=600)
    j.run()
    assert kube.requests == []
    assert j.hcp_owners and len(j.hcp_owners["evidence"]) == 3


ENDPOINT_STATUS = {"endpointID": "vpce-1", "securityGroupID": "sg-1", "dnsZoneID": "Z1",
                   "dnsNames": ["api.demo.hypershift.local"]}
ENDPOINT_IDS = {"AWS::EC2::VPCEndpoint": ["vpce-1"], "AWS::EC2::SecurityGroup": ["sg-1"],
                "AWS::Route53::RecordSet": ["Z1/api.demo.hypershift.local./CNAME"]}


def _cpo_down_at_the_endpoint_services():
    """CPO and HCCO down, the CAPI Cluster gone and the HCP deleting (CAPI deleted it): HS-6 is where the
    hypershift-operator waits, on an AWSEndpointService that only CPO's finalizer holds."""
    kube = _cpo_down()
    kube.objs.pop(("Cluster", HCP, INFRA))
    kube.objs.pop(("HostedControlPlane", HCP, NAME))  # released earlier (the HCP part of the take-over)
    ep = obj("AWSEndpointService", "kube-apiserver-private", HCP, fins=[T.ENDPOINT_FINALIZER], uid="ep-uid")
    ep["metadata"]["deletionTimestamp"] = DELETED_AT  # HO deleted it (HS-6) an hour ago; CPO is down
    ep["status"] = dict(ENDPOINT_STATUS)
    kube.add(ep)
    return kube


def _absent(ids):
    return [{"type": t, "id": i, "verified_state": "absent", "outcome": "deleted"} for t, v in ids.items() for i in v]


def test_cpo_gone_at_hs_6_stops_there_naming_the_endpoint_service_and_its_aws_ids_and_releases_nothing():
    kube = _cpo_down_at_the_endpoint_services()
    j = job(kube, take_over_after=600)
    assert j.run() is False
    (ep,) = j.hcp_owners["endpoint_services"]
    assert (ep["name"], ep["uid"], ep["resources"]) == ("kube-apiserver-private", "ep-uid", ENDPOINT_IDS)
    blocker = [b for b in j.blockers if b["kind"] == "AWSEndpointService"][0]
    assert blocker["aws_resources"] == ENDPOINT_IDS and "vpce-1" in blocker["guarded_by"]
    assert [b["kind"] for b in j.blockers] == ["AWSEndpointService"] and j.hcp_owners["hcp"] == {}
    assert [e["what"] for e in j.hcp_owners["evidence"]] == [
        "CPO Deployment %s/control-plane-operator" % HCP, "AWSEndpointService %s/kube-apiserver-private" % HCP]
    assert "deleting since %s" % DELETED_AT in j.hcp_owners["evidence"][1]["state"]
    assert T.ENDPOINT_FINALIZER in kube.objs[("AWSEndpointService", HCP, "kube-apiserver-private")]["metadata"][
        "finalizers"]


def test_without_cpo_s_evidence_hs_6_is_waited_for_as_before():
    kube = _cpo_down_at_the_endpoint_services()
    j = job(kube, timeout=20)  # no take_over_after: CPO is never taken as gone
    assert j.run() is False and j.hcp_owners is None
    assert [b["kind"] for b in j.blockers] == ["AWSEndpointService"]
    # deleting for less than take_over_after: CPO may still be coming back
    j = job(kube, timeout=20, take_over_after=7200)
    assert j.run() is False and j.hcp_owners is None
    # CPO ready
    kube.objs[("Deployment", HCP, "control-plane-operator")]["status"]["readyReplicas"] = 1
    j = job(kube, timeout=20, take_over_after=600)
    assert j.run() is False and j.hcp_owners is None


def test_cpo_s_endpoint_finalizer_comes_off_only_when_each_aws_id_is_verified_absent():
    kube = _cpo_down_at_the_endpoint_services()
    first = job(kube, take_over_after=600)
    first.run()
    owners = first.hcp_owners
    key = ("AWSEndpointService", HCP, "kube-apiserver-private")
    # one ID unknown (the cleanup could not read it): never absent, the finalizer stays
    unknown = _absent(ENDPOINT_IDS)
    unknown[0] = dict(unknown[0], verified_state="unknown", outcome="failed: read timed out")
    j = job(kube)
    assert j.release_endpoint_services(owners["endpoint_services"], owners["evidence"], unknown) is False
    assert j.removed == [] and "vpce-1" in j.blockers[0]["aws_left"][0]
    assert T.ENDPOINT_FINALIZER in kube.objs[key]["metadata"]["finalizers"]
    j = job(kube)
    assert j.release_endpoint_services(owners["endpoint_services"], owners["evidence"], []) is False  # not in results
    j = job(kube)
    assert j.release_endpoint_services(owners["endpoint_services"], owners["evidence"], _absent(ENDPOINT_IDS)) is True
    (entry,) = j.removed
    released = (entry["object"]["kind"], entry["uid"], entry["finalizer"])
    assert released == ("AWSEndpointService", "ep-uid", T.ENDPOINT_FINALIZER)
    whats = [e["what"] for e in entry["evidence"]]
    assert whats[0].startswith("CPO Deployment") and whats[1].startswith("AWSEndpointService")
    assert sorted(whats[2:]) == sorted("%s %s" % (t, i) for t, v in ENDPOINT_IDS.items() for i in v)
    assert all(e["verified_absent_at"] for e in entry["evidence"])
    # deleting, its last finalizer off: gone
    assert kube.get(T.HS, "AWSEndpointService", "kube-apiserver-private", HCP)["state"] == "absent"
    # a re-run changes nothing
    again = job(kube)
    assert again.release_endpoint_services(owners["endpoint_services"], owners["evidence"], []) is True
    assert again.removed == []


def test_a_recreated_endpoint_service_is_not_released():
    kube = _cpo_down_at_the_endpoint_services()
    first = job(kube, take_over_after=600)
    first.run()
    kube.objs[("AWSEndpointService", HCP, "kube-apiserver-private")]["metadata"]["uid"] = "another-uid"
    with pytest.raises(T.Unknown, match="recreated"):
        job(kube).release_endpoint_services(first.hcp_owners["endpoint_services"], first.hcp_owners["evidence"],
                                            _absent(ENDPOINT_IDS))


def test_check_mode_at_hs_6_plans_the_endpoint_service_and_sends_no_write():
    kube = _cpo_down_at_the_endpoint_services()
    j = job(kube, check_mode=True, take_over_after=600)
    j.run()
    assert kube.requests == []
    assert [e["name"] for e in j.hcp_owners["endpoint_services"]] == ["kube-apiserver-private"]
    assert any("vpce-1" in p and T.ENDPOINT_FINALIZER in p for p in j.planned), j.planned


# -- HO's own AWSEndpointService finalizer (HS-31) ---------------------------------------------------------------
SERVICE_ID = "vpce-svc-0a1b2c3d4e5f60718"
SERVICE_IDS = {"AWS::EC2::VPCEndpointService": [SERVICE_ID]}


def _ho_down_at_the_endpoint_services(cpo_finalizer=False):
    """The hypershift-operator down (the take-over runs because of it), CPO up: the CAPI Cluster and the HCP gone,
    and at HS-6 an AWSEndpointService that HO's own endpoint finalizer still holds, an hour after its deletion."""
    kube = FakeCluster()
    kube.objs.pop(("Cluster", HCP, INFRA))
    kube.objs.pop(("HostedControlPlane", HCP, NAME))
    fins = [T.HO_ENDPOINT_FINALIZER] + ([T.ENDPOINT_FINALIZER] if cpo_finalizer else [])
    ep = obj("AWSEndpointService", "private-router", HCP, fins=fins, uid="ep-uid")
    ep["metadata"]["deletionTimestamp"] = DELETED_AT
    ep["status"] = dict(ENDPOINT_STATUS, endpointServiceName="com.amazonaws.vpce.us-east-1." + SERVICE_ID)
    kube.add(ep)
    return kube


def test_ho_stalled_at_hs_6_stops_there_naming_its_configuration_and_asks_the_cleanup_to_check_the_tag():
    kube = _ho_down_at_the_endpoint_services()
    j = job(kube, take_over_after=600)
    assert j.run() is False
    owners = j.hcp_owners
    (ep,) = owners["ho_endpoint_services"]
    assert (ep["name"], ep["uid"], ep["resources"]) == ("private-router", "ep-uid", SERVICE_IDS)
    assert owners["endpoint_services"] == [] and owners["finalizer"] == T.HO_ENDPOINT_FINALIZER
    assert owners["require_owned"] == {"infra_id": INFRA, "resources": SERVICE_IDS}
    assert [e["what"] for e in owners["ho_evidence"]] == ["AWSEndpointService %s/private-router" % HCP]
    (blocker,) = j.blockers
    assert blocker["finalizers"][0]["name"] == T.HO_ENDPOINT_FINALIZER and SERVICE_ID in blocker["guarded_by"]
    assert T.HO_ENDPOINT_FINALIZER in kube.objs[("AWSEndpointService", HCP, "private-router")]["metadata"]["finalizers"]
    assert not [r for r in kube.requests if r[0] == "unfinalize" and r[1] == "AWSEndpointService"]


def test_without_ho_s_evidence_hs_6_is_waited_for_as_before():
    kube = _ho_down_at_the_endpoint_services()
    assert job(kube, timeout=20).run() is False  # no take_over_after
    j = job(kube, timeout=20, take_over_after=7200)  # deleting for less than that: HO may be at it
    assert j.run() is False and j.hcp_owners is None and [b["kind"] for b in j.blockers] == ["AWSEndpointService"]


def test_cpo_and_ho_both_held_and_gone_are_taken_over_together():
    kube = _ho_down_at_the_endpoint_services(cpo_finalizer=True)
    kube.add(dict(obj("Deployment", "control-plane-operator", HCP, spec={"replicas": 1}), status={"readyReplicas": 0}))
    j = job(kube, take_over_after=600)
    assert j.run() is False
    assert [e["name"] for e in j.hcp_owners["endpoint_services"]] == ["private-router"]
    assert [e["name"] for e in j.hcp_owners["ho_endpoint_services"]] == ["private-router"]
    assert j.hcp_owners["finalizer"] == T.ENDPOINT_FINALIZER  # CPO's evidence leads, HO's is with its own part
    both = sorted([T.ENDPOINT_FINALIZER, T.HO_ENDPOINT_FINALIZER])
    assert sorted(b["finalizers"][0]["name"] for b in j.blockers) == both


def test_ho_s_finalizer_comes_off_only_after_its_configuration_is_deleted_and_verified_absent_by_id():
    kube = _ho_down_at_the_endpoint_services()
    first = job(kube, take_over_after=600)
    first.run()
    owners = first.hcp_owners
    key = ("AWSEndpointService", HCP, "private-router")

    def release(results):
        j = job(kube)
        ok = j.release_endpoint_services(owners["ho_endpoint_services"], owners["ho_evidence"], results,
                                         finalizer=T.HO_ENDPOINT_FINALIZER, taken_over_from="HO")
        return ok, j
    # refused by the cleanup (tagged for the neighbour infra ID): the finalizer stays, the blocker says why
    refused = [{"type": "AWS::EC2::VPCEndpointService", "id": SERVICE_ID, "outcome": "failed",
                "error": "refused: not shown to be infra ID %s's: tagged kubernetes.io/cluster/%s-2=owned" % (
                    INFRA, INFRA)}]
    ok, j = release(refused)
    assert ok is False and j.removed == [] and "%s-2=owned" % INFRA in j.blockers[0]["aws_left"][0]
    assert SERVICE_ID in j.blockers[0]["aws_left"][0]
    # the stop message and inspect_next quote guarded_by: it names the ID and why
    assert "%s-2=owned" % INFRA in j.blockers[0]["guarded_by"] and SERVICE_ID in j.blockers[0]["guarded_by"]
    assert j.blockers[0]["finalizers"][0]["name"] == T.HO_ENDPOINT_FINALIZER
    # unknown (not read) or not in the results: never absent
    ok, j = release([dict(refused[0], outcome="failed: read timed out", error=None, verified_state="unknown")])
    assert ok is False and j.removed == []
    assert release([])[0] is False
    assert T.HO_ENDPOINT_FINALIZER in kube.objs[key]["metadata"]["finalizers"]
    # deleted and read absent by ID: only then the finalizer comes off, with that evidence
    ok, j = release(_absent(SERVICE_IDS))
    assert ok is True
    (entry,) = j.removed
    assert (entry["object"]["kind"], entry["uid"], entry["finalizer"]) == (
        "AWSEndpointService", "ep-uid", T.HO_ENDPOINT_FINALIZER)
    whats = [e["what"] for e in entry["evidence"]]
    assert whats == ["AWSEndpointService %s/private-router" % HCP, "AWS::EC2::VPCEndpointService %s" % SERVICE_ID]
    assert all(e["verified_absent_at"] for e in entry["evidence"])
    # the release is the last request: nothing was sent before the verification came back
    assert kube.requests[-1] == ("unfinalize", "AWSEndpointService", "private-router", (T.HO_ENDPOINT_FINALIZER,))
    assert kube.get(T.HS, "AWSEndpointService", "private-router", HCP)["state"] == "absent"
    # a re-run after an interruption: nothing left to release, nothing sent
    before = len(kube.requests)
    ok, j = release(_absent(SERVICE_IDS))
    assert ok is True and j.removed == [] and len(kube.requests) == before
    # and the operator's part goes on past HS-6
    assert job(kube, take_over_after=600).run() is True


def test_check_mode_at_hs_6_plans_ho_s_part_and_sends_no_write():
    kube = _ho_down_at_the_endpoint_services()
    j = job(kube, check_mode=True, take_over_after=600)
    j.run()
    assert kube.requests == []
    assert any(SERVICE_ID in p and T.HO_ENDPOINT_FINALIZER in p and "tagged kubernetes.io/cluster/%s=owned" % INFRA
               in p for p in j.planned), j.planned
    assert j.hcp_owners["ho_endpoint_services"]
    # the release in check mode plans it and sends nothing either
    owners = j.hcp_owners
    j = job(kube, check_mode=True)
    assert j.release_endpoint_services(owners["ho_endpoint_services"], owners["ho_evidence"], _absent(SERVICE_IDS),
                                       finalizer=T.HO_ENDPOINT_FINALIZER) is True
    assert kube.requests == [] and j.removed == []
    assert any(p.startswith("would remove %s" % T.HO_ENDPOINT_FINALIZER) for p in j.planned), j.planned
