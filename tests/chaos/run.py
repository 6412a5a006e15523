#!/usr/bin/env python3
"""Fault campaigns against the sandbox: `tests/chaos/run.py --runs N --seed S`.

Needs a running sandbox and its environment (eval "$(tests/sandbox/sandbox env)").
Each run i takes the seed S+i and a case (round-robin over --cases):

  releases   `seed releases` (2 Releases, no hooks), then playbooks/prune_releases.yml through the
             fault-injecting proxy (sandboxctl/kubeproxy.py: 500/503/429 Status answers, dropped
             connections, watches cut mid-way, chosen by a generator seeded with S+i)
  aws-infra  `seed aws-infra` (one zone, one worker), then the aws_infra_cleanup module (run directly
             with its arguments in a JSON file, no ansible-playbook start) with the AWS layer's fault
             rules on (throttle/internal/drop, chosen from S+i; the layer draws the hits itself)

  wait-gate  three ConfigMaps held by a finalizer and deleted; the "owner" lets 0..2 of them go before,
             0..2 while the wait_gate module (run directly) waits for them absent through the proxy,
             and the rest after it

Then the faults stop and the same job runs again (through the proxy at rate 0, so that every request
of both runs is logged), and the invariants are checked:

  finalizer   no PATCH/PUT of ours removes or rewrites a finalizer (neither job has a documented path
              that removes one: prune_releases never does, aws_infra_cleanup does not touch Kubernetes)
  absent      nothing the faulty run reported absent is found by a later successful query
              (releases: the report's verification, queried directly by name; aws-infra: a resource the
              faulty run reported absent/deleted and verified absent that the fault-free re-run had to
              delete, i.e. found present)
  tracked     aws-infra: every ID of the seed's manifest is in the faulty run's result and in the
              re-run's, deleted, absent (or terminal) or reported by ID
  verified    the fault-free re-run succeeds: outcome done and every Release absent (direct query);
              aws_infra_cleanup verified: true

Prints `chaos: runs=N faults=F violations=V` and writes tests/chaos/results/latest.json.
Exit status 1 when V > 0 or a run could not be carried out (an error of the harness is counted apart,
never as a pass).
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SANDBOX = os.path.join(REPO, "tests", "sandbox", "sandbox")
PY = os.path.join(REPO, ".venv", "bin", "python")
FINALIZER_MARKERS = ("/metadata/finalizers", '"finalizers"')


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def seed_scenario(*args):
    p = subprocess.run([SANDBOX, "seed", *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"seed {args}: {p.stderr[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def aws_control(method, path, body=None):
    req = urllib.request.Request(os.environ["SANDBOX_AWS_CONTROL"].rstrip("/") + "/" + path, method=method,
                                 data=json.dumps(body or {}).encode() if method != "GET" else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


class KubeProxy:
    """sandboxctl.kubeproxy as a child process; rate switched through a file."""

    def __init__(self, workdir, seed, rate):
        self.port = int(os.environ.get("CHAOS_PROXY_PORT",
                                       int(os.environ.get("SANDBOX_PORT_BASE", "21000")) + 600))
        self.log = os.path.join(workdir, "kubeproxy.jsonl")
        self.kubeconfig = os.path.join(workdir, "kubeconfig-proxy")
        self.rate_file = os.path.join(workdir, "rate")
        self.set_rate(rate)
        for stale in (self.kubeconfig, self.log):
            if os.path.exists(stale):
                os.remove(stale)
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "tests", "sandbox"))
        self.proc = subprocess.Popen(
            [PY, "-m", "sandboxctl.kubeproxy", "--port", str(self.port), "--seed", str(seed), "--rate", str(rate),
             "--rate-file", self.rate_file, "--log", self.log, "--kubeconfig-out", self.kubeconfig],
            env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(workdir, "kubeproxy.err"), "w"))
        deadline = time.monotonic() + 60
        while not os.path.exists(self.kubeconfig):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("kubeproxy did not start: " + open(os.path.join(workdir, "kubeproxy.err")).read())
            time.sleep(0.2)

    def set_rate(self, rate):
        with open(self.rate_file, "w") as f:
            f.write(str(rate))

    def entries(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def finalizer_writes(entries):
    """PATCH/PUT bodies of ours that touch metadata.finalizers (a removal or a whole-list rewrite)."""
    out = []
    for e in entries:
        body = e.get("body") or ""
        if e.get("method") in ("PATCH", "PUT") and any(m in body for m in FINALIZER_MARKERS):
            out.append({"method": e["method"], "path": e["path"], "body": body[:500]})
    return out


def playbook(name, extra, env, log_path, timeout):
    cmd = [os.path.join(REPO, ".venv", "bin", "ansible-playbook"), os.path.join(REPO, "playbooks", name),
           "-e", json.dumps(extra)]
    with open(log_path, "w") as log:
        try:
            return subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return "timeout"


def case_releases(run, rng, workdir, rate):
    name = f"cr{run['seed']}-{run['tag']}"
    ns = f"chaos-{name}"
    seeded = seed_scenario("releases", "--name", name, "--namespace", ns, "--count", "2", "--knob", "hooks=false")
    releases = seeded["releases"]
    proxy = KubeProxy(workdir, run["seed"], rate)
    violations, details = [], {}
    try:
        env = dict(os.environ, KUBECONFIG=proxy.kubeconfig, K8S_AUTH_KUBECONFIG=proxy.kubeconfig)
        extra = {"release_namespace": ns, "release_names": releases, "timeout": 45}
        rc1 = playbook("prune_releases.yml", dict(extra, report_dir=os.path.join(workdir, "faulty")), env,
                       os.path.join(workdir, "faulty.log"), 600)
        faulty_entries = proxy.entries()
        run["faults"] = sum(1 for e in faulty_entries if e.get("fault"))
        run["fault_kinds"] = sorted({e["fault"] for e in faulty_entries if e.get("fault")})
        run["requests"] = len(faulty_entries)
        run["faulty_rc"] = rc1
        # what the faulty run reported absent, asked again now (direct, no proxy)
        from kubernetes import client, config, dynamic
        dyn = dynamic.DynamicClient(config.new_client_from_config(os.environ["KUBECONFIG"]))
        rel_api = dyn.resources.get(api_version="core.convoy.kumodo.io/v1alpha1", kind="Release")
        inv_api = dyn.resources.get(api_version="core.convoy.kumodo.io/v1alpha1", kind="ReleaseInventory")
        report_path = os.path.join(workdir, "faulty", "release_prune-report.json")
        claims = []
        if os.path.exists(report_path):
            with open(report_path) as f:
                report = json.load(f)
            ver = report.get("verification") or {}
            details["faulty_outcome"] = report.get("outcome")
            for kind, api in (("releases", rel_api), ("inventories", inv_api)):
                for item in ver.get(kind) or []:
                    if item.get("state") == "absent":
                        claims.append((kind, item["name"], api))
        run["absent_claims"] = len(claims)
        for kind, nm, api in claims:
            try:
                obj = api.get(name=nm, namespace=ns)
                violations.append({"invariant": "absent", "what": f"{kind[:-1]} {ns}/{nm} reported absent by the "
                                   f"faulty run, found by a later query (uid {obj.metadata.uid})"})
            except client.exceptions.ApiException as e:
                if e.status != 404:
                    raise
        proxy.set_rate(0)
        mark = len(proxy.entries())
        rc2 = playbook("prune_releases.yml", dict(extra, report_dir=os.path.join(workdir, "rerun")), env,
                       os.path.join(workdir, "rerun.log"), 600)
        run["rerun_rc"] = rc2
        rerun_path = os.path.join(workdir, "rerun", "release_prune-report.json")
        outcome = json.load(open(rerun_path)).get("outcome") if os.path.exists(rerun_path) else None
        run["rerun_outcome"] = outcome
        if rc2 != 0 or outcome != "done":
            violations.append({"invariant": "verified", "what": f"fault-free re-run: rc={rc2} outcome={outcome}"})
        for nm in releases:
            try:
                rel_api.get(name=nm, namespace=ns)
                violations.append({"invariant": "verified", "what": f"Release {ns}/{nm} still present after the re-run"})
            except client.exceptions.ApiException as e:
                if e.status != 404:
                    raise
        for w in finalizer_writes(proxy.entries()):
            violations.append({"invariant": "finalizer", "what": f"{w['method']} {w['path']}: {w['body']}"})
        run["rerun_requests"] = len(proxy.entries()) - mark
    finally:
        proxy.stop()
    run["details"] = details
    return violations


AWS_FAULTS = ("throttle", "internal", "drop")


def case_aws(run, rng, workdir, rate):
    name = f"ca{run['seed']}-{run['tag']}"
    seeded = seed_scenario("aws-infra", "--name", name, "--knob", "zones=1", "--knob", "workers=1",
                           "--knob", "nat_deleting_seconds=1", "--knob", "instance_shutting_down_seconds=1",
                           "--knob", "elb_eni_linger_seconds=1")
    manifest = seeded["aws"]
    ids = [(t, i) for t, lst in manifest.items() for i in lst]
    aws_control("DELETE", "realism/faults")
    rules = []
    for fault in rng.sample(AWS_FAULTS, rng.randint(1, 3)):
        rules.append(aws_control("POST", "realism/faults",
                                 {"service": "*", "action": "*", "fault": fault, "rate": round(rate / 2, 3)}))
    run["aws_rules"] = [{k: r.get(k) for k in ("fault", "rate")} for r in rules]
    mpath = os.path.join(workdir, "manifest.json")
    with open(mpath, "w") as f:
        json.dump(manifest, f)

    def cleanup(tag):
        return run_module("aws_infra_cleanup", {"manifest": mpath, "wait_timeout": 60}, workdir, tag)

    violations = []
    try:
        _, first = cleanup("faulty")
    finally:
        hits = aws_control("GET", "realism/faults").get("faults", [])
        aws_control("DELETE", "realism/faults")
    run["faults"] = sum(r.get("hits", 0) for r in hits)
    run["fault_kinds"] = sorted({r["fault"] for r in hits if r.get("hits")})
    run["faulty_verified"] = first.get("verified")
    run["faulty_api_errors"] = first.get("api_errors")
    rc2, second = cleanup("rerun")
    run["rerun_verified"] = second.get("verified")
    by_id_1 = {r["id"]: r for r in first.get("resources") or []}
    by_id_2 = {r["id"]: r for r in second.get("resources") or []}
    for rid, r in by_id_1.items():
        if r.get("verified_state") in ("absent", "terminal") and by_id_2.get(rid, {}).get("outcome") == "deleted":
            violations.append({"invariant": "absent", "what": f"{r['type']} {rid}: the faulty run verified it "
                               f"{r['verified_state']}, the re-run found it and deleted it"})
    for t, i in ids:
        if i not in by_id_1:
            violations.append({"invariant": "tracked", "what": f"{t} {i} of the manifest is not in the faulty run's "
                               f"result (rc={first.get('rc', 'n/a')}, msg={str(first.get('msg'))[:300]})"})
        r = by_id_2.get(i)
        if r is None:
            violations.append({"invariant": "tracked", "what": f"{t} {i} of the manifest is not in the re-run's result"})
        elif r.get("outcome") not in ("deleted", "absent", "retained", "failed"):
            violations.append({"invariant": "tracked", "what": f"{t} {i}: outcome {r.get('outcome')}"})
    if not second.get("verified"):
        left = [f"{r['type']} {r['id']} {r.get('outcome')}/{r.get('verified_state')}"
                for r in by_id_2.values() if r.get("verified_state") not in ("absent", "terminal")]
        violations.append({"invariant": "verified", "what": f"fault-free re-run not verified (rc={rc2}): {left}"})
    run["manifest_ids"] = len(ids)
    return violations


HOLD = "chaos.teardown.gates/hold"


def run_module(name, module_args, workdir, tag, env=None):
    """A collection module run directly (its arguments in a JSON file, as ansible's runner hands them over)."""
    args = os.path.join(workdir, tag + ".args.json")
    with open(args, "w") as f:
        json.dump({"ANSIBLE_MODULE_ARGS": module_args}, f)
    env = dict(env or os.environ, PYTHONPATH=os.path.join(REPO, ".venv", "collections"))
    p = subprocess.run([PY, "-m", f"ansible_collections.teardown.gates.plugins.modules.{name}", args],
                       env=env, capture_output=True, text=True, timeout=600)
    with open(os.path.join(workdir, tag + ".log"), "w") as f:
        f.write(p.stdout + p.stderr)
    try:
        return p.returncode, json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return p.returncode, {}


def case_wait_gate(run, rng, workdir, rate):
    """ConfigMaps held by a finalizer, deleted; the owner lets some go; wait_gate (absent) under faults."""
    from kubernetes import client, config
    core = client.CoreV1Api(config.new_client_from_config(os.environ["KUBECONFIG"]))
    ns = f"chaos-wg{run['seed']}-{run['tag']}"
    label = f"chaos.teardown.gates/run={run['tag']}"
    core.create_namespace({"metadata": {"name": ns}})
    uids = {}
    for k in range(3):
        cm = core.create_namespaced_config_map(ns, {"metadata": {
            "name": f"held-{k}", "finalizers": [HOLD], "labels": {"chaos.teardown.gates/run": run["tag"]}}})
        uids[cm.metadata.name] = cm.metadata.uid
        core.delete_namespaced_config_map(cm.metadata.name, ns)

    def release(names):  # the owner's own path (test equipment, straight to the API server)
        for nm in names:
            try:
                core.patch_namespaced_config_map(nm, ns, [
                    {"op": "test", "path": "/metadata/finalizers/0", "value": HOLD},
                    {"op": "remove", "path": "/metadata/finalizers/0"}])
            except client.exceptions.ApiException as e:
                if e.status != 404:
                    raise
    names = sorted(uids)
    # some go before the wait, some while it watches (under faults), the rest only after it
    order = rng.sample(names, len(names))
    before, during = rng.randint(0, 2), rng.randint(0, 2)
    let_go, mid = order[:before], order[before:before + during]
    release(let_go)
    run["released_before"], run["released_during"] = len(let_go), len(mid)
    # a wait makes few requests (a list, a watch, a list): a higher rate, so that most runs see a fault
    proxy = KubeProxy(workdir, run["seed"], min(1.0, rate * 4))
    violations = []
    try:
        env = dict(os.environ, KUBECONFIG=proxy.kubeconfig, K8S_AUTH_KUBECONFIG=proxy.kubeconfig)
        gate = {"gates": [{"name": "held configmaps gone", "resources": [
            {"api_version": "v1", "kind": "ConfigMap", "namespace": ns, "label_selector": label}]}], "timeout": 8}
        timer = threading.Timer(rng.uniform(1.0, 4.0), release, [mid])
        timer.start()
        try:
            _, first = run_module("wait_gate", gate, workdir, "faulty", env)
        finally:
            timer.join()
        entries = proxy.entries()
        run["faults"] = sum(1 for e in entries if e.get("fault"))
        run["fault_kinds"] = sorted({e["fault"] for e in entries if e.get("fault")})
        g = (first.get("gates") or [{}])[0]
        run["faulty_state"] = g.get("state")
        if g.get("state") == "passed":
            for nm, uid in uids.items():
                try:
                    found = core.read_namespaced_config_map(nm, ns)
                    if found.metadata.uid == uid:
                        violations.append({"invariant": "absent", "what": f"ConfigMap {ns}/{nm} ({uid}): gate "
                                           "passed (absent) under faults, found by a later query"})
                except client.exceptions.ApiException as e:
                    if e.status != 404:
                        raise
        elif g.get("state") is None:
            violations.append({"invariant": "absent", "what": f"wait_gate returned no gate state: "
                               f"{str(first.get('msg'))[:300]}"})
        release([nm for nm in names if nm not in let_go])
        proxy.set_rate(0)
        _, second = run_module("wait_gate", dict(gate, timeout=60), workdir, "rerun", env)
        g2 = (second.get("gates") or [{}])[0]
        run["rerun_state"] = g2.get("state")
        if g2.get("state") != "passed":
            violations.append({"invariant": "verified", "what": f"fault-free re-run: gate {g2.get('state')}: "
                               f"{str(second.get('msg'))[:300]}"})
        for w in finalizer_writes(proxy.entries()):
            violations.append({"invariant": "finalizer", "what": f"{w['method']} {w['path']}: {w['body']}"})
    finally:
        proxy.stop()
        try:
            core.delete_namespace(ns)
        except client.exceptions.ApiException:
            pass
    return violations


CASES = {"releases": case_releases, "aws-infra": case_aws, "wait-gate": case_wait_gate}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--rate", type=float, default=0.15, help="fault probability per Kubernetes request (AWS: half)")
    ap.add_argument("--cases", default="wait-gate,aws-infra,releases")
    ap.add_argument("--results", default=os.path.join(HERE, "results", "latest.json"))
    ap.add_argument("--workdir", default=os.environ.get("CHAOS_WORKDIR", "/tmp/teardown-gates-chaos"))
    args = ap.parse_args(argv)
    for var in ("KUBECONFIG", "SANDBOX_AWS_CONTROL"):
        if not os.environ.get(var):
            print(f"chaos: {var} is not set: eval \"$(tests/sandbox/sandbox env)\" first", file=sys.stderr)
            return 2
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        print(f"chaos: --cases: unknown {unknown}; known: {sorted(CASES)}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    runs = []
    for i in range(args.runs):
        seed = args.seed + i
        case = cases[i % len(cases)]
        workdir = os.path.join(args.workdir, f"{seed}-{case}")
        os.makedirs(workdir, exist_ok=True)
        # names carry a tag of their own (not from the seed) so that a seed can be replayed on the same sandbox
        run = {"index": i, "seed": seed, "case": case, "started": now(), "faults": 0, "tag": os.urandom(2).hex()}
        s = time.monotonic()
        try:
            run["violations"] = CASES[case](run, random.Random(seed), workdir, args.rate)
        except Exception as e:  # noqa: BLE001 - a harness failure is reported, never passed
            run["violations"] = []
            run["harness_error"] = f"{type(e).__name__}: {e}"
        run["seconds"] = round(time.monotonic() - s, 1)
        runs.append(run)
        print(f"chaos run {i + 1}/{args.runs} seed={seed} case={case} faults={run['faults']} "
              f"violations={len(run['violations'])}{' harness_error' if 'harness_error' in run else ''} "
              f"({run['seconds']} s)", file=sys.stderr, flush=True)
    faults = sum(r["faults"] for r in runs)
    violations = sum(len(r["violations"]) for r in runs)
    errors = sum(1 for r in runs if "harness_error" in r)
    summary = {"runs": len(runs), "faults": faults, "violations": violations, "harness_errors": errors,
               "seed": args.seed, "rate": args.rate, "cases": cases, "seconds": round(time.monotonic() - t0, 1),
               "finished": now(), "details": runs}
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    with open(args.results, "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
    print(f"chaos: runs={len(runs)} faults={faults} violations={violations}"
          + (f" harness_errors={errors}" if errors else ""))
    return 1 if violations or errors else 0


if __name__ == "__main__":
    sys.exit(main())
