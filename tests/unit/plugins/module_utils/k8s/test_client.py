"""A 403 names the permission the credentials lack (verb, resource with its group, namespace)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

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
