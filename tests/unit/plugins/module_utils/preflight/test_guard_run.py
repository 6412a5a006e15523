# -*- coding: utf-8 -*-
"""preflight/guard_run (#33): target_guard's run against a fake module, with the AWS clients and the management
cluster's reads replaced: no request without a guard, the reads each guard needs, refusals before any change."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.preflight import guard_run

UID = "6f1c2a9e-3b1d-4f7e-9c55-0a1b2c3d4e5f"


class Exited(Exception):
    pass


class FakeModule:
    def __init__(self, **params):
        self.params = dict(expected_aws_account_id="", expected_management_cluster=[], confirm_account="",
                           require_confirmation=False, touches_aws=True, touches_kubernetes=True, kubeconfig=None,
                           contexts=[], request_timeout=10)
        self.params.update(params)
        self.check_mode = False
        self.failed = None

    def fail_json(self, **kw):
        self.failed = kw
        raise Exited()

    def fail_json_aws(self, exc, msg=None):
        self.failed = {"msg": msg, "exception": exc}
        raise Exited()


class FakeClients:
    def __init__(self, account="123456789012", aliases=()):
        self.sent = []
        self.account, self.aliases = account, list(aliases)

    def call(self, service, operation, **params):
        self.sent.append((service, operation))
        if operation == "get_caller_identity":
            return {"Account": self.account, "Arn": "arn:aws:iam::%s:user/ops" % self.account, "UserId": "AID"}
        if operation == "list_account_aliases":
            return {"AccountAliases": self.aliases}
        raise AssertionError(operation)


class FakeReads:
    def __init__(self, uid=UID, state="present"):
        self.uid, self.state, self.queries, self.sent = uid, state, [], []

    def get(self, api_version, kind, name, namespace=None, what=None):
        self.sent.append((api_version, kind, name))
        self.queries.append({"verb": "get", "name": name})
        obj = {"metadata": {"uid": self.uid}} if self.state == "present" else None
        return {"state": self.state, "object": obj, "query": {"error": "boom" if self.state == "unknown" else None}}


@pytest.fixture
def world(monkeypatch):
    w = {"clients": FakeClients(), "reads": {}, "made": []}

    def clients(module, caller, concurrency, check_mode=None):
        assert caller == "target_guard" and check_mode is True  # reads only, whatever the mode
        w["made"].append("aws")
        return w["clients"]

    def kube(p, context):
        w["made"].append(("kube", context))
        r = w["reads"].get(context)
        if isinstance(r, Exception):
            raise r
        return (r or FakeReads()), "https://127.0.0.1:6443"

    monkeypatch.setattr(guard_run, "module_clients", clients)
    monkeypatch.setattr(guard_run, "kube_reads", kube)
    return w


def test_no_guard_sends_no_request(world):
    out = guard_run.run(FakeModule())
    assert world["made"] == []
    assert out["guarded"] is False and out["checked"] == [] and out["account_id"] is None
    assert out["msg"] == "no target guard set: nothing was read"


def test_the_right_account_reads_the_identity_only(world):
    out = guard_run.run(FakeModule(expected_aws_account_id="123456789012"))
    assert world["clients"].sent == [("sts", "get_caller_identity")]
    assert world["made"] == ["aws"]
    assert out["account_id"] == "123456789012" and out["arn"].endswith(":user/ops")
    assert out["checked"] == ["expected_aws_account_id"] and out["changed"] is False


def test_a_wrong_account_fails_naming_option_expected_and_observed(world):
    m = FakeModule(expected_aws_account_id="210987654321")
    with pytest.raises(Exited):
        guard_run.run(m)
    assert m.failed["msg"].startswith("refused before any change")
    assert "expected_aws_account_id: expected 210987654321, but the credentials are those of account 123456789012" \
        in m.failed["msg"]
    assert m.failed["account_id"] == "123456789012"


def test_an_alias_confirmation_reads_the_aliases_and_an_id_confirmation_does_not(world):
    world["clients"].aliases = ["prod-east"]
    guard_run.run(FakeModule(confirm_account="prod-east"))
    assert world["clients"].sent == [("sts", "get_caller_identity"), ("iam", "list_account_aliases")]
    world["clients"].sent = []
    guard_run.run(FakeModule(confirm_account="123456789012"))
    assert world["clients"].sent == [("sts", "get_caller_identity")]
    m = FakeModule(confirm_account="prod-west")
    with pytest.raises(Exited):
        guard_run.run(m)
    assert "confirm_account: typed 'prod-west'" in m.failed["msg"]


def test_each_context_is_read_and_must_be_an_expected_cluster(world):
    world["reads"] = {"a": FakeReads(), "b": FakeReads(uid="0000")}
    m = FakeModule(expected_management_cluster=[UID], contexts=["a", "b"])
    with pytest.raises(Exited):
        guard_run.run(m)
    assert world["made"] == [("kube", "a"), ("kube", "b")]
    assert "management cluster (context b) is kube-system UID 0000 at https://127.0.0.1:6443" in m.failed["msg"]
    assert "(context a)" not in m.failed["msg"]
    assert [c["uid"] for c in m.failed["clusters"]] == [UID, "0000"]


def test_the_current_context_when_none_is_named(world):
    out = guard_run.run(FakeModule(expected_management_cluster=["https://127.0.0.1:6443"]))
    assert world["made"] == [("kube", None)]
    assert out["clusters"] == [{"context": None, "uid": UID, "server": "https://127.0.0.1:6443"}]


@pytest.mark.parametrize("failure", ["unknown", "absent", "client"])
def test_a_cluster_that_cannot_be_read_does_not_hold(world, failure):
    world["reads"] = {None: ResourceLookupError("no answer", unknown=True) if failure == "client"
                      else FakeReads(state=failure)}
    m = FakeModule(expected_management_cluster=[UID])
    with pytest.raises(Exited):
        guard_run.run(m)
    assert m.failed["msg"].startswith("expected_management_cluster: ")
    assert "does not hold" in m.failed["msg"]


def test_bad_input_fails_before_any_request(world):
    for params in (dict(expected_aws_account_id="12345"), dict(require_confirmation=True),
                   dict(expected_aws_account_id="123456789012", touches_aws=False), dict(request_timeout=0),
                   dict(expected_management_cluster=["mgmt-east"])):
        with pytest.raises(BadInput):
            guard_run.run(FakeModule(**params))
    assert world["made"] == []


def test_the_sweep_guards_all_hold(world):
    out = guard_run.run(FakeModule(expected_aws_account_id="123456789012", expected_management_cluster=[UID],
                                   confirm_account="123456789012", require_confirmation=True))
    assert out["checked"] == ["expected_aws_account_id", "confirm_account", "expected_management_cluster"]


class _Conf:
    host = "https://10.0.0.1:6443"


class _Api:
    configuration = _Conf()


class _Dyn:
    client = _Api()


class _K8S:
    client = _Dyn()


def test_the_configured_server_is_found_through_the_client_layers():
    assert guard_run.configured_server(_K8S()) == "https://10.0.0.1:6443"
    assert guard_run.configured_server(object()) is None
