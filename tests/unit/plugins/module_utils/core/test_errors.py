# -*- coding: utf-8 -*-
"""core/errors.py: the base error's attributes, and fail_from as the one path from an error to fail_json (#32).
Split out of tests/unit/test_errors.py, which keeps the walk over plugins/."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.core import errors
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError, fail_from, \
    failure_message


def test_attributes_default_and_set():
    e = TeardownGatesError("boom")
    assert (str(e), e.unknown, e.partial, e.inspect) == ("boom", False, None, None)
    e = TeardownGatesError("boom", unknown=1, partial={"a": 1}, inspect="the namespace's events")
    assert (e.unknown, e.partial, e.inspect) == (True, {"a": 1}, "the namespace's events")
    with pytest.raises(TypeError):
        TeardownGatesError("boom", unkown=True)  # pylint: disable=pointless-exception-statement


class FakeModule:
    def __init__(self):
        self.failed = None

    def fail_json(self, **kwargs):
        self.failed = kwargs
        raise SystemExit(1)


def test_fail_from_names_what_failed_and_returns_partial_and_extra():
    m = FakeModule()
    err = TeardownGatesError("no answer in 10 s", unknown=True, partial={"state": "unknown", "gates": []},
                             inspect="the API server's health")
    with pytest.raises(SystemExit):
        fail_from(m, err, what="read HostedCluster clusters/a", then="nothing was changed", gates=["x"])
    assert m.failed == dict(msg="read HostedCluster clusters/a: no answer in 10 s; nothing was changed; "
                                "inspect: the API server's health", state="unknown", gates=["x"])


def test_fail_from_is_the_plain_message_without_what_or_inspect():
    m = FakeModule()
    with pytest.raises(SystemExit):
        fail_from(m, TeardownGatesError("stack s: DeleteStack failed"), changed=False)
    assert m.failed == dict(msg="stack s: DeleteStack failed", changed=False)
    assert failure_message(TeardownGatesError("x"), what="kind") == "kind: x"


def test_fail_from_an_unforeseen_exception_returns_its_traceback():
    m = FakeModule()
    try:
        raise ValueError("bad host")
    except ValueError as e:
        with pytest.raises(SystemExit):
            fail_from(m, e, what="could not create the API client")
    assert m.failed["msg"] == "could not create the API client: bad host"
    assert "ValueError: bad host" in m.failed["exception"]
    assert sorted(m.failed) == ["exception", "msg"]


def test_partial_cannot_replace_msg():
    m = FakeModule()
    with pytest.raises(SystemExit):
        fail_from(m, errors.TeardownGatesError("real", partial={"msg": "not this", "k": 1}))
    assert m.failed == dict(msg="real", k=1)
