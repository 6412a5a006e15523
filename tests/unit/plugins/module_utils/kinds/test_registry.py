# -*- coding: utf-8 -*-
"""The kind registry (#32): every teardown kind in one line of registry.KINDS, and the lookups the shared code
(diagnosis, timeline, report_html, the report_page filters) reads instead of branching on the kind."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.k8s import diagnosis
from ansible_collections.teardown.gates.plugins.module_utils.report import html as report_html
from ansible_collections.teardown.gates.plugins.module_utils.report import timeline
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.kinds import kubernetes, registry
from ansible_collections.teardown.gates.plugins.filter import report_page

NAMES = ("hosted_cluster", "release_prune", "cfn", "diagnosis", "held_deletion", "orphan_sweep")


def test_the_registry_lists_the_six_kinds_once_each():
    assert registry.names() == NAMES
    assert len(set(k.NAME for k in registry.KINDS)) == len(registry.KINDS)


@pytest.mark.parametrize("name", NAMES)
def test_by_name_finds_each_kind(name):
    assert registry.by_name(name).NAME == name


def test_an_unknown_kind_raises_unknown_kind_from_the_one_base():
    with pytest.raises(registry.UnknownKind) as err:
        registry.by_name("sixth")
    assert isinstance(err.value, TeardownGatesError)
    assert isinstance(err.value, KeyError)  # as the tables it replaced raised
    assert "sixth" in str(err.value) and "hosted_cluster" in str(err.value)


def test_page_kinds_are_the_report_filters_kinds_in_order():
    assert registry.page_kinds() == ("hosted_cluster", "release_prune", "cfn", "diagnosis", "held_deletion")
    assert report_page.KINDS == registry.page_kinds()
    assert registry.page_kind("cfn").NAME == "cfn"
    with pytest.raises(registry.UnknownKind):
        registry.page_kind("orphan_sweep")  # it has no page
    with pytest.raises(registry.UnknownKind):
        registry.page_kind("nope")


@pytest.mark.parametrize("report, kind", [
    ({"gates": [], "cluster": {}}, "hosted_cluster"),
    ({"role": "teardown.gates.release_prune", "waits": []}, "release_prune"),
    ({"stacks": []}, "cfn"),
    ({"plan": []}, "held_deletion"),
    ({}, "held_deletion"),
    ({"gates": [], "stacks": []}, "cfn"),  # gates without a cluster is not a hosted cluster
    ({"role": "teardown.gates.diagnose_deletion", "blockers": []}, "diagnosis"),
])
def test_of_report_guesses_the_kind_from_the_reports_shape(report, kind):
    assert registry.of_report(report).NAME == kind
    assert timeline.chart(report)["kind"] == kind


def test_by_finalizer_names_the_publisher():
    assert registry.by_finalizer("hypershift.openshift.io/finalizer").NAME == "hosted_cluster"
    assert registry.by_finalizer("release.core.convoy.kumodo.io/prune-workloads").NAME == "release_prune"
    assert registry.by_finalizer("terraformcluster.infrastructure.cluster.x-k8s.io").NAME == "held_deletion"
    assert registry.by_finalizer("kubernetes") is kubernetes
    with pytest.raises(registry.UnknownKind):
        registry.by_finalizer("example.com/mine")


def test_controllers_for_an_api_version_or_a_finalizer():
    capi = {"namespace": "capi-system", "name": "capi-controller-manager", "what": "CAPI manager"}
    assert registry.controllers_for("cluster.x-k8s.io/v1beta1") == [capi]
    # by a finalizer the controller owns, whatever the object's API (each controller once)
    assert registry.controllers_for("v1", ["machine.cluster.x-k8s.io", "cluster.cluster.x-k8s.io"]) == [capi]
    assert [c["name"] for c in registry.controllers_for("hypershift.openshift.io/v1beta1")] == ["operator"]
    assert registry.controllers_for("v1", ["example.com/mine"]) == []
    for k in registry.KINDS + registry.GROUND:
        for c in k.CONTROLLERS:
            assert set(c) == {"namespace", "name", "what", "serves", "finalizers"}, (k.NAME, c)
            assert set(c["finalizers"]) <= set(k.FINALIZERS), (k.NAME, c)


def test_no_two_publishers_claim_one_finalizer_or_one_object_kind():
    fins, objs = [], []
    for k in registry.KINDS + registry.GROUND:
        fins += list(k.FINALIZERS)
        objs += list(k.OBJECT_HINTS)
    assert len(fins) == len(set(fins))
    assert len(objs) == len(set(objs))


def test_core_kubernetes_finalizers_are_ground_truth_not_a_kind():
    owners = registry.finalizer_owners()
    for name in ("kubernetes", "foregroundDeletion", "orphan", "kubernetes.io/pv-protection",
                 "kubernetes.io/pvc-protection", "service.kubernetes.io/load-balancer-cleanup"):
        assert owners[name] == kubernetes.FINALIZERS[name]
    assert kubernetes not in registry.KINDS


def test_diagnosis_reads_the_registry():
    assert diagnosis.FINALIZER_OWNERS == registry.finalizer_owners()
    assert diagnosis.KIND_RULES == registry.object_hints()
    assert [r for dummy, r in registry.hint_rules()] == [r for dummy, r in diagnosis.RULES if r is not diagnosis.deleting_rule]


def test_hint_rules_are_pure_and_ordered():
    orders = [o for o, dummy in registry.hint_rules()]
    assert orders == sorted(orders) and len(orders) == len(set(orders))
    view = {"api_version": "v1", "kind": "ConfigMap", "group": "", "name": "x", "conditions": [], "status": {},
            "finalizers": []}
    for dummy, rule in registry.hint_rules():
        assert rule(dict(view)) == []
    hold = dict(view, conditions=[{"type": "StateReadable", "status": "False", "reason": "StateLost"}])
    held = [h for dummy, r in registry.hint_rules() for h in r(hold)]
    assert len(held) == 1 and held[0][0] == "first" and "StateLost" in held[0][1]


def test_closed_states_cover_every_kinds_done_states():
    closed = registry.closed_states()
    assert timeline.CLOSED == closed
    for s in ("passed", "deleted", "absent", "restore", "abandon", "released", "DELETE_COMPLETE", "NOT_FOUND",
              "skipped", "retained"):
        assert s in closed


@pytest.mark.parametrize("name", ("hosted_cluster", "release_prune", "cfn", "held_deletion"))
def test_each_page_kind_has_its_body_chart_and_verdict(name):
    k = registry.page_kind(name)
    assert report_html.BODIES[name] is k.body
    assert k.chart({})["kind"] == name
    cls, words = k.verdict({})
    assert cls in ("ok", "warn", "bad") and words
    assert report_html.verdict({"check_mode": True}, name)[0] == "plan"


def test_the_verdict_of_an_unknown_kind_raises():
    with pytest.raises(registry.UnknownKind):
        report_html.verdict({}, "nope")
