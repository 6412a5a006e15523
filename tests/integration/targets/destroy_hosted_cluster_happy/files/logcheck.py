#!/usr/bin/env python
"""Test equipment for destroy_hosted_cluster_happy: read the sandbox's logs, look AWS IDs up directly.

  logcheck.py mark                           -> {"audit": N, "aws": M} (lines so far)
  logcheck.py since AUDIT AWS NS NAME        -> the mutating requests after those lines that touch the
                                                HostedCluster NS/NAME, its NodePools' namespace or its
                                                HCP namespace NS-NAME (Kubernetes), and every mutating AWS request
  logcheck.py leftovers SEED_JSON            -> the seed's AWS IDs still there (not absent, not terminal), by ID,
                                                with boto3 directly (not the collection's code)
"""
import json
import os
import sys

import boto3
from botocore.exceptions import ClientError

MUTATING_VERBS = ("create", "update", "patch", "delete", "deletecollection")
MUTATING_AWS = ("Delete", "Terminate", "Detach", "Disassociate", "Release", "Revoke", "Remove", "Change", "Put",
                "Create", "Attach", "Associate", "Modify", "Run", "Allocate", "Authorize", "Stop", "Update")


def count(path):
    with open(path) as f:
        return sum(1 for dummy in f)


def since(audit_n, aws_n, ns, name):
    hcp_ns = "%s-%s" % (ns, name)
    k8s, aws = [], []
    with open(os.environ["SANDBOX_AUDIT_LOG"]) as f:
        for n, line in enumerate(f, 1):
            if n <= audit_n:
                continue
            e = json.loads(line)
            ref = e.get("objectRef") or {}
            if e.get("stage") != "ResponseComplete" or e.get("verb") not in MUTATING_VERBS:
                continue
            if (ref.get("namespace") == hcp_ns or (ref.get("resource") == "namespaces" and ref.get("name") == hcp_ns)
                    or (ref.get("namespace") == ns and ref.get("resource") in ("hostedclusters", "nodepools"))):
                k8s.append({"verb": e["verb"], "resource": ref.get("resource"), "name": ref.get("name"),
                            "subresource": ref.get("subresource"), "user_agent": e.get("userAgent")})
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        for n, line in enumerate(f, 1):
            if n <= aws_n:
                continue
            e = json.loads(line)
            if (e.get("action") or "").startswith(MUTATING_AWS):
                aws.append({"service": e.get("service"), "action": e.get("action")})
    return {"k8s": k8s, "aws": aws}


def client(service):
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                        region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


def _gone(fn):
    try:
        return fn()
    except ClientError as e:
        code = e.response["Error"]["Code"]
        if "NotFound" in code or code in ("NoSuchEntity", "NoSuchBucket", "LoadBalancerNotFound", "404"):
            return True
        raise


def leftovers(seed):
    ec2, elb, s3, iam = client("ec2"), client("elb"), client("s3"), client("iam")
    ids = {}
    for part in ("aws", "guest_cloud"):
        for rtype, vals in (seed.get(part) or {}).items():
            if isinstance(vals, list):
                ids.setdefault(rtype, set()).update(vals)
    checks = {
        "AWS::EC2::Instance": lambda i: _gone(lambda: all(x["State"]["Name"] == "terminated" for r in ec2.describe_instances(
            InstanceIds=[i])["Reservations"] for x in r["Instances"])),
        "AWS::EC2::VPC": lambda i: _gone(lambda: not ec2.describe_vpcs(VpcIds=[i])["Vpcs"]),
        "AWS::EC2::Subnet": lambda i: _gone(lambda: not ec2.describe_subnets(SubnetIds=[i])["Subnets"]),
        "AWS::EC2::SecurityGroup": lambda i: _gone(lambda: not ec2.describe_security_groups(GroupIds=[i])["SecurityGroups"]),
        "AWS::EC2::RouteTable": lambda i: _gone(lambda: not ec2.describe_route_tables(RouteTableIds=[i])["RouteTables"]),
        "AWS::EC2::InternetGateway": lambda i: _gone(lambda: not ec2.describe_internet_gateways(
            InternetGatewayIds=[i])["InternetGateways"]),
        "AWS::EC2::NatGateway": lambda i: _gone(lambda: all(g["State"] == "deleted" for g in ec2.describe_nat_gateways(
            NatGatewayIds=[i])["NatGateways"])),
        "AWS::EC2::EIP": lambda i: _gone(lambda: not ec2.describe_addresses(AllocationIds=[i])["Addresses"]),
        "AWS::EC2::Volume": lambda i: _gone(lambda: all(v["State"] == "deleted" for v in ec2.describe_volumes(
            VolumeIds=[i])["Volumes"])),
        "AWS::ElasticLoadBalancing::LoadBalancer": lambda i: _gone(lambda: not elb.describe_load_balancers(
            LoadBalancerNames=[i])["LoadBalancerDescriptions"]),
        "AWS::S3::Bucket": lambda i: _gone(lambda: s3.head_bucket(Bucket=i) and False),
        "AWS::IAM::Role": lambda i: _gone(lambda: iam.get_role(RoleName=i) and False),
        "AWS::IAM::InstanceProfile": lambda i: _gone(lambda: iam.get_instance_profile(InstanceProfileName=i) and False),
    }
    left, checked, unchecked = [], 0, []
    for rtype, vals in sorted(ids.items()):
        fn = checks.get(rtype)
        if fn is None:
            unchecked.append(rtype)
            continue
        for i in sorted(vals):
            checked += 1
            if not fn(i):
                left.append("%s %s" % (rtype, i))
    return {"left": left, "checked": checked, "unchecked_types": unchecked}


def main():
    cmd = sys.argv[1]
    if cmd == "mark":
        out = {"audit": count(os.environ["SANDBOX_AUDIT_LOG"]), "aws": count(os.environ["SANDBOX_AWS_LOG"])}
    elif cmd == "since":
        out = since(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif cmd == "leftovers":
        with open(sys.argv[2]) as f:
            out = leftovers(json.load(f))
    else:
        raise SystemExit(__doc__)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
