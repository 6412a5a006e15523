#!/usr/bin/env python3
"""Interruption campaign: `tests/chaos/interrupt.py --kills K --seed S [--jobs J] [--playbooks a,b]`.

Needs a running sandbox and its environment (eval "$(tests/sandbox/sandbox env)").
For each playbook of playbooks/ (prune_releases, release_held_deletion, clear_cfn_refusals,
destroy_hosted_cluster) the campaign seeds K+1 identical scenarios, each on its own names:

  u       run once, uninterrupted: the reference
  k0..    run, SIGKILLed (the whole process group, and the async jobs the run left behind, found by a
          marker in their environment: as when an AWX job's container dies) after task k started plus
          d seconds, k and d drawn from a generator seeded with S (tests/chaos/callback_plugins/task_marks.py
          writes each task start to a file); then the same command again, to completion

Every playbook talks to Kubernetes through sandboxctl.kubeproxy at fault rate 0, only to log each
request with its PATCH/PUT body. After each scenario the invariants are checked:

  finalizer   no PATCH/PUT of ours removes or rewrites a finalizer, except the documented path:
              destroy_hosted_cluster removes openshift.io/destroy-cluster from its HostedCluster in
              "Phase 5 | Remove the CLI finalizer" (checked against that run's task starts). The held
              deletion's paths are CAPTF's annotations (restore, abandon): the role never patches a
              finalizer; prune_releases and clear_cfn_refusals remove none.
  absent      nothing a report (of the killed run when it wrote one, and of the final run) or a set_stats
              result claims absent/deleted is found by a later direct query (Kubernetes by name, AWS by ID
              with the integration targets' plain-boto3 lookups)
  tracked     every AWS ID the seed made (hosted cluster: its manifest; CloudFormation: the stacks and the
              resources that refuse) is gone by direct lookup, or named by ID in the report as retained
  verified    the final run exits 0 and its result says done/verified, confirmed by direct queries
  same        the final state of each killed scenario equals the uninterrupted one's, modulo names:
              the normalised report (outcome per object, verified, AWS gone/retained/remaining by type)
              and the cluster side (each seeded object's kind and state: absent, deleting, present)

A kill point the run finished before reaching counts as a run without a kill (`missed`), not as a kill.
Prints `interrupt: runs=R kills=K violations=V` as its last line and writes
tests/chaos/results/interrupt-latest.json. Exit 1 on a violation or a harness error (counted apart).
"""
import argparse
import collections
import concurrent.futures
import glob
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SANDBOX = os.path.join(REPO, "tests", "sandbox", "sandbox")
PY = os.path.join(REPO, ".venv", "bin", "python")
ANSIBLE_PLAYBOOK = os.path.join(REPO, ".venv", "bin", "ansible-playbook")
CALLBACKS = os.path.join(HERE, "callback_plugins")
MARKER = "TEARDOWN_GATES_INTERRUPT_RUN"
CLI_FINALIZER = "openshift.io/destroy-cluster"
CFN_REMEDIES = "empty_buckets,detach_iam,release_dependencies,disable_deletion_protection,nested"


def _load_aws_checks():
    """The plain-boto3 lookups by ID the integration targets use (test equipment, never our own code):
    setup_helpers/files/sandbox_checks.py, or setup_hosted_cluster/files/hc_check.py where they were before."""
    targets = os.path.join(REPO, "tests", "integration", "targets")
    for path in (os.path.join(targets, "setup_helpers", "files", "sandbox_checks.py"),
                 os.path.join(targets, "setup_hosted_cluster", "files", "hc_check.py")):
        if not os.path.exists(path):
            continue
        spec = importlib.util.spec_from_file_location("interrupt_aws_checks", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        lookups = getattr(mod, "lookups", None) or getattr(mod, "lookup", None)
        if lookups and all(hasattr(mod, n) for n in ("client", "manifest", "aws_check")):
            mod.lookups = lookups
            return mod
    raise RuntimeError("no plain-boto3 lookups by ID found under " + targets)


hc_check = _load_aws_checks()


def utc():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def seed_scenario(args):
    p = subprocess.run([SANDBOX, "seed", *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"seed {args}: {p.stderr[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# --- Kubernetes, straight to the API server (never through the proxy) ---------------------------------------
_kube_lock = threading.Lock()
_kube = {}


def dyn():
    with _kube_lock:
        if "dyn" not in _kube:
            from kubernetes import config, dynamic
            _kube["dyn"] = dynamic.DynamicClient(config.new_client_from_config(os.environ["KUBECONFIG"]))
        return _kube["dyn"]


def k8s_state(api_version, kind, name, namespace=None):
    """'absent', 'deleting' or 'present'; a failed query raises (unknown is never absent)."""
    from kubernetes.client.exceptions import ApiException
    api = dyn().resources.get(api_version=api_version, kind=kind)
    try:
        obj = api.get(name=name, namespace=namespace) if api.namespaced else api.get(name=name)
    except ApiException as e:
        if e.status == 404:
            return "absent"
        raise
    return "deleting" if obj.metadata.deletionTimestamp else "present"


def seeded_objects_state(seed):
    """Counter of (kind, state) over what the seed created in Kubernetes (names differ per scenario)."""
    out = collections.Counter()
    for o in seed.get("objects") or []:
        out[f"{o['kind']}:{k8s_state(o['apiVersion'], o['kind'], o['name'], o.get('namespace'))}"] += 1
    return dict(sorted(out.items()))


# --- the proxy that logs our requests -------------------------------------------------------------------------
class LoggingProxy:
    """sandboxctl.kubeproxy at rate 0: every request of ours, with the PATCH/PUT bodies, in a JSON log."""

    def __init__(self, workdir, port):
        self.log = os.path.join(workdir, "kubeproxy.jsonl")
        self.kubeconfig = os.path.join(workdir, "kubeconfig-proxy")
        for stale in (self.log, self.kubeconfig):
            if os.path.exists(stale):
                os.remove(stale)
        err = os.path.join(workdir, "kubeproxy.err")
        self.proc = subprocess.Popen(
            [PY, "-m", "sandboxctl.kubeproxy", "--port", str(port), "--seed", "0", "--rate", "0",
             "--log", self.log, "--kubeconfig-out", self.kubeconfig],
            env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "tests", "sandbox")),
            stdout=subprocess.DEVNULL, stderr=open(err, "w"))
        deadline = time.monotonic() + 60
        while not os.path.exists(self.kubeconfig):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("kubeproxy did not start: " + open(err).read()[-800:])
            time.sleep(0.2)

    def entries(self):
        if not os.path.exists(self.log):
            return []
        out = []
        with open(self.log) as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass  # a line being written
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def finalizer_changes(entry):
    """What one logged PATCH/PUT does to metadata.finalizers: a list of ('add'|'remove'|'rewrite', value)."""
    body = entry.get("body") or ""
    if entry.get("method") not in ("PATCH", "PUT") or "finalizers" not in body:
        return []
    try:
        doc = json.loads(body)
    except ValueError:
        return [("rewrite", "unparsable body")]
    if isinstance(doc, list):  # JSON patch: a remove/replace is named by the test op on the same path
        tests = {op.get("path"): op.get("value") for op in doc if op.get("op") == "test"}
        out = []
        for op in doc:
            path = op.get("path") or ""
            if not path.startswith("/metadata/finalizers") or op.get("op") == "test":
                continue
            if op.get("op") == "add" and path != "/metadata/finalizers":
                out.append(("add", op.get("value")))
            elif op.get("op") == "remove" and path in tests:
                out.append(("remove", tests[path]))
            else:
                out.append(("rewrite", json.dumps(op)[:200]))
        return out
    if isinstance(doc, dict) and "finalizers" in (doc.get("metadata") or {}):
        return [("rewrite", "whole list: %s" % (doc["metadata"]["finalizers"],))]
    if isinstance(doc, dict) and "finalizers" in (doc.get("spec") or {}):
        return [("rewrite", "spec.finalizers: %s" % (doc["spec"]["finalizers"],))]
    return []


def entry_namespace(path):
    parts = path.split("?")[0].split("/")
    return parts[parts.index("namespaces") + 1] if "namespaces" in parts and parts.index("namespaces") + 1 < len(parts) else ""


# --- one playbook run -----------------------------------------------------------------------------------------
def read_marks(path):
    tasks, stats = [], None
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("event") == "task":
                    tasks.append(rec)
                elif rec.get("event") == "stats":
                    stats = (rec.get("custom") or {}).get("_run") or {}
    return tasks, stats


def kill_marked(marker):
    """SIGKILL every process (by pid) that carries our run's marker in its environment: what the process
    group kill did not reach (an async job's wrapper starts its own session)."""
    killed = []
    needle = f"{MARKER}={marker}".encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if needle in env:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    what = f.read().replace(b"\0", b" ").decode("utf-8", "replace")[:160]
            except OSError:
                what = "?"
            try:
                os.kill(int(pid), signal.SIGKILL)
                killed.append(f"{pid} {what}")
            except OSError:
                pass
    return killed


def run_playbook(playbook, extra, env, workdir, label, timeout, kill_at=None):
    """Run ansible-playbook; with kill_at=(k, delay) SIGKILL it `delay` s after task k started.
    Returns a dict: rc, killed, kill point, tasks started, stats (set_stats data, when it finished)."""
    marks = os.path.join(workdir, f"{label}.marks.jsonl")
    marker = f"{os.path.basename(workdir)}-{label}-{os.getpid()}"
    run_env = dict(env, TASK_MARKS_FILE=marks, ANSIBLE_CALLBACK_PLUGINS=CALLBACKS, ANSIBLE_CALLBACKS_ENABLED="task_marks",
                   ANSIBLE_FORCE_COLOR="0", **{MARKER: marker})
    cmd = [ANSIBLE_PLAYBOOK, os.path.join(REPO, "playbooks", playbook), "-e", json.dumps(extra)]
    started = time.monotonic()
    out = {"label": label, "killed": False}
    with open(os.path.join(workdir, f"{label}.log"), "w") as log:
        proc = subprocess.Popen(cmd, env=run_env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            if kill_at:
                k, delay = kill_at
                while proc.poll() is None:
                    tasks, _ = read_marks(marks)
                    if len(tasks) >= k:
                        time.sleep(delay)
                        if proc.poll() is None:
                            os.killpg(proc.pid, signal.SIGKILL)
                            out["killed"] = True
                            tasks, _ = read_marks(marks)
                            out["killed_in"] = {"task": len(tasks), "name": tasks[-1]["name"] if tasks else "",
                                                "after_s": round(time.monotonic() - started, 1)}
                        break
                    if time.monotonic() - started > timeout:
                        break
                    time.sleep(0.1)
            try:
                out["rc"] = proc.wait(max(1, timeout - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                out["rc"] = "timeout"
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            if out["killed"] or out.get("rc") == "timeout":
                out["leftovers_killed"] = kill_marked(marker)
    tasks, stats = read_marks(marks)
    out.update(tasks=len(tasks), stats=stats, seconds=round(time.monotonic() - started, 1), marks=marks)
    return out


# --- the playbooks: seed, extra vars, and what their results claim ---------------------------------------------
def _json(path):
    with open(path) as f:
        return json.load(f)


class PruneReleases:
    name, playbook, abbr, tasks_hint, timeout = "prune_releases", "prune_releases.yml", "irl", 28, 420

    def seed(self, tag):
        return ["releases", "--name", tag, "--namespace", tag, "--count", "2", "--knob", "hook_seconds=0.2"]

    def extra(self, tag, seed, reports):
        return {"release_namespace": tag, "release_names": sorted(seed["releases"]), "prune_cluster": False,
                "timeout": 180, "report_dir": reports}

    def namespaces(self, tag, seed):
        return {tag, seed.get("target_namespace") or f"{tag}-target"}

    def report(self, reports):
        path = os.path.join(reports, "release_prune-report.json")
        return _json(path) if os.path.exists(path) else None

    def claims(self, tag, seed, report, stats):
        """(what, state-now) for each object the report says is absent."""
        out = []
        ver = (report or {}).get("verification") or {}
        for key, kind in (("releases", "Release"), ("inventories", "ReleaseInventory")):
            for item in ver.get(key) or []:
                if item.get("state") == "absent":
                    out.append((f"{kind} {tag}/{item['name']}",
                                k8s_state("core.convoy.kumodo.io/v1alpha1", kind, item["name"], tag)))
        return out

    def verified(self, tag, seed, report, stats):
        problems = []
        if (report or {}).get("outcome") != "done":
            problems.append(f"report outcome {(report or {}).get('outcome')!r}, not 'done'")
        for name in seed["releases"]:
            st = k8s_state("core.convoy.kumodo.io/v1alpha1", "Release", name, tag)
            if st != "absent":
                problems.append(f"Release {tag}/{name} {st}")
        return problems

    def untracked(self, tag, seed, report, stats):
        return []

    def normal(self, tag, seed, report, stats):
        # outcome per seeded Release: verified absent by this run, or found already absent by it (a re-run
        # after a kill that came after the deletions); the inventories are compared on the cluster side
        rep = report or {}
        ver = rep.get("verification") or {}
        outcome = {i["name"]: i["state"] for i in ver.get("releases") or []}
        outcome.update({n: "absent" for n in (rep.get("plan") or {}).get("already_absent") or []})
        return {"outcome": rep.get("outcome"),
                "releases": sorted(outcome.get(n, "unreported") for n in seed["releases"]),
                "not_deleted": len(ver.get("not_deleted") or []), "unverified": len(ver.get("unverified") or []),
                "held": len(rep.get("held") or [])}

    def allowed_finalizer_change(self, change, entry, tag, run_tasks):
        return change[0] == "add"


class ReleaseHeldDeletion(PruneReleases):
    name, playbook, abbr, tasks_hint, timeout = "release_held_deletion", "release_held_deletion.yml", "ihd", 18, 420

    def seed(self, tag):
        return ["captf", "--name", tag, "--namespace", tag, "--knob", "state=lost"]

    def extra(self, tag, seed, reports):
        return {"held_namespace": tag, "held_kind": "TerraformCluster", "held_name": tag, "prefer_restore": True,
                "timeout": 180, "report_dir": reports}

    def namespaces(self, tag, seed):
        return {tag}

    def report(self, reports):
        files = sorted(glob.glob(os.path.join(reports, "held-deletion-*.json")))
        return _json(files[-1]) if files else None

    def claims(self, tag, seed, report, stats):
        out = []
        for entry in (report or {}).get("plan") or []:
            if entry.get("reason") in ("Absent", "NotFound"):
                out.append((f"TerraformCluster {tag}/{entry['name']}",
                            k8s_state("infrastructure.cluster.x-k8s.io/v1alpha1", "TerraformCluster", entry["name"], tag)))
        return out

    def verified(self, tag, seed, report, stats):
        problems = []
        if report and report.get("still_held"):
            problems.append(f"still held: {[h.get('name') for h in report['still_held']]}")
        st = k8s_state("infrastructure.cluster.x-k8s.io/v1alpha1", "TerraformCluster", tag, tag)
        if st != "absent":
            problems.append(f"TerraformCluster {tag}/{tag} {st}")
        return problems

    def normal(self, tag, seed, report, stats):
        # a re-run after the restore took effect finds nothing held: what counts is each object's outcome
        return {"still_held": len((report or {}).get("still_held") or []),
                "abandoned": len((report or {}).get("abandoned") or [])}


class ClearCfnRefusals(PruneReleases):
    name, playbook, abbr, tasks_hint, timeout = "clear_cfn_refusals", "clear_cfn_refusals.yml", "icf", 15, 420

    def seed(self, tag):
        return ["cfn-refusals", "--name", tag, "--knob", "classes=bucket,iam"]

    def extra(self, tag, seed, reports):
        return {"cfn_stack_prefix": f"{tag}-", "cfn_select_statuses": "CREATE_COMPLETE,DELETE_FAILED",
                "cfn_clear": CFN_REMEDIES, "cfn_retain_unclearable": False,
                "cfn_disable_termination_protection": False, "cfn_wait_timeout": 300}

    def namespaces(self, tag, seed):
        return set()

    def report(self, reports):
        return None

    @staticmethod
    def stack_status(arn):
        from botocore.exceptions import ClientError
        try:
            stacks = hc_check.client("cloudformation").describe_stacks(StackName=arn)["Stacks"]
        except ClientError as e:
            if "does not exist" in str(e):
                return "absent"
            raise
        return stacks[0]["StackStatus"] if stacks else "absent"

    def claims(self, tag, seed, report, stats):
        out = []
        for r in (stats or {}).get("cfn_refusals") or []:
            if r.get("status") in ("DELETE_COMPLETE", "NOT_FOUND"):
                now = self.stack_status(r.get("stack_id") or r["stack"])
                out.append((f"stack {r['stack']}", "absent" if now in ("absent", "DELETE_COMPLETE") else now))
        return out

    def verified(self, tag, seed, report, stats):
        problems = []
        for _role, st in sorted(seed["stacks"].items()):
            now = self.stack_status(st["arn"])
            if now not in ("DELETE_COMPLETE", "absent"):
                problems.append(f"stack {st['name']} {now}")
        if stats is None:
            problems.append("the run handed no cfn_refusals result on (no set_stats)")
        return problems

    def refusers(self, seed):
        return [(ref["type"], ref["physical_id"]) for st in seed["stacks"].values() for ref in st.get("refuses") or []]

    def untracked(self, tag, seed, report, stats):
        retained = {k.get("physical_id") for r in (stats or {}).get("cfn_refusals") or [] for k in r.get("retained") or []}
        out = []
        for rtype, rid in self.refusers(seed):
            state = hc_check.lookups(rtype, rid)
            if state not in ("absent", "terminal") and rid not in retained:
                out.append(f"{rtype} {rid}: {state}, not reported as retained")
        return out

    def normal(self, tag, seed, report, stats):
        return {"stacks": {role: self.stack_status(st["arn"]) for role, st in sorted(seed["stacks"].items())},
                "refusers": sorted(f"{t}:{hc_check.lookups(t, i)}" for t, i in self.refusers(seed)),
                "outside_iam": sorted(f"{k}:{hc_check.lookups(t, v)}" for k, t, v in self.outside(seed)),
                "retained": sorted(k.get("type", "") for r in (stats or {}).get("cfn_refusals") or []
                                   for k in r.get("retained") or [])}

    @staticmethod
    def outside(seed):
        iam = (seed.get("outside") or {}).get("iam") or {}
        out = []
        if iam.get("policy_arn"):
            out.append(("policy", "AWS::IAM::ManagedPolicy", iam["policy_arn"]))
        if iam.get("instance_profile"):
            out.append(("instance_profile", "AWS::IAM::InstanceProfile", iam["instance_profile"]))
        return out


class DestroyHostedCluster(PruneReleases):
    name, playbook, abbr, tasks_hint, timeout = "destroy_hosted_cluster", "destroy_hosted_cluster.yml", "ihc", 50, 900

    def seed(self, tag):
        return ["hosted-cluster", "--name", tag, "--namespace", tag, "--knob", "replicas=1"]

    def extra(self, tag, seed, reports):
        return {"hosted_cluster_name": tag, "hosted_cluster_namespace": tag, "destroy_cloud_resources": True,
                "preserve_iam": False, "cluster_grace_period": 300, "report_dir": reports}

    def namespaces(self, tag, seed):
        return {tag, seed.get("hcp_namespace") or f"{tag}-{tag}"}

    def report(self, reports):
        # <ns>-<name>.json is the latest; an earlier run's report is kept beside it with its time in the name
        found = [f for f in glob.glob(os.path.join(reports, "*.json"))
                 if os.path.basename(f).count(".") == 1 and f.endswith(".json")]
        return _json(found[0]) if len(found) == 1 else None

    def claims(self, tag, seed, report, stats):
        out = []
        for group in ("aws", "iam"):
            for cat in ("absent", "deleted"):
                for r in ((report or {}).get(group) or {}).get(cat) or []:
                    out.append((f"{r['type']} {r['id']} ({group} {cat})", hc_check.lookups(r["type"], r["id"])))
        for chk in ((report or {}).get("verification") or {}).get("checks") or []:
            if chk.get("state") == "absent" and chk.get("what", "").startswith("HostedCluster "):
                out.append((chk["what"], k8s_state("hypershift.openshift.io/v1beta1", "HostedCluster", tag, tag)))
            if chk.get("state") == "absent" and chk.get("what", "").startswith("Namespace "):
                out.append((chk["what"], k8s_state("v1", "Namespace", seed["hcp_namespace"])))
        return [(what, "absent" if st == "terminal" else st) for what, st in out]

    def verified(self, tag, seed, report, stats):
        problems = []
        if not report or report.get("verified") is not True:
            problems.append(f"report verified={None if not report else report.get('verified')}")
        st = k8s_state("hypershift.openshift.io/v1beta1", "HostedCluster", tag, tag)
        if st != "absent":
            problems.append(f"HostedCluster {tag}/{tag} {st}")
        check = hc_check.aws_check(seed, False)
        if check["present"] or check["unknown"]:
            problems.append(f"AWS by ID: present {check['present']}, unknown {check['unknown']}")
        return problems

    def untracked(self, tag, seed, report, stats):
        named = set()
        for group in ("aws", "iam"):
            for cat in ("retained", "remaining"):
                named |= {r["id"] for r in ((report or {}).get(group) or {}).get(cat) or []}
        out = []
        for rtype, rid in hc_check.manifest(seed):
            state = hc_check.lookups(rtype, rid)
            if state not in ("absent", "terminal") and rid not in named:
                out.append(f"{rtype} {rid}: {state}, not in the report by ID")
        return out

    def normal(self, tag, seed, report, stats):
        rep = report or {}

        def types(group, *cats):
            return dict(sorted(collections.Counter(r["type"] for c in cats for r in (rep.get(group) or {}).get(c) or []).items()))
        # the aws section holds every ID, IAM included; the iam section has no 'absent' (an IAM resource a
        # re-run finds already gone is in aws.absent only), so IAM is compared through aws, its retention here
        return {"verified": rep.get("verified"), "command_succeeded": rep.get("command_succeeded"),
                "aws_gone": types("aws", "deleted", "absent"), "aws_retained": types("aws", "retained"),
                "aws_remaining": types("aws", "remaining"),
                "iam_retained": types("iam", "retained"), "remaining": len(rep.get("remaining") or []),
                "namespace_retained": rep.get("namespace_retained"),
                "checks": sorted(f"{c.get('what', '').split(' ')[0]}:{c.get('state')}"
                                 for c in (rep.get("verification") or {}).get("checks") or [])}

    def allowed_finalizer_change(self, change, entry, tag, run_tasks):
        if change[0] == "add":
            return True
        path = entry["path"].split("?")[0]
        if change != ("remove", CLI_FINALIZER) or not path.endswith(f"/namespaces/{tag}/hostedclusters/{tag}"):
            return False
        # only in the documented task, at the end: that task of the same run had started
        phase5 = [t["t"] for t in run_tasks if "Phase 5 | Remove the CLI finalizer" in t["name"]]
        return any(t <= entry["time"] for t in phase5)


PLAYBOOKS = {p.name: p for p in (DestroyHostedCluster(), PruneReleases(), ReleaseHeldDeletion(), ClearCfnRefusals())}


# --- one scenario ----------------------------------------------------------------------------------------------
def scenario(pb, tag, kill_at, workdir, proxy, timeout_scale):
    rec = {"playbook": pb.name, "tag": tag, "kill_at": kill_at, "violations": [], "runs": []}
    os.makedirs(workdir, exist_ok=True)
    reports = os.path.join(workdir, "reports")
    seed = seed_scenario(pb.seed(tag))
    env = dict(os.environ, KUBECONFIG=proxy.kubeconfig, K8S_AUTH_KUBECONFIG=proxy.kubeconfig)
    extra = pb.extra(tag, seed, reports)
    timeout = int(pb.timeout * timeout_scale)
    snapshots = []
    if kill_at:
        first = run_playbook(pb.playbook, extra, env, workdir, "killed", timeout, kill_at)
        rec["runs"].append({k: v for k, v in first.items() if k not in ("stats", "marks")})
        if os.path.isdir(reports):
            shutil.copytree(reports, os.path.join(workdir, "reports-at-kill"))
            snapshots.append(("killed run", pb.report(os.path.join(workdir, "reports-at-kill")), first["stats"]))
        elif first["stats"] is not None:
            snapshots.append(("killed run", None, first["stats"]))
        rec["killed"] = first["killed"]
    final = run_playbook(pb.playbook, extra, env, workdir, "final", timeout)
    rec["runs"].append({k: v for k, v in final.items() if k not in ("stats", "marks")})
    report = pb.report(reports)
    snapshots.append(("final run", report, final["stats"]))

    def violate(kind, what):
        rec["violations"].append({"invariant": kind, "playbook": pb.name, "tag": tag, "what": what})

    # finalizer: our requests in this scenario's namespaces
    nss = pb.namespaces(tag, seed)
    tasks = {label: read_marks(os.path.join(workdir, f"{label}.marks.jsonl"))[0] for label in ("killed", "final")}
    rec["namespaces"] = sorted(nss)
    for entry in proxy.entries():
        if entry_namespace(entry.get("path", "")) not in nss:
            continue
        for change in finalizer_changes(entry):
            runs_tasks = tasks["killed"] + tasks["final"]
            if not pb.allowed_finalizer_change(change, entry, tag, runs_tasks):
                violate("finalizer", f"{entry['method']} {entry['path'].split('?')[0]}: {change[0]} {change[1]}")
    # absent: what any run's result said is gone, asked again
    for label, rep, stats in snapshots:
        for what, now in pb.claims(tag, seed, rep, stats):
            if now != "absent":
                violate("absent", f"{what}: reported absent by the {label}, a later query finds it {now}")
    # verified
    if final.get("rc") != 0:
        tail = open(os.path.join(workdir, "final.log")).read()[-1500:]
        violate("verified", f"the final run ended rc={final.get('rc')}: ...{tail}")
    for problem in pb.verified(tag, seed, report, final["stats"]):
        violate("verified", problem)
    # tracked
    for what in pb.untracked(tag, seed, report, final["stats"]):
        violate("tracked", what)
    rec["final"] = {"report": pb.normal(tag, seed, report, final["stats"]), "cluster": seeded_objects_state(seed)}
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kills", type=int, default=int(os.environ.get("CHAOS_KILLS", "3")),
                    help="killed scenarios per playbook (each one kill, then a re-run)")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("CHAOS_SEED") or 42000))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("INTERRUPT_JOBS", "4")),
                    help="scenarios at a time")
    ap.add_argument("--playbooks", default=",".join(PLAYBOOKS))
    ap.add_argument("--timeout-scale", type=float, default=1.0, help="multiplies each playbook run's time limit")
    ap.add_argument("--results", default=os.path.join(HERE, "results", "interrupt-latest.json"))
    ap.add_argument("--workdir", default=os.environ.get("INTERRUPT_WORKDIR", "/tmp/teardown-gates-interrupt"))
    ap.add_argument("--proxy-port", type=int,
                    default=int(os.environ.get("INTERRUPT_PROXY_PORT", int(os.environ.get("SANDBOX_PORT_BASE", "21000")) + 700)))
    args = ap.parse_args(argv)
    if not os.environ.get("KUBECONFIG") or not os.environ.get("AWS_ENDPOINT_URL"):
        print("interrupt: the sandbox environment is missing: eval \"$(tests/sandbox/sandbox env)\"", file=sys.stderr)
        return 2
    chosen = [PLAYBOOKS[n.strip()] for n in args.playbooks.split(",") if n.strip()]
    rng = random.Random(args.seed)
    work = os.path.join(args.workdir, str(args.seed))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    plan = []  # (playbook, tag, kill_at): drawn up front, so a seed names the same kill points
    for pb in chosen:
        base = f"{pb.abbr}{args.seed % 10000:04d}{rng.randrange(1000):03d}"
        plan.append((pb, f"{base}u", None))
        for i in range(args.kills):
            plan.append((pb, f"{base}{i}", (rng.randint(1, pb.tasks_hint), round(rng.uniform(0, 3), 2))))
    # the long playbook first, and its scenarios spread so every playbook starts early
    plan.sort(key=lambda item: (item[1][-1] != "u", -item[0].timeout))
    started = time.monotonic()
    print(f"interrupt: seed={args.seed} kills={args.kills} jobs={args.jobs} playbooks={[p.name for p in chosen]} "
          f"workdir={work}", flush=True)
    dyn()  # made once here: the clients are shared by the scenarios' threads
    for service in ("ec2", "elb", "elbv2", "iam", "s3", "route53", "cloudformation"):
        hc_check.client(service)
    proxy = LoggingProxy(work, args.proxy_port)
    results, errors = [], []
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(scenario, pb, tag, kill_at, os.path.join(work, tag), proxy, args.timeout_scale):
                       (pb, tag, kill_at) for pb, tag, kill_at in plan}
            for fut in concurrent.futures.as_completed(futures):
                pb, tag, kill_at = futures[fut]
                try:
                    rec = fut.result()
                except Exception as e:  # noqa: BLE001 (a harness error is counted apart, never as a pass)
                    errors.append({"playbook": pb.name, "tag": tag, "error": f"{type(e).__name__}: {e}",
                                   "trace": traceback.format_exc()[-2000:]})
                    print(f"  {tag} {pb.name}: HARNESS ERROR {type(e).__name__}: {e}", flush=True)
                    continue
                results.append(rec)
                kill = rec["runs"][0].get("killed_in") if kill_at else None
                how = (f"killed at task {kill['task']} ({kill['name']}, {kill['after_s']} s)" if kill
                       else ("kill point not reached" if kill_at else "uninterrupted"))
                print(f"  {tag} {pb.name}: {how}, final rc={rec['runs'][-1].get('rc')}, "
                      f"violations={len(rec['violations'])}", flush=True)
    finally:
        proxy.stop()
    # same: each killed scenario's final state equals the uninterrupted one's
    by_pb = collections.defaultdict(list)
    for rec in results:
        by_pb[rec["playbook"]].append(rec)
    for name, recs in by_pb.items():
        ref = [r for r in recs if r["kill_at"] is None]
        if not ref:
            errors.append({"playbook": name, "error": "no uninterrupted reference run"})
            continue
        for rec in recs:
            if rec["kill_at"] is not None and rec["final"] != ref[0]["final"]:
                rec["violations"].append({"invariant": "same", "playbook": name, "tag": rec["tag"],
                                          "what": f"final state {rec['final']} differs from the uninterrupted run's "
                                                  f"{ref[0]['final']}"})
    # finalizer: a change in no scenario's namespaces is ours too (the proxy only carries our playbooks)
    ours = {ns for rec in results for ns in rec.get("namespaces") or []}
    stray = []
    for entry in proxy.entries():
        if entry_namespace(entry.get("path", "")) not in ours:
            stray += [{"invariant": "finalizer", "playbook": "?", "tag": "?",
                       "what": f"{entry['method']} {entry['path'].split('?')[0]}: {c[0]} {c[1]}"}
                      for c in finalizer_changes(entry) if c[0] != "add"]
    violations = [v for rec in results for v in rec["violations"]] + stray
    kills = sum(1 for rec in results if rec.get("killed"))
    missed = sum(1 for rec in results if rec["kill_at"] and not rec.get("killed"))
    summary = {"finished": utc(), "seed": args.seed, "kills_per_playbook": args.kills, "jobs": args.jobs,
               "runs": len(results), "kills": kills, "kill_points_missed": missed,
               "playbook_runs": sum(len(r["runs"]) for r in results), "violations": violations,
               "harness_errors": errors, "seconds": round(time.monotonic() - started, 1),
               "per_invariant": dict(collections.Counter(v["invariant"] for v in violations)),
               "scenarios": sorted(results, key=lambda r: r["tag"])}
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    with open(args.results, "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True, default=str)
    for v in violations:
        print(f"VIOLATION {v['invariant']} {v['playbook']} {v['tag']}: {v['what'][:600]}")
    for e in errors:
        print(f"HARNESS ERROR {e.get('playbook')} {e.get('tag', '')}: {e['error']}")
    print(f"interrupt: {len(results)} scenarios, {summary['playbook_runs']} playbook runs, {missed} kill point(s) "
          f"not reached, {len(errors)} harness error(s), {summary['seconds']} s; details in {args.results}")
    print(f"interrupt: runs={len(results)} kills={kills} violations={len(violations)}", flush=True)
    return 1 if violations or errors else 0


if __name__ == "__main__":
    sys.exit(main())
