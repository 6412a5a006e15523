"""The protect tag in the destroy's AWS cleanup and in clear_cfn_refusals (issue 33, item 3; hypershift#8964: a
cleanup deleted a NAT gateway that carried a cluster's tag, a multi-hour outage).

A seeded hosted cluster (no workers: the AWS side is what is under test) whose NAT gateway also carries
``teardown.gates/protected=true``. One destroy run: the NAT gateway is still there afterwards (looked up by ID), the
run's cleanup result and report list it as kept with the reason, what waits on it (its subnet, its EIP, the
internet gateway, the VPC, IAM) is reported by ID as blocked by it and still there, and the run ends not verified,
naming the kept ID. Nothing else of the infra ID that does not wait on it is left.

clear_cfn_refusals: of two stacks chosen by prefix, the one tagged protected is still there afterwards (looked up
by name), listed as KEPT with the reason in the summary and the report; the other is deleted.
"""
import json
import os
import time

import boto3

from privilege import run_playbook, seed

PROTECTED = "teardown.gates/protected"
NAT = "AWS::EC2::NatGateway"
VPC = "AWS::EC2::VPC"


def _ec2():
    return boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")


def test_a_protected_nat_gateway_is_kept_and_the_run_is_not_verified(tmp_path):
    info = seed("hosted-cluster", "--name", "pr" + os.urandom(2).hex(), "--namespace", "protect",
                "--knob", "replicas=0", "--knob", "zones=1")
    name, ns = info["name"], info["namespace"]
    nat = info["aws"][NAT][0]
    vpc = info["aws"][VPC][0]
    ec2 = _ec2()
    ec2.create_tags(Resources=[nat], Tags=[{"Key": PROTECTED, "Value": "true"}])

    args = {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "report_dir": str(tmp_path / "report"),
            "destroy_cloud_resources": True}
    run = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    text = run.stdout + run.stderr
    # it ends NOT verified, naming the kept NAT gateway (Phase 7's failure), and not at Phase 4's stop
    assert run.returncode != 0, text[-4000:]
    assert "finished, but the teardown is NOT verified" in text and nat in text, text[-4000:]

    # still there, by ID, as is the VPC that waits on it
    nats = ec2.describe_nat_gateways(NatGatewayIds=[nat])["NatGateways"]
    assert [n["State"] for n in nats] == ["available"], nats
    assert [v["VpcId"] for v in ec2.describe_vpcs(VpcIds=[vpc])["Vpcs"]] == [vpc]

    with open(os.path.join(args["report_dir"], "%s-%s.json" % (ns, name))) as f:
        report = json.load(f)
    assert report["verified"] is False
    left = dict((r["id"], r) for r in report["aws"]["remaining"])
    assert left[nat]["outcome"] == "kept" and left[nat]["reason"] == "tagged " + PROTECTED, left.get(nat)
    assert left[vpc]["outcome"] == "blocked" and left[vpc]["blocked_by"] == ["%s %s" % (NAT, nat)], left.get(vpc)
    assert report["verification"]["aws_verified"] is False
    # Phase 6's look by ID is aws_infra_cleanup in check mode: it shows the kept and blocked rows too
    tracked = dict((r["id"], r) for r in report["verification"]["tracked"])
    assert tracked[nat] == {"type": NAT, "id": nat, "state": "present", "kept": "tagged " + PROTECTED}
    assert tracked[vpc] == {"type": VPC, "id": vpc, "state": "present", "blocked_by": ["%s %s" % (NAT, nat)]}
    # everything left is the kept NAT gateway or waits on it: nothing else was given up
    assert all(r["outcome"] == "kept" or r.get("blocked_by") == ["%s %s" % (NAT, nat)]
               for r in report["aws"]["remaining"]), report["aws"]["remaining"]
    # what does not wait on it went (the route tables and security groups do not)
    deleted_types = set(r["type"] for r in report["aws"]["deleted"])
    assert {"AWS::EC2::RouteTable", "AWS::EC2::SecurityGroup"} <= deleted_types, report["aws"]["deleted"]


def test_a_protected_stack_is_kept_and_the_other_deleted(tmp_path):
    prefix = "pr%s-" % os.urandom(2).hex()
    cfn = boto3.client("cloudformation", endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                       region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
    template = json.dumps({"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}})
    arns = {}
    for name, tags in ((prefix + "keep", [{"Key": PROTECTED, "Value": "true"}]), (prefix + "go", [])):
        arns[name] = cfn.create_stack(StackName=name, TemplateBody=template, Tags=tags)["StackId"]
    deadline = time.monotonic() + 30
    for arn in arns.values():
        while cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"] != "CREATE_COMPLETE":
            assert time.monotonic() < deadline, "stack %s not CREATE_COMPLETE within 30 s" % arn
            time.sleep(0.2)
    args = {"cfn_stack_prefix": prefix, "cfn_select_statuses": "CREATE_COMPLETE", "report_dir": str(tmp_path / "report")}
    run = run_playbook("teardown.gates.clear_cfn_refusals", args, str(tmp_path), verbosity="")
    text = run.stdout + run.stderr
    assert run.returncode == 0, text[-4000:]
    assert "%skeep | KEPT (tagged %s)" % (prefix, PROTECTED) in text, text[-4000:]
    assert cfn.describe_stacks(StackName=arns[prefix + "keep"])["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    assert cfn.describe_stacks(StackName=arns[prefix + "go"])["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    reports = [f for f in os.listdir(args["report_dir"]) if f.endswith(".json") and not f.startswith("plan-")]
    with open(os.path.join(args["report_dir"], reports[0])) as f:
        report = json.load(f)
    stacks = dict((st["stack"], st) for st in report["stacks"])
    assert stacks[prefix + "keep"]["status"] == "KEPT" and stacks[prefix + "keep"]["reason"] == "tagged " + PROTECTED
    assert stacks[prefix + "go"]["status"] == "DELETE_COMPLETE"
