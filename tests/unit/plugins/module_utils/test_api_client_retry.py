# -*- coding: utf-8 -*-
# api_client: a transient answer while the client is built (discovery) is tried again, a bounded
# number of times; a refusal or a TLS fault is not; what still fails is "unknown", never absent.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.kubernetes.core.plugins.module_utils.k8s import client as core_client
from ansible_collections.teardown.gates.plugins.module_utils.k8s import client as C


class Answer(Exception):
    def __init__(self, text, status=None):
        super(Answer, self).__init__(text)
        self.status = status


def _server(monkeypatch, failures):
    calls = []

    def fake_get_api_client(module=None, **auth):
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return object()

    monkeypatch.setattr(core_client, "get_api_client", fake_get_api_client)
    monkeypatch.setattr(C, "disable_retries", lambda c: True)
    monkeypatch.setattr(C.time, "sleep", lambda s: None)
    return calls


@pytest.mark.parametrize("first", [Answer("Connection aborted: RemoteDisconnected"), Answer("busy", 503),
                                   Answer("slow down", 429)])
def test_a_transient_failure_while_building_the_client_is_tried_again(monkeypatch, first):
    calls = _server(monkeypatch, [first])
    assert C.api_client() is not None and len(calls) == 2


def test_retries_are_bounded_and_the_result_is_unknown(monkeypatch):
    calls = _server(monkeypatch, [Answer("busy", 503)] * 5)
    with pytest.raises(C.ResourceLookupError) as e:
        C.api_client()
    assert e.value.unknown and len(calls) == C.CLIENT_ATTEMPTS


@pytest.mark.parametrize("fault", [Answer("forbidden", 403), Answer("SSLError(CERTIFICATE_VERIFY_FAILED)")])
def test_refusals_and_tls_faults_are_not_retried(monkeypatch, fault):
    calls = _server(monkeypatch, [fault])
    with pytest.raises(C.ResourceLookupError):
        C.api_client()
    assert len(calls) == 1
