# -*- coding: utf-8 -*-
"""drivers/convoy_release_info.py: the convoy_release_info module's rules as plain functions (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.drivers import convoy_release_info as C


def params(**kw):
    p = dict(namespace="ns", names=[], label_selector=None, cluster_name=None, verify_objects=[], verify_plan=[],
             request_timeout=10.0)
    p.update(kw)
    return p


def test_the_input_rules_as_the_module_words_them():
    assert C.input_errors(params()) is None
    assert C.input_errors(params(request_timeout=0)) == "request_timeout: must be more than 0 seconds"
    assert C.input_errors(params(verify_objects=[{"apiVersion": "v1", "kind": "Pod", "name": "p"}, {"kind": "Pod"}])) \
        == "verify_objects[1]: missing apiVersion, name"


def test_releases_are_read_unless_only_a_verification_was_asked():
    assert C.want_releases(params())
    assert not C.want_releases(params(verify_objects=[{"apiVersion": "v1", "kind": "Pod", "name": "p"}]))
    assert C.want_releases(params(names=["r"], verify_plan=[{"name": "r"}]))


def test_an_object_out_of_a_listing_is_unknown_when_the_listing_failed():
    ok = {"state": "present", "items": []}
    assert C.obs_from(ok, {"a": {"x": 1}}, "a") == {"state": "present", "object": {"x": 1}, "error": None}
    assert C.obs_from(ok, {}, "a")["state"] == "absent"
    failed = {"state": "unknown", "items": None, "error": "500"}
    assert C.obs_from(failed, {"a": {}}, "a") == {"state": "unknown", "object": None, "error": "500"}


def test_a_client_error_without_a_status_is_its_text():
    assert C.short_error(ValueError("connection reset")) == "connection reset"


class _Module:
    def __init__(self, p):
        self.params = p


def test_a_release_labelled_protected_is_listed_as_kept_not_planned(monkeypatch):
    def release(name, labels=None):
        return {"apiVersion": C.API_VERSION, "kind": "Release",
                "metadata": {"name": name, "namespace": "ns", "uid": "u-" + name, "labels": labels or {}},
                "spec": {"clusterRef": {"name": "c1"}}}
    listed = {"Release": [release("a"), release("b", {"teardown.gates/protected": "true"}),
                          release("c", {"teardown.gates/protected": "no"})], "Cluster": [], "ReleaseInventory": []}
    monkeypatch.setattr(C, "list_of", lambda reads, record, av, kind, ns=None, **kw: {"state": "present",
                                                                                      "items": listed[kind]})
    p = params(find_untracked=False, diagnose=False)
    releases, absent, clusters, protected = C.read_releases(_Module(p), None, C.new_record())
    assert [r["name"] for r in releases] == ["a", "c"]
    assert protected == [{"name": "b", "namespace": "ns", "uid": "u-b", "cluster": "c1",
                          "reason": "labelled teardown.gates/protected"}]


def _aged(name, created, labels=None):
    return {"apiVersion": C.API_VERSION, "kind": "Release",
            "metadata": {"name": name, "namespace": "ns", "uid": "u-" + name, "labels": labels or {},
                         "creationTimestamp": created}, "spec": {"clusterRef": {"name": "c1"}}}


def _read_with(monkeypatch, items, **kw):
    listed = {"Release": items, "Cluster": [], "ReleaseInventory": []}
    monkeypatch.setattr(C, "list_of", lambda reads, record, av, kind, ns=None, **k: {"state": "present",
                                                                                     "items": listed[kind]})
    return C.read_releases(_Module(params(find_untracked=False, diagnose=False, **kw)), None, C.new_record())


def test_a_release_younger_than_min_age_is_kept_with_the_reason_an_old_one_is_planned(monkeypatch):
    import datetime
    just_now = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    items = [_aged("old", "2020-01-01T00:00:00Z"), _aged("young", just_now),
             _aged("marked", "2020-01-01T00:00:00Z", {"teardown.gates/protected": "true"})]
    releases, dummy, dummy, kept = _read_with(monkeypatch, items, min_age="1h")
    assert [r["name"] for r in releases] == ["old"]
    assert {k["name"]: k["reason"] for k in kept} == {
        "young": "created %s, less than min_age (3600 s) ago" % just_now, "marked": "labelled teardown.gates/protected"}
    # min_age 0 (the default) is off: the young Release is planned as before
    releases, dummy, dummy, kept = _read_with(monkeypatch, items, min_age=0)
    assert [r["name"] for r in releases] == ["old", "young"] and [k["name"] for k in kept] == ["marked"]


def test_a_bad_min_age_is_an_input_error_naming_it():
    assert C.input_errors(params(min_age="banana")).startswith("min_age: 'banana' is not a duration")
    assert C.input_errors(params(min_age=-5)).startswith("min_age: -5 is negative")
    assert C.input_errors(params(min_age="24h")) is None
