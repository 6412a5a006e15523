# -*- coding: utf-8 -*-
"""drivers/wait_gate.py: the wait_gate module's rules as plain functions (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.drivers import wait_gate as W
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError


def params(**kw):
    selector = {"api_version": "v1", "kind": "Pod", "namespace": "ns", "name": None, "label_selector": "app=x"}
    p = dict(gates=[{"name": "g", "resources": [selector], "until": "absent"}],
             timeout=60, request_timeout=10.0, stall_after=None, progress_file=None, delete=None)
    p.update(kw)
    return p


def test_delete_failed_derives_from_the_one_base():
    assert issubclass(W.DeleteFailed, TeardownGatesError)


def test_a_selector_loses_its_unset_keys():
    gates = W.gates_of(params())
    assert gates[0]["resources"] == [{"api_version": "v1", "kind": "Pod", "namespace": "ns", "label_selector": "app=x"}]


def test_the_input_rules_name_the_option():
    p = params(request_timeout=0, stall_after=-1)
    errors = W.validate(p, W.gates_of(p))
    assert "request_timeout: must be more than 0 seconds" in errors
    assert "stall_after: must be more than 0 seconds, got -1" in errors
    assert W.validate(params(), W.gates_of(params())) == []


def test_every_gate_gets_a_row_when_none_was_evaluated():
    gates = W.gates_of(params())
    assert W.not_evaluated(gates, "unknown") == [{"name": "g", "until": "absent", "state": "unknown"}]


def test_the_progress_file_is_the_option_else_one_per_process_in_the_folder():
    assert W.progress_path(params(progress_file="/tmp/p.json"), {}, 7) == "/tmp/p.json"
    assert W.progress_path(params(), {"TEARDOWN_GATES_PROGRESS_DIR": "/run/x"}, 7) == "/run/x/wait_gate-7.json"
    assert W.progress_path(params(), {}, 7) is None


def test_an_unknown_gate_says_absence_is_not_proven():
    msg, hints = W.failure({"name": "g", "state": "unknown", "duration": 3.0,
                            "unknown_selectors": [{"kind": "Pod", "label_selector": "app=x", "error": "timeout"}]})
    assert msg.startswith("gate 'g': state unknown after 3.0 s") and "absence is not proven" in msg
    assert hints and "Inspect next: " in msg


def test_a_timed_out_gate_names_what_holds_it():
    res = {"name": "g", "state": "timeout", "duration": 60.0,
           "remaining": [{"api_version": "v1", "kind": "Pod", "namespace": "ns", "name": "p", "uid": "u",
                          "finalizers": ["example.com/f"]}]}
    msg, hints = W.failure(res)
    assert "gate 'g': timeout after 60.0 s; 1 object(s) hold it: " in msg and "example.com/f" in msg
    assert res["remaining"][0]["kind_label"] and "inspect_next" in res["remaining"][0]
