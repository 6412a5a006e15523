"""The AWS side of the permission preflight (#33), against the AWS layer's IAM (spec AWS-25 to AWS-29).

The layer: an IAM user's key is refused what its policy does not allow, as AWS refuses it (EC2's
UnauthorizedOperation), DryRun answers without acting, SimulatePrincipalPolicy answers from the same evaluator, and a
key moto's IAM never issued is unaffected. The module: a key whose policy is the project's minus ec2:DeleteVpc fails
the preflight naming ec2:DeleteVpc and nothing else, in check mode too, and sends no mutating request (from the AWS
request log, by the key); where the simulation is refused it falls back to DryRun and leaves the rest unverified.
Each test signs with keys of its own: it runs beside the others."""
import json
import os
import uuid

import boto3
import botocore.exceptions
import pytest

from kubernetes import client as kube

from conftest import REPO
from privilege import (IAM_POLICY, REVIEWS, LogTail, ServiceAccounts, audit_requests, describe, retire_hosted_cluster,
                       run_playbook, seed)

READ_PREFIXES = ("Describe", "List", "Get", "Head")


def client(service, key=None, secret="pf-secret"):
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                        aws_access_key_id=key or "AKIDPF" + uuid.uuid4().hex[:14].upper(),
                        aws_secret_access_key=secret)


def project_policy(without=()):
    with open(IAM_POLICY) as f:
        doc = json.load(f)
    for st in doc["Statement"]:
        st["Action"] = [a for a in st["Action"] if a not in without]
    doc["Statement"] = [st for st in doc["Statement"] if st["Action"]]  # IAM refuses a statement with no action
    return doc


def iam_user(admin_iam, policy):
    """An IAM user with ``policy`` inline and an access key: (key ID, secret, user ARN)."""
    name = "pf-" + uuid.uuid4().hex[:8]
    arn = admin_iam.create_user(UserName=name)["User"]["Arn"]
    admin_iam.put_user_policy(UserName=name, PolicyName="teardown-gates", PolicyDocument=json.dumps(policy))
    key = admin_iam.create_access_key(UserName=name)["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"], arn


def code_of(call, **kw):
    try:
        call(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"]["Message"]
    return None, 200, ""


@pytest.fixture(scope="module")
def admin():
    return {s: client(s) for s in ("iam", "ec2")}


def test_the_restricted_key_is_refused_delete_vpc_as_aws_refuses_it(admin):
    key, secret, arn = iam_user(admin["iam"], project_policy(without={"ec2:DeleteVpc"}))
    ec2 = client("ec2", key, secret)
    vpc = admin["ec2"].create_vpc(CidrBlock="10.77.0.0/16")["Vpc"]["VpcId"]
    try:
        code, status, msg = code_of(ec2.delete_vpc, VpcId=vpc)
        assert (code, status, msg) == ("UnauthorizedOperation", 403, "You are not authorized to perform this operation.")
        assert admin["ec2"].describe_vpcs(VpcIds=[vpc])["Vpcs"]  # still there
        assert ec2.describe_vpcs(VpcIds=[vpc])["Vpcs"]  # what the policy allows passes
        assert code_of(ec2.delete_vpc, VpcId=vpc, DryRun=True)[:2] == ("UnauthorizedOperation", 403)
        assert code_of(ec2.delete_subnet, SubnetId="subnet-0000000000000000a", DryRun=True)[:2] == (
            "DryRunOperation", 412)
        sts_arn = client("sts", key, secret).get_caller_identity()["Arn"]
        assert sts_arn == arn
        # a query API names the principal, the action and the resource
        code, status, msg = code_of(client("iam", key, secret).create_user, UserName="pf-not-allowed")
        assert (code, status) == ("AccessDenied", 403)
        assert msg.startswith("User: %s is not authorized to perform: iam:CreateUser on resource: " % arn), msg
    finally:
        admin["ec2"].delete_vpc(VpcId=vpc)


def test_a_key_with_no_policy_is_unaffected():
    ec2 = client("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.78.0.0/16")["Vpc"]["VpcId"]
    assert code_of(ec2.delete_vpc, VpcId=vpc, DryRun=True)[:2] == ("DryRunOperation", 412)
    assert ec2.describe_vpcs(VpcIds=[vpc])["Vpcs"]  # the dry run deleted nothing
    ec2.delete_vpc(VpcId=vpc)
    assert code_of(ec2.describe_vpcs, VpcIds=[vpc])[0] == "InvalidVpcID.NotFound"


def test_the_simulation_follows_deny_allow_and_arn_patterns(admin):
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "ec2:delete*", "Resource": "arn:aws:ec2:*:*:subnet/*"},
        {"Effect": "Deny", "Action": "ec2:DeleteSubnet", "Resource": "arn:aws:ec2:*:*:subnet/subnet-keep*"},
        {"Effect": "Allow", "NotAction": "iam:*", "Resource": "*", "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "true"}}},
    ]}
    dummy, dummy2, arn = iam_user(admin["iam"], policy)

    def decision(action, resource):
        r = admin["iam"].simulate_principal_policy(PolicySourceArn=arn, ActionNames=[action], ResourceArns=[resource])
        return r["EvaluationResults"][0]["EvalDecision"]
    assert decision("ec2:DeleteSubnet", "arn:aws:ec2:us-east-1:123456789012:subnet/subnet-1") == "allowed"
    assert decision("ec2:DeleteSubnet", "arn:aws:ec2:us-east-1:123456789012:subnet/subnet-keep1") == "explicitDeny"
    assert decision("ec2:DeleteVpc", "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-1") == "implicitDeny"
    # an Allow with a Condition the layer does not evaluate never applies
    assert decision("s3:DeleteBucket", "arn:aws:s3:::b") == "implicitDeny"
    code, status, dummy3 = code_of(admin["iam"].simulate_principal_policy,
                                   PolicySourceArn="arn:aws:iam::123456789012:user/pf-nobody", ActionNames=["ec2:DeleteVpc"])
    assert (code, status) == ("NoSuchEntity", 404)


PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  connection: local
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  tasks:
    - name: Check every AWS permission the destroy will need ({{ item.name }})
      teardown.gates.aws_permission_preflight:
        kind: hosted_cluster
        access_key: "{{ item.key }}"
        secret_key: "{{ item.secret }}"
      check_mode: "{{ item.check }}"
      register: pf
      ignore_errors: true
      loop: "{{ identities }}"
    # a task of its own, outside check mode and passing: the run make test's real-runs check counts for the module
    # (a loop with a failed item ends failed, and its check mode is a template until each item runs)
    - name: Check every AWS permission the destroy will need (the full policy)
      teardown.gates.aws_permission_preflight:
        kind: hosted_cluster
        access_key: "{{ full.key }}"
        secret_key: "{{ full.secret }}"
      register: pf_full
    - name: Keep the results
      ansible.builtin.copy:
        content: "{{ (pf.results + [pf_full]) | to_json }}"
        dest: "{{ workdir }}/preflight.json"
        mode: "0600"
"""


@pytest.fixture(scope="module")
def preflight(admin, tmp_path_factory):
    work = tmp_path_factory.mktemp("aws-preflight")
    ids = {}
    for name, without in (("no-delete-vpc", {"ec2:DeleteVpc"}),
                          ("no-simulation", {"ec2:DeleteVpc", "iam:SimulatePrincipalPolicy"}), ("full", set())):
        key, secret, arn = iam_user(admin["iam"], project_policy(without=without))
        ids[name] = {"name": name, "key": key, "secret": secret, "arn": arn, "check": False}
    ids["no-delete-vpc-check"] = dict(ids["no-delete-vpc"], name="no-delete-vpc-check", check=True)
    order = ["no-delete-vpc", "no-delete-vpc-check", "no-simulation", "full"]
    (work / "play.yml").write_text(PLAYBOOK)
    tail = LogTail(os.environ["SANDBOX_AWS_LOG"])
    out = run_playbook(str(work / "play.yml"), {"identities": [ids[n] for n in order[:-1]], "full": ids["full"],
                                                "workdir": str(work)}, str(work), verbosity="")
    keys = {v["key"] for v in ids.values()}
    log = [r for r in tail.lines(settle=0.2) if r.get("key_id") in keys]
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    results = json.loads((work / "preflight.json").read_text())
    return {"ids": ids, "log": log, "results": dict(zip(order, results))}


@pytest.mark.parametrize("name", ["no-delete-vpc", "no-delete-vpc-check"])
def test_the_preflight_fails_naming_delete_vpc(preflight, name):
    r = preflight["results"][name]
    assert r["failed"] and r["missing"] == ["ec2:DeleteVpc"], r.get("msg")
    assert r["unverified"] == [] and r["simulation_refused"] is None
    assert "ec2:DeleteVpc (implicitDeny by simulation)" in r["msg"]
    assert "extensions/iam/teardown-gates-policy.json" in r["msg"]
    assert r["caller_arn"] == preflight["ids"][name]["arn"]


def test_a_refused_simulation_falls_back_to_dry_run(preflight):
    r = preflight["results"]["no-simulation"]
    assert r["failed"] and r["missing"] == ["ec2:DeleteVpc"], r.get("msg")
    assert "AccessDenied" in r["simulation_refused"]
    rows = {x["action"]: x for x in r["actions"]}
    assert rows["ec2:DeleteVpc"]["how"] == "dry_run" and rows["ec2:DeleteVpc"]["detail"] == "UnauthorizedOperation"
    assert rows["ec2:DeleteSubnet"]["result"] == "allowed" and rows["ec2:DeleteSubnet"]["how"] == "dry_run"
    # the worker and guest volumes' delete is checked the same way (a placeholder VolumeId: AWS checks the permission first)
    assert rows["ec2:DeleteVolume"]["result"] == "allowed" and rows["ec2:DeleteVolume"]["how"] == "dry_run"
    # what neither way can check is never claimed as allowed
    assert "iam:DeleteRole" in r["unverified"] and "ec2:DescribeVpcs" in r["unverified"]


def test_the_full_policy_passes(preflight):
    r = preflight["results"]["full"]
    assert not r.get("failed"), r.get("msg")
    assert r["missing"] == [] and r["unverified"] == [] and "ec2:DeleteVpc" in r["allowed"]


def test_no_mutating_request_from_the_restricted_keys(preflight):
    log = preflight["log"]
    assert {r["action"] for r in log} >= {"GetCallerIdentity", "SimulatePrincipalPolicy", "DeleteVpc"}
    mutating = [r for r in log if not (r["action"].startswith(READ_PREFIXES) or r["action"] == "SimulatePrincipalPolicy"
                                       or r.get("dry_run"))]
    assert not mutating, mutating
    dry = [r for r in log if r.get("dry_run")]
    assert dry and all(r["status"] in (412, 403) for r in dry)
    assert all("(aws_permission_preflight)" in r["user_agent"] for r in log)  # our user agent on every request


def test_clear_cfn_refusals_stops_before_any_change_naming_the_missing_actions(admin, tmp_path):
    """The playbook runs the preflight from roles/before_first_delete, before its first change: a key without
    cloudformation:DeleteStack and s3:DeleteObjectVersion (which cfn_clear=empty_buckets needs) is refused, both named,
    and the AWS log shows the caller's identity and the simulation only."""
    key, secret, dummy = iam_user(admin["iam"], project_policy(
        without={"cloudformation:DeleteStack", "s3:DeleteObjectVersion"}))
    tail = LogTail(os.environ["SANDBOX_AWS_LOG"])
    out = run_playbook(os.path.join(REPO, "playbooks", "clear_cfn_refusals.yml"),
                       {"cfn_stack_prefix": "pf-none-" + uuid.uuid4().hex[:6], "cfn_clear": ["empty_buckets"],
                        "report_dir": str(tmp_path)}, str(tmp_path),
                       {"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret}, verbosity="")
    log = [r for r in tail.lines(settle=0.2) if r.get("key_id") == key]
    assert out.returncode != 0
    assert "cloudformation:DeleteStack (implicitDeny by simulation)" in out.stdout, out.stdout[-3000:]
    assert "s3:DeleteObjectVersion (implicitDeny by simulation)" in out.stdout
    assert [r["action"] for r in log] == ["GetCallerIdentity", "SimulatePrincipalPolicy"], log


@pytest.fixture(scope="module")
def restricted_destroy(admin, api_client, tmp_path_factory):
    """The destroy_hosted_cluster playbook run twice on one HostedCluster with a key whose policy is the project's minus
    ec2:DeleteVpc: with destroy_cloud_resources true, then false with the cleanup annotation set before the run (by
    the seed, as a person may have set it); then once with preflight_only and a key with the whole policy. The world
    is the cheapest the destroy's AWS phase acts on (a VPC, a subnet, one worker) and no run changes it, so each
    reuses it. The run's Kubernetes identity is a ServiceAccount of its own, so the audit log shows its requests
    alone."""
    tag = "pfd" + uuid.uuid4().hex[:6]
    seed("hosted-cluster", "--name", tag, "--namespace", tag, "--knob", "aws_infra=false", "--knob", "replicas=1",
         "--knob", "cleanup_cloud_resources=true")
    work = tmp_path_factory.mktemp("pf-destroy")
    accounts = ServiceAccounts(api_client, str(work))
    try:
        kubeconfig, dummy = accounts.create("destroyer", {"pf-destroy-" + tag: [
            {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}, [], cluster=["pf-destroy-" + tag])
        key, secret, dummy = iam_user(admin["iam"], project_policy(without={"ec2:DeleteVpc"}))
        env = {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig, "AWS_ACCESS_KEY_ID": key,
               "AWS_SECRET_ACCESS_KEY": secret}
        full_key, full_secret, dummy = iam_user(admin["iam"], project_policy())
        runs = {}
        for label, destroy_cloud, extra in ((True, True, {}), (False, False, {}),
                                            ("preflight_only", False, {"preflight_only": True})):
            audit, aws = LogTail(os.environ["SANDBOX_AUDIT_LOG"]), LogTail(os.environ["SANDBOX_AWS_LOG"])
            run_env = dict(env, AWS_ACCESS_KEY_ID=full_key, AWS_SECRET_ACCESS_KEY=full_secret) if extra else env
            out = run_playbook(os.path.join(REPO, "playbooks", "destroy_hosted_cluster.yml"), dict({
                "hosted_cluster_name": tag, "hosted_cluster_namespace": tag, "destroy_cloud_resources": destroy_cloud,
                "report_dir": str(work / ("reports-%s" % label))}, **extra), str(work), run_env, verbosity="")
            runs[label] = {"out": out, "k8s": audit_requests(audit, accounts.username("destroyer")),
                           "aws": [r for r in aws.lines(settle=0) if r.get("key_id") == run_env["AWS_ACCESS_KEY_ID"]],
                           "reports": work / ("reports-%s" % label)}
        hc = kube.CustomObjectsApi(api_client).get_namespaced_custom_object(
            "hypershift.openshift.io", "v1beta1", tag, "hostedclusters", tag)
        yield {"runs": runs, "hc": hc}
    finally:
        accounts.cleanup()
        retire_hosted_cluster(tag, tag)


@pytest.mark.parametrize("destroy_cloud", [True, False], ids=["destroy_cloud_resources", "annotation_set_before"])
def test_the_destroy_playbook_stops_at_the_preflight_naming_delete_vpc(restricted_destroy, destroy_cloud):
    run = restricted_destroy["runs"][destroy_cloud]
    out = run["out"].stdout
    assert run["out"].returncode != 0
    assert "ec2:DeleteVpc (implicitDeny by simulation)" in out, out[-3000:]
    assert "extensions/iam/teardown-gates-policy.json" in out
    assert "lacks 1 permission(s)" in out
    # AWS: the baseline's reads, the caller's identity and the simulation, all by the run's key; nothing else
    actions = [r["action"] for r in run["aws"]]
    assert {"GetCallerIdentity", "SimulatePrincipalPolicy", "DescribeVpcs"} <= set(actions), actions
    mutating = [a for a in actions if not (a.startswith(READ_PREFIXES) or a == "SimulatePrincipalPolicy")]
    assert not mutating, mutating
    # Kubernetes: reads and the access reviews only (the HostedCluster was read, so the run did reach it)
    writes = sorted({describe(r) for r in run["k8s"] if r["verb"] not in ("get", "list", "watch")
                     and not (r["verb"] == "create" and r.get("resource") in REVIEWS)})
    assert not writes, writes
    assert any(r.get("resource") == "hostedclusters" and r["verb"] == "get" for r in run["k8s"]), run["k8s"]


def test_preflight_only_checks_the_aws_permissions_after_the_baseline_and_ends_there(restricted_destroy):
    """destroy_cloud_resources false, the annotation set before: the AWS check still runs (the baseline found the
    cluster's infrastructure), passes with the whole policy, and the play ends with nothing changed or stored."""
    run = restricted_destroy["runs"]["preflight_only"]
    assert run["out"].returncode == 0, run["out"].stdout[-3000:]
    actions = [r["action"] for r in run["aws"]]
    assert actions.count("SimulatePrincipalPolicy") == 3 and actions[-1] == "SimulatePrincipalPolicy", actions
    assert all(a.startswith(READ_PREFIXES) or a == "SimulatePrincipalPolicy" for a in actions), actions
    assert not [r for r in run["k8s"] if r["verb"] not in ("get", "list", "watch")
                and not (r["verb"] == "create" and r.get("resource") in REVIEWS)]
    assert not list(run["reports"].glob("*.baseline.json"))  # ended before the baseline is stored


def test_the_hosted_cluster_is_as_it_was_after_the_three_runs(restricted_destroy):
    md = restricted_destroy["hc"]["metadata"]
    assert "openshift.io/destroy-cluster" not in (md.get("finalizers") or [])  # the CLI finalizer never added
    assert not md.get("deletionTimestamp")
    assert md["annotations"].get("hypershift.openshift.io/cleanup-cloud-resources") == "true"  # the seed's, as before
