# -*- coding: utf-8 -*-
"""orphan_run (#32): aws_orphan_inventory's run against a fake module, with the region scan, the inventory and the
management reads replaced: the option checks and their messages, the entries and their statuses, the failure."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws import orphan_run
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.aws.orphans import Found

OLD = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)


class Exited(Exception):
    pass


class FakeModule:
    def __init__(self, **params):
        self.params = dict(management_contexts=[], kubeconfig=None, min_age="24h", oidc_bucket=None,
                           infra_id_prefix="", infra_ids=None, request_timeout=10)
        self.params.update(params)
        self.check_mode = False
        self.region = None
        self.failed = None

    def client(self, service, config=None):
        raise AssertionError("no AWS client is made in these tests")

    def fail_json_aws(self, exception, msg=None, **kwargs):
        self.failed = dict(kwargs, msg="%s: %s" % (msg, exception))
        raise Exited()


def test_the_spec_leaves_request_timeout_to_the_module():
    assert sorted(orphan_run.argument_spec()) == ["infra_id_prefix", "infra_ids", "kubeconfig", "management_contexts",
                                                  "min_age", "oidc_bucket"]


@pytest.mark.parametrize("params, message", [
    (dict(min_age="soon", request_timeout=0), "min_age: 'soon' is not a duration (seconds, or e.g. 24h, 90m, 1d12h); "
                                              "nothing changed"),
    (dict(request_timeout=0), "request_timeout: must be more than 0 seconds"),
])
def test_options_in_the_order_the_module_checked_them(params, message):
    with pytest.raises(BadInput) as e:
        orphan_run.options(FakeModule(**params).params)
    assert str(e.value) == message


def test_an_unreadable_kubeconfig_is_bad_input(tmp_path):
    with pytest.raises(BadInput) as e:
        orphan_run.known_contexts(str(tmp_path / "none"))
    assert str(e.value).startswith("management_contexts: cannot read the contexts of the kubeconfig %s: "
                                   % (tmp_path / "none"))
    assert str(e.value).endswith("; nothing changed")


@pytest.mark.parametrize("wanted, names, active, message", [
    (["x"], ["a", "b"], "a", "management_contexts: unknown context x (the kubeconfig has: a, b); nothing changed"),
    ([], [], None, "management_contexts: no context given and none is current (the kubeconfig has: none); "
                   "nothing changed"),
])
def test_chosen_contexts_names_what_is_wrong(wanted, names, active, message):
    with pytest.raises(BadInput) as e:
        orphan_run.chosen_contexts(wanted, names, active)
    assert str(e.value) == message


def test_chosen_contexts_defaults_to_the_current_one():
    assert orphan_run.chosen_contexts([], ["a", "b"], "b") == ["b"]
    assert orphan_run.chosen_contexts(["a"], ["a", "b"], "b") == ["a"]


def test_live_infra_ids_and_wanted():
    management = [{"context": "m1", "hosted_clusters": [{"namespace": "clusters", "name": "one", "infra_id": "one-x"},
                                                        {"namespace": "clusters", "name": "new", "infra_id": None}]}]
    assert orphan_run.live_infra_ids(management) == {"one-x": ["clusters/one (context m1)"]}
    p = dict(infra_id_prefix="ci-", infra_ids=None)
    assert orphan_run.wanted("ci-1", p) and not orphan_run.wanted("dev-1", p)
    p = dict(infra_id_prefix="", infra_ids=["a"])
    assert orphan_run.wanted("a", p) and not orphan_run.wanted("b", p)


def _region(monkeypatch, management_ok=True):
    found = Found()
    found.add("live-1", "EC2 vpc", "vpc-live", created=OLD, marked=True)
    found.add("gone-1", "EC2 vpc", "vpc-gone", created=OLD, marked=True)
    found.add("gone-1", "EC2 volume", "vol-1", marked=True)
    found.add("a-team", g.ROLE, "a-team-node-pool", created=OLD)  # a name alone, no upstream mark
    monkeypatch.setattr(orphan_run, "known_contexts", lambda kubeconfig: (["m1"], "m1"))
    monkeypatch.setattr(orphan_run, "read_management", lambda c, k, t: {
        "context": c, "ok": management_ok, "error": None if management_ok else "down",
        "hosted_clusters": [{"namespace": "clusters", "name": "live", "infra_id": "live-1"}]})
    monkeypatch.setattr(orphan_run.o, "scan_region", lambda clients, oidc_bucket, region: found)
    monkeypatch.setattr(orphan_run.o, "extra_ids", lambda clients, evidence, manifest: [])
    seen = {}

    def discover(clients, iid, oidc_bucket=None, region=None):
        seen.update(iid=iid, region=region, check_mode=clients.check_mode)
        return {g.VPC: ["vpc-gone"]}, {"observed": {g.VPC: {"vpc-gone": {"Tags": []}}}}
    monkeypatch.setattr(orphan_run, "discover", discover)
    return seen


def test_run_gives_each_infra_id_its_status(monkeypatch):
    seen = _region(monkeypatch)
    out = orphan_run.run(FakeModule())
    assert seen == dict(iid="gone-1", region="us-east-1", check_mode=True)  # read-only, only the non-live one looked into
    by_id = dict((e["infra_id"], e) for e in out["infra_ids"])
    assert [e["infra_id"] for e in out["infra_ids"]] == ["a-team", "gone-1", "live-1"]
    assert by_id["a-team"]["status"] == "uncertain" and "a-team-node-pool" in by_id["a-team"]["reason"]
    assert by_id["live-1"]["status"] == "live" and by_id["live-1"]["manifest"] == {}
    gone = by_id["gone-1"]
    assert gone["status"] == "orphan" and gone["manifest"] == {g.VPC: ["vpc-gone"]} and gone["total"] == 1
    assert gone["not_covered"] == [{"type": "EC2 volume", "id": "vol-1"}]
    assert gone["oldest_created"] == OLD.isoformat() and gone["age_seconds"] > 0
    assert out["orphans"] == ["gone-1"] and out["management_known"] is True and out["min_age_seconds"] == 86400
    assert out["changed"] is False


def test_an_unread_management_cluster_makes_nothing_an_orphan(monkeypatch):
    _region(monkeypatch, management_ok=False)
    out = orphan_run.run(FakeModule())
    assert out["orphans"] == [] and out["management_known"] is False
    assert dict((e["infra_id"], e["status"]) for e in out["infra_ids"])["gone-1"] == "unknown"


def test_a_failed_scan_reports_no_infra_id(monkeypatch):
    _region(monkeypatch)

    def scan(clients, oidc_bucket, region):
        raise botocore.exceptions.ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, "DescribeTags")
    monkeypatch.setattr(orphan_run.o, "scan_region", scan)
    m = FakeModule()
    with pytest.raises(Exited):
        orphan_run.run(m)
    assert m.failed["msg"].startswith("the scan of region us-east-1 failed; no infra ID is reported, since an "
                                      "incomplete scan would hide what is there: ")
    assert m.failed["management"][0]["context"] == "m1" and m.failed["api_calls"] == {}
