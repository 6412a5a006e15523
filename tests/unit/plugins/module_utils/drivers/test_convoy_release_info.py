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
