"""Check mode sends no request but reads, for every playbook, counted where the operator would count them: the
API server's audit log (every request of the run's own ServiceAccount, whichever module sent it: ours,
kubernetes.core's or amazon.aws's) and the AWS layer's request log (every request signed with the run's own
access key). A world that each playbook would change is seeded first, so a run that mutated would show it."""
import collections
import glob
import json
import os
import uuid

import pytest

from privilege import REVIEWS, LogTail, ServiceAccounts, audit_requests, describe, retire_hosted_cluster, run_playbook, seed

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PLAYBOOK_DIR = os.path.join(REPO, "playbooks")
KUBERNETES_READS = {"get", "list", "watch"}
AWS_READ_PREFIXES = ("Describe", "List", "Get", "Head")
# the permission preflight's checks change nothing either, as aws_client's check-mode guard allows them: IAM's policy
# simulation, and EC2 calls with DryRun (the AWS log marks them dry_run)
AWS_PERMISSION_CHECKS = {"SimulatePrincipalPolicy"}
# a role that allows everything, so that what the run sends is decided by the run alone
EVERYTHING = [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
              {"nonResourceURLs": ["*"], "verbs": ["get"]}]


def _releases(tag):
    seed("releases", "--name", tag, "--namespace", tag, "--count", "2")
    return {"release_namespace": tag, "convoy_cluster_name": tag + "-cluster", "prune_cluster": True}


def _held(tag):
    seed("captf", "--name", tag, "--namespace", tag, "--knob", "state=lost")
    return {"held_namespace": tag, "held_kind": "TerraformCluster", "held_name": tag, "prefer_restore": True}


def _hosted_cluster(tag):
    seed("hosted-cluster", "--name", tag, "--namespace", tag)  # with its AWS infrastructure: the plan reads it
    return {"hosted_cluster_name": tag, "hosted_cluster_namespace": tag, "destroy_cloud_resources": True,
            "preserve_iam": False}


def _cfn(tag):
    seed("cfn-refusals", "--name", tag, "--knob", "classes=bucket,iam,sg")
    return {"cfn_stack_prefix": tag + "-", "cfn_select_statuses": "CREATE_COMPLETE,DELETE_FAILED",
            "cfn_clear": "empty_buckets,detach_iam,release_dependencies"}


WORLDS = {
    "prune_releases.yml": _releases,
    "release_held_deletion.yml": _held,
    "destroy_hosted_cluster.yml": _hosted_cluster,
    "clear_cfn_refusals.yml": _cfn,
}
# playbooks checked the same way (a ServiceAccount that may do everything sends only reads; no AWS write by the
# run's key) in a test that seeds the same world anyway, so that world is not seeded twice
CHECKED_ELSEWHERE = {
    "diagnose_deletion.yml": "test_diagnose_deletion.py::test_it_reads_only_with_our_agent_and_the_shipped_role_covers_it",
    "sweep_orphans.yml": "test_sweep_orphans.py::test_check_mode_lists_exactly_the_three_and_changes_nothing",
}


def test_every_playbook_is_checked():
    present = sorted(os.path.basename(p) for p in glob.glob(os.path.join(PLAYBOOK_DIR, "*.yml")))
    assert sorted(list(WORLDS) + list(CHECKED_ELSEWHERE)) == present
    here = os.path.dirname(__file__)
    for playbook, where in CHECKED_ELSEWHERE.items():
        path, name = where.split("::")
        with open(os.path.join(here, path)) as f:
            assert "def %s(" % name in f.read(), (playbook, where)


@pytest.fixture()
def accounts(api_client, tmp_path):
    sa = ServiceAccounts(api_client, str(tmp_path))
    yield sa
    sa.cleanup()


@pytest.mark.parametrize("playbook", sorted(WORLDS))
def test_check_mode_sends_reads_only(playbook, accounts, tmp_path, request):
    tag = "cm" + uuid.uuid4().hex[:6]
    extra = dict(WORLDS[playbook](tag), report_dir=str(tmp_path / "reports"))
    if playbook == "destroy_hosted_cluster.yml":
        request.addfinalizer(lambda: retire_hosted_cluster(tag, tag))
    kubeconfig, dummy_token = accounts.create("checker", {"teardown-gates-check-" + tag: EVERYTHING}, [],
                                              cluster=["teardown-gates-check-" + tag])
    key_id = "AKIDCHECK" + uuid.uuid4().hex[:11].upper()
    audit, aws = LogTail(os.environ["SANDBOX_AUDIT_LOG"]), LogTail(os.environ["SANDBOX_AWS_LOG"])
    out = run_playbook("teardown.gates." + playbook[:-len(".yml")], extra, str(tmp_path),
                       {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig, "AWS_ACCESS_KEY_ID": key_id},
                       verbosity="", check=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    k8s = audit_requests(audit, accounts.username("checker"))
    calls = [r for r in aws.lines(settle=0) if r.get("key_id") == key_id]
    writes = sorted({describe(r) for r in k8s if r["verb"] not in KUBERNETES_READS
                     and not (r["verb"] == "create" and r.get("resource") in REVIEWS)})
    assert not writes, "%s in check mode sent to the API server: %s" % (playbook, writes)
    aws_writes = sorted({"%s:%s" % (r["service"], r["action"]) for r in calls
                         if not (r["action"].startswith(AWS_READ_PREFIXES) or r["action"] in AWS_PERMISSION_CHECKS
                                 or r.get("dry_run"))})
    assert not aws_writes, "%s in check mode sent to AWS: %s" % (playbook, aws_writes)
    # the run did look: a check that read nothing would pass the two assertions above for nothing
    assert k8s or calls, "%s in check mode sent no request at all" % playbook
    if playbook == "prune_releases.yml":
        # the check run's report says so and plans both Releases (the release_prune target, out of make test, did)
        report = json.loads((tmp_path / "reports" / "release_prune-report.json").read_text())
        assert report["check_mode"] is True and len(report["plan"]["releases"]) == 2, report.get("plan")
    print("check-mode %s: kubernetes %s; aws %s" % (playbook, json.dumps(collections.Counter(r["verb"] for r in k8s)),
                                                   json.dumps(collections.Counter(r["service"] for r in calls))))
