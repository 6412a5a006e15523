# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import jsonpatch
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.k8s import finalizers as F


def obj(fins, uid="u-1", rv="10"):
    o = {"metadata": {"name": "x", "uid": uid, "resourceVersion": rv}}
    if fins is not None:
        o["metadata"]["finalizers"] = list(fins)
    return o


@pytest.mark.parametrize("name", ["kubernetes", "openshift.io/destroy-cluster", "a.b-c.io/x_y.z", "foregroundDeletion"])
def test_valid_names(name):
    assert F.validate_finalizer_name(name) is None


@pytest.mark.parametrize("name", ["", "a/b/c", "Bad_Prefix.io/x", "x.io/", "x.io/-bad", "has space", "x" * 64, None])
def test_invalid_names(name):
    assert F.validate_finalizer_name(name)


def test_remove_patch_keeps_a_finalizer_added_concurrently():
    seen = obj(["a.io/x", "mine.io/f", "b.io/y"])
    patch = F.build_remove_patch(seen, ["mine.io/f"])
    assert patch[0] == {"op": "test", "path": "/metadata/uid", "value": "u-1"}
    # a controller appends its own finalizer between our read and our patch
    server = copy.deepcopy(seen)
    server["metadata"]["finalizers"].append("ctrl.io/new")
    after = jsonpatch.apply_patch(server, patch)
    assert after["metadata"]["finalizers"] == ["a.io/x", "b.io/y", "ctrl.io/new"]


def test_remove_patch_fails_when_the_list_shifted():
    seen = obj(["a.io/x", "mine.io/f"])
    patch = F.build_remove_patch(seen, ["mine.io/f"])
    server = obj(["mine.io/f"])  # someone removed a.io/x: index 1 no longer holds ours
    with pytest.raises(jsonpatch.JsonPatchException):
        jsonpatch.apply_patch(server, patch)


def test_remove_patch_refuses_a_recreated_object():
    patch = F.build_remove_patch(obj(["mine.io/f"], uid="old"), ["mine.io/f"])
    with pytest.raises(jsonpatch.JsonPatchException):
        jsonpatch.apply_patch(obj(["mine.io/f"], uid="new"), patch)


def test_remove_several_and_duplicates_highest_index_first():
    seen = obj(["m/a", "k.io/keep", "m/a", "m/b"])
    patch = F.build_remove_patch(seen, ["m/a", "m/b"])
    paths = [op["path"] for op in patch if op["op"] == "remove"]
    assert paths == ["/metadata/finalizers/3", "/metadata/finalizers/2", "/metadata/finalizers/0"]
    assert jsonpatch.apply_patch(seen, patch)["metadata"]["finalizers"] == ["k.io/keep"]


def test_nothing_to_do_gives_empty_patches():
    assert F.build_remove_patch(obj(["a.io/x"]), ["b.io/y"]) == []
    assert F.build_add_patch(obj(["a.io/x"]), ["a.io/x"]) == []


def test_add_appends_and_keeps_concurrent_additions():
    seen = obj(["a.io/x"])
    patch = F.build_add_patch(seen, ["mine.io/f"])
    server = obj(["a.io/x", "ctrl.io/new"])
    assert jsonpatch.apply_patch(server, patch)["metadata"]["finalizers"] == ["a.io/x", "ctrl.io/new", "mine.io/f"]


def test_add_to_missing_list_is_guarded_by_resource_version():
    seen = obj(None, rv="10")
    patch = F.build_add_patch(seen, ["mine.io/f"])
    assert jsonpatch.apply_patch(seen, patch)["metadata"]["finalizers"] == ["mine.io/f"]
    server = obj(["ctrl.io/new"], rv="11")  # the list was created meanwhile
    with pytest.raises(jsonpatch.JsonPatchException):
        jsonpatch.apply_patch(server, patch)


def test_desired_and_namespace_body():
    assert F.desired_finalizers(["a", "b"], ["b", "c", "c"], "present") == ["a", "b", "c"]
    assert F.desired_finalizers(["a", "b", "a"], ["a"], "absent") == ["b"]
    ns = {"metadata": {"name": "n", "uid": "u", "resourceVersion": "5"}, "spec": {"finalizers": ["kubernetes"]}}
    body = F.namespace_finalize_body(ns, ["kubernetes"], "absent")
    assert body["spec"]["finalizers"] == [] and body["metadata"]["resourceVersion"] == "5"
    assert F.namespace_finalize_body(ns, ["kubernetes"], "present") is None


class Err(Exception):
    def __init__(self, status, body=""):
        super(Err, self).__init__("HTTP %s" % status)
        self.status = status
        self.body = body


def test_conflict_classification():
    assert F.is_conflict(Err(409))
    assert F.is_conflict(Err(422, '{"message":"the server rejected our request due to an error in our request"}'))
    assert not F.is_conflict(Err(403, "forbidden"))
    assert not F.is_conflict(Err(422, "no new finalizers can be added if the object is being deleted"))
    assert F.is_deleting_refusal(Err(422, "Forbidden: no new finalizers can be added if the object is being deleted"))


def test_apply_with_retry_rereads_after_conflict():
    state = {"obj": obj(["mine.io/f"]), "sends": 0}

    def fetch():
        return copy.deepcopy(state["obj"])

    def send(o, patch):
        state["sends"] += 1
        if state["sends"] == 1:
            state["obj"]["metadata"]["finalizers"].insert(0, "ctrl.io/new")  # the race
        state["obj"] = jsonpatch.apply_patch(state["obj"], patch)  # raises on a failed test
        return state["obj"]

    def send_wrapped(o, patch):
        try:
            return send(o, patch)
        except jsonpatch.JsonPatchException:
            raise Err(422, "error in our request")

    before, after, tries = F.apply_with_retry(fetch, lambda o: F.build_remove_patch(o, ["mine.io/f"]) or None,
                                              send_wrapped, attempts=3)
    assert tries == 2
    assert after["metadata"]["finalizers"] == ["ctrl.io/new"]


def test_apply_with_retry_gives_up_and_propagates_other_errors():
    def always_conflict(o, p):
        raise Err(409)
    with pytest.raises(Err):
        F.apply_with_retry(lambda: obj(["a/b"]), lambda o: [1], always_conflict, attempts=2)

    def forbidden(o, p):
        raise Err(403)
    calls = []
    with pytest.raises(Err):
        F.apply_with_retry(lambda: calls.append(1) or obj(["a/b"]), lambda o: [1], forbidden, attempts=5)
    assert len(calls) == 1


CLEANUP = "hypershift.openshift.io/cleanup-cloud-resources"


def annotated(fins, annotations, rv="10"):
    o = obj(fins, rv=rv)
    if annotations is not None:
        o["metadata"]["annotations"] = dict(annotations)
    return o


def test_present_patch_adds_the_finalizer_and_the_annotation_in_one_request():
    seen = annotated(["ctrl.io/a"], {"other": "x"})
    patch = F.build_present_patch(seen, ["openshift.io/destroy-cluster"], {CLEANUP: "true"})
    assert patch == [
        {"op": "test", "path": "/metadata/uid", "value": "u-1"},
        {"op": "add", "path": "/metadata/finalizers/-", "value": "openshift.io/destroy-cluster"},
        {"op": "add", "path": "/metadata/annotations/hypershift.openshift.io~1cleanup-cloud-resources", "value": "true"},
    ]
    after = jsonpatch.apply_patch(seen, patch)
    assert after["metadata"]["finalizers"] == ["ctrl.io/a", "openshift.io/destroy-cluster"]
    assert after["metadata"]["annotations"] == {"other": "x", CLEANUP: "true"}


def test_present_patch_with_the_finalizer_on_sets_the_annotation_alone():
    seen = annotated(["openshift.io/destroy-cluster"], {})
    patch = F.build_present_patch(seen, ["openshift.io/destroy-cluster"], {CLEANUP: "true"})
    assert [op["op"] for op in patch] == ["test", "add"]
    assert jsonpatch.apply_patch(seen, patch)["metadata"]["finalizers"] == ["openshift.io/destroy-cluster"]


def test_present_patch_is_empty_when_both_are_already_there():
    seen = annotated(["openshift.io/destroy-cluster"], {CLEANUP: "true"})
    assert F.build_present_patch(seen, ["openshift.io/destroy-cluster"], {CLEANUP: "true"}) == []
    assert F.annotation_changes(seen, {CLEANUP: "true"}) == {}
    assert F.annotation_changes(seen, {CLEANUP: "false"}) == {CLEANUP: "false"}


def test_present_patch_without_annotations_is_the_add_patch():
    seen = obj(["a.io/x"])
    assert F.build_present_patch(seen, ["b.io/y"], None) == F.build_add_patch(seen, ["b.io/y"])
    assert F.build_present_patch(obj(None), ["b.io/y"], {}) == F.build_add_patch(obj(None), ["b.io/y"])


def test_a_missing_map_and_list_are_created_after_one_test_of_the_resource_version():
    seen = annotated(None, None)
    patch = F.build_present_patch(seen, ["b.io/y"], {CLEANUP: "true"})
    rv_tests = [op for op in patch if op["path"] == "/metadata/resourceVersion"]
    assert rv_tests == [{"op": "test", "path": "/metadata/resourceVersion", "value": "10"}]
    assert jsonpatch.apply_patch(seen, patch)["metadata"]["annotations"] == {CLEANUP: "true"}
    server = annotated(None, {"ctrl.io/note": "y"}, rv="11")  # the map was created meanwhile
    with pytest.raises(jsonpatch.JsonPatchException):
        jsonpatch.apply_patch(server, patch)
    # the annotations' map alone missing: the lock is still sent
    patch = F.build_present_patch(annotated(["b.io/y"], None), ["b.io/y"], {CLEANUP: "true"})
    assert patch[1] == {"op": "test", "path": "/metadata/resourceVersion", "value": "10"}


def test_an_annotation_at_another_value_is_tested_at_that_value_before_it_is_replaced():
    seen = annotated([], {CLEANUP: "false"})
    patch = F.build_present_patch(seen, [], {CLEANUP: "true"})
    assert patch[1:] == [
        {"op": "test", "path": "/metadata/annotations/hypershift.openshift.io~1cleanup-cloud-resources", "value": "false"},
        {"op": "replace", "path": "/metadata/annotations/hypershift.openshift.io~1cleanup-cloud-resources", "value": "true"},
    ]
    server = annotated([], {CLEANUP: "maybe"})  # another writer changed it meanwhile
    with pytest.raises(jsonpatch.JsonPatchException):
        jsonpatch.apply_patch(server, patch)


def test_a_recreated_object_fails_the_present_patch():
    patch = F.build_present_patch(annotated([], {}), ["b.io/y"], {"a.io~x": "1"})
    assert patch[-1]["path"] == "/metadata/annotations/a.io~0x"
    with pytest.raises(jsonpatch.JsonPatchException):
        jsonpatch.apply_patch(dict(annotated([], {}), metadata=dict(annotated([], {})["metadata"], uid="u-2")), patch)


def test_setting_one_annotation_tests_the_uid_and_escapes_the_key():
    obj = {"metadata": {"uid": "u1", "resourceVersion": "7", "annotations": {"a": "b"}}}
    ops = F.set_annotation_patch(obj, "captf.io/abandon-infrastructure", "u1")
    assert ops == [{"op": "test", "path": "/metadata/uid", "value": "u1"},
                   {"op": "add", "path": "/metadata/annotations/captf.io~1abandon-infrastructure", "value": "u1"}]


def test_a_missing_annotation_map_is_created_only_on_the_version_read():
    # `add` of the whole map would replace one another writer made since the read, and its annotations with it
    obj = {"metadata": {"uid": "u1", "resourceVersion": "7"}}
    ops = F.set_annotation_patch(obj, "captf.io/restore-state", "12")
    assert ops == [{"op": "test", "path": "/metadata/uid", "value": "u1"},
                   {"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
                   {"op": "add", "path": "/metadata/annotations", "value": {"captf.io/restore-state": "12"}}]


def test_another_writers_new_map_makes_the_patch_fail_not_vanish():
    ops = F.set_annotation_patch({"metadata": {"uid": "u1", "resourceVersion": "7"}}, "k", "v")
    now = {"metadata": {"uid": "u1", "resourceVersion": "8", "annotations": {"theirs": "x"}}}
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(now, ops)
    unchanged = {"metadata": {"uid": "u1", "resourceVersion": "7"}}
    assert jsonpatch.apply_patch(unchanged, ops)["metadata"]["annotations"] == {"k": "v"}
