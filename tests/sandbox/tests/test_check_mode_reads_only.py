"""Check mode sends no request but reads, for every playbook, counted where the operator would count them: the
API server's audit log (every request of the run's own ServiceAccount, whichever module sent it: ours,
kubernetes.core's or amazon.aws's) and the AWS layer's request log (every request signed with the run's own
access key). A world that each playbook would change is seeded first, so a run that mutated would show it.

The same world then shows the approved plan's refusal (#33) for these four playbooks (sweep_orphans' is
test_approved_plan.py): the check run's plan digest is kept, the world changes in a way that changes that kind's plan
(one more Release of the pruned Cluster, one more held object, one more stack with the prefix, one more security
group tagged into the hosted cluster's infra ID), and an apply with the old approved_plan_digest is refused before
any change: its failure names what was added and asks for a new check, and the run's ServiceAccount and access key
sent not one mutating request."""
import collections
import glob
import json
import os
import re
import time
import uuid

import boto3
import pytest
from kubernetes import client

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
    # every deleting object of the namespace (no held_name): one more held object is one more entry of the plan
    return {"held_namespace": tag, "held_kind": "TerraformCluster", "held_name": "", "prefer_restore": True}


def _hosted_cluster(tag):
    # with its AWS infrastructure (the plan reads it) and no Machines: the real CAPI and CAPA managers replace and
    # terminate seeded workers on their own, and a root volume that goes with its instance between the check and the
    # apply changed the plan by itself in one make test (2026-12-04), where the refusal must name only our change
    seed("hosted-cluster", "--name", tag, "--namespace", tag, "--knob", "replicas=0")
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


# The world changes after the check run, each in a way that changes that kind's plan (kinds/<kind>.py plan()); each
# returns the line the refusal must show for it.
def _one_more_release(tag, planned, api):
    """A Release of the pruned Cluster, made after the review: the plan deletes one Release more."""
    body = {"apiVersion": "core.convoy.kumodo.io/v1alpha1", "kind": "Release",
            "metadata": {"name": tag + "-late", "namespace": tag},
            "spec": {"clusterRef": {"name": tag + "-cluster"}, "targetNamespace": tag + "-target",
                     "source": {"type": "gitRepository", "gitRepository": {"name": "podinfo", "namespace": tag}},
                     "content": {"type": "helm", "helm": {"path": "charts/podinfo", "releaseName": tag + "-late"}}}}
    client.CustomObjectsApi(api).create_namespaced_custom_object("core.convoy.kumodo.io", "v1alpha1", tag, "releases", body)
    return "added: delete Release %s/%s-late" % (tag, tag)


def _one_more_held(tag, planned, api):
    """Another TerraformCluster of the namespace held on its lost state: the plan restores one object more."""
    seed("captf", "--name", tag + "-late", "--namespace", tag, "--knob", "state=lost")
    return "added: restore TerraformCluster %s/%s-late" % (tag, tag)


def _one_more_stack(tag, planned, api):
    """A stack whose name has the prefix, created after the review: the plan deletes one stack more."""
    cfn = boto3.client("cloudformation", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name=os.environ["AWS_DEFAULT_REGION"])
    template = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}}
    arn = cfn.create_stack(StackName=tag + "-late", TemplateBody=json.dumps(template))["StackId"]
    deadline = time.monotonic() + 30
    while cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"] != "CREATE_COMPLETE":
        assert time.monotonic() < deadline, "stack %s not CREATE_COMPLETE within 30 s" % arn
        time.sleep(0.2)
    return "added: delete AWS::CloudFormation::Stack %s" % arn


def _one_more_tagged_group(tag, planned, api):
    """A security group in the hosted cluster's VPC, tagged with its infra ID's cluster tag: the AWS cleanup deletes
    one resource more."""
    infra = planned["plan"]["target"]["infra_id"]
    vpc = next(e["id"] for e in planned["plan"]["entries"] if e["type"] == "AWS::EC2::VPC")
    ec2 = boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name=os.environ["AWS_DEFAULT_REGION"])
    sg = ec2.create_security_group(GroupName=infra + "-late", Description="tagged in after the review", VpcId=vpc)["GroupId"]
    ec2.create_tags(Resources=[sg], Tags=[{"Key": "kubernetes.io/cluster/" + infra, "Value": "owned"}])
    return "added: delete AWS::EC2::SecurityGroup %s (of %s)" % (sg, infra)


CHANGES = {
    "prune_releases.yml": _one_more_release,
    "release_held_deletion.yml": _one_more_held,
    "destroy_hosted_cluster.yml": _one_more_tagged_group,
    "clear_cfn_refusals.yml": _one_more_stack,
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
    assert sorted(CHANGES) == sorted(WORLDS)  # each playbook checked here is also shown refusing an old digest
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


def _requests(audit, aws, username, key_id):
    """(the run's Kubernetes requests, its AWS calls, what of them changed something in each)."""
    k8s = audit_requests(audit, username)
    calls = [r for r in aws.lines(settle=0) if r.get("key_id") == key_id]
    writes = sorted({describe(r) for r in k8s if r["verb"] not in KUBERNETES_READS
                     and not (r["verb"] == "create" and r.get("resource") in REVIEWS)})
    aws_writes = sorted({"%s:%s" % (r["service"], r["action"]) for r in calls
                         if not (r["action"].startswith(AWS_READ_PREFIXES) or r["action"] in AWS_PERMISSION_CHECKS
                                 or r.get("dry_run"))})
    return k8s, calls, writes, aws_writes


def _failure(stdout):
    """The msg of the run's last failed task (the one the operator reads last)."""
    assert "FAILED! => " in stdout, stdout[-3000:]
    result, _ = json.JSONDecoder().raw_decode(stdout.rsplit("FAILED! => ", 1)[1])
    return result["msg"]


@pytest.mark.parametrize("playbook", sorted(WORLDS))
def test_check_mode_sends_reads_only_and_an_old_digest_is_refused(playbook, accounts, api_client, tmp_path, request):
    tag = "cm" + uuid.uuid4().hex[:6]
    extra = dict(WORLDS[playbook](tag), report_dir=str(tmp_path / "reports"))
    if playbook == "destroy_hosted_cluster.yml":
        request.addfinalizer(lambda: retire_hosted_cluster(tag, tag))
    kubeconfig, dummy_token = accounts.create("checker", {"teardown-gates-check-" + tag: EVERYTHING}, [],
                                              cluster=["teardown-gates-check-" + tag])
    key_id = "AKIDCHECK" + uuid.uuid4().hex[:11].upper()
    env = {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig, "AWS_ACCESS_KEY_ID": key_id}
    audit, aws = LogTail(os.environ["SANDBOX_AUDIT_LOG"]), LogTail(os.environ["SANDBOX_AWS_LOG"])
    out = run_playbook("teardown.gates." + playbook[:-len(".yml")], extra, str(tmp_path), env, verbosity="", check=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    k8s, calls, writes, aws_writes = _requests(audit, aws, accounts.username("checker"), key_id)
    assert not writes, "%s in check mode sent to the API server: %s" % (playbook, writes)
    assert not aws_writes, "%s in check mode sent to AWS: %s" % (playbook, aws_writes)
    # the run did look: a check that read nothing would pass the two assertions above for nothing
    assert k8s or calls, "%s in check mode sent no request at all" % playbook
    if playbook == "prune_releases.yml":
        # the check run's report says so and plans both Releases (the release_prune target, out of make test, did)
        report = json.loads((tmp_path / "reports" / "release_prune-report.json").read_text())
        assert report["check_mode"] is True and len(report["plan"]["releases"]) == 2, report.get("plan")
    print("check-mode %s: kubernetes %s; aws %s" % (playbook, json.dumps(collections.Counter(r["verb"] for r in k8s)),
                                                   json.dumps(collections.Counter(r["service"] for r in calls))))

    # the check run's plan file holds the digest an approver copies
    plans = sorted((tmp_path / "reports" / "plans").glob("plan-*.json"))
    assert len(plans) == 1, plans
    planned = json.loads(plans[0].read_text())
    assert len(planned["plan_digest"]) == 64 and planned["plan"]["entries"], planned
    # the playbooks whose check run writes a report carry the same plan and digest in its JSON
    reported = {"prune_releases.yml": ("release_prune-report.json", lambda r: r["plan"]["digested"]),
                "clear_cfn_refusals.yml": ("cfn_refusals-report.json", lambda r: r["plan"])}
    if playbook in reported:
        name, plan_of = reported[playbook]
        report = json.loads((tmp_path / "reports" / name).read_text())
        assert report["plan_digest"] == planned["plan_digest"] and plan_of(report) == planned["plan"], report
    added = CHANGES[playbook](tag, planned, api_client)

    # the apply with the old digest, by the same ServiceAccount and a key of its own
    key_id = "AKIDAPPLY" + uuid.uuid4().hex[:11].upper()
    env["AWS_ACCESS_KEY_ID"] = key_id
    audit, aws = LogTail(os.environ["SANDBOX_AUDIT_LOG"]), LogTail(os.environ["SANDBOX_AWS_LOG"])
    out = run_playbook("teardown.gates." + playbook[:-len(".yml")], dict(extra, approved_plan_digest=planned["plan_digest"]),
                       str(tmp_path), env, verbosity="")
    assert out.returncode != 0, out.stdout[-3000:]
    k8s, calls, writes, aws_writes = _requests(audit, aws, accounts.username("checker"), key_id)
    assert not writes, "%s refused, yet sent to the API server: %s" % (playbook, writes)
    assert not aws_writes, "%s refused, yet sent to AWS: %s" % (playbook, aws_writes)
    assert k8s or calls, "%s: the refused run's requests were not found in the logs" % playbook
    # what the operator reads last: the refusal, what was added (from the check run's plan file), and the way on
    msg = _failure(out.stdout)
    print("refused %s: %s" % (playbook, msg))
    assert "Refused before any change: the world has changed since the plan was approved" in msg, msg
    assert "approved_plan_digest is %s" % planned["plan_digest"] in msg, msg
    # the addition and nothing else: but for the world's change, the apply recomputed the check run's plan
    assert re.search(r"What differs from the approved plan \(from the check run's report in report_dir\): %s, step "
                     r"[0-9]+\. Review " % re.escape(added), msg), (added, msg)
    assert "Review the new plan (a new check run) and approve its digest" in msg, msg
    if playbook == "destroy_hosted_cluster.yml":
        # the role's failure ladder adds a resume command; a refusal is not a stop to resume (that command, without
        # the digest, would run unapproved), so its way on is a new check, then the apply with the new digest
        assert "(phases that never ran: 2 retain, 3 delete and gates," in msg, msg
        assert msg.endswith(" -e approved_plan_digest=<the new check's plan_digest>"), msg
        assert "Resume: not with the same variables: the old approved_plan_digest is refused again, and nothing was " \
               "changed. Run a new check (ansible-playbook teardown.gates.destroy_hosted_cluster -e " \
               "hosted_cluster_name=%s " % tag in msg, msg
        # and its report of the stopped run says so: a refusal after the baseline, not resumed
        stopped = json.loads((tmp_path / "reports" / ("%s-%s.json" % (tag, tag))).read_text())["stopped"]
        assert stopped["plan_refused"] is True and stopped["phase"] == 1, stopped
        assert stopped["resume"].startswith("not with the same variables"), stopped
    else:
        assert "Resume" not in msg and "same variables" not in msg, msg
