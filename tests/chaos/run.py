#!/usr/bin/env python3
"""Fault campaigns against the sandbox: `tests/chaos/run.py --runs N --seed S [--jobs J]`.

Needs a running sandbox and its environment (eval "$(tests/sandbox/sandbox env)").
Each run i takes the seed S+i (S: 42000 unless given) and a case (round-robin over --cases; a case may be listed more than once
to weigh it). The concurrent case's playbook comes from the campaign, not from the run's seed: the k-th
concurrent run of a campaign of seed S takes PLAYBOOKS[(S + k) % 5] (plan()), so any five of them in a row run
all five playbooks; `concurrent:<playbook>` in --cases pins one (a replay: the per-run line prints it so).
Runs go through a pool of J workers (--jobs, CHAOS_JOBS), each run on its own names, namespaces and infra
IDs, its own fault proxy (port CHAOS_PROXY_PORT or SANDBOX_PORT_BASE+600, plus the worker's slot) and its
own AWS access key ID, to which its AWS fault rules are scoped (the realism layer draws a rule's hits from a
generator seeded with the run's seed, so a run's fault stream replays from its seed whatever runs beside it).
Cases that fault the whole sandbox (apiserver-restart) run alone, before the pool starts.

  wait-gate  three ConfigMaps held by a finalizer and deleted; the "owner" lets 0..2 of them go before,
             0..2 while the wait_gate module (run directly, no ansible-playbook start) waits for them
             absent through the proxy, and the rest after it
  apiserver-restart
             the wait-gate job, with kube-apiserver killed (SIGKILL) and started again (`sandbox restart
             apiserver`, same flags and ports, /readyz) at a random point of the wait; alone on the sandbox
  aws-infra  `seed aws-infra` (one zone, one worker), then the aws_infra_cleanup module (run directly)
             with AWS fault rules (throttle / internal 5xx / drop, chosen from the seed) on the run's key
  releases   `seed releases` (2 Releases, no hooks), then playbooks/prune_releases.yml through the
             fault-injecting proxy (sandboxctl/kubeproxy.py: 500/503/429 Status answers, dropped
             connections, answers dropped after the request took effect, watches cut mid-way)
  twin-crash the releases job, with the convoy twin (the controller that removes the Release finalizer)
             killed at a random point and started again 0.5..3 s later (`sandbox restart twin-convoy`)
  cfn-refusals
             `seed cfn-refusals` (classes bucket and iam), then playbooks/clear_cfn_refusals.yml with AWS
             faults on the run's key and a random part of the clears the stacks need
  hosted-cluster
             `seed hosted-cluster` (one NodePool of one replica, one zone), then
             playbooks/destroy_hosted_cluster.yml through the proxy, with AWS faults on the run's key
             and one owner killed and restarted at a random point: the hypershift twin, or the real
             CAPI or CAPA manager (`sandbox restart capi-manager|capa-manager`)
  take-over  the hosted-cluster job on a cluster whose hypershift-operator (HO and the NodePool
             controller) is down from the start, with take_over_cleanup (take_over_after 10 s): the run
             takes over the operator's part; the finalizer invariant also allows the operator's finalizers
             (hypershift.openshift.io/finalizer, hypershift.io/aws-oidc-discovery), and only where one of the
             two reports lists that removal with its evidence of absence
  take-over-hcp
             the take-over job on a cluster whose CPO and HCCO are down from the start, with the cleanup
             annotation (HO and the NodePool controller run): the take-over reads them gone at the
             HostedControlPlane, deletes the guest's cloud resources by ID and releases CPO's finalizer on that
             verification; the seed's guest resources are tracked too

Then the faults stop and the same job runs again (through the proxy at rate 0, so that every request
of both runs is logged), and the invariants are checked:

  finalizer   no PATCH/PUT of ours removes or rewrites a finalizer except by a documented path: the
              only one is destroy_hosted_cluster's removal of its own CLI finalizer
              openshift.io/destroy-cluster, by a JSON patch with a `test` of that very value (the twins
              remove theirs, straight to the API server, not through the proxy); adding one is allowed
  absent      nothing the faulty run reported absent is found by a later successful query
              (releases: the report's verification, queried directly by name; aws-infra: a resource the
              faulty run verified absent that the fault-free re-run had to delete; wait-gate: a gate
              passed while a held ConfigMap of the same UID is still there; cfn-refusals: a stack
              reported DELETE_COMPLETE/NOT_FOUND that describe_stacks finds in another status;
              hosted-cluster: the faulty report's AWS levels verified absent, found by the re-run)
  tracked     every ID of the seed's manifest is in the faulty run's result and in the re-run's, deleted,
              absent (or terminal) or reported by ID (aws-infra; hosted-cluster: the re-run's report, or gone
              by a direct lookup by ID: its owner, a real controller, may end it before the run looks);
              cfn-refusals: a stack left in DELETE_FAILED names each seeded refusal by physical ID
  verified    the fault-free re-run succeeds and a direct query agrees (Releases absent, aws_infra_cleanup
              verified, stacks DELETE_COMPLETE, the HostedCluster gone and its report verified)

  aws-silent aws_infra_cleanup with AWS_ENDPOINT_URL on a server that accepts and never answers
             (tests/sandbox/tests/silent_server.py), then the fault-free re-run against the sandbox
  api-silent wait_gate with a kubeconfig on such a server
  (both silent cases are in the default mix, as are playbook-silent and concurrent below)
  playbook-silent
             one (playbook, endpoint) pair per run, PAIRS[seed % len(PAIRS)]: each playbook against each
             endpoint it talks to (API server or AWS) on such a server, the rest the sandbox; ends failed
             within 3 x its first request's bound + 20 s, names the endpoint, reports nothing absent, leaves
             the seeded target untouched; a fault-free re-run removes it (tests/chaos/case_silent_playbooks.py)
  concurrent two ansible-playbook runs of one playbook (the campaign's rotation picks which of the five,
             see above) on one seeded target, started together, through the proxy at rate 0, no AWS fault
             (tests/chaos/case_concurrent.py); invariants: verified (both rc 0, both reports done/verified,
             a direct query agrees), report-true (no item claimed as done by both reports; every item of the
             seed's manifest named in one of them), finalizer. In the default mix four times in 50 runs, so
             a campaign of 55 runs or more (the 150 of the default: 12 concurrent runs) runs every playbook
             concurrently; the summary's concurrent_playbooks counts them by playbook

  bound       a run against a silent endpoint ends within 3 x the bound its module documents

The pool's runs share one account-wide EC2 budget (--budget-scale, CHAOS_BUDGET_SCALE, default 0.01: token
buckets per action of a hundredth of AWS's, so a read's bucket holds 1 token and refills 0.2 a second, spec
AWS-22): a run's key draws on it while its AWS faults apply, so concurrent runs throttle one another as the
teardowns of a fleet in one account do. (At 0.05, three concurrent aws-infra runs met it not once: the
buckets are per action; at 0.02 they met it 32 times, but the 150 runs of the default campaign, whose AWS
runs seldom overlap, not once in their first 60.)

Faults are counted per kind (`faults_by_kind`: the proxy's status-500/503/429 (429 and 503 with
Retry-After, as API Priority and Fairness answers), drop, drop-answer, cut-watch, slow (an answer held
1..4 s); the AWS layer's aws-throttle, aws-internal, aws-drop, aws-budget (the shared budget's
RequestLimitExceeded); apiserver-restart; twin-crash; aws-silent, api-silent).
Prints `chaos: concurrent playbooks: NAME=n ...` (the concurrent runs carried out, by playbook), then
`chaos: runs=N faults=F violations=V`, and writes tests/chaos/results/latest.json.
Exit status 1 when V > 0 or a run could not be carried out (an error of the harness is counted apart,
never as a pass).
"""
import argparse
import collections
import concurrent.futures
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SANDBOX = os.path.join(REPO, "tests", "sandbox", "sandbox")
PY = os.path.join(REPO, ".venv", "bin", "python")
FINALIZER_MARKERS = ("/metadata/finalizers", '"finalizers"')
CLI_FINALIZER = "openshift.io/destroy-cluster"
# cases that fault the whole sandbox: run one at a time, before the pool
EXCLUSIVE = {"apiserver-restart"}


class SeedsApartFromRestarts:
    """Seeds run together; a crash-and-restart runs alone, after the seeds under way and before new ones.

    A seed is the harness setting a run up, not a run under test: seed 13000's run 13027 failed as a harness
    error when its HostedCluster seed POSTed Machines while another run had CAPI's manager (their webhook)
    down. A restart waiting keeps new seeds back, so that it cannot wait forever behind overlapping ones.
    """

    def __init__(self):
        self._cond = threading.Condition()
        self._seeds = 0
        self._restarts_waiting = 0
        self._restarting = False

    @contextlib.contextmanager
    def seed(self):
        with self._cond:
            self._cond.wait_for(lambda: not self._restarting and not self._restarts_waiting)
            self._seeds += 1
        try:
            yield
        finally:
            with self._cond:
                self._seeds -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def restart(self):
        with self._cond:
            self._restarts_waiting += 1
            self._cond.wait_for(lambda: not self._restarting and not self._seeds)
            self._restarts_waiting -= 1
            self._restarting = True
        try:
            yield
        finally:
            with self._cond:
                self._restarting = False
                self._cond.notify_all()


_seeds_and_restarts = SeedsApartFromRestarts()


def port_base():
    """The sandbox's SANDBOX_PORT_BASE, read from its kubeconfig (API server on base+443), not guessed."""
    try:
        with open(os.environ["KUBECONFIG"]) as f:
            server = json.load(f)["clusters"][0]["cluster"]["server"]
        return int(server.rsplit(":", 1)[1]) - 443
    except (OSError, ValueError, KeyError, IndexError):
        return int(os.environ.get("SANDBOX_PORT_BASE", "21000"))


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def seed_scenario(*args):
    with _seeds_and_restarts.seed():
        p = subprocess.run([SANDBOX, "seed", *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"seed {args}: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def restart(component, down_seconds=0.0):
    """`sandbox restart COMPONENT` (SIGKILL, start again with the same flags); one restart at a time."""
    with _seeds_and_restarts.restart():
        p = subprocess.run([SANDBOX, "restart", component, "--down-seconds", str(down_seconds)],
                           env=dict(os.environ, SANDBOX_PORT_BASE=str(port_base())),
                           capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"sandbox restart {component}: {p.stderr[-800:]}")


def aws_control(method, path, body=None):
    req = urllib.request.Request(os.environ["SANDBOX_AWS_CONTROL"].rstrip("/") + "/" + path, method=method,
                                 data=json.dumps(body or {}).encode() if method != "GET" else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


AWS_FAULTS = ("throttle", "internal", "drop")


class AwsFaults:
    """AWS fault rules scoped to one run's access key ID, each drawn from a generator seeded by the run; while
    they apply, the key is also a member of the campaign's EC2 budget (spec AWS-22), when one is set."""

    def __init__(self, key_id):
        self.key_id = key_id
        self._budget_hits = 0

    def start(self, rng, rate, seed):
        self.stop()
        rules = []
        for n, fault in enumerate(rng.sample(AWS_FAULTS, rng.randint(1, 3))):
            rules.append(aws_control("POST", "realism/faults", {
                "service": "*", "action": "*", "fault": fault, "rate": round(rate, 3),
                "key_id": self.key_id, "seed": seed * 10 + n}))
        self._budget_hits = self._budget_count()
        self._budget("add")
        return [{k: r.get(k) for k in ("fault", "rate", "seed")} for r in rules]

    def _budget(self, change):
        try:
            aws_control("POST", "realism/budget/members", {change: [self.key_id]})
        except urllib.error.HTTPError:
            pass  # no budget set for this campaign

    def _budget_count(self):
        budget = aws_control("GET", "realism/budget").get("budget") or {}
        return (budget.get("hits") or {}).get(self.key_id, 0)

    def hits(self):
        rules = [r for r in aws_control("GET", "realism/faults").get("faults", []) if r.get("key_id") == self.key_id]
        return rules + [{"fault": "budget", "hits": self._budget_count() - self._budget_hits}]

    def stop(self):
        aws_control("DELETE", "realism/faults", {"key_id": self.key_id})
        self._budget("remove")


class KubeProxy:
    """sandboxctl.kubeproxy as a child process; rate switched through a file."""

    def __init__(self, workdir, seed, rate, port=None):
        self.port = port or int(os.environ.get("CHAOS_PROXY_PORT", port_base() + 600))
        self.log = os.path.join(workdir, "kubeproxy.jsonl")
        self.kubeconfig = os.path.join(workdir, "kubeconfig-proxy")
        self.rate_file = os.path.join(workdir, "rate")
        self.set_rate(rate)
        for stale in (self.kubeconfig, self.log):
            if os.path.exists(stale):
                os.remove(stale)
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "tests", "sandbox"))
        self.proc = subprocess.Popen(
            [PY, "-m", "sandboxctl.kubeproxy", "--port", str(self.port), "--upstream-port", str(port_base() + 443),
             "--seed", str(seed), "--rate", str(rate),
             "--rate-file", self.rate_file, "--log", self.log, "--kubeconfig-out", self.kubeconfig],
            env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(workdir, "kubeproxy.err"), "w"))
        deadline = time.monotonic() + 60
        while not os.path.exists(self.kubeconfig):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
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

    def answers(self):
        """The API server's HTTP status of each write that reached it, by request id (kubeproxy's LOG.answers)."""
        path = self.log + ".answers"
        if not os.path.exists(path):
            return {}
        with open(path) as f:
            return dict((a["id"], a["status"]) for a in (json.loads(line) for line in f if line.strip()))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def _patch_violations(ops, allowed_removals):
    """The finalizer ops of one JSON patch that no documented path explains."""
    bad = []
    tested = {}
    for op in ops:
        if not isinstance(op, dict):
            return ["not a JSON patch op: " + json.dumps(op)[:200]]
        path = str(op.get("path", ""))
        if op.get("op") == "test":
            tested[path] = op.get("value")
            continue
        if not path.startswith("/metadata/finalizers") and not str(op.get("from", "")).startswith("/metadata/finalizers"):
            continue
        if op.get("op") == "add":
            continue  # a finalizer added (the CLI finalizer before the deletion): nothing is released
        if op.get("op") == "remove" and tested.get(path) in allowed_removals:
            continue
        bad.append(json.dumps(op))
    return bad


def finalizer_writes(entries, allowed_removals=()):
    """PATCH/PUT bodies of ours that remove or rewrite metadata.finalizers, other than a documented removal.

    A JSON patch may add a finalizer, and may remove one of `allowed_removals` at an index whose value
    it tests first; any other op on the list, and any merge patch or PUT that carries a finalizer list,
    is reported.
    """
    out = []
    for e in entries:
        body = e.get("body") or ""
        if e.get("method") not in ("PATCH", "PUT") or not any(m in body for m in FINALIZER_MARKERS):
            continue
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if isinstance(doc, list) and not _patch_violations(doc, set(allowed_removals)):
            continue
        out.append({"method": e["method"], "path": e["path"], "body": body[:500]})
    return out


def count_proxy_faults(run, entries):
    kinds = collections.Counter(e["fault"] for e in entries if e.get("fault"))
    for k, n in kinds.items():
        run["faults_by_kind"][k] = run["faults_by_kind"].get(k, 0) + n


def count_aws_faults(run, hits):
    for r in hits:
        if r.get("hits"):
            k = "aws-" + r["fault"]
            run["faults_by_kind"][k] = run["faults_by_kind"].get(k, 0) + r["hits"]


def add_fault(run, kind, n=1):
    run["faults_by_kind"][kind] = run["faults_by_kind"].get(kind, 0) + n


def playbook(name, extra, env, log_path, timeout, json_out=False):
    cmd = [os.path.join(REPO, ".venv", "bin", "ansible-playbook"), os.path.join(REPO, "playbooks", name),
           "-e", json.dumps(extra)]
    if json_out:
        env = dict(env, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_SHOW_CUSTOM_STATS="true")
    with open(log_path, "w") as log:
        try:
            return subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return "timeout"


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


def at_random_point(rng, lo, hi, fn, *args):
    """fn(*args) on a timer started now, lo..hi seconds from now (from the run's generator)."""
    timer = threading.Timer(rng.uniform(lo, hi), fn, args)
    timer.daemon = True
    timer.start()
    return timer


def case_releases(run, rng, ctx, crash_twin=False):
    workdir, rate = ctx.workdir, ctx.rate
    name = f"cr{run['seed']}-{run['tag']}"
    ns = f"chaos-{name}"
    seeded = seed_scenario("releases", "--name", name, "--namespace", ns, "--count", "2", "--knob", "hooks=false")
    releases = seeded["releases"]
    proxy = KubeProxy(workdir, run["seed"], rate, ctx.port)
    violations, details = [], {}
    try:
        env = dict(ctx.env, KUBECONFIG=proxy.kubeconfig, K8S_AUTH_KUBECONFIG=proxy.kubeconfig)
        extra = {"release_namespace": ns, "release_names": releases, "timeout": 45}
        crash = None
        if crash_twin:
            crash = at_random_point(rng, 2.0, 15.0, ctx.crash, run, "twin-convoy", rng.uniform(0.5, 3.0))
        rc1 = playbook("prune_releases.yml", dict(extra, report_dir=os.path.join(workdir, "faulty")), env,
                       os.path.join(workdir, "faulty.log"), 600)
        if crash is not None:
            crash.join()
        faulty_entries = proxy.entries()
        count_proxy_faults(run, faulty_entries)
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


def case_twin_crash(run, rng, ctx):
    return case_releases(run, rng, ctx, crash_twin=True)


def case_aws(run, rng, ctx):
    workdir = ctx.workdir
    name = f"ca{run['seed']}-{run['tag']}"
    seeded = seed_scenario("aws-infra", "--name", name, "--knob", "zones=1", "--knob", "workers=1",
                           "--knob", "nat_deleting_seconds=1", "--knob", "instance_shutting_down_seconds=1",
                           "--knob", "elb_eni_linger_seconds=1")
    manifest = seeded["aws"]
    ids = [(t, i) for t, lst in manifest.items() for i in lst]
    run["aws_rules"] = ctx.aws.start(rng, ctx.rate / 2, run["seed"])
    mpath = os.path.join(workdir, "manifest.json")
    with open(mpath, "w") as f:
        json.dump(manifest, f)

    def cleanup(tag):
        return run_module("aws_infra_cleanup", {"manifest": mpath, "wait_timeout": 60}, workdir, tag, ctx.env)

    violations = []
    try:
        _, first = cleanup("faulty")
    finally:
        hits = ctx.aws.hits()
        ctx.aws.stop()
    count_aws_faults(run, hits)
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


def case_wait_gate(run, rng, ctx, restart_apiserver=False):
    """ConfigMaps held by a finalizer, deleted; the owner lets some go; wait_gate (absent) under faults."""
    from kubernetes import client, config
    workdir, rate = ctx.workdir, ctx.rate
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
            for attempt in range(30):  # the API server may be restarting
                try:
                    core.patch_namespaced_config_map(nm, ns, [
                        {"op": "test", "path": "/metadata/finalizers/0", "value": HOLD},
                        {"op": "remove", "path": "/metadata/finalizers/0"}])
                    break
                except client.exceptions.ApiException as e:
                    if e.status == 404:
                        break
                    if e.status < 500 or attempt == 29:
                        raise
                except Exception:  # noqa: BLE001 - connection refused while kube-apiserver restarts
                    if attempt == 29:
                        raise
                time.sleep(1)
    names = sorted(uids)
    # some go before the wait, some while it watches (under faults), the rest only after it
    order = rng.sample(names, len(names))
    before, during = rng.randint(0, 2), rng.randint(0, 2)
    let_go, mid = order[:before], order[before:before + during]
    release(let_go)
    run["released_before"], run["released_during"] = len(let_go), len(mid)
    # a wait makes few requests (a list, a watch, a list): a higher rate, so that most runs see a fault
    proxy = KubeProxy(workdir, run["seed"], min(1.0, rate * (2 if restart_apiserver else 4)), ctx.port)
    violations = []
    try:
        env = dict(ctx.env, KUBECONFIG=proxy.kubeconfig, K8S_AUTH_KUBECONFIG=proxy.kubeconfig)
        gate = {"gates": [{"name": "held configmaps gone", "resources": [
            {"api_version": "v1", "kind": "ConfigMap", "namespace": ns, "label_selector": label}]}],
            "timeout": 20 if restart_apiserver else 8}
        timers = [at_random_point(rng, 1.0, 4.0, release, mid)]
        if restart_apiserver:
            timers.append(at_random_point(rng, 0.5, 6.0, ctx.crash, run, "apiserver", 0.0))
        try:
            _, first = run_module("wait_gate", gate, workdir, "faulty", env)
        finally:
            for t in timers:
                t.join()
        entries = proxy.entries()
        count_proxy_faults(run, entries)
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


def case_apiserver_restart(run, rng, ctx):
    return case_wait_gate(run, rng, ctx, restart_apiserver=True)


def _json_play(log_path):
    """The ansible.posix.json callback's document (the log may carry warnings before it)."""
    try:
        text = open(log_path).read()
        return json.loads(text[text.index("{"):])
    except (OSError, ValueError):
        return {}


def case_cfn(run, rng, ctx):
    """clear_cfn_refusals on two refusing stacks (a non-empty bucket, a role held from outside), AWS faults."""
    import boto3
    workdir = ctx.workdir
    name = f"cc{run['seed']}-{run['tag']}"
    seeded = seed_scenario("cfn-refusals", "--name", name, "--knob", "classes=bucket,iam")
    stacks = seeded["stacks"]
    arns = [s["arn"] for s in stacks.values()]
    needed = {"bucket": "empty_buckets", "iam": "detach_iam"}
    # under faults, only part of what the stacks need may be cleared: the rest must be reported by ID
    allowed = sorted(c for c in needed.values() if rng.random() < 0.6)
    run["faulty_clear"] = allowed
    extra = {"cfn_stacks": arns, "cfn_wait_timeout": 120, "cfn_poll_interval": 0.5}
    run["aws_rules"] = ctx.aws.start(rng, ctx.rate / 2, run["seed"])
    try:
        rc1 = playbook("clear_cfn_refusals.yml", dict(extra, cfn_clear=allowed), ctx.env,
                       os.path.join(workdir, "faulty.log"), 600, json_out=True)
    finally:
        hits = ctx.aws.hits()
        ctx.aws.stop()
    count_aws_faults(run, hits)
    run["faulty_rc"] = rc1
    violations = []
    cfn = boto3.client("cloudformation")  # the sandbox's own key: no fault rule applies to it

    def status_of(arn):
        return cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"]

    first = (_json_play(os.path.join(workdir, "faulty.log")).get("global_custom_stats") or {}).get("cfn_refusals") or []
    run["faulty_statuses"] = {r.get("stack"): r.get("status") for r in first}
    by_arn = {r.get("stack_id"): r for r in first}
    for cls, st in stacks.items():
        r = by_arn.get(st["arn"])
        if r is None:
            continue  # the faulty run stopped before this stack (its summary does not claim anything)
        actual = status_of(st["arn"])
        if r.get("status") in ("DELETE_COMPLETE", "NOT_FOUND") and actual != "DELETE_COMPLETE":
            violations.append({"invariant": "absent", "what": f"stack {st['name']} reported {r.get('status')}, "
                               f"describe_stacks finds it {actual}"})
        if r.get("status") == "DELETE_FAILED":
            named = {x.get("physical_id") for x in (r.get("refusals") or []) + (r.get("retained") or [])}
            for ref in st["refuses"]:
                if ref["physical_id"] not in named:
                    violations.append({"invariant": "tracked", "what": f"stack {st['name']} left DELETE_FAILED "
                                       f"without naming its refusal {ref['type']} {ref['physical_id']} "
                                       f"({ref['class']}): reported {sorted(x for x in named if x)}"})
    rc2 = playbook("clear_cfn_refusals.yml", dict(extra, cfn_clear=sorted(needed.values())), ctx.env,
                   os.path.join(workdir, "rerun.log"), 600, json_out=True)
    second = (_json_play(os.path.join(workdir, "rerun.log")).get("global_custom_stats") or {}).get("cfn_refusals") or []
    run["rerun_rc"] = rc2
    run["rerun_statuses"] = {r.get("stack"): r.get("status") for r in second}
    for cls, st in stacks.items():
        actual = status_of(st["arn"])
        if rc2 != 0 or actual != "DELETE_COMPLETE":
            violations.append({"invariant": "verified", "what": f"fault-free re-run (rc={rc2}): stack {st['name']} "
                               f"is {actual}"})
    return violations


def _report_ids(report):
    """Every AWS ID a destroy report names, in whatever list (deleted, absent, retained, remaining ...)."""
    out = {}

    def walk(x, where):
        if isinstance(x, dict):
            if isinstance(x.get("id"), str):
                out.setdefault(x["id"], where)
            for k, v in x.items():
                walk(v, k if where is None else where)
        elif isinstance(x, list):
            for v in x:
                walk(v, where)
    for key in ("aws", "iam", "retained", "remaining"):
        walk(report.get(key), None if key in ("aws", "iam") else key)
    return out


def case_hosted_cluster(run, rng, ctx, take_over=False, hcp=False):
    """destroy_hosted_cluster on a small hosted cluster, through the proxy, AWS faults, the HO twin crashing.

    ``take_over``: the hypershift-operator (HO and the NodePool controller) is down from the start and the runs
    pass take_over_cleanup; the finalizer invariant then also allows the operator's finalizers, but only where
    one of the two reports lists that removal with its evidence of absence. ``hcp``: with ``take_over``, CPO and HCCO
    are down instead (HO runs, but its own release of CPO's AWSEndpointService finalizer, HS-6, is 10 minutes off) and
    the cleanup annotation is on: the take-over does their part at the HostedControlPlane and at the
    AWSEndpointServices (HS-21: the VPC endpoints, groups and records their status names); the guest's resources and
    those endpoint IDs are tracked."""
    from kubernetes import client, config, dynamic
    workdir, rate = ctx.workdir, ctx.rate
    name = f"{'to' if take_over else 'hc'}{run['seed']}{run['tag']}"
    ns = f"chaos-{name}"
    down = ["--knob", "ho=down", "--knob", "nodepool=down"] if take_over else []
    if take_over and hcp:
        down = ["--knob", "cpo=down", "--knob", "hcco=down", "--knob", "cleanup_cloud_resources=true",
                "--knob", "endpoint_timeout=10m"]
    seeded = seed_scenario("hosted-cluster", "--name", name, "--namespace", ns, "--knob", "nodepools=1",
                           "--knob", "replicas=1", "--knob", "zones=1", "--knob", "nat_seconds=1",
                           "--knob", "grace_period=1s", "--knob", "requeue=1s", *down)
    tracked = dict(seeded["aws"])
    if hcp:  # the guest's resources and what CPO made for its AWSEndpointServices: the take-over deletes them by ID
        for t, lst in [*(seeded.get("guest_cloud") or {}).items(), *(seeded.get("endpoint_cloud") or {}).items()]:
            tracked[t] = list(tracked.get(t) or []) + list(lst)
    manifest_ids = {i for lst in tracked.values() for i in lst}
    hc_uid = seeded["uid"]
    # the playbook makes a few hundred requests and its Phase 1 reads stop the run at the first error: a
    # fifth of the rate lets most runs get past them into the gates and the AWS phase
    proxy = KubeProxy(workdir, run["seed"], rate / 5, ctx.port)
    violations = []
    try:
        env = dict(ctx.env, KUBECONFIG=proxy.kubeconfig, K8S_AUTH_KUBECONFIG=proxy.kubeconfig)
        extra = {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "cluster_grace_period": 120,
                 "aws_cleanup_timeout": 180}
        if take_over:
            extra.update(take_over_cleanup=True, take_over_after=10, cluster_grace_period=180)
        run["aws_rules"] = ctx.aws.start(rng, rate / 4, run["seed"])
        # one owner crashes: HyperShift's twin (its CPO and HCCO still run), or one of the real CAPI and CAPA managers
        victim = rng.choice(["twin-hypershift", "capi-manager", "capa-manager"])
        crash = at_random_point(rng, 3.0, 25.0, ctx.crash, run, victim, rng.uniform(0.5, 3.0))
        try:
            rc1 = playbook("destroy_hosted_cluster.yml", dict(extra, report_dir=os.path.join(workdir, "faulty")),
                           env, os.path.join(workdir, "faulty.log"), 900)
        finally:
            crash.join()
            hits = ctx.aws.hits()
            ctx.aws.stop()
        count_aws_faults(run, hits)
        count_proxy_faults(run, proxy.entries())
        run["faulty_rc"] = rc1
        report_name = f"{ns}-{name}.json"
        faulty_path = os.path.join(workdir, "faulty", report_name)
        first = json.load(open(faulty_path)) if os.path.exists(faulty_path) else {}
        run["faulty_verified"] = first.get("verified")
        proxy.set_rate(0)
        # the re-run resumes from the same report_dir (the baseline is there), as an operator's re-run does
        rc2 = playbook("destroy_hosted_cluster.yml", dict(extra, report_dir=os.path.join(workdir, "faulty")),
                       env, os.path.join(workdir, "rerun.log"), 900)
        run["rerun_rc"] = rc2
        second = json.load(open(faulty_path)) if os.path.exists(faulty_path) else {}
        run["rerun_verified"] = second.get("verified")
        claimed_gone = {x["id"] for k in ("absent", "deleted") for x in ((first.get("aws") or {}).get(k) or [])}
        redeleted = {x["id"] for x in ((second.get("aws") or {}).get("deleted") or [])}
        if first.get("milestones", {}).get("finished") != second.get("milestones", {}).get("finished"):
            for rid in sorted(claimed_gone & redeleted):
                violations.append({"invariant": "absent", "what": f"AWS {rid}: the faulty run reported it gone, "
                                   "the re-run found it and deleted it"})
        named = _report_ids(second)
        by_id = {i: t for t, lst in tracked.items() for i in lst}
        checks = _aws_checks()
        for rid in sorted(manifest_ids - set(named)):
            # its owner may have ended it before the run looked (a real MachineSet replaced a seeded Machine, and
            # CAPA terminated its instance): gone by a direct lookup is tracked, as in the interruption campaign
            state = checks.lookups(by_id[rid], rid)
            if state in ("absent", "terminal"):
                run.setdefault("gone_before_the_run", []).append(f"{by_id[rid]} {rid}: {state}")
                continue
            violations.append({"invariant": "tracked", "what": f"AWS {by_id[rid]} {rid} of the seed's manifest is "
                               f"not in the re-run's report, and a direct lookup finds it {state}"})
        dyn = dynamic.DynamicClient(config.new_client_from_config(os.environ["KUBECONFIG"]))
        hc_api = dyn.resources.get(api_version="hypershift.openshift.io/v1beta1", kind="HostedCluster")
        try:
            found = hc_api.get(name=name, namespace=ns)
            if found.metadata.uid == hc_uid:
                what = "still present after the re-run"
                if any(c.get("state") == "absent" for c in (first.get("verification") or {}).get("checks") or []
                       if c.get("what", "").startswith("HostedCluster")):
                    violations.append({"invariant": "absent", "what": f"HostedCluster {ns}/{name}: the faulty "
                                       "report verified it absent, found by a later query"})
                violations.append({"invariant": "verified", "what": f"HostedCluster {ns}/{name} {what}"})
        except client.exceptions.ApiException as e:
            if e.status != 404:
                raise
        if rc2 != 0 or not second.get("verified"):
            violations.append({"invariant": "verified", "what": f"fault-free re-run: rc={rc2} verified="
                               f"{second.get('verified')} remaining={str(second.get('remaining'))[:300]}"})
        allowed = {CLI_FINALIZER} | (set(TAKE_OVER_FINALIZERS) if take_over else set())
        for w in finalizer_writes(proxy.entries(), allowed_removals=allowed):
            violations.append({"invariant": "finalizer", "what": f"{w['method']} {w['path']}: {w['body']}"})
        if take_over:
            violations += unrecorded_take_overs(proxy.entries(), [first, second], proxy.answers())
            run["taken_over"] = sum(len(t.get("finalizers_removed") or []) for r in (first, second)
                                    for t in r.get("taken_over") or [])
    finally:
        proxy.stop()
    return violations


TAKE_OVER_FINALIZERS = ("hypershift.openshift.io/finalizer", "hypershift.io/aws-oidc-discovery",
                        "hypershift.openshift.io/control-plane-operator-finalizer",  # CPO's, on an AWSEndpointService
                        "hypershift.openshift.io/hypershift-operator-finalizer")  # HO's, on an AWSEndpointService (HS-31)


def unrecorded_take_overs(entries, reports, answers=None):
    """An operator finalizer removed through the proxy that no report lists as taken over, with evidence.

    Both runs' reports are read (the faulty run's may have been overwritten by the re-run's, which keeps the
    earlier one archived: a removal the faulty run made and recorded is then in neither; the check counts
    the removals a report lists against the removals sent, per object and finalizer). ``answers``: the API
    server's status by request id; a removal it refused (4xx, 5xx: a json-patch whose test failed because the
    owner removed its finalizer first, seed 42125) removed nothing; one without a known answer counts."""
    answers = answers or {}
    listed = {}
    for report in reports:
        for t in report.get("taken_over") or []:
            for r in t.get("finalizers_removed") or []:
                if not r.get("evidence"):
                    continue
                key = ((r.get("object") or {}).get("name"), r.get("finalizer"))
                listed[key] = listed.get(key, 0) + 1
    out = []
    for e in entries:
        body = e.get("body") or ""
        if e.get("method") != "PATCH" or not any(f in body for f in TAKE_OVER_FINALIZERS):
            continue
        try:
            ops = json.loads(body)
        except ValueError:
            continue
        tested = {op.get("path"): op.get("value") for op in ops if isinstance(op, dict) and op.get("op") == "test"}
        for op in ops:
            if isinstance(op, dict) and op.get("op") == "remove" and tested.get(op.get("path")) in TAKE_OVER_FINALIZERS:
                key = (e["path"].rstrip("/").split("?")[0].rsplit("/", 1)[-1], tested[op["path"]])
                # a request the proxy answered itself (a 5xx, a 429) or dropped unsent never reached the server;
                # one the server refused changed nothing
                applied = (e.get("fault") not in ("status-500", "status-503", "status-429", "drop")
                           and answers.get(e.get("id"), 200) < 400)
                if applied and listed.get(key, 0) <= 0:
                    out.append({"invariant": "finalizer", "what": f"PATCH {e['path']} removed {key[1]}, and no "
                                "report lists that removal with its evidence of absence"})
                if applied:
                    listed[key] = listed.get(key, 0) - 1
    return out


def case_take_over(run, rng, ctx):
    """destroy_hosted_cluster with take_over_cleanup on a hosted cluster whose hypershift-operator is down."""
    return case_hosted_cluster(run, rng, ctx, take_over=True)


def case_take_over_hcp(run, rng, ctx):
    """destroy_hosted_cluster with take_over_cleanup on a hosted cluster whose CPO and HCCO are down."""
    return case_hosted_cluster(run, rng, ctx, take_over=True, hcp=True)


def _aws_checks():
    """The plain-boto3 lookups by ID of the integration targets (interrupt.py loads the same file)."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import interrupt
    return interrupt._load_aws_checks()


def _silent_server():
    sys.path.insert(0, os.path.join(REPO, "tests", "sandbox", "tests"))
    from silent_server import SilentServer
    return SilentServer()


def _bounds():
    sys.path.insert(0, os.path.join(REPO, ".venv", "collections"))
    from ansible_collections.teardown.gates.plugins.module_utils.core import bounds
    return bounds


def case_aws_silent(run, rng, ctx):
    """aws_infra_cleanup with AWS_ENDPOINT_URL on a server that accepts and never answers, then against the sandbox.

    The faulty run must end within its stated bound, failed, with nothing absent (no read answered), and the
    fault-free re-run must delete and verify every ID."""
    workdir = ctx.workdir
    name = f"cs{run['seed']}-{run['tag']}"
    seeded = seed_scenario("aws-infra", "--name", name, "--knob", "zones=1", "--knob", "workers=1",
                           "--knob", "nat_deleting_seconds=1", "--knob", "instance_shutting_down_seconds=1",
                           "--knob", "elb_eni_linger_seconds=1")
    manifest = seeded["aws"]
    mpath = os.path.join(workdir, "manifest.json")
    with open(mpath, "w") as f:
        json.dump(manifest, f)
    bound = _bounds().aws_call_bound()
    violations = []
    with _silent_server() as server:
        started = time.monotonic()
        rc, first = run_module("aws_infra_cleanup", {"manifest": mpath, "wait_timeout": 60}, workdir, "faulty",
                               dict(ctx.env, AWS_ENDPOINT_URL="http://" + server.url))
        took = time.monotonic() - started
    add_fault(run, "aws-silent")
    run["faulty_seconds"] = round(took, 1)
    if took > 3 * bound:
        violations.append({"invariant": "bound", "what": f"aws_infra_cleanup against a silent endpoint took {took:.0f} s,"
                           f" past 3 x its bound of {bound:.0f} s"})
    if rc == 0 or first.get("verified"):
        violations.append({"invariant": "absent", "what": f"the run against a silent endpoint did not fail (rc={rc})"})
    for r in first.get("resources") or []:
        if r.get("outcome") in ("deleted", "absent") or r.get("verified_state") in ("absent", "terminal"):
            violations.append({"invariant": "absent", "what": f"{r['type']} {r['id']}: {r.get('outcome')}/"
                               f"{r.get('verified_state')} with no answer from AWS"})
    rc2, second = run_module("aws_infra_cleanup", {"manifest": mpath, "wait_timeout": 60}, workdir, "rerun", ctx.env)
    run["rerun_verified"] = second.get("verified")
    if not second.get("verified"):
        violations.append({"invariant": "verified", "what": f"fault-free re-run not verified (rc={rc2}): "
                           f"{str(second.get('msg'))[:300]}"})
    return violations


def case_api_silent(run, rng, ctx):
    """wait_gate with a kubeconfig on a server that accepts and never answers: failed, unknown, within its bound."""
    workdir = ctx.workdir
    rt = 2
    bound = _bounds().client_bound(rt) + 30
    gate = {"timeout": 30, "request_timeout": rt, "gates": [{"name": "g", "resources": [
        {"api_version": "v1", "kind": "ConfigMap", "namespace": "default", "name": "chaos-" + run["tag"]}]}]}
    violations = []
    with _silent_server() as server:
        kc = server.write_kubeconfig(os.path.join(workdir, "silent-kubeconfig"))
        started = time.monotonic()
        rc, first = run_module("wait_gate", gate, workdir, "faulty", dict(ctx.env, K8S_AUTH_KUBECONFIG=kc, KUBECONFIG=kc))
        took = time.monotonic() - started
    add_fault(run, "api-silent")
    run["faulty_seconds"] = round(took, 1)
    states = [g.get("state") for g in first.get("gates") or []]
    run["faulty_state"] = states
    if took > 3 * bound:
        violations.append({"invariant": "bound", "what": f"wait_gate against a silent API server took {took:.0f} s, "
                           f"past 3 x its bound of {bound:.0f} s"})
    if rc == 0 or states != ["unknown"]:
        violations.append({"invariant": "absent", "what": f"wait_gate against a silent API server: rc={rc}, gates "
                           f"{states}: {str(first.get('msg'))[:300]}"})
    return violations


def case_orphans(run, rng, ctx):
    """sweep_orphans under faults (tests/chaos/case_orphans.py); not in DEFAULT_CASES: `--cases orphans`."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import case_orphans as orphans_case
    return orphans_case.case(run, rng, ctx, sys.modules[__name__])


def _concurrent_case():
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import case_concurrent as concurrent_case
    return concurrent_case


def case_concurrent(run, rng, ctx):
    """Two runs of one playbook on one target at once (tests/chaos/case_concurrent.py); the playbook is the plan's."""
    return _concurrent_case().case(run, rng, ctx, sys.modules[__name__])


def case_playbook_silent(run, rng, ctx):
    """Every playbook against a silent endpoint (tests/chaos/case_silent_playbooks.py): `--cases playbook-silent`."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import case_silent_playbooks
    return case_silent_playbooks.case(run, rng, ctx, sys.modules[__name__])


CASES = {"wait-gate": case_wait_gate, "apiserver-restart": case_apiserver_restart, "aws-infra": case_aws,
         "releases": case_releases, "twin-crash": case_twin_crash, "cfn-refusals": case_cfn,
         "hosted-cluster": case_hosted_cluster, "aws-silent": case_aws_silent, "api-silent": case_api_silent,
         "orphans": case_orphans, "playbook-silent": case_playbook_silent,
         "concurrent": case_concurrent, "take-over": case_take_over, "take-over-hcp": case_take_over_hcp}
# 50 runs a cycle, weighed by cost (the figures are from before the #23 cases joined) (measured on the shared 2-core machine, 4 at a time, load 10-20: a wait-gate
# run ~25 s, aws-infra ~90 s, a prune_releases or clear_cfn_refusals run ~110-170 s, destroy_hosted_cluster
# ~350 s): per 100 runs 2 hosted-cluster, 4 each of cfn-refusals, releases and twin-crash, 8 apiserver-restart,
# 16 aws-infra, 62 wait-gate. Long runs first in each half, so that the pool does not end on one of them.
# Each half also holds the fault classes of #23 that need a case of their own: three playbooks against a
# silent endpoint, two pairs of concurrent runs, one module against a silent API server and one against a
# silent AWS endpoint (slow answers and the shared EC2 budget come with the proxy and the AWS cases), and one
# take-over (#20: the operator down, take_over_cleanup; about 120-180 s a run); the second half's hosted-cluster slot
# is take-over-hcp (#34: CPO and HCCO down, the guest's resources deleted by ID; about 150-250 s). The orphan sweep is not in the mix:
# it scans the whole region, where the other runs' infra IDs are orphans too. The four concurrent slots (runs 4, 14,
# 29 and 39 of the cycle) sit at one residue modulo 5, so their playbook is not the seed's: plan() rotates it
# over the five per campaign (150 runs: 12 concurrent runs, every playbook at least twice).
_HALF = ("{hc},cfn-refusals,playbook-silent,releases,concurrent,twin-crash,take-over,aws-infra,playbook-silent,"
         "wait-gate,apiserver-restart,api-silent,aws-infra,wait-gate,concurrent,wait-gate,aws-infra,aws-silent,"
         "wait-gate,apiserver-restart,playbook-silent,aws-infra,wait-gate,wait-gate,wait-gate")
DEFAULT_CASES = _HALF.format(hc="hosted-cluster") + "," + _HALF.format(hc="take-over-hcp")


def split_case(spec):
    """`case` or `concurrent:<playbook>` (with or without .yml) -> (case, pinned playbook file or None).

    Raises ValueError for an unknown case, a pin on another case or a playbook the concurrent case does not know."""
    case, _, pin = spec.partition(":")
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}; known: {sorted(CASES)}")
    if not pin:
        return case, None
    playbooks = _concurrent_case().PLAYBOOKS
    if case != "concurrent":
        raise ValueError(f"{spec!r}: only the concurrent case takes a playbook")
    if pin + ".yml" not in playbooks and pin not in playbooks:
        raise ValueError(f"{spec!r}: no such playbook; known: {[pb_name(p) for p in playbooks]}")
    return case, pin if pin in playbooks else pin + ".yml"


def pb_name(playbook):
    return playbook[:-len(".yml")] if playbook.endswith(".yml") else playbook


def plan(runs, seed, cases):
    """The campaign's runs: [(i, seed + i, case, playbook)], cases round-robin over `cases`.

    playbook is None but for the concurrent case. Its playbook is not the run's seed modulo 5: the mix's
    concurrent slots all sit at one residue (in the default mix every one fell on a seed of 4 modulo 5, so only
    sweep_orphans ever ran concurrently). The k-th unpinned concurrent run of the campaign takes
    PLAYBOOKS[(seed + k) % 5] instead: any five concurrent runs in a row cover all five playbooks, whatever
    the mix and the start seed. The campaign seed's offset keeps a one-run campaign on the old choice (seed
    4242's first concurrent run is clear_cfn_refusals, as test_chaos_short expects). A pinned
    `concurrent:<playbook>` runs that playbook and leaves the rotation where it was."""
    playbooks = _concurrent_case().PLAYBOOKS
    specs = [split_case(c) for c in cases]
    out, k = [], 0
    for i in range(runs):
        case, pinned = specs[i % len(specs)]
        playbook = pinned
        if case == "concurrent" and pinned is None:
            playbook = playbooks[(seed + k) % len(playbooks)]
            k += 1
        out.append((i, seed + i, case, playbook))
    return out


def concurrent_counts(runs):
    """{playbook: concurrent runs carried out} over the five playbooks (0 for one that did not run)."""
    counts = {pb_name(p): 0 for p in _concurrent_case().PLAYBOOKS}
    for r in runs:
        if r["case"] == "concurrent" and r.get("concurrent") and r.get("playbook"):
            counts[pb_name(r["playbook"])] += 1
    return counts


class Ctx:
    """What one run gets: its workdir, its proxy port, its AWS key (and faults), and the crash helper."""

    def __init__(self, run, workdir, rate, port):
        self.workdir, self.rate, self.port = workdir, rate, port
        self.key_id = f"CHAOS{run['seed']}{run['tag']}".upper()
        self.env = dict(os.environ, AWS_ACCESS_KEY_ID=self.key_id)
        self.aws = AwsFaults(self.key_id)

    @staticmethod
    def crash(run, component, down_seconds):
        try:
            restart(component, down_seconds)
            add_fault(run, "apiserver-restart" if component == "apiserver" else "twin-crash")
            run.setdefault("restarts", []).append({"component": component, "at": now(), "down": round(down_seconds, 2)})
        except Exception as e:  # noqa: BLE001 - recorded; a restart that failed is a harness error
            run["harness_error"] = f"restart {component}: {e}"


def one_run(i, seed, case, args, port, playbook=None):
    workdir = os.path.join(args.workdir, f"{seed}-{case}")
    # a replayed seed starts clean: an earlier campaign's reports left here would be judged as this run's
    # (seed 42000's second campaign counted 18 "absent" claims from the first one's verified re-runs)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir, exist_ok=True)
    # names carry a tag of their own (not from the seed) so that a seed can be replayed on the same sandbox
    run = {"index": i, "seed": seed, "case": case, "started": now(), "faults": 0, "faults_by_kind": {},
           "tag": os.urandom(2).hex(), "proxy_port": port}
    if playbook:
        run["playbook"] = playbook  # the plan's (the concurrent case), never chosen by the case from the seed
    s = time.monotonic()
    ctx = Ctx(run, workdir, args.rate, port)
    try:
        run["violations"] = CASES[case](run, random.Random(seed), ctx)
    except Exception as e:  # noqa: BLE001 - a harness failure is reported, never passed
        run["violations"] = []
        run["harness_error"] = f"{type(e).__name__}: {e}"
        try:
            ctx.aws.stop()
        except Exception:  # noqa: BLE001
            pass
    run["faults"] = sum(run["faults_by_kind"].values())
    run["seconds"] = round(time.monotonic() - s, 1)
    run["finished"] = now()
    return run


def write_summary(runs, args, cases, t0, planned):
    """latest.json from the runs so far (written after every run, so a campaign cut short leaves its results)."""
    runs = sorted(runs, key=lambda r: r["index"])
    by_kind = collections.Counter()
    by_case = {}
    for r in runs:
        by_kind.update(r["faults_by_kind"])
        c = by_case.setdefault(r["case"], {"runs": 0, "faults": 0, "violations": 0, "seconds": 0.0})
        c["runs"] += 1
        c["faults"] += r["faults"]
        c["violations"] += len(r["violations"])
        c["seconds"] = round(c["seconds"] + r["seconds"], 1)
    summary = {"runs": len(runs), "planned": planned, "complete": len(runs) == planned,
               "faults": sum(r["faults"] for r in runs), "violations": sum(len(r["violations"]) for r in runs),
               "harness_errors": sum(1 for r in runs if "harness_error" in r),
               "seed": args.seed, "rate": args.rate, "cases": cases, "jobs": args.jobs,
               "seconds": round(time.monotonic() - t0, 1), "finished": now(),
               "faults_by_kind": dict(sorted(by_kind.items())), "by_case": by_case,
               "concurrent_playbooks": concurrent_counts(runs),
               "violations_by_invariant": dict(collections.Counter(v["invariant"] for r in runs
                                                                   for v in r["violations"])),
               "details": runs}
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    tmp = args.results + ".tmp"
    with open(tmp, "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
    os.replace(tmp, args.results)
    return summary


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=150)
    # a fixed default, so that "the default seed" names one campaign (42004 is the run that once reported a
    # DELETE_FAILED stack absent)
    ap.add_argument("--seed", type=int, default=42000)
    ap.add_argument("--rate", type=float, default=0.15, help="fault probability per Kubernetes request (AWS: half)")
    ap.add_argument("--cases", default=DEFAULT_CASES,
                    help="comma-separated, round-robin; list a case twice to run it twice as often")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("CHAOS_JOBS", "4")),
                    help="runs at a time (CHAOS_JOBS); cases that fault the whole sandbox run alone first")
    ap.add_argument("--budget-scale", type=float, default=float(os.environ.get("CHAOS_BUDGET_SCALE", "0.01")),
                    help="the EC2 budget the pool's runs share (spec AWS-22), as a fraction of AWS's buckets; 0: none")
    ap.add_argument("--results", default=os.path.join(HERE, "results", "latest.json"))
    ap.add_argument("--workdir", default=os.environ.get("CHAOS_WORKDIR", "/tmp/teardown-gates-chaos"))
    args = ap.parse_args(argv)
    for var in ("KUBECONFIG", "SANDBOX_AWS_CONTROL"):
        if not os.environ.get(var):
            print(f"chaos: {var} is not set: eval \"$(tests/sandbox/sandbox env)\" first", file=sys.stderr)
            return 2
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    if not cases:
        print("chaos: --cases is empty", file=sys.stderr)
        return 2
    try:
        runs_plan = plan(args.runs, args.seed, cases)
    except ValueError as e:
        print(f"chaos: --cases: {e}", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"chaos: --jobs must be at least 1, not {args.jobs}", file=sys.stderr)
        return 2
    base_port = int(os.environ.get("CHAOS_PROXY_PORT", port_base() + 600))
    t0 = time.monotonic()
    runs, done = [], [0]
    lock = threading.Lock()

    def report(run):
        with lock:
            runs.append(run)
            done[0] += 1
            case = run["case"] + (":" + pb_name(run["playbook"]) if run.get("playbook") else "")
            print(f"chaos run {done[0]}/{args.runs} seed={run['seed']} case={case} faults={run['faults']} "
                  f"violations={len(run['violations'])}{' harness_error' if 'harness_error' in run else ''} "
                  f"({run['seconds']} s)", file=sys.stderr, flush=True)
            write_summary(runs, args, cases, t0, args.runs)

    # whole-sandbox faults first, one at a time, nothing else running
    for i, seed, case, playbook in [p for p in runs_plan if p[2] in EXCLUSIVE]:
        report(one_run(i, seed, case, args, base_port, playbook))
    slots = list(range(args.jobs))
    slot_lock = threading.Lock()

    def pooled(i, seed, case, playbook):
        with slot_lock:
            slot = slots.pop()
        try:
            return one_run(i, seed, case, args, base_port + slot, playbook)
        finally:
            with slot_lock:
                slots.append(slot)

    # one EC2 budget for the account, shared by the runs while their AWS faults apply (AwsFaults)
    if args.budget_scale > 0:
        aws_control("POST", "realism/budget", {"scale": args.budget_scale, "members": []})
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(pooled, *p) for p in runs_plan if p[2] not in EXCLUSIVE]
            for fut in concurrent.futures.as_completed(futures):
                report(fut.result())
    finally:
        if args.budget_scale > 0:
            aws_control("DELETE", "realism/budget")
    summary = write_summary(runs, args, cases, t0, args.runs)
    faults, violations, errors = summary["faults"], summary["violations"], summary["harness_errors"]
    if any(p[2] == "concurrent" for p in runs_plan):
        counts = summary["concurrent_playbooks"]
        print("chaos: concurrent playbooks: " + " ".join(f"{k}={n}" for k, n in counts.items()))
    print(f"chaos: runs={len(runs)} faults={faults} violations={violations}"
          + (f" harness_errors={errors}" if errors else ""))
    return 1 if violations or errors else 0


if __name__ == "__main__":
    sys.exit(main())
