"""The realism layer, rule by rule, against plain boto3 (tests/sandbox/spec/aws-layer.md).

Each test builds the few resources its rule needs, checks that the layer refuses as AWS does
(error code botocore parses, and the state machine's states), then that the refusal lifts when its
cause is gone.
"""
import concurrent.futures
import json
import os
import time
import urllib.request
import uuid

import boto3
import botocore.exceptions
import pytest
from botocore.config import Config

# alone on the sandbox (tests/run_all.sh runs these after the others, one at a time): it sets the AWS layer's
# knobs, which every AWS request in the sandbox shares
pytestmark = pytest.mark.exclusive

NO_RETRY = Config(retries={"total_max_attempts": 1, "mode": "standard"})


def client(service, config=None, key_id=None):
    """key_id: sign with a key of the test's own, for a fault rule drawn only for it (CAPA and the twins call
    DescribeVpcs and the like all the time, and would spend a rule's count first)."""
    keys = {"aws_access_key_id": key_id, "aws_secret_access_key": "fault" + key_id} if key_id else {}
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                        config=config, **keys)


def control(method, path, body=None):
    req = urllib.request.Request(os.environ["SANDBOX_AWS_CONTROL"] + "/" + path, method=method,
                                 data=json.dumps(body or {}).encode() if method != "GET" else None,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def code_of(excinfo):
    return excinfo.value.response["Error"]["Code"]


def wait_for(fn, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.3)
    raise AssertionError("condition not reached in %s s" % timeout)


@pytest.fixture(autouse=True)
def fast_layer():
    if not os.environ.get("SANDBOX_AWS_CONTROL"):
        pytest.fail("sandbox environment missing")
    control("POST", "realism/knobs", {"nat_deleting_seconds": 1.5, "instance_shutting_down_seconds": 1.0,
                                      "elb_eni_linger_seconds": 1.0, "volume_deleting_seconds": 1.0})
    control("DELETE", "realism/faults")
    yield
    control("DELETE", "realism/faults")


@pytest.fixture()
def net():
    ec2 = client("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.9.1.0/24", AvailabilityZone="us-east-1a")["Subnet"]["SubnetId"]
    return ec2, vpc, subnet


def nat_setup(ec2, vpc, subnet):
    igw = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    eip = ec2.allocate_address(Domain="vpc")["AllocationId"]
    nat = ec2.create_nat_gateway(SubnetId=subnet, AllocationId=eip)["NatGateway"]["NatGatewayId"]
    return igw, eip, nat


def nat_state(ec2, nat):
    return ec2.describe_nat_gateways(NatGatewayIds=[nat])["NatGateways"][0]["State"]


def test_subnet_with_eni_is_dependency_violation(net):
    ec2, vpc, subnet = net
    eni = ec2.create_network_interface(SubnetId=subnet)["NetworkInterface"]["NetworkInterfaceId"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_subnet(SubnetId=subnet)
    assert code_of(e) == "DependencyViolation"
    ec2.delete_network_interface(NetworkInterfaceId=eni)
    ec2.delete_subnet(SubnetId=subnet)


def test_subnet_with_instance_until_terminated(net):
    ec2, vpc, subnet = net
    image = ec2.describe_images(Owners=["amazon"], MaxResults=5)["Images"][0]["ImageId"]
    iid = ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1, SubnetId=subnet)["Instances"][0]["InstanceId"]
    ec2.terminate_instances(InstanceIds=[iid])
    state = ec2.describe_instances(InstanceIds=[iid])["Reservations"][0]["Instances"][0]["State"]["Name"]
    assert state == "shutting-down"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_subnet(SubnetId=subnet)
    assert code_of(e) == "DependencyViolation"
    wait_for(lambda: ec2.describe_instances(InstanceIds=[iid])["Reservations"][0]["Instances"][0]["State"]["Name"]
             == "terminated")
    ec2.delete_subnet(SubnetId=subnet)


def volume(ec2, vid):
    """(state, attached instance IDs) of a volume, or None once EC2 answers InvalidVolume.NotFound."""
    try:
        v = ec2.describe_volumes(VolumeIds=[vid])["Volumes"][0]
    except botocore.exceptions.ClientError as e:
        if code_of_error(e) == "InvalidVolume.NotFound":
            return None
        raise
    return v["State"], [a["InstanceId"] for a in v.get("Attachments", [])]


def code_of_error(e):
    return e.response["Error"]["Code"]


def test_volume_in_use_is_refused_then_deleting_then_gone(net):  # AWS-30
    ec2, vpc, subnet = net
    image = ec2.describe_images(Owners=["amazon"], MaxResults=5)["Images"][0]["ImageId"]
    iid = ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1, SubnetId=subnet)["Instances"][0]["InstanceId"]
    vid = ec2.create_volume(AvailabilityZone="us-east-1a", Size=1)["VolumeId"]
    assert volume(ec2, vid) == ("available", [])
    ec2.attach_volume(VolumeId=vid, InstanceId=iid, Device="/dev/sdg")
    assert volume(ec2, vid) == ("in-use", [iid])
    with pytest.raises(botocore.exceptions.ClientError) as e:
        client("ec2", NO_RETRY).delete_volume(VolumeId=vid)
    assert code_of(e) == "VolumeInUse" and e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert volume(ec2, vid) == ("in-use", [iid])  # the refusal changed nothing
    ec2.detach_volume(VolumeId=vid, InstanceId=iid)
    ec2.delete_volume(VolumeId=vid)
    assert volume(ec2, vid) == ("deleting", [])
    listed = ec2.describe_volumes(Filters=[{"Name": "status", "Values": ["deleting"]}])["Volumes"]
    assert vid in [v["VolumeId"] for v in listed]
    wait_for(lambda: volume(ec2, vid) is None)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_volume(VolumeId=vid)
    assert code_of(e) == "InvalidVolume.NotFound"
    ec2.terminate_instances(InstanceIds=[iid])


def test_terminating_an_instance_deletes_its_delete_on_termination_volumes_and_detaches_the_others(net):  # AWS-31
    ec2, vpc, subnet = net
    image = ec2.describe_images(Owners=["amazon"], MaxResults=5)["Images"][0]["ImageId"]
    inst = ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1, SubnetId=subnet, BlockDeviceMappings=[
        {"DeviceName": "/dev/xvda", "Ebs": {"VolumeSize": 8, "DeleteOnTermination": True}},
        {"DeviceName": "/dev/sdf", "Ebs": {"VolumeSize": 2, "DeleteOnTermination": False}}])["Instances"][0]
    by_device = {m["DeviceName"]: m["Ebs"]["VolumeId"] for m in inst["BlockDeviceMappings"]}
    root, data = by_device["/dev/xvda"], by_device["/dev/sdf"]
    assert volume(ec2, root) == ("in-use", [inst["InstanceId"]]) and volume(ec2, data)[0] == "in-use"
    ec2.terminate_instances(InstanceIds=[inst["InstanceId"]])
    assert volume(ec2, root) in (("deleting", []), None)
    wait_for(lambda: volume(ec2, root) is None)
    assert volume(ec2, data) == ("available", [])  # detached, kept: someone must delete it
    ec2.delete_volume(VolumeId=data)
    wait_for(lambda: volume(ec2, data) is None)


def test_an_instance_tagged_to_hold_stays_shutting_down_until_the_tag_goes(net):
    ec2, vpc, subnet = net
    image = ec2.describe_images(Owners=["amazon"], MaxResults=5)["Images"][0]["ImageId"]
    iid = ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1, SubnetId=subnet)["Instances"][0]["InstanceId"]
    hold = {"Key": "sandbox.teardown.gates/hold-shutting-down", "Value": "true"}
    ec2.create_tags(Resources=[iid], Tags=[hold])
    ec2.terminate_instances(InstanceIds=[iid])
    state = lambda: ec2.describe_instances(InstanceIds=[iid])["Reservations"][0]["Instances"][0]["State"]["Name"]  # noqa: E731
    time.sleep(2.5)  # well past the layer's shutting-down time (fast_layer: 1 s)
    assert state() == "shutting-down"
    ec2.delete_tags(Resources=[iid], Tags=[{"Key": hold["Key"]}])
    wait_for(lambda: state() == "terminated")


def test_a_rule_for_a_protocol_without_ports_is_accepted_as_aws_does(net):
    # CAPA's Calico rule: IP-in-IP (protocol 4) carries no ports; AWS allows it on every port
    ec2, vpc, subnet = net
    gid = ec2.create_security_group(GroupName="ipip-" + uuid.uuid4().hex[:6], Description="t", VpcId=vpc)["GroupId"]
    ec2.authorize_security_group_ingress(GroupId=gid, IpPermissions=[
        {"IpProtocol": "4", "UserIdGroupPairs": [{"GroupId": gid, "Description": "IP-in-IP (calico)"}]}])
    rules = ec2.describe_security_groups(GroupIds=[gid])["SecurityGroups"][0]["IpPermissions"]
    assert [r["IpProtocol"] for r in rules] == ["4"]


def test_security_group_attached_to_eni(net):
    ec2, vpc, subnet = net
    sg = ec2.create_security_group(VpcId=vpc, GroupName="g-" + uuid.uuid4().hex[:6], Description="d")["GroupId"]
    eni = ec2.create_network_interface(SubnetId=subnet, Groups=[sg])["NetworkInterface"]["NetworkInterfaceId"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_security_group(GroupId=sg)
    assert code_of(e) == "DependencyViolation"
    ec2.delete_network_interface(NetworkInterfaceId=eni)
    ec2.delete_security_group(GroupId=sg)


def test_security_group_referenced_by_another_groups_rule(net):
    ec2, vpc, subnet = net
    a = ec2.create_security_group(VpcId=vpc, GroupName="a-" + uuid.uuid4().hex[:6], Description="d")["GroupId"]
    b = ec2.create_security_group(VpcId=vpc, GroupName="b-" + uuid.uuid4().hex[:6], Description="d")["GroupId"]
    perm = {"IpProtocol": "tcp", "FromPort": 1, "ToPort": 2, "UserIdGroupPairs": [{"GroupId": a}]}
    ec2.authorize_security_group_ingress(GroupId=b, IpPermissions=[perm])
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_security_group(GroupId=a)
    assert code_of(e) == "DependencyViolation"
    ec2.revoke_security_group_ingress(GroupId=b, IpPermissions=[perm])
    ec2.delete_security_group(GroupId=a)


def test_default_security_group_cannot_be_deleted(net):
    ec2, vpc, subnet = net
    default = ec2.describe_security_groups(Filters=[{"Name": "vpc-id", "Values": [vpc]},
                                                    {"Name": "group-name", "Values": ["default"]}])["SecurityGroups"][0]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_security_group(GroupId=default["GroupId"])
    assert code_of(e) == "CannotDelete"


def test_nat_gateway_deleting_holds_subnet_eip_and_internet_gateway(net):
    ec2, vpc, subnet = net
    igw, eip, nat = nat_setup(ec2, vpc, subnet)
    ec2.delete_nat_gateway(NatGatewayId=nat)
    assert nat_state(ec2, nat) == "deleting"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.release_address(AllocationId=eip)
    assert code_of(e) == "InvalidIPAddress.InUse"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_subnet(SubnetId=subnet)
    assert code_of(e) == "DependencyViolation"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.detach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    assert code_of(e) == "DependencyViolation"
    assert "mapped public address(es)" in e.value.response["Error"]["Message"]
    wait_for(lambda: nat_state(ec2, nat) == "deleted")
    ec2.detach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    ec2.release_address(AllocationId=eip)
    ec2.delete_subnet(SubnetId=subnet)


def test_internet_gateway_attached_cannot_be_deleted(net):
    ec2, vpc, subnet = net
    igw = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_internet_gateway(InternetGatewayId=igw)
    assert code_of(e) == "DependencyViolation"
    ec2.detach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    ec2.delete_internet_gateway(InternetGatewayId=igw)


def test_route_table_associated_or_main(net):
    ec2, vpc, subnet = net
    rt = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    assoc = ec2.associate_route_table(RouteTableId=rt, SubnetId=subnet)["AssociationId"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_route_table(RouteTableId=rt)
    assert code_of(e) == "DependencyViolation"
    ec2.disassociate_route_table(AssociationId=assoc)
    ec2.delete_route_table(RouteTableId=rt)
    main = ec2.describe_route_tables(Filters=[{"Name": "vpc-id", "Values": [vpc]},
                                              {"Name": "association.main", "Values": ["true"]}])["RouteTables"][0]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_route_table(RouteTableId=main["RouteTableId"])
    assert code_of(e) == "DependencyViolation"


def test_vpc_with_dependencies(net):
    ec2, vpc, subnet = net
    sg = ec2.create_security_group(VpcId=vpc, GroupName="v-" + uuid.uuid4().hex[:6], Description="d")["GroupId"]
    ec2.delete_subnet(SubnetId=subnet)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_vpc(VpcId=vpc)
    assert code_of(e) == "DependencyViolation"
    ec2.delete_security_group(GroupId=sg)
    ec2.delete_vpc(VpcId=vpc)


def test_dhcp_options_outlive_their_vpc(net):
    ec2, vpc, subnet = net
    dopt = ec2.create_dhcp_options(DhcpConfigurations=[{"Key": "domain-name", "Values": ["x.internal"]}])[
        "DhcpOptions"]["DhcpOptionsId"]
    ec2.associate_dhcp_options(DhcpOptionsId=dopt, VpcId=vpc)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_dhcp_options(DhcpOptionsId=dopt)
    assert code_of(e) == "DependencyViolation"
    ec2.delete_subnet(SubnetId=subnet)
    ec2.delete_vpc(VpcId=vpc)
    assert ec2.describe_dhcp_options(DhcpOptionsIds=[dopt])["DhcpOptions"]
    ec2.delete_dhcp_options(DhcpOptionsId=dopt)


def test_elb_enis_linger_after_the_load_balancer(net):
    ec2, vpc, subnet = net
    elb = client("elb")
    name = "lb-" + uuid.uuid4().hex[:6]
    elb.create_load_balancer(LoadBalancerName=name, Subnets=[subnet],
                             Listeners=[{"Protocol": "TCP", "LoadBalancerPort": 80, "InstancePort": 80}])
    enis = ec2.describe_network_interfaces(Filters=[{"Name": "subnet-id", "Values": [subnet]}])["NetworkInterfaces"]
    assert [e["Description"] for e in enis] == [f"ELB {name}"]
    elb.delete_load_balancer(LoadBalancerName=name)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_subnet(SubnetId=subnet)
    assert code_of(e) == "DependencyViolation"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_network_interface(NetworkInterfaceId=enis[0]["NetworkInterfaceId"])
    assert code_of(e) == "InvalidNetworkInterface.InUse"
    wait_for(lambda: not ec2.describe_network_interfaces(
        Filters=[{"Name": "subnet-id", "Values": [subnet]}])["NetworkInterfaces"])
    ec2.delete_subnet(SubnetId=subnet)


def test_an_elb_s_lingering_enis_hold_its_security_group(net):  # AWS-12 with AWS-2
    """A guest Service's load balancer: its group is refused while the ENIs it left behind still carry it."""
    ec2, vpc, subnet = net
    elb = client("elb")
    sg = ec2.create_security_group(VpcId=vpc, GroupName="k8s-elb-" + uuid.uuid4().hex[:6], Description="d")["GroupId"]
    name = "lb-" + uuid.uuid4().hex[:6]
    elb.create_load_balancer(LoadBalancerName=name, Subnets=[subnet], SecurityGroups=[sg],
                             Listeners=[{"Protocol": "TCP", "LoadBalancerPort": 80, "InstancePort": 80}])
    [eni] = ec2.describe_network_interfaces(Filters=[{"Name": "subnet-id", "Values": [subnet]}])["NetworkInterfaces"]
    assert eni["Description"] == f"ELB {name}" and [g["GroupId"] for g in eni["Groups"]] == [sg]
    elb.delete_load_balancer(LoadBalancerName=name)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.delete_security_group(GroupId=sg)
    assert code_of(e) == "DependencyViolation" and e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    wait_for(lambda: not ec2.describe_network_interfaces(
        Filters=[{"Name": "subnet-id", "Values": [subnet]}])["NetworkInterfaces"])
    ec2.delete_security_group(GroupId=sg)
    assert not ec2.describe_security_groups(Filters=[{"Name": "group-id", "Values": [sg]}])["SecurityGroups"]


def test_hosted_zone_not_empty():
    r53 = client("route53")
    name = f"z{uuid.uuid4().hex[:6]}.example.com"
    zid = r53.create_hosted_zone(Name=name, CallerReference=uuid.uuid4().hex)["HostedZone"]["Id"]
    rec = {"Name": "a." + name, "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "10.0.0.1"}]}
    r53.change_resource_record_sets(HostedZoneId=zid, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": rec}]})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        r53.delete_hosted_zone(Id=zid)
    assert code_of(e) == "HostedZoneNotEmpty"
    r53.change_resource_record_sets(HostedZoneId=zid, ChangeBatch={"Changes": [{"Action": "DELETE", "ResourceRecordSet": rec}]})
    # AWS-23: the same delete again names a record that is not there
    with pytest.raises(botocore.exceptions.ClientError) as e:
        r53.change_resource_record_sets(HostedZoneId=zid, ChangeBatch={"Changes": [{"Action": "DELETE", "ResourceRecordSet": rec}]})
    assert code_of(e) == "InvalidChangeBatch" and "not found" in str(e.value)
    r53.delete_hosted_zone(Id=zid)


def test_iam_delete_conflicts():
    iam = client("iam")
    n = "r-" + uuid.uuid4().hex[:6]
    doc = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
    trust = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                                "Principal": {"Service": "ec2.amazonaws.com"}}]})
    iam.create_role(RoleName=n, AssumeRolePolicyDocument=trust)
    arn = iam.create_policy(PolicyName=n, PolicyDocument=doc)["Policy"]["Arn"]
    iam.attach_role_policy(RoleName=n, PolicyArn=arn)
    iam.create_instance_profile(InstanceProfileName=n)
    iam.add_role_to_instance_profile(InstanceProfileName=n, RoleName=n)
    for call in (lambda: iam.delete_policy(PolicyArn=arn), lambda: iam.delete_role(RoleName=n),
                 lambda: iam.delete_instance_profile(InstanceProfileName=n)):
        with pytest.raises(botocore.exceptions.ClientError) as e:
            call()
        assert code_of(e) == "DeleteConflict"
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409
    iam.remove_role_from_instance_profile(InstanceProfileName=n, RoleName=n)
    iam.delete_instance_profile(InstanceProfileName=n)
    iam.detach_role_policy(RoleName=n, PolicyArn=arn)
    iam.delete_policy(PolicyArn=arn)
    iam.delete_role(RoleName=n)


def test_bucket_not_empty_counts_versions_and_delete_markers():
    s3 = client("s3")
    b = "b-" + uuid.uuid4().hex[:8]
    s3.create_bucket(Bucket=b)
    s3.put_bucket_versioning(Bucket=b, VersioningConfiguration={"Status": "Enabled"})
    s3.put_object(Bucket=b, Key="k", Body=b"1")
    s3.delete_object(Bucket=b, Key="k")  # only a delete marker and an old version are left
    assert s3.list_objects_v2(Bucket=b).get("KeyCount", 0) == 0
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.delete_bucket(Bucket=b)
    assert code_of(e) == "BucketNotEmpty"
    vers = s3.list_object_versions(Bucket=b)
    for v in vers.get("Versions", []) + vers.get("DeleteMarkers", []):
        s3.delete_object(Bucket=b, Key=v["Key"], VersionId=v["VersionId"])
    s3.delete_bucket(Bucket=b)


def test_fault_throttle_by_count():
    # the rules are drawn for this test's key only: on 2026-12-03 CAPA's DescribeVpcs spent the count first
    key = "AKTC" + uuid.uuid4().hex[:16].upper()
    ec2 = client("ec2", NO_RETRY, key)
    status, rule = control("POST", "realism/faults", {"service": "ec2", "action": "DescribeVpcs", "key_id": key,
                                                      "fault": "throttle", "count": 1})
    assert status == 200
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.describe_vpcs()
    assert code_of(e) == "RequestLimitExceeded"
    ec2.describe_vpcs()  # the count is spent
    iam = client("iam", NO_RETRY, key)
    control("POST", "realism/faults", {"service": "iam", "action": "*", "fault": "throttle", "count": 1, "key_id": key})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        iam.list_roles()
    assert code_of(e) == "Throttling"


def test_fault_internal_error_and_rate():
    ec2 = client("ec2", NO_RETRY)
    control("POST", "realism/faults", {"service": "ec2", "action": "DescribeSubnets", "fault": "internal", "rate": 1.0})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.describe_subnets()
    assert code_of(e) == "InternalError"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500


def test_fault_dropped_connection():
    key = "AKDC" + uuid.uuid4().hex[:16].upper()  # drawn for this test only, as in test_fault_throttle_by_count
    ec2 = client("ec2", NO_RETRY, key)
    control("POST", "realism/faults", {"service": "ec2", "action": "DescribeVpcs", "fault": "drop", "count": 1,
                                       "key_id": key})
    with pytest.raises((botocore.exceptions.ConnectionClosedError, botocore.exceptions.EndpointConnectionError)):
        ec2.describe_vpcs()
    ec2.describe_vpcs()
    log = [json.loads(line) for line in open(os.environ["SANDBOX_AWS_LOG"])]
    assert any(r.get("injected", "").endswith(":drop") and r["action"] == "DescribeVpcs" for r in log)


# botocore's default retry policy, as documented in the pinned botocore (1.44.x): retry_mode "standard"
# (botocore/configprovider.py), 3 attempts in all (botocore/retries/standard.py DEFAULT_MAX_ATTEMPTS), and
# RequestLimitExceeded is a throttling code it retries (standard.py _THROTTLED_ERROR_CODES). Spec AWS-20.
DEFAULT_ATTEMPTS = 3


def _log_since(mark):
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        f.seek(mark)
        return [json.loads(line) for line in f if line.strip()]


def _default_client(monkeypatch, key_id):
    """botocore's default retries, signed with a key of the test's own: the fault rules below are drawn for that
    key alone, so the CAPA manager's and the twins' own DescribeVpcs (they share the sandbox's key) cannot spend
    them."""
    for var in ("AWS_RETRY_MODE", "AWS_MAX_ATTEMPTS"):
        monkeypatch.delenv(var, raising=False)
    return boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                        aws_access_key_id=key_id, aws_secret_access_key="x")


def test_faults_are_retried_by_botocore_by_default(monkeypatch):
    """Two throttled answers, then a real one: the call succeeds on its third attempt, and the layer saw
    exactly those three requests, the first two answered with the injected RequestLimitExceeded."""
    key = "AKRT" + uuid.uuid4().hex[:16].upper()
    ec2 = _default_client(monkeypatch, key)
    mark = os.path.getsize(os.environ["SANDBOX_AWS_LOG"])
    status, rule = control("POST", "realism/faults", {"service": "ec2", "action": "DescribeVpcs", "key_id": key,
                                                      "fault": "throttle", "count": DEFAULT_ATTEMPTS - 1})
    assert status == 200
    out = ec2.describe_vpcs()
    assert out["ResponseMetadata"]["RetryAttempts"] == DEFAULT_ATTEMPTS - 1
    seen = [r for r in _log_since(mark) if r["action"] == "DescribeVpcs" and r.get("key_id") == key]
    assert [r.get("error_code") for r in seen] == ["RequestLimitExceeded"] * (DEFAULT_ATTEMPTS - 1) + [None]
    assert all(r.get("injected", "").startswith("fault:%d:throttle" % rule["id"]) for r in seen[:-1])
    assert "injected" not in seen[-1]
    status, layer = control("GET", "realism")
    assert [r["hits"] for r in layer["faults"] if r["id"] == rule["id"]] == [DEFAULT_ATTEMPTS - 1]


def test_botocore_gives_up_after_its_default_attempts(monkeypatch):
    """One throttled answer more than botocore's default attempts: the caller sees RequestLimitExceeded,
    and no fourth request was sent."""
    key = "AKGU" + uuid.uuid4().hex[:16].upper()
    ec2 = _default_client(monkeypatch, key)
    mark = os.path.getsize(os.environ["SANDBOX_AWS_LOG"])
    control("POST", "realism/faults", {"service": "ec2", "action": "DescribeVpcs", "fault": "throttle",
                                       "count": DEFAULT_ATTEMPTS + 1, "key_id": key})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.describe_vpcs()
    assert code_of(e) == "RequestLimitExceeded"
    assert e.value.response["ResponseMetadata"]["RetryAttempts"] == DEFAULT_ATTEMPTS - 1
    seen = [r for r in _log_since(mark) if r["action"] == "DescribeVpcs" and r.get("key_id") == key]
    assert [r.get("error_code") for r in seen] == ["RequestLimitExceeded"] * DEFAULT_ATTEMPTS


def test_control_refuses_bad_rules_and_knobs():
    status, out = control("POST", "realism/knobs", {"nat_seconds": 1})
    assert status == 400 and "unknown knob" in out["error"]
    status, out = control("POST", "realism/faults", {"service": "ec2", "fault": "explode", "count": 1})
    assert status == 400 and "fault must be" in out["error"]
    status, out = control("GET", "realism")
    assert status == 200 and out["knobs"]["nat_deleting_seconds"] == 1.5


def test_seed_aws_infra_passes_knobs_to_the_layer(sandbox_cli):
    name = "seed-" + uuid.uuid4().hex[:5]
    r = sandbox_cli("seed", "aws-infra", "--name", name, "--knob", "zones=2", "--knob", "workers=1",
                    "--knob", "nat_deleting_seconds=2", "--knob", "faults=sts:*:throttle:count=1")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["infra_id"] == name
    assert len(out["aws"]["AWS::EC2::Subnet"]) == 4 and len(out["aws"]["AWS::EC2::NatGateway"]) == 2
    assert len(out["aws"]["AWS::IAM::Role"]) == 9  # eight components and the worker role (create iam aws)
    assert out["layer"]["knobs"]["nat_deleting_seconds"] == 2.0
    assert out["layer"]["faults"][0]["fault"] == "throttle"
    ec2 = client("ec2")
    vpcs = ec2.describe_vpcs(Filters=[{"Name": f"tag:kubernetes.io/cluster/{name}", "Values": ["owned"]}])["Vpcs"]
    assert [v["VpcId"] for v in vpcs] == out["aws"]["AWS::EC2::VPC"]


def _keyed_client(key_id):
    return boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                        aws_access_key_id=key_id, aws_secret_access_key="x", config=NO_RETRY)


def test_the_ec2_budget_is_the_account_s_shared_by_its_members_per_action():
    """AWS-22: a bucket per action, shared by every member key: two keys together spend one bucket of
    DescribeVpcs, other actions keep their own, a key outside the budget is never throttled, and the
    bucket refills at its class's rate."""
    a, b, outsider = _keyed_client("BUDGETA"), _keyed_client("BUDGETB"), _keyed_client("BUDGETOUT")
    # scale 0.05: a read's bucket holds 5 tokens and refills 1 per second
    status, out = control("POST", "realism/budget", {"scale": 0.05, "members": ["BUDGETA", "BUDGETB"]})
    assert status == 200 and out["budget"]["classes"]["non-mutating"] == {"bucket": 5.0, "refill_per_second": 1.0}
    try:
        def call(ec2):
            try:
                ec2.describe_vpcs()
                return "ok"
            except botocore.exceptions.ClientError as e:
                return code_of_error(e)
        # 8 calls at once on one action: the account's 5 tokens, then refusals. At once, from threads: one after
        # another on a loaded machine, they took longer than the refill of a token (1 s) each
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(call, (a, b) * 4))
        assert answers.count("ok") >= 5
        assert "RequestLimitExceeded" in answers
        a.describe_subnets()  # another action: its own bucket
        for _ in range(8):
            outsider.describe_vpcs()  # not a member: the budget does not count it
        time.sleep(2.2)
        a.describe_vpcs()  # refilled at 1 token per second
        status, out = control("GET", "realism/budget")
        hits = out["budget"]["hits"]
        assert set(hits) <= {"BUDGETA", "BUDGETB"} and sum(hits.values()) == answers.count("RequestLimitExceeded")
        assert "BUDGETOUT" not in hits
    finally:
        status, out = control("DELETE", "realism/budget")
    assert status == 200 and out["budget"] is None
    status, out = control("POST", "realism/budget", {"scale": 0})
    assert status == 400 and "scale" in out["error"]


def code_of_error(e):
    return e.response["Error"]["Code"]


def test_removing_a_role_an_instance_profile_no_longer_holds_is_no_such_entity():
    """AWS-24: the second of two removals is NoSuchEntity (moto's own answer is a 500)."""
    iam = client("iam", NO_RETRY)
    name = "p" + uuid.uuid4().hex[:8]
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}))
    iam.create_instance_profile(InstanceProfileName=name)
    iam.add_role_to_instance_profile(InstanceProfileName=name, RoleName=name)
    iam.remove_role_from_instance_profile(InstanceProfileName=name, RoleName=name)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        iam.remove_role_from_instance_profile(InstanceProfileName=name, RoleName=name)
    assert code_of(e) == "NoSuchEntity" and e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    iam.delete_instance_profile(InstanceProfileName=name)
    iam.delete_role(RoleName=name)


def test_two_removals_at_once_get_one_success_and_one_no_such_entity_never_a_500():
    """AWS-24 under concurrency: the check runs under moto's lock, where the removal happens."""
    iam = client("iam", NO_RETRY)
    for _ in range(5):
        name = "q" + uuid.uuid4().hex[:8]
        iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}))
        iam.create_instance_profile(InstanceProfileName=name)
        iam.add_role_to_instance_profile(InstanceProfileName=name, RoleName=name)

        def remove(_):
            try:
                client("iam", NO_RETRY).remove_role_from_instance_profile(InstanceProfileName=name, RoleName=name)
                return "ok"
            except botocore.exceptions.ClientError as e:
                return code_of_error(e)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            answers = sorted(pool.map(remove, range(2)))
        assert answers == ["NoSuchEntity", "ok"], answers
        iam.delete_instance_profile(InstanceProfileName=name)
        iam.delete_role(RoleName=name)


def test_an_endpoint_service_is_filtered_by_tag_holds_its_nlb_and_its_connections_until_rejected(net):
    """AWS-32 to AWS-35: what moto lacks of PrivateLink. A configuration tagged for another infra ID is not answered
    to the tag filter; its NLB refuses deletion while a configuration uses it; the configuration refuses deletion
    while an interface endpoint is connected, until that connection is rejected."""
    ec2, vpc, subnet = net
    elbv2 = client("elbv2", NO_RETRY)
    infra = "vpce" + uuid.uuid4().hex[:6]
    nlb = elbv2.create_load_balancer(Name=infra, Type="network", Scheme="internal", Subnets=[subnet])[
        "LoadBalancers"][0]["LoadBalancerArn"]

    def service(owner):
        return ec2.create_vpc_endpoint_service_configuration(NetworkLoadBalancerArns=[nlb], AcceptanceRequired=False,
                                                             TagSpecifications=[{"ResourceType": "vpc-endpoint-service",
                                                                                 "Tags": [{"Key": "kubernetes.io/cluster/" + owner,
                                                                                           "Value": "owned"}]}])["ServiceConfiguration"]
    mine, neighbour = service(infra), service(infra + "-2")
    tagged = ec2.describe_vpc_endpoint_service_configurations(Filters=[
        {"Name": "tag:kubernetes.io/cluster/" + infra, "Values": ["owned"]}])["ServiceConfigurations"]
    assert [s["ServiceId"] for s in tagged] == [mine["ServiceId"]]
    assert ec2.describe_vpc_endpoint_service_configurations(Filters=[
        {"Name": "tag:kubernetes.io/cluster/" + infra + "-3", "Values": ["owned"]}])["ServiceConfigurations"] == []
    endpoint = ec2.create_vpc_endpoint(VpcId=vpc, VpcEndpointType="Interface", ServiceName=mine["ServiceName"],
                                       SubnetIds=[subnet])["VpcEndpoint"]["VpcEndpointId"]
    conns = ec2.describe_vpc_endpoint_connections(Filters=[{"Name": "service-id", "Values": [mine["ServiceId"]]}])[
        "VpcEndpointConnections"]
    assert [(c["VpcEndpointId"], c["VpcEndpointState"]) for c in conns] == [(endpoint, "available")]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        elbv2.delete_load_balancer(LoadBalancerArn=nlb)
    assert code_of(e) == "ResourceInUse" and "associated with another service" in str(e.value)
    held = ec2.delete_vpc_endpoint_service_configurations(ServiceIds=[mine["ServiceId"]])["Unsuccessful"]
    assert [u["Error"]["Code"] for u in held] == ["ExistingVpcEndpointConnections"]
    assert ec2.reject_vpc_endpoint_connections(ServiceId=mine["ServiceId"], VpcEndpointIds=[endpoint])["Unsuccessful"] == []
    assert ec2.describe_vpc_endpoints(VpcEndpointIds=[endpoint])["VpcEndpoints"][0]["State"] == "rejected"
    gone = ec2.delete_vpc_endpoint_service_configurations(ServiceIds=[mine["ServiceId"], neighbour["ServiceId"],
                                                                      "vpce-svc-0000000000000000a"])["Unsuccessful"]
    assert [(u["ResourceId"], u["Error"]["Code"]) for u in gone] == [
        ("vpce-svc-0000000000000000a", "InvalidVpcEndpointService.NotFound")]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ec2.describe_vpc_endpoint_service_configurations(ServiceIds=[mine["ServiceId"]])
    assert code_of(e) == "InvalidVpcEndpointServiceId.NotFound"
    elbv2.delete_load_balancer(LoadBalancerArn=nlb)  # no endpoint service left: accepted
    ec2.delete_vpc_endpoints(VpcEndpointIds=[endpoint])
