# -*- coding: utf-8 -*-
"""Why won't it delete (#35): the pure rules of deletion_diagnosis, one behaviour each."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.k8s import deletion_diagnosis as dd
from ansible_collections.teardown.gates.plugins.module_utils.kinds import diagnosis as page
from ansible_collections.teardown.gates.plugins.module_utils.report.html import render_html, render_markdown

UID = "u-1"


def _obj(finalizers=(), fields=(), refs=(), labels=None):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "ns", "uid": UID, "finalizers": list(finalizers),
                         "managedFields": list(fields), "ownerReferences": list(refs), "labels": labels or {}}}


def _field(manager, time, finalizers=()):
    f = {"manager": manager, "operation": "Update", "time": time, "fieldsV1": {"f:metadata": {}}}
    if finalizers:
        f["fieldsV1"]["f:metadata"]["f:finalizers"] = dict(('v:"%s"' % n, {}) for n in finalizers)
    return f


@pytest.mark.parametrize("value, fine", [
    ("v1", True), ("apps/v1", True), ("hypershift.openshift.io/v1beta1", True), ("a/b/c", False),
    ("Apps/V1", False), ("", False), ("/v1", False), ("apps/", False), ("apps/1", False), (None, False)])
def test_api_version_shape(value, fine):
    assert (dd.check_api_version(value) is None) is fine


def test_an_unknown_finalizer_names_who_wrote_it_and_who_wrote_last():
    obj = _obj(["example.com/dead"], [_field("dead-operator", "2026-01-01T00:00:00Z", ["example.com/dead"]),
                                      _field("kubectl", "2026-02-01T00:00:00Z")])
    fin = dd.finalizers(obj)[0]
    assert fin["owner"] == dd.UNKNOWN_OWNER
    assert [m["manager"] for m in fin["added_by"]] == ["dead-operator"]
    assert [m["manager"] for m in fin["last_written_by"]] == ["kubectl", "dead-operator"]  # newest first


def test_a_known_finalizer_has_its_owner_and_no_managers():
    fin = dd.finalizers(_obj(["cluster.cluster.x-k8s.io"]))[0]
    assert fin["owner"] == "CAPI manager (Cluster)" and "waits_for" in fin and "added_by" not in fin


def test_foreground_blockers_are_the_block_owner_deletion_dependents_only_under_foreground():
    deps = [{"kind": "Pod", "name": "a", "owner_refs": [{"uid": UID, "blockOwnerDeletion": True}]},
            {"kind": "Pod", "name": "b", "owner_refs": [{"uid": UID, "blockOwnerDeletion": False}]},
            {"kind": "Pod", "name": "c", "owner_refs": [{"uid": "other", "blockOwnerDeletion": True}]}]
    fg = dd.foreground(_obj(["foregroundDeletion"]), deps)
    assert fg["foreground"] and [d["name"] for d in fg["blocking_dependents"]] == ["a"]
    assert dd.foreground(_obj([]), deps)["blocking_dependents"] == []


def test_unavailable_apiservices():
    items = [{"metadata": {"name": "v1.ok"}, "status": {"conditions": [{"type": "Available", "status": "True"}]}},
             {"metadata": {"name": "v1.bad"}, "spec": {"service": {"namespace": "x", "name": "svc"}},
              "status": {"conditions": [{"type": "Available", "status": "False", "reason": "ServiceNotFound"}]}},
             {"metadata": {"name": "v1.new"}}]
    got = dd.unavailable_apiservices(items)
    assert [(a["name"], a["status"], a["service"]) for a in got] == [("v1.bad", "False", "x/svc"),
                                                                     ("v1.new", "Unknown", None)]


@pytest.mark.parametrize("ns_report, apis, state", [
    ({"contents_complete": True, "contents": []}, [], "empty"),
    ({"contents_complete": True, "contents": [{"kind": "Pod"}]}, [], "not_empty"),
    ({"contents_complete": False, "contents": []}, [], "unknown"),
    ({"contents_complete": True, "contents": []}, [{"name": "v1.bad"}], "unknown"),  # never empty then
    (None, [], "unknown")])
def test_namespace_state(ns_report, apis, state):
    assert dd.namespace_state(ns_report, apis) == state


def _hook(policy="Fail", rules=None, ns_sel=None, obj_sel=None):
    return dd.webhook_targets([{"kind": "ValidatingWebhookConfiguration", "metadata": {"name": "cfg"}, "webhooks": [{
        "name": "w.example.com", "failurePolicy": policy,
        "clientConfig": {"service": {"namespace": "hooks", "name": "svc"}},
        "rules": rules if rules is not None else [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"],
                                                   "resources": ["configmaps"]}],
        "namespaceSelector": ns_sel, "objectSelector": obj_sel}]}])


TARGET = {"group": "", "version": "v1", "resource": "configmaps", "namespace": "ns", "labels": {"app": "x"},
          "namespace_labels": {"kubernetes.io/metadata.name": "ns"}}


def test_a_fail_webhook_without_ready_endpoints_refuses_the_update():
    got = dd.refusing_webhooks(_hook(), {"hooks/svc": 0}, TARGET)
    assert got == [{"configuration": "ValidatingWebhookConfiguration cfg", "webhook": "w.example.com",
                    "service": "hooks/svc", "endpoints": "none ready"}]
    assert dd.refusing_webhooks(_hook(), {"hooks/svc": None}, TARGET)[0]["endpoints"] == "unknown"


@pytest.mark.parametrize("hook, ready", [
    (_hook(), {"hooks/svc": 2}),  # endpoints ready
    (_hook(policy="Ignore"), {"hooks/svc": 0}),
    (_hook(rules=[{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["*"]}]),
     {"hooks/svc": 0}),  # not an UPDATE
    (_hook(rules=[{"apiGroups": ["apps"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}]),
     {"hooks/svc": 0}),  # another group
    (_hook(obj_sel={"matchLabels": {"app": "y"}}), {"hooks/svc": 0}),
    (_hook(ns_sel={"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn",
                                         "values": ["ns"]}]}), {"hooks/svc": 0}),
])
def test_a_webhook_that_does_not_apply_or_answers_is_not_named(hook, ready):
    assert dd.refusing_webhooks(hook, ready, TARGET) == []


def test_a_webhook_policy_defaults_to_fail():
    assert dd.webhook_targets([{"webhooks": [{"name": "w"}]}])[0]["failure_policy"] == "Fail"


def test_ready_endpoints_counts_ready_or_unset_only():
    slices = [{"endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": False}},
                             {"addresses": ["10.0.0.2"], "conditions": {}}]}, {"endpoints": None}]
    assert dd.ready_endpoints(slices) == 1
    assert dd.ready_endpoints([]) == 0


def test_controllers_ready_not_ready_absent_unknown():
    entries = [{"namespace": "a", "name": n, "what": n} for n in ("up", "down", "gone", "unread")]
    observed = {("a", "up"): {"state": "present", "object": {"spec": {"replicas": 1},
                                                             "status": {"readyReplicas": 1, "availableReplicas": 1}}},
                ("a", "down"): {"state": "present", "object": {"spec": {"replicas": 2}, "status": {"readyReplicas": 1}}},
                ("a", "gone"): {"state": "absent"}, ("a", "unread"): {"state": "unknown"}}
    assert [c["state"] for c in dd.controllers(entries, observed)] == ["ready", "not_ready", "absent", "unknown"]


def test_blockers_most_direct_first_and_nothing_for_an_absent_object():
    fins = dd.finalizers(_obj(["example.com/dead"], [_field("dead-operator", "t", ["example.com/dead"])]))
    fg = dd.foreground(_obj([]), [])
    hooks = [{"configuration": "c", "webhook": "w", "service": "hooks/svc", "endpoints": "none ready"}]
    apis = [{"name": "v1.bad", "status": "False", "reason": "ServiceNotFound", "message": "", "service": "x/y"}]
    ctrls = [{"namespace": "a", "name": "op", "what": "op", "state": "absent"}]
    got = dd.blockers("present", True, fins, fg, hooks, apis, "unknown", {"contents": []}, ctrls)
    assert [b["what"] for b in got] == ["webhook", "apiservice", "finalizer", "controller"]
    assert "dead-operator" in got[2]["detail"]
    assert dd.blockers("absent", False, fins, fg, hooks, apis, None, None, ctrls) == []
    assert dd.blockers("present", True, [], fg, [], [], None, None, [])[0]["what"] == "none seen"


def test_a_namespace_whose_lists_failed_is_an_unknown_content_blocker():
    got = dd.blockers("present", True, [], dd.foreground({}, []), [], [], "unknown", {"contents": []}, [])
    assert [(b["what"], b["name"]) for b in got] == [("content", "unknown")]


@pytest.mark.parametrize("item, option", [
    ({"api_version": "a/b/c", "kind": "X", "name": "n"}, "api_version"),
    ({"api_version": "v1", "kind": "", "name": "n"}, "kind"),
    ({"api_version": "v1", "kind": "ConfigMap", "name": " "}, "name"),
    ({"api_version": "v1", "kind": "Namespace", "name": "n", "namespace": "x"}, "namespace")])
def test_input_problem_names_the_option(item, option):
    assert dd.input_problem(item).startswith(option + ":")


def test_input_problem_none_for_good_input():
    assert dd.input_problem({"api_version": "apps/v1", "kind": "Deployment", "namespace": "a", "name": "d"}) == ""


def test_the_report_and_its_pages_name_the_blockers():
    answer = {"state": "present", "deleting": True, "object": {"deletion_timestamp": "2026-01-01T00:00:00Z"},
              "diagnosis": {"blockers": [{"what": "webhook", "name": "w.<x>", "detail": "d"}],
                            "namespace_state": "unknown", "ways_out": ["fix <it>"]}}
    report = dd.report(answer, {"kind": "Namespace", "name": "n", "namespace": ""}, "2026-01-01T00:01:00.000Z",
                       "2026-01-01T00:01:02.000Z", False)
    assert report["target"] == {"kind": "Namespace", "name": "n"}
    assert page.claims(report) and page.verdict(report) == ("bad", "held by webhook w.<x>")
    html = render_html(report, "diagnosis")
    assert "w.&lt;x&gt;" in html and "fix &lt;it&gt;" in html and 'id="namespace-state">unknown<' in html
    assert "```mermaid" in render_markdown(report, "diagnosis")
    assert page.verdict(dict(report, state="absent"))[0] == "ok"
    assert page.verdict(dict(report, state="unknown"))[0] == "bad"
