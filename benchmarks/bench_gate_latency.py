#!/usr/bin/env python
"""Gate detection latency: from an object's removal to the waiting module's return.

Ours: teardown.gates.wait_gate (until: absent, by watch). Peer: kubernetes.core.k8s with
state: absent, wait: true (polls every wait_sleep, 5 s by default). Both run the same way, as a
module process fed its arguments in a JSON file, against the same terminating ConfigMap; after a
random 1.5-3.5 s (so the peer's poll phase is not favoured or disfavoured) the finalizer that
holds the object is removed, which deletes it; the latency is from the answer to that PATCH to the
module process's exit. Medians over BENCH_TRIALS trials (default 7) each.

Runs with the sandbox's environment (KUBECONFIG); progress on stderr; the last stdout line is the
JSON list of cases (see benchmarks/run.sh).
"""
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

from kubernetes import config, dynamic

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PY = os.path.join(REPO, ".venv", "bin", "python")
COLL = os.path.join(REPO, ".venv", "collections")
OURS = os.path.join(COLL, "ansible_collections", "teardown", "gates", "plugins", "modules", "wait_gate.py")
PEER_NAME = "kubernetes.core.k8s state=absent wait=true"
TRIALS = int(os.environ.get("BENCH_TRIALS", sys.argv[1] if len(sys.argv) > 1 else 7))
FIN = "bench.teardown.gates/hold"


def log(msg):
    print("[bench_gate_latency] %s" % msg, file=sys.stderr, flush=True)


def peer_module_path():
    import ansible_collections.kubernetes.core.plugins.modules.k8s as peer  # resolved from the venv
    return peer.__file__


def module_proc(path, args):
    fd, argfile = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({"ANSIBLE_MODULE_ARGS": args}, f)
    env = dict(os.environ, PYTHONPATH=COLL + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([VENV_PY, path, argfile], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return proc, argfile


def trial(cm, ns, which, peer_path):
    name = "lat-%s-%s" % (which, uuid.uuid4().hex[:6])
    cm.create(namespace=ns, body={"apiVersion": "v1", "kind": "ConfigMap",
                                  "metadata": {"name": name, "namespace": ns, "finalizers": [FIN]}})
    cm.delete(name=name, namespace=ns)  # terminating, held by FIN
    if which == "ours":
        args = {"timeout": 60, "gates": [{"name": "gone", "resources": [
            {"api_version": "v1", "kind": "ConfigMap", "namespace": ns, "name": name}]}]}
        proc, argfile = module_proc(OURS, args)
    else:
        args = {"state": "absent", "kind": "ConfigMap", "api_version": "v1", "namespace": ns, "name": name,
                "wait": True, "wait_timeout": 60}
        proc, argfile = module_proc(peer_path, args)
    time.sleep(random.uniform(1.5, 3.5))  # let it start and wait; a random phase for the peer's polls
    cm.patch(name=name, namespace=ns, content_type="application/json-patch+json",
             body=[{"op": "test", "path": "/metadata/finalizers/0", "value": FIN},
                   {"op": "remove", "path": "/metadata/finalizers/0"}])
    removed = time.monotonic()
    out, err = proc.communicate(timeout=90)
    returned = time.monotonic()
    os.unlink(argfile)
    try:
        result = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError("%s produced no JSON: %s %s" % (which, out[-500:], err[-500:]))
    if result.get("failed"):
        raise RuntimeError("%s failed: %s" % (which, result.get("msg")))
    if which == "ours" and result["gates"][0]["state"] != "passed":
        raise RuntimeError("ours did not pass: %s" % result["gates"][0])
    return returned - removed


def main():
    dc = dynamic.DynamicClient(config.new_client_from_config())
    cm = dc.resources.get(api_version="v1", kind="ConfigMap")
    nsr = dc.resources.get(api_version="v1", kind="Namespace")
    ns = "bench-lat-%s" % uuid.uuid4().hex[:6]
    nsr.create(body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    peer_path = peer_module_path()
    lat = {"ours": [], "peer": []}
    try:
        for i in range(TRIALS):
            for which in ("ours", "peer"):
                v = trial(cm, ns, which, peer_path)
                lat[which].append(v)
                log("trial %d %s: %.3f s" % (i + 1, which, v))
    finally:
        nsr.delete(name=ns)
    ours, peer = statistics.median(lat["ours"]), statistics.median(lat["peer"])
    ratio = peer / ours if ours > 0 else None
    log("median ours %.3f s, peer %.3f s, ratio %.1f" % (ours, peer, ratio or 0))
    cases = [
        {"name": "gate detection latency, median (x faster)", "unit": "s", "ours": round(ours, 4),
         "peer": round(peer, 4), "peer_name": PEER_NAME, "ratio": round(ratio, 2) if ratio else None,
         "target": 10, "met": bool(ratio and ratio >= 10), "trials": TRIALS,
         "samples": {k: [round(x, 4) for x in v] for k, v in lat.items()}},
        {"name": "gate detection latency, median (absolute)", "unit": "s", "ours": round(ours, 4),
         "peer": round(peer, 4), "peer_name": PEER_NAME, "ratio": round(ratio, 2) if ratio else None,
         "target": 0.2, "met": ours < 0.2, "trials": TRIALS},
    ]
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
