# -*- coding: utf-8 -*-
"""drivers/entry.py: the one way a Kubernetes module runs its driver. The input is checked before any request,
the client is built once with the driver's caller name, a client that cannot be built fails the module unless the
driver chooses to go on without one (every read then unknown), and a TeardownGatesError out of the driver
becomes the module's failure with the queries sent so far."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import types

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import CLIENT_FAILED, TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.drivers import entry
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import READ_ATTEMPTS, ResourceLookupError


class Failed(Exception):
    pass


class Module:
    def __init__(self, check_mode=False):
        self.params = {"request_timeout": 7}
        self.check_mode = check_mode
        self.failed = None

    def fail_json(self, **kwargs):
        self.failed = kwargs
        raise Failed(kwargs["msg"])


def driver(**attrs):
    # a driver is any object with CALLER and run(); the optional hooks are added per test
    base = dict(CALLER="teardown.gates.test_module", run=lambda module, reads: None)
    base.update(attrs)
    return types.SimpleNamespace(**base)


@pytest.fixture
def calls(monkeypatch):
    seen = []

    def api_client(module, request_timeout=None, caller=None):
        seen.append(("api_client", request_timeout, caller))
        return "the client"
    monkeypatch.setattr(entry, "api_client", api_client)
    return seen


def test_the_reads_carry_the_client_timeout_check_mode_and_the_default_attempts(calls):
    got = []
    entry.run_k8s_module(Module(check_mode=True), driver(run=lambda m, reads: got.append(reads)))
    reads = got[0]
    assert calls == [("api_client", 7, "teardown.gates.test_module")]
    assert (reads.client, reads.request_timeout, reads.check_mode, reads.attempts, reads.unreachable) == (
        "the client", 7, True, READ_ATTEMPTS, None)


def test_a_driver_may_set_its_own_attempts(calls):
    got = []
    entry.run_k8s_module(Module(), driver(ATTEMPTS=1, run=lambda m, reads: got.append(reads.attempts)))
    assert got == [1]


def test_started_is_taken_before_the_client_is_built(monkeypatch):
    clock = iter([100.0, 200.0])
    monkeypatch.setattr(entry.time, "time", lambda: next(clock))
    monkeypatch.setattr(entry, "api_client", lambda module, **kw: "c")
    reads = entry.build_reads(Module(), driver())
    assert reads.started == 100.0


def test_check_runs_before_any_request(calls):
    def check(module):
        assert calls == []
        module.fail_json(msg="name is required")
    module = Module()
    with pytest.raises(Failed):
        entry.run_k8s_module(module, driver(check=check))
    assert calls == [] and module.failed == {"msg": "name is required"}


def test_a_client_lookup_failure_fails_the_module_when_the_driver_has_no_handler(monkeypatch):
    def api_client(module, **kw):
        raise ResourceLookupError("discovery timed out", unknown=True)
    monkeypatch.setattr(entry, "api_client", api_client)
    ran = []
    module = Module()
    with pytest.raises(Failed):
        entry.run_k8s_module(module, driver(run=lambda m, r: ran.append(r)))
    assert module.failed["msg"] == "discovery timed out" and ran == []


def test_a_driver_may_go_on_without_a_client_and_every_kind_is_then_unreachable(monkeypatch):
    err = ResourceLookupError("discovery timed out", unknown=True)

    def api_client(module, **kw):
        raise err
    monkeypatch.setattr(entry, "api_client", api_client)
    handled, got = [], []
    entry.run_k8s_module(Module(), driver(client_failed=lambda m, e, started=None: handled.append((e, started)),
                                          run=lambda m, reads: got.append(reads)))
    assert handled[0][0] is err and handled[0][1] is not None
    assert got[0].client is None and got[0].unreachable is err
    with pytest.raises(ResourceLookupError):
        got[0].resource("v1", "Namespace")


def test_an_unforeseen_client_crash_is_the_client_failed_message_after_the_drivers_hook(monkeypatch):
    def api_client(module, **kw):
        raise ValueError("bad kubeconfig")
    monkeypatch.setattr(entry, "api_client", api_client)
    hooked = []
    module = Module()
    with pytest.raises(Failed):
        entry.run_k8s_module(module, driver(client_crashed=lambda m, e, started=None: hooked.append(str(e))))
    assert hooked == ["bad kubeconfig"]
    assert module.failed["msg"] == CLIENT_FAILED + ": bad kubeconfig"
    assert "ValueError: bad kubeconfig" in module.failed["exception"]


def test_a_teardown_error_from_the_driver_fails_with_the_queries_sent(calls):
    def run(module, reads):
        reads.queries.append({"verb": "get", "ok": False})
        raise TeardownGatesError("HostedCluster clusters/a: no answer", unknown=True)
    module = Module()
    with pytest.raises(Failed):
        entry.run_k8s_module(module, driver(run=run))
    assert module.failed == {"msg": "HostedCluster clusters/a: no answer", "queries": [{"verb": "get", "ok": False}]}


def test_other_exceptions_from_the_driver_are_not_swallowed(calls):
    def run(module, reads):
        raise KeyError("a bug")
    with pytest.raises(KeyError):
        entry.run_k8s_module(Module(), driver(run=run))
