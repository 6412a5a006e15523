"""Test equipment for the aws_infra_cleanup target: read the sandbox's AWS request log, act out of band.

  awshelper.py mark                         -> number of lines in $SANDBOX_AWS_LOG
  awshelper.py since N                      -> JSON summary of the requests after line N
  awshelper.py manifest SEED_JSON [TYPE..]  -> the seed's manifest without the given types
  awshelper.py leftovers MANIFEST_JSON      -> JSON list of "type id state" still present, by ID
  awshelper.py delete-nat NAT_ID            -> starts deleting a NAT gateway (out of band)
  awshelper.py foreign-sg VPC_ID SG_ID      -> an untagged group in VPC whose rule references SG_ID
  awshelper.py delete-sg SG_ID
  awshelper.py wait-nat-deleted NAT_ID
"""
import json
import os
import sys
import time

import boto3
from botocore.config import Config

MUTATING = ("Delete", "Terminate", "Detach", "Disassociate", "Release", "Revoke", "Remove", "Change", "Put",
            "Create", "Attach", "Associate", "Modify", "Run", "Allocate", "Authorize")
REFUSALS = ("DependencyViolation", "InvalidIPAddress.InUse", "DeleteConflict", "HostedZoneNotEmpty",
            "BucketNotEmpty", "CannotDelete", "InvalidNetworkInterface.InUse")


def c(service):
    # the target throttles 10 % of its key's requests while the module runs, and this check signs with that key:
    # it retries more than botocore's default, so that what it reports is the world, not the injected throttling
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                        config=Config(retries={"mode": "standard", "max_attempts": 10}))


def since(n):
    """What reached AWS after line N of the request log, signed with this process's key (the run's own: other runs
    share the sandbox)."""
    key = os.environ.get("AWS_ACCESS_KEY_ID")
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        rows = [json.loads(line) for line in f.readlines()[int(n):]]
    rows = [r for r in rows if key is None or r.get("key_id") == key]
    mutating = [r for r in rows if r["action"].startswith(MUTATING) and not r.get("injected")]
    refused = [r for r in rows if r.get("error_code") in REFUSALS]
    by_action = {}
    for r in rows:
        by_action[r["action"]] = by_action.get(r["action"], 0) + 1
    return {"total": len(rows), "mutating": len(mutating), "mutating_actions": sorted({r["action"] for r in mutating}),
            "refused": len(refused), "refused_actions": sorted(r["action"] + ":" + r["error_code"] for r in refused),
            "injected": sum(1 for r in rows if r.get("injected")), "by_action": by_action}


def leftovers(manifest):
    ec2, out = c("ec2"), []
    checks = {
        "AWS::EC2::VPC": lambda ids: [(v["VpcId"], "present") for v in ec2.describe_vpcs(
            Filters=[{"Name": "vpc-id", "Values": ids}])["Vpcs"]],
        "AWS::EC2::Subnet": lambda ids: [(v["SubnetId"], "present") for v in ec2.describe_subnets(
            Filters=[{"Name": "subnet-id", "Values": ids}])["Subnets"]],
        "AWS::EC2::SecurityGroup": lambda ids: [(v["GroupId"], "present") for v in ec2.describe_security_groups(
            Filters=[{"Name": "group-id", "Values": ids}])["SecurityGroups"]],
        "AWS::EC2::NatGateway": lambda ids: [(v["NatGatewayId"], v["State"]) for v in ec2.describe_nat_gateways(
            Filter=[{"Name": "nat-gateway-id", "Values": ids}])["NatGateways"] if v["State"] != "deleted"],
        "AWS::EC2::Instance": lambda ids: [(i["InstanceId"], i["State"]["Name"]) for r in ec2.describe_instances(
            Filters=[{"Name": "instance-id", "Values": ids}])["Reservations"] for i in r["Instances"]
            if i["State"]["Name"] != "terminated"],
        "AWS::EC2::InternetGateway": lambda ids: [(v["InternetGatewayId"], "present") for v in
                                                  ec2.describe_internet_gateways(Filters=[
                                                      {"Name": "internet-gateway-id", "Values": ids}])["InternetGateways"]],
        "AWS::EC2::EIP": lambda ids: [(v["AllocationId"], "present") for v in ec2.describe_addresses(
            Filters=[{"Name": "allocation-id", "Values": ids}])["Addresses"]],
        "AWS::EC2::RouteTable": lambda ids: [(v["RouteTableId"], "present") for v in ec2.describe_route_tables(
            Filters=[{"Name": "route-table-id", "Values": ids}])["RouteTables"]],
        "AWS::IAM::Role": lambda ids: [(r["RoleName"], "present") for r in c("iam").list_roles()["Roles"]
                                       if r["RoleName"] in ids],
        "AWS::S3::Bucket": lambda ids: [(b["Name"], "present") for b in c("s3").list_buckets()["Buckets"]
                                        if b["Name"] in ids],
        "AWS::IAM::InstanceProfile": lambda ids: [(p["InstanceProfileName"], "present") for p in c(
            "iam").list_instance_profiles()["InstanceProfiles"] if p["InstanceProfileName"] in ids],
        "AWS::IAM::ManagedPolicy": lambda ids: [(p["Arn"], "present") for p in c("iam").list_policies(
            Scope="Local", MaxItems=1000)["Policies"] if p["Arn"] in ids],
        "AWS::IAM::OIDCProvider": lambda ids: [(p["Arn"], "present") for p in c(
            "iam").list_open_id_connect_providers()["OpenIDConnectProviderList"] if p["Arn"] in ids],
        "AWS::Route53::HostedZone": lambda ids: [(z["Id"].split("/")[-1], "present") for z in c(
            "route53").list_hosted_zones(MaxItems="1000")["HostedZones"] if z["Id"].split("/")[-1] in ids],
    }

    def v2(op, key, param, arn_key, missing):
        def check(ids):
            found = []
            for i in ids:  # one ID per call: a missing ARN fails the whole call
                try:
                    found += [(x[arn_key], x.get("State", {}).get("Code", "present"))
                              for x in getattr(c("elbv2"), op)(**{param: [i]})[key]]
                except c("elbv2").exceptions.ClientError as e:
                    if e.response["Error"]["Code"] != missing:
                        raise
            return found
        return check
    checks["AWS::ElasticLoadBalancingV2::LoadBalancer"] = v2("describe_load_balancers", "LoadBalancers",
                                                             "LoadBalancerArns", "LoadBalancerArn", "LoadBalancerNotFound")
    checks["AWS::ElasticLoadBalancingV2::TargetGroup"] = v2("describe_target_groups", "TargetGroups",
                                                            "TargetGroupArns", "TargetGroupArn", "TargetGroupNotFound")
    for rtype, ids in manifest.items():
        if rtype in checks and ids:
            out += ["%s %s %s" % (rtype, i, st) for i, st in checks[rtype](ids)]
    return out


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "mark":
        with open(os.environ["SANDBOX_AWS_LOG"]) as f:
            print(sum(1 for dummy in f))
    elif cmd == "since":
        print(json.dumps(since(args[0])))
    elif cmd == "manifest":
        seed = json.load(open(args[0]))
        print(json.dumps({t: ids for t, ids in seed["aws"].items() if t not in args[1:]}))
    elif cmd == "leftovers":
        print(json.dumps(leftovers(json.load(open(args[0])))))
    elif cmd == "delete-nat":
        c("ec2").delete_nat_gateway(NatGatewayId=args[0])
        print(json.dumps({"state": c("ec2").describe_nat_gateways(NatGatewayIds=[args[0]])["NatGateways"][0]["State"]}))
    elif cmd == "wait-nat-deleted":
        deadline = time.time() + 60
        while c("ec2").describe_nat_gateways(NatGatewayIds=[args[0]])["NatGateways"][0]["State"] != "deleted":
            if time.time() > deadline:
                sys.exit("NAT gateway %s not deleted in 60 s" % args[0])
            time.sleep(0.5)
        print("{}")
    elif cmd == "foreign-sg":
        ec2 = c("ec2")
        gid = ec2.create_security_group(VpcId=args[0], GroupName="foreign-%d" % time.time_ns(), Description="not ours")["GroupId"]
        ec2.authorize_security_group_ingress(GroupId=gid, IpPermissions=[
            {"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "UserIdGroupPairs": [{"GroupId": args[1]}]}])
        print(json.dumps({"group_id": gid}))
    elif cmd == "delete-sg":
        c("ec2").delete_security_group(GroupId=args[0])
        print("{}")
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
