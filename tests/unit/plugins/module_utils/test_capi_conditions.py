# -*- coding: utf-8 -*-
# Cluster API v1.11+ conditions as the real managers write them: the v1beta1 view (HyperShift's, and the
# gates') carries the new conditions in status.v1beta2.conditions; the v1beta2 view in status.conditions.
# The shapes below are those CAPI v1.13.4's Machine and Cluster controllers wrote in the sandbox.
# A concern test of k8s/diagnosis.py, k8s/observe.py's object_summary and the kinds' finalizer tables on the same
# objects; their own tests are in k8s/ and kinds/.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.k8s import diagnosis
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import object_summary

MACHINE_V1BETA1 = {
    "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine",
    "metadata": {"name": "np-a-1", "namespace": "clusters-demo", "uid": "u1",
                 "deletionTimestamp": "2026-12-01T10:00:00Z", "finalizers": ["machine.cluster.x-k8s.io"]},
    "status": {
        "phase": "Deleting",
        "conditions": [{"type": "Ready", "status": "False", "reason": "Deleting", "severity": "Info"}],
        "v1beta2": {"conditions": [
            {"type": "Ready", "status": "False", "reason": "NotReady", "message": "* Deleting: Machine deletion in progress"},
            {"type": "Deleting", "status": "True", "reason": "WaitingForInfrastructureDeletion",
             "message": "Waiting for AWSMachine to be deleted"}]}},
}


def test_v1beta2_conditions_come_first_and_old_types_only_when_new_ones_lack_them():
    conds = diagnosis.status_conditions(dict(MACHINE_V1BETA1, status=dict(
        MACHINE_V1BETA1["status"], conditions=MACHINE_V1BETA1["status"]["conditions"]
        + [{"type": "BootstrapReady", "status": "True"}])))
    assert [c["type"] for c in conds] == ["Ready", "Deleting", "BootstrapReady"]
    assert conds[0]["reason"] == "NotReady"  # the v1beta2 Ready, not the deprecated one


def test_a_v1beta2_view_and_a_plain_object_read_status_conditions():
    obj = {"status": {"conditions": [{"type": "Deleting", "status": "True", "reason": "WaitingForWorkersDeletion",
                                      "message": "* MachineSets: np-a\n* Worker Machines: np-a-1"}]}}
    assert diagnosis.status_conditions(obj) == obj["status"]["conditions"]
    assert diagnosis.status_conditions({}) == [] and diagnosis.status_conditions(None) == []


def test_the_deleting_condition_quotes_reason_and_message_on_one_line():
    why = diagnosis.deleting_condition(diagnosis.status_conditions(
        {"status": {"conditions": [{"type": "Deleting", "status": "True", "reason": "WaitingForWorkersDeletion",
                                    "message": "* MachineSets: np-a\n* Worker Machines: np-a-1"}]}}))
    assert why == "Deleting=True WaitingForWorkersDeletion: * MachineSets: np-a * Worker Machines: np-a-1"
    assert diagnosis.deleting_condition([{"type": "Deleting", "status": "False", "reason": "NotDeleting"}]) is None
    assert diagnosis.deleting_condition([]) is None


def test_the_object_summary_and_inspect_next_see_the_real_machine_condition():
    s = object_summary(MACHINE_V1BETA1)
    assert {"type": "Deleting", "status": "True", "reason": "WaitingForInfrastructureDeletion",
            "message": "Waiting for AWSMachine to be deleted"} in s["conditions"]
    hints = diagnosis.inspect_next(s)
    assert hints[0] == ("Machine.cluster.x-k8s.io np-a-1: Deleting=True WaitingForInfrastructureDeletion: "
                        "Waiting for AWSMachine to be deleted")
    assert any("CAPA looks again every minute" in h for h in hints)


def test_kind_labels_name_the_group_so_two_clusters_are_told_apart():
    assert diagnosis.kind_label("cluster.x-k8s.io/v1beta1", "Cluster") == "Cluster.cluster.x-k8s.io"
    assert diagnosis.kind_label("core.convoy.kumodo.io/v1alpha1", "Cluster") == "Cluster.core.convoy.kumodo.io"
    assert diagnosis.kind_label("v1", "Namespace") == "Namespace"


def test_the_real_managers_finalizers_have_owners():
    for name in ("cluster.x-k8s.io/machineset", "cluster.x-k8s.io/machinedeployment", "machine.cluster.x-k8s.io",
                 "cluster.cluster.x-k8s.io", "awsmachine.infrastructure.cluster.x-k8s.io"):
        owner = diagnosis.finalizer_owner(name)
        assert owner["owner"].startswith(("CAPI manager", "CAPA")) and owner["waits_for"], name
