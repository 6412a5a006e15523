"""releases: a convoy Cluster, K Releases with workloads on the "target", their inventories and hooks.

`sandbox seed releases --name N [--namespace NS] --knob count=K [--knob ...]` (`--count K` is the
knob `count`). The "target cluster" is the sandbox itself: every Release deploys into the
namespace `<N>-target`. Knobs (indexes are 0-based, comma-separated):

  count=K               number of Releases (default 3), named <N>-00 .. <N>-(K-1)
  fail_hook=I,...       these Releases get a preDelete hook `pre-backup` with onFailure: Fail
                        whose Job fails (twin knob hook-pre-backup=fail on the Release)
  continue_hook=I,...   these get a failing preDelete hook `pre-warn` with onFailure: Continue
  keep_workloads=I,...  spec.deletionPolicy.keepWorkloads: true
  unreachable=I,...     these target a second Cluster `<N>-far` whose status.reachable is false
  orphaned=I,...        one more ConfigMap `<release>-dropped` on the target, labelled as the
                        Release's but not in its inventory (a sync with prune.orphaned: false dropped it)
  hooks=true|false      every Release gets a preDelete `pre-snapshot` (Continue) and a postDelete
                        `post-notify` hook that succeed (default true)
  hook_seconds=S        how long each hook Job "runs" (twin knob, default 1)
  prune_releases=true   the Cluster's spec.deletionPolicy.pruneReleases
  reachable=false       the main Cluster is unreachable too
"""
import time
import uuid

from ..procs import SandboxError
from .common import ensure_namespace, kube

AV = "core.convoy.kumodo.io/v1alpha1"
KNOB = "sandbox.teardown.gates/knob-"
RELEASE_FINALIZER = "release.core.convoy.kumodo.io/prune-workloads"
CLUSTER_FINALIZER = "cluster.core.convoy.kumodo.io/prune-releases"


def _idx(knobs, key):
    raw = str(knobs.get(key, "") or "").strip()
    return {int(x) for x in raw.split(",") if x.strip() != ""}


def _true(v):
    return str(v).strip().lower() in ("1", "true", "yes", "on")


def _hook(name, on_failure):
    return {"name": name, "type": "Job", "timeout": "30s", "onFailure": on_failure, "cleanup": "OnSuccess",
            "jobTemplate": {"metadata": {"labels": {"test-label": "true"}},
                            "spec": {"backoffLimit": 0, "template": {"spec": {
                                "restartPolicy": "Never",
                                "containers": [{"name": "job-worker", "image": "busybox:1.38.0",
                                                "command": ["sh", "-c", "sleep 10"]}]}}}}}


def seed(name=None, namespace=None, knobs=None):
    knobs = dict(knobs or {})
    name = name or "rel-" + uuid.uuid4().hex[:6]
    namespace = namespace or "convoy"
    count = int(knobs.get("count", 3))
    target = f"{name}-target"
    fail_hook, cont_hook = _idx(knobs, "fail_hook"), _idx(knobs, "continue_hook")
    keep, unreachable, orphaned = _idx(knobs, "keep_workloads"), _idx(knobs, "unreachable"), _idx(knobs, "orphaned")
    hooks = _true(knobs.get("hooks", "true"))
    k = kube()
    out = {"scenario": "releases", "name": name, "namespace": namespace, "target_namespace": target,
           "objects": [], "releases": [], "clusters": []}

    def add(obj, **extra):
        md = obj.metadata
        out["objects"].append(dict({"apiVersion": obj.apiVersion, "kind": obj.kind, "name": md.name,
                                    "namespace": md.namespace, "uid": md.uid}, **extra))
        return obj

    out["objects"].append({"apiVersion": "v1", "kind": "Namespace", "name": namespace,
                           "uid": ensure_namespace(namespace)})
    out["objects"].append({"apiVersion": "v1", "kind": "Namespace", "name": target, "uid": ensure_namespace(target)})

    clusters = k.resources.get(api_version=AV, kind="Cluster")
    cluster_names = {"main": f"{name}-cluster"}
    if unreachable:
        cluster_names["far"] = f"{name}-far"
    for role, cname in cluster_names.items():
        reachable = role == "main" and _true(knobs.get("reachable", "true"))
        body = {"apiVersion": AV, "kind": "Cluster",
                "metadata": {"name": cname, "namespace": namespace,
                             "annotations": {KNOB + "reachable": "true" if reachable else "false"}},
                "spec": {"deletionPolicy": {"pruneReleases": _true(knobs.get("prune_releases", "false"))}}}
        add(clusters.create(namespace=namespace, body=body))
        out["clusters"].append({"name": cname, "reachable": reachable})

    releases = k.resources.get(api_version=AV, kind="Release")
    inventories = k.resources.get(api_version=AV, kind="ReleaseInventory")
    cms = k.resources.get(api_version="v1", kind="ConfigMap")
    svcs = k.resources.get(api_version="v1", kind="Service")
    deps = k.resources.get(api_version="apps/v1", kind="Deployment")
    for i in range(count):
        rname = f"{name}-{i:02d}"
        labels = {"convoy.kumodo.io/release": rname, "app.kubernetes.io/part-of": name}
        pre, post, ann = [], [], {}
        if hooks:
            pre.append(_hook("pre-snapshot", "Continue"))
            post.append(_hook("post-notify", "Continue"))
        if i in fail_hook:
            pre.append(_hook("pre-backup", "Fail"))
            ann[KNOB + "hook-pre-backup"] = "fail"
        if i in cont_hook:
            pre.append(_hook("pre-warn", "Continue"))
            ann[KNOB + "hook-pre-warn"] = "fail"
        if "hook_seconds" in knobs:
            ann[KNOB + "hook-seconds"] = str(knobs["hook_seconds"])
        cref = cluster_names["far"] if i in unreachable else cluster_names["main"]
        rel = add(releases.create(namespace=namespace, body={
            "apiVersion": AV, "kind": "Release",
            "metadata": {"name": rname, "namespace": namespace, "annotations": ann,
                         "labels": {"app.kubernetes.io/part-of": name, "teardown.gates/seed-index": str(i)}},
            "spec": {"clusterRef": {"name": cref}, "targetNamespace": target,
                     "deletionPolicy": {"keepWorkloads": i in keep},
                     "lifecycle": {"preDelete": pre, "postDelete": post},
                     "source": {"type": "gitRepository", "gitRepository": {"name": "podinfo", "namespace": namespace}},
                     "content": {"type": "helm", "helm": {"path": "charts/podinfo", "releaseName": rname}}}}),
            cluster=cref, keepWorkloads=i in keep, failHook=i in fail_hook)
        out["releases"].append(rname)
        work = [
            add(cms.create(namespace=target, body={"metadata": {"name": f"{rname}-config", "labels": labels},
                                                   "data": {"release": rname}}), release=rname),
            add(svcs.create(namespace=target, body={"metadata": {"name": rname, "labels": labels},
                                                    "spec": {"selector": {"app": rname},
                                                             "ports": [{"port": 80, "targetPort": 8080}]}}),
                release=rname),
            add(deps.create(namespace=target, body={"metadata": {"name": rname, "labels": labels}, "spec": {
                "replicas": 1, "selector": {"matchLabels": {"app": rname}},
                "template": {"metadata": {"labels": {"app": rname}}, "spec": {"containers": [
                    {"name": "podinfo", "image": "ghcr.io/stefanprodan/podinfo:6.7.0"}]}}}}), release=rname),
        ]
        if i in orphaned:
            add(cms.create(namespace=target, body={"metadata": {"name": f"{rname}-dropped", "labels": labels},
                                                   "data": {"release": rname}}), release=rname, inInventory=False)
        add(inventories.create(namespace=namespace, body={
            "apiVersion": AV, "kind": "ReleaseInventory",
            "metadata": {"name": rname, "namespace": namespace, "labels": {"convoy.kumodo.io/release": rname}},
            "spec": {"entries": [{"apiVersion": w.apiVersion, "kind": w.kind, "namespace": w.metadata.namespace,
                                  "name": w.metadata.name} for w in work]}}), release=rname)
        add(cms.create(namespace=namespace, body={
            "metadata": {"name": f"{rname}-render-1", "labels": {"convoy.kumodo.io/render-of": rname}},
            "data": {"manifest": "rendered"}}), release=rname)
        out["objects"][-1]["renderStore"] = True
        _ = rel

    # Hand back a world the twin has taken in: finalizers on, Clusters' reachability reported.
    deadline = time.monotonic() + 60
    pending = set(out["releases"]) | set(cluster_names.values())
    while pending and time.monotonic() < deadline:
        for n in list(pending):
            api = clusters if n in cluster_names.values() else releases
            o = api.get(name=n, namespace=namespace)
            fin = CLUSTER_FINALIZER if api is clusters else RELEASE_FINALIZER
            ready = fin in (o.metadata.finalizers or []) and (
                api is releases or (o.status and o.status.reachable is not None))
            if ready:
                pending.discard(n)
        time.sleep(0.2)
    if pending:
        raise SandboxError(f"the convoy twin did not take in {sorted(pending)} within 60 s: is twin-convoy "
                           "running (sandbox status)?")
    return out
