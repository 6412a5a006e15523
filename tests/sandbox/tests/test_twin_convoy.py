"""The convoy twin follows seed 004 step by step (run against the live sandbox with twin-convoy)."""
import json
import os
import time
import uuid

import pytest
from kubernetes.client import ApiException

AV = "core.convoy.kumodo.io/v1alpha1"
RELEASE_FINALIZER = "release.core.convoy.kumodo.io/prune-workloads"
CLUSTER_FINALIZER = "cluster.core.convoy.kumodo.io/prune-releases"
KNOB = "sandbox.teardown.gates/knob-"


def wait_for(fn, timeout=30, what="condition"):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.2)
    pytest.fail(f"{what} not reached in {timeout} s (last: {last!r})")


@pytest.fixture()
def seed(sandbox_cli):
    def run(*knobs, count=1):
        name = "tc" + uuid.uuid4().hex[:5]
        args = ["seed", "releases", "--name", name, "--namespace", name, "--count", str(count)]
        for k in knobs:
            args += ["--knob", k]
        p = sandbox_cli(*args)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout.strip().splitlines()[-1])
    return run


class K:
    def __init__(self, dyn):
        self.dyn = dyn

    def api(self, av, kind):
        return self.dyn.resources.get(api_version=av, kind=kind)

    def get(self, av, kind, name, ns):
        try:
            return self.api(av, kind).get(name=name, namespace=ns).to_dict()
        except ApiException as e:
            if e.status == 404:
                return None
            raise

    def gone(self, av, kind, name, ns):
        return self.get(av, kind, name, ns) is None

    def names(self, av, kind, ns, selector=None):
        return sorted(i.metadata.name for i in self.api(av, kind).get(namespace=ns, label_selector=selector).items)


@pytest.fixture()
def k(dyn):
    return K(dyn)


def workloads(s, release):
    return [o for o in s["objects"] if o.get("release") == release and o["kind"] in ("ConfigMap", "Service", "Deployment")
            and not o.get("renderStore")]


def audit():
    """Mutating requests from the API server's audit log, in order."""
    out = []
    with open(os.environ["SANDBOX_AUDIT_LOG"]) as f:
        for line in f:
            e = json.loads(line)
            if e.get("stage") != "ResponseComplete" or e["verb"] in ("get", "list", "watch"):
                continue
            out.append(e)
    return out


def test_first_reconcile_adds_finalizer_and_applied(seed, k):
    s = seed()
    r = k.get(AV, "Release", s["releases"][0], s["namespace"])
    assert RELEASE_FINALIZER in r["metadata"]["finalizers"]
    assert {"type": "Applied", "status": "True", "reason": "Applied"}.items() <= next(
        c for c in r["status"]["conditions"] if c["type"] == "Applied").items()
    c = k.get(AV, "Cluster", s["clusters"][0]["name"], s["namespace"])
    assert CLUSTER_FINALIZER in c["metadata"]["finalizers"] and c["status"]["reachable"] is True


def test_deletion_runs_hooks_objects_then_data_in_order(seed, k):
    s = seed()
    rel, ns = s["releases"][0], s["namespace"]
    k.api(AV, "Release").delete(name=rel, namespace=ns)
    wait_for(lambda: k.gone(AV, "Release", rel, ns), 30, "Release gone")
    for o in workloads(s, rel):
        assert k.gone(o["apiVersion"], o["kind"], o["name"], o["namespace"]), o
    assert k.gone(AV, "ReleaseInventory", rel, ns)
    assert k.names("v1", "ConfigMap", ns, f"convoy.kumodo.io/render-of={rel}") == []
    # the order, from the API server's own audit log
    steps = []
    for e in audit():
        ref, verb = e.get("objectRef") or {}, e["verb"]
        if ref.get("namespace") not in (ns, s["target_namespace"]):
            continue
        res, name, sub = ref.get("resource"), ref.get("name", ""), ref.get("subresource")
        if res == "jobs" and sub == "status":
            steps.append("pre-hook" if "-pre-" in name else "post-hook")
        elif res == "deployments" and verb == "delete":
            steps.append("objects")
        elif res == "releaseinventories" and verb == "delete":
            steps.append("inventory")
        elif res == "configmaps" and verb == "delete" and name.endswith("-render-1"):
            steps.append("renders")
        elif res == "releases" and verb == "patch" and name == rel and not sub:
            steps.append("finalizer")
    # the first finalizer patch adds it (first reconcile); the last removes it
    assert steps == ["finalizer", "pre-hook", "objects", "post-hook", "inventory", "renders", "finalizer"], steps


def test_failed_fail_hook_blocks_until_fixed(seed, k):
    s = seed("fail_hook=0", "hooks=false")
    rel, ns = s["releases"][0], s["namespace"]
    k.api(AV, "Release").delete(name=rel, namespace=ns)

    def blocked():
        r = k.get(AV, "Release", rel, ns)
        c = next((c for c in (r.get("status") or {}).get("conditions") or [] if c["type"] == "Deleting"), {})
        return r if c.get("reason") == "PreDeleteHookFailed" else None
    r = wait_for(blocked, 20, "PreDeleteHookFailed")
    assert RELEASE_FINALIZER in r["metadata"]["finalizers"]
    time.sleep(2)
    for o in workloads(s, rel):
        assert not k.gone(o["apiVersion"], o["kind"], o["name"], o["namespace"]), "objects must stay while blocked"
    assert not k.gone(AV, "ReleaseInventory", rel, ns)
    jobs = k.api("batch/v1", "Job").get(namespace=s["target_namespace"],
                                       label_selector=f"convoy.kumodo.io/release-uid={r['metadata']['uid']}").items
    assert len(jobs) == 1 and jobs[0].metadata.labels["convoy.kumodo.io/hook"] == "pre-backup"
    assert any(c.type == "Failed" and c.status == "True" for c in jobs[0].status.conditions)
    # the owner's fix: the hook now succeeds (knob cleared); convoy runs it again and finishes
    k.api(AV, "Release").patch(name=rel, namespace=ns, content_type="application/json-patch+json",
                               body=[{"op": "remove", "path": "/metadata/annotations/" +
                                      (KNOB + "hook-pre-backup").replace("/", "~1")}])
    wait_for(lambda: k.gone(AV, "Release", rel, ns), 30, "Release gone after the fix")
    for o in workloads(s, rel):
        assert k.gone(o["apiVersion"], o["kind"], o["name"], o["namespace"]), o


def test_failed_continue_hook_does_not_block(seed, k):
    s = seed("continue_hook=0")
    rel, ns = s["releases"][0], s["namespace"]
    k.api(AV, "Release").delete(name=rel, namespace=ns)
    wait_for(lambda: k.gone(AV, "Release", rel, ns), 30, "Release gone")
    assert all(k.gone(o["apiVersion"], o["kind"], o["name"], o["namespace"]) for o in workloads(s, rel))


def test_keep_workloads_keeps_objects_runs_hooks_drops_inventory(seed, k, core):
    s = seed("keep_workloads=0")
    rel, ns = s["releases"][0], s["namespace"]
    k.api(AV, "Release").delete(name=rel, namespace=ns)
    wait_for(lambda: k.gone(AV, "Release", rel, ns), 30, "Release gone")
    for o in workloads(s, rel):
        assert not k.gone(o["apiVersion"], o["kind"], o["name"], o["namespace"]), o
    assert k.gone(AV, "ReleaseInventory", rel, ns)
    reasons = [e.reason for e in core.list_namespaced_event(ns).items if e.involved_object.name == rel]
    assert reasons.count("HookSucceeded") == 2, reasons


def test_unreachable_cluster_skips_hooks_and_objects(seed, k, core):
    s = seed("unreachable=0")
    rel, ns = s["releases"][0], s["namespace"]
    r = k.get(AV, "Release", rel, ns)
    assert next(c for c in r["status"]["conditions"] if c["type"] == "Applied")["reason"] == "ClusterNotReady"
    k.api(AV, "Release").delete(name=rel, namespace=ns)
    wait_for(lambda: k.gone(AV, "Release", rel, ns), 30, "Release gone")
    for o in workloads(s, rel):
        assert not k.gone(o["apiVersion"], o["kind"], o["name"], o["namespace"]), "objects stay, untracked"
    assert k.gone(AV, "ReleaseInventory", rel, ns)
    reasons = [e.reason for e in core.list_namespaced_event(ns).items if e.involved_object.name == rel]
    assert "ClusterNotReady" in reasons and "HookStarted" not in reasons, reasons


def test_failing_step_keeps_finalizer_and_later_steps_wait(seed, k):
    s = seed("hooks=false")
    rel, ns = s["releases"][0], s["namespace"]
    k.api(AV, "Release").patch(name=rel, namespace=ns, content_type="application/merge-patch+json",
                               body={"metadata": {"annotations": {KNOB + "fail-step": "inventory"}}})
    k.api(AV, "Release").delete(name=rel, namespace=ns)

    def failing():
        r = k.get(AV, "Release", rel, ns)
        c = next((c for c in (r.get("status") or {}).get("conditions") or [] if c["type"] == "Deleting"), {})
        return r if c.get("reason") == "DeleteStepFailed" else None
    r = wait_for(failing, 20, "DeleteStepFailed")
    assert RELEASE_FINALIZER in r["metadata"]["finalizers"]
    assert not k.gone(AV, "ReleaseInventory", rel, ns)
    assert k.names("v1", "ConfigMap", ns, f"convoy.kumodo.io/render-of={rel}") == [f"{rel}-render-1"], \
        "renders go only after the inventory"
    k.api(AV, "Release").patch(name=rel, namespace=ns, content_type="application/merge-patch+json",
                               body={"metadata": {"annotations": {KNOB + "fail-step": None}}})
    wait_for(lambda: k.gone(AV, "Release", rel, ns), 30, "Release gone after the step recovers")
    assert k.names("v1", "ConfigMap", ns, f"convoy.kumodo.io/render-of={rel}") == []


def test_cluster_prune_releases_waits_for_each_release_flow(seed, k):
    s = seed("prune_releases=true", "fail_hook=1", "hooks=false", count=2)
    ns, cname = s["namespace"], s["clusters"][0]["name"]
    k.api(AV, "Cluster").delete(name=cname, namespace=ns)
    wait_for(lambda: k.gone(AV, "Release", s["releases"][0], ns), 30, "first Release gone")
    # the second is held by its failing Fail hook, and the Cluster waits for it
    time.sleep(2)
    held = k.get(AV, "Release", s["releases"][1], ns)
    assert held and held["metadata"].get("deletionTimestamp")
    c = k.get(AV, "Cluster", cname, ns)
    assert c and CLUSTER_FINALIZER in c["metadata"]["finalizers"]
    assert next(x for x in c["status"]["conditions"] if x["type"] == "Deleting")["reason"] == "WaitingForReleases"
    k.api(AV, "Release").patch(name=s["releases"][1], namespace=ns, content_type="application/merge-patch+json",
                               body={"metadata": {"annotations": {KNOB + "hook-pre-backup": "succeed"}}})
    wait_for(lambda: k.gone(AV, "Cluster", cname, ns), 30, "Cluster gone after its Releases")
    assert k.gone(AV, "Release", s["releases"][1], ns)


def test_cluster_without_prune_goes_at_once_releases_not_ready(seed, k):
    s = seed(count=2)
    ns, cname = s["namespace"], s["clusters"][0]["name"]
    k.api(AV, "Cluster").delete(name=cname, namespace=ns)
    wait_for(lambda: k.gone(AV, "Cluster", cname, ns), 10, "Cluster gone at once")

    def not_ready():
        return all(next((c for c in (k.get(AV, "Release", r, ns).get("status") or {}).get("conditions", [])
                         if c["type"] == "Applied"), {}).get("reason") == "ClusterNotReady" for r in s["releases"])
    wait_for(not_ready, 10, "Applied=False/ClusterNotReady")
    assert all(k.get(AV, "Release", r, ns)["metadata"].get("deletionTimestamp") is None for r in s["releases"])
