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


# list_one: an entry without a name lists what is left of its kind (present/absent/unknown, never absent on failure)

HS = "hypershift.openshift.io/v1beta1"
NP_ENTRY = dict(api_version=HS, kind="NodePool", namespace="clusters", match={"spec.clusterName": "demo"})


class _Kind(object):
    def __init__(self, namespaced=True):
        self.namespaced = namespaced


class _ListReads(object):
    """A KubeReads stand-in for list_one: one kind, one LIST answered from ``items`` (None: no answer)."""

    def __init__(self, items, namespaced=True, discovery=None):
        self.items = items
        self.namespaced = namespaced
        self.discovery = discovery
        self.sent = []

    def resource(self, api_version, kind):
        if self.discovery is not None:
            raise self.discovery
        return _Kind(self.namespaced)

    def list(self, api_version, kind, namespace=None, label_selector=None, **kw):
        self.sent.append((kind, namespace, label_selector))
        if self.items is None:
            return {"state": "unknown", "items": [], "query": {"verb": "list", "ok": False, "error": "timed out"}}
        return {"state": "present", "items": self.items, "query": {"verb": "list", "ok": True, "error": None}}


def _np(name, cluster, finalizers=None, deleting=None):
    meta = {"name": name, "namespace": "clusters", "uid": "uid-" + name, "finalizers": finalizers or []}
    if deleting:
        meta["deletionTimestamp"] = deleting
    return {"kind": "NodePool", "metadata": meta, "spec": {"clusterName": cluster}}


def test_a_list_with_nothing_left_of_this_cluster_is_absent():
    reads = _ListReads([_np("other-a", "other")])
    answer = D.list_one(reads, NP_ENTRY)
    assert (answer["state"], answer["count"], answer["names"], answer["listed"]) == ("absent", 0, [], [])
    assert answer["query"]["ok"] and answer["inspect_next"] == [] and reads.sent == [("NodePool", "clusters", None)]


def test_a_list_with_objects_left_is_present_with_their_names_finalizers_and_deletion():
    reads = _ListReads([_np("demo-b", "demo"), _np("other-a", "other"),
                        _np("demo-a", "demo", ["hypershift.openshift.io/finalizer"], "2026-12-05T05:00:00Z")])
    answer = D.list_one(reads, NP_ENTRY)
    assert (answer["state"], answer["count"], answer["names"], answer["deleting"]) == (
        "present", 2, ["demo-a", "demo-b"], True)
    first = answer["listed"][0]
    assert (first["name"], first["namespace"], first["uid"], first["deleting"], first["deletion_timestamp"]) == (
        "demo-a", "clusters", "uid-demo-a", True, "2026-12-05T05:00:00Z")
    assert [f["name"] for f in first["finalizers"]] == ["hypershift.openshift.io/finalizer"]
    assert "owner" in first["finalizers"][0] and answer["listed"][1]["deleting"] is False
    assert answer["inspect_next"] == [
        "NodePool in clusters left (2): demo-a (hypershift.openshift.io/finalizer), demo-b"]


def test_a_list_without_match_keeps_every_object_and_passes_the_label_selector():
    reads = _ListReads([_np("a", "x"), _np("b", "y")])
    answer = D.list_one(reads, dict(api_version=HS, kind="NodePool", namespace="clusters", label_selector="k=v"))
    assert answer["names"] == ["a", "b"] and reads.sent == [("NodePool", "clusters", "k=v")]


def test_a_match_on_a_missing_field_keeps_nothing():
    reads = _ListReads([{"kind": "NodePool", "metadata": {"name": "bare"}}])
    assert D.list_one(reads, NP_ENTRY)["state"] == "absent"


def test_a_list_that_got_no_answer_is_unknown_never_absent():
    answer = D.list_one(_ListReads(None), NP_ENTRY)
    assert (answer["state"], answer["count"], answer["names"]) == ("unknown", 0, [])
    assert "timed out" in answer["msg"] and "unknown, not nothing" in answer["msg"]
    assert answer["query"]["ok"] is False and answer["inspect_next"]


def test_a_list_whose_discovery_got_no_answer_is_unknown():
    reads = _ListReads([], discovery=ResourceLookupError("no answer from the API server", unknown=True))
    answer = D.list_one(reads, NP_ENTRY)
    assert answer["state"] == "unknown" and answer["query"]["ok"] is False and reads.sent == []


def test_a_list_of_a_kind_not_served_or_a_namespaced_kind_without_namespace_is_an_input_error():
    with pytest.raises(D.InputError, match="kind"):
        D.list_one(_ListReads([], discovery=ResourceLookupError("v9 Nope is not served", unknown=False)),
                   dict(api_version="v9", kind="Nope", namespace="ns"))
    reads = _ListReads([])
    with pytest.raises(D.InputError, match="namespace: required"):
        D.list_one(reads, dict(api_version=HS, kind="NodePool", namespace=None))
    assert reads.sent == []


def test_a_cluster_scoped_kind_lists_without_a_namespace():
    reads = _ListReads([{"kind": "Namespace", "metadata": {"name": "clusters-demo"}}], namespaced=False)
    answer = D.list_one(reads, dict(api_version="v1", kind="Namespace", namespace="ignored"))
    assert answer["names"] == ["clusters-demo"] and reads.sent == [("Namespace", None, None)]


class _Failed(Exception):
    pass


class _Module(object):
    def __init__(self, objects):
        self.params = dict(request_timeout=5, objects=objects, api_version="v1", kind=None, name=None, namespace=None)

    def fail_json(self, **kw):
        raise _Failed(kw["msg"])


@pytest.mark.parametrize("entry, message", [
    (dict(api_version="v1", kind=None, name=None, namespace="ns"), "objects[0].kind: required"),
    (dict(api_version="v1", kind="", name="x", namespace="ns"), "objects[0].kind: required"),
    (dict(api_version="v1", kind="Pod", name=" ", namespace="ns"), "objects[0].name: required"),
    (dict(api_version="v1", kind="Pod", name="p", namespace="ns", label_selector="a=b"), "objects[0].label_selector"),
    (dict(api_version="v1", kind="Pod", name="p", namespace="ns", match={"spec.x": "y"}), "objects[0].match"),
    (dict(api_version="v1", kind="Pod", name=None, namespace="ns", match={"spec..x": "y"}), "objects[0].match"),
])
def test_bad_list_input_fails_before_any_request_naming_the_option(entry, message):
    with pytest.raises(_Failed, match=r"invalid input: " + message.replace("[", r"\[").replace("]", r"\]")):
        D.check(_Module([entry]))


def test_an_entry_without_a_name_is_good_input():
    D.check(_Module([dict(api_version="v1", kind="Namespace", name=None, namespace=None),
                     dict(NP_ENTRY, name=None, label_selector=None)]))
