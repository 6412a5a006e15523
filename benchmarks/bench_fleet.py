#!/usr/bin/env python
"""A fleet of hosted clusters torn down in ONE ansible-playbook run, through the inventory plugin.

For each fleet size N (BENCH_FLEET_SIZES, default 1,3 so that `make bench` stays within its time on the
2-core machine; the issue's campaign is BENCH_FLEET_SIZES=1,5,25, see docs/performance.md) the bench seeds
N hosted clusters with their AWS infrastructure in a namespace of their own (`tests/sandbox/sandbox seed
hosted-cluster`, BENCH_FLEET_SEED_PARALLEL at a time, default 4; every fleet is seeded before the first
teardown, and seeding is not timed), writes an inventory source `plugin: teardown.gates.hosted_clusters`
for that namespace (one host per HostedCluster), and runs

    ansible-playbook -i fleet.hosted_clusters.yml teardown.gates.destroy_hosted_cluster -f min(N, cap)

once (cap: BENCH_FLEET_FORKS_CAP, default 25). Measured per N:
  wall         the playbook's wall time (inventory parsing and Ansible's start included)
  API req/s    audit-log events of the kube-apiserver received during the run, per second (every client:
               the playbook, the twins, the controller manager; SANDBOX_AUDIT_LOG)
  AWS req/s    lines of SANDBOX_AWS_LOG during the run, per second (the playbook and the twins)
  peak memory  the largest sum of VmRSS over the ansible-playbook process and all its descendants (forks
               and module processes), sampled from /proc every 0.5 s (RSS counts the pages the forks share
               with the controller once per process: an upper bound); the same sum of PSS (smaps_rollup, shared
               pages split among their users: the tree's real footprint); and the controller process alone
  CPU          user+system seconds of the playbook's process tree (getrusage(RUSAGE_CHILDREN) before and
               after: it counts only waited-for processes, so the sum is exact for the tree) and of each
               sandbox process (/proc/<pid>/stat of the pids in $SANDBOX_HOME/run), to say what dominates;
               the controller process's own share (its last /proc sample, <= 0.5 s before it ends) tells
               the strategy and templating apart from the forks and module processes
  verified     reports with verified and command_succeeded true, one per HostedCluster
Then wall = a + b*N by least squares (a, b, R^2) and the ratio wall(Nmax)/wall(1) against issue 10's target:
25 clusters in under 2x the wall time of one.

The seed shape is BENCH_FLEET_SEED_KNOBS (default `cleanup_cloud_resources=true zones=1`): one zone, so one
NAT gateway and one public and one private subnet per cluster instead of three. The same shape is used for
every N, so the fit compares like with like; see docs/performance.md for why.

Runs with the sandbox's environment (benchmarks/run.sh); progress on stderr; the last stdout line is the JSON
list of cases.
"""
import concurrent.futures
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SANDBOX = os.path.join(REPO, "tests", "sandbox", "sandbox")
PLAYBOOK = os.path.join(REPO, ".venv", "bin", "ansible-playbook")
TARGET = 2.0  # issue 10: 25 clusters in under 2x the wall time of one


def say(msg):
    print("[bench_fleet %s] %s" % (time.strftime("%H:%M:%S", time.gmtime()), msg), file=sys.stderr, flush=True)


def linear_fit(xs, ys):
    """Least squares y = a + b*x: returns (a, b, r2). r2 is 1.0 when ys do not vary and the fit is exact.

    Needs at least two distinct xs."""
    n = len(xs)
    if n != len(ys) or n < 2 or len(set(xs)) < 2:
        raise ValueError("a linear fit needs at least two distinct x values, got %r" % (xs,))
    mx, my = sum(xs) / float(n), sum(ys) / float(n)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    b = sxy / sxx
    a = my - b * mx
    ss_res = sum((y - (a + b * x)) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    return a, b, r2


# -- measuring ------------------------------------------------------------------------------------------
def _children_of():
    kids = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(pid))
    return kids


def _mem_kib(pid, path="status", field="VmRSS:"):
    try:
        with open("/proc/%d/%s" % (pid, path)) as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _rss_kib(pid):
    return _mem_kib(pid)


def _pss_kib(pid):
    """Proportional set size: shared pages (the forks share the controller's) counted once in all."""
    return _mem_kib(pid, "smaps_rollup", "Pss:")


class RssSampler(threading.Thread):
    """Peak of the summed RSS of a process tree, and of its root alone, sampled every `every` seconds."""

    def __init__(self, root, every=0.5):
        super().__init__(daemon=True)
        self.root, self.every = root, every
        self.peak_tree_kib = self.peak_root_kib = self.peak_procs = self.peak_tree_pss_kib = 0
        self.root_cpu_s = 0.0  # the controller process's own user+system CPU, as last sampled
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            kids, tree, todo = _children_of(), [], [self.root]
            while todo:
                p = todo.pop()
                tree.append(p)
                todo.extend(kids.get(p, []))
            total = sum(_rss_kib(p) for p in tree)
            self.peak_tree_kib = max(self.peak_tree_kib, total)
            self.peak_tree_pss_kib = max(self.peak_tree_pss_kib, sum(_pss_kib(p) for p in tree))
            self.peak_root_kib = max(self.peak_root_kib, _rss_kib(self.root))
            self.peak_procs = max(self.peak_procs, len(tree))
            try:
                with open("/proc/%d/stat" % self.root) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                self.root_cpu_s = (int(fields[11]) + int(fields[12])) / float(os.sysconf("SC_CLK_TCK"))
            except (OSError, ValueError, IndexError):
                pass
            self.stop.wait(self.every)


def sandbox_cpu():
    """CPU seconds (user+system) so far of each sandbox process, by its pid file's name."""
    run = os.path.join(os.environ.get("SANDBOX_HOME") or os.path.join(REPO, ".sandbox"), "run")
    tick = float(os.sysconf("SC_CLK_TCK"))
    out = {}
    try:
        names = sorted(os.listdir(run))
    except OSError:
        return out
    for name in names:
        if not name.endswith(".pid"):
            continue
        try:
            with open(os.path.join(run, name)) as f:
                pid = int(f.read().strip())
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[name[:-4]] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            continue
    return out


def _ts(text):
    return datetime.strptime(text[:26].rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()


def count_log(path, offset, t0, t1, stamp):
    """Lines of a JSON-lines log written after `offset` whose time (field `stamp`) is within [t0, t1]."""
    n, by = 0, {}
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            for raw in f:
                try:
                    ev = json.loads(raw)
                    t = _ts(ev[stamp])
                except (ValueError, KeyError, TypeError):
                    continue
                if t0 <= t <= t1:
                    n += 1
                    who = ev.get("service") or (ev.get("user") or {}).get("username", "?")
                    by[who] = by.get(who, 0) + 1
    except OSError:
        pass
    return n, by


def size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def slowest_tasks(path, top=6):
    """The tasks that held the play longest: per task, from its start to its last host's end (the linear
    strategy starts the next task only then), with the median time per host."""
    spans = {}
    try:
        with open(path) as f:
            for line in f:
                t = json.loads(line)
                if t["status"] == "skipped" or not t.get("start"):
                    continue
                s = spans.setdefault((t["start"], t["name"]), [])
                s.append(t["end"] - t["start"])
    except (OSError, ValueError):
        return []
    rows = [{"task": name, "span_s": round(max(d), 1), "hosts": len(d), "median_host_s": round(sorted(d)[len(d) // 2], 1)}
            for (start, name), d in spans.items()]
    return sorted(rows, key=lambda r: -r["span_s"])[:top]


# -- one fleet ------------------------------------------------------------------------------------------
def seed_fleet(n, ns, knobs, parallel):
    names = ["f%02d-%s" % (i, uuid.uuid4().hex[:4]) for i in range(n)]

    def one(name):
        args = [SANDBOX, "seed", "hosted-cluster", "--name", name, "--namespace", ns]
        for k in knobs:
            args += ["--knob", k]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("seeding %s/%s failed: %s" % (ns, name, (p.stderr or p.stdout)[-2000:]))
        return json.loads(p.stdout.strip().splitlines()[-1])

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        seeded = list(pool.map(one, names))
    return seeded, time.time() - t0


def seed_one_fleet(n, knobs, parallel):
    ns = "fleet%d-%s" % (n, uuid.uuid4().hex[:5])
    say("N=%d: seeding %d hosted clusters in %s, %d at a time (knobs: %s)" % (n, n, ns, parallel, " ".join(knobs)))
    seeded, seed_s = seed_fleet(n, ns, knobs, parallel)
    say("N=%d: seeded in %.1f s" % (n, seed_s))
    return ns, seeded, seed_s


def run_fleet(n, ns, seeded, seed_s, cap):
    work = tempfile.mkdtemp(prefix="bench-fleet-")
    inv = os.path.join(work, "fleet.hosted_clusters.yml")
    with open(inv, "w") as f:
        f.write("plugin: teardown.gates.hosted_clusters\nnamespaces: [%s]\n" % ns)
    reports = os.path.join(work, "reports")
    times = os.path.join(work, "tasks.jsonl")
    forks = max(1, min(n, cap))
    audit, awslog = os.environ.get("SANDBOX_AUDIT_LOG", ""), os.environ.get("SANDBOX_AWS_LOG", "")
    audit_off, aws_off = size(audit), size(awslog)
    cpu_before = sandbox_cpu()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = os.getloadavg()[0]
    say("N=%d: destroying in one playbook run, %d forks" % (n, forks))
    t0 = time.time()
    with open(os.path.join(work, "playbook.log"), "w") as log:
        env = dict(os.environ, ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, "callback_plugins"),
                   ANSIBLE_CALLBACKS_ENABLED="bench_task_times", BENCH_TASK_TIMES=times)
        proc = subprocess.Popen([PLAYBOOK, "-i", inv, "teardown.gates.destroy_hosted_cluster", "-f", str(forks),
                                 "-e", "report_dir=" + reports], stdout=log, stderr=subprocess.STDOUT, env=env)
        sampler = RssSampler(proc.pid)
        sampler.start()
        rc = proc.wait()
    t1 = time.time()
    sampler.stop.set()
    sampler.join(5)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_after = sandbox_cpu()
    load1 = os.getloadavg()[0]
    wall = t1 - t0
    time.sleep(2)  # the audit backend writes in batches
    api_n, api_by = count_log(audit, audit_off, t0, t1, "requestReceivedTimestamp")
    aws_n, aws_by = count_log(awslog, aws_off, t0, t1, "time")
    verified, unverified = 0, []
    for s in seeded:
        path = os.path.join(reports, "%s-%s.json" % (ns, s["name"]))
        try:
            with open(path) as f:
                rep = json.load(f)
            ok = bool(rep.get("verified") and rep.get("command_succeeded"))
        except (OSError, ValueError):
            ok = False
        if ok:
            verified += 1
        else:
            unverified.append(s["name"])
    if rc != 0 or unverified:
        with open(os.path.join(work, "playbook.log")) as f:
            tail = f.read()[-3000:]
        raise RuntimeError("N=%d: playbook rc=%d, not verified: %s (work dir %s)\n%s" % (n, rc, unverified, work, tail))
    sbx_cpu = dict((k, round(cpu_after.get(k, 0) - v, 1)) for k, v in cpu_before.items())
    pb_cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    r = {"n": n, "forks": forks, "wall_s": round(wall, 1), "seed_s": round(seed_s, 1),
         "api_requests": api_n, "api_rps": round(api_n / wall, 1), "api_by_user": api_by,
         "aws_requests": aws_n, "aws_rps": round(aws_n / wall, 2), "aws_by_service": aws_by,
         "peak_rss_tree_mib": round(sampler.peak_tree_kib / 1024.0, 1),
         "peak_rss_controller_mib": round(sampler.peak_root_kib / 1024.0, 1),
         "peak_pss_tree_mib": round(sampler.peak_tree_pss_kib / 1024.0, 1),
         "peak_processes": sampler.peak_procs, "playbook_cpu_s": round(pb_cpu, 1),
         "controller_process_cpu_s": round(sampler.root_cpu_s, 1), "sandbox_cpu_s": sbx_cpu,
         "slowest_tasks": slowest_tasks(times), "verified": verified, "load_1min_start_end": [round(load0, 2), round(load1, 2)], "work_dir": work}
    say("N=%d: wall %.1f s, verified %d/%d, API %d req (%.1f/s), AWS %d req (%.2f/s), peak RSS %.0f MiB tree "
        "(PSS %.0f MiB; %.0f MiB controller, %d processes), CPU playbook %.1f s (%.2f cores), sandbox %s, "
        "load %.1f->%.1f" % (n, wall, verified, n, api_n, r["api_rps"], aws_n, r["aws_rps"], r["peak_rss_tree_mib"],
                             r["peak_pss_tree_mib"], r["peak_rss_controller_mib"], sampler.peak_procs, pb_cpu,
                             pb_cpu / wall, sbx_cpu, load0, load1))
    return r


def cases_from(runs):
    """The bench's cases (issue 10's schema) from the per-N results, sorted by N."""
    runs = sorted(runs, key=lambda r: r["n"])
    by_n = dict((r["n"], r) for r in runs)
    cases = []
    for r in runs:
        n = r["n"]
        extra = dict((k, v) for k, v in r.items() if k != "n")
        cases.append({"name": "fleet: wall time, N=%d" % n, "unit": "s", "ours": r["wall_s"],
                      "peer": round(n * by_n[1]["wall_s"], 1) if 1 in by_n else None,
                      "peer_name": "serial: N x wall(1)",
                      "ratio": round(n * by_n[1]["wall_s"] / r["wall_s"], 2) if 1 in by_n else None,
                      "target": "report only", "met": r["verified"] == n, "details": extra})
        cases.append({"name": "fleet: verified, N=%d" % n, "unit": "clusters verified", "ours": r["verified"],
                      "peer": n, "peer_name": "clusters seeded", "ratio": round(r["verified"] / float(n), 3),
                      "target": 1, "met": r["verified"] == n})
        cases.append({"name": "fleet: API server req/s, N=%d" % n, "unit": "req/s (all clients)",
                      "ours": r["api_rps"], "peer": None, "peer_name": "", "ratio": None,
                      "target": "report only", "met": True})
        cases.append({"name": "fleet: AWS req/s, N=%d" % n, "unit": "req/s (all clients)",
                      "ours": r["aws_rps"], "peer": None, "peer_name": "", "ratio": None,
                      "target": "report only", "met": True})
        if r.get("playbook_cpu_s") is not None:
            cases.append({"name": "fleet: playbook CPU per cluster, N=%d" % n, "unit": "CPU-s per cluster",
                          "ours": round(r["playbook_cpu_s"] / float(n), 1), "peer": None, "peer_name": "",
                          "ratio": None, "target": "report only (steadier than wall time under load)",
                          "met": True})
        cases.append({"name": "fleet: peak RSS, N=%d" % n, "unit": "MiB (playbook tree)",
                      "ours": r["peak_rss_tree_mib"], "peer": None, "peer_name": "", "ratio": None,
                      "target": "report only", "met": True})
    nmax = runs[-1]["n"]
    if 1 in by_n and nmax > 1:
        w1, wmax = by_n[1]["wall_s"], by_n[nmax]["wall_s"]
        cases.append({"name": "fleet: %d vs 1 wall time" % nmax, "unit": "x wall(1)", "ours": round(wmax / w1, 2),
                      "peer": nmax, "peer_name": "serial: %d runs of one" % nmax, "ratio": round(nmax * w1 / wmax, 2),
                      "target": TARGET, "met": wmax / w1 < TARGET,
                      "target_text": "N=%d in under %gx the wall time of N=1" % (nmax, TARGET)})
    if len(set(by_n)) >= 2:
        a, b, r2 = linear_fit([r["n"] for r in runs], [r["wall_s"] for r in runs])
        cases.append({"name": "fleet: wall time fit a + b*N", "unit": "s per cluster (b)", "ours": round(b, 2),
                      "peer": None, "peer_name": "", "ratio": None, "target": "report only (linear: R^2)",
                      "met": True, "a_s": round(a, 1), "b_s": round(b, 2), "r2": round(r2, 3),
                      "points": [[r["n"], r["wall_s"]] for r in runs]})
        if all(r.get("playbook_cpu_s") is not None for r in runs):
            ca, cb, cr2 = linear_fit([r["n"] for r in runs], [r["playbook_cpu_s"] for r in runs])
            cases[-1].update(cpu_a_s=round(ca, 1), cpu_b_s=round(cb, 2), cpu_r2=round(cr2, 3))
    return cases


def main():
    sizes = sorted(set(int(s) for s in os.environ.get("BENCH_FLEET_SIZES", "1,3").split(",") if s.strip()))
    knobs = os.environ.get("BENCH_FLEET_SEED_KNOBS", "cleanup_cloud_resources=true zones=1").split()
    parallel = int(os.environ.get("BENCH_FLEET_SEED_PARALLEL", "4"))
    cap = int(os.environ.get("BENCH_FLEET_FORKS_CAP", "25"))
    # every fleet is seeded first, then the fleets are destroyed back to back: the sizes are compared under
    # the same load, and no seeding runs while a teardown is timed
    fleets = [(n,) + seed_one_fleet(n, knobs, parallel) for n in sizes]
    runs = [run_fleet(n, ns, seeded, seed_s, cap) for n, ns, seeded, seed_s in fleets]
    cases = cases_from(runs)
    for c in cases:
        if c["name"].startswith("fleet: wall time fit"):
            say("fit: wall = %.1f + %.2f*N s, R^2 %.3f; playbook CPU = %s + %s*N s, R^2 %s"
                % (c["a_s"], c["b_s"], c["r2"], c.get("cpu_a_s"), c.get("cpu_b_s"), c.get("cpu_r2")))
        if c["name"].endswith("vs 1 wall time"):
            say("%s: %.2fx (target < %g): %s" % (c["name"], c["ours"], TARGET, "met" if c["met"] else "missed"))
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
