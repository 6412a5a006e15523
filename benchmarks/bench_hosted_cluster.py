#!/usr/bin/env python
"""The destroy_hosted_cluster playbook's overhead over the twins' own delays, and Ansible's cost per task.

For each profile a hosted cluster is seeded (tests/sandbox/sandbox seed hosted-cluster), then
`ansible-playbook teardown.gates.destroy_hosted_cluster` destroys it while an observer thread reads
the HostedCluster every 0.1 s. Profiles:
  sandbox    the twins' defaults (requeue 1 s, pod grace 2 s, NAT deleting 3 s)
  realistic  delays of the order the seed's measurements show: HO/CAPI requeue 5 s, pod grace 30 s,
             instances shutting down 20 s, NAT gateways deleting 45 s

The floor, what no driver can go below once it has asked for the deletion:
  controllers  observed: from the HostedCluster's deletion (first seen terminating) to the moment only the
               CLI finalizer is left (first seen); the controllers do this on their own schedule
  AWS          configured: the NAT gateways' `deleting` time (the internet gateway, EIPs, subnets and
               the VPC wait on it; a driver can start it no earlier than its AWS phase)
overhead = playbook wall time - floor; target: overhead under 5 % of the wall time.
Per task: the task count and the median and total time of the tasks that do not wait on the world
(everything but the gate waits and the AWS deletes), from a callback that logs each task's start and end
(benchmarks/callback_plugins/bench_task_times.py).

Runs with the sandbox's environment (benchmarks/run.sh); progress on stderr; the last stdout line is the
JSON list of cases. BENCH_HC_PROFILES=sandbox,realistic chooses profiles (default both).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

from kubernetes import client, config

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SANDBOX = os.path.join(REPO, "tests", "sandbox", "sandbox")
PLAYBOOK = os.path.join(REPO, ".venv", "bin", "ansible-playbook")
CLI_FINALIZER = "openshift.io/destroy-cluster"
# tasks that wait on the world: the gates (wait_gate, which also sends the HostedCluster's deletion; an
# older checkout runs it async and polls it with async_status) and the AWS phase's deletes (aws_infra_cleanup waits on NAT
# gateways and the like; an older checkout named that task "Destroy the AWS infrastructure"); the verification's
# read-only aws_infra_cleanup lookup is Ansible-side work and counts as our own


def waits(task):
    return task["action"].endswith(("wait_gate", "async_status")) or (
        task["action"].endswith("aws_infra_cleanup") and task["name"].startswith(
            ("Phase 4 | Destroy the AWS resources", "Phase 4 | Destroy the AWS infrastructure")))
PROFILES = {
    "sandbox": {"seed": [], "layer": {}},
    "realistic": {"seed": ["requeue=5s", "grace_period=30s", "instance_shutting_down_seconds=20"],
                  "layer": {"nat_deleting_seconds": 45.0, "instance_shutting_down_seconds": 20.0}},
}


def say(msg):
    print("[bench_hosted_cluster %s] %s" % (time.strftime("%H:%M:%S", time.gmtime()), msg), file=sys.stderr, flush=True)


def layer(knobs=None):
    base = os.environ["SANDBOX_AWS_CONTROL"] + "/realism"
    if knobs:
        req = urllib.request.Request(base + "/knobs", data=json.dumps(knobs).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).read()
    with urllib.request.urlopen(base, timeout=10) as r:
        return json.load(r)["knobs"]


class Observer(threading.Thread):
    """Reads the HostedCluster every 0.1 s; notes when it was first seen deleting and first seen with only
    the CLI finalizer."""

    def __init__(self, name, namespace):
        super().__init__(daemon=True)
        self.name, self.ns = name, namespace
        self.api = client.CustomObjectsApi()
        self.deleting = self.only_cli = None
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set() and self.only_cli is None:
            try:
                hc = self.api.get_namespaced_custom_object("hypershift.openshift.io", "v1beta1", self.ns,
                                                           "hostedclusters", self.name)
            except client.ApiException:
                hc = None  # gone (or unknown): nothing to note
            if hc is not None:
                md, now = hc["metadata"], time.time()
                if md.get("deletionTimestamp") and self.deleting is None:
                    self.deleting = now
                if self.deleting is not None and (md.get("finalizers") or []) == [CLI_FINALIZER]:
                    self.only_cli = now
            self.stop.wait(0.1)


def run_profile(label, prof):
    before = layer()
    try:
        if prof["layer"]:
            layer(prof["layer"])
        knobs = layer()
        name, ns = "bench%s" % uuid.uuid4().hex[:5], "bench-hc"
        args = [SANDBOX, "seed", "hosted-cluster", "--name", name, "--namespace", ns,
                "--knob", "cleanup_cloud_resources=true"]
        for k in prof["seed"]:
            args += ["--knob", k]
        say("%s: seeding %s/%s" % (label, ns, name))
        subprocess.run(args, capture_output=True, text=True, check=True)
        work = tempfile.mkdtemp(prefix="bench-hc-")
        times = os.path.join(work, "tasks.jsonl")
        env = dict(os.environ, ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, "callback_plugins"),
                   ANSIBLE_CALLBACKS_ENABLED="bench_task_times", BENCH_TASK_TIMES=times)
        obs = Observer(name, ns)
        obs.start()
        say("%s: destroying" % label)
        t0 = time.time()
        proc = subprocess.run([PLAYBOOK, "teardown.gates.destroy_hosted_cluster", "-e", "hosted_cluster_name=" + name,
                               "-e", "hosted_cluster_namespace=" + ns, "-e", "report_dir=" + work],
                              capture_output=True, text=True, env=env)
        wall = time.time() - t0
        obs.stop.set()
        obs.join(5)
        if proc.returncode != 0:
            raise RuntimeError("%s: the playbook failed:\n%s" % (label, proc.stdout[-3000:]))
        report = json.load(open(os.path.join(work, "%s-%s.json" % (ns, name))))
        if not (report.get("verified") and report.get("command_succeeded")):
            raise RuntimeError("%s: the teardown is not verified: %s" % (label, json.dumps(report)[:2000]))
        if obs.deleting is None or obs.only_cli is None:
            raise RuntimeError("%s: the observer missed the controllers' window" % label)
        controllers = obs.only_cli - obs.deleting
        floor = controllers + float(knobs["nat_deleting_seconds"])
        tasks = [json.loads(line) for line in open(times)]
        ran = [t for t in tasks if t["status"] != "skipped" and t["start"]]
        own = [t["end"] - t["start"] for t in ran if not waits(t)]
        waited = [t["end"] - t["start"] for t in ran if waits(t)]
        return {"wall": wall, "controllers": controllers, "nat": float(knobs["nat_deleting_seconds"]), "floor": floor,
                "overhead": wall - floor, "tasks": len(tasks), "ran": len(ran), "own_total": sum(own),
                "own_median": statistics.median(own) if own else 0.0, "waits_total": sum(waited)}
    finally:
        layer({k: before[k] for k in ("nat_deleting_seconds", "instance_shutting_down_seconds")})


def main():
    config.load_kube_config()
    wanted = [p for p in os.environ.get("BENCH_HC_PROFILES", "sandbox,realistic").split(",") if p]
    cases = []
    for label in wanted:
        r = run_profile(label, PROFILES[label])
        pct = 100.0 * r["overhead"] / r["wall"]
        say("%s: wall %.1f s, floor %.1f s (controllers %.1f s + NAT %.1f s), overhead %.1f s = %.1f %%; "
            "%d tasks (%d ran), own time %.1f s, median %.3f s/task, waiting %.1f s"
            % (label, r["wall"], r["floor"], r["controllers"], r["nat"], r["overhead"], pct, r["tasks"], r["ran"],
               r["own_total"], r["own_median"], r["waits_total"]))
        floor_name = "the twins' own delays (controllers' observed window + NAT deleting)"
        cases += [
            {"name": "hosted_cluster_overhead_%s" % label, "unit": "% of wall time", "ours": round(pct, 1),
             "peer": None, "peer_name": floor_name, "ratio": None, "target": "< 5 %", "met": pct < 5.0},
            {"name": "hosted_cluster_wall_%s" % label, "unit": "s", "ours": round(r["wall"], 1),
             "peer": round(r["floor"], 1), "peer_name": floor_name, "ratio": round(r["floor"] / r["wall"], 3),
             "target": "wall within 5 % of the floor", "met": pct < 5.0},
            {"name": "hosted_cluster_tasks_%s" % label, "unit": "tasks run", "ours": r["ran"], "peer": None,
             "peer_name": "", "ratio": None, "target": "report only", "met": True},
            {"name": "hosted_cluster_task_cost_%s" % label, "unit": "s per task (median, non-waiting)",
             "ours": round(r["own_median"], 3), "peer": None, "peer_name": "", "ratio": None,
             "target": "report only", "met": True},
            {"name": "hosted_cluster_own_time_%s" % label, "unit": "s in non-waiting tasks",
             "ours": round(r["own_total"], 1), "peer": None, "peer_name": "", "ratio": None,
             "target": "report only", "met": True},
        ]
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
