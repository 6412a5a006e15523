"""k8s/client.py: a 403 names the permission the credentials lack (verb, resource with its group, namespace);
api_client tries a transient answer while the client is built (discovery) again, a bounded number of times, a
refusal or a TLS fault not; what still fails is "unknown", never absent (moved from test_api_client_retry.py)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import threading

import pytest

from ansible_collections.kubernetes.core.plugins.module_utils.k8s import client as core_client
from ansible_collections.teardown.gates.plugins.module_utils.k8s import client as C
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import error_text, missing_permission


class FakeApiError(Exception):
    def __init__(self, status, message):
        super().__init__("(%s)\nReason: Forbidden\nHTTP response headers: {'Audit-Id': 'x'}" % status)
        self.status = status
        self.reason = "Forbidden" if status == 403 else "Other"
        self.body = json.dumps({"kind": "Status", "status": "Failure", "reason": "Forbidden", "code": status,
                                "message": message})


def test_namespaced_resource_of_a_group():
    e = FakeApiError(403, 'releases.core.convoy.kumodo.io "a" is forbidden: User "system:serviceaccount:s:p" '
                          'cannot delete resource "releases" in API group "core.convoy.kumodo.io" in the namespace "team-a"')
    assert missing_permission(e) == "missing permission: delete releases.core.convoy.kumodo.io in namespace team-a"


def test_core_group_subresource():
    e = FakeApiError(403, 'namespaces "x" is forbidden: User "u" cannot update resource "namespaces/finalize" '
                          'in API group "" in the namespace "x"')
    assert missing_permission(e) == "missing permission: update namespaces/finalize in namespace x"


def test_cluster_scope():
    e = FakeApiError(403, 'customresourcedefinitions.apiextensions.k8s.io "t" is forbidden: User "u" cannot get '
                          'resource "customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope')
    assert missing_permission(e) == ("missing permission: get customresourcedefinitions.apiextensions.k8s.io "
                                     "cluster-wide")


def test_bytes_body_and_unparsable_message():
    e = FakeApiError(403, "forbidden by a webhook")
    e.body = e.body.encode()
    assert missing_permission(e).startswith("missing permission (403 Forbidden")


def test_not_a_403():
    assert missing_permission(FakeApiError(404, "not found")) is None
    assert missing_permission(ValueError("x")) is None


def test_error_text_carries_the_permission_and_the_servers_words():
    e = FakeApiError(403, 'User "u" cannot watch resource "releases" in API group "core.convoy.kumodo.io" '
                          'in the namespace "n"')
    text = error_text(e)
    assert text.startswith("HTTP 403: missing permission: watch releases.core.convoy.kumodo.io in namespace n (")
    assert "Audit-Id" not in text


# ---- api_client

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


# ---- the address a message names

KUBECONFIG = """
apiVersion: v1
kind: Config
current-context: lane3
contexts:
- name: lane3
  context: {cluster: sandbox-3, user: admin}
- name: other
  context: {cluster: sandbox-9, user: admin}
clusters:
- name: sandbox-3
  cluster: {server: "https://127.0.0.1:27443"}
- name: sandbox-9
  cluster: {server: "https://10.9.9.9:6443"}
users:
- name: admin
  user: {token: t}
"""


def test_the_address_is_the_kubeconfig_s_context_server_not_the_library_default(tmp_path):
    kc = tmp_path / "kubeconfig"
    kc.write_text(KUBECONFIG)
    assert C.kubeconfig_server(environ={"KUBECONFIG": str(kc)}) == "https://127.0.0.1:27443"
    assert C.kubeconfig_server(environ={"K8S_AUTH_KUBECONFIG": str(kc), "K8S_AUTH_CONTEXT": "other"}) == \
        "https://10.9.9.9:6443"
    assert C.kubeconfig_server(str(kc), "other", environ={}) == "https://10.9.9.9:6443"
    assert C.kubeconfig_server(environ={"KUBECONFIG": str(tmp_path / "none")}) is None
    assert C.kubeconfig_server(str(kc), "no-such-context", environ={}) is None


def test_a_client_that_never_finishes_names_the_kubeconfig_s_server(monkeypatch, tmp_path):
    # kubernetes' default configuration says http://localhost until a kubeconfig is loaded: a message must not
    kc = tmp_path / "kubeconfig"
    kc.write_text(KUBECONFIG)
    monkeypatch.setenv("KUBECONFIG", str(kc))
    monkeypatch.delenv("K8S_AUTH_KUBECONFIG", raising=False)
    monkeypatch.delenv("K8S_AUTH_CONTEXT", raising=False)
    release = threading.Event()
    monkeypatch.setattr(C, "_build_client", lambda module, auth: release.wait(30))
    monkeypatch.setattr(C, "client_bound", lambda rt: 0.2)
    try:
        with pytest.raises(C.ResourceLookupError) as e:
            C.api_client(None, request_timeout=1)
    finally:
        release.set()
    assert "https://127.0.0.1:27443" in str(e.value) and "localhost" not in str(e.value)


def test_in_a_pod_without_a_kubeconfig_the_address_is_the_in_cluster_one(monkeypatch, tmp_path):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "none"))
    monkeypatch.delenv("K8S_AUTH_KUBECONFIG", raising=False)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    assert C._endpoint(None, {}) == "https://10.96.0.1:443"
    assert C._endpoint(None, {"host": "https://api.example:6443"}) == "https://api.example:6443"


def test_the_client_s_imports_happen_before_its_clock_starts(monkeypatch):
    order = []
    monkeypatch.setattr(C, "_import_client", lambda: order.append("import"))
    monkeypatch.setattr(C, "_build_client", lambda module, auth: order.append("build") or object())
    monkeypatch.setattr(C, "bound_requests", lambda client, rt, caller: None)
    C.api_client(None, request_timeout=1)
    assert order == ["import", "build"]
