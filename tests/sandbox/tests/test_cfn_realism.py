"""CloudFormation deletion in the realism layer, rule by rule, against plain boto3 (tests/sandbox/spec/aws-layer.md,
rules CFN-n; seed 003).

Each test builds a stack, makes one of its resources refuse (or not) the way an operator would,
deletes the stack and reads what AWS would show: the stack's status and reason, the resource still
listed with the service's error, the events. Then it clears the cause and checks the retry resumes.
"""
import json
import os
import sys
import time
import urllib.request
import uuid

import boto3
import botocore.exceptions
import pytest
from conftest import REPO

# alone on the sandbox (tests/run_all.sh runs these after the others, one at a time): it sets the AWS layer's
# CloudFormation knobs (a stack step of an hour, RetainResources off), which every stack shares
pytestmark = pytest.mark.exclusive

TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                 "Principal": {"Service": "ec2.amazonaws.com"}}]}
POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:ListAllMyBuckets",
                                                             "Resource": "*"}]})


def client(service):
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")


def control(method, path, body=None):
    req = urllib.request.Request(os.environ["SANDBOX_AWS_CONTROL"] + "/" + path, method=method,
                                 data=json.dumps(body or {}).encode() if method != "GET" else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


@pytest.fixture(autouse=True)
def fast_waves():
    if not os.environ.get("SANDBOX_AWS_CONTROL"):
        pytest.fail("sandbox environment missing")
    control("POST", "realism/knobs", {"cfn_step_seconds": 0.05, "cfn_retain_resources": 1})
    yield
    control("POST", "realism/knobs", {"cfn_step_seconds": 0.3, "cfn_retain_resources": 1})


cfn, s3, iam, ec2, rds, sqs = (client(s) for s in ("cloudformation", "s3", "iam", "ec2", "rds", "sqs"))


def uid():
    return uuid.uuid4().hex[:8]


def create(template_resources, outputs=None, protect=False):
    name = "t-" + uid()
    body = {"Resources": template_resources}
    if outputs:
        body["Outputs"] = outputs
    arn = cfn.create_stack(StackName=name, TemplateBody=json.dumps(body), Capabilities=["CAPABILITY_NAMED_IAM"],
                           EnableTerminationProtection=protect)["StackId"]
    assert stack(arn)["StackStatus"] == "CREATE_COMPLETE"
    return arn


def stack(arn):
    return cfn.describe_stacks(StackName=arn)["Stacks"][0]


def physical(arn, lid):
    return cfn.describe_stack_resource(StackName=arn, LogicalResourceId=lid)["StackResourceDetail"][
        "PhysicalResourceId"]


def settle(arn, timeout=30):
    """Poll until the stack leaves *_IN_PROGRESS (the bound is a hang guard, not an assertion on time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = stack(arn)
        if not s["StackStatus"].endswith("_IN_PROGRESS"):
            return s
        time.sleep(0.1)
    raise AssertionError(f"{arn} still {s['StackStatus']}")


def resources(arn):
    return {r["LogicalResourceId"]: r for r in cfn.list_stack_resources(StackName=arn)["StackResourceSummaries"]}


def events(arn):
    """Oldest first, as (logical id, status, reason)."""
    evs = cfn.describe_stack_events(StackName=arn)["StackEvents"][::-1]
    return [(e["LogicalResourceId"], e["ResourceStatus"], e.get("ResourceStatusReason")) for e in evs]


def delete_and_settle(arn, **kw):
    cfn.delete_stack(StackName=arn, **kw)
    return settle(arn)


def assert_refused(arn, lid, code):
    s = settle(arn)
    assert s["StackStatus"] == "DELETE_FAILED"
    assert lid in s["StackStatusReason"]
    row = resources(arn)[lid]
    assert row["ResourceStatus"] == "DELETE_FAILED"
    assert f"Error Code: {code}" in row["ResourceStatusReason"]
    assert (lid, "DELETE_FAILED", row["ResourceStatusReason"]) in events(arn)
    return row


def validation_error(fn, **kw):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        fn(**kw)
    assert e.value.response["Error"]["Code"] == "ValidationError"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    return e.value.response["Error"]["Message"]


def versioned_bucket(extra=None):
    return {"Bucket": {"Type": "AWS::S3::Bucket", "Properties": {
        "BucketName": "t-" + uid(), "VersioningConfiguration": {"Status": "Enabled"}}}, **(extra or {})}


def empty(bucket):
    vs = s3.list_object_versions(Bucket=bucket)
    for v in vs.get("Versions", []) + vs.get("DeleteMarkers", []):
        s3.delete_object(Bucket=bucket, Key=v["Key"], VersionId=v["VersionId"])


def test_delete_is_asynchronous_and_resumes_when_let_go():
    arn = create({"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "t-" + uid()}}})
    control("POST", "realism/knobs", {"cfn_step_seconds": 3600})
    cfn.delete_stack(StackName=arn, ClientRequestToken="tok-" + uid())
    assert stack(arn)["StackStatus"] == "DELETE_IN_PROGRESS"
    assert resources(arn)["Queue"]["ResourceStatus"] == "CREATE_COMPLETE"
    assert arn in control("GET", "realism")["pending"]["cfn_deleting"]
    control("POST", "realism/knobs", {"cfn_step_seconds": 0.05})
    assert settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    evs = cfn.describe_stack_events(StackName=arn)["StackEvents"]
    tokens = {e.get("ClientRequestToken") for e in evs if "DELETE" in e["ResourceStatus"]}
    assert len(tokens) == 1 and tokens.pop().startswith("tok-")  # one operation, one token on all its events


def test_request_log_counts_a_layer_answered_delete_as_mutating():
    arn = create({"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "t-" + uid()}}})
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        f.seek(0, 2)
        cfn.delete_stack(StackName=arn)
        rows = [json.loads(line) for line in f.read().splitlines()]
    row = [r for r in rows if r["action"] == "DeleteStack"][-1]
    assert row["status"] == 200 and row["service"] == "cloudformation"
    assert not row.get("injected")  # a real mutation, not a fault or a refusal
    settle(arn)


def test_resources_go_in_reverse_dependency_order():
    q = "t-" + uid()
    arn = create({
        "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": q}},
        "ByRef": {"Type": "AWS::SSM::Parameter", "Properties": {
            "Name": "/t/" + uid(), "Type": "String", "Value": {"Ref": "Queue"}}},
        "BySub": {"Type": "AWS::SSM::Parameter", "Properties": {
            "Name": "/t/" + uid(), "Type": "String", "Value": {"Fn::Sub": "${ByRef}-sub"}}},
        "ByGetAtt": {"Type": "AWS::SSM::Parameter", "Properties": {
            "Name": "/t/" + uid(), "Type": "String", "Value": {"Fn::GetAtt": ["Queue", "Arn"]}}},
        "ByDependsOn": {"Type": "AWS::SSM::Parameter", "DependsOn": ["BySub"], "Properties": {
            "Name": "/t/" + uid(), "Type": "String", "Value": "x"}}})
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    order = [lid for lid, status, _ in events(arn) if status == "DELETE_COMPLETE" and lid != stack(arn)["StackName"]]
    # waves: what nothing depends on first (ByDependsOn, ByGetAtt), then BySub, ByRef, and Queue last
    assert order == ["ByDependsOn", "ByGetAtt", "BySub", "ByRef", "Queue"]


@pytest.mark.parametrize("content", ["object", "version_and_marker"])
def test_bucket_with_versions_or_markers_refuses_and_retry_resumes(content):
    arn = create(versioned_bucket({"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "t-" + uid()}}}))
    bucket = physical(arn, "Bucket")
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    s3.put_object(Bucket=bucket, Key="k", Body=b"1")
    if content == "version_and_marker":
        s3.delete_object(Bucket=bucket, Key="k")  # no current object left: a version and a delete marker
        assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    cfn.delete_stack(StackName=arn)
    assert_refused(arn, "Bucket", "BucketNotEmpty")
    assert resources(arn)["Queue"]["ResourceStatus"] == "DELETE_COMPLETE"  # deleted stays deleted
    s3.head_bucket(Bucket=bucket)
    empty(bucket)
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    queue_deletes = [e for e in events(arn) if e[0] == "Queue" and e[1] == "DELETE_IN_PROGRESS"]
    assert len(queue_deletes) == 1  # the retry resumed from what was left
    assert bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


@pytest.mark.parametrize("hold", ["managed_policy", "inline_policy", "instance_profile"])
def test_iam_role_held_from_outside_refuses_with_delete_conflict(hold):
    arn = create({"Role": {"Type": "AWS::IAM::Role", "Properties": {
        "RoleName": "t-" + uid(), "AssumeRolePolicyDocument": TRUST}}})
    role = physical(arn, "Role")
    if hold == "managed_policy":
        pol = iam.create_policy(PolicyName="t-" + uid(), PolicyDocument=POLICY)["Policy"]["Arn"]
        iam.attach_role_policy(RoleName=role, PolicyArn=pol)
        release = lambda: iam.detach_role_policy(RoleName=role, PolicyArn=pol)  # noqa: E731
    elif hold == "inline_policy":
        iam.put_role_policy(RoleName=role, PolicyName="outside", PolicyDocument=POLICY)
        release = lambda: iam.delete_role_policy(RoleName=role, PolicyName="outside")  # noqa: E731
    else:
        prof = "t-" + uid()
        iam.create_instance_profile(InstanceProfileName=prof)
        iam.add_role_to_instance_profile(InstanceProfileName=prof, RoleName=role)
        release = lambda: iam.remove_role_from_instance_profile(InstanceProfileName=prof, RoleName=role)  # noqa: E731
    # the direct call refuses with the same rule
    with pytest.raises(botocore.exceptions.ClientError) as e:
        iam.delete_role(RoleName=role)
    assert e.value.response["Error"]["Code"] == "DeleteConflict"
    cfn.delete_stack(StackName=arn)
    row = assert_refused(arn, "Role", "DeleteConflict")
    assert e.value.response["Error"]["Message"] in row["ResourceStatusReason"]
    iam.get_role(RoleName=role)
    release()
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    with pytest.raises(botocore.exceptions.ClientError):
        iam.get_role(RoleName=role)


@pytest.mark.parametrize("hold", ["eni", "group_rule"])
def test_security_group_in_use_refuses_with_dependency_violation(hold):
    vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
    arn = create({"Group": {"Type": "AWS::EC2::SecurityGroup", "Properties": {
        "GroupDescription": "held", "VpcId": vpc}}})
    gid = physical(arn, "Group")
    if hold == "eni":
        subnet = ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc]}])["Subnets"][0]["SubnetId"]
        eni = ec2.create_network_interface(SubnetId=subnet, Groups=[gid])["NetworkInterface"]["NetworkInterfaceId"]
        release = lambda: ec2.delete_network_interface(NetworkInterfaceId=eni)  # noqa: E731
    else:
        other = ec2.create_security_group(GroupName="t-" + uid(), Description="refers", VpcId=vpc)["GroupId"]
        ec2.authorize_security_group_ingress(GroupId=other, IpPermissions=[{
            "IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "UserIdGroupPairs": [{"GroupId": gid}]}])
        release = lambda: ec2.delete_security_group(GroupId=other)  # noqa: E731
    cfn.delete_stack(StackName=arn)
    row = assert_refused(arn, "Group", "DependencyViolation")
    assert gid in row["ResourceStatusReason"]
    release()
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    assert not ec2.describe_security_groups(Filters=[{"Name": "group-id", "Values": [gid]}])["SecurityGroups"]


def test_subnet_in_use_refuses_and_what_depends_on_it_is_not_attempted():
    arn = create({
        "Vpc": {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.77.0.0/16"}},
        "Subnet": {"Type": "AWS::EC2::Subnet", "Properties": {"VpcId": {"Ref": "Vpc"}, "CidrBlock": "10.77.1.0/24"}}})
    subnet, vpc = physical(arn, "Subnet"), physical(arn, "Vpc")
    eni = ec2.create_network_interface(SubnetId=subnet)["NetworkInterface"]["NetworkInterfaceId"]
    cfn.delete_stack(StackName=arn)
    row = assert_refused(arn, "Subnet", "DependencyViolation")
    assert subnet in row["ResourceStatusReason"]
    assert resources(arn)["Vpc"]["ResourceStatus"] == "CREATE_COMPLETE"  # never attempted: the subnet is in it
    assert not [e for e in events(arn) if e[0] == "Vpc" and e[1].startswith("DELETE")]
    ec2.delete_network_interface(NetworkInterfaceId=eni)
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    assert not ec2.describe_vpcs(Filters=[{"Name": "vpc-id", "Values": [vpc]}])["Vpcs"]


def test_deletion_protected_db_instance_refuses():
    arn = create({"Database": {"Type": "AWS::RDS::DBInstance", "Properties": {
        "DBInstanceIdentifier": "t-" + uid(), "Engine": "postgres", "DBInstanceClass": "db.t3.micro",
        "AllocatedStorage": "20", "MasterUsername": "admin1", "MasterUserPassword": "sandbox-only-1",
        "DeletionProtection": True}}})
    db = physical(arn, "Database")
    assert rds.describe_db_instances(DBInstanceIdentifier=db)["DBInstances"][0]["DeletionProtection"] is True
    cfn.delete_stack(StackName=arn)
    row = assert_refused(arn, "Database", "InvalidParameterCombination")
    assert "deletion protection" in row["ResourceStatusReason"]
    rds.modify_db_instance(DBInstanceIdentifier=db, DeletionProtection=False, ApplyImmediately=True)
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    assert not [d for d in rds.describe_db_instances()["DBInstances"] if d["DBInstanceIdentifier"] == db]


def test_failed_nested_stack_fails_its_parent_and_both_resume():
    holder, child_bucket = "t-" + uid(), "t-" + uid()
    s3.create_bucket(Bucket=holder)
    s3.put_object(Bucket=holder, Key="child.json", Body=json.dumps({"Resources": {"ChildBucket": {
        "Type": "AWS::S3::Bucket", "Properties": {"BucketName": child_bucket}}}}).encode())
    arn = create({"Child": {"Type": "AWS::CloudFormation::Stack", "Properties": {
        "TemplateURL": f"https://s3.amazonaws.com/{holder}/child.json"}}})
    child = physical(arn, "Child")
    assert stack(child)["ParentId"] == arn and stack(child)["RootId"] == arn
    assert "ParentId" not in stack(arn)
    s3.put_object(Bucket=child_bucket, Key="k", Body=b"1")
    cfn.delete_stack(StackName=arn)
    s = settle(arn)
    assert s["StackStatus"] == "DELETE_FAILED"
    row = resources(arn)["Child"]
    assert row["ResourceStatus"] == "DELETE_FAILED"
    assert row["PhysicalResourceId"] == child
    assert row["ResourceStatusReason"].startswith(f"Embedded stack {child} was not successfully deleted")
    assert stack(child)["StackStatus"] == "DELETE_FAILED"
    assert resources(child)["ChildBucket"]["ResourceStatus"] == "DELETE_FAILED"
    s3.delete_object(Bucket=child_bucket, Key="k")
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    assert stack(child)["StackStatus"] == "DELETE_COMPLETE"


@pytest.mark.parametrize("policy", ["Retain", "Snapshot", "RetainExceptOnCreate"])
def test_deletion_policy_skips_the_resource(policy):
    q = "t-" + uid()
    arn = create({"Kept": {"Type": "AWS::SQS::Queue", "DeletionPolicy": policy, "Properties": {"QueueName": q}}})
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    assert resources(arn)["Kept"]["ResourceStatus"] == "DELETE_SKIPPED"
    assert ("Kept", "DELETE_SKIPPED", None) in events(arn)
    assert ("Kept", "DELETE_IN_PROGRESS", None) not in events(arn)
    sqs.get_queue_url(QueueName=q)  # still there


def _failed_bucket_stack():
    arn = create(versioned_bucket({"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "t-" + uid()}}}))
    bucket = physical(arn, "Bucket")
    s3.put_object(Bucket=bucket, Key="k", Body=b"1")
    return arn, bucket


def test_retain_resources_only_from_delete_failed_and_not_for_deleted_resources():
    arn, bucket = _failed_bucket_stack()
    msg = validation_error(cfn.delete_stack, StackName=arn, RetainResources=["Bucket"])
    assert "DELETE_FAILED" in msg
    assert stack(arn)["StackStatus"] == "CREATE_COMPLETE"  # refused before any change
    cfn.delete_stack(StackName=arn)
    assert_refused(arn, "Bucket", "BucketNotEmpty")
    assert "DELETE_FAILED" in validation_error(cfn.update_stack, StackName=arn, UsePreviousTemplate=True)
    msg = validation_error(cfn.delete_stack, StackName=arn, RetainResources=["Bucket", "Queue"])
    assert "DELETE_COMPLETE" in msg
    assert stack(arn)["StackStatus"] == "DELETE_FAILED"
    assert delete_and_settle(arn, RetainResources=["Bucket"])["StackStatus"] == "DELETE_COMPLETE"
    assert resources(arn)["Bucket"]["ResourceStatus"] == "DELETE_SKIPPED"
    s3.head_bucket(Bucket=bucket)  # retained: still there, still non-empty


def test_force_delete_stack_only_from_delete_failed():
    arn, bucket = _failed_bucket_stack()
    msg = validation_error(cfn.delete_stack, StackName=arn, DeletionMode="FORCE_DELETE_STACK")
    assert "FORCE_DELETE_STACK" in msg and "DELETE_FAILED" in msg
    assert stack(arn)["StackStatus"] == "CREATE_COMPLETE"
    cfn.delete_stack(StackName=arn)
    assert_refused(arn, "Bucket", "BucketNotEmpty")
    assert delete_and_settle(arn, DeletionMode="FORCE_DELETE_STACK")["StackStatus"] == "DELETE_COMPLETE"
    assert resources(arn)["Bucket"]["ResourceStatus"] == "DELETE_SKIPPED"
    s3.head_bucket(Bucket=bucket)


def test_retain_resources_knob_off_ignores_retain_and_force():
    arn, bucket = _failed_bucket_stack()
    cfn.delete_stack(StackName=arn)
    assert_refused(arn, "Bucket", "BucketNotEmpty")
    control("POST", "realism/knobs", {"cfn_retain_resources": 0})
    for kw in ({"RetainResources": ["Bucket"]}, {"DeletionMode": "FORCE_DELETE_STACK"}):
        cfn.delete_stack(StackName=arn, **kw)  # accepted, and the delete runs as a plain retry
        assert_refused(arn, "Bucket", "BucketNotEmpty")
    fails = [e for e in events(arn) if e[0] == "Bucket" and e[1] == "DELETE_FAILED"]
    assert len(fails) == 3
    s3.head_bucket(Bucket=bucket)


def test_termination_protection_refuses_until_turned_off():
    arn = create({"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "t-" + uid()}}}, protect=True)
    name = stack(arn)["StackName"]
    msg = validation_error(cfn.delete_stack, StackName=name)
    assert "TerminationProtection" in msg and name in msg
    assert stack(arn)["StackStatus"] == "CREATE_COMPLETE"
    assert stack(arn)["EnableTerminationProtection"] is True
    cfn.update_termination_protection(StackName=name, EnableTerminationProtection=False)
    assert stack(arn)["EnableTerminationProtection"] is False
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"


def test_export_in_use_fails_the_delete_and_names_the_importer():
    export = "t-export-" + uid()
    exporter = create({"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "t-" + uid()}}},
                      outputs={"Arn": {"Value": {"Fn::GetAtt": ["Queue", "Arn"]}, "Export": {"Name": export}}})
    importer = create({"Param": {"Type": "AWS::SSM::Parameter", "Properties": {
        "Name": "/t/" + uid(), "Type": "String", "Value": {"Fn::ImportValue": export}}}})
    importer_name = stack(importer)["StackName"]
    assert cfn.list_imports(ExportName=export)["Imports"] == [importer_name]
    cfn.delete_stack(StackName=exporter)
    s = settle(exporter)
    assert s["StackStatus"] == "CREATE_COMPLETE"  # back where it was: not a deletion, and no DELETE_FAILED
    why = f"Export {export} cannot be deleted as it is in use by {importer_name}"
    assert s["StackStatusReason"] == why
    assert events(exporter)[-1] == (s["StackName"], "CREATE_COMPLETE", why)
    assert "DELETE_FAILED" not in [e[1] for e in events(exporter)]
    assert resources(exporter)["Queue"]["ResourceStatus"] != "DELETE_COMPLETE"
    assert delete_and_settle(importer)["StackStatus"] == "DELETE_COMPLETE"
    assert "not imported" in validation_error(cfn.list_imports, ExportName=export)
    assert delete_and_settle(exporter)["StackStatus"] == "DELETE_COMPLETE"
    assert export not in [e["Name"] for e in cfn.list_exports()["Exports"]]


def test_resources_already_gone_count_as_deleted():
    vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
    arn = create({
        "Bucket": {"Type": "AWS::S3::Bucket", "Properties": {"BucketName": "t-" + uid()}},
        "Role": {"Type": "AWS::IAM::Role", "Properties": {"RoleName": "t-" + uid(), "AssumeRolePolicyDocument": TRUST}},
        "Group": {"Type": "AWS::EC2::SecurityGroup", "Properties": {"GroupDescription": "x", "VpcId": vpc}},
        "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "t-" + uid()}}})
    s3.delete_bucket(Bucket=physical(arn, "Bucket"))
    iam.delete_role(RoleName=physical(arn, "Role"))
    ec2.delete_security_group(GroupId=physical(arn, "Group"))
    sqs.delete_queue(QueueUrl=sqs.get_queue_url(QueueName=physical(arn, "Queue").rsplit("/", 1)[-1])["QueueUrl"])
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    assert {r["ResourceStatus"] for r in resources(arn).values()} == {"DELETE_COMPLETE"}


def test_deleted_stack_is_found_by_arn_only():
    arn = create({"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "t-" + uid()}}})
    name = stack(arn)["StackName"]
    assert delete_and_settle(arn)["StackStatus"] == "DELETE_COMPLETE"
    msg = validation_error(cfn.describe_stacks, StackName=name)
    assert "does not exist" in msg
    assert stack(arn)["StackStatus"] == "DELETE_COMPLETE"
    cfn.delete_stack(StackName=name)  # deleting what is gone is not an error, and changes nothing
    cfn.delete_stack(StackName=arn)
    assert stack(arn)["StackStatus"] == "DELETE_COMPLETE"


EXPECTED_CODE = {"bucket": "BucketNotEmpty", "iam": "DeleteConflict", "sg": "DependencyViolation",
                 "rds": "InvalidParameterCombination"}


def test_seed_cfn_refusals_gives_one_refusing_stack_per_class(sandbox_cli):
    p = "S" + uid()[:5]
    r = sandbox_cli("seed", "cfn-refusals", "--name", p)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    stacks = out["stacks"]
    assert sorted(stacks) == sorted(["bucket", "iam", "sg", "rds", "parent", "exporter", "importer", "protected",
                                     "retain"])
    for cls, desc in stacks.items():
        assert desc["name"] == f"{p}-{cls}"
        assert stack(desc["arn"])["StackStatus"] == "CREATE_COMPLETE"
    versions = s3.list_object_versions(Bucket=stacks["bucket"]["refuses"][0]["physical_id"])
    assert len(versions.get("Versions", [])) >= 3 and versions.get("DeleteMarkers")
    for cls, code in EXPECTED_CODE.items():
        refusal = stacks[cls]["refuses"][0]
        cfn.delete_stack(StackName=stacks[cls]["arn"])
        row = assert_refused(stacks[cls]["arn"], refusal["logical_id"], code)
        assert row["PhysicalResourceId"] == refusal["physical_id"]
    cfn.delete_stack(StackName=stacks["parent"]["arn"])
    assert settle(stacks["parent"]["arn"])["StackStatus"] == "DELETE_FAILED"
    assert resources(stacks["parent"]["arn"])["Child"]["ResourceStatusReason"].startswith("Embedded stack")
    cfn.delete_stack(StackName=stacks["exporter"]["arn"])
    assert settle(stacks["exporter"]["arn"])["StackStatus"] == "CREATE_COMPLETE"
    assert f"{p}-importer" in stack(stacks["exporter"]["arn"])["StackStatusReason"]
    validation_error(cfn.delete_stack, StackName=stacks["protected"]["name"])
    assert delete_and_settle(stacks["retain"]["arn"])["StackStatus"] == "DELETE_COMPLETE"
    assert resources(stacks["retain"]["arn"])["Kept"]["ResourceStatus"] == "DELETE_SKIPPED"


def scenario():
    """The cfn-refusals scenario module, in process (the CLI path is the test above)."""
    sys.path.insert(0, os.path.join(REPO, "tests", "sandbox"))
    try:
        from sandboxctl.procs import SandboxError
        from sandboxctl.scenarios import cfn_refusals
    finally:
        sys.path.pop(0)
    return cfn_refusals, SandboxError


def test_seed_cfn_refusals_subset_and_retain_resources_off():
    out = scenario()[0].seed(name="S" + uid()[:5], knobs={"classes": "bucket", "retain_resources": "off"})
    assert list(out["stacks"]) == ["bucket"]
    assert out["knobs"]["cfn_retain_resources"] == 0
    assert control("GET", "realism")["knobs"]["cfn_retain_resources"] == 0


def test_seed_cfn_refusals_rejects_an_unknown_class_before_creating_anything():
    cfn_refusals, SandboxError = scenario()
    before = len(cfn.describe_stacks()["Stacks"])
    with pytest.raises(SandboxError, match="nope"):
        cfn_refusals.seed(name="S" + uid()[:5], knobs={"classes": "bucket,nope"})
    assert len(cfn.describe_stacks()["Stacks"]) == before
