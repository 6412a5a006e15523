# -*- coding: utf-8 -*-
"""drivers/deletion_info.py: the deletion_info module's rules, with a KubeReads that has no client."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.drivers import deletion_info as D
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import KubeReads


def test_input_error_derives_from_the_one_base():
    assert issubclass(D.InputError, TeardownGatesError)


def test_the_objects_asked_about():
    one = dict(api_version="v1", kind="Pod", name="p", namespace="ns", objects=None)
    assert D.wanted_of(one) == [dict(api_version="v1", kind="Pod", name="p", namespace="ns")]
    assert D.wanted_of(dict(one, objects=[])) == []


def test_the_worst_state_wins():
    assert D.worst_state(["absent", "present", "unknown"]) == "unknown"
    assert D.worst_state(["absent", "present"]) == "present"
    assert D.worst_state(["absent"]) == "absent" and D.worst_state([]) == "unknown"


def test_a_server_that_did_not_answer_leaves_every_object_unknown_never_absent():
    reads = KubeReads(None, 5, unreachable=ResourceLookupError("no answer from the API server", unknown=True))
    answer = D.read_one(reads, dict(api_version="v1", kind="Pod", name="p", namespace="ns"), True)
    assert answer["state"] == "unknown" and "not absent" in answer["msg"] and answer["query"]["ok"] is False


def test_a_kind_not_served_is_an_input_error():
    reads = KubeReads(None, 5, unreachable=ResourceLookupError("v9 Nope is not served", unknown=False))
    with pytest.raises(D.InputError):
        D.read_one(reads, dict(api_version="v9", kind="Nope", name="p", namespace="ns"), True)


def test_the_listing_is_believed_over_the_conditions():
    ns = {"metadata": {"name": "n"}, "status": {"phase": "Terminating", "conditions": [
        {"type": "NamespaceContentRemaining", "status": "False"}]}, "spec": {"finalizers": ["kubernetes"]}}
    rep = D.namespace_report(ns, {"ok": True, "items": [{"kind": "Pod", "name": "p"}], "errors": [], "query": {}})
    assert rep["believe"] == "listing" and rep["conditions_say_empty"] and rep["listing_says_empty"] is False
    assert rep["spec_finalizers"] == ["kubernetes"]


def test_an_incomplete_listing_is_unknown_not_empty():
    rep = D.namespace_report({"metadata": {}}, {"ok": False, "items": [], "errors": ["list x: 500"], "query": {}})
    assert rep["believe"] == "unknown" and rep["listing_says_empty"] is None and not rep["contents_complete"]


class _Reads(object):
    """A KubeReads stand-in for diagnose(): lists answer from a table, a missing entry is a list with no answer."""

    def __init__(self, lists):
        self.lists = lists
        self.sent = []

    def list(self, api_version, kind, namespace=None, label_selector=None, **kw):
        self.sent.append(("list", kind))
        if kind not in self.lists:
            return {"state": "unknown", "items": [], "query": {"error": "HTTP 403: forbidden"}}
        return {"state": "present", "items": self.lists[kind], "query": {}}

    def get(self, api_version, kind, name, namespace=None, **kw):
        self.sent.append(("get", kind))
        return {"state": "absent", "object": None, "query": {}}


class _Res(object):
    name = "namespaces"


def test_diagnose_a_namespace_whose_apiservices_cannot_be_read_is_unknown_and_says_which_read_failed():
    reads = _Reads({"ValidatingWebhookConfiguration": [], "MutatingWebhookConfiguration": []})
    ns = {"metadata": {"name": "n", "uid": "u", "finalizers": []}}
    result = {"state": "present", "deleting": True, "inspect_next": [],
              "namespace": {"contents_complete": True, "contents": []}}
    D.diagnose(reads, dict(api_version="v1", kind="Namespace", name="n", namespace=None), _Res(), ns, result, None)
    diag = result["diagnosis"]
    assert diag["namespace_state"] == "unknown"  # the listing was complete, but the APIServices were not read
    assert [(b["what"], b["name"]) for b in diag["blockers"]] == [
        ("content", "unknown"), ("unread", "apiregistration.k8s.io/v1 APIService")]
    assert all(verb in ("get", "list") for verb, dummy in reads.sent)


def test_diagnose_names_the_refusing_webhook_after_reading_its_endpoint_slices():
    hook = {"kind": "ValidatingWebhookConfiguration", "metadata": {"name": "cfg"}, "webhooks": [{
        "name": "w", "clientConfig": {"service": {"namespace": "h", "name": "svc"}},
        "rules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}]}]}
    reads = _Reads({"ValidatingWebhookConfiguration": [hook], "MutatingWebhookConfiguration": [],
                    "EndpointSlice": [{"endpoints": []}]})
    cm = {"metadata": {"name": "c", "namespace": "ns", "uid": "u", "finalizers": ["example.com/x"]}}
    result = {"state": "present", "deleting": True, "inspect_next": ["hint"]}
    D.diagnose(reads, dict(api_version="v1", kind="ConfigMap", name="c", namespace="ns"), _Res(), cm, result, None)
    diag = result["diagnosis"]
    assert [(b["what"], b["name"]) for b in diag["blockers"]] == [("webhook", "w"), ("finalizer", "example.com/x")]
    assert diag["ways_out"][0].startswith("Bring back the endpoints of h/svc") and diag["ways_out"][-1] == "hint"
    assert ("list", "EndpointSlice") in reads.sent
