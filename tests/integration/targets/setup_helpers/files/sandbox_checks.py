#!/usr/bin/env python
"""Independent checks for tests against the sandbox: its request logs and plain boto3 lookups BY ID, never the
collection's own code (a test that reused our inventory or cleanup code could not catch its bugs). The one copy
every integration target (needs/target/setup_helpers) and molecule scenario uses; setup_hosted_cluster's
hc_check.py adds the hosted-cluster commands on top of it.

  sandbox_checks.py mark
      JSON {"audit": N, "aws": N}: the line counts of $SANDBOX_AUDIT_LOG and $SANDBOX_AWS_LOG.
  sandbox_checks.py mutations AUDIT_LINE AWS_LINE [--aws-key KEY_ID] NAMESPACE...
      JSON {"k8s": [...], "aws": [...], "aws_seen": N}: the mutating requests logged after the marks,
      Kubernetes ones limited to the given namespaces (and the Namespace objects themselves), from API
      clients (not the controller manager); AWS ones, with --aws-key, only those signed with that access
      key ID (aws_seen counts every request so signed: 0 means the filter saw nothing of ours, and
      proves nothing). For check-mode proofs while no controller acts on the cluster.
  sandbox_checks.py requests KEY_ID
      JSON {"total": N, "mutating": N, "mutating_actions": [...]}: every AWS request signed with KEY_ID (one
      answered with an injected fault too: it was sent).
  sandbox_checks.py audit [--since N] [--namespace NS] [--resource R]... [--name NAME] [--agent TEXT]
                          [--no-subresource]
      JSON {"lines": N, "mutations": [{verb, resource, namespace, name, subresource, user_agent}]}: the
      completed mutating Kubernetes requests after line N of the audit log that match every filter given
      (--agent: the user agent contains TEXT); "lines" is the mark for the next call.
  sandbox_checks.py aws SEED_JSON [--preserve-iam]
      every AWS ID a hosted-cluster or aws-infra seed made (worker-VPC infrastructure, guest and management
      cloud resources, OIDC documents), looked up BY ID: JSON {"absent": [...], "terminal": [...],
      "present": [...], "unknown": [...], "iam_retained": [...]}. A lookup that fails for any reason other
      than "not found" is unknown, never absent. With --preserve-iam, present IAM is listed as retained.
  sandbox_checks.py stack-status ARN...
      JSON {arn: StackStatus}, each stack looked up by ARN (a deleted stack is found only so).
  sandbox_checks.py cfn-leftovers SEED_JSON
      a cfn-refusals seed: each refusing and each retained resource, and what held them from outside the
      stacks (the ENI in the group, the referencing group's rule, the role in the instance profile), looked
      up BY ID: JSON {"present": ["TYPE ID", ...], "absent": [...], "unknown": [...]}.
"""
import functools
import json
import os
import sys

import boto3
from botocore.exceptions import ClientError

MUTATING_AWS = ("Delete", "Terminate", "Detach", "Disassociate", "Release", "Revoke", "Remove", "Change", "Put",
                "Create", "Attach", "Associate", "Modify", "Run", "Allocate", "Authorize", "Replace", "Stop", "Update")
MUTATING_K8S = ("create", "update", "patch", "delete", "deletecollection")
IAM_TYPES = ("AWS::IAM::Role", "AWS::IAM::InstanceProfile", "AWS::IAM::ManagedPolicy", "AWS::IAM::OIDCProvider")


@functools.lru_cache(maxsize=None)
def client(service):
    """One client per service (making one costs a fraction of a second)."""
    return boto3.client(service, endpoint_url=os.environ.get("AWS_ENDPOINT_URL"),
                        region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


# ---------------------------------------------------------------------------------------------- the logs

def line_count(path):
    with open(path, "rb") as f:
        return sum(1 for dummy in f)


def log_rows(path, since=0):
    """(line number, JSON object) of each line after line ``since``; a torn last line is passed over."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if n <= since:
                continue
            try:
                yield n, json.loads(line)
            except ValueError:
                continue


def mark():
    return {"audit": line_count(os.environ["SANDBOX_AUDIT_LOG"]), "aws": line_count(os.environ["SANDBOX_AWS_LOG"])}


def k8s_mutations(since=0):
    """(line number, event, objectRef) of each completed mutating Kubernetes request after line ``since``."""
    for n, ev in log_rows(os.environ["SANDBOX_AUDIT_LOG"], since):
        # the permission preflight's access reviews are creates that store nothing
        if (ev.get("verb") in MUTATING_K8S and ev.get("stage") == "ResponseComplete"
                and (ev.get("objectRef") or {}).get("resource") != "selfsubjectaccessreviews"):
            yield n, ev, ev.get("objectRef") or {}


def aws_mutating(row, injected_too=False):
    """A mutating AWS request; one the layer answered with an injected fault counts only with injected_too."""
    return (row.get("action") or "").startswith(MUTATING_AWS) and (injected_too or not row.get("injected"))


def mutations(audit_since, aws_since, namespaces, aws_key=None):
    k8s, aws, seen = [], [], 0
    for dummy, ev, ref in k8s_mutations(audit_since):
        if (ev.get("userAgent") or "").startswith("kube-"):
            continue
        # the real CAPI and CAPA managers reconcile on their own (status writes, events): not ours
        if (ev.get("user") or {}).get("username") in ("capi-manager", "capa-manager"):
            continue
        if ref.get("namespace") in namespaces or (ref.get("resource") == "namespaces" and ref.get("name") in namespaces):
            k8s.append("%s %s %s/%s%s" % (ev["verb"], ref.get("resource"), ref.get("namespace") or "", ref.get("name") or "",
                                          "/" + ref["subresource"] if ref.get("subresource") else ""))
    for dummy, row in log_rows(os.environ["SANDBOX_AWS_LOG"], aws_since):
        if aws_key and row.get("key_id") != aws_key:
            continue
        seen += 1
        if aws_mutating(row):
            aws.append("%s:%s" % (row.get("service"), row["action"]))
    return {"k8s": k8s, "aws": aws, "aws_seen": seen}


def requests(key_id):
    rows = [r for dummy, r in log_rows(os.environ["SANDBOX_AWS_LOG"]) if r.get("key_id") == key_id]
    mutating = [r for r in rows if aws_mutating(r, injected_too=True)]  # sent is sent, whatever the answer
    return {"total": len(rows), "mutating": len(mutating), "mutating_actions": sorted({r["action"] for r in mutating})}


def audit(since=0, namespace=None, resources=(), name=None, agent=None, no_subresource=False):
    out, last = [], since
    for n, ev, ref in k8s_mutations(since):
        last = n  # the mark for the next call: no mutation before it is read twice, none after it missed
        if ((namespace and ref.get("namespace") != namespace) or (resources and ref.get("resource") not in resources)
                or (name and ref.get("name") != name) or (agent and agent not in (ev.get("userAgent") or ""))
                or (no_subresource and ref.get("subresource"))):
            continue
        out.append({"verb": ev["verb"], "resource": ref.get("resource"), "namespace": ref.get("namespace"),
                    "name": ref.get("name"), "subresource": ref.get("subresource"), "user_agent": ev.get("userAgent")})
    return {"lines": last, "mutations": out}


# ---------------------------------------------------------------------------------------------- AWS by ID

def _code(err):
    return err.response.get("Error", {}).get("Code", "")


def _state(fn, not_found, terminal_of=None):
    """'absent' when the API says not found; 'terminal' or 'present' when it answers; 'unknown:<why>' else."""
    try:
        got = fn()
    except ClientError as e:
        if _code(e) in not_found or str(e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")) == "404" \
                and "404" in not_found:
            return "absent"
        return "unknown:" + (_code(e) or str(e))
    except Exception as e:  # noqa: BLE001 (a transport error is unknown, not absent)
        return "unknown:" + type(e).__name__
    if got is None:
        return "absent"
    if terminal_of is not None and terminal_of(got):
        return "terminal"
    return "present"


def _instances(ec2, rid):
    return [i for r in ec2.describe_instances(InstanceIds=[rid])["Reservations"] for i in r["Instances"]]


def _first(items):
    return items[0] if items else None


def lookup(rtype, rid):
    """The state of one resource, looked up by its ID: absent, terminal, present or unknown:<why>."""
    ec2, elb, elbv2, iam, s3, r53, rds, cfn = (client(s) for s in (
        "ec2", "elb", "elbv2", "iam", "s3", "route53", "rds", "cloudformation"))
    table = {
        "AWS::EC2::VPC": lambda: _state(lambda: _first(ec2.describe_vpcs(VpcIds=[rid])["Vpcs"]), {"InvalidVpcID.NotFound"}),
        "AWS::EC2::Subnet": lambda: _state(lambda: _first(ec2.describe_subnets(SubnetIds=[rid])["Subnets"]),
                                           {"InvalidSubnetID.NotFound"}),
        "AWS::EC2::SecurityGroup": lambda: _state(lambda: _first(ec2.describe_security_groups(GroupIds=[rid])["SecurityGroups"]),
                                                  {"InvalidGroup.NotFound", "InvalidGroupId.NotFound"}),
        "AWS::EC2::NetworkInterface": lambda: _state(lambda: _first(ec2.describe_network_interfaces(
            NetworkInterfaceIds=[rid])["NetworkInterfaces"]), {"InvalidNetworkInterfaceID.NotFound"}),
        "AWS::EC2::NatGateway": lambda: _state(lambda: _first(ec2.describe_nat_gateways(NatGatewayIds=[rid])["NatGateways"]),
                                               {"NatGatewayNotFound", "InvalidNatGatewayID.NotFound"},
                                               lambda g: g["State"] == "deleted"),
        "AWS::EC2::Instance": lambda: _state(lambda: _first(_instances(ec2, rid)),
                                             {"InvalidInstanceID.NotFound"}, lambda i: i["State"]["Name"] == "terminated"),
        "AWS::EC2::InternetGateway": lambda: _state(lambda: _first(ec2.describe_internet_gateways(
            InternetGatewayIds=[rid])["InternetGateways"]), {"InvalidInternetGatewayID.NotFound"}),
        "AWS::EC2::EIP": lambda: _state(lambda: _first(ec2.describe_addresses(AllocationIds=[rid])["Addresses"]),
                                        {"InvalidAllocationID.NotFound"}),
        "AWS::EC2::RouteTable": lambda: _state(lambda: _first(ec2.describe_route_tables(RouteTableIds=[rid])["RouteTables"]),
                                               {"InvalidRouteTableID.NotFound"}),
        "AWS::EC2::DHCPOptions": lambda: _state(lambda: _first(ec2.describe_dhcp_options(DhcpOptionsIds=[rid])["DhcpOptions"]),
                                                {"InvalidDhcpOptionID.NotFound", "InvalidDhcpOptionsID.NotFound"}),
        "AWS::EC2::VPCEndpoint": lambda: _state(lambda: _first(ec2.describe_vpc_endpoints(VpcEndpointIds=[rid])["VpcEndpoints"]),
                                                {"InvalidVpcEndpointId.NotFound"},
                                                lambda v: v.get("State", "").lower() == "deleted"),
        "AWS::EC2::VPCEndpointService": lambda: _state(lambda: _first(ec2.describe_vpc_endpoint_service_configurations(
            ServiceIds=[rid])["ServiceConfigurations"]), {"InvalidVpcEndpointService.NotFound",
                                                          "InvalidVpcEndpointServiceId.NotFound"},
            lambda sc: sc.get("ServiceState", "").lower() == "deleted"),
        "AWS::EC2::Volume": lambda: _state(lambda: _first(ec2.describe_volumes(VolumeIds=[rid])["Volumes"]),
                                           {"InvalidVolume.NotFound"}, lambda v: v["State"] in ("deleting", "deleted")),
        "AWS::ElasticLoadBalancing::LoadBalancer": lambda: _state(lambda: _first(elb.describe_load_balancers(
            LoadBalancerNames=[rid])["LoadBalancerDescriptions"]), {"LoadBalancerNotFound"}),
        "AWS::ElasticLoadBalancingV2::LoadBalancer": lambda: _state(lambda: _first(elbv2.describe_load_balancers(
            LoadBalancerArns=[rid])["LoadBalancers"]), {"LoadBalancerNotFound"}),
        "AWS::ElasticLoadBalancingV2::TargetGroup": lambda: _state(lambda: _first(elbv2.describe_target_groups(
            TargetGroupArns=[rid])["TargetGroups"]), {"TargetGroupNotFound"}),
        "AWS::IAM::Role": lambda: _state(lambda: iam.get_role(RoleName=rid)["Role"], {"NoSuchEntity"}),
        "AWS::IAM::InstanceProfile": lambda: _state(lambda: iam.get_instance_profile(InstanceProfileName=rid)["InstanceProfile"],
                                                    {"NoSuchEntity"}),
        "AWS::IAM::ManagedPolicy": lambda: _state(lambda: iam.get_policy(PolicyArn=rid)["Policy"], {"NoSuchEntity"}),
        "AWS::IAM::OIDCProvider": lambda: _state(lambda: iam.get_open_id_connect_provider(OpenIDConnectProviderArn=rid),
                                                 {"NoSuchEntity"}),
        "AWS::S3::Bucket": lambda: _state(lambda: s3.head_bucket(Bucket=rid), {"NoSuchBucket", "404"}),
        "AWS::RDS::DBInstance": lambda: _state(lambda: _first(rds.describe_db_instances(DBInstanceIdentifier=rid)["DBInstances"]),
                                               {"DBInstanceNotFound", "DBInstanceNotFoundFault"}),
        "AWS::CloudFormation::Stack": lambda: _state(lambda: _first(cfn.describe_stacks(StackName=rid)["Stacks"]), set(),
                                                     lambda s: s["StackStatus"] == "DELETE_COMPLETE"),
        "AWS::Route53::HostedZone": lambda: _state(lambda: r53.get_hosted_zone(Id=rid)["HostedZone"], {"NoSuchHostedZone"}),
        "AWS::Route53::RecordSet": lambda: _record(r53, rid),
        "Custom::S3Prefix": lambda: _prefix(s3, rid),
    }
    fn = table.get(rtype)
    return fn() if fn else "unknown:no independent lookup for " + rtype


def _record(r53, rid):
    zone, name, rtype = rid.split("/", 2)
    try:
        sets = r53.list_resource_record_sets(HostedZoneId=zone, StartRecordName=name, StartRecordType=rtype,
                                             MaxItems="1")["ResourceRecordSets"]
    except ClientError as e:
        return "absent" if _code(e) == "NoSuchHostedZone" else "unknown:" + _code(e)
    return "present" if any(s["Name"] == name and s["Type"] == rtype for s in sets) else "absent"


def _prefix(s3, rid):
    bucket, prefix = rid.split("/", 1)
    try:
        return "present" if s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("KeyCount", 0) else "absent"
    except ClientError as e:
        return "absent" if _code(e) == "NoSuchBucket" else "unknown:" + _code(e)


def manifest(seed):
    """(type, id) of everything the seed made in AWS for this cluster."""
    out = []
    for group in (seed.get("aws") or {}, seed.get("guest_cloud") or {}, seed.get("management_cloud") or {},
                  seed.get("endpoint_cloud") or {}, seed.get("endpoint_service_cloud") or {}):
        for rtype, ids in group.items():
            if rtype.startswith(("AWS::", "Custom::")):
                out += [(rtype, i) for i in ids]
    oidc = seed.get("oidc") or {}
    if oidc.get("bucket"):
        out.append(("Custom::S3Prefix", oidc["bucket"] + "/" + oidc["prefix"]))
    return sorted(set(out))


def aws_check(seed, preserve_iam):
    res = {"absent": [], "terminal": [], "present": [], "unknown": [], "iam_retained": []}
    for rtype, rid in manifest(seed):
        state = lookup(rtype, rid)
        label = "%s %s" % (rtype, rid)
        if state.startswith("unknown"):
            res["unknown"].append(label + " (" + state + ")")
        elif state == "present" and preserve_iam and rtype in IAM_TYPES:
            res["iam_retained"].append(label)
        else:
            res[state].append(label)
    return res


def stack_status(arns):
    cfn = client("cloudformation")
    return {a: cfn.describe_stacks(StackName=a)["Stacks"][0]["StackStatus"] for a in arns}


def cfn_leftovers(seed):
    res = {"present": [], "absent": [], "unknown": []}

    def note(label, state):
        if state.startswith("unknown"):
            res["unknown"].append("%s (%s)" % (label, state))
        else:
            res["present" if state == "present" else "absent"].append(label)

    for st in seed["stacks"].values():
        for r in list(st["refuses"]) + list(st.get("retained") or []):
            if r["type"] == "AWS::CloudFormation::Stack" or not r.get("physical_id"):
                continue  # a child stack: its status is the caller's to read, by ARN
            note("%s %s" % (r["type"], r["physical_id"]), lookup(r["type"], r["physical_id"]))
    outside = seed.get("outside") or {}
    sg = outside.get("sg")
    if sg:
        eni = sg["network_interface"]
        note("AWS::EC2::NetworkInterface " + eni, lookup("AWS::EC2::NetworkInterface", eni))
        ref = sg["referencing_group"]
        note("rule of " + ref, _state(lambda: _first(client("ec2").describe_security_groups(GroupIds=[ref])[
            "SecurityGroups"][0].get("IpPermissions")), {"InvalidGroup.NotFound"}))
    iam = outside.get("iam")
    if iam:
        # the instance profile and the policy are not the stack's: they stay; only their link to the role went
        prof = iam["instance_profile"]
        note("role in instance profile " + prof, _state(lambda: _first(client("iam").get_instance_profile(
            InstanceProfileName=prof)["InstanceProfile"]["Roles"]), {"NoSuchEntity"}))
    for k in res:
        res[k].sort()
    return res


# ---------------------------------------------------------------------------------------------- the command

def _options(args, flags=(), repeated=()):
    """--name VALUE options (and bare --flags) out of args: (dict, the rest)."""
    opts, rest = {}, []
    it = iter(args)
    for a in it:
        key = a[2:].replace("-", "_") if a.startswith("--") else None
        if key in flags:
            opts[key] = True
        elif key in repeated:
            opts.setdefault(key, []).append(next(it))
        elif key:
            opts[key] = next(it)
        else:
            rest.append(a)
    return opts, rest


def main(argv):
    cmd, args = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    if cmd == "mark":
        out = mark()
    elif cmd == "mutations":
        opts, rest = _options(args[2:])
        out = mutations(int(args[0]), int(args[1]), set(rest), opts.get("aws_key"))
    elif cmd == "requests":
        out = requests(args[0])
    elif cmd == "audit":
        opts, dummy = _options(args, flags=("no_subresource",), repeated=("resource",))
        out = audit(int(opts.get("since", 0)), opts.get("namespace"), tuple(opts.get("resource", ())), opts.get("name"),
                    opts.get("agent"), opts.get("no_subresource", False))
    elif cmd == "aws":
        with open(args[0]) as f:
            out = aws_check(json.load(f), "--preserve-iam" in args[1:])
    elif cmd == "stack-status":
        out = stack_status(args)
    elif cmd == "cfn-leftovers":
        with open(args[0]) as f:
            out = cfn_leftovers(json.load(f))
    else:
        sys.exit(__doc__)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
