"""Chaos case `playbook-silent` (registered in run.py's CASES; in the default mix, three times in each 50 runs):

every playbook against each endpoint it talks to, that endpoint a server that accepts and never answers
(tests/sandbox/tests/silent_server.py), everything else the real sandbox. One run takes one (playbook,
endpoint) pair, PAIRS[seed % len(PAIRS)], so that len(PAIRS) consecutive seeds cover them all:

  destroy_hosted_cluster  api (Phase 1 reads the HostedCluster), aws (Phase 1 records the AWS inventory)
  prune_releases          api (convoy's Releases and inventories; it never calls AWS)
  release_held_deletion   api (CAPTF's objects; it never calls AWS)
  clear_cfn_refusals      aws (CloudFormation and what refuses; it never reads Kubernetes)
  sweep_orphans           api (the HostedClusters of its management_contexts), aws (the region's scan)

Per run: the playbook's scenario is seeded, the playbook runs with the chosen endpoint on the silent server
(api: a kubeconfig on it, as K8S_AUTH_KUBECONFIG and KUBECONFIG; aws: AWS_ENDPOINT_URL), then the same
playbook runs fault-free against the sandbox, which removes the seeded target. Invariants:

  bound           the faulty run ends within 3 x its stated bound + 20 s of Ansible's start: the bound of the
                  first unanswered request, bounds.client_bound(10) (30 s) for the API server,
                  bounds.aws_call_bound() (87 s) for AWS
  failed          the faulty run fails (rc != 0)
  names-endpoint  its output names the silent endpoint (host:port)
  absent          no report it wrote claims anything absent, deleted, destroyed or verified (nothing answered)
  untouched       the seeded target is still there, unchanged (what each playbook does before its first
                  request to the silent endpoint decides what is asserted: see TARGETS)
  verified        the fault-free re-run succeeds, its report says so, and a direct query finds the target gone
"""
import json
import os
import sys
import time

PAIRS = [
    ("destroy_hosted_cluster.yml", "api"),
    ("destroy_hosted_cluster.yml", "aws"),
    ("prune_releases.yml", "api"),
    ("release_held_deletion.yml", "api"),
    ("clear_cfn_refusals.yml", "aws"),
    ("sweep_orphans.yml", "api"),
    ("sweep_orphans.yml", "aws"),
]
START = 20  # Ansible's own start-up, outside any request's bound
CLI_FINALIZER = "openshift.io/destroy-cluster"
CAPTF_API = "infrastructure.cluster.x-k8s.io/v1alpha1"
CONVOY_API = "core.convoy.kumodo.io/v1alpha1"
HC_API = "hypershift.openshift.io/v1beta1"
# what a report may not say about anything when no request was answered
CLAIM_FIELDS = ("state", "verified_state", "outcome", "status", "stack_status")
CLAIM_VALUES = {"absent", "deleted", "destroyed", "already_gone", "nothing_to_delete", "gone", "terminal",
                "DELETE_COMPLETE", "NOT_FOUND"}
CLAIM_LISTS = ("absent", "already_absent", "deleted", "deletion_requested", "destroyed", "already_gone", "restored",
               "abandoned")


def _silent_env(env, endpoint, server, workdir):
    env = dict(env)
    if endpoint == "api":
        kc = os.path.join(workdir, "silent-kubeconfig")
        server.write_kubeconfig(kc)
        for var in [v for v in env if v.startswith("K8S_AUTH_")]:
            env.pop(var)
        env.update(K8S_AUTH_KUBECONFIG=kc, KUBECONFIG=kc)
    else:
        for var in [v for v in env if v.startswith("AWS_ENDPOINT_URL")]:
            env.pop(var)
        env["AWS_ENDPOINT_URL"] = "http://" + server.url
    return env


def report_claims(report_dir):
    """What the JSON reports under report_dir claim was found absent, deleted or verified: [(file, where, what)]."""
    out = []

    def walk(x, path, fname):
        if isinstance(x, dict):
            for k, v in x.items():
                where = path + "." + str(k)
                if k == "verified" and v is True:
                    out.append((fname, where, "verified: true"))
                elif k in CLAIM_FIELDS and isinstance(v, str) and v in CLAIM_VALUES:
                    out.append((fname, where, f"{k}: {v}"))
                elif k in CLAIM_LISTS and isinstance(v, list) and v:
                    out.append((fname, where, f"{k}: {json.dumps(v)[:200]}"))
                else:
                    walk(v, where, fname)
        elif isinstance(x, list):
            for n, v in enumerate(x):
                walk(v, f"{path}[{n}]", fname)
    if not os.path.isdir(report_dir):
        return out
    for root, _, files in os.walk(report_dir):
        for fname in sorted(files):
            if fname.endswith(".json"):
                path = os.path.join(root, fname)
                try:
                    doc = json.load(open(path))
                except ValueError as e:
                    out.append((fname, "", f"not JSON: {e}"))
                    continue
                walk(doc, "", os.path.relpath(path, report_dir))
    return out


def _dyn():
    from kubernetes import config, dynamic
    return dynamic.DynamicClient(config.new_client_from_config(os.environ["KUBECONFIG"]))


def _get(dyn, api_version, kind, name, namespace):
    """The object as a dict, or None on a 404 (any other error raises: a harness error, never a pass)."""
    from kubernetes import client
    try:
        return dyn.resources.get(api_version=api_version, kind=kind).get(name=name, namespace=namespace).to_dict()
    except client.exceptions.ApiException as e:
        if e.status == 404:
            return None
        raise


def _json(path):
    return json.load(open(path)) if os.path.exists(path) else {}


def _newest(report_dir, prefix):
    if not os.path.isdir(report_dir):
        return {}
    names = sorted(n for n in os.listdir(report_dir) if n.startswith(prefix) and n.endswith(".json"))
    return _json(os.path.join(report_dir, names[-1])) if names else {}


# --- one target per playbook: seed it, its extra vars, what "untouched" and "verified" mean ---------------

class HostedCluster:
    """destroy_hosted_cluster: Phase 1 reads the HostedCluster (API), then records the AWS inventory; the first
    change (Phase 2, the CLI finalizer and the retain) comes after both, so either silent endpoint leaves
    the HostedCluster as seeded: no deletionTimestamp, no CLI finalizer."""
    timeout = 900

    def __init__(self, run, h):
        self.name = f"ps{run['seed']}{run['tag']}"
        self.ns = f"chaos-{self.name}"
        seeded = h.seed_scenario("hosted-cluster", "--name", self.name, "--namespace", self.ns,
                                 "--knob", "aws_infra=false", "--knob", "nodepools=1", "--knob", "replicas=1",
                                 "--knob", "zones=1", "--knob", "grace_period=1s", "--knob", "requeue=1s")
        self.uid = seeded["uid"]

    def extra(self, report_dir):
        return {"hosted_cluster_name": self.name, "hosted_cluster_namespace": self.ns, "cluster_grace_period": 120,
                "aws_cleanup_timeout": 180, "report_dir": report_dir}

    def untouched(self, endpoint):
        hc = _get(_dyn(), HC_API, "HostedCluster", self.name, self.ns)
        what = f"HostedCluster {self.ns}/{self.name}"
        if hc is None or hc["metadata"]["uid"] != self.uid:
            return [f"{what} ({self.uid}) is gone after a run against a silent {endpoint} endpoint"]
        bad = []
        if hc["metadata"].get("deletionTimestamp"):
            bad.append(f"{what} is being deleted (deletionTimestamp {hc['metadata']['deletionTimestamp']})")
        if CLI_FINALIZER in (hc["metadata"].get("finalizers") or []):
            bad.append(f"{what} got the CLI finalizer {CLI_FINALIZER} (Phase 2) though Phase 1 could not finish")
        return bad

    def rerun_report_dir(self, faulty_dir, rerun_dir):
        return faulty_dir  # an operator's re-run resumes from the same report_dir

    def verified(self, rc, report_dir):
        report = _json(os.path.join(report_dir, f"{self.ns}-{self.name}.json"))
        bad = []
        if rc != 0 or report.get("verified") is not True:
            bad.append(f"rc={rc} verified={report.get('verified')} remaining={str(report.get('remaining'))[:300]}")
        hc = _get(_dyn(), HC_API, "HostedCluster", self.name, self.ns)
        if hc is not None and hc["metadata"]["uid"] == self.uid:
            bad.append(f"HostedCluster {self.ns}/{self.name} still present after the re-run")
        return bad


class Releases:
    """prune_releases: its first request reads the Releases and their inventories; nothing is deleted before."""
    timeout = 600

    def __init__(self, run, h):
        name = f"pr{run['seed']}-{run['tag']}"
        self.ns = f"chaos-{name}"
        seeded = h.seed_scenario("releases", "--name", name, "--namespace", self.ns, "--count", "2",
                                 "--knob", "hooks=false")
        self.releases = seeded["releases"]
        dyn = _dyn()
        self.uids = {n: _get(dyn, CONVOY_API, "Release", n, self.ns)["metadata"]["uid"] for n in self.releases}

    def extra(self, report_dir):
        return {"release_namespace": self.ns, "release_names": self.releases, "timeout": 45, "report_dir": report_dir}

    def untouched(self, endpoint):
        dyn, bad = _dyn(), []
        for n, uid in self.uids.items():
            r = _get(dyn, CONVOY_API, "Release", n, self.ns)
            if r is None or r["metadata"]["uid"] != uid:
                bad.append(f"Release {self.ns}/{n} ({uid}) is gone")
            elif r["metadata"].get("deletionTimestamp"):
                bad.append(f"Release {self.ns}/{n} is being deleted")
        return bad

    def rerun_report_dir(self, faulty_dir, rerun_dir):
        return rerun_dir

    def verified(self, rc, report_dir):
        outcome = _json(os.path.join(report_dir, "release_prune-report.json")).get("outcome")
        bad = [] if rc == 0 and outcome == "done" else [f"rc={rc} outcome={outcome}"]
        dyn = _dyn()
        for n, uid in self.uids.items():
            r = _get(dyn, CONVOY_API, "Release", n, self.ns)
            if r is not None and r["metadata"]["uid"] == uid:
                bad.append(f"Release {self.ns}/{n} still present after the re-run")
        return bad


class HeldDeletion:
    """release_held_deletion on a TerraformCluster held by a lost state (two backups): the first request (Phase 2's
    diagnosis) goes before any restore or abandon, so the object stays held: the CAPTF finalizer on, no
    restore or abandon annotation."""
    timeout = 600
    FINALIZER = "terraformcluster.infrastructure.cluster.x-k8s.io"

    def __init__(self, run, h):
        self.name = f"ph{run['seed']}-{run['tag']}"
        self.ns = f"chaos-{self.name}"
        seeded = h.seed_scenario("captf", "--name", self.name, "--namespace", self.ns, "--knob", "state=lost")
        if not seeded.get("settled"):
            raise RuntimeError(f"seed captf {self.name}: the twin did not settle on the hold: {seeded.get('expected')}")
        self.uid = seeded["uid"]

    def extra(self, report_dir):
        return {"held_namespace": self.ns, "held_kind": "TerraformCluster", "held_name": self.name,
                "prefer_restore": True, "timeout": 120, "report_dir": report_dir}

    def untouched(self, endpoint):
        obj = _get(_dyn(), CAPTF_API, "TerraformCluster", self.name, self.ns)
        what = f"TerraformCluster {self.ns}/{self.name}"
        if obj is None or obj["metadata"]["uid"] != self.uid:
            return [f"{what} ({self.uid}) is gone after a run against a silent API server"]
        bad = []
        if self.FINALIZER not in (obj["metadata"].get("finalizers") or []):
            bad.append(f"{what} lost the CAPTF finalizer")
        acted = {k: v for k, v in (obj["metadata"].get("annotations") or {}).items()
                 if k in ("captf.io/restore-state", "captf.io/abandon-infrastructure")}
        if acted:
            bad.append(f"{what} got {acted}")
        return bad

    def rerun_report_dir(self, faulty_dir, rerun_dir):
        return rerun_dir

    def verified(self, rc, report_dir):
        report = _newest(report_dir, f"held-deletion-{self.ns}-")
        bad = []
        if rc != 0 or report.get("restored") != [self.name] or report.get("still_held") != []:
            bad.append(f"rc={rc} restored={report.get('restored')} still_held={str(report.get('still_held'))[:300]}")
        obj = _get(_dyn(), CAPTF_API, "TerraformCluster", self.name, self.ns)
        if obj is not None and obj["metadata"]["uid"] == self.uid:
            bad.append(f"TerraformCluster {self.ns}/{self.name} still present after the re-run")
        return bad


class CfnRefusals:
    """clear_cfn_refusals on two refusing stacks: its first call lists the stacks (no DeleteStack before), so each
    stack keeps the status it was seeded with."""
    timeout = 600

    def __init__(self, run, h):
        import boto3
        self.cfn = boto3.client("cloudformation")  # the sandbox's own key and endpoint
        seeded = h.seed_scenario("cfn-refusals", "--name", f"pc{run['seed']}-{run['tag']}", "--knob", "classes=bucket,iam")
        self.stacks = {s["name"]: s["arn"] for s in seeded["stacks"].values()}
        self.seeded_status = {n: self.status(a) for n, a in self.stacks.items()}

    def status(self, arn):
        return self.cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"]

    def extra(self, report_dir):
        return {"cfn_stacks": sorted(self.stacks.values()), "cfn_clear": ["empty_buckets", "detach_iam"],
                "cfn_wait_timeout": 120, "cfn_poll_interval": 0.5, "report_dir": report_dir}

    def untouched(self, endpoint):
        return [f"stack {n}: {self.seeded_status[n]} when seeded, {self.status(a)} after the run"
                for n, a in self.stacks.items() if self.status(a) != self.seeded_status[n]]

    def rerun_report_dir(self, faulty_dir, rerun_dir):
        return rerun_dir

    def verified(self, rc, report_dir):
        report = _json(os.path.join(report_dir, "cfn_refusals-report.json"))
        bad = [] if rc == 0 else [f"rc={rc}"]
        for n, a in self.stacks.items():
            if self.status(a) != "DELETE_COMPLETE":
                bad.append(f"stack {n} is {self.status(a)} after the re-run")
        if not report:
            bad.append("the re-run wrote no cfn_refusals-report.json")
        return bad


LOOKED_UP = ("AWS::EC2::VPC", "AWS::EC2::Subnet", "AWS::IAM::Role", "AWS::S3::Bucket")


class Orphans:
    """sweep_orphans with sweep_delete: its first module reads the management cluster, then scans the region; an
    unknown management cluster sweeps nothing, a scan that fails reports no infra ID: every seeded ID stays."""
    timeout = 900

    def __init__(self, run, h):
        if h.HERE not in sys.path:
            sys.path.insert(0, h.HERE)
        import case_orphans
        self._present = case_orphans._present
        self.guards = case_orphans.guards()  # sweep_delete requires them
        name = f"po{run['seed']}{run['tag']}"
        seeded = h.seed_scenario("orphans", "--name", name, "--namespace", f"chaos-{name}")
        self.seeded = seeded
        self.orphans = seeded["orphans"]
        # the IDs case_orphans._present looks up (by ID, plain boto3)
        self.all = [(t, i) for o in self.orphans.values() for t, ids in o.items() if t in LOOKED_UP for i in ids]

    def extra(self, report_dir):
        return {"infra_id_prefix": self.seeded["prefix"], "oidc_bucket": self.seeded["oidc_bucket"], "min_age": "0",
                "sweep_delete": True, "aws_cleanup_timeout": 180, "report_dir": report_dir, **self.guards}

    def _left(self):
        return [x for o in self.orphans.values() for x in self._present({t: ids for t, ids in o.items() if t in LOOKED_UP})]

    def untouched(self, endpoint):
        left = set(self._left())
        gone = [f"{t} {i}" for t, i in self.all if (t, i) not in left]
        return [f"seeded orphan IDs gone after the run: {gone[:10]}"] if gone else []

    def rerun_report_dir(self, faulty_dir, rerun_dir):
        return rerun_dir

    def verified(self, rc, report_dir):
        summary = _newest(report_dir, "orphan-sweep-").get("summary") or {}
        bad = []
        if rc != 0 or summary.get("verified") is not True or sorted(summary.get("destroyed") or []) != sorted(self.orphans):
            bad.append(f"rc={rc} summary={str(summary)[:300]}")
        left = self._left()
        if left:
            bad.append(f"seeded orphan IDs still there after the re-run: {left[:10]}")
        return bad


TARGETS = {"destroy_hosted_cluster.yml": HostedCluster, "prune_releases.yml": Releases,
           "release_held_deletion.yml": HeldDeletion, "clear_cfn_refusals.yml": CfnRefusals,
           "sweep_orphans.yml": Orphans}


def case(run, rng, ctx, h):
    """``h`` is run.py (seed_scenario, playbook, add_fault, _silent_server, _bounds)."""
    name, endpoint = PAIRS[run["seed"] % len(PAIRS)]
    bounds = h._bounds()
    bound = bounds.client_bound(10) if endpoint == "api" else bounds.aws_call_bound()
    ceiling = 3 * bound + START
    run.update(playbook=name, endpoint=endpoint, bound=bound)
    workdir = ctx.workdir
    target = TARGETS[name](run, h)
    faulty_dir, rerun_dir = os.path.join(workdir, "faulty"), os.path.join(workdir, "rerun")
    log = os.path.join(workdir, "faulty.log")
    violations = []
    with h._silent_server() as server:
        env = _silent_env(ctx.env, endpoint, server, workdir)
        started = time.monotonic()
        # killed well past the ceiling: a hang shows as a bound violation with the time it was given
        rc = h.playbook(name, target.extra(faulty_dir), env, log, ceiling + 240)
        took = time.monotonic() - started
        connections = server.connections
        address = server.url
    h.add_fault(run, "api-silent" if endpoint == "api" else "aws-silent")
    run.update(faulty_seconds=round(took, 1), faulty_rc=rc, silent_connections=connections, log=log)
    if connections == 0:
        raise RuntimeError(f"{name} never connected to the silent {endpoint} endpoint {address}: the fault was not applied")
    if rc == "timeout" or took > ceiling:
        violations.append({"invariant": "bound", "what": f"{name} against a silent {endpoint} endpoint took {took:.0f} s "
                           f"(rc={rc}), past 3 x its bound of {bound:.0f} s + {START} s; log {log}"})
    if rc == 0:
        violations.append({"invariant": "failed", "what": f"{name} against a silent {endpoint} endpoint succeeded"})
    text = open(log, errors="replace").read() if os.path.exists(log) else ""
    if address not in text:
        violations.append({"invariant": "names-endpoint", "what": f"{name}'s output never names the silent endpoint "
                           f"{address}; log {log}"})
    claims = report_claims(faulty_dir)
    run["faulty_reports"] = sorted(os.listdir(faulty_dir)) if os.path.isdir(faulty_dir) else []
    for fname, where, what in claims:
        violations.append({"invariant": "absent", "what": f"{fname} {where}: {what}, with no answer from the silent "
                           f"{endpoint} endpoint"})
    for what in target.untouched(endpoint):
        violations.append({"invariant": "untouched", "what": what})
    # the clean-up: the same playbook, fault-free, removes the seeded target
    rdir = target.rerun_report_dir(faulty_dir, rerun_dir)
    started = time.monotonic()
    rc2 = h.playbook(name, target.extra(rdir), ctx.env, os.path.join(workdir, "rerun.log"), target.timeout)
    run.update(rerun_rc=rc2, rerun_seconds=round(time.monotonic() - started, 1))
    for what in target.verified(rc2, rdir):
        violations.append({"invariant": "verified", "what": f"fault-free re-run of {name}: {what}"})
    return violations
