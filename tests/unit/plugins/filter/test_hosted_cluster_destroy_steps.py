# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.hosted_cluster_destroy_steps import (
    FilterModule, hosted_cluster_aws_plan_message, hosted_cluster_gate_stop_message, hosted_cluster_gates,
    hosted_cluster_gates_plan_message, hosted_cluster_verification_checks, hosted_cluster_verification_message)

HS = "hypershift.openshift.io/v1beta1"
CAPI = "cluster.x-k8s.io/v1beta1"
CAPA = "infrastructure.cluster.x-k8s.io/v1beta2"
LABEL = "cluster.x-k8s.io/cluster-name=demo-x7k2p"


def _gates(nodepools=("demo-a",), name="demo", hc_present=True, cli_finalizer_on=True, skip_namespace=False):
    return hosted_cluster_gates(list(nodepools), "clusters", name, name or "demo-x7k2p", "clusters-" + (name or "demo-x7k2p"),
                                "demo-x7k2p", hc_present, cli_finalizer_on, skip_namespace)


def test_gates_in_the_order_the_controllers_pass_them():
    gates = _gates()
    assert gates == [
        {"name": "NodePools and Machines gone", "until": "absent", "resources": [
            {"api_version": HS, "kind": "NodePool", "namespace": "clusters", "name": "demo-a"},
            {"api_version": CAPI, "kind": "MachineDeployment", "namespace": "clusters-demo", "label_selector": LABEL},
            {"api_version": CAPI, "kind": "MachineSet", "namespace": "clusters-demo", "label_selector": LABEL},
            {"api_version": CAPI, "kind": "Machine", "namespace": "clusters-demo", "label_selector": LABEL},
            {"api_version": CAPA, "kind": "AWSMachine", "namespace": "clusters-demo", "label_selector": LABEL}]},
        {"name": "HostedControlPlane gone", "until": "absent", "resources": [
            {"api_version": HS, "kind": "HostedControlPlane", "namespace": "clusters-demo", "name": "demo"}]},
        {"name": "CAPI Cluster gone", "until": "absent", "resources": [
            {"api_version": CAPI, "kind": "Cluster", "namespace": "clusters-demo", "name": "demo-x7k2p"},
            {"api_version": CAPA, "kind": "AWSCluster", "namespace": "clusters-demo", "name": "demo-x7k2p"}]},
        {"name": "HCP namespace gone", "until": "absent", "resources": [{"api_version": "v1", "kind": "Namespace", "name": "clusters-demo"}]},
        {"name": "only the CLI finalizer left", "until": "finalizers_only", "finalizers": ["openshift.io/destroy-cluster"],
         "resources": [{"api_version": HS, "kind": "HostedCluster", "namespace": "clusters", "name": "demo"}]}]
    assert json.loads(json.dumps(gates)) == gates


def test_gates_without_the_cli_finalizer_wait_for_the_hosted_cluster_to_go():
    last = _gates(cli_finalizer_on=False)[-1]
    assert last == {"name": "HostedCluster gone", "until": "absent",
                    "resources": [{"api_version": HS, "kind": "HostedCluster", "namespace": "clusters", "name": "demo"}]}


def test_gates_of_a_hosted_cluster_already_gone_by_name_ignore_the_finalizer():
    assert _gates(hc_present=False, cli_finalizer_on=True)[-1]["name"] == "HostedCluster gone"


def test_gates_of_an_infrastructure_only_destroy_and_a_kept_namespace():
    gates = _gates(nodepools=(), name="", hc_present=False, skip_namespace=True)
    assert [g["name"] for g in gates] == ["NodePools and Machines gone", "HostedControlPlane gone", "CAPI Cluster gone"]
    assert [r["kind"] for r in gates[0]["resources"]] == ["MachineDeployment", "MachineSet", "Machine", "AWSMachine"]
    assert gates[1]["resources"][0]["name"] == "demo-x7k2p"


def test_gates_plan_says_what_would_be_deleted_and_waited_for():
    gates = _gates(cli_finalizer_on=False)
    assert hosted_cluster_gates_plan_message(gates, 600, True, False, 900) == (
        "would delete the HostedCluster, then wait at most 600 s in all for:\nNodePools and Machines gone -> HostedControlPlane "
        "gone -> CAPI Cluster gone -> HCP namespace gone -> HostedCluster gone")
    assert hosted_cluster_gates_plan_message([], None, False, True, "120") == (
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
    assert hosted_cluster_gate_stop_message(_gate("timeout", [MACHINE]), DIAGNOSIS, False, True) == (
        "gate 'NodePools and Machines gone' timed out after 600.1 s; 1 object(s) remain, first: Machine clusters-demo/demo-a-7f9c "
        "(finalizers: machine.cluster.x-k8s.io); Machine.cluster.x-k8s.io clusters-demo/demo-a-7f9c says Deleting=True "
        "WaitingForInfrastructureDeletion: Waiting for AWSMachine to be deleted; its conditions: Ready=False (Deleting: waiting "
        "for AWSMachine), InfrastructureReady=True, Deleting=True (WaitingForInfrastructureDeletion); finalizer owners: "
        "machine.cluster.x-k8s.io (CAPI manager (Machine)) example.com/x plain/finalizer")


def test_stop_message_of_a_timeout_held_by_the_operator_finalizer_hints_at_the_take_over():
    message = hosted_cluster_gate_stop_message(_gate("timeout", [NODEPOOL]), {}, False, True)
    assert message.startswith(
        "gate 'NodePools and Machines gone' timed out after 600.1 s; 1 object(s) remain, first: NodePool clusters/demo-a "
        "(finalizers: hypershift.openshift.io/finalizer).\nIf the hypershift-operator is down for good, take_over_cleanup=true ")
    assert message.endswith("removes hypershift.openshift.io/finalizer only where what it guards is verified gone")
    # no hint with take_over_cleanup on, for a HostedCluster already gone, or for a stall
    for gate, take_over, present in ((_gate("timeout", [NODEPOOL]), True, True), (_gate("timeout", [NODEPOOL]), False, False),
                                     (_gate("stalled", [NODEPOOL]), False, True)):
        assert "take_over_cleanup" not in hosted_cluster_gate_stop_message(gate, {}, take_over, present)


def test_stop_message_at_the_hcp_names_cpo_hcco_and_the_guest_s_resources_left():
    hcp = {"kind": "HostedControlPlane", "namespace": "clusters-demo", "name": "demo",
           "finalizers": ["hypershift.openshift.io/finalizer"]}
    manifest = {"AWS::EC2::Volume": ["vol-guest", "vol-worker"], "AWS::S3::Bucket": ["demo-image-registry-x"],
                "AWS::EC2::VPC": ["vpc-1"]}
    message = hosted_cluster_gate_stop_message(_gate("timeout", [hcp], name="HostedControlPlane gone"), {}, False, True,
                                               manifest, ["vol-guest"])
    assert "is CPO's (control-plane-operator)" in message and "HCCO (hosted-cluster-config-operator)" in message
    assert "left in AWS: AWS::EC2::Volume: vol-guest; AWS::S3::Bucket: demo-image-registry-x." in message
    assert "vol-worker" not in message and "vpc-1" not in message and "If the hypershift-operator" not in message
    assert "take_over_cleanup=true reads them gone" in message
    # with take_over_cleanup on, the take-over's own message says it
    assert "CPO" not in hosted_cluster_gate_stop_message(_gate("timeout", [hcp]), {}, True, True, manifest, [])


def test_stop_message_of_a_stall_and_of_failed_queries():
    assert hosted_cluster_gate_stop_message(_gate("stalled", [dict(MACHINE, namespace=None, finalizers=[])]), {}, True, True) == (
        "gate 'NodePools and Machines gone' stalled (no progress since 2026-01-02T03:04:05.000Z) after 600.1 s; 1 object(s) "
        "remain, first: Machine /demo-a-7f9c (finalizers: none); Machine.cluster.x-k8s.io /demo-a-7f9c says Deleting=True "
        "WaitingForInfrastructureDeletion: Waiting for AWSMachine to be deleted")
    gate = {"name": "CAPI Cluster gone", "state": "unknown", "duration": None,
            "unknown_selectors": [{"kind": "Cluster", "error": "HTTP 503"}, {"kind": "AWSCluster"}, {"kind": "Machine", "error": None}]}
    assert hosted_cluster_gate_stop_message(gate, {}, False, True) == (
        "gate 'CAPI Cluster gone' is unknown (a query failed; absence is not proven) after  s; 0 object(s) remain; query Cluster "
        "failed: HTTP 503; query AWSCluster failed: ?; query Machine failed: ")


def test_stop_message_says_what_at_most_three_objects_wait_for():
    remaining = [dict(MACHINE, name="m%d" % n) for n in range(5)]
    message = hosted_cluster_gate_stop_message(_gate("timeout", remaining), {}, False, True)
    assert message.count(" says ") == 3 and "5 object(s) remain" in message and "/m3 says" not in message


AWS_PLAN = {"changed": True, "plan": [
    [{"type": "AWS::EC2::Instance", "id": "i-0abc", "action": "delete"}, {"type": "AWS::EC2::NatGateway", "id": "nat-0123", "action": "skip"}],
    [{"type": "AWS::EC2::VPC", "id": "vpc-1"}]], "resources": [
    {"type": "AWS::IAM::Role", "id": "demo-worker-role", "outcome": "retained", "reason": "preserve_iam"},
    {"type": "AWS::IAM::OIDCProvider", "id": "arn:aws:iam::1:oidc-provider/x", "outcome": "retained"},
    {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "planned"}]}


def test_aws_plan_lists_each_level_then_the_iam_retained():
    assert hosted_cluster_aws_plan_message(AWS_PLAN) == (
        "level 1: EC2::Instance i-0abc (delete), EC2::NatGateway nat-0123 (skip). level 2: EC2::VPC vpc-1 (delete). 2 IAM "
        "resources retained (preserve_iam).")


def test_aws_plan_of_a_skipped_cleanup():
    assert hosted_cluster_aws_plan_message({"changed": False, "skipped": True}) == "0 IAM resources retained (preserve_iam)."
    assert hosted_cluster_aws_plan_message({"plan": [[{"type": "AWS::IAM::Role", "id": "r", "action": None}]]}) == (
        "level 1: IAM::Role r (). 0 IAM resources retained (preserve_iam).")


HC_ITEM = {"api_version": HS, "kind": "HostedCluster", "namespace": "clusters", "name": "demo"}
NS_ITEM = {"api_version": "v1", "kind": "Namespace", "name": "clusters-demo"}
CONTENTS = [{"kind": "Machine", "name": "demo-a-1"}, {"kind": "Machine", "name": "demo-a-2"}, {"kind": "Pod", "name": "kas-0"},
            {"kind": "Service", "name": "kas"}]


def _answer(item, state, **kw):
    answer = {"item": item, "state": state, "query": {"ok": state != "unknown", "error": None}, "finalizers": [], "conditions": []}
    answer.update(kw)
    return answer


def test_checks_when_everything_is_gone():
    checks = hosted_cluster_verification_checks([_answer(HC_ITEM, "absent"), _answer(NS_ITEM, "absent")],
                                                {"changed": False, "nodepools": []}, "demo", "clusters", False)
    assert checks == [
        {"what": "HostedCluster clusters/demo", "state": "absent", "count": 0, "names": [], "error": ""},
        {"what": "Namespace clusters-demo and everything in it", "state": "absent", "count": 0, "names": [], "error": ""},
        {"what": "NodePools of demo in clusters", "state": "absent", "count": 0, "names": [], "error": ""}]


def test_checks_of_unknown_reads_and_a_failed_nodepool_list():
    checks = hosted_cluster_verification_checks(
        [_answer(HC_ITEM, "unknown", query={"ok": False, "error": "HTTP 503"}), _answer(HC_ITEM, "present"),
         _answer(NS_ITEM, "unknown", query={"ok": False, "error": None})],
        {"failed": True, "msg": "could not list NodePools"}, "demo", "clusters", False)
    assert [(c["state"], c["count"], c["names"], c["error"]) for c in checks] == [
        ("unknown", 0, [], "HTTP 503"), ("present", 1, ["demo"], ""), ("unknown", 0, [], ""),
        ("unknown", 0, [], "could not list NodePools")]


@pytest.mark.parametrize("complete, retained, other_state, missing_state, ns_state", [
    (True, False, "present", "absent", "present"),
    (False, False, "present", "unknown", "present"),
    (True, True, "retained", "absent", "retained"),
])
def test_checks_of_a_namespace_still_there_kind_by_kind(complete, retained, other_state, missing_state, ns_state):
    checks = hosted_cluster_verification_checks(
        [_answer(NS_ITEM, "present", namespace={"contents": CONTENTS, "contents_complete": complete})],
        {"nodepools": ["demo-a"]}, "demo", "clusters", retained)
    by_what = dict((c["what"], c) for c in checks)
    assert [c["what"] for c in checks][:3] == ["HostedControlPlane in clusters-demo", "Machine in clusters-demo", "AWSMachine in clusters-demo"]
    assert len(checks) == 9 + 3
    assert by_what["Machine in clusters-demo"] == {"what": "Machine in clusters-demo", "state": "present", "count": 2,
                                                   "names": ["demo-a-1", "demo-a-2"], "error": ""}
    assert by_what["AWSMachine in clusters-demo"]["state"] == missing_state
    assert by_what["other objects in clusters-demo (pods, Services, PVCs ...)"] == {
        "what": "other objects in clusters-demo (pods, Services, PVCs ...)", "state": other_state, "count": 2,
        "names": ["Pod kas-0", "Service kas"], "error": ""}
    assert by_what["Namespace clusters-demo"] == {"what": "Namespace clusters-demo", "state": ns_state, "count": 1,
                                                  "names": ["clusters-demo"], "error": ""}
    assert checks[-1] == {"what": "NodePools of demo in clusters", "state": "present", "count": 1, "names": ["demo-a"], "error": ""}


def test_checks_of_an_empty_namespace_listed_in_full():
    checks = hosted_cluster_verification_checks([_answer(NS_ITEM, "present", namespace={"contents": [], "contents_complete": True})],
                                                {"skipped": True}, "", "clusters", False)
    assert set(c["state"] for c in checks[:10]) == {"absent"} and checks[10]["state"] == "present"
    assert checks[-1]["what"] == "NodePools of  in clusters"


MANIFEST = {"AWS::EC2::VPC": ["vpc-1"], "AWS::EC2::Subnet": ["subnet-1"]}
CHECKS = [{"what": "HostedCluster clusters/demo", "state": "present", "count": 1, "names": ["demo"], "error": ""},
          {"what": "NodePools of demo in clusters", "state": "absent", "count": 0, "names": [], "error": ""}]


def test_verification_message_with_ids_still_there():
    aws = {"verified": False, "resources": [{"id": "vpc-1", "outcome": "planned"}, {"id": "subnet-1", "outcome": "absent"}]}
    assert hosted_cluster_verification_message(CHECKS, aws, MANIFEST) == (
        "HostedCluster clusters/demo: present (demo); NodePools of demo in clusters: absent; AWS: NOT verified: vpc-1")


@pytest.mark.parametrize("aws, manifest, verdict", [
    ({"verified": True, "resources": []}, MANIFEST, "every tracked ID absent or terminal"),
    ({"skipped": True}, {}, "every tracked ID absent or terminal"),
    ({}, MANIFEST, "NOT verified: query failed"),
    ({"failed": True, "msg": "AccessDenied"}, MANIFEST, "NOT verified: AccessDenied"),
    ({"verified": None, "msg": None}, MANIFEST, "NOT verified: None"),
])
def test_verification_message_aws_verdict(aws, manifest, verdict):
    assert hosted_cluster_verification_message([], aws, manifest) == "AWS: " + verdict


@pytest.mark.parametrize("call", [
    lambda: hosted_cluster_gates("demo-a", "clusters", "demo", "demo", "clusters-demo", "x", True, True, False),
    lambda: hosted_cluster_gates_plan_message(None, 600, True, False, 900),
    lambda: hosted_cluster_gate_stop_message([], {}, False, True),
    lambda: hosted_cluster_gate_stop_message({}, None, False, True),
    lambda: hosted_cluster_aws_plan_message([]),
    lambda: hosted_cluster_verification_checks({}, {}, "demo", "clusters", False),
    lambda: hosted_cluster_verification_checks([], None, "demo", "clusters", False),
    lambda: hosted_cluster_verification_message([], "failed", {}),
])
def test_refuses_input_of_the_wrong_type(call):
    with pytest.raises(AnsibleFilterError, match="expects"):
        call()


def test_every_filter_is_registered():
    assert sorted(FilterModule().filters()) == [
        "hosted_cluster_aws_plan_message", "hosted_cluster_gate_stop_message", "hosted_cluster_gates",
        "hosted_cluster_gates_plan_message", "hosted_cluster_stored_baseline", "hosted_cluster_verification_checks",
        "hosted_cluster_verification_message"]


def test_the_aws_plan_names_what_the_protect_tag_keeps_and_what_waits_on_it():
    result = {"plan": [[{"type": "AWS::EC2::RouteTable", "id": "rtb-1", "action": "delete"}]], "resources": [
        {"type": "AWS::EC2::NatGateway", "id": "nat-1", "outcome": "kept", "reason": "tagged teardown.gates/protected"},
        {"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "blocked", "blocked_by": ["AWS::EC2::NatGateway nat-1"]}]}
    msg = hosted_cluster_aws_plan_message(result)
    assert msg.endswith("0 IAM resources retained (preserve_iam). Kept, never deleted: AWS::EC2::NatGateway nat-1 "
                        "(tagged teardown.gates/protected). Not deleted, it waits on a kept one: AWS::EC2::VPC vpc-1."), msg
