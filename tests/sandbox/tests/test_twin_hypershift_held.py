"""The HyperShift twins with a controller held: CAPI down, CPO down, HCCO down, a pod stuck terminating, a
guest cleanup that times out (tests/sandbox/spec/hypershift.md). Same method as test_twin_hypershift.py, whose
helpers these use; apart so that a parallel run gives these minutes a worker of their own."""
import time

import pytest

from test_twin_hypershift import (  # noqa: F401 (recorder is a fixture)
    HS, CAPI, HO_FIN, NS, _get, _list, _conds, destroy, finish, wait_for, set_knob, elb_exists, recorder, seed_all)


@pytest.fixture(scope="module")
def seeded(api_client):
    return seed_all(["capi_down", "timeout", "pod_stuck", "cpo_down", "hcco_down"])


def test_capi_down_holds_cluster_and_nodepools_until_it_is_back(dyn, seeded):
    info = seeded["capi_down"]
    hcp_ns, infra = info["hcp_namespace"], info["infra_id"]
    destroy(dyn, info, until_only_cli=False)
    wait_for(lambda: (_get(dyn, CAPI, "Cluster", infra, hcp_ns) or {}).get("metadata", {}).get("deletionTimestamp"),
             30, "CAPI Cluster deletion requested")
    time.sleep(3)  # CAPI is down: nothing may move
    cluster = _get(dyn, CAPI, "Cluster", infra, hcp_ns)
    assert cluster is not None and "cluster.cluster.x-k8s.io" in cluster["metadata"]["finalizers"]
    nps = [n for n in _list(dyn, HS, "NodePool", NS) if n["spec"]["clusterName"] == info["name"]]
    assert nps and all(n["metadata"].get("deletionTimestamp") for n in nps)
    hcp = _get(dyn, HS, "HostedControlPlane", info["name"], hcp_ns)
    assert hcp is not None and not hcp["metadata"].get("deletionTimestamp")
    hc = _get(dyn, HS, "HostedCluster", info["name"], NS)
    assert _conds(hc)["HostedClusterDestroyed"]["reason"] == "WaitingForCAPIClusterDeletion"
    set_knob(info, "capi", None)
    finish(dyn, info)
    assert _get(dyn, "v1", "Namespace", hcp_ns) is None


def test_cleanup_timeout_is_reported_then_finalization_continues(dyn, seeded, recorder):
    info = seeded["timeout"]
    rec = recorder(info)
    destroy(dyn, info)
    rec.halt()
    assert ("CloudResourcesDestroyed", "False", "RemainingCloudResources") in rec.hcp_conds
    assert ("CloudResourcesDestroyed", "False", "CloudResourcesDeletionTimedOut") in rec.hcp_conds
    assert any(m.startswith("Remaining resources: ") and "load-balancers" in m for m in rec.hcp_messages)
    # what HCCO could not remove is still there, for the CLI's pass
    assert all(elb_exists(lb) for lb in info["guest_cloud"]["AWS::ElasticLoadBalancing::LoadBalancer"])


def test_pod_stuck_terminating_holds_the_namespace(dyn, core, seeded):
    info = seeded["pod_stuck"]
    hcp_ns = info["hcp_namespace"]
    destroy(dyn, info, until_only_cli=False)
    wait_for(lambda: (_get(dyn, "v1", "Namespace", hcp_ns) or {}).get("metadata", {}).get("deletionTimestamp"),
             240, "HCP namespace deletion requested")  # after the real CAPA's minute-long look

    def only_apiserver_left():
        pods = core.list_namespaced_pod(hcp_ns).items
        return pods and all(p.metadata.labels.get("app") == "kube-apiserver" for p in pods)
    wait_for(only_apiserver_left, 60, "only the kube-apiserver pod left")
    time.sleep(3)
    pods = core.list_namespaced_pod(hcp_ns).items
    assert pods and all(p.metadata.deletion_timestamp for p in pods)
    hc = _get(dyn, HS, "HostedCluster", info["name"], NS)
    assert HO_FIN in hc["metadata"]["finalizers"]
    assert _conds(hc)["HostedClusterDestroyed"]["reason"] == "WaitingForNamespaceDeletion"
    set_knob(info, "pod_stuck", None)
    finish(dyn, info)
    assert _get(dyn, "v1", "Namespace", hcp_ns) is None


def test_cpo_down_holds_the_hcp_and_hcco_down_ends_in_a_cleanup_timeout(dyn, seeded, recorder):
    cpo, hcco = seeded["cpo_down"], seeded["hcco_down"]
    rec = recorder(hcco)
    destroy(dyn, cpo, until_only_cli=False)
    destroy(dyn, hcco, until_only_cli=False)
    # CPO down: workers go, CAPI asks for the HCP and waits on it; the HCP keeps its finalizer
    ns, infra = cpo["hcp_namespace"], cpo["infra_id"]
    wait_for(lambda: _conds(_get(dyn, CAPI, "Cluster", infra, ns)).get("Deleting", {}).get("reason")
             == "WaitingForControlPlaneDeletion", 240, "CAPI Cluster waiting for its control plane")
    assert not _list(dyn, CAPI, "Machine", ns)
    hcp = _get(dyn, HS, "HostedControlPlane", cpo["name"], ns)
    assert hcp["metadata"].get("deletionTimestamp") and HO_FIN in hcp["metadata"]["finalizers"]
    # HCCO down: CPO scales CVO down, hears nothing, gives up after cleanup_timeout and finalizes
    finish(dyn, hcco)
    rec.halt()
    assert ("CVOScaledDown", "True", "AsExpected") in rec.hcp_conds
    assert ("CloudResourcesDestroyed", "False", "CloudResourcesDeletionTimedOut") in rec.hcp_conds
    assert all(elb_exists(lb) for lb in hcco["guest_cloud"]["AWS::ElasticLoadBalancing::LoadBalancer"])
    # CPO back: the chain finishes
    hcp = _get(dyn, HS, "HostedControlPlane", cpo["name"], ns)
    assert hcp is not None and HO_FIN in hcp["metadata"]["finalizers"]
    set_knob(cpo, "cpo", None)
    finish(dyn, cpo)
    assert _get(dyn, "v1", "Namespace", ns) is None
