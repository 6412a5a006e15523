# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.hosted_cluster_messages import (
    aws_plan_message, gate_stop_message, gates_plan_message)
from ansible_collections.teardown.gates.plugins.plugin_utils.hosted_cluster_wait import gates


def test_gates_plan_says_what_would_be_deleted_and_waited_for():
    laid_out = gates(["demo-a"], "clusters", "demo", "demo", "clusters-demo", "demo-x7k2p", True, False, False)
    assert gates_plan_message(laid_out, 600, True, False, 900) == (
        "would delete the HostedCluster, then wait at most 600 s in all for:\nNodePools and Machines gone -> HostedControlPlane "
        "gone -> CAPI Cluster gone -> HCP namespace gone -> HostedCluster gone")
    assert gates_plan_message([], None, False, True, "120") == (
        "would wait at most  s in all for:\n; take_over_cleanup: a gate with no progress for 120 s would be taken over from "
        "the hypershift-operator (teardown.gates.hosted_cluster_take_over), its finalizers removed only on verified absence")


MACHINE = {"kind": "Machine", "namespace": "clusters-demo", "name": "demo-a-7f9c", "finalizers": ["machine.cluster.x-k8s.io"],
           "kind_label": "Machine.cluster.x-k8s.io",
           "waiting_for": "Deleting=True WaitingForInfrastructureDeletion: Waiting for AWSMachine to be deleted"}
NODEPOOL = {"kind": "NodePool", "namespace": "clusters", "name": "demo-a", "finalizers": ["hypershift.openshift.io/finalizer"],
            "kind_label": "NodePool.hypershift.openshift.io"}
DIAGNOSIS = {"state": "present", "conditions": [
    {"type": "Ready", "status": "False", "reason": "Deleting", "message": "waiting for AWSMachine"},
    {"type": "InfrastructureReady", "status": "True", "reason": None, "message": None},
    {"type": "Deleting", "status": "True", "reason": "WaitingForInfrastructureDeletion", "message": ""}],
    "finalizers": [{"name": "machine.cluster.x-k8s.io", "owner": "CAPI manager (Machine)"}, {"name": "example.com/x", "owner": ""},
                   "plain/finalizer"]}


def _gate(state, remaining, **kw):
    gate = {"name": "NodePools and Machines gone", "state": state, "duration": 600.1, "remaining": remaining,
            "last_progress": "2026-01-02T03:04:05.000Z", "unknown_selectors": []}
    gate.update(kw)
    return gate


def test_stop_message_names_the_first_object_what_it_waits_for_and_its_diagnosis():
    assert gate_stop_message(_gate("timeout", [MACHINE]), DIAGNOSIS, False, True) == (
        "gate 'NodePools and Machines gone' timed out after 600.1 s; 1 object(s) remain, first: Machine clusters-demo/demo-a-7f9c "
        "(finalizers: machine.cluster.x-k8s.io); Machine.cluster.x-k8s.io clusters-demo/demo-a-7f9c says Deleting=True "
        "WaitingForInfrastructureDeletion: Waiting for AWSMachine to be deleted; its conditions: Ready=False (Deleting: waiting "
        "for AWSMachine), InfrastructureReady=True, Deleting=True (WaitingForInfrastructureDeletion); finalizer owners: "
        "machine.cluster.x-k8s.io (CAPI manager (Machine)) example.com/x plain/finalizer")


def test_stop_message_of_a_timeout_held_by_the_operator_finalizer_hints_at_the_take_over():
    message = gate_stop_message(_gate("timeout", [NODEPOOL]), {}, False, True)
    assert message.startswith(
        "gate 'NodePools and Machines gone' timed out after 600.1 s; 1 object(s) remain, first: NodePool clusters/demo-a "
        "(finalizers: hypershift.openshift.io/finalizer).\nIf the hypershift-operator is down for good, take_over_cleanup=true ")
    assert message.endswith("removes hypershift.openshift.io/finalizer only where what it guards is verified gone")
    # no hint with take_over_cleanup on, for a HostedCluster already gone, or for a stall
    for gate, take_over, present in ((_gate("timeout", [NODEPOOL]), True, True), (_gate("timeout", [NODEPOOL]), False, False),
                                     (_gate("stalled", [NODEPOOL]), False, True)):
        assert "take_over_cleanup" not in gate_stop_message(gate, {}, take_over, present)


def test_stop_message_at_the_hcp_names_cpo_hcco_and_the_guest_s_resources_left():
    hcp = {"kind": "HostedControlPlane", "namespace": "clusters-demo", "name": "demo",
           "finalizers": ["hypershift.openshift.io/finalizer"]}
    manifest = {"AWS::EC2::Volume": ["vol-guest", "vol-worker"], "AWS::S3::Bucket": ["demo-image-registry-x"],
                "AWS::EC2::VPC": ["vpc-1"]}
    message = gate_stop_message(_gate("timeout", [hcp], name="HostedControlPlane gone"), {}, False, True,
                                manifest, ["vol-guest"])
    assert "is CPO's (control-plane-operator)" in message and "HCCO (hosted-cluster-config-operator)" in message
    assert "left in AWS: AWS::EC2::Volume: vol-guest; AWS::S3::Bucket: demo-image-registry-x." in message
    assert "vol-worker" not in message and "vpc-1" not in message and "If the hypershift-operator" not in message
    assert "take_over_cleanup=true reads them gone" in message
    # with take_over_cleanup on, the take-over's own message says it
    assert "CPO" not in gate_stop_message(_gate("timeout", [hcp]), {}, True, True, manifest, [])
    # the security groups the guest's load balancers use are among what it guards; the infra's others are not
    groups = dict(manifest, **{"AWS::EC2::SecurityGroup": ["sg-elb", "sg-worker"]})
    message = gate_stop_message(_gate("timeout", [hcp]), {}, False, True, groups, ["vol-guest"], ["sg-elb"])
    assert "AWS::EC2::SecurityGroup: sg-elb;" in message and "sg-worker" not in message


def test_stop_message_of_a_stall_and_of_failed_queries():
    assert gate_stop_message(_gate("stalled", [dict(MACHINE, namespace=None, finalizers=[])]), {}, True, True) == (
        "gate 'NodePools and Machines gone' stalled (no progress since 2026-01-02T03:04:05.000Z) after 600.1 s; 1 object(s) "
        "remain, first: Machine /demo-a-7f9c (finalizers: none); Machine.cluster.x-k8s.io /demo-a-7f9c says Deleting=True "
        "WaitingForInfrastructureDeletion: Waiting for AWSMachine to be deleted")
    gate = {"name": "CAPI Cluster gone", "state": "unknown", "duration": None,
            "unknown_selectors": [{"kind": "Cluster", "error": "HTTP 503"}, {"kind": "AWSCluster"}, {"kind": "Machine", "error": None}]}
    assert gate_stop_message(gate, {}, False, True) == (
        "gate 'CAPI Cluster gone' is unknown (a query failed; absence is not proven) after  s; 0 object(s) remain; query Cluster "
        "failed: HTTP 503; query AWSCluster failed: ?; query Machine failed: ")


def test_stop_message_says_what_at_most_three_objects_wait_for():
    remaining = [dict(MACHINE, name="m%d" % n) for n in range(5)]
    message = gate_stop_message(_gate("timeout", remaining), {}, False, True)
    assert message.count(" says ") == 3 and "5 object(s) remain" in message and "/m3 says" not in message


AWS_PLAN = {"changed": True, "plan": [
    [{"type": "AWS::EC2::Instance", "id": "i-0abc", "action": "delete"}, {"type": "AWS::EC2::NatGateway", "id": "nat-0123", "action": "skip"}],
    [{"type": "AWS::EC2::VPC", "id": "vpc-1"}]], "resources": [
    {"type": "AWS::IAM::Role", "id": "demo-worker-role", "outcome": "retained", "reason": "preserve_iam"},
    {"type": "AWS::IAM::OIDCProvider", "id": "arn:aws:iam::1:oidc-provider/x", "outcome": "retained"},
    {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "planned"}]}


def test_aws_plan_lists_each_level_then_the_iam_retained():
    assert aws_plan_message(AWS_PLAN) == (
        "level 1: EC2::Instance i-0abc (delete), EC2::NatGateway nat-0123 (skip). level 2: EC2::VPC vpc-1 (delete). 2 IAM "
        "resources retained (preserve_iam).")


def test_aws_plan_of_a_skipped_cleanup():
    assert aws_plan_message({"changed": False, "skipped": True}) == "0 IAM resources retained (preserve_iam)."
    assert aws_plan_message({"plan": [[{"type": "AWS::IAM::Role", "id": "r", "action": None}]]}) == (
        "level 1: IAM::Role r (). 0 IAM resources retained (preserve_iam).")


@pytest.mark.parametrize("call", [
    lambda: gates_plan_message(None, 600, True, False, 900),
    lambda: gate_stop_message([], {}, False, True),
    lambda: gate_stop_message({}, None, False, True),
    lambda: aws_plan_message([]),
])
def test_refuses_input_of_the_wrong_type(call):
    with pytest.raises(AnsibleFilterError, match="expects"):
        call()


def test_the_aws_plan_names_what_the_protect_tag_keeps_and_what_waits_on_it():
    result = {"plan": [[{"type": "AWS::EC2::RouteTable", "id": "rtb-1", "action": "delete"}]], "resources": [
        {"type": "AWS::EC2::NatGateway", "id": "nat-1", "outcome": "kept", "reason": "tagged teardown.gates/protected"},
        {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "blocked", "blocked_by": ["AWS::EC2::NatGateway nat-1"]}]}
    msg = aws_plan_message(result)
    assert msg.endswith("0 IAM resources retained (preserve_iam). Kept, never deleted: AWS::EC2::NatGateway nat-1 "
                        "(tagged teardown.gates/protected). Not deleted, it waits on a kept one: AWS::EC2::VPC vpc-1."), msg
