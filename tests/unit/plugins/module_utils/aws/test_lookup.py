# -*- coding: utf-8 -*-
"""aws/lookup.py: teardown_verify's read-only look at the tracked AWS IDs - aws_infra_cleanup's check-mode run with a
failure returned as the look's answer (unknown, never absent) instead of ending the module."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws import lookup as L
from ansible_collections.teardown.gates.plugins.module_utils.aws import runs as aws_runs
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput

from aws_module_double import AWSModuleDouble


class FakeEC2:
    """Subnets looked up by ID; a delete would be recorded (the look must send none)."""

    def __init__(self, subnets=()):
        self.subnets, self.calls = set(subnets), []

    def describe_subnets(self, Filters):
        self.calls.append("DescribeSubnets")
        return {"Subnets": [{"SubnetId": s, "Tags": []} for s in Filters[0]["Values"] if s in self.subnets]}

    def delete_subnet(self, SubnetId):
        self.calls.append("DeleteSubnet")


def params(**kw):
    p = dict(manifest={g.SUBNET: ["subnet-1", "subnet-gone"]}, preserve_iam=False, retain={}, min_age=0,
             cluster_created="", region="us-east-1", access_key=None, secret_key=None, session_token=None,
             profile=None, endpoint_url=None, validate_certs=None, aws_ca_bundle=None, aws_config=None,
             debug_botocore_endpoint_logs=False)
    p.update(kw)
    return p


@pytest.fixture
def ec2(monkeypatch):
    """The look's clients answer from a FakeEC2; the connection info is whatever the params say."""
    fake = FakeEC2(subnets=("subnet-1",))
    fake.configs = []
    made = []

    def conn(module, conn_type=None, resource=None, region=None, endpoint=None, **kw):
        made.append((resource, region))
        fake.configs.append(kw.get("config"))
        return fake
    monkeypatch.setattr(L, "boto3_conn", conn)
    monkeypatch.setattr(L, "get_aws_connection_info", lambda module: (module.params.get("region"), None, {}))
    fake.made = made
    return fake


def test_the_look_takes_cleanup_s_options_and_requires_a_manifest():
    spec = L.lookup_spec()
    cleanup = aws_runs.cleanup_spec()
    assert set(spec) == set(L.LOOKUP_OPTIONS)
    assert spec["manifest"] == dict(cleanup["manifest"], required=True)
    assert all(spec[k] == cleanup[k] for k in L.LOOKUP_OPTIONS if k != "manifest")
    full = L.lookup_params(params())
    assert full["infra_id"] is None and full["concurrency"] == 8 and full["wait_timeout"] == 900


@pytest.mark.parametrize("kw, message", [
    (dict(min_age="-1"), r"^min_age: "),
    (dict(retain={"AWS::EC2::Banana": ["b-1"]}), r"^retain: .*AWS::EC2::Banana"),
    (dict(manifest="/no/such/file.json"), r"^manifest: "),
])
def test_bad_input_names_the_option_before_any_request(kw, message, ec2):
    with pytest.raises(BadInput, match=message):
        L.check_input(params(**kw))
    assert ec2.calls == [] and ec2.made == []


def test_the_look_is_cleanup_s_check_mode_even_outside_check_mode(ec2):
    out = L.look(AWSModuleDouble({}, check_mode=False), params())
    assert "failed" not in out and "DeleteSubnet" not in ec2.calls and "DescribeSubnets" in ec2.calls
    outcomes = dict((r["id"], (r["outcome"], r["observed"])) for r in out["resources"])
    assert outcomes == {"subnet-1": ("planned", "present"), "subnet-gone": ("absent", "absent")}
    assert out["verified"] is False


def test_the_look_says_it_is_teardown_verify_in_its_user_agent(ec2):
    L.look(AWSModuleDouble({}), params())
    agents = set(c.user_agent_extra for c in ec2.configs)
    assert agents == {"teardown.gates/%s (teardown_verify)" % __import__(
        "ansible_collections.teardown.gates.plugins.module_utils.core.bounds", fromlist=["VERSION"]).VERSION}


def test_every_id_gone_is_verified(ec2):
    ec2.subnets.clear()
    out = L.look(AWSModuleDouble({}), params())
    assert out["verified"] is True and out["changed"] is False


def test_an_empty_manifest_looks_nothing_up(ec2):
    out = L.look(AWSModuleDouble({}), params(manifest={}))
    assert out == {"changed": False, "skipped": True, "msg": L.NOTHING_TRACKED}
    assert ec2.made == []


def test_a_failed_look_is_the_answer_failed_with_what_it_found(ec2, monkeypatch):
    def refuse(Filters):
        raise __import__("botocore.exceptions").exceptions.ClientError(
            {"Error": {"Code": "UnauthorizedOperation", "Message": "no"}}, "DescribeSubnets")
    monkeypatch.setattr(ec2, "describe_subnets", refuse)
    out = L.look(AWSModuleDouble({}), params())
    assert out["failed"] is True and out["changed"] is False
    assert "could not be" in out["msg"] or "UnauthorizedOperation" in out["msg"]
    assert out["resources"] and all(r["id"] for r in out["resources"])


def test_no_region_is_a_failed_look_naming_it(ec2):
    out = L.look(AWSModuleDouble({}), params(region=None))
    # each look by ID failed on it: every ID unknown (failed), none absent
    assert out["failed"] is True and "region: teardown_verify needs a region" in out["msg"]
    assert [r["outcome"] for r in out["resources"]] == ["failed", "failed"]
    assert ec2.made == []


def test_a_client_that_cannot_be_made_is_a_failed_look(monkeypatch):
    def conn(module, **kw):
        module.fail_json_aws(ValueError("bad profile"), msg="Couldn't connect to AWS")
    monkeypatch.setattr(L, "boto3_conn", conn)
    monkeypatch.setattr(L, "get_aws_connection_info", lambda module: ("us-east-1", None, {}))
    out = L.look(AWSModuleDouble({}), params())
    assert out["failed"] is True and "Couldn't connect to AWS: bad profile" in out["msg"]
    assert [r["outcome"] for r in out["resources"]] == ["failed", "failed"]


def test_an_unforeseen_error_is_a_failed_look_with_its_traceback(monkeypatch):
    def boom(module, caller):
        raise RuntimeError("boom")
    monkeypatch.setattr(aws_runs, "cleanup", boom)
    out = L.look(AWSModuleDouble({}), params())
    assert out["failed"] is True and "boom" in out["msg"] and "RuntimeError" in out["exception"]


def test_the_read_only_run_is_always_in_check_mode_and_passes_warnings_on():
    warned = []
    module = AWSModuleDouble({})
    module.warn = warned.append
    run = L.ReadOnlyRun(module, params())
    assert run.check_mode is True and run.region == "us-east-1"
    run.warn("w")
    assert warned == ["w"]
    with pytest.raises(L.LookupFailed) as e:
        run.fail_json(msg="m", resources=[1])
    assert str(e.value) == "m" and e.value.result == {"resources": [1]}
