"""The stated bounds, one retry layer, and the user agent: pure logic (the silent-endpoint runs are in
tests/sandbox/tests/test_bounded.py)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import threading

import botocore.exceptions
import pytest
import yaml

from ansible_collections.teardown.gates.plugins.module_utils.aws import inventory as aws_inventory
from ansible_collections.teardown.gates.plugins.module_utils.core import bounds
from ansible_collections.teardown.gates.plugins.module_utils.k8s import client as k8s_client
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import Clients, Unanswered

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))


def test_the_version_in_the_user_agent_is_galaxy_yml_s():
    with open(os.path.join(REPO, "galaxy.yml")) as f:
        assert yaml.safe_load(f)["version"] == bounds.VERSION
    assert bounds.user_agent("finalizer") == "teardown.gates/%s (finalizer)" % bounds.VERSION


def test_aws_config_has_timeouts_one_retry_policy_and_our_user_agent():
    c = bounds.aws_config("aws_infra_inventory")
    assert (c.connect_timeout, c.read_timeout) == (bounds.AWS_CONNECT_TIMEOUT, bounds.AWS_READ_TIMEOUT)
    assert c.retries == {"mode": "standard", "max_attempts": bounds.AWS_MAX_ATTEMPTS}
    assert c.user_agent_extra == "teardown.gates/%s (aws_infra_inventory)" % bounds.VERSION
    # every attempt waits its timeouts, plus standard mode's backoff (1 + 2 + 4 s at most)
    assert bounds.aws_call_bound() == bounds.AWS_MAX_ATTEMPTS * (bounds.AWS_CONNECT_TIMEOUT + bounds.AWS_READ_TIMEOUT) + 7


def test_the_config_reaches_the_client_factory():
    seen = []
    Clients(lambda service, **kw: seen.append(kw) or object(), config="CFG").client("ec2")
    assert seen == [{"config": "CFG"}]


class Silent:
    """An EC2 client whose endpoint never answers: botocore raises ReadTimeoutError after its attempts."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, operation):
        if operation in ("client", "meta"):
            raise AttributeError(operation)

        def call(**params):
            self.calls.append(operation)
            raise botocore.exceptions.ReadTimeoutError(endpoint_url="http://10.0.0.1:443/")
        return call


def test_a_silent_endpoint_costs_one_call_bound_not_one_per_call():
    fake = Silent()
    c = Clients(lambda service: fake)
    with pytest.raises(Unanswered, match="did not answer ec2 DescribeVpcs"):
        c.call("ec2", "describe_vpcs")
    with pytest.raises(Unanswered, match="no further request to it was sent"):
        c.call("ec2", "describe_subnets")
    assert fake.calls == ["describe_vpcs"]  # the second was not sent
    assert isinstance(Unanswered(msg="x"), botocore.exceptions.BotoCoreError)  # modules' handlers catch it


def test_services_behind_one_silent_endpoint_share_its_bound():
    import types
    fake = Silent()
    fake.meta = types.SimpleNamespace(endpoint_url="http://10.0.0.1:443")  # AWS_ENDPOINT_URL: every service there
    c = Clients(lambda service: fake)
    with pytest.raises(Unanswered, match="http://10.0.0.1:443"):
        c.call("ec2", "describe_vpcs")
    with pytest.raises(Unanswered):
        c.call("iam", "list_roles")
    assert fake.calls == ["describe_vpcs"]


def test_parallel_discovery_raises_the_first_failure_without_waiting_for_the_rest():
    release = threading.Event()

    def stuck():
        release.wait(30)

    def fails():
        raise RuntimeError("no answer")
    try:
        with pytest.raises(RuntimeError, match="no answer"):
            aws_inventory._parallel(stuck, fails)
    finally:
        release.set()
    aws_inventory._parallel()  # nothing to run: returns


def test_bounded_pool_gives_a_timeout_to_requests_without_one():
    seen = []

    class Pool:
        connection_pool_kw = {}

        def request(self, method, url, **kw):
            seen.append(kw.get("timeout"))
    pool = k8s_client.BoundedPool(Pool(), bounds.k8s_timeout(3))
    pool.request("GET", "/version", timeout=None)
    pool.request("GET", "/api", timeout="ours")
    assert (seen[0].connect_timeout, seen[0].read_timeout) == (3.0, 3.0) and seen[1] == "ours"
    assert pool.connection_pool_kw == {}  # everything else is the pool's own


def test_a_client_that_never_finishes_building_is_unknown_within_its_bound(monkeypatch):
    release = threading.Event()
    monkeypatch.setattr(k8s_client, "_build_client", lambda module, auth: release.wait(30))
    monkeypatch.setattr(k8s_client, "client_bound", lambda rt: 0.2)
    try:
        with pytest.raises(k8s_client.ResourceLookupError, match="did not answer within 0 s") as e:
            k8s_client.api_client(None, request_timeout=1, host="https://10.0.0.1:6443")
    finally:
        release.set()
    assert e.value.unknown and "https://10.0.0.1:6443" in str(e.value)


def test_a_client_builder_s_exit_is_raised_in_the_module_s_thread(monkeypatch):
    def fail_json(module, auth):
        raise SystemExit(1)  # what module.fail_json does inside get_api_client
    monkeypatch.setattr(k8s_client, "_build_client", fail_json)
    with pytest.raises(SystemExit):
        k8s_client.api_client(None, request_timeout=1)
