# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.hosted_cluster_wait import (
    aws_verified, cli_finalizer_on, gates, gates_of, report_gates, verification_reads)

PUT_ON = {"changed": True, "finalizers_after": ["openshift.io/destroy-cluster"]}


@pytest.mark.parametrize("retained, on, check_mode, deleting, want", [
    ({}, True, False, False, True),                   # on as the run began
    (PUT_ON, False, False, False, True),              # Phase 2 put it on
    (json.dumps(PUT_ON), False, False, False, True),  # ... its result as text (ansible-core 2.16)
    ({"finalizers_after": ["other"]}, False, False, False, False),
    ({"skipped": True}, False, False, False, False),  # Phase 2 did not run
    ({}, False, True, False, True),                   # check mode, not yet deleting: it would be put on
    ({}, False, True, "2026-01-01T00:00:00Z", False),  # check mode, already deleting
    ({}, False, False, False, False),
])
def test_cli_finalizer_on(retained, on, check_mode, deleting, want):
    assert cli_finalizer_on(retained, on, check_mode, deleting) is want


def test_the_first_flag_set_decides_as_bool_reads_it():
    # as the role's (a or b or c) | bool: a flag given as text that is not true ends it false
    assert cli_finalizer_on(PUT_ON, "False", False, False) is False
    assert cli_finalizer_on({}, "True", False, False) is True


GATES = [{"name": "workers", "resources": []}, {"name": "namespace", "resources": [], "state": "x"}]


def test_the_report_shows_the_gates_as_judged():
    judged = [{"name": "workers", "state": "passed"}]
    assert report_gates({"gates": judged}, GATES, False) == judged


@pytest.mark.parametrize("waited", [{}, {"gates": []}, {"skipped": True}, "", None])
def test_without_a_judgement_the_laid_out_gates_are_planned_or_not_started(waited):
    assert report_gates(waited, GATES, True) == [{"name": "workers", "resources": [], "state": "planned"},
                                                 {"name": "namespace", "resources": [], "state": "planned"}]
    assert [g["state"] for g in report_gates(waited, GATES, False)] == ["not_started", "not_started"]
    assert GATES[1]["state"] == "x"  # the laid-out gates stay as they were


def test_the_laid_out_gates_must_be_a_list():
    with pytest.raises(AnsibleFilterError, match="hosted_cluster_report_gates"):
        report_gates({}, "workers", False)


def test_a_failed_lookup_is_never_verified():
    assert aws_verified({"failed": True, "verified": True}, [{}], {}) is False


@pytest.mark.parametrize("said", [True, False, None])
def test_the_lookup_says_whether_it_verified(said):
    assert aws_verified({"failed": False, "verified": said}, [], {"vpc": ["v"]}) is said


@pytest.mark.parametrize("aws_check, checks, manifest, want", [
    ({}, [{"what": "ns"}], {}, True),                         # verification ran, nothing to look up
    ({"skipped": True}, [{"what": "ns"}], "{}", True),
    ({}, [], {}, False),                                      # the run stopped before Phase 6
    ({}, [{"what": "ns"}], {"vpc": ["vpc-1"]}, False),        # something to look up and no lookup
    ("", [{"what": "ns"}], json.dumps({"vpc": []}), False),
])
def test_without_a_lookup(aws_check, checks, manifest, want):
    assert aws_verified(aws_check, checks, manifest) is want


# gates_of and verification_reads: Phase 3's gates from the recorded cluster, Phase 6's reads

CLUSTER = {"namespace": "clusters", "name": "demo", "uid": "u-1", "infra_id": "demo-x7k2p", "region": "us-east-1",
           "hcp_namespace": "clusters-demo"}


@pytest.mark.parametrize("name, present, cli_on, skip_ns", [
    ("demo", True, True, False), ("demo", True, False, True), ("demo", False, False, False), ("", False, False, False)])
def test_gates_of_lays_out_the_gates_of_the_recorded_cluster(name, present, cli_on, skip_ns):
    hosted_cluster = {"name": name, "present": present, "nodepools": ["demo-a"], "cli_finalizer_on": cli_on,
                      "skip_namespace": skip_ns}
    assert gates_of(CLUSTER, hosted_cluster) == gates(["demo-a"], "clusters", name, "demo", "clusters-demo", "demo-x7k2p",
                                                      present, cli_on, skip_ns)


def test_gates_of_refuses_what_is_not_a_mapping():
    with pytest.raises(AnsibleFilterError, match=r"hosted_cluster_destroy_step\('gates'\): expects the cluster Phase 1 recorded"):
        gates_of([], {})
    with pytest.raises(AnsibleFilterError, match="expects what Phase 3 knows of the HostedCluster"):
        gates_of(CLUSTER, "demo")


def test_verification_reads_the_hosted_cluster_when_it_has_a_name_then_the_hcp_namespace():
    namespace = {"api_version": "v1", "kind": "Namespace", "name": "clusters-demo"}
    assert verification_reads("demo", "clusters", "clusters-demo") == [
        {"api_version": "hypershift.openshift.io/v1beta1", "kind": "HostedCluster", "namespace": "clusters", "name": "demo"},
        namespace,
        {"api_version": "hypershift.openshift.io/v1beta1", "kind": "NodePool", "namespace": "clusters",
         "match": {"spec.clusterName": "demo"}}]
    assert verification_reads("", "clusters", "clusters-demo") == [namespace]


def test_verification_reads_the_cli_secrets_of_the_infra_id_last_and_none_for_an_infrastructure_only_destroy():
    reads = verification_reads("demo", "clusters", "clusters-demo", "demo-x7k2p")
    assert reads[:3] == verification_reads("demo", "clusters", "clusters-demo")
    assert reads[3:] == [{"api_version": "v1", "kind": "Secret", "namespace": "clusters",
                          "label_selector": "hypershift.openshift.io/auto-created-for-infra=demo-x7k2p"}]
    assert verification_reads("", "clusters", "clusters-demo", "demo-x7k2p") == [
        {"api_version": "v1", "kind": "Namespace", "name": "clusters-demo"}]


# gates: the layout (what the filter hosted_cluster_gates was)

HS = "hypershift.openshift.io/v1beta1"
CAPI = "cluster.x-k8s.io/v1beta1"
CAPA = "infrastructure.cluster.x-k8s.io/v1beta2"
LABEL = "cluster.x-k8s.io/cluster-name=demo-x7k2p"


def _gates(nodepools=("demo-a",), name="demo", hc_present=True, cli_finalizer_on=True, skip_namespace=False):
    return gates(list(nodepools), "clusters", name, name or "demo-x7k2p", "clusters-" + (name or "demo-x7k2p"),
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
            # named after the HostedCluster (hypershift aws.go:74-78), not the infra ID: a wrong name waits on nothing
            {"api_version": CAPA, "kind": "AWSCluster", "namespace": "clusters-demo", "name": "demo"}]},
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


def test_gates_refuse_nodepools_that_are_not_a_list():
    # the wrong-type case of the filter hosted_cluster_gates was
    with pytest.raises(AnsibleFilterError, match="expects"):
        gates("demo-a", "clusters", "demo", "demo", "clusters-demo", "x", True, True, False)
