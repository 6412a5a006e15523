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
