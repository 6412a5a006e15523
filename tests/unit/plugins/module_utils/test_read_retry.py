# -*- coding: utf-8 -*-
# retry_read: a read (GET/LIST) that meets a transient failure (429, 5xx, a connection lost on the way) is
# tried again a bounded number of times with a growing pause; a refusal, a missing kind, a TLS fault or a
# timeout is not; what still fails is raised, and the convoy planning reads record it as unknown, never absent.
# A concern test of k8s/client.py's retry_read through k8s/reads.py's KubeReads into drivers/convoy_release_info.py.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from urllib3.exceptions import NewConnectionError, ProtocolError, ReadTimeoutError

from ansible_collections.teardown.gates.plugins.module_utils.k8s import client as C
from ansible_collections.teardown.gates.plugins.module_utils.owners.convoy import ABSENT, PRESENT, UNKNOWN
from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import KubeReads
from ansible_collections.teardown.gates.plugins.module_utils.drivers import convoy_release_info
from kube_answer_double import Answer


def _reads(answers):
    """A read that raises (or returns) the next of ``answers`` each time; records how often it ran."""
    calls = []

    def read():
        calls.append(1)
        a = answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a
    return read, calls


@pytest.mark.parametrize("first", [Answer("busy", 503), Answer("slow down", 429), Answer("bad gateway", 502),
                                   Answer("internal", 500), ProtocolError("Connection aborted.", ConnectionResetError()),
                                   ConnectionResetError("reset by peer"), NewConnectionError(None, "refused")])
def test_a_transient_failure_is_tried_again_after_a_pause(first):
    read, calls = _reads([first, "answer"])
    pauses = []
    assert C.retry_read(read, sleep=pauses.append) == ("answer", 1)
    assert len(calls) == 2 and pauses == [0.5]


def test_tries_are_bounded_the_pause_grows_and_the_last_failure_is_raised():
    last = Answer("still busy", 503)
    read, calls = _reads([Answer("busy", 503), Answer("busy", 429), last, "never reached"])
    pauses = []
    with pytest.raises(Answer) as e:
        C.retry_read(read, sleep=pauses.append)
    assert e.value is last and len(calls) == C.READ_ATTEMPTS == 3
    assert pauses == [0.5, 1.5]


@pytest.mark.parametrize("fault", [Answer("forbidden", 403), Answer("not found", 404), Answer("conflict", 409),
                                   Answer("SSLError(CERTIFICATE_VERIFY_FAILED)"), LookupError("kind not served"),
                                   ReadTimeoutError(None, "/apis", "read timed out")])
def test_refusals_missing_kinds_tls_faults_and_timeouts_are_not_tried_again(fault):
    read, calls = _reads([fault, "answer"])
    pauses = []
    with pytest.raises(type(fault)):
        C.retry_read(read, sleep=pauses.append)
    assert len(calls) == 1 and pauses == []


def test_an_answer_at_once_is_not_a_retry():
    read, calls = _reads(["answer"])
    assert C.retry_read(read, sleep=lambda s: pytest.fail("no pause")) == ("answer", 0)


class _Items(object):
    def __init__(self, items):
        self.items = items

    def to_dict(self):
        return {"items": [dict(i) for i in self.items]}


class _Resource(object):
    namespaced = True
    kind = "Release"

    def __init__(self, answers):
        self.answers = answers
        self.calls = 0

    def get(self, **params):
        self.calls += 1
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return _Items(a)


class _Client(object):
    def __init__(self, resource):
        self.res = resource

    def resource(self, kind, api_version):
        return self.res


class _Planning(object):
    """convoy_release_info's reads of one run: the service and what they leave to report."""

    def __init__(self, answers):
        self.res = _Resource(answers)
        self.reads = KubeReads(_Client(self.res), 5, sleep=lambda s: None)
        self.record = convoy_release_info.new_record()

    def get(self, *args):
        return convoy_release_info.presence(self.reads, self.record, *args)


def test_planning_read_answers_after_a_503_and_says_it_was_retried():
    run = _Planning([Answer("busy", 503), [{"metadata": {"name": "r1"}}]])
    obs = run.get("core.convoy.kumodo.io/v1alpha1", "Release", "r1", "ns")
    assert obs["state"] == PRESENT and run.res.calls == 2
    assert run.record["unknown"] == [] and [r["retries"] for r in run.record["retried"]] == [1]
    assert run.record["retried"][0]["what"] == \
        "list core.convoy.kumodo.io/v1alpha1 Release in ns (metadata.name=r1)"


def test_planning_read_that_keeps_failing_is_unknown_never_absent():
    run = _Planning([Answer("busy", 503)] * 3 + [[]])
    obs = run.get("core.convoy.kumodo.io/v1alpha1", "Release", "r1", "ns")
    assert obs["state"] == UNKNOWN and obs["state"] != ABSENT and run.res.calls == 3
    assert len(run.record["unknown"]) == 1 and "503" in run.record["unknown"][0]["error"]
    # worded as convoy_release_info words an API error: status, reason
    assert run.record["unknown"][0]["error"].startswith("503 busy") and obs["error"] == run.record["unknown"][0]["error"]


def test_planning_read_refused_is_unknown_at_once():
    run = _Planning([Answer("forbidden", 403), []])
    assert run.get("core.convoy.kumodo.io/v1alpha1", "Release", "r1", "ns")["state"] == UNKNOWN
    assert run.res.calls == 1 and run.record["retried"] == []


def test_an_empty_successful_list_after_a_retry_proves_absence():
    run = _Planning([ProtocolError("Connection aborted.", ConnectionResetError()), []])
    assert run.get("core.convoy.kumodo.io/v1alpha1", "Release", "r1", "ns")["state"] == ABSENT
    assert run.res.calls == 2
