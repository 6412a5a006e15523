"""Every playbook in playbooks/ run the way AWX runs it: ansible-runner with a private data dir, the
project checked out as its project folder, the survey's answers as extra vars (in the survey's shapes:
text and multiple-choice answers are strings), against the sandbox.

Each playbook has one row in PLAYBOOKS: the `sandbox seed` that gives it something to do, the extra vars
an operator would enter, and what its report files and set_stats artifacts must say afterwards. A
playbook without a row fails test_every_playbook_has_a_row, so a new one cannot be left out.
The four jobs run at the same time (ansible_runner.run_async): each waits on controllers, not on CPU.
"""
import glob
import json
import os
import random
import subprocess
from dataclasses import dataclass, field
from typing import Callable

import ansible_runner
import pytest

from conftest import REPO, SANDBOX

PLAYBOOK_DIR = os.path.join(REPO, "playbooks")
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
    runner: object = None
    thread: object = None
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
    # the pictures: a bar per batch and per Release, in the page and in the Markdown's Mermaid gantt
    for r in wanted:
        assert 'data-label="Release %s"' % r in page and "Release %s :" % r in md, r


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
    assert summary["html_path"] == os.path.join(job.reports, f"{ns}-{name}.html"), summary
    with open(os.path.join(job.reports, f"{ns}-{name}.json")) as f:
        gates = json.load(f)["gates"]
    assert _read([summary["html_path"]]).count('data-section="Gates"') == len(gates)


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


PLAYBOOKS = {
    "prune_releases.yml": Row(
        seed=lambda tag: ["releases", "--name", tag, "--namespace", tag, "--count", "2", "--knob", "hook_seconds=0.2"],
        extravars=lambda tag, seed, reports: {
            "release_namespace": tag,
            "release_names": ",".join(sorted(o["name"] for o in seed["objects"] if o["kind"] == "Release")),
            "prune_cluster": "false", "allow_orphaned_workloads": "false", "timeout": 180, "report_dir": reports},
        check=_check_prune),
    "release_held_deletion.yml": Row(
        seed=lambda tag: ["captf", "--name", tag, "--namespace", tag, "--knob", "state=lost"],
        extravars=lambda tag, seed, reports: {
            "held_namespace": tag, "held_kind": "TerraformCluster", "held_name": tag, "prefer_restore": "true",
            "timeout": 180, "report_dir": reports},
        check=_check_held),
    "destroy_hosted_cluster.yml": Row(
        seed=lambda tag: ["hosted-cluster", "--name", tag, "--namespace", tag, "--knob", "aws_infra=false"],
        extravars=lambda tag, seed, reports: {
            "hosted_cluster_name": tag, "hosted_cluster_namespace": tag, "destroy_cloud_resources": "true",
            "preserve_iam": "false", "cluster_grace_period": 300, "report_dir": reports},
        check=_check_hosted_cluster, timeout=600),
    "clear_cfn_refusals.yml": Row(
        seed=lambda tag: ["cfn-refusals", "--name", tag, "--knob", "classes=bucket,iam"],
        extravars=lambda tag, seed, reports: {
            "cfn_stack_prefix": f"{tag}-", "cfn_select_statuses": "CREATE_COMPLETE,DELETE_FAILED",
            "cfn_clear": EVERY_CFN_REMEDY, "cfn_retain_unclearable": "false",
            "cfn_disable_termination_protection": "false", "cfn_wait_timeout": 300, "report_dir": reports},
        check=_check_cfn),
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
    if not os.environ.get("KUBECONFIG"):
        pytest.fail("sandbox environment missing: run through tests/run_all.sh sandbox")
    root = tmp_path_factory.mktemp("runner")
    started = {}
    # the longest job (a hosted cluster's teardown) starts first; each job starts as soon as its seed is in
    for playbook, row in sorted(PLAYBOOKS.items(), key=lambda item: -item[1].timeout):
        if not os.path.exists(os.path.join(PLAYBOOK_DIR, playbook)):
            continue
        tag = "ar%s%05d" % (playbook[:2].replace("_", ""), random.randrange(100000))
        out = subprocess.run([SANDBOX, "seed", *row.seed(tag)], capture_output=True, text=True, timeout=300,
                             check=False)
        assert out.returncode == 0, f"seed for {playbook}: {out.stdout[-2000:]}{out.stderr[-2000:]}"
        seed = json.loads(out.stdout.strip().splitlines()[-1])
        reports = str(root / tag / "reports")
        job = Job(playbook, tag, seed, reports, str(root / tag / "pdd"))
        os.makedirs(job.pdd)
        # like AWX: a private data dir per job, the project folder, the survey's answers as extra vars,
        # and the execution environment's settings as environment variables
        job.thread, job.runner = ansible_runner.run_async(
            private_data_dir=job.pdd, project_dir=REPO, playbook=f"playbooks/{playbook}", ident="job",
            extravars=row.extravars(tag, seed, reports), quiet=True, timeout=row.timeout,
            envvars={"ANSIBLE_COLLECTIONS_PATH": os.environ.get("ANSIBLE_COLLECTIONS_PATH",
                                                                os.path.join(REPO, ".venv", "collections")),
                     "ANSIBLE_FORCE_COLOR": "0"})
        started[playbook] = job
    for job in started.values():
        job.thread.join()
        job.events = list(job.runner.events)
    return started


@pytest.mark.parametrize("playbook", sorted(PLAYBOOKS))
def test_playbook_through_ansible_runner(jobs, playbook):
    if playbook not in jobs:
        pytest.fail(f"playbooks/{playbook} is in PLAYBOOKS but does not exist")
    job = jobs[playbook]
    stdout = os.path.join(job.pdd, "artifacts", "job", "stdout")
    tail = open(stdout).read()[-4000:] if os.path.exists(stdout) else "(no stdout artifact)"
    assert job.runner.status == "successful" and job.runner.rc == 0, f"{playbook}: {job.runner.status} rc={job.runner.rc}\n{tail}"
    failed = [e for e in job.events if e.get("event") == "runner_on_failed"
              and not e.get("event_data", {}).get("ignore_errors")]
    assert not failed, [e["event_data"].get("task") for e in failed]
    stats = job.stats_event["event_data"]
    assert not stats.get("failures") and not stats.get("dark"), stats
    assert stats.get("ok"), stats
    assert os.path.isdir(os.path.join(job.pdd, "artifacts", "job", "job_events"))
    ours = {e["event_data"].get("resolved_action") for e in job.events if e.get("event") == "runner_on_ok"}
    assert any(str(a).startswith("teardown.gates.") for a in ours), f"{playbook}: no teardown.gates module ran: {ours}"
    PLAYBOOKS[playbook].check(job)
