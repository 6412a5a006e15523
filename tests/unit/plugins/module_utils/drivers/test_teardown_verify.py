# -*- coding: utf-8 -*-
"""drivers/teardown_verify.py: the Kubernetes objects (deletion_info's reads) and the AWS look (aws/lookup.py) in one
run, each answered as its own module answers it, neither hiding the other."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import lookup as aws_lookup
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.drivers import entry
from ansible_collections.teardown.gates.plugins.module_utils.drivers import teardown_verify as V
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import KubeReads


class Exited(Exception):
    pass


class FakeModule:
    def __init__(self, **kw):
        self.params = dict(objects=[dict(api_version="v1", kind="Namespace", name="clusters-demo", namespace=None,
                                         label_selector=None, match=None)],
                           request_timeout=10.0, manifest={"AWS::EC2::VPC": ["vpc-1"]}, preserve_iam=False,
                           retain={}, min_age=0, cluster_created="", region="us-east-1")
        self.params.update(kw)
        self.check_mode = False
        self.result = None

    def fail_json(self, **kw):
        self.result = dict(kw, failed=True)
        raise Exited()


def unreachable_reads(module, driver):
    assert driver.CALLER == "teardown_verify" and driver.ATTEMPTS == 1
    return KubeReads(None, 5, unreachable=ResourceLookupError("no answer from the API server", unknown=True))


class Reads(object):
    """A KubeReads stand-in: the Namespace is gone (a successful read answered 404)."""
    unreachable = None
    queries = []

    class Resource(object):
        namespaced = False

    def resource(self, api_version, kind):
        return self.Resource()

    def get(self, api_version, kind, name, namespace=None, what=None):
        return {"state": "absent", "object": None, "query": {"verb": "get", "ok": True}}


def test_the_spec_holds_both_reads_options():
    spec = V.argument_spec()
    # not required in the spec (its documentation is deletion_info's fragment): none given is refused by the check
    assert "required" not in spec["objects"] and spec["objects"]["options"]["api_version"]["default"] == "v1"
    assert spec["manifest"]["required"] is True and spec["min_age"]["default"] == 0
    assert "kubeconfig" in spec and "request_timeout" in spec
    assert "default" not in spec["validate_certs"]  # unset: the kubeconfig's setting, and AWS verifies


def test_the_objects_are_read_without_dependents():
    assert V.kube_params({"objects": []}) == dict(objects=[], kind=None, name=None, dependents=False, diagnose=False)


def test_both_answers_come_back_and_the_look_runs_beside_the_reads(monkeypatch):
    seen = {}

    def look(module, params):
        seen["thread"] = threading.current_thread().name
        return {"verified": True, "resources": [{"type": "AWS::EC2::VPC", "id": "vpc-1", "outcome": "absent"}]}
    monkeypatch.setattr(aws_lookup, "look", look)
    monkeypatch.setattr(V, "build_reads", lambda module, driver: Reads())
    out = V.run(FakeModule())
    assert out["state"] == "absent" and out["objects"][0]["state"] == "absent"
    assert out["objects"][0]["item"]["name"] == "clusters-demo"
    assert out["aws"]["verified"] is True and out["changed"] is False
    assert seen["thread"] == "aws-look"


def test_a_failed_look_is_its_answer_and_does_not_fail_the_run(monkeypatch):
    monkeypatch.setattr(aws_lookup, "look", lambda module, params: {"failed": True, "msg": "throttled", "resources": []})
    monkeypatch.setattr(V, "build_reads", lambda module, driver: Reads())
    out = V.run(FakeModule())
    assert out["aws"] == {"failed": True, "msg": "throttled", "resources": []} and "failed" not in out


def test_an_unreachable_api_server_fails_the_run_with_every_object_unknown_and_the_look_kept(monkeypatch):
    monkeypatch.setattr(aws_lookup, "look", lambda module, params: {"verified": True, "resources": []})
    monkeypatch.setattr(V, "build_reads", unreachable_reads)
    module = FakeModule()
    with pytest.raises(Exited):
        V.run(module)
    out = module.result
    assert out["failed"] and out["state"] == "unknown" and "no answer" in out["msg"]
    assert out["aws"] == {"verified": True, "resources": []}


def test_bad_input_fails_before_any_request(monkeypatch):
    def no_request(*a, **kw):
        raise AssertionError("a request was sent")
    monkeypatch.setattr(aws_lookup, "look", no_request)
    monkeypatch.setattr(V, "build_reads", no_request)
    with pytest.raises(BadInput, match="^min_age: "):
        V.run(FakeModule(min_age="-5"))
    for none in ([], None):
        module = FakeModule(objects=none)
        with pytest.raises(Exited):
            V.run(module)
        assert module.result["msg"] == "invalid input: objects: give at least one object"


def test_kubernetes_core_s_client_sees_what_it_asks_of_an_ansible_k8s_module():
    module = FakeModule()
    view = entry.AwsModuleAsK8s(module)
    assert view.params is module.params and view.check_mode is False and view.server_side_dry_run is False
    view.requires("jsonpatch")  # present: nothing happens
    with pytest.raises(Exited):
        view.requires("no-such-library-anywhere")
    assert module.result["failed"] and "no-such-library-anywhere" in module.result["msg"]


def test_the_client_is_built_from_the_view(monkeypatch):
    monkeypatch.setattr(aws_lookup, "look", lambda module, params: {"skipped": True})
    built = []

    def build_reads(module, driver):
        built.append(module)
        return Reads()
    monkeypatch.setattr(V, "build_reads", build_reads)
    V.run(FakeModule())
    assert isinstance(built[0], entry.AwsModuleAsK8s) and callable(built[0].requires)
