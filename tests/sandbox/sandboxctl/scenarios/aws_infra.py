"""aws-infra: what `hypershift create infra aws --infra-id NAME` builds, in the sandbox's AWS.

A VPC tagged `kubernetes.io/cluster/<infraID>: owned` with a public and a private subnet in each
zone, an internet gateway, one NAT gateway (with its EIP) per zone, route tables, security groups
whose rules reference each other, an S3 gateway endpoint, a DHCP option set, a private hosted zone
with records and a public zone holding the `*.apps` record, worker instances, a classic ELB (whose
ENIs the realism layer creates), the IAM roles, worker instance profile and OIDC provider named as
`hypershift create iam aws` names them, the `<infraID>/` prefix in the OIDC bucket and a versioned image-registry bucket.

Knobs (`--knob k=v`):
  zones=3  workers=2  base_domain=sandbox.example.com  oidc_bucket=sandbox-oidc
           (each worker with a root volume deleted on termination and a data volume that is not)
  nlbs=0   network load balancers (ELBv2, with a target group of the workers and a TCP listener), as guest
           Services annotated for NLB make them
  endpoint_service=false   true: an internal NLB in the private subnets and a VPC endpoint service configuration
           backed by it, tagged `kubernetes.io/cluster/<infraID>: owned` (a private cluster's PrivateLink service,
           which `hypershift destroy infra aws` deletes: DestroyVPCEndpointServices)
  nat_deleting_seconds, instance_shutting_down_seconds, elb_eni_linger_seconds, volume_deleting_seconds
           -> the layer's knobs
  cluster_name (the infra ID) -> the public `*.apps.<cluster_name>.<base_domain>` record
  shared_role=false   true: one role <infraID>-shared-role for every component, as `create iam aws --shared-role`
  neighbours=false    true: what a careless match would take, and is not this infra ID's (make_neighbours); their
           IDs are in the output's "neighbours", by type
  registry_versioned=true   false: the image-registry bucket unversioned (current objects only), which is all
           HyperShift's emptyBucket can empty (benchmarks/hypershift_destroy_model.py)
  faults=SERVICE:ACTION:FAULT:rate=R|count=N[;...]   e.g. faults=*:*:throttle:rate=0.1
The last line printed is JSON: infra_id, every ID under its CloudFormation type name ("aws"), and
the details a twin needs (subnets by zone and role, which EIP each NAT holds, the zones' names).
"""
import json
import os
import urllib.request
import uuid

from ..procs import SandboxError
from .common import aws

ROLE_SUFFIXES = ["openshift-ingress", "openshift-image-registry", "aws-ebs-csi-driver-controller",
                 "cloud-controller", "node-pool", "control-plane-operator",
                 "cloud-network-config-controller", "kms-provider"]
LAYER_KNOBS = ("nat_deleting_seconds", "instance_shutting_down_seconds", "elb_eni_linger_seconds",
               "volume_deleting_seconds")
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                            "Principal": {"Service": "ec2.amazonaws.com"}}]})
POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "ec2:Describe*",
                                                             "Resource": "*"}]})


def oidc_trust(provider_arn):
    """A trust policy that lets the OIDC provider's web identities assume the role, as `create iam aws` writes it."""
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity", "Principal": {"Federated": provider_arn}}]})


def control(method, path, body=None):
    url = os.environ["SANDBOX_AWS_CONTROL"].rstrip("/") + "/" + path
    data = json.dumps(body or {}).encode()
    req = urllib.request.Request(url, data=data if method != "GET" else None, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        raise SandboxError(f"realism control {method} {path}: {e.read().decode()}") from None


def parse_faults(spec):
    rules = []
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        bits = part.split(":")
        if len(bits) != 4 or "=" not in bits[3]:
            raise SandboxError(f"fault rule {part!r}: expected SERVICE:ACTION:FAULT:rate=R or count=N")
        k, v = bits[3].split("=", 1)
        rules.append({"service": bits[0], "action": bits[1], "fault": bits[2], k: float(v) if k == "rate" else int(v)})
    return rules


def apply_knobs(knobs):
    layer = {k: float(knobs[k]) for k in LAYER_KNOBS if k in knobs}
    out = {}
    if layer:
        out["knobs"] = control("POST", "realism/knobs", layer)["knobs"]
    if knobs.get("faults"):
        out["faults"] = [control("POST", "realism/faults", r) for r in parse_faults(knobs["faults"])]
    return out


def _tags(infra, name, extra=None):
    tags = [{"Key": f"kubernetes.io/cluster/{infra}", "Value": "owned"}, {"Key": "Name", "Value": name}]
    return tags + (extra or [])


def make_neighbours(infra, vpc, region):
    """What a careless match would take for this infra ID's, and is not (knob neighbours=true): a second cluster
    whose infra ID extends this one's (its VPC tagged owned and its node-pool role), a team's customer managed
    policy sharing the prefix, an untagged role of another team whose name only ends in a component name, and a
    private zone associated with this cluster's VPC and with a VPC outside it. Returned by type, as ``aws``."""
    ec2, r53, iam = aws("ec2"), aws("route53"), aws("iam")
    other = f"{infra}-2"
    out = {"AWS::EC2::VPC": [], "AWS::IAM::Role": [], "AWS::IAM::ManagedPolicy": [], "AWS::Route53::HostedZone": []}
    out["AWS::EC2::VPC"].append(ec2.create_vpc(CidrBlock="10.2.0.0/16", TagSpecifications=[
        {"ResourceType": "vpc", "Tags": _tags(other, f"{other}-vpc")}])["Vpc"]["VpcId"])
    for role in (f"{other}-node-pool", f"team{uuid.uuid4().hex[:6]}-node-pool"):
        iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
        out["AWS::IAM::Role"].append(role)
    out["AWS::IAM::ManagedPolicy"].append(iam.create_policy(PolicyName=f"{infra}-team-reporting",
                                                            PolicyDocument=POLICY)["Policy"]["Arn"])
    # the zone is the other team's: its own (untagged) VPC first, this cluster's VPC associated to it afterwards
    outside = ec2.create_vpc(CidrBlock="10.3.0.0/16")["Vpc"]["VpcId"]
    out["AWS::EC2::VPC"].append(outside)
    zone = r53.create_hosted_zone(Name=f"shared-{infra}.example.internal", CallerReference=str(uuid.uuid4()),
                                  VPC={"VPCRegion": region, "VPCId": outside},
                                  HostedZoneConfig={"PrivateZone": True})["HostedZone"]["Id"].split("/")[-1]
    r53.associate_vpc_with_hosted_zone(HostedZoneId=zone, VPC={"VPCRegion": region, "VPCId": vpc})
    out["AWS::Route53::HostedZone"].append(zone)
    return out


def seed(name=None, namespace=None, knobs=None):
    knobs = dict(knobs or {})
    versioned = knobs.get("registry_versioned", "true")
    if versioned not in ("true", "false"):  # before anything is created
        raise SandboxError(f"knob registry_versioned must be true or false, not {versioned!r}")
    infra = name or "infra-" + uuid.uuid4().hex[:6]
    zones_n = int(knobs.get("zones", 3))
    workers_n = int(knobs.get("workers", 2))
    base_domain = knobs.get("base_domain", "sandbox.example.com")
    oidc_bucket = knobs.get("oidc_bucket", "sandbox-oidc")
    region = os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
    layer = apply_knobs(knobs)
    ec2, elb, r53, s3, iam = aws("ec2"), aws("elb"), aws("route53"), aws("s3"), aws("iam")

    def spec(rtype, nm):
        return [{"ResourceType": rtype, "Tags": _tags(infra, nm)}]

    ids = {t: [] for t in ("AWS::EC2::VPC", "AWS::EC2::DHCPOptions", "AWS::EC2::Subnet", "AWS::EC2::InternetGateway",
                           "AWS::EC2::EIP", "AWS::EC2::NatGateway", "AWS::EC2::RouteTable", "AWS::EC2::SecurityGroup",
                           "AWS::EC2::VPCEndpoint", "AWS::EC2::Instance",
                           "AWS::ElasticLoadBalancing::LoadBalancer", "AWS::Route53::HostedZone",
                           "AWS::Route53::RecordSet", "AWS::S3::Bucket", "Custom::S3Prefix", "AWS::IAM::Role",
                           "AWS::IAM::InstanceProfile", "AWS::IAM::OIDCProvider")}
    details = {"subnets": {}, "nat_eips": {}, "route_tables": {}, "security_groups": {}, "enis": {}}

    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16", TagSpecifications=spec("vpc", f"{infra}-vpc"))["Vpc"]["VpcId"]
    ids["AWS::EC2::VPC"].append(vpc)
    ec2.modify_vpc_attribute(VpcId=vpc, EnableDnsHostnames={"Value": True})
    dopt = ec2.create_dhcp_options(DhcpConfigurations=[
        {"Key": "domain-name", "Values": [f"{region}.compute.internal"]},
        {"Key": "domain-name-servers", "Values": ["AmazonProvidedDNS"]}],
        TagSpecifications=spec("dhcp-options", f"{infra}-dhcp"))["DhcpOptions"]["DhcpOptionsId"]
    ec2.create_tags(Resources=[dopt], Tags=_tags(infra, f"{infra}-dhcp"))  # moto ignores the TagSpecifications here
    ec2.associate_dhcp_options(DhcpOptionsId=dopt, VpcId=vpc)
    ids["AWS::EC2::DHCPOptions"].append(dopt)
    igw = ec2.create_internet_gateway(TagSpecifications=spec("internet-gateway", f"{infra}-igw"))[
        "InternetGateway"]["InternetGatewayId"]
    ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    ids["AWS::EC2::InternetGateway"].append(igw)

    public_rt = ec2.create_route_table(VpcId=vpc, TagSpecifications=spec("route-table", f"{infra}-public"))[
        "RouteTable"]["RouteTableId"]
    ec2.create_route(RouteTableId=public_rt, DestinationCidrBlock="0.0.0.0/0", GatewayId=igw)
    ids["AWS::EC2::RouteTable"].append(public_rt)
    details["route_tables"]["public"] = public_rt
    azs = [f"{region}{c}" for c in "abcdef"[:zones_n]]
    private_rts = []
    for i, az in enumerate(azs):
        pub = ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone=az,
                                TagSpecifications=spec("subnet", f"{infra}-public-{az}"))["Subnet"]["SubnetId"]
        priv = ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{128 + i}.0/24", AvailabilityZone=az,
                                 TagSpecifications=spec("subnet", f"{infra}-private-{az}"))["Subnet"]["SubnetId"]
        ids["AWS::EC2::Subnet"] += [pub, priv]
        details["subnets"][az] = {"public": pub, "private": priv}
        ec2.associate_route_table(RouteTableId=public_rt, SubnetId=pub)
        eip = ec2.allocate_address(Domain="vpc", TagSpecifications=spec("elastic-ip", f"{infra}-eip-{az}"))["AllocationId"]
        ids["AWS::EC2::EIP"].append(eip)
        nat = ec2.create_nat_gateway(SubnetId=pub, AllocationId=eip,
                                     TagSpecifications=spec("natgateway", f"{infra}-nat-{az}"))["NatGateway"]["NatGatewayId"]
        ids["AWS::EC2::NatGateway"].append(nat)
        details["nat_eips"][nat] = eip
        rt = ec2.create_route_table(VpcId=vpc, TagSpecifications=spec("route-table", f"{infra}-private-{az}"))[
            "RouteTable"]["RouteTableId"]
        ec2.create_route(RouteTableId=rt, DestinationCidrBlock="0.0.0.0/0", NatGatewayId=nat)
        ec2.associate_route_table(RouteTableId=rt, SubnetId=priv)
        ids["AWS::EC2::RouteTable"].append(rt)
        details["route_tables"][az] = rt
        private_rts.append(rt)

    # security groups whose rules reference each other (worker <-> router/lb, and itself)
    sg = {}
    for role in ("worker", "router"):
        sg[role] = ec2.create_security_group(VpcId=vpc, GroupName=f"{infra}-{role}-sg", Description=f"{infra} {role}",
                                             TagSpecifications=spec("security-group", f"{infra}-{role}-sg"))["GroupId"]
        ids["AWS::EC2::SecurityGroup"].append(sg[role])
    details["security_groups"] = dict(sg)
    ec2.authorize_security_group_ingress(GroupId=sg["worker"], IpPermissions=[
        {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": sg["worker"]}, {"GroupId": sg["router"]}]}])
    ec2.authorize_security_group_ingress(GroupId=sg["router"], IpPermissions=[
        {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]},
        {"IpProtocol": "tcp", "FromPort": 30000, "ToPort": 32767, "UserIdGroupPairs": [{"GroupId": sg["worker"]}]}])

    vpce = ec2.create_vpc_endpoint(VpcId=vpc, ServiceName=f"com.amazonaws.{region}.s3", VpcEndpointType="Gateway",
                                   RouteTableIds=private_rts,
                                   TagSpecifications=spec("vpc-endpoint", f"{infra}-s3"))["VpcEndpoint"]["VpcEndpointId"]
    ids["AWS::EC2::VPCEndpoint"].append(vpce)

    # OIDC: the shared bucket's <infraID>/ prefix and the provider whose ARN ends in the infra ID
    try:
        s3.create_bucket(Bucket=oidc_bucket)
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass
    for key in (f"{infra}/.well-known/openid-configuration", f"{infra}/openid/v1/jwks"):
        s3.put_object(Bucket=oidc_bucket, Key=key, Body=b"{}")
    ids["Custom::S3Prefix"].append(f"{oidc_bucket}/{infra}/")
    oidc_arn = iam.create_open_id_connect_provider(Url=f"https://{oidc_bucket}.s3.{region}.amazonaws.com/{infra}",
                                                   ClientIDList=["openshift", "sts.amazonaws.com"],
                                                   ThumbprintList=["a" * 40])["OpenIDConnectProviderArn"]
    ids["AWS::IAM::OIDCProvider"].append(oidc_arn)

    # IAM as `hypershift create iam aws` makes it (openshift/hypershift@3ee9615 cmd/infra/aws/iam.go): a role per
    # component named <infraID>-<binding name>, trusting the cluster's OIDC provider (:913, oidcTrustPolicy), with an
    # inline policy named as the role (:1053, :1306-1310), or with shared_role=true one role <infraID>-shared-role
    # holding each component's inline policy <role>-<binding name> (:1084, :1119-1123); the worker instance profile
    # <infraID>-worker holding the EC2 role <infraID>-worker-role and its inline policy <infraID>-worker-policy
    # (:833, :1180, :1249-1258). No customer managed policy: upstream makes none
    trust = oidc_trust(oidc_arn)
    roles = ["shared-role"] if knobs.get("shared_role") == "true" else ROLE_SUFFIXES
    for suffix in roles:
        role = f"{infra}-{suffix}"
        iam.create_role(RoleName=role, AssumeRolePolicyDocument=trust)
        for policy in ([f"{role}-{b}" for b in ROLE_SUFFIXES] if suffix == "shared-role" else [role]):
            iam.put_role_policy(RoleName=role, PolicyName=policy, PolicyDocument=POLICY)
        ids["AWS::IAM::Role"].append(role)
    profile = f"{infra}-worker"
    iam.create_role(RoleName=f"{profile}-role", AssumeRolePolicyDocument=TRUST)
    iam.put_role_policy(RoleName=f"{profile}-role", PolicyName=f"{profile}-policy", PolicyDocument=POLICY)
    ids["AWS::IAM::Role"].append(f"{profile}-role")
    iam.create_instance_profile(InstanceProfileName=profile)
    iam.add_role_to_instance_profile(InstanceProfileName=profile, RoleName=f"{profile}-role")
    ids["AWS::IAM::InstanceProfile"].append(profile)

    # the image registry's bucket: versioned, with old versions and a delete marker (unless registry_versioned=false)
    registry = f"{infra}-image-registry-{region}-{uuid.uuid4().hex[:8]}".lower()
    s3.create_bucket(Bucket=registry)
    s3.put_bucket_tagging(Bucket=registry, Tagging={"TagSet": [{"Key": f"kubernetes.io/cluster/{infra}", "Value": "owned"}]})
    if versioned == "true":
        s3.put_bucket_versioning(Bucket=registry, VersioningConfiguration={"Status": "Enabled"})
    for body in (b"v1", b"v2"):
        s3.put_object(Bucket=registry, Key="docker/registry/v2/blob", Body=body)
    s3.put_object(Bucket=registry, Key="docker/registry/v2/gone", Body=b"x")
    s3.delete_object(Bucket=registry, Key="docker/registry/v2/gone")
    ids["AWS::S3::Bucket"].append(registry)

    # workers
    image = ec2.describe_images(Owners=["amazon"], MaxResults=5)["Images"][0]["ImageId"]
    for w in range(workers_n):
        az = azs[w % len(azs)]
        # a root volume AWS deletes with the instance, and a data volume it only detaches (as a machine set's
        # extra block device), neither tagged: they are the instance's, found through its block device mappings
        inst = ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1, InstanceType="m5.large",
                                 SubnetId=details["subnets"][az]["private"], SecurityGroupIds=[sg["worker"]],
                                 IamInstanceProfile={"Name": profile},
                                 BlockDeviceMappings=[
                                     {"DeviceName": "/dev/xvda", "Ebs": {"VolumeSize": 120, "VolumeType": "gp3",
                                                                         "DeleteOnTermination": True}},
                                     {"DeviceName": "/dev/sdf", "Ebs": {"VolumeSize": 10, "VolumeType": "gp3",
                                                                        "DeleteOnTermination": False}}],
                                 TagSpecifications=spec("instance", f"{infra}-worker-{w}"))["Instances"][0]
        ids["AWS::EC2::Instance"].append(inst["InstanceId"])
        for m in inst.get("BlockDeviceMappings", []):
            ids.setdefault("AWS::EC2::Volume", []).append(m["Ebs"]["VolumeId"])
            details.setdefault("volumes", {})[m["Ebs"]["VolumeId"]] = {
                "instance": inst["InstanceId"], "device": m["DeviceName"],
                "delete_on_termination": m["Ebs"]["DeleteOnTermination"]}
        details["enis"][inst["InstanceId"]] = [n["NetworkInterfaceId"] for n in inst.get("NetworkInterfaces", [])]

    # the router's classic ELB in the public subnets (the layer gives it ENIs, as AWS does)
    lb = f"{infra}-router"[:32]
    elb.create_load_balancer(LoadBalancerName=lb, Listeners=[{"Protocol": "TCP", "LoadBalancerPort": 443,
                                                              "InstancePort": 30443}],
                             Subnets=[details["subnets"][az]["public"] for az in azs], SecurityGroups=[sg["router"]],
                             Tags=[{"Key": f"kubernetes.io/cluster/{infra}", "Value": "owned"}])
    ids["AWS::ElasticLoadBalancing::LoadBalancer"].append(lb)
    details["enis"][lb] = [e["NetworkInterfaceId"] for e in ec2.describe_network_interfaces(
        Filters=[{"Name": "description", "Values": [f"ELB {lb}"]}])["NetworkInterfaces"]]

    # network load balancers of guest Services annotated for NLB (knob nlbs=N, default 0: `create infra`
    # itself makes none): each with a target group of the workers and a listener that forwards to it
    if int(knobs.get("nlbs", 0)) > 0:
        elbv2 = aws("elbv2")
        for key in ("AWS::ElasticLoadBalancingV2::LoadBalancer", "AWS::ElasticLoadBalancingV2::TargetGroup"):
            ids[key] = []
        for n in range(int(knobs["nlbs"])):
            nlb = elbv2.create_load_balancer(Name=f"{infra}-nlb{n}"[:32], Type="network", Scheme="internet-facing",
                                             Subnets=[details["subnets"][az]["public"] for az in azs],
                                             Tags=[{"Key": f"kubernetes.io/cluster/{infra}", "Value": "owned"}])[
                "LoadBalancers"][0]["LoadBalancerArn"]
            tg = elbv2.create_target_group(Name=f"{infra}-tg{n}"[:32], Protocol="TCP", Port=30443, VpcId=vpc,
                                           TargetType="instance")["TargetGroups"][0]["TargetGroupArn"]
            if ids["AWS::EC2::Instance"]:
                elbv2.register_targets(TargetGroupArn=tg, Targets=[{"Id": i} for i in ids["AWS::EC2::Instance"]])
            elbv2.create_listener(LoadBalancerArn=nlb, Protocol="TCP", Port=443,
                                  DefaultActions=[{"Type": "forward", "TargetGroupArn": tg}])
            ids["AWS::ElasticLoadBalancingV2::LoadBalancer"].append(nlb)
            ids["AWS::ElasticLoadBalancingV2::TargetGroup"].append(tg)
            details["enis"][nlb] = [e["NetworkInterfaceId"] for e in ec2.describe_network_interfaces(Filters=[
                {"Name": "description", "Values": ["ELB " + nlb.split(":loadbalancer/")[-1]]}])["NetworkInterfaces"]]

    # a private cluster's PrivateLink: an internal NLB in the private subnets and an endpoint service configuration
    # backed by it, tagged for the infra ID (knob endpoint_service=true; default false: worlds stay as they were)
    if str(knobs.get("endpoint_service", "false")).lower() == "true":
        elbv2 = aws("elbv2")
        ids.setdefault("AWS::ElasticLoadBalancingV2::LoadBalancer", [])
        pl_nlb = elbv2.create_load_balancer(Name=f"{infra}-pl"[:32], Type="network", Scheme="internal",
                                            Subnets=[details["subnets"][az]["private"] for az in azs],
                                            Tags=[{"Key": f"kubernetes.io/cluster/{infra}", "Value": "owned"}])[
            "LoadBalancers"][0]["LoadBalancerArn"]
        ids["AWS::ElasticLoadBalancingV2::LoadBalancer"].append(pl_nlb)
        details["enis"][pl_nlb] = [e["NetworkInterfaceId"] for e in ec2.describe_network_interfaces(Filters=[
            {"Name": "description", "Values": ["ELB " + pl_nlb.split(":loadbalancer/")[-1]]}])["NetworkInterfaces"]]
        svc = ec2.create_vpc_endpoint_service_configuration(
            NetworkLoadBalancerArns=[pl_nlb], AcceptanceRequired=False,
            TagSpecifications=spec("vpc-endpoint-service", f"{infra}-private-link"))["ServiceConfiguration"]
        ids["AWS::EC2::VPCEndpointService"] = [svc["ServiceId"]]
        details["endpoint_service"] = {"id": svc["ServiceId"], "name": svc["ServiceName"], "nlb": pl_nlb}

    # DNS: a private zone on the VPC, and the *.apps record in the public zone
    private_zone_name = f"{infra}.hypershift.local"
    pz = r53.create_hosted_zone(Name=private_zone_name, CallerReference=str(uuid.uuid4()),
                                VPC={"VPCRegion": region, "VPCId": vpc},
                                HostedZoneConfig={"PrivateZone": True, "Comment": infra})["HostedZone"]["Id"].split("/")[-1]
    ids["AWS::Route53::HostedZone"].append(pz)
    r53.change_resource_record_sets(HostedZoneId=pz, ChangeBatch={"Changes": [
        {"Action": "CREATE", "ResourceRecordSet": {"Name": f"{n}.{private_zone_name}", "Type": "A", "TTL": 60,
                                                   "ResourceRecords": [{"Value": "10.0.128.10"}]}}
        for n in ("api", "api-int", "*.apps")]})
    public = [z for z in r53.list_hosted_zones_by_name(DNSName=base_domain)["HostedZones"]
              if z["Name"].rstrip(".") == base_domain and not z["Config"].get("PrivateZone")]
    public_id = public[0]["Id"].split("/")[-1] if public else r53.create_hosted_zone(
        Name=base_domain, CallerReference=str(uuid.uuid4()))["HostedZone"]["Id"].split("/")[-1]
    # named after the cluster (HyperShift's *.apps.<cluster name>.<base domain>); the infra ID when none is given
    apps = f"*.apps.{knobs.get('cluster_name') or infra}.{base_domain}."
    r53.change_resource_record_sets(HostedZoneId=public_id, ChangeBatch={"Changes": [
        {"Action": "UPSERT", "ResourceRecordSet": {"Name": apps, "Type": "CNAME", "TTL": 60,
                                                   "ResourceRecords": [{"Value": f"{lb}.elb.amazonaws.com"}]}}]})
    listed = r53.list_resource_record_sets(HostedZoneId=public_id, StartRecordName=apps, StartRecordType="CNAME",
                                           MaxItems="1")["ResourceRecordSets"][0]["Name"]  # as Route 53 spells it
    ids["AWS::Route53::RecordSet"].append(f"{public_id}/{listed}/CNAME")

    neighbours = make_neighbours(infra, vpc, region) if knobs.get("neighbours") == "true" else {}

    return {"scenario": "aws-infra", "name": infra, "neighbours": neighbours, "infra_id": infra, "region": region,
            "base_domain": base_domain, "oidc_bucket": oidc_bucket, "public_zone": public_id,
            "private_zone_name": private_zone_name, "aws": ids, "details": details, "layer": layer,
            "counts": {t: len(v) for t, v in ids.items()}}
