"""Every playbook in playbooks/ run the way AWX runs it on an execution node: the job goes out as an
ansible-runner stream, `ansible-runner transmit | ansible-runner worker | ansible-runner process`, three
processes joined by real pipes (Receptor, AWX's mesh, carries exactly this stream; it cannot be had here).
The controller side holds a private data dir with the project (playbooks/), the survey's answers as extra
vars (in the survey's shapes: text and multiple-choice answers are strings) and the execution environment's
settings as environment variables; the worker unpacks it into a folder of its own and runs it against the
sandbox; `process` writes what came back (events, status, rc, the artifact folder) on the controller side.

The execution node holds the collection as an execution environment built from the release does: the tarball
of `ansible-galaxy collection build`, installed into an empty folder (installed_copy.py), with the venv's bundled
collections beside it and nothing of the work tree (not .venv/collections, not PYTHONPATH, not tests/ansible.cfg:
the project brings an ansible.cfg of its own). Every teardown.gates task's path must lie in that copy.

The reports are written on the worker into its artifact folder (report_dir is templated from ansible-runner's
AWX_ISOLATED_DATA_DIR), so they reach the controller only through the stream, as set_stats does.

Each playbook has one row in PLAYBOOKS: the `sandbox seed` that gives it something to do, the extra vars
an operator would enter, and what its report files and set_stats artifacts must say afterwards. A
playbook without a row fails test_every_playbook_has_a_row, so a new one cannot be left out.
The jobs run at the same time: each waits on controllers, not on CPU.

The destroy row's teardown stands for two that test_real_capi.py and test_installed_collection.py each ran of their
own: besides the runner's artifacts it checks what the real CAPI and CAPA managers did (check_real_managers) and the
verification by ID of the worker VPC's volumes and the guest's volume and load balancer.
test_runner_slices.py runs a fleet as three job slices the same way.
"""
import glob
import json
import os
import random
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Callable

import boto3
import pytest

from conftest import REPO, SANDBOX
from installed_copy import BUNDLED, build_and_install, collection_dir, env as installed_env, write_ansible_cfg
from privilege import LogTail, retire_hosted_cluster, target_guards

PLAYBOOK_DIR = os.path.join(REPO, "playbooks")
RUNNER = os.path.join(REPO, ".venv", "bin", "ansible-runner")
# where the worker writes the reports: its artifact folder, which the stream carries back
WORKER_REPORTS = "{{ lookup('ansible.builtin.env', 'AWX_ISOLATED_DATA_DIR') }}/reports"
EVERY_CFN_REMEDY = "empty_buckets,detach_iam,release_dependencies,disable_deletion_protection,nested"


@dataclass
class Row:
    seed: Callable[[str], list]            # tag -> argv after `sandbox seed`
    extravars: Callable[[str, dict, str], dict]   # (tag, seed JSON, report dir) -> extra vars
    check: Callable[["Job"], None]         # what the reports and artifacts must say
    timeout: int = 420


@dataclass
class Job:
    playbook: str
    tag: str
    seed: dict
    reports: str
    pdd: str
    installed: str = ""                     # the teardown.gates folder of the copy the node runs
    audit: LogTail = None                   # the API server's audit log and the AWS layer's, from before the seed
    aws_log: LogTail = None
    stream: object = None
    events: list = field(default_factory=list)

    @property
    def stats_event(self):
        found = [e for e in self.events if e.get("event") == "playbook_on_stats"]
        assert found, f"{self.playbook}: no playbook_on_stats event"
        return found[-1]

    @property
    def artifacts(self):
        """What the playbook handed to set_stats (AWX stores it as the job's artifacts)."""
        return self.stats_event["event_data"].get("artifact_data") or {}

    def report_files(self, pattern):
        return sorted(glob.glob(os.path.join(self.reports, pattern)))


def _read(files):
    assert files, "no such report file"
    with open(files[0]) as f:
        return f.read()


class Stream:
    """One job as AWX sends it to an execution node: transmit | worker | process, three processes, two pipes.

    `controller` is the private data dir that transmit packs (project/, env/, inventory/) and where process
    unpacks what comes back (artifacts/IDENT); the worker unpacks the job into `node` and runs it there."""

    def __init__(self, controller, node, playbook, ident, timeout, env):
        self.controller, self.ident, self.timeout, self.codes = controller, ident, timeout, None
        self.artifacts = os.path.join(controller, "artifacts", ident)
        self.log = os.path.join(os.path.dirname(controller), ident + "-stream.log")
        self._log = open(self.log, "w")
        self.transmit = subprocess.Popen([RUNNER, "transmit", controller, "-p", playbook, "-i", ident],
                                         stdout=subprocess.PIPE, stderr=self._log, env=env)
        self.worker = subprocess.Popen([RUNNER, "worker", "--private-data-dir", node, "--delete"],
                                       stdin=self.transmit.stdout, stdout=subprocess.PIPE, stderr=self._log, env=env)
        self.transmit.stdout.close()  # the worker holds the only reading end: a dead worker stops transmit
        self.process = subprocess.Popen([RUNNER, "process", controller, "-i", ident],
                                        stdin=self.worker.stdout, stdout=self._log, stderr=self._log, env=env)
        self.worker.stdout.close()

    def wait(self):
        """The three exit codes; a stream still running after its timeout is killed and named."""
        if self.codes is not None:
            return self.codes
        codes = []
        for proc in (self.process, self.worker, self.transmit):
            try:
                codes.append(proc.wait(timeout=self.timeout + 120))
            except subprocess.TimeoutExpired:
                for p in (self.transmit, self.worker, self.process):
                    p.kill()
                raise AssertionError(f"{self.ident}: the stream did not end within {self.timeout + 120} s; {self.log}")
        self._log.close()
        self.codes = codes
        return codes

    def read(self, name):
        path = os.path.join(self.artifacts, name)
        return open(path).read().strip() if os.path.exists(path) else None

    def events(self):
        found = []
        for path in glob.glob(os.path.join(self.artifacts, "job_events", "*.json")):
            with open(path) as f:
                found.append(json.load(f))
        return sorted(found, key=lambda e: e.get("counter", 0))


def write_job(controller, extravars, envvars, timeout, inventory=None):
    """The private data dir AWX writes for a job: the project, the answers, the environment, the timeout."""
    os.makedirs(os.path.join(controller, "env"))
    # the project is streamed with the job: only what the playbooks need (the collection is on the node)
    shutil.copytree(PLAYBOOK_DIR, os.path.join(controller, "project", "playbooks"))
    for name, data in (("extravars", extravars), ("envvars", envvars), ("settings", {"job_timeout": timeout})):
        with open(os.path.join(controller, "env", name), "w") as f:
            json.dump(data, f)
    if inventory is not None:
        os.makedirs(os.path.join(controller, "inventory"))
        with open(os.path.join(controller, "inventory", "hosts.json"), "w") as f:
            json.dump(inventory, f)


def node_env():
    """The execution node's environment: the collection and Ansible of .venv, the sandbox's credentials."""
    env = dict(os.environ, PATH=os.path.join(REPO, ".venv", "bin") + os.pathsep + os.environ.get("PATH", ""))
    return env


def job_envvars(collections_path=None):
    return {"ANSIBLE_COLLECTIONS_PATH": collections_path or os.environ.get("ANSIBLE_COLLECTIONS_PATH",
                                                                           os.path.join(REPO, ".venv", "collections")),
            "ANSIBLE_FORCE_COLOR": "0"}


def assert_stream_succeeded(name, stream, events):
    codes = stream.wait()
    tail = (stream.read("stdout") or "(no stdout artifact came back)")[-4000:]
    log = open(stream.log).read()[-2000:]
    assert stream.read("status") == "successful" and stream.read("rc") == "0", \
        f"{name}: status={stream.read('status')} rc={stream.read('rc')} stream exit codes={codes}\n{tail}\n{log}"
    assert not [c for c in codes if c], f"{name}: a stream process failed: {codes}\n{log}"
    failed = [e for e in events if e.get("event") == "runner_on_failed"
              and not e.get("event_data", {}).get("ignore_errors")]
    assert not failed, [e["event_data"].get("task") for e in failed]
    stats = [e for e in events if e.get("event") == "playbook_on_stats"]
    assert stats, f"{name}: no playbook_on_stats event came back"
    data = stats[-1]["event_data"]
    assert not data.get("failures") and not data.get("dark"), data
    assert data.get("ok"), data
    ours = {e["event_data"].get("resolved_action") for e in events if e.get("event") == "runner_on_ok"}
    assert any(str(a).startswith("teardown.gates.") for a in ours), f"{name}: no teardown.gates module ran: {ours}"


def assert_ran_from_the_installed_copy(job):
    """Each task of the collection's roles was read from the installed copy, none from the work tree."""
    paths = {e["event_data"]["task_path"] for e in job.events
             if e.get("event") == "playbook_on_task_start" and e.get("event_data", {}).get("task_path")}
    ours = sorted(p for p in paths if "/ansible_collections/teardown/gates/" in p)
    assert ours, f"{job.playbook}: no task of teardown.gates ran: {sorted(paths)[:10]}"
    assert all(p.startswith(job.installed + os.sep) for p in ours), [p for p in ours if not p.startswith(job.installed)]
    assert not [p for p in paths if p.startswith(REPO + os.sep)], sorted(paths)


def _check_prune(job):
    files = job.report_files("release_prune-report.json")
    assert files, f"no release_prune-report.json in {job.reports}"
    with open(files[0]) as f:
        report = json.load(f)
    wanted = sorted(o["name"] for o in job.seed["objects"] if o["kind"] == "Release")
    gone = sorted(r["name"] for r in report["verification"]["releases"] if r["state"] == "absent")
    assert gone == wanted, report["verification"]
    md = _read(job.report_files("release_prune-report.md"))
    page = _read(job.report_files("release_prune-report.html"))
    # the pictures: a bar per batch, and per Release the wait saw (one already gone at the wait's first list has
    # no times to draw: the verification list under the picture names it)
    assert 'data-label="Releases of batch 1 gone"' in page, page[-2000:]
    seen = {o["name"] for w in report.get("waits") or [] for o in w.get("releases") or []}
    for r in wanted:
        if r in seen:
            assert 'data-label="Release %s"' % r in page and "Release %s :" % r in md, r
        else:
            assert r in page and r in md, r


def _check_held(job):
    files = job.report_files(f"held-deletion-{job.tag}-*.json")
    assert files, f"no held-deletion report in {job.reports}: {os.listdir(job.reports) if os.path.isdir(job.reports) else 'no folder'}"
    with open(files[-1]) as f:
        report = json.load(f)
    assert report["restored"] == [job.tag], report
    assert report["still_held"] == [] and report["abandoned"] == [], report
    page = _read([files[-1][:-5] + ".html"])
    assert 'data-label="TerraformCluster %s: restore"' % job.tag in page, page[-2000:]
    assert "```mermaid" in _read([files[-1][:-5] + ".md"])


def _check_hosted_cluster(job):
    ns, name = job.seed["namespace"], job.seed["name"]
    summary = job.artifacts.get("hosted_cluster_teardown", {}).get(f"{ns}/{name}")
    assert summary, f"set_stats hosted_cluster_teardown has no {ns}/{name}: {job.artifacts}"
    assert summary["verified"] is True, summary
    assert summary["aws_remaining"] == 0, summary
    assert job.report_files(f"{ns}-{name}.json") and job.report_files(f"{ns}-{name}.md"), os.listdir(job.reports)
    # AWX gets the page's path; the page is there, with a bar per gate
    # (the path is the worker's; the page itself came back through the stream with the reports)
    assert summary["html_path"].endswith(f"/reports/{ns}-{name}.html"), summary
    with open(os.path.join(job.reports, f"{ns}-{name}.json")) as f:
        report = json.load(f)
    gates = report["gates"]
    assert _read(job.report_files(f"{ns}-{name}.html")).count('data-section="Gates"') == len(gates)
    # the seed has no cleanup annotation: the role added it (molecule's hosted_cluster seeds one, found as it was)
    assert report["options"]["cleanup_effective"] and not report["options"]["cleanup_annotation_preexisting"], \
        report["options"]
    assert report["verified"] is True and not report["remaining"], report.get("remaining")
    assert report["verification"]["aws_verified"] is True, report["verification"]
    assert not report["aws"]["remaining"], report["aws"]["remaining"]
    # the worker volumes (root and data) and the guest's persistent volume and load balancer, tracked by ID from
    # the baseline and each found absent or terminal by the role's own look by ID
    volumes = job.seed["aws"].get("AWS::EC2::Volume", []) + job.seed["guest_cloud"]["AWS::EC2::Volume"]
    guest_lbs = job.seed["guest_cloud"]["AWS::ElasticLoadBalancing::LoadBalancer"]
    assert len(volumes) >= 3, job.seed["aws"]
    tracked = {(r["type"], r["id"]): r["state"] for r in report["verification"]["tracked"]}
    for rtype, ids in (("AWS::EC2::Volume", volumes), ("AWS::ElasticLoadBalancing::LoadBalancer", guest_lbs)):
        for i in ids:
            assert tracked.get((rtype, i)) in ("absent", "terminal"), (rtype, i, report["verification"]["tracked"])
    check_real_managers(job)


def check_real_managers(job):
    """The workers went the upstream way: the CAPI manager deleted the Machines (the gates watch absence, whoever
    deletes), CAPA took its finalizer off each AWSMachine once the instance was gone, and the terminations of the
    instances came from CAPA's aws-sdk-go-v2, not from Python; the instances are terminated."""
    hcp = job.seed["hcp_namespace"]
    machines = job.seed["machines"]
    assert len(machines) >= 2, machines

    def by(reqs, user, verb, resource):
        return [r for r in reqs if r.get("user", {}).get("username") == user and r.get("verb") == verb
                and (r.get("objectRef") or {}).get("resource") == resource
                and (r.get("objectRef") or {}).get("namespace") == hcp]
    reqs = job.audit.lines(having=f'"{hcp}"')
    deleted = {r["objectRef"]["name"] for r in by(reqs, "capi-manager", "delete", "machines")}
    assert deleted == {m["machine"] for m in machines}, deleted
    capi_agents = {r["userAgent"] for r in by(reqs, "capi-manager", "delete", "machines")}
    assert capi_agents and not any("python" in a.lower() for a in capi_agents), capi_agents
    assert {r["objectRef"]["name"] for r in by(reqs, "capa-manager", "patch", "awsmachines")
            + by(reqs, "capa-manager", "update", "awsmachines")} >= deleted
    # the terminations of this cluster's instances (other jobs and tests terminate theirs at the same time)
    ours = {m["instance_id"] for m in machines}
    terminate = [r for r in job.aws_log.lines(settle=0, having="TerminateInstances")
                 if r["action"] == "TerminateInstances" and ours & set(r.get("instance_ids", []))]
    assert terminate and all("aws-sdk-go-v2" in r["user_agent"] for r in terminate), terminate
    ec2 = boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
    states = {i["InstanceId"]: i["State"]["Name"]
              for r in ec2.describe_instances(InstanceIds=sorted(ours))["Reservations"] for i in r["Instances"]}
    assert set(states) == ours and set(states.values()) == {"terminated"}, states


def _check_cfn(job):
    results = job.artifacts.get("cfn_refusals")
    assert results, f"set_stats cfn_refusals missing: {job.artifacts}"
    seeded = {s["name"] for s in job.seed["stacks"].values()}
    assert {r["stack"] for r in results} >= seeded, results
    not_done = [r for r in results if r["status"] != "DELETE_COMPLETE"]
    assert not not_done, not_done
    cleared = {ref["class"] for r in results for ref in r["refusals"]}
    assert {"BucketNotEmpty", "DeleteConflict"} <= cleared, results
    page = _read(job.report_files("cfn_refusals-report.html"))
    for name in seeded:
        assert 'data-label="%s"' % name in page, name
    assert "```mermaid" in _read(job.report_files("cfn_refusals-report.md"))


def _check_sweep(job):
    summary = job.artifacts.get("orphan_sweep")
    assert summary, f"set_stats orphan_sweep missing: {job.artifacts}"
    assert sorted(summary["destroyed"]) == sorted(job.seed["orphans"]), summary
    assert summary["verified"] is True and summary["failed"] == [], summary
    assert job.report_files("orphan-sweep-*.json") and job.report_files("orphan-sweep-*.md"), os.listdir(job.reports)


def _check_diagnose(job):
    summary = job.artifacts.get("diagnose_deletion")
    assert summary, f"set_stats diagnose_deletion missing: {job.artifacts}"
    # the captf scenario's TerraformCluster, deleted and held on its state: CAPTF's finalizer is the blocker
    assert summary["state"] == "present", summary
    names = [b["name"] for b in summary["blockers"] if b["what"] == "finalizer"]
    assert "terraformcluster.infrastructure.cluster.x-k8s.io" in names, summary
    assert job.report_files("diagnose-*.json") and job.report_files("diagnose-*.html"), os.listdir(job.reports)


PLAYBOOKS = {
    "prune_releases.yml": Row(
        seed=lambda tag: ["releases", "--name", tag, "--namespace", tag, "--count", "2", "--knob", "hook_seconds=0.2"],
        extravars=lambda tag, seed, reports: {
            "release_namespace": tag,
            "release_names": ",".join(sorted(o["name"] for o in seed["objects"] if o["kind"] == "Release")),
            "prune_cluster": "false", "allow_orphaned_workloads": "false", "timeout": 180, "report_dir": WORKER_REPORTS},
        check=_check_prune),
    "release_held_deletion.yml": Row(
        seed=lambda tag: ["captf", "--name", tag, "--namespace", tag, "--knob", "state=lost"],
        extravars=lambda tag, seed, reports: {
            "held_namespace": tag, "held_kind": "TerraformCluster", "held_name": tag, "prefer_restore": "true",
            "timeout": 180, "report_dir": WORKER_REPORTS},
        check=_check_held),
    # the worker VPC's whole infrastructure (aws_infra, the default) for the verification by ID, and two workers
    # for the real CAPI and CAPA managers to take down
    "destroy_hosted_cluster.yml": Row(
        seed=lambda tag: ["hosted-cluster", "--name", tag, "--namespace", tag, "--knob", "replicas=2"],
        extravars=lambda tag, seed, reports: {
            "hosted_cluster_name": tag, "hosted_cluster_namespace": tag, "destroy_cloud_resources": "true",
            "preserve_iam": "false", "cluster_grace_period": 300, "report_dir": WORKER_REPORTS},
        check=_check_hosted_cluster, timeout=600),
    "clear_cfn_refusals.yml": Row(
        seed=lambda tag: ["cfn-refusals", "--name", tag, "--knob", "classes=bucket,iam"],
        extravars=lambda tag, seed, reports: {
            "cfn_stack_prefix": f"{tag}-", "cfn_select_statuses": "CREATE_COMPLETE,DELETE_FAILED",
            "cfn_clear": EVERY_CFN_REMEDY, "cfn_retain_unclearable": "false",
            "cfn_disable_termination_protection": "false", "cfn_wait_timeout": 300, "report_dir": WORKER_REPORTS},
        check=_check_cfn),
    "diagnose_deletion.yml": Row(
        seed=lambda tag: ["captf", "--name", tag, "--namespace", tag, "--knob", "state=lost"],
        extravars=lambda tag, seed, reports: {
            "api_version": "infrastructure.cluster.x-k8s.io/v1alpha1", "kind": "TerraformCluster", "namespace": tag,
            "name": tag, "report_dir": WORKER_REPORTS},
        check=_check_diagnose, timeout=180),
    # one orphan, beside the protected one and the live cluster: the three swept and verified by ID are
    # test_sweep_orphans_delete.py's; here the stream, the survey's shapes and the artifacts are checked
    "sweep_orphans.yml": Row(
        seed=lambda tag: ["orphans", "--name", tag, "--namespace", tag, "--knob", "orphans=1"],
        extravars=lambda tag, seed, reports: {
            "infra_id_prefix": seed["prefix"], "oidc_bucket": seed["oidc_bucket"], "min_age": "0",
            "sweep_delete": True, "report_dir": WORKER_REPORTS, **target_guards()},
        check=_check_sweep, timeout=600),
}


def test_every_playbook_has_a_row():
    present = sorted(os.path.basename(p) for p in glob.glob(os.path.join(PLAYBOOK_DIR, "*.yml")))
    missing = [p for p in present if p not in PLAYBOOKS]
    assert not missing, (f"playbooks without a row in PLAYBOOKS of {__file__}: {missing}; add the seed, the "
                         "extra vars and the checks of its reports and artifacts")
    stale = [p for p in PLAYBOOKS if p not in present]
    assert not stale, f"rows for playbooks that do not exist: {stale}"


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """Every row's seed and job, all run here: the CPU log (conftest.py) and --durations count this setup towards
    the first row in name order (clear_cfn_refusals.yml), whose own job is among the cheapest."""
    if not os.environ.get("KUBECONFIG"):
        pytest.fail("sandbox environment missing: run through tests/run_all.sh sandbox")
    root = tmp_path_factory.mktemp("runner")
    _, dest = build_and_install(root)
    env = installed_env(dest)
    envvars = job_envvars(f"{dest}:{BUNDLED}")
    started = {}
    # the longest job (a hosted cluster's teardown) starts first; each job starts as soon as its seed is in
    for playbook, row in sorted(PLAYBOOKS.items(), key=lambda item: -item[1].timeout):
        if not os.path.exists(os.path.join(PLAYBOOK_DIR, playbook)):
            continue
        tag = "ar%s%05d" % (playbook[:2].replace("_", ""), random.randrange(100000))
        audit, aws_log = LogTail(os.environ["SANDBOX_AUDIT_LOG"]), LogTail(os.environ["SANDBOX_AWS_LOG"])
        out = subprocess.run([SANDBOX, "seed", *row.seed(tag)], capture_output=True, text=True, timeout=300,
                             check=False)
        assert out.returncode == 0, f"seed for {playbook}: {out.stdout[-2000:]}{out.stderr[-2000:]}"
        seed = json.loads(out.stdout.strip().splitlines()[-1])
        controller = str(root / tag / "controller")
        # the reports arrive with the artifacts the stream brings back
        job = Job(playbook, tag, seed, os.path.join(controller, "artifacts", "job", "reports"), controller,
                  collection_dir(dest), audit, aws_log)
        write_job(controller, row.extravars(tag, seed, job.reports), envvars, row.timeout)
        write_ansible_cfg(os.path.join(controller, "project"))
        job.stream = Stream(controller, str(root / tag / "node"), f"playbooks/{playbook}", "job", row.timeout, env)
        started[playbook] = job
    for job in started.values():
        job.stream.wait()
        job.events = job.stream.events()
    yield started
    # the sweep leaves its world's live hosted cluster alive, as it must
    sweep = started.get("sweep_orphans.yml")
    if sweep is not None:
        retire_hosted_cluster(*sweep.seed["live"]["hosted_cluster"].split("/"))


@pytest.mark.parametrize("playbook", sorted(PLAYBOOKS))
def test_playbook_through_the_runner_stream(jobs, playbook):
    if playbook not in jobs:
        pytest.fail(f"playbooks/{playbook} is in PLAYBOOKS but does not exist")
    job = jobs[playbook]
    assert_stream_succeeded(playbook, job.stream, job.events)
    assert os.path.isdir(os.path.join(job.pdd, "artifacts", "job", "job_events"))
    assert_ran_from_the_installed_copy(job)
    PLAYBOOKS[playbook].check(job)
