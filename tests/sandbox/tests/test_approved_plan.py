"""The approved plan (#33), on sweep_orphans and a world of its own (one orphaned infra ID: a VPC and a subnet
tagged with its cluster tag, made here with plain boto3, so that its cleanup waits on no NAT gateway):

* a check run writes the plan and its plan_digest into the report JSON;
* a malformed approved_plan_digest fails before any AWS request, naming the option;
* one more resource tagged into scope (a security group with the infra ID's cluster tag), then an apply with the
  old digest: refused before any change, naming the added resource; not one mutating AWS request by the run's key,
  and the orphan's resources all still there;
* a new check gives another digest; the apply with it proceeds and destroys the orphan, the new group included.

Every run signs its AWS requests with an access key ID of its own, so that its requests are picked out of
SANDBOX_AWS_LOG whatever else runs."""
import json
import os
import uuid

import boto3

from privilege import LogTail, run_playbook, target_guards
from test_sweep_orphans import mutating

SG = "AWS::EC2::SecurityGroup"


def ec2():
    return boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")


def run(infra, workdir, report_dir, check=False, **extra):
    key = "AKAP" + uuid.uuid4().hex[:16].upper()
    env = {"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": "plan" + uuid.uuid4().hex}
    vars_ = {"infra_id_prefix": infra, "min_age": "0", "report_dir": str(report_dir), "aws_cleanup_timeout": 120}
    vars_.update(extra)
    if vars_.get("sweep_delete"):
        vars_.update(target_guards())  # a sweep that deletes requires the target guards and the typed account
    before = set(report_dir.glob("orphan-sweep-*.json")) if report_dir.exists() else set()
    tail = LogTail(os.environ["SANDBOX_AWS_LOG"])
    out = run_playbook("teardown.gates.sweep_orphans", vars_, str(workdir), env, verbosity="", check=check)
    requests = [r for r in tail.lines(settle=0.2) if r.get("key_id") == key]
    new = sorted(set(report_dir.glob("orphan-sweep-*.json")) - before) if report_dir.exists() else []
    doc = json.loads(new[-1].read_text()) if new else None
    return out, requests, doc


def vpc_present(vpc):
    return bool(ec2().describe_vpcs(Filters=[{"Name": "vpc-id", "Values": [vpc]}])["Vpcs"])


def test_apply_with_an_old_digest_is_refused_naming_the_difference_and_a_new_digest_proceeds(tmp_path):
    infra = "apl" + uuid.uuid4().hex[:5]
    tag = [{"Key": "kubernetes.io/cluster/" + infra, "Value": "owned"}]
    vpc = ec2().create_vpc(CidrBlock="10.77.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2().create_subnet(VpcId=vpc, CidrBlock="10.77.1.0/24")["Subnet"]["SubnetId"]
    ec2().create_tags(Resources=[vpc, subnet], Tags=tag)
    reports = tmp_path / "reports"

    out, requests, doc = run(infra, tmp_path, reports, check=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    old = doc["plan_digest"]
    assert len(old) == 64 and doc["plan"]["kind"] == "orphan_sweep"
    planned = [(e["action"], e["type"], e["id"]) for e in doc["plan"]["entries"]]
    assert ("delete", "AWS::EC2::VPC", vpc) in planned and ("delete", "AWS::EC2::Subnet", subnet) in planned
    assert mutating(requests) == []

    # a malformed digest: refused before any request, naming the option
    out, requests, doc = run(infra, tmp_path, reports, sweep_delete=True, approved_plan_digest="not-a-digest")
    assert out.returncode != 0
    assert "approved_plan_digest: must be the 64 hexadecimal characters" in out.stdout
    assert requests == []

    # the world changes: one more resource tagged into the infra ID's scope
    sg = ec2().create_security_group(GroupName=infra + "-late", Description="tagged in after the review", VpcId=vpc)["GroupId"]
    ec2().create_tags(Resources=[sg], Tags=tag)

    out, requests, doc = run(infra, tmp_path, reports, sweep_delete=True, approved_plan_digest=old)
    assert out.returncode != 0, out.stdout[-3000:]
    assert "Refused before any change" in out.stdout
    assert "added: delete %s %s" % (SG, sg) in out.stdout, out.stdout[-3000:]
    assert "from the check run's report in report_dir" in out.stdout
    assert requests, "the refused run's reads were not found in the AWS log"
    assert mutating(requests) == [], "the refused run sent %s" % mutating(requests)
    assert vpc_present(vpc)

    out, requests, doc = run(infra, tmp_path, reports, check=True)
    assert out.returncode == 0, out.stdout[-3000:]
    new = doc["plan_digest"]
    assert new != old
    assert (SG, sg) in [(e["type"], e["id"]) for e in doc["plan"]["entries"]]

    out, requests, doc = run(infra, tmp_path, reports, sweep_delete=True, approved_plan_digest=new)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert doc["plan_digest"] == new and doc["approved_plan_digest"] == new
    assert doc["summary"]["destroyed"] == [infra] and doc["summary"]["verified"] is True
    assert mutating(requests)
    assert not vpc_present(vpc)
    assert not ec2().describe_security_groups(Filters=[{"Name": "group-id", "Values": [sg]}])["SecurityGroups"]
