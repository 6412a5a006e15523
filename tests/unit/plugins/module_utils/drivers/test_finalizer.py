# -*- coding: utf-8 -*-
"""drivers/finalizer.py: the finalizer module's rules as plain functions (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

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


CLI = "openshift.io/destroy-cluster"
CLEANUP = "hypershift.openshift.io/cleanup-cloud-resources"


def retain(**kw):
    return params(state="present", finalizer=[CLI], annotations={CLEANUP: "true"}, **kw)


def annotated(finalizers, annotations, deleting=False):
    o = obj(finalizers, deleting=deleting)
    o["metadata"]["annotations"] = dict(annotations)
    return o


def test_the_annotation_rides_in_the_finalizers_request():
    ops = F.compute(retain(expected_uid="u1"), annotated([], {}))
    assert ops[0] == {"op": "test", "path": "/metadata/uid", "value": "u1"}
    assert [op["value"] for op in ops if op["op"] == "add"] == [CLI, "true"]


def test_with_the_finalizer_on_only_the_annotation_is_sent():
    ops = F.compute(retain(), annotated([CLI], {}))
    assert [op["path"] for op in ops if op["op"] == "add"] == ["/metadata/annotations/" + CLEANUP.replace("/", "~1")]
    out = F.outcome(retain(), annotated([CLI], {}), None)
    assert out["changed"] and out["finalizers_after"] == [CLI]
    assert out["annotations_before"] == {CLEANUP: None} and out["annotations_after"] == {CLEANUP: "true"}


def test_both_already_set_is_no_change():
    before = annotated([CLI], {CLEANUP: "true"})
    assert F.compute(retain(), before) is None
    out = F.outcome(retain(), before, None, diff=True)
    assert not out["changed"] and out["annotations_after"] == {CLEANUP: "true"}
    assert out["diff"]["after"]["metadata.annotations"] == {CLEANUP: "true"}


def test_a_deleting_object_gets_the_annotation_alone_and_still_refuses_the_finalizer():
    before = annotated([], {}, deleting=True)
    ops = F.compute(retain(), before)
    assert [op["value"] for op in ops if op["op"] == "add"] == ["true"]
    assert F.deleting_refusal(retain(), before).reason == "object_deleting"
    out = F.outcome(retain(), before, None)  # check mode: the annotation predicted, the finalizer not
    assert out["changed"] and out["finalizers_after"] == [] and out["annotations_after"] == {CLEANUP: "true"}


def test_a_deleting_object_with_the_annotation_set_is_refused_before_anything_is_sent():
    with pytest.raises(F.Refused) as e:
        F.compute(retain(), annotated([], {CLEANUP: "true"}, deleting=True))
    assert e.value.reason == "object_deleting"
    assert F.compute(retain(), annotated([CLI], {CLEANUP: "true"}, deleting=True)) is None
    assert F.deleting_refusal(retain(), annotated([CLI], {}, deleting=True)) is None


def test_a_refusal_at_the_send_makes_the_module_read_again():
    from ansible_collections.teardown.gates.plugins.module_utils.k8s.finalizers import is_conflict
    assert is_conflict(F.Reread(Exception("no new finalizers can be added if the object is being deleted")))


def test_annotations_input_errors_name_the_option():
    assert F.validate(retain()) == []
    assert F.validate(params(annotations={CLEANUP: "true"}))[0].startswith("annotations: only with state=present")
    assert F.validate(params(state="present", scope="spec", kind="Namespace", annotations={}))[0].startswith(
        "annotations:")
    errors = F.validate(params(state="present", annotations={CLEANUP: True, "Bad Key": "x"}))
    assert len(errors) == 2 and all(e.startswith("annotations: ") for e in errors)
    assert "must be a string" in " ".join(errors) and "'Bad Key'" in " ".join(errors)


class Exited(Exception):
    pass


class FakeModule:
    def __init__(self, p, check_mode=False):
        self.params, self.check_mode, self._diff, self.result = p, check_mode, False, None

    def fail_json(self, **kw):
        self.result = dict(kw, failed=True)
        raise Exited()

    def exit_json(self, **kw):
        self.result = kw
        raise Exited()


class FakeReads:
    """One object; a patch applies as the API would (a failed test is a 422), refusing a new finalizer on a deleting
    object with the API's message."""

    def __init__(self, o):
        self.obj, self.sent = o, []

    def resource(self, api_version, kind):
        return type("Resource", (), {"namespaced": True})()

    def get(self, api_version, kind, name, namespace=None, what=None):
        return {"state": "present", "object": copy.deepcopy(self.obj), "query": {"verb": "get", "ok": True}}

    def patch(self, api_version, kind, name, ops, namespace=None):
        import jsonpatch
        self.sent.append(ops)
        after = jsonpatch.apply_patch(self.obj, ops)
        meta = after["metadata"]
        if meta.get("deletionTimestamp") and len(meta["finalizers"]) > len(self.obj["metadata"]["finalizers"]):
            err = Exception("HTTP 422")
            err.status, err.body = 422, "Forbidden: no new finalizers can be added if the object is being deleted"
            raise err
        self.obj = after
        return copy.deepcopy(after)


def run_module(o, p, check_mode=False):
    module, reads = FakeModule(p, check_mode), FakeReads(o)
    with pytest.raises(Exited):
        F.run(module, reads)
    return module.result, reads


def test_run_sets_the_finalizer_and_the_annotation_in_one_request():
    out, reads = run_module(annotated([], {}), retain())
    assert "failed" not in out and out["changed"] and len(reads.sent) == 1
    assert out["finalizers_after"] == [CLI] and out["annotations_after"] == {CLEANUP: "true"}


def test_run_on_a_deleting_object_sets_the_annotation_alone_then_reports_the_refusal():
    out, reads = run_module(annotated([], {}, deleting=True), retain())
    assert out["failed"] and out["refused"] == "object_deleting" and out["changed"]
    assert len(reads.sent) == 1 and reads.obj["metadata"]["annotations"] == {CLEANUP: "true"}
    assert out["finalizers_after"] == [] and out["annotations_after"] == {CLEANUP: "true"}
    assert "being deleted" in out["msg"]


def test_run_in_check_mode_sends_nothing_and_says_what_it_would_set():
    out, reads = run_module(annotated([], {}), retain(), check_mode=True)
    assert reads.sent == [] and out["changed"]
    assert out["finalizers_after"] == [CLI] and out["annotations_after"] == {CLEANUP: "true"}
    assert out["annotations_before"] == {CLEANUP: None}


def test_run_with_both_already_set_sends_nothing():
    out, reads = run_module(annotated([CLI], {CLEANUP: "true"}), retain())
    assert reads.sent == [] and not out["changed"] and "failed" not in out


def test_run_when_the_object_began_deleting_after_the_read_sends_the_annotation_alone():
    o = annotated([], {})
    module, reads = FakeModule(retain()), FakeReads(o)
    real_patch = reads.patch

    def deleting_now(*a, **kw):
        reads.obj["metadata"]["deletionTimestamp"] = "2026-12-04T12:00:01Z"
        reads.patch = real_patch
        return real_patch(*a, **kw)
    reads.patch = deleting_now
    with pytest.raises(Exited):
        F.run(module, reads)
    out = module.result
    assert out["refused"] == "object_deleting" and out["attempts"] == 2 and len(reads.sent) == 2
    assert reads.obj["metadata"]["annotations"] == {CLEANUP: "true"} and reads.obj["metadata"]["finalizers"] == []
