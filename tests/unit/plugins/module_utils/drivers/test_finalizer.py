# -*- coding: utf-8 -*-
"""drivers/finalizer.py: the finalizer module's rules as plain functions (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.drivers import finalizer as F
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError


def params(**kw):
    p = dict(state="absent", finalizer=["example.com/f"], api_version="v1", kind="ConfigMap", name="x",
             namespace="default", only_if_deleting=None, expected_uid=None, scope="metadata", retries=5,
             request_timeout=10.0)
    p.update(kw)
    return p


def obj(finalizers=None, deleting=False, uid="u1", spec_finalizers=None):
    meta = {"name": "x", "namespace": "default", "uid": uid, "resourceVersion": "7",
            "finalizers": list(finalizers or [])}
    if deleting:
        meta["deletionTimestamp"] = "2026-12-04T12:00:00Z"
    o = {"metadata": meta}
    if spec_finalizers is not None:
        o["spec"] = {"finalizers": list(spec_finalizers)}
    return o


def test_the_errors_derive_from_the_one_base():
    assert issubclass(F.Refused, TeardownGatesError) and issubclass(F.QueryFailed, TeardownGatesError)
    assert F.QueryFailed({"query": {"error": "timed out"}}).unknown


def test_only_if_deleting_defaults_to_true_for_absent_only():
    assert F.only_if_deleting(params()) is True
    assert F.only_if_deleting(params(state="present")) is False
    assert F.only_if_deleting(params(only_if_deleting=False)) is False


def test_where_names_the_namespace_when_there_is_one():
    assert F.where_of(params()) == "ConfigMap default/x"
    assert F.where_of(params(kind="Namespace", namespace=None)) == "Namespace x"


def test_nothing_to_do_without_an_object_or_when_the_list_is_already_right():
    assert F.compute(params(), None) is None
    assert F.compute(params(), obj(["other.io/g"], deleting=True)) is None


def test_a_live_object_keeps_its_finalizer_unless_told():
    with pytest.raises(F.Refused) as e:
        F.compute(params(), obj(["example.com/f"]))
    assert e.value.reason == "not_deleting" and "only_if_deleting is true" in str(e.value)
    assert F.compute(params(only_if_deleting=False), obj(["example.com/f"])) is not None


def test_a_deleting_object_refuses_a_new_finalizer_before_anything_is_sent():
    with pytest.raises(F.Refused) as e:
        F.compute(params(state="present"), obj([], deleting=True))
    assert e.value.reason == "object_deleting"


def test_a_recreated_object_is_not_touched():
    with pytest.raises(F.Refused) as e:
        F.compute(params(expected_uid="u0"), obj(["example.com/f"], deleting=True))
    assert e.value.reason == "uid_mismatch" and "recreated" in str(e.value)


def test_the_removal_is_a_json_patch_that_tests_the_uid():
    ops = F.compute(params(), obj(["a.io/x", "example.com/f"], deleting=True))
    assert {"op": "test", "path": "/metadata/uid", "value": "u1"} in ops
    assert any(op["op"] == "remove" for op in ops)


def test_spec_scope_reads_and_writes_the_namespace_spec():
    p = params(kind="Namespace", namespace=None, scope="spec", finalizer=["kubernetes"])
    o = obj(deleting=True, spec_finalizers=["kubernetes"])
    assert F.current_list(o, "spec") == ["kubernetes"] and F.current_list(o, "metadata") == []
    body = F.compute(p, o)
    assert body["spec"]["finalizers"] == []


def test_check_mode_predicts_the_list_after():
    before = obj(["a.io/x", "example.com/f"], deleting=True)
    out = F.outcome(params(), before, None, diff=True)
    assert out["changed"] and out["finalizers_after"] == ["a.io/x"]
    assert out["diff"]["after"] == {"metadata.finalizers": ["a.io/x"]}


def test_an_unchanged_object_reports_unchanged():
    out = F.outcome(params(), obj(["a.io/x"], deleting=True), None)
    assert not out["changed"] and out["finalizers_after"] == out["finalizers_before"] == ["a.io/x"]
    assert "diff" not in out


def test_finalizer_input_ok():
    assert F.validate(params()) == []


def test_finalizer_input_errors_name_the_option():
    assert F.validate(params(finalizer=["not a name"]))[0].startswith("finalizer:")
    assert F.validate(params(retries=0))[0].startswith("retries:")
    assert F.validate(params(scope="spec"))[0].startswith("scope:")
    assert F.validate(params(state="present", only_if_deleting=True))[0].startswith("only_if_deleting:")
    assert F.validate(params(scope="spec", kind="Namespace")) == []
