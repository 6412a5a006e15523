#!/usr/bin/env python
"""Independent checks for hosted-cluster teardown tests: plain boto3 and the sandbox's logs, never the
collection's own code (a test that reused our inventory or cleanup code could not catch its bugs).

  hc_check.py aws SEED_JSON [--preserve-iam]
      every AWS ID the seed made (worker-VPC infrastructure, guest and management cloud resources,
      OIDC documents), looked up BY ID: JSON {"absent": [...], "terminal": [...], "present": [...],
      "unknown": [...], "iam_retained": [...]}. A lookup that fails for any reason other than
      "not found" is unknown, never absent. With --preserve-iam, present IAM is listed as retained.
  hc_check.py mark
      JSON {"audit": N, "aws": N}: the line counts of $SANDBOX_AUDIT_LOG and $SANDBOX_AWS_LOG.
  hc_check.py mutations AUDIT_LINE AWS_LINE [--aws-key KEY_ID] NAMESPACE...
      JSON {"k8s": [...], "aws": [...], "aws_seen": N}: the mutating requests logged after the marks,
      Kubernetes ones limited to the given namespaces (and the Namespace objects themselves), from API
      clients (not the controller manager); AWS ones, with --aws-key, only those signed with that access
      key ID (aws_seen counts every request so signed: 0 means the filter saw nothing of ours, and
      proves nothing). For check-mode proofs while no controller acts on the cluster.
  hc_check.py knob NAME NAMESPACE KEY [VALUE]
      set (or without VALUE clear) the sandbox knob KEY of a seeded hosted cluster where the twins read it:
      annotation sandbox.teardown.gates/knob-KEY on the HostedCluster, its NodePools, the HCP namespace.
  hc_check.py hc NAME NAMESPACE
      JSON {"present": bool, "deleting": bool, "finalizers": [...]} of the HostedCluster (a failed read exits 1).
  hc_check.py layer-knob KEY [VALUE]
      read (or set) a knob of the sandbox's AWS realism layer; prints the layer's knobs as JSON.
"""
import functools
import json
import os
import sys

import boto3
from botocore.exceptions import ClientError

MUTATING_AWS = ("Delete", "Terminate", "Detach", "Disassociate", "Release", "Revoke", "Remove", "Change", "Put",
                "Create", "Attach", "Associate", "Modify", "Run", "Allocate", "Authorize", "Replace", "Update")
MUTATING_K8S = ("create", "update", "patch", "delete", "deletecollection")
IAM_TYPES = ("AWS::IAM::Role", "AWS::IAM::InstanceProfile", "AWS::IAM::ManagedPolicy", "AWS::IAM::OIDCProvider")


@functools.lru_cache(maxsize=None)
def client(service):
    """One client per service (making one costs a fraction of a second)."""
    return boto3.client(service, endpoint_url=os.environ.get("AWS_ENDPOINT_URL"),
                        region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


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


def lookups(rtype, rid):
    ec2, elb, elbv2, iam, s3, r53 = (client(s) for s in ("ec2", "elb", "elbv2", "iam", "s3", "route53"))
    table = {
        "AWS::EC2::VPC": lambda: _state(lambda: _first(ec2.describe_vpcs(VpcIds=[rid])["Vpcs"]), {"InvalidVpcID.NotFound"}),
        "AWS::EC2::Subnet": lambda: _state(lambda: _first(ec2.describe_subnets(SubnetIds=[rid])["Subnets"]),
                                           {"InvalidSubnetID.NotFound"}),
        "AWS::EC2::SecurityGroup": lambda: _state(lambda: _first(ec2.describe_security_groups(GroupIds=[rid])["SecurityGroups"]),
                                                  {"InvalidGroup.NotFound", "InvalidGroupId.NotFound"}),
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
        "AWS::EC2::Volume": lambda: _state(lambda: _first(ec2.describe_volumes(VolumeIds=[rid])["Volumes"]),
                                           {"InvalidVolume.NotFound"}, lambda v: v["State"] == "deleted"),
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
    for group in (seed.get("aws") or {}, seed.get("guest_cloud") or {}, seed.get("management_cloud") or {}):
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
        state = lookups(rtype, rid)
        label = "%s %s" % (rtype, rid)
        if state.startswith("unknown"):
            res["unknown"].append(label + " (" + state + ")")
        elif state == "present" and preserve_iam and rtype in IAM_TYPES:
            res["iam_retained"].append(label)
        else:
            res[state].append(label)
    return res


def _lines(path):
    with open(path, "rb") as f:
        return sum(1 for dummy in f)


def mutations(audit_since, aws_since, namespaces, aws_key=None):
    k8s, aws, seen = [], [], 0
    with open(os.environ["SANDBOX_AUDIT_LOG"]) as f:
        for n, line in enumerate(f, 1):
            if n <= audit_since:
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            ref = ev.get("objectRef") or {}
            if ev.get("verb") not in MUTATING_K8S or ev.get("stage") != "ResponseComplete":
                continue
            if (ev.get("userAgent") or "").startswith("kube-"):
                continue
            if ref.get("namespace") in namespaces or (ref.get("resource") == "namespaces" and ref.get("name") in namespaces):
                k8s.append("%s %s %s/%s%s" % (ev["verb"], ref.get("resource"), ref.get("namespace") or "", ref.get("name") or "",
                                              "/" + ref["subresource"] if ref.get("subresource") else ""))
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        for n, line in enumerate(f, 1):
            if n <= aws_since:
                continue
            row = json.loads(line)
            if aws_key and row.get("key_id") != aws_key:
                continue
            seen += 1
            if row.get("action", "").startswith(MUTATING_AWS) and not row.get("injected"):
                aws.append("%s:%s" % (row.get("service"), row["action"]))
    return {"k8s": k8s, "aws": aws, "aws_seen": seen}


def knob(name, namespace, key, value):
    from kubernetes import client as kclient, config as kconfig  # only this command needs Kubernetes
    kconfig.load_kube_config()
    api = kclient.CustomObjectsApi()
    body = {"metadata": {"annotations": {"sandbox.teardown.gates/knob-" + key: value}}}
    done = []

    def patch(fn, *args):
        try:
            fn(*args, body)
            done.append("/".join(a for a in args if a not in ("hypershift.openshift.io", "v1beta1")))
        except kclient.ApiException as e:
            if e.status != 404:
                raise
    patch(api.patch_namespaced_custom_object, "hypershift.openshift.io", "v1beta1", namespace, "hostedclusters", name)
    pools = api.list_namespaced_custom_object("hypershift.openshift.io", "v1beta1", namespace, "nodepools")["items"]
    for np in pools:
        if (np.get("spec") or {}).get("clusterName") == name:
            patch(api.patch_namespaced_custom_object, "hypershift.openshift.io", "v1beta1", namespace, "nodepools",
                  np["metadata"]["name"])
    patch(kclient.CoreV1Api().patch_namespace, namespace + "-" + name)
    print(json.dumps({"knob": key, "value": value, "patched": done}))


def hosted_cluster(name, namespace):
    from kubernetes import client as kclient, config as kconfig
    kconfig.load_kube_config()
    try:
        hc = kclient.CustomObjectsApi().get_namespaced_custom_object(
            "hypershift.openshift.io", "v1beta1", namespace, "hostedclusters", name)
    except kclient.ApiException as e:
        if e.status == 404:
            return {"present": False, "deleting": False, "finalizers": []}
        raise
    md = hc["metadata"]
    return {"present": True, "deleting": bool(md.get("deletionTimestamp")), "finalizers": md.get("finalizers") or []}


def layer_knob(key, value):
    import urllib.request
    url = os.environ["SANDBOX_AWS_CONTROL"] + "/realism"
    if value is not None:
        req = urllib.request.Request(url + "/knobs", data=json.dumps({key: float(value)}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).read()
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)["knobs"]


def main(argv):
    cmd = argv[1]
    if cmd == "aws":
        with open(argv[2]) as f:
            seed = json.load(f)
        print(json.dumps(aws_check(seed, "--preserve-iam" in argv[3:])))
    elif cmd == "mark":
        print(json.dumps({"audit": _lines(os.environ["SANDBOX_AUDIT_LOG"]), "aws": _lines(os.environ["SANDBOX_AWS_LOG"])}))
    elif cmd == "mutations":
        rest = argv[4:]
        key = None
        if rest[:1] == ["--aws-key"]:
            key, rest = rest[1], rest[2:]
        print(json.dumps(mutations(int(argv[2]), int(argv[3]), set(rest), key)))
    elif cmd == "knob":
        knob(argv[2], argv[3], argv[4], argv[5] if len(argv) > 5 else None)
    elif cmd == "hc":
        print(json.dumps(hosted_cluster(argv[2], argv[3])))
    elif cmd == "layer-knob":
        print(json.dumps(layer_knob(argv[2], argv[3] if len(argv) > 3 else None)))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
