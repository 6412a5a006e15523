"""Molecule test equipment: each refusing resource and outside holder of a cfn-refusals seed, looked up by ID
with plain boto3. Prints {"present": [physical IDs still there]}."""
import json
import os
import sys

import boto3
import botocore.exceptions


def c(service):
    return boto3.client(service, endpoint_url=os.environ.get("AWS_ENDPOINT_URL"), region_name="us-east-1")


def exists(rtype, pid):
    try:
        if rtype == "AWS::S3::Bucket":
            c("s3").head_bucket(Bucket=pid)
        elif rtype == "AWS::IAM::Role":
            c("iam").get_role(RoleName=pid)
        elif rtype == "AWS::EC2::SecurityGroup":
            return bool(c("ec2").describe_security_groups(Filters=[{"Name": "group-id", "Values": [pid]}])["SecurityGroups"])
        elif rtype == "AWS::EC2::NetworkInterface":
            return bool(c("ec2").describe_network_interfaces(
                Filters=[{"Name": "network-interface-id", "Values": [pid]}])["NetworkInterfaces"])
        elif rtype == "AWS::RDS::DBInstance":
            c("rds").describe_db_instances(DBInstanceIdentifier=pid)
        else:
            return False
    except botocore.exceptions.ClientError as e:
        if e.response["Error"]["Code"] in ("404", "NoSuchBucket", "NoSuchEntity", "DBInstanceNotFound",
                                           "DBInstanceNotFoundFault"):
            return False
        raise
    return True


def main():
    with open(sys.argv[1]) as f:
        seed = json.load(f)
    present = []
    for st in seed["stacks"].values():
        for r in st["refuses"] + st.get("retained", []):
            if r.get("physical_id") and exists(r["type"], r["physical_id"]):
                present.append(r["physical_id"])
    sg = seed["outside"].get("sg")
    if sg and exists("AWS::EC2::NetworkInterface", sg["network_interface"]):
        present.append(sg["network_interface"])
    print(json.dumps({"present": present}))


if __name__ == "__main__":
    main()
