"""Fixtures for tests that run against the live sandbox (started by tests/run_all.sh)."""
import os
import subprocess

import boto3
import pytest
from kubernetes import client, config, dynamic

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SANDBOX = os.path.join(REPO, "tests", "sandbox", "sandbox")


def _require_env():
    if not os.environ.get("KUBECONFIG") or not os.environ.get("SANDBOX_AWS_LOG"):
        pytest.fail("sandbox environment missing: run through `make sandbox-tests` or "
                    "eval \"$(tests/sandbox/sandbox env)\" first")


@pytest.fixture(scope="session")
def api_client():
    _require_env()
    return config.new_client_from_config(os.environ["KUBECONFIG"])


@pytest.fixture(scope="session")
def core(api_client):
    return client.CoreV1Api(api_client)


@pytest.fixture(scope="session")
def dyn(api_client):
    return dynamic.DynamicClient(api_client)


@pytest.fixture(scope="session")
def ec2():
    _require_env()
    return boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")


@pytest.fixture()
def sandbox_cli():
    def run(*args, env=None, timeout=300):
        return subprocess.run([SANDBOX, *args], capture_output=True, text=True, env=env, timeout=timeout)
    return run
