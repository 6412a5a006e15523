"""min_age in the plans of prune_releases and clear_cfn_refusals (issue 33, item 3), in check mode only: what was
created less than min_age ago stays out of the plan and is listed as kept, with the reason, as what carries
``teardown.gates/protected=true`` is; and a Release labelled protected is kept as protected (the label wins over
its age). Worlds seeded a moment before are young for ``min_age: 1h``; check mode sends no change, so nothing is left
to clean but the seeded objects."""
import json
import os
import time
import uuid

import boto3
from kubernetes import client

from privilege import run_playbook, seed

PROTECTED = "teardown.gates/protected"
YOUNG = "less than min_age (3600 s) ago"


def _plan(report_dir, prefix):
    plans = [f for f in os.listdir(os.path.join(report_dir, "plans")) if f.startswith(prefix)]
    assert len(plans) == 1, plans
    with open(os.path.join(report_dir, "plans", plans[0])) as f:
        return json.load(f)


def test_young_and_labelled_releases_are_kept_and_their_cluster_too(api_client, tmp_path):
    tag = "ma" + uuid.uuid4().hex[:6]
    seed("releases", "--name", tag, "--namespace", tag, "--count", "2")
    client.CustomObjectsApi(api_client).patch_namespaced_custom_object(
        "core.convoy.kumodo.io", "v1alpha1", tag, "releases", tag + "-01", {"metadata": {"labels": {PROTECTED: "true"}}})
    args = {"release_namespace": tag, "convoy_cluster_name": tag + "-cluster", "prune_cluster": True, "min_age": "1h",
            "report_dir": str(tmp_path / "reports")}
    run = run_playbook("teardown.gates.prune_releases", args, str(tmp_path), verbosity="", check=True)
    text = run.stdout + run.stderr
    assert run.returncode == 0, text[-4000:]
    planned = _plan(args["report_dir"], "plan-release_prune-")
    plan = planned["plan"]
    kept = dict(((k["type"], k["id"]), k["reason"]) for k in plan["kept"])
    young = kept[("Release", "%s/%s-00" % (tag, tag))]
    assert young.startswith("created ") and young.endswith(YOUNG), kept
    assert kept[("Release", "%s/%s-01" % (tag, tag))] == "labelled " + PROTECTED, kept
    # the Cluster holds them: deleting it would take them with it
    assert kept[("Cluster", "%s/%s-cluster" % (tag, tag))] == "holds kept Release(s) %s-00, %s-01" % (tag, tag), kept
    assert not [e for e in plan["entries"] if e["type"] in ("Release", "Cluster")], plan["entries"]
    assert plan["options"]["min_age"] == 3600, plan["options"]
    # the report lists both as kept, with the reason
    with open(os.path.join(args["report_dir"], "release_prune-report.json")) as f:
        report = json.load(f)
    assert sorted((k["name"], k["reason"] == young) for k in report["plan"]["kept"]) == [
        (tag + "-00", True), (tag + "-01", False)], report["plan"]["kept"]


def test_a_just_created_stack_is_kept_as_too_young(tmp_path):
    prefix = "ma%s-" % os.urandom(2).hex()
    cfn = boto3.client("cloudformation", endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                       region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
    template = json.dumps({"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}})
    arn = cfn.create_stack(StackName=prefix + "new", TemplateBody=template)["StackId"]
    deadline = time.monotonic() + 30
    while cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"] != "CREATE_COMPLETE":
        assert time.monotonic() < deadline, "stack %s not CREATE_COMPLETE within 30 s" % arn
        time.sleep(0.2)
    args = {"cfn_stack_prefix": prefix, "cfn_select_statuses": "CREATE_COMPLETE", "min_age": "1h",
            "report_dir": str(tmp_path / "reports")}
    run = run_playbook("teardown.gates.clear_cfn_refusals", args, str(tmp_path), verbosity="", check=True)
    text = run.stdout + run.stderr
    assert run.returncode == 0, text[-4000:]
    assert "%snew | KEPT (created " % prefix in text and YOUNG in text, text[-4000:]
    plan = _plan(args["report_dir"], "plan-cfn_refusals-")["plan"]
    assert plan["entries"] == [] and plan["options"]["min_age"] == 3600, plan
    [kept] = plan["kept"]
    assert kept["id"] == arn and kept["reason"].startswith("created ") and kept["reason"].endswith(YOUNG), kept
    assert cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    cfn.delete_stack(StackName=arn)


def test_a_just_seeded_hosted_cluster_s_aws_resources_are_kept_as_too_young(tmp_path, request):
    """Check mode: each resource by its own creation time (an instance's LaunchTime...), the rest by the
    HostedCluster's creationTimestamp, all a moment ago; none is planned for deletion, each is kept with the reason."""
    from privilege import retire_hosted_cluster
    name = "ma" + uuid.uuid4().hex[:6]
    info = seed("hosted-cluster", "--name", name, "--namespace", name, "--knob", "replicas=0", "--knob", "zones=1")
    request.addfinalizer(lambda: retire_hosted_cluster(info["namespace"], info["name"]))
    args = {"hosted_cluster_name": info["name"], "hosted_cluster_namespace": info["namespace"], "min_age": "1h",
            "destroy_cloud_resources": True, "report_dir": str(tmp_path / "reports")}
    run = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="", check=True)
    text = run.stdout + run.stderr
    assert run.returncode == 0, text[-4000:]
    plan = _plan(args["report_dir"], "plan-hosted_cluster-")["plan"]
    assert plan["options"]["min_age"] == 3600, plan["options"]
    aws = [e for e in plan["entries"] if e["type"].startswith("AWS::")]
    assert aws == [], aws
    kept = dict((k["id"], k["reason"]) for k in plan["kept"] if k["type"].startswith("AWS::"))
    vpc = info["aws"]["AWS::EC2::VPC"][0]
    nat = info["aws"]["AWS::EC2::NatGateway"][0]
    for rid in (vpc, nat):
        assert kept.get(rid, "").startswith("created ") and kept[rid].endswith(YOUNG), (rid, kept)
