"""The short form of `make chaos`: one faulty run of each case, and the fault proxy itself.

The full campaign is tests/chaos/run.py (make chaos); here a few runs (SHORT below) must inject
faults and end with no invariant violation.
"""
import json
import os
import subprocess
import sys

import pytest
from kubernetes import client, config

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "chaos"))
sys.path.insert(0, os.path.join(REPO, "tests", "sandbox"))

import run as chaos  # noqa: E402


def test_finalizer_writes_are_caught():
    entries = [
        {"method": "PATCH", "path": "/apis/x/v1/namespaces/a/things/b",
         "body": json.dumps([{"op": "test", "path": "/metadata/finalizers/0", "value": "f"},
                             {"op": "remove", "path": "/metadata/finalizers/0"}])},
        {"method": "PUT", "path": "/api/v1/namespaces/a/configmaps/c", "body": json.dumps(
            {"metadata": {"name": "c", "finalizers": []}})},
        {"method": "PATCH", "path": "/api/v1/namespaces/a/configmaps/d", "body": '{"metadata":{"labels":{"a":"b"}}}'},
        {"method": "DELETE", "path": "/apis/x/v1/namespaces/a/things/b"},
    ]
    assert [w["path"] for w in chaos.finalizer_writes(entries)] == [
        "/apis/x/v1/namespaces/a/things/b", "/api/v1/namespaces/a/configmaps/c"]


def test_proxy_answers_faults_as_the_api_server_and_forwards_the_rest(tmp_path):
    proxy = chaos.KubeProxy(str(tmp_path), seed=7, rate=1.0)
    try:
        core = client.CoreV1Api(config.new_client_from_config(proxy.kubeconfig))
        seen = set()
        for _ in range(8):
            try:
                core.read_namespace("default", _request_timeout=10)
                pytest.fail("rate 1.0 must fault every request")
            except client.exceptions.ApiException as e:
                assert e.status in (500, 503, 429)
                assert json.loads(e.body)["kind"] == "Status"
                seen.add(e.status)
            except Exception as e:  # noqa: BLE001 - a dropped connection surfaces as urllib3's error
                assert "urllib3" in type(e).__module__ or isinstance(e, OSError), repr(e)
                seen.add("drop")
        assert len(seen) >= 2
        proxy.set_rate(0)
        assert core.read_namespace("default", _request_timeout=10).metadata.name == "default"
        faults = [e["fault"] for e in proxy.entries()]
        assert faults[:8] == [f for f in faults[:8] if f] and faults[-1] is None
    finally:
        proxy.stop()


# (case, runs): wait_gate under Kubernetes faults and aws_infra_cleanup under AWS faults, side by side;
# prune_releases (two ansible-playbook runs, ~90 s alone on this machine) only with TEARDOWN_GATES_SLOW_TESTS=1
SHORT = [("wait-gate", 2), ("aws-infra", 1)] + ([("releases", 1)] if os.environ.get("TEARDOWN_GATES_SLOW_TESTS") else [])


def test_short_campaign_has_no_violation(tmp_path):
    seed = int(os.environ.get("CHAOS_SEED", "4242"))
    base = int(os.environ.get("SANDBOX_PORT_BASE", "21000"))
    procs = []
    for offset, (case, runs) in enumerate(SHORT):
        results = tmp_path / f"{case}.json"
        env = dict(os.environ, CHAOS_PROXY_PORT=str(base + 600 + offset))
        procs.append((case, results, subprocess.Popen(
            [sys.executable, os.path.join(REPO, "tests", "chaos", "run.py"), "--runs", str(runs),
             "--seed", str(seed + 10 * offset),
             "--cases", case, "--results", str(results), "--workdir", str(tmp_path / "work")],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for case, results, p in procs:
        out, _ = p.communicate(timeout=600)
        assert results.exists(), out
        summary = json.loads(results.read_text())
        detail = json.dumps(summary["details"], indent=1)[:4000]
        assert summary["harness_errors"] == 0, detail
        assert summary["faults"] > 0, f"{case}: no fault injected\n{detail}"
        assert summary["violations"] == 0, detail
        assert f"chaos: runs={summary['runs']} faults={summary['faults']} violations=0" in out
