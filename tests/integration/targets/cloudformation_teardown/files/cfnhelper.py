"""Test equipment for the cloudformation_teardown target: read the sandbox's AWS request log, look resources up
by ID (plain boto3, not the collection).

  cfnhelper.py requests KEY_ID        -> JSON {total, mutating, mutating_actions} of the requests signed with KEY_ID
  cfnhelper.py status ARN...          -> JSON {arn: StackStatus} (looked up by ARN)
  cfnhelper.py leftovers SEED_JSON    -> JSON {"present": [...], "absent": [...]}: each refusing resource and
                                         each outside holder of the seed, looked up by ID
"""
import json
import os
import sys

import boto3
import botocore.exceptions

MUTATING = ("Delete", "Terminate", "Detach", "Disassociate", "Release", "Revoke", "Remove", "Change", "Put",
            "Create", "Attach", "Associate", "Modify", "Run", "Allocate", "Authorize", "Update")


def c(service):
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")


def requests(key_id):
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        rows = [json.loads(line) for line in f if key_id in line]
    rows = [r for r in rows if r.get("key_id") == key_id]
    mutating = [r for r in rows if r["action"].startswith(MUTATING)]
    return {"total": len(rows), "mutating": len(mutating), "mutating_actions": sorted({r["action"] for r in mutating})}


def status(arns):
    cfn = c("cloudformation")
    return {a: cfn.describe_stacks(StackName=a)["Stacks"][0]["StackStatus"] for a in arns}


def exists(rtype, pid):
    try:
        if rtype == "AWS::S3::Bucket":
            c("s3").head_bucket(Bucket=pid)
        elif rtype == "AWS::IAM::Role":
            c("iam").get_role(RoleName=pid)
        elif rtype == "AWS::IAM::InstanceProfile":
            c("iam").get_instance_profile(InstanceProfileName=pid)
        elif rtype == "AWS::EC2::SecurityGroup":
            return bool(c("ec2").describe_security_groups(Filters=[{"Name": "group-id", "Values": [pid]}])[
                "SecurityGroups"])
        elif rtype == "AWS::EC2::NetworkInterface":
            return bool(c("ec2").describe_network_interfaces(Filters=[
                {"Name": "network-interface-id", "Values": [pid]}])["NetworkInterfaces"])
        elif rtype == "AWS::RDS::DBInstance":
            c("rds").describe_db_instances(DBInstanceIdentifier=pid)
        elif rtype == "AWS::CloudFormation::Stack":
            st = c("cloudformation").describe_stacks(StackName=pid)["Stacks"][0]["StackStatus"]
            return st != "DELETE_COMPLETE"
        else:
            raise SystemExit("no lookup for %s" % rtype)
    except botocore.exceptions.ClientError as e:
        code = e.response["Error"]["Code"]
        if code in ("404", "NoSuchBucket", "NoSuchEntity", "DBInstanceNotFound", "DBInstanceNotFoundFault"):
            return False
        raise
    return True


def leftovers(seed):
    present, absent = [], []
    for cls, st in seed["stacks"].items():
        for r in st["refuses"]:
            if r["type"] == "AWS::CloudFormation::Stack" or not r.get("physical_id"):
                continue
            (present if exists(r["type"], r["physical_id"]) else absent).append("%s %s" % (r["type"], r["physical_id"]))
        for r in st.get("retained", []):
            (present if exists(r["type"], r["physical_id"]) else absent).append("%s %s" % (r["type"], r["physical_id"]))
    sg = seed["outside"].get("sg")
    if sg:
        eni = sg["network_interface"]
        (present if exists("AWS::EC2::NetworkInterface", eni) else absent).append("AWS::EC2::NetworkInterface " + eni)
        ref = c("ec2").describe_security_groups(GroupIds=[sg["referencing_group"]])["SecurityGroups"][0]
        if ref.get("IpPermissions"):
            present.append("rule of %s" % sg["referencing_group"])
    iam = seed["outside"].get("iam")
    if iam:
        # the instance profile and the policy are not the stack's: they stay; only their link to the role went
        profile = c("iam").get_instance_profile(InstanceProfileName=iam["instance_profile"])["InstanceProfile"]
        if profile["Roles"]:
            present.append("role in instance profile %s" % iam["instance_profile"])
    return {"present": sorted(present), "absent": sorted(absent)}


def main():
    cmd = sys.argv[1]
    if cmd == "requests":
        out = requests(sys.argv[2])
    elif cmd == "status":
        out = status(sys.argv[2:])
    elif cmd == "leftovers":
        with open(sys.argv[2]) as f:
            out = leftovers(json.load(f))
    else:
        raise SystemExit(__doc__)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
