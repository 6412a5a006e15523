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
