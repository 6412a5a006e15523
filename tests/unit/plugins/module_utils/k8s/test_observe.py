# -*- coding: utf-8 -*-
# k8s/observe.py. delete_object (wait_gate's delete option): one DELETE, with the uid as a precondition when given, read back as
# deleted / absent (404) / refused (the server said no) / unknown (no answer: it may or may not have been applied).
# get_object/list_objects with attempts: a read tried again while its failure is transient.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

import pytest
from urllib3.exceptions import NewConnectionError, ProtocolError, ReadTimeoutError

from ansible_collections.teardown.gates.plugins.module_utils.k8s import client as C
from ansible_collections.teardown.gates.plugins.module_utils.k8s import observe as O
from kube_answer_double import Answer


class FakeResource(object):
    """A dynamic-client Resource whose delete()/get() return or raise the next of ``answers``; the kwargs of
    every call are kept."""

    def __init__(self, answers, namespaced=True):
        self.answers = list(answers)
        self.namespaced = namespaced
        self.deletes = []
        self.gets = []

    def _next(self):
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a

    def delete(self, **kwargs):
        self.deletes.append(kwargs)
        return self._next()

    def get(self, **kwargs):
        self.gets.append(kwargs)
        return self._next()


@pytest.fixture
def pauses(monkeypatch):
    """delete_object retries through retry_read: its pauses are recorded here instead of slept."""
    slept = []
    monkeypatch.setattr(O, "retry_read", functools.partial(C.retry_read, sleep=slept.append))
    return slept


STATUS_OK = {"kind": "Status", "status": "Success"}


# --- delete_object -----------------------------------------------------------------------------

def test_deleted_with_the_uid_as_precondition_and_the_propagation_policy(pauses):
    res = FakeResource([STATUS_OK])
    out = O.delete_object(res, "np", namespace="clusters", uid="u-1", propagation_policy="Foreground",
                          request_timeout=7)
    assert out["state"] == "deleted" and out["query"]["ok"] and out["query"]["verb"] == "delete"
    assert out["query"]["retries"] == 0 and pauses == []
    (call,) = res.deletes
    assert call["name"] == "np" and call["namespace"] == "clusters"
    assert call["body"] == {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": "u-1"},
                            "propagationPolicy": "Foreground"}
    assert call["_request_timeout"]  # every request is bounded


def test_without_uid_or_policy_the_body_carries_neither(pauses):
    res = FakeResource([STATUS_OK])
    assert O.delete_object(res, "np", namespace="clusters")["state"] == "deleted"
    body = res.deletes[0]["body"]
    assert "preconditions" not in body and "propagationPolicy" not in body


def test_a_cluster_scoped_resource_gets_no_namespace(pauses):
    res = FakeResource([STATUS_OK], namespaced=False)
    assert O.delete_object(res, "hc-ns", namespace="ignored", uid="u-2")["state"] == "deleted"
    assert "namespace" not in res.deletes[0]
    assert res.deletes[0]["body"]["preconditions"] == {"uid": "u-2"}


def test_404_is_absent_nothing_to_delete(pauses):
    res = FakeResource([Answer("not found", 404)])
    out = O.delete_object(res, "np", namespace="clusters", uid="u-1")
    assert out["state"] == "absent" and out["query"]["status"] == 404
    assert len(res.deletes) == 1 and pauses == []


@pytest.mark.parametrize("status, words", [
    (409, "Precondition failed: UID in precondition"),  # a newer object of the same name is kept safe
    (403, 'cannot delete resource "nodepools"'),
])
def test_a_refusal_is_refused_and_not_tried_again(pauses, status, words):
    body = '{"kind": "Status", "message": "%s"}' % words.replace('"', '\\"')
    res = FakeResource([Answer("refused", status, body=body), STATUS_OK])
    out = O.delete_object(res, "np", namespace="clusters", uid="u-1")
    assert out["state"] == "refused" and out["query"]["status"] == status
    assert not out["query"]["ok"] and "HTTP %d" % status in out["query"]["error"]
    assert len(res.deletes) == 1 and pauses == []


def test_a_connection_lost_on_every_try_is_unknown(pauses):
    lost = [ProtocolError("Connection aborted.", ConnectionResetError()), ConnectionResetError("reset by peer"),
            NewConnectionError(None, "refused")]
    res = FakeResource(lost + [STATUS_OK])
    out = O.delete_object(res, "np", namespace="clusters", uid="u-1")
    assert out["state"] == "unknown" and not out["query"]["ok"]
    assert out["state"] not in ("deleted", "absent")
    assert len(res.deletes) == C.READ_ATTEMPTS == 3 and pauses == [0.5, 1.5]


def test_a_server_still_busy_after_the_tries_is_unknown_not_refused(pauses):
    res = FakeResource([Answer("busy", 503)] * 3)
    out = O.delete_object(res, "np", namespace="clusters")
    assert out["state"] == "unknown" and out["query"]["status"] == 503 and len(res.deletes) == 3


def test_a_timeout_is_unknown_at_once(pauses):
    res = FakeResource([ReadTimeoutError(None, "/api", "read timed out"), STATUS_OK])
    out = O.delete_object(res, "np", namespace="clusters")
    assert out["state"] == "unknown" and len(res.deletes) == 1


def test_503_then_200_is_deleted_after_one_retry(pauses):
    res = FakeResource([Answer("busy", 503), STATUS_OK])
    out = O.delete_object(res, "np", namespace="clusters", uid="u-1")
    assert out["state"] == "deleted" and out["query"]["retries"] == 1
    assert len(res.deletes) == 2 and pauses == [0.5]
    assert res.deletes[0] == res.deletes[1]  # the same request, precondition included


def test_a_404_to_the_retry_after_an_unanswered_attempt_is_deleted_not_absent(pauses):
    # the first DELETE was applied but its answer was lost: the object is gone, and this run removed it
    res = FakeResource([ProtocolError("Connection aborted.", ConnectionResetError()), Answer("not found", 404)])
    out = O.delete_object(res, "np", namespace="clusters")
    assert out["state"] == "deleted" and out["query"]["status"] == 404 and out["query"]["retries"] == 1
    assert "unanswered" in out["query"]["detail"]
    assert len(res.deletes) == 2 and pauses == [0.5]


# --- get_object / list_objects with attempts -------------------------------------------------------

def test_attempts_one_is_a_single_read_and_adds_nothing_to_the_query(pauses):
    res = FakeResource([Answer("busy", 503), {"metadata": {"name": "np"}}])
    obs = O.get_object(res, "np", namespace="clusters")
    assert obs["state"] == "unknown" and "attempts" not in obs["query"] and len(res.gets) == 1 and pauses == []


def test_an_answer_at_once_is_one_attempt(pauses):
    res = FakeResource([{"metadata": {"name": "np"}}, Answer("busy", 503)])
    obs = O.get_object(res, "np", namespace="clusters", attempts=3)
    assert obs["state"] == "present" and obs["query"]["attempts"] == 1 and pauses == []


def test_a_refusal_is_not_read_again(pauses):
    res = FakeResource([Answer("forbidden", 403), {"metadata": {"name": "np"}}])
    obs = O.get_object(res, "np", namespace="clusters", attempts=3)
    assert obs["state"] == "unknown" and obs["query"]["attempts"] == 1 and "HTTP 403" in obs["query"]["error"]
    assert len(res.gets) == 1 and pauses == []


def test_transient_failures_are_read_again_with_backoff(pauses):
    res = FakeResource([Answer("busy", 503), Answer("busy", 502), {"metadata": {"name": "np"}}])
    obs = O.get_object(res, "np", namespace="clusters", attempts=3)
    assert obs["state"] == "present" and obs["query"]["attempts"] == 3
    assert len(res.gets) == 3 and pauses == [0.5, 1.5]


def test_after_the_last_attempt_the_failure_stays_unknown(pauses):
    res = FakeResource([Answer("busy", 503), Answer("busy", 503), Answer("last", 503), {"metadata": {}}])
    obs = O.get_object(res, "np", namespace="clusters", attempts=3)
    assert obs["state"] == "unknown" and obs["query"]["attempts"] == 3 and "last" in obs["query"]["error"]
    assert len(res.gets) == 3 and pauses == [0.5, 1.5]


def test_a_503_then_a_404_is_absent_after_two_attempts(pauses):
    res = FakeResource([Answer("busy", 503), Answer("not found", 404), {"metadata": {"name": "np"}}])
    obs = O.get_object(res, "np", namespace="clusters", attempts=3)
    assert obs["state"] == "absent" and obs["query"]["attempts"] == 2 and pauses == [0.5]
    assert len(res.gets) == 2 and res.gets[0]["namespace"] == "clusters"


def test_a_list_after_a_lost_connection(pauses):
    lost = ProtocolError("Connection aborted.", ConnectionResetError())
    res = FakeResource([lost, {"items": [], "metadata": {"resourceVersion": "7"}}])
    obs = O.list_objects(res, "clusters", name="np", attempts=3)
    assert obs["ok"] and obs["items"] == [] and obs["resource_version"] == "7"
    assert obs["query"]["attempts"] == 2 and pauses == [0.5]


def test_a_list_that_keeps_failing_is_not_ok(pauses):
    res = FakeResource([Answer("busy", 503)] * 3)
    obs = O.list_objects(res, "clusters", name="np", attempts=3)
    assert not obs["ok"] and obs["items"] == [] and obs["query"]["attempts"] == 3 and not obs["query"]["ok"]


# ---- the pure helpers every read and record goes through

def test_kubernetes_times_are_epoch_seconds_and_none_stays_none():
    assert O.parse_k8s_time("1970-01-01T00:01:00Z") == 60.0
    assert O.parse_k8s_time("1970-01-01T00:01:00.5+00:00") == 60.5
    assert O.parse_k8s_time(None) is None and O.parse_k8s_time("not a time") is None


def test_a_query_record_says_ok_only_without_an_error_and_keeps_what_the_caller_adds():
    ok = O.query_record("get", 0, resource="v1/Pod")
    assert (ok["verb"], ok["started"], ok["ok"], ok["resource"]) == ("get", "1970-01-01T00:00:00.000Z", True, "v1/Pod")
    assert "error" not in ok and ok["finished"] >= ok["started"]
    failed = O.query_record("list", 0, error="timed out")
    assert (failed["ok"], failed["error"]) == (False, "timed out")


def test_to_dict_takes_the_clients_objects_and_plain_dicts():
    class ResourceInstance:
        def to_dict(self):
            return {"kind": "Pod"}
    assert O.to_dict(ResourceInstance()) == {"kind": "Pod"}
    assert O.to_dict({"kind": "Namespace"}) == {"kind": "Namespace"} and O.to_dict(None) is None


def test_a_list_and_its_watch_select_by_the_same_arguments():
    class Res:
        namespaced = True
    assert O.selector_kwargs(Res(), "ns", "a", "app=x", "status.phase=Running") == {
        "namespace": "ns", "field_selector": "metadata.name=a,status.phase=Running", "label_selector": "app=x"}
    assert O.selector_kwargs(Res(), None, None, None) == {}
    Res.namespaced = False  # a cluster-scoped kind ignores the namespace
    assert O.selector_kwargs(Res(), "ns", "a", None) == {"field_selector": "metadata.name=a"}


def test_the_summary_of_a_namespace_keeps_its_spec_finalizers_and_grace_period():
    ns = {"apiVersion": "v1", "kind": "Namespace",
          "metadata": {"name": "a", "uid": "u", "resourceVersion": "7", "deletionTimestamp": "2026-01-01T00:00:00Z",
                       "deletionGracePeriodSeconds": 0, "finalizers": ["x/y"]},
          "spec": {"finalizers": ["kubernetes"]},
          "status": {"conditions": [{"type": "NamespaceContentRemaining", "status": "True", "reason": "Some",
                                     "extra": "dropped"}]}}
    s = O.object_summary(ns)
    assert (s["name"], s["namespace"], s["uid"], s["resource_version"]) == ("a", None, "u", "7")
    assert (s["finalizers"], s["spec_finalizers"], s["deletion_grace_period_seconds"]) == (["x/y"], ["kubernetes"], 0)
    assert s["conditions"] == [{"type": "NamespaceContentRemaining", "status": "True", "reason": "Some"}]
    assert "grace_deadline" not in s


def test_the_summary_of_an_object_without_metadata_is_all_empty():
    s = O.object_summary({})
    assert (s["name"], s["finalizers"], s["conditions"]) == (None, [], [])


def test_owner_uids_skip_references_without_a_uid():
    obj = {"metadata": {"ownerReferences": [{"uid": "u1"}, {"kind": "X"}, {"uid": "u2"}]}}
    assert O.owner_uids(obj) == ["u1", "u2"] and O.owner_uids({}) == []
