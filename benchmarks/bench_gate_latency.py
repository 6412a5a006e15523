#!/usr/bin/env python
"""Gate detection latency: from an object's removal to the waiting module's return.

Ours: teardown.gates.wait_gate (until: absent, by watch), run as a module process fed its arguments in a JSON
file. Peers, each waiting on the same kind of terminating ConfigMap:

* ``kubectl wait --for=delete`` (watch-based), built from the same Go module as the sandbox's control plane
  (tests/sandbox/build_kubectl.sh; BENCH_KUBECTL names another binary);
* kubernetes.core.k8s with state: absent, wait: true (polls every wait_sleep, 5 s by default), run as ours is.

After a random 1.5-3.5 s (so a poller's phase is not favoured or disfavoured) the finalizer that holds the
object is removed, which deletes it; the latency is from the answer to that PATCH to the waiter's exit (what
a playbook or a script waits for), and also to its first byte of output (when it has seen the deletion: a
Python module's exit adds its interpreter's shutdown, about 0.1 s here).
Medians over BENCH_TRIALS trials (default 7) each. A peer that fails (no kubectl, a non-zero exit) is recorded
as that case's outcome, with its exit status and the end of its stderr, and the other cases still run.

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
import threading
import time
import uuid

from kubernetes import config, dynamic

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PY = os.path.join(REPO, ".venv", "bin", "python")
COLL = os.path.join(REPO, ".venv", "collections")
OURS = os.path.join(COLL, "ansible_collections", "teardown", "gates", "plugins", "modules", "wait_gate.py")
PEER_NAME = "kubernetes.core.k8s state=absent wait=true"
KUBECTL_NAME = "kubectl wait --for=delete"
KUBECTL = os.environ.get("BENCH_KUBECTL") or os.path.join(
    os.environ.get("TEARDOWN_GATES_CACHE", os.path.expanduser("~/.cache/teardown-gates")), "k8s",
    os.environ.get("SANDBOX_K8S_VERSION", "v1.36.3"), "bin", "kubectl")
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


class PeerFailed(Exception):
    def __init__(self, rc, stderr):
        Exception.__init__(self, "rc %s: %s" % (rc, stderr))
        self.rc, self.stderr = rc, stderr


def communicate(proc, timeout):
    """(stdout, stderr, when the first byte of stdout came, when the process ended), monotonic times."""
    seen = {}

    def read():
        first = proc.stdout.read(1)
        seen["first"] = time.monotonic()
        seen["out"] = first + proc.stdout.read()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    err = proc.stderr.read()
    proc.wait(timeout=timeout)
    ended = time.monotonic()
    reader.join(timeout)
    return seen.get("out", b""), err, seen.get("first", ended), ended


def trial(cm, ns, which, peer_path):
    name = "lat-%s-%s" % (which, uuid.uuid4().hex[:6])
    cm.create(namespace=ns, body={"apiVersion": "v1", "kind": "ConfigMap",
                                  "metadata": {"name": name, "namespace": ns, "finalizers": [FIN]}})
    cm.delete(name=name, namespace=ns)  # terminating, held by FIN
    argfile = None
    if which == "kubectl":
        if not os.access(KUBECTL, os.X_OK):
            raise PeerFailed(None, "no kubectl at %s (tests/sandbox/build_kubectl.sh builds it)" % KUBECTL)
        proc = subprocess.Popen([KUBECTL, "wait", "--for=delete", "configmap/" + name, "-n", ns, "--timeout=60s"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elif which == "ours":
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
    out, err, answered, returned = communicate(proc, 90)
    if which == "kubectl":
        if proc.returncode != 0:
            raise PeerFailed(proc.returncode, err.decode(errors="replace")[-500:])
        return returned - removed, answered - removed
    os.unlink(argfile)
    try:
        result = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError("%s produced no JSON: %s %s" % (which, out[-500:], err[-500:]))
    if result.get("failed"):
        raise RuntimeError("%s failed: %s" % (which, result.get("msg")))
    if which == "ours" and result["gates"][0]["state"] != "passed":
        raise RuntimeError("ours did not pass: %s" % result["gates"][0])
    return returned - removed, answered - removed


def main():
    dc = dynamic.DynamicClient(config.new_client_from_config())
    cm = dc.resources.get(api_version="v1", kind="ConfigMap")
    nsr = dc.resources.get(api_version="v1", kind="Namespace")
    ns = "bench-lat-%s" % uuid.uuid4().hex[:6]
    nsr.create(body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    peer_path = peer_module_path()
    lat = {"ours": [], "kubectl": [], "peer": []}
    answer = {"ours": [], "kubectl": [], "peer": []}
    failed = {}
    try:
        for i in range(TRIALS):
            for which in ("ours", "kubectl", "peer"):
                if which in failed:
                    continue
                try:
                    v, a = trial(cm, ns, which, peer_path)
                except PeerFailed as e:
                    failed[which] = {"rc": e.rc, "stderr_tail": e.stderr}
                    log("%s failed, recorded as its outcome: %s" % (which, e))
                    continue
                lat[which].append(v)
                answer[which].append(a)
                log("trial %d %s: %.3f s (first output after %.3f s)" % (i + 1, which, v, a))
    finally:
        nsr.delete(name=ns)
    ours = statistics.median(lat["ours"])
    samples = {k: [round(x, 4) for x in v] for k, v in lat.items()}
    ours_answer = statistics.median(answer["ours"])
    answer_samples = {k: [round(x, 4) for x in v] for k, v in answer.items()}
    to_answer = against(ours_answer, answer["kubectl"], failed.get("kubectl"), KUBECTL_NAME, 1.0, answer_samples)
    to_answer["name"] = "gate detection latency vs %s, to the first output, median (x faster)" % KUBECTL_NAME
    cases = [against(ours, lat["kubectl"], failed.get("kubectl"), KUBECTL_NAME, 1.0, samples), to_answer,
             against(ours, lat["peer"], failed.get("peer"), PEER_NAME, 10, samples),
             {"name": "gate detection latency, median (absolute)", "unit": "s", "ours": round(ours, 4),
              "peer": None, "peer_name": None, "ratio": None, "target": 0.2, "met": ours < 0.2, "trials": TRIALS}]
    print(json.dumps(cases))


def against(ours, peer_samples, failure, peer_name, target, samples):
    """One comparison case; a peer that failed is the case's outcome (ratio None, not met)."""
    case = {"name": "gate detection latency vs %s, median (x faster)" % peer_name, "unit": "s",
            "ours": round(ours, 4), "peer_name": peer_name, "target": target, "trials": TRIALS, "samples": samples}
    if failure or not peer_samples:
        case.update(peer=None, ratio=None, met=False, peer_failed=failure or {"rc": None, "stderr_tail": "no sample"})
        return case
    peer = statistics.median(peer_samples)
    ratio = peer / ours if ours > 0 else None
    log("median ours %.3f s, %s %.3f s, ratio %.2f" % (ours, peer_name, peer, ratio or 0))
    case.update(peer=round(peer, 4), ratio=round(ratio, 2) if ratio else None, met=bool(ratio and ratio >= target))
    return case


if __name__ == "__main__":
    main()
