# -*- coding: utf-8 -*-
"""aws/inventory.py: the pure parts of discovery. An instance's EBS volumes with their attachment as
DescribeVolumes spells it, a guest volume told by the EBS CSI driver's tags, and the parallel discovery steps
whose first failure fails the discovery at once. (Discovery against a stalled endpoint is in core/test_bounds.py.)"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import inventory as I


def test_instance_volumes_carry_delete_on_termination():
    inst = {"InstanceId": "i-1", "BlockDeviceMappings": [
        {"DeviceName": "/dev/xvda", "Ebs": {"VolumeId": "vol-root", "DeleteOnTermination": True, "Status": "attached"}},
        {"DeviceName": "/dev/sdf", "Ebs": {"VolumeId": "vol-data", "DeleteOnTermination": False}},
        {"DeviceName": "/dev/sdb", "VirtualName": "ephemeral0"}]}
    got = dict(I.instance_volumes(inst))
    assert sorted(got) == ["vol-data", "vol-root"]
    assert got["vol-root"]["DeleteOnTermination"] is True and got["vol-data"]["DeleteOnTermination"] is False
    assert got["vol-root"]["InstanceId"] == "i-1"


def test_a_guest_volume_is_one_the_csi_driver_tagged_for_a_pvc_or_pv():
    assert I.is_guest_volume({"Tags": [{"Key": "kubernetes.io/cluster/x", "Value": "owned"},
                                       {"Key": "kubernetes.io/created-for/pvc/name", "Value": "data-0"}]})
    assert I.is_guest_volume({"Tags": [{"Key": "kubernetes.io/created-for/pv/name", "Value": "pvc-1"}]})
    assert not I.is_guest_volume({"Tags": [{"Key": "kubernetes.io/cluster/x", "Value": "owned"}]})
    assert not I.is_guest_volume({})


def test_a_mapping_without_status_is_attached_and_without_the_flag_is_not_deleted_on_termination():
    inst = {"BlockDeviceMappings": [{"DeviceName": "/dev/xvda", "Ebs": {"VolumeId": "vol-1"}}]}
    assert I.instance_volumes(inst) == [("vol-1", {"InstanceId": None, "Device": "/dev/xvda", "State": "attached",
                                                   "DeleteOnTermination": False})]
    assert I.instance_volumes({}) == [] and I.instance_volumes({"BlockDeviceMappings": None}) == []


def test_a_tag_without_a_key_is_not_a_csi_tag():
    assert not I.is_guest_volume({"Tags": [{"Value": "kubernetes.io/created-for/pvc/name"}]})


def test_parallel_runs_every_step():
    done = []
    lock = threading.Lock()

    def step(n):
        def fn():
            with lock:
                done.append(n)
        return fn
    I._parallel(*[step(n) for n in range(5)])
    assert sorted(done) == [0, 1, 2, 3, 4]
    I._parallel()  # nothing to run returns at once


def test_parallel_raises_the_first_failure_without_waiting_for_a_stalled_step():
    release = threading.Event()

    def stalled():
        release.wait(5)

    def fails():
        raise RuntimeError("DescribeVpcs: no answer")
    started = time.time()
    try:
        with pytest.raises(RuntimeError, match="DescribeVpcs: no answer"):
            I._parallel(stalled, fails)
        assert time.time() - started < 2
    finally:
        release.set()


def test_the_role_suffixes_are_those_hypershift_creates_for_a_cluster():
    assert len(I.ROLE_SUFFIXES) == len(set(I.ROLE_SUFFIXES)) == 8
    assert {"openshift-ingress", "node-pool", "control-plane-operator", "kms-provider"} <= set(I.ROLE_SUFFIXES)


def test_role_names_are_every_role_upstream_destroys_by_exact_name():
    names = I.role_names("ci")
    # the worker role of the worker profile, its ROSA variant, the single role, Karpenter's, the shared-VPC roles
    assert {"ci-worker-role", "ci-worker-ROSA-Worker-Role", "ci-shared-role", "ci-karpenter",
            "ci-shared-vpc-ingress", "ci-shared-vpc-control-plane", "ci-shared-vpc-route53", "ci-shared-vpc-endpoint",
            "ci-node-pool"} <= names
    assert len(names) == 16
    # exact names: a cluster whose infra ID extends this one's, and a team's role ending in a component name, are not
    assert not names & {"ci-2-node-pool", "ci-2-worker-role", "team-node-pool", "ci-node-pool-extra"}


def test_a_private_zone_associated_with_a_vpc_outside_the_cluster_is_shared():
    zone = {"VPCs": [{"VPCRegion": "us-east-1", "VPCId": "vpc-1"}, {"VPCRegion": "us-east-1", "VPCId": "vpc-9"}]}
    assert I.zone_shared_with(zone, ["vpc-1"], "us-east-1") == ["us-east-1/vpc-9"]
    assert I.zone_shared_with(zone, ["vpc-1", "vpc-9"], "us-east-1") == []
    # the same VPC ID answered for another region is another VPC
    other = {"VPCs": [{"VPCRegion": "eu-west-1", "VPCId": "vpc-1"}]}
    assert I.zone_shared_with(other, ["vpc-1"], "us-east-1") == ["eu-west-1/vpc-1"]
    assert I.zone_shared_with({}, ["vpc-1"], "us-east-1") == []


TAG = "kubernetes.io/cluster/infra1"
OWNED = [{"Key": TAG, "Value": "owned"}]


def _seen(groups, elbs=None, elbv2=None, instances=None, endpoints=None):
    return {I.g.SG: groups, I.g.ELB: elbs or {}, I.g.ELBV2: elbv2 or {}, I.g.INSTANCE: instances or {},
            I.g.ENDPOINT: endpoints or {}}


def test_a_guest_classic_elb_s_own_group_is_selected():
    groups = {"sg-elb": {"GroupName": "k8s-elb-a1b2", "Description": "Security group for Kubernetes ELB a1b2 (ns/svc)",
                         "Tags": OWNED}}
    seen = _seen(groups, elbs={"a1b2": {"SecurityGroups": ["sg-elb"]}},
                 instances={"i-1": {"SecurityGroups": [{"GroupId": "sg-worker"}]}})
    assert I.guest_groups(seen, TAG) == ["sg-elb"]


def test_an_infra_group_a_guest_lb_uses_that_a_worker_or_endpoint_uses_too_is_not_selected():
    groups = {"sg-worker": {"GroupName": "infra1-worker-sg", "Tags": OWNED},
              # named as the load balancer's own, but an instance uses it: not only the guest's load balancers' group
              "sg-shared": {"GroupName": "k8s-elb-a1b2", "Tags": OWNED},
              "sg-vpce": {"GroupName": "k8s-elb-c3d4", "Tags": OWNED}}
    seen = _seen(groups, elbs={"a1b2": {"SecurityGroups": ["sg-worker", "sg-shared"]},
                               "c3d4": {"SecurityGroups": ["sg-vpce"]}},
                 instances={"i-1": {"SecurityGroups": [{"GroupId": "sg-worker"}],
                                    "NetworkInterfaces": [{"Groups": [{"GroupId": "sg-shared"}]}]}},
                 endpoints={"vpce-1": {"Groups": [{"GroupId": "sg-vpce", "GroupName": "k8s-elb-c3d4"}]}})
    assert I.guest_groups(seen, TAG) == []


def test_an_untagged_group_another_cluster_s_or_one_not_the_lb_s_own_is_not_selected():
    groups = {"sg-untagged": {"GroupName": "k8s-elb-a1b2", "Tags": []},
              "sg-other": {"GroupName": "k8s-elb-a1b2", "Tags": [{"Key": "kubernetes.io/cluster/infra2", "Value": "owned"}]},
              "sg-shared-tag": {"GroupName": "k8s-elb-a1b2", "Tags": [{"Key": TAG, "Value": "shared"}]},
              # a router group of `create infra` on the ELB: tagged the cluster's, but not the cloud provider's
              "sg-router": {"GroupName": "infra1-router-sg", "Tags": OWNED},
              # another ELB's own group, named after that one
              "sg-else": {"GroupName": "k8s-elb-zzzz", "Tags": OWNED}}
    seen = _seen(groups, elbs={"a1b2": {"SecurityGroups": sorted(groups) + ["sg-not-in-the-vpc"]}})
    assert I.guest_groups(seen, TAG) == []


def test_an_elbv2_s_managed_group_or_the_load_balancer_controller_s_is_selected():
    groups = {"sg-nlb": {"GroupName": "k8s-ns-svc-0123456789", "Description": I.NLB_GROUP_DESCRIPTION, "Tags": OWNED},
              "sg-lbc": {"GroupName": "k8s-traffic-infra1-abc", "Tags": [{"Key": I.LBC_CLUSTER_TAG, "Value": "infra1"}]},
              "sg-worker": {"GroupName": "infra1-worker-sg", "Tags": OWNED},
              "sg-nlb-untagged": {"GroupName": "k8s-ns-other", "Description": I.NLB_GROUP_DESCRIPTION}}
    seen = _seen(groups, elbv2={"arn:nlb": {"SecurityGroups": ["sg-nlb", "sg-worker", "sg-nlb-untagged"]},
                                "arn:alb": {"SecurityGroups": ["sg-lbc"]}})
    assert I.guest_groups(seen, TAG) == ["sg-lbc", "sg-nlb"]
    assert I.guest_groups({}, TAG) == []


class _EndpointServiceAccount(object):
    """discover()'s client: an account with VPC endpoint service configurations (and nothing else). ``honours_filter``
    False answers every configuration whatever the tag filter asks, as an emulator that ignores Filters does."""

    def __init__(self, configurations, honours_filter=True):
        self.configurations, self.honours_filter = configurations, honours_filter
        self.calls = []

    def call(self, service, op, **kw):
        import botocore.exceptions
        self.calls.append((service, op, kw))
        if op == "get_instance_profile":
            raise botocore.exceptions.ClientError({"Error": {"Code": "NoSuchEntity", "Message": "none"}}, op)
        if op != "describe_vpc_endpoint_service_configurations":
            return {}
        wanted = dict((f["Name"][4:], f["Values"]) for f in kw.get("Filters") or [] if f["Name"].startswith("tag:"))

        def match(sc):
            tags = dict((t["Key"], t["Value"]) for t in sc.get("Tags") or [])
            return all(tags.get(k) in v for k, v in wanted.items())
        return {"ServiceConfigurations": [sc for sc in self.configurations if not self.honours_filter or match(sc)]}


def _service(sid, infra, state="Available"):
    return {"ServiceId": sid, "ServiceName": "com.amazonaws.vpce.us-east-1." + sid, "ServiceState": state,
            "Tags": [{"Key": "kubernetes.io/cluster/" + infra, "Value": "owned"}] if infra else []}


@pytest.mark.parametrize("honours_filter", [True, False])
def test_discovery_takes_the_endpoint_services_tagged_for_the_infra_id_only(honours_filter):
    account = _EndpointServiceAccount([
        _service("vpce-svc-mine", "infra1"), _service("vpce-svc-neighbour", "infra1-2"),
        _service("vpce-svc-untagged", None), _service("vpce-svc-deleting", "infra1", "Deleting"),
        _service("vpce-svc-deleted", "infra1", "Deleted")], honours_filter=honours_filter)
    manifest, details = I.discover(account, "infra1")
    assert manifest[I.g.ENDPOINT_SERVICE] == ["vpce-svc-deleting", "vpce-svc-mine"]
    observed = details["observed"][I.g.ENDPOINT_SERVICE]
    assert observed["vpce-svc-mine"]["state"] == "present" and observed["vpce-svc-deleting"]["state"] == "pending"
    asked = [kw for s, op, kw in account.calls if op == "describe_vpc_endpoint_service_configurations"]
    assert asked == [{"Filters": [{"Name": "tag:kubernetes.io/cluster/infra1", "Values": ["owned"]}]}]


def test_a_failed_endpoint_service_listing_fails_the_discovery():
    import botocore.exceptions

    class Refused(_EndpointServiceAccount):
        def call(self, service, op, **kw):
            if op == "describe_vpc_endpoint_service_configurations":
                raise botocore.exceptions.ClientError({"Error": {"Code": "UnauthorizedOperation", "Message": "no"}}, op)
            return _EndpointServiceAccount.call(self, service, op, **kw)
    with pytest.raises(botocore.exceptions.ClientError, match="UnauthorizedOperation"):
        I.discover(Refused([]), "infra1")
