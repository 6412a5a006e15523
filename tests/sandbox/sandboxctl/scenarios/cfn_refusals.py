"""cfn-refusals: one CloudFormation stack per class of refused delete, all in CREATE_COMPLETE.

Stacks, named `<P>-<class>` (P is --name):
  P-bucket     a versioned bucket holding objects, older versions and a delete marker -> BucketNotEmpty
  P-iam        a role that, outside the stack, got a managed policy, an inline policy and an
               instance profile                                                  -> DeleteConflict
  P-sg         a security group used by an ENI and by another group's rule, both made outside the
               stack                                                             -> DependencyViolation
               (the ENI is outside the stack: release_dependencies deletes it only when
               release_outside_stack names it, `outside.sg.network_interface`; #55)
  P-rds        a DB instance with deletion protection on                         -> DeletionProtection
  P-parent     a nested child stack whose bucket is not empty                    -> ChildStackFailed
  P-exporter   exports a value that P-importer imports                           -> ExportInUse
  P-importer   the importer (deletes cleanly once nothing else blocks it)
  P-protected  termination protection on                                         -> TerminationProtection
  P-retain     a bucket with DeletionPolicy Retain (DELETE_SKIPPED, not a refusal) and a queue
               that is deleted

Knobs (`--knob k=v`):
  classes=bucket,iam,sg,rds,parent,exporter,protected,retain   seed a subset (exporter brings importer)
  retain_resources=off    the layer ignores DeleteStack's RetainResources and FORCE_DELETE_STACK, like an
                          emulator that does not implement them (realism knob cfn_retain_resources=0)
  cfn_step_seconds=S      the layer's pause between deletion waves
Layer knobs persist (across layer restarts too) until changed or POST realism/reset.
The last line printed is JSON: for each class the stack's name and ARN, and what will refuse
(logical ID, type, physical ID, class, why), plus what lives outside the stacks (`outside`).
"""
import json
import time
import uuid

from ..procs import SandboxError
from .aws_infra import control
from .common import aws

CLASSES = ("bucket", "iam", "sg", "rds", "parent", "exporter", "protected", "retain")
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                            "Principal": {"Service": "ec2.amazonaws.com"}}]})
POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:ListAllMyBuckets",
                                                             "Resource": "*"}]})


def _tpl(resources, outputs=None, parameters=None):
    body = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources}
    if outputs:
        body["Outputs"] = outputs
    if parameters:
        body["Parameters"] = parameters
    return json.dumps(body)


def _create(cfn, name, template, params=None, protect=False):
    kw = {"StackName": name, "TemplateBody": template, "Capabilities": ["CAPABILITY_NAMED_IAM"],
          "EnableTerminationProtection": protect}
    if params:
        kw["Parameters"] = [{"ParameterKey": k, "ParameterValue": v} for k, v in params.items()]
    arn = cfn.create_stack(**kw)["StackId"]
    for _ in range(100):
        status = cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"]
        if status == "CREATE_COMPLETE":
            break
        if not status.endswith("_IN_PROGRESS"):
            raise SandboxError(f"stack {name} reached {status}, not CREATE_COMPLETE")
        time.sleep(0.1)
    res = {r["LogicalResourceId"]: r["PhysicalResourceId"]
           for r in cfn.list_stack_resources(StackName=arn)["StackResourceSummaries"]}
    return arn, res


def _fill_bucket(s3, bucket):
    """Objects, an older version of one of them and a delete marker: empty only once all three go."""
    s3.put_object(Bucket=bucket, Key="keep.txt", Body=b"v1")
    s3.put_object(Bucket=bucket, Key="keep.txt", Body=b"v2")
    s3.put_object(Bucket=bucket, Key="gone.txt", Body=b"x")
    s3.delete_object(Bucket=bucket, Key="gone.txt")  # versioned: leaves a delete marker and a version


def seed(name=None, namespace=None, knobs=None):
    knobs = dict(knobs or {})
    p = name or "cfn-" + uuid.uuid4().hex[:6]
    low = p.lower()
    tag = uuid.uuid4().hex[:6]
    classes = [c.strip() for c in knobs.get("classes", ",".join(CLASSES)).split(",") if c.strip()]
    bad = [c for c in classes if c not in CLASSES]
    if bad:
        raise SandboxError(f"classes: unknown {bad}; known: {', '.join(CLASSES)}")
    layer = {}
    if "retain_resources" in knobs:
        v = str(knobs["retain_resources"]).lower()
        if v not in ("on", "off"):
            raise SandboxError("retain_resources must be on or off")
        layer["cfn_retain_resources"] = 1.0 if v == "on" else 0.0
    if "cfn_step_seconds" in knobs:
        layer["cfn_step_seconds"] = float(knobs["cfn_step_seconds"])
    out = {"scenario": "cfn-refusals", "name": p, "stacks": {}, "outside": {}}
    if layer:
        out["knobs"] = control("POST", "realism/knobs", layer)["knobs"]
    cfn, s3, iam, ec2, rds = aws("cloudformation"), aws("s3"), aws("iam"), aws("ec2"), aws("rds")

    def add(cls, stack, arn, refuses=(), **extra):
        out["stacks"][cls] = dict({"name": stack, "arn": arn, "refuses": list(refuses)}, **extra)

    if "bucket" in classes:
        stack = f"{p}-bucket"
        arn, res = _create(cfn, stack, _tpl({"Bucket": {
            "Type": "AWS::S3::Bucket",
            "Properties": {"BucketName": f"{low}-bucket-{tag}",
                           "VersioningConfiguration": {"Status": "Enabled"}}}}))
        _fill_bucket(s3, res["Bucket"])
        add("bucket", stack, arn, [{"logical_id": "Bucket", "type": "AWS::S3::Bucket", "physical_id": res["Bucket"],
                                    "class": "BucketNotEmpty",
                                    "why": "objects, an older version and a delete marker"}])

    if "iam" in classes:
        stack = f"{p}-iam"
        arn, res = _create(cfn, stack, _tpl({"Role": {
            "Type": "AWS::IAM::Role",
            "Properties": {"RoleName": f"{p}-iam-role-{tag}", "AssumeRolePolicyDocument": json.loads(TRUST)}}}))
        role = res["Role"]
        pol = iam.create_policy(PolicyName=f"{p}-iam-outside-{tag}", PolicyDocument=POLICY)["Policy"]["Arn"]
        iam.attach_role_policy(RoleName=role, PolicyArn=pol)
        iam.put_role_policy(RoleName=role, PolicyName="outside-inline", PolicyDocument=POLICY)
        profile = f"{p}-iam-profile-{tag}"
        iam.create_instance_profile(InstanceProfileName=profile)
        iam.add_role_to_instance_profile(InstanceProfileName=profile, RoleName=role)
        add("iam", stack, arn, [{"logical_id": "Role", "type": "AWS::IAM::Role", "physical_id": role,
                                 "class": "DeleteConflict",
                                 "why": f"managed policy {pol}, inline policy outside-inline, "
                                        f"instance profile {profile}"}])
        out["outside"]["iam"] = {"policy_arn": pol, "inline_policy": "outside-inline", "instance_profile": profile}

    if "sg" in classes:
        stack = f"{p}-sg"
        vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"]
        if not vpc:
            raise SandboxError("no default VPC in the sandbox's AWS")
        vpc_id = vpc[0]["VpcId"]
        subnet = ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["Subnets"][0]["SubnetId"]
        arn, res = _create(cfn, stack, _tpl(
            {"Group": {"Type": "AWS::EC2::SecurityGroup",
                       "Properties": {"GroupDescription": f"{p} held from outside", "VpcId": {"Ref": "VpcId"}}}},
            parameters={"VpcId": {"Type": "String"}}), params={"VpcId": vpc_id})
        gid = res["Group"]
        eni = ec2.create_network_interface(SubnetId=subnet, Groups=[gid],
                                           Description=f"{p} holds {gid}")["NetworkInterface"]["NetworkInterfaceId"]
        other = ec2.create_security_group(GroupName=f"{p}-sg-referrer-{tag}", Description="refers to the stack's group",
                                          VpcId=vpc_id)["GroupId"]
        ec2.authorize_security_group_ingress(GroupId=other, IpPermissions=[{
            "IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "UserIdGroupPairs": [{"GroupId": gid}]}])
        add("sg", stack, arn, [{"logical_id": "Group", "type": "AWS::EC2::SecurityGroup", "physical_id": gid,
                                "class": "DependencyViolation",
                                "why": f"ENI {eni} uses it; group {other} has a rule naming it"}])
        out["outside"]["sg"] = {"network_interface": eni, "referencing_group": other, "vpc": vpc_id}

    if "rds" in classes:
        stack = f"{p}-rds"
        arn, res = _create(cfn, stack, _tpl({"Database": {
            "Type": "AWS::RDS::DBInstance",
            "Properties": {"DBInstanceIdentifier": f"{low}-db-{tag}", "Engine": "postgres",
                           "DBInstanceClass": "db.t3.micro", "AllocatedStorage": "20",
                           "MasterUsername": "admin1", "MasterUserPassword": "sandbox-only-1",
                           "DeletionProtection": True}}}))
        db = res["Database"]
        # the layer applies the template's DeletionProtection; say it again as an operator would
        rds.modify_db_instance(DBInstanceIdentifier=db, DeletionProtection=True, ApplyImmediately=True)
        add("rds", stack, arn, [{"logical_id": "Database", "type": "AWS::RDS::DBInstance", "physical_id": db,
                                 "class": "DeletionProtection", "why": "deletion protection is on"}])

    if "parent" in classes:
        stack = f"{p}-parent"
        holder = f"{low}-templates-{tag}"
        s3.create_bucket(Bucket=holder)
        child_bucket = f"{low}-child-{tag}"
        s3.put_object(Bucket=holder, Key="child.json", Body=_tpl({"ChildBucket": {
            "Type": "AWS::S3::Bucket", "Properties": {"BucketName": child_bucket}}}).encode())
        arn, res = _create(cfn, stack, _tpl({
            "Child": {"Type": "AWS::CloudFormation::Stack",
                      "Properties": {"TemplateURL": f"https://s3.amazonaws.com/{holder}/child.json"}}}))
        s3.delete_object(Bucket=holder, Key="child.json")  # the template is read once, at create
        s3.delete_bucket(Bucket=holder)
        child_name = res["Child"]
        child = cfn.describe_stacks(StackName=child_name)["Stacks"][0]["StackId"]
        s3.put_object(Bucket=child_bucket, Key="keep.txt", Body=b"child")
        add("parent", stack, arn, [
            {"logical_id": "Child", "type": "AWS::CloudFormation::Stack", "physical_id": child,
             "class": "ChildStackFailed", "why": f"child stack {child_name} cannot delete ChildBucket"},
            {"logical_id": "ChildBucket", "type": "AWS::S3::Bucket", "physical_id": child_bucket,
             "class": "BucketNotEmpty", "why": "holds keep.txt", "stack": child_name, "stack_id": child}],
            child={"name": child_name, "arn": child})

    if "exporter" in classes:
        stack, importer = f"{p}-exporter", f"{p}-importer"
        export = f"{p}-exporter-QueueArn"
        arn, res = _create(cfn, stack, _tpl(
            {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": f"{p}-exported-{tag}"}}},
            outputs={"QueueArn": {"Value": {"Fn::GetAtt": ["Queue", "Arn"]}, "Export": {"Name": export}}}))
        iarn, _ = _create(cfn, importer, _tpl({"Param": {
            "Type": "AWS::SSM::Parameter",
            "Properties": {"Name": f"/{p}/imported-{tag}", "Type": "String",
                           "Value": {"Fn::ImportValue": export}}}}))
        add("exporter", stack, arn, [{"logical_id": None, "type": "AWS::CloudFormation::Stack", "physical_id": arn,
                                      "class": "ExportInUse", "why": f"export {export} is imported by {importer}"}],
            export=export, importer={"name": importer, "arn": iarn})
        add("importer", importer, iarn, [])

    if "protected" in classes:
        stack = f"{p}-protected"
        arn, res = _create(cfn, stack, _tpl({"Queue": {
            "Type": "AWS::SQS::Queue", "Properties": {"QueueName": f"{p}-protected-{tag}"}}}), protect=True)
        add("protected", stack, arn, [{"logical_id": None, "type": "AWS::CloudFormation::Stack", "physical_id": arn,
                                       "class": "TerminationProtection", "why": "termination protection is on"}])

    if "retain" in classes:
        stack = f"{p}-retain"
        arn, res = _create(cfn, stack, _tpl({
            "Kept": {"Type": "AWS::S3::Bucket", "DeletionPolicy": "Retain",
                     "Properties": {"BucketName": f"{low}-kept-{tag}"}},
            "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": f"{p}-retain-{tag}"}}}))
        kept = {"logical_id": "Kept", "type": "AWS::S3::Bucket", "physical_id": res["Kept"],
                "why": "DeletionPolicy Retain"}
        add("retain", stack, arn, [], retained=[kept])
    return out
