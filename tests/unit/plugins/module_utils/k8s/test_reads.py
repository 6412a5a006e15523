# -*- coding: utf-8 -*-
"""k8s_reads.KubeReads, the one Kubernetes read service, against fake resources (no network).

What it must hold: each read has one of three states (present, absent, unknown) and a failure is never
absent; a transient failure is tried again at most READ_ATTEMPTS times; every read sent leaves one query
record; and in check mode only get/list/watch reach the API: every write verb raises CheckModeWrite and
sends nothing, through the service's own methods and through the kinds it hands out.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import READ_ATTEMPTS, ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import ABSENT, PRESENT, UNKNOWN
from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import (
    WRITE_VERBS, CheckModeWrite, KubeReads)
from kube_answer_double import Answer


class Obj(dict):
    def to_dict(self):
        return dict(self)


class Listing(object):
    def __init__(self, items):
        self.items = items

    def to_dict(self):
        return {"items": [dict(i) for i in self.items], "metadata": {"resourceVersion": "9"}}


class Status(object):
    """A subresource (``resource.status``): it can patch too."""

    def __init__(self, calls):
        self.calls = calls

    def patch(self, **kwargs):
        self.calls.append(("status.patch", kwargs.get("name")))


class FakeResource(object):
    """A dynamic-client Resource: ``get`` answers from ``answers`` (an exception is raised), and every call,
    read or write, is recorded in ``calls`` so a test sees what reached the API."""

    namespaced = True
    kind = "Thing"
    group_version = "example.io/v1"

    def __init__(self, answers=None):
        self.answers = list(answers or [])
        self.calls = []
        self.status = Status(self.calls)

    def get(self, **kwargs):
        assert kwargs.get("_request_timeout"), "every read is bounded"
        self.calls.append(("get", kwargs.get("name"), kwargs.get("field_selector")))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def watch(self, **kwargs):
        self.calls.append(("watch", kwargs.get("namespace")))
        return iter(())

    def _write(self, verb, kwargs):
        self.calls.append((verb, kwargs.get("name")))
        return Obj({"metadata": {"name": kwargs.get("name"), "uid": "u1"}})

    def create(self, **kwargs):
        return self._write("create", kwargs)

    def patch(self, **kwargs):
        return self._write("patch", kwargs)

    def replace(self, **kwargs):
        return self._write("replace", kwargs)

    def delete(self, **kwargs):
        return self._write("delete", kwargs)

    def apply(self, **kwargs):
        return self._write("apply", kwargs)

    def server_side_apply(self, **kwargs):
        return self._write("server_side_apply", kwargs)


class RawAnswer(object):
    def __init__(self, doc):
        self.data = json.dumps(doc)

    def to_dict(self):
        return json.loads(self.data)


class RawClient(object):
    """The DynamicClient's raw ``request`` (``client.client``): discovery and lists answer from a small table,
    every request is recorded in the resource's ``calls``."""

    DOCS = {
        "/apis": {"groups": []},
        "/api/v1": {"resources": [{"name": "configmaps", "kind": "ConfigMap", "namespaced": True,
                                   "verbs": ["get", "list", "delete"]}]},
        "/api/v1/namespaces/ns/configmaps": {"items": [{"metadata": {"name": "c", "namespace": "ns", "uid": "c1"}}]},
    }

    def __init__(self, calls):
        self.calls = calls

    def request(self, method, path, **kwargs):
        assert kwargs.get("_request_timeout"), "every request is bounded"
        self.calls.append((method, path))
        if method == "get":
            return RawAnswer(self.DOCS[path])
        return RawAnswer(dict(kwargs.get("body") or {}, answered=True))


class FakeClient(object):
    """kubernetes.core's K8SClient as far as discovery goes: ``resource(kind, api_version)``."""

    def __init__(self, resource, lookups=None):
        self.res = resource
        self.lookups = list(lookups or [])
        self.discovered = 0
        self.client = RawClient(resource.calls)

    def resource(self, kind, api_version):
        self.discovered += 1
        if self.lookups:
            raise self.lookups.pop(0)
        return self.res


def service(answers=None, check_mode=False, lookups=None):
    res = FakeResource(answers)
    client = FakeClient(res, lookups)
    pauses = []
    return KubeReads(client, 5, check_mode=check_mode, sleep=pauses.append), res, client, pauses


AV = "example.io/v1"
THING = {"metadata": {"name": "a", "namespace": "ns", "uid": "u1"}}


# -- the three states ------------------------------------------------------------------------------------
def test_a_get_that_answers_is_present():
    reads, res, dummy, dummy2 = service([Obj(THING)])
    obs = reads.get(AV, "Thing", "a", "ns")
    assert obs["state"] == PRESENT and obs["object"] == THING and obs["exception"] is None


def test_only_a_404_is_absent():
    reads, res, dummy, dummy2 = service([Answer("Not Found", 404)])
    obs = reads.get(AV, "Thing", "a", "ns")
    assert obs["state"] == ABSENT and obs["object"] is None and obs["query"]["status"] == 404


@pytest.mark.parametrize("failure", [Answer("forbidden", 403), Answer("conflict", 409), Answer("timed out")])
def test_any_other_failure_is_unknown_never_absent(failure):
    reads, res, dummy, dummy2 = service([failure, Obj(THING)])
    obs = reads.get(AV, "Thing", "a", "ns")
    assert obs["state"] == UNKNOWN and obs["exception"] is failure and obs["query"]["ok"] is False
    assert len(res.calls) == 1, "a refusal or no answer is not tried again"


def test_a_list_is_present_when_it_answers_and_unknown_when_it_does_not():
    reads, dummy, dummy2, dummy3 = service([Listing([THING]), Answer("forbidden", 403)])
    answered = reads.list(AV, "Thing", "ns")
    assert answered["state"] == PRESENT and answered["items"][0]["metadata"]["name"] == "a"
    failed = reads.list(AV, "Thing", "ns")
    assert failed["state"] == UNKNOWN and failed["items"] == [] and failed["query"]["status"] == 403


def test_presence_by_listing_an_empty_answer_is_absent_a_failed_one_unknown():
    reads, res, dummy, dummy2 = service([Listing([THING]), Listing([]), Answer("Not Found", 404)])
    assert reads.find(AV, "Thing", "a", "ns")["state"] == PRESENT
    assert reads.find(AV, "Thing", "a", "ns")["state"] == ABSENT
    # a list answered 404 says the kind is not served, not that the object is gone
    assert reads.find(AV, "Thing", "a", "ns")["state"] == UNKNOWN
    assert [c[2] for c in res.calls] == ["metadata.name=a"] * 3


def test_a_field_selector_joins_the_name():
    reads, res, dummy, dummy2 = service([Listing([])])
    reads.list(AV, "Thing", "ns", name="a", field_selector="status.phase=Running")
    assert res.calls[0][2] == "metadata.name=a,status.phase=Running"


# -- the retry bound -------------------------------------------------------------------------------------
def test_a_transient_failure_is_read_again_after_a_pause():
    reads, res, dummy, pauses = service([Answer("busy", 503), Obj(THING)])
    obs = reads.get(AV, "Thing", "a", "ns")
    assert obs["state"] == PRESENT and len(res.calls) == 2 and pauses == [0.5]
    assert obs["query"]["attempts"] == 2


def test_tries_are_bounded_and_what_still_fails_is_unknown():
    reads, res, dummy, pauses = service([Answer("busy", 503)] * (READ_ATTEMPTS + 1))
    obs = reads.get(AV, "Thing", "a", "ns")
    assert obs["state"] == UNKNOWN and len(res.calls) == READ_ATTEMPTS == 3 and pauses == [0.5, 1.5]
    assert obs["query"]["attempts"] == READ_ATTEMPTS and "503" in obs["query"]["error"]


def test_discovery_is_asked_once_per_kind_and_its_transient_failure_retried():
    reads, dummy, client, pauses = service([Obj(THING), Obj(THING)], lookups=[Answer("busy", 503)])
    reads.get(AV, "Thing", "a", "ns")
    reads.get(AV, "Thing", "a", "ns")
    assert client.discovered == 2 and pauses == [0.5]  # one failed try, one answer, then the cache


def test_a_kind_not_served_is_not_served_and_a_silent_discovery_unknown():
    try:
        from kubernetes.dynamic.exceptions import ResourceNotFoundError
    except ImportError:  # pragma: no cover
        ResourceNotFoundError = LookupError
    missing = ResourceNotFoundError("no kind Thing")
    reads, dummy, client, dummy2 = service(lookups=[missing])
    assert reads.served(AV, "Thing") is None
    reads, dummy, client, dummy2 = service(lookups=[Answer("timed out")])
    with pytest.raises(ResourceLookupError) as e:
        reads.served(AV, "Thing")
    assert e.value.unknown is True and isinstance(e.value, TeardownGatesError) and str(e.value.cause) == "timed out"


# -- the query records -----------------------------------------------------------------------------------
def test_every_read_sent_leaves_one_record_in_order_with_what_it_was():
    reads, dummy, dummy2, dummy3 = service([Obj(THING), Answer("forbidden", 403), Listing([])])
    reads.get(AV, "Thing", "a", "ns", what="Thing ns/a")
    reads.get(AV, "Thing", "b", "ns")
    reads.list(AV, "Thing", "ns", what="Things in ns")
    verbs = [(q["verb"], q["ok"], q.get("what")) for q in reads.queries]
    assert verbs == [("get", True, "Thing ns/a"), ("get", False, None), ("list", True, "Things in ns")]
    assert all(q["started"] <= q["finished"] for q in reads.queries)
    assert reads.queries[1]["error"].startswith("HTTP 403")


def test_a_kind_that_cannot_be_found_sends_no_read_and_leaves_no_record():
    reads, res, dummy, dummy2 = service(lookups=[Answer("forbidden", 403)])
    with pytest.raises(ResourceLookupError):
        reads.get(AV, "Thing", "a", "ns")
    assert reads.queries == [] and res.calls == []


# -- the check-mode guard --------------------------------------------------------------------------------
def _writes_through_the_service(reads):
    """Each write the service offers, as a module calls it."""
    return {
        "delete": lambda: reads.delete(AV, "Thing", "a", "ns", uid="u1"),
        "patch": lambda: reads.patch(AV, "Thing", "a", [{"op": "test", "path": "/metadata/uid", "value": "u1"}], "ns"),
        "annotate": lambda: reads.annotate(AV, "Thing", "a", "ns", "u1", "example.io/k", "v"),
        "remove_finalizers": lambda: reads.remove_finalizers(AV, "Thing", "a", "ns", "u1", ["example.io/f"]),
        "finalize_namespace": lambda: reads.finalize_namespace("ns", {"metadata": {"name": "ns"},
                                                                      "spec": {"finalizers": []}}),
    }


@pytest.mark.parametrize("write", sorted(_writes_through_the_service(None)))
def test_check_mode_refuses_every_write_of_the_service_and_sends_nothing(write):
    reads, res, client, dummy = service([Obj(THING)] * 3, check_mode=True)
    with pytest.raises(CheckModeWrite) as e:
        _writes_through_the_service(reads)[write]()
    assert isinstance(e.value, TeardownGatesError)
    assert res.calls == [] and reads.queries == [], "a refused write sends nothing, not even its read"


@pytest.mark.parametrize("verb", WRITE_VERBS)
def test_check_mode_refuses_every_write_verb_of_a_kind_it_hands_out(verb):
    reads, res, dummy, dummy2 = service(check_mode=True)
    with pytest.raises(CheckModeWrite):
        getattr(reads.resource(AV, "Thing"), verb)(name="a", namespace="ns", body={})
    assert res.calls == []


def test_check_mode_refuses_a_subresource_write_too():
    reads, res, dummy, dummy2 = service(check_mode=True)
    with pytest.raises(CheckModeWrite):
        reads.resource(AV, "Thing").status.patch(name="a", namespace="ns", body={})
    assert res.calls == []


def test_check_mode_lets_get_list_and_watch_through():
    reads, res, dummy, dummy2 = service([Obj(THING), Listing([THING]), Listing([THING])], check_mode=True)
    assert reads.get(AV, "Thing", "a", "ns")["state"] == PRESENT
    assert reads.list(AV, "Thing", "ns")["state"] == PRESENT
    assert reads.find(AV, "Thing", "a", "ns")["state"] == PRESENT
    list(reads.resource(AV, "Thing").watch(namespace="ns"))
    assert [c[0] for c in res.calls] == ["get", "get", "get", "watch"]


def test_outside_check_mode_the_writes_are_sent():
    reads, res, dummy, dummy2 = service([Obj(THING)] * 4, check_mode=False)
    assert reads.delete(AV, "Thing", "a", "ns", uid="u1")["state"] == "deleted"
    reads.patch(AV, "Thing", "a", [], "ns")
    assert reads.annotate(AV, "Thing", "a", "ns", "u1", "example.io/k", "v") == {"state": "done"}
    for verb in WRITE_VERBS:
        getattr(reads.resource(AV, "Thing"), verb)(name="a")
    assert [c[0] for c in res.calls if c[0] != "get"] == ["delete", "patch", "patch"] + list(WRITE_VERBS)


def test_a_recreated_object_is_not_annotated():
    reads, res, dummy, dummy2 = service([Obj(dict(THING, metadata=dict(THING["metadata"], uid="u2")))])
    r = reads.annotate(AV, "Thing", "a", "ns", "u1", "example.io/k", "v")
    assert r["state"] == "refused" and "recreated" in r["error"]
    assert [c[0] for c in res.calls] == ["get"]


def test_check_mode_lets_the_namespace_contents_listing_through_gets_only():
    reads, res, dummy, dummy2 = service(check_mode=True)
    contents = reads.contents("ns")
    assert contents["ok"] and [i["name"] for i in contents["items"]] == ["c"]
    assert set(c[0] for c in res.calls) == {"get"}


def test_outside_check_mode_the_namespace_finalize_is_one_put():
    reads, res, dummy, dummy2 = service(check_mode=False)
    answer = reads.finalize_namespace("ns", {"metadata": {"name": "ns"}, "spec": {"finalizers": []}})
    assert answer["answered"] and res.calls == [("put", "/api/v1/namespaces/ns/finalize")]


def test_without_a_client_every_kind_and_listing_is_the_client_error_never_absent():
    err = ResourceLookupError("the API server did not answer", unknown=True)
    reads = KubeReads(None, 5, unreachable=err)
    with pytest.raises(ResourceLookupError) as e:
        reads.get(AV, "Thing", "a", "ns")
    assert e.value is err
    with pytest.raises(ResourceLookupError):
        reads.contents("ns")
    assert reads.queries == []


def test_an_access_review_is_the_one_create_sent_in_check_mode_and_it_asks_only():
    reads, res, dummy, dummy2 = service(check_mode=True)
    sent = []

    def create(**kwargs):
        sent.append(kwargs["body"])
        assert kwargs.get("_request_timeout"), "every request is bounded"
        return Obj({"status": {"allowed": True}})
    res.create = create
    out = reads.review_access({"verb": "delete", "group": "core.convoy.kumodo.io", "resource": "releases",
                               "namespace": "team-a", "name": None})
    assert out["allowed"] is True and out["query"]["verb"] == "create selfsubjectaccessreviews"
    assert sent == [{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                     "spec": {"resourceAttributes": {"verb": "delete", "group": "core.convoy.kumodo.io",
                                                     "resource": "releases", "namespace": "team-a"}}}]
    assert reads.queries[-1]["verb"] == "create selfsubjectaccessreviews"


def test_an_access_review_denied_or_unanswered_is_never_allowed():
    reads, res, dummy, dummy2 = service(check_mode=True)
    res.create = lambda **kw: Obj({"status": {"allowed": False, "reason": "no RBAC policy matched"}})
    assert reads.review_access({"verb": "get", "resource": "namespaces"}) == {
        "allowed": False, "reason": "no RBAC policy matched", "query": reads.queries[-1]}

    def silent(**kw):
        raise RuntimeError("connection reset")
    res.create = silent
    assert reads.review_access({"verb": "get", "resource": "namespaces"})["allowed"] is None


def test_check_mode_still_refuses_a_create_of_the_review_kind_through_resource():
    from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import ACCESS_REVIEW
    reads, res, dummy, dummy2 = service(check_mode=True)
    with pytest.raises(CheckModeWrite):
        reads.resource(*ACCESS_REVIEW).create(body={})
    assert res.calls == []


# -- access reviews, a few at a time ----------------------------------------------------------------------
def _review(verb):
    return {"verb": verb, "group": "", "resource": "pods", "namespace": "ns", "name": None}


def test_reviews_go_a_few_at_a_time_and_come_back_in_the_order_asked():
    import threading
    import time as _time
    from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import REVIEW_WORKERS
    reads, res, client, dummy = service(check_mode=True)
    lock, state = threading.Lock(), {"now": 0, "most": 0}
    verbs = ["v%d" % i for i in range(10)]

    def create(**kwargs):
        assert kwargs.get("_request_timeout"), "every review is bounded"
        verb = kwargs["body"]["spec"]["resourceAttributes"]["verb"]
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        _time.sleep(0.05 * (10 - int(verb[1:])) / 10.0)  # the first asked answers last
        with lock:
            state["now"] -= 1
        return Obj({"status": {"allowed": verb != "v3", "reason": verb}})
    res.create = create
    got = reads.review_access_all([(_review(v), "what " + v) for v in verbs])
    assert [g["reason"] for g in got] == verbs and [g["allowed"] for g in got] == [v != "v3" for v in verbs]
    assert [q["what"] for q in reads.queries] == ["what " + v for v in verbs]  # recorded in the order asked
    assert 1 < state["most"] <= REVIEW_WORKERS == 4  # concurrent, and bounded
    assert client.discovered == 1  # the kind is discovered once, before the reviews


def test_each_review_of_many_is_still_retried_and_an_unanswered_one_unknown():
    reads, res, dummy, pauses = service(check_mode=True)
    tries = {}

    def create(**kwargs):
        verb = kwargs["body"]["spec"]["resourceAttributes"]["verb"]
        tries[verb] = tries.get(verb, 0) + 1
        if verb == "busy" and tries[verb] == 1:
            raise Answer("busy", 503)
        if verb == "silent":
            raise Answer("busy", 503)
        return Obj({"status": {"allowed": True}})
    res.create = create
    got = reads.review_access_all([(_review(v), None) for v in ("get", "busy", "silent", "list")])
    assert [g["allowed"] for g in got] == [True, True, None, True]
    assert tries == {"get": 1, "busy": 2, "silent": READ_ATTEMPTS, "list": 1}
    assert sorted(pauses) == [0.5, 0.5, 1.5]


def test_no_review_asked_sends_nothing_and_a_kind_not_found_raises_before_any():
    reads, res, client, dummy = service(check_mode=True)
    assert reads.review_access_all([]) == [] and client.discovered == 0
    reads, res, client, dummy = service(check_mode=True, lookups=[Answer("Not Found", 404)])
    res.create = lambda **kw: pytest.fail("no review without its kind")
    with pytest.raises(ResourceLookupError):
        reads.review_access_all([(_review("get"), None)])
    assert reads.queries == []


class LostRace(Exception):
    """The API server's answer to a JSON patch whose `test` failed."""
    status = 422
    body = "the server rejected our request due to an error in our request"


def test_an_annotation_whose_patch_lost_a_race_is_read_and_sent_again():
    class Racing(FakeResource):
        def __init__(self, answers):
            FakeResource.__init__(self, answers)
            self.bodies = []

        def patch(self, **kwargs):
            self.bodies.append(kwargs["body"])
            if len(self.bodies) == 1:
                raise LostRace("test failed")
            return self._write("patch", kwargs)

    res = Racing([Obj(dict(THING, metadata=dict(THING["metadata"], resourceVersion="7"))),
                  Obj(dict(THING, metadata=dict(THING["metadata"], resourceVersion="8", annotations={"theirs": "x"})))])
    reads = KubeReads(FakeClient(res), 5, check_mode=False, sleep=lambda s: None)
    assert reads.annotate(AV, "Thing", "a", "ns", "u1", "example.io/k", "v") == {"state": "done"}
    assert [c[0] for c in res.calls] == ["get", "get", "patch"]
    assert {"op": "test", "path": "/metadata/resourceVersion", "value": "7"} in res.bodies[0]
    assert res.bodies[1][1] == {"op": "add", "path": "/metadata/annotations/example.io~1k", "value": "v"}


def test_an_annotation_that_keeps_losing_is_refused_after_its_attempts():
    class AlwaysLosing(FakeResource):
        def patch(self, **kwargs):
            self.calls.append(("patch", kwargs.get("name")))
            raise LostRace("test failed")

    res = AlwaysLosing([Obj(THING)] * 3)
    reads = KubeReads(FakeClient(res), 5, check_mode=False, sleep=lambda s: None)
    r = reads.annotate(AV, "Thing", "a", "ns", "u1", "example.io/k", "v")
    assert r["state"] == "refused"
    assert [c[0] for c in res.calls] == ["get", "patch"] * 3
