"""The short form of `make chaos`: a few faulty runs, the fault proxy itself, the finalizer-write detector.

The full campaign is tests/chaos/run.py (make chaos); here a few runs (SHORT below: the API server
restarted mid-wait, two concurrent playbook runs, wait_gate under proxy faults, aws_infra_cleanup under AWS faults, through the same
worker pool as the full campaign) must inject faults of each kind asked for and end with no invariant
violation.
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

# alone on the sandbox (tests/run_all.sh runs these after the others, one at a time): it restarts the API
# server and judges the audit log of the whole sandbox
pytestmark = pytest.mark.exclusive


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


def test_only_the_documented_finalizer_removal_is_allowed():
    cli = chaos.CLI_FINALIZER

    def patch(*ops):
        return {"method": "PATCH", "path": "/apis/h/v1/namespaces/a/hostedclusters/b", "body": json.dumps(list(ops))}
    entries = [
        patch({"op": "test", "path": "/metadata/uid", "value": "u"},
              {"op": "add", "path": "/metadata/finalizers/-", "value": cli}),                  # adding: fine
        patch({"op": "test", "path": "/metadata/finalizers/1", "value": cli},
              {"op": "remove", "path": "/metadata/finalizers/1"}),                             # documented: fine
        patch({"op": "test", "path": "/metadata/finalizers/0", "value": "hypershift.openshift.io/finalizer"},
              {"op": "remove", "path": "/metadata/finalizers/0"}),                             # the HO's: caught
        patch({"op": "remove", "path": "/metadata/finalizers/1"}),                              # untested: caught
        patch({"op": "replace", "path": "/metadata/finalizers", "value": [cli]}),               # rewrite: caught
        {"method": "PATCH", "path": "/x", "body": json.dumps({"metadata": {"finalizers": None}})},  # merge: caught
    ]
    caught = chaos.finalizer_writes(entries, allowed_removals={cli})
    assert [entries.index(next(e for e in entries if e["body"][:500] == w["body"])) for w in caught] == [2, 3, 4, 5]


def test_a_take_over_removal_the_server_refused_is_not_held_against_the_reports():
    # seed 42125: the hypershift-operator removed its finalizer a millisecond before the take-over's json-patch
    # arrived; the patch's test failed (422) and the take-over rightly recorded nothing
    ho = "hypershift.openshift.io/finalizer"
    sent = {"id": 7, "method": "PATCH", "path": "/apis/h/v1/namespaces/a/hostedclusters/b", "fault": None,
            "body": json.dumps([{"op": "test", "path": "/metadata/finalizers/0", "value": ho},
                                {"op": "remove", "path": "/metadata/finalizers/0"}])}
    assert chaos.unrecorded_take_overs([sent], [{}], {7: 422}) == []
    # applied (200), or its answer unknown: no report lists it, so it is caught
    assert len(chaos.unrecorded_take_overs([sent], [{}], {7: 200})) == 1
    assert len(chaos.unrecorded_take_overs([sent], [{}], {})) == 1
    listed = {"taken_over": [{"finalizers_removed": [{"object": {"name": "b"}, "finalizer": ho, "evidence": [{}]}]}]}
    assert chaos.unrecorded_take_overs([sent], [listed], {7: 200}) == []


def test_proxy_logs_the_servers_answer_to_each_write(tmp_path):
    proxy = chaos.KubeProxy(str(tmp_path), seed=7, rate=0.0)
    core = client.CoreV1Api(config.new_client_from_config(proxy.kubeconfig))
    name = "chaos-answers-%d" % os.getpid()
    try:
        core.create_namespaced_config_map("default", {"metadata": {"name": name}}, _request_timeout=10)
        failing = [{"op": "test", "path": "/metadata/name", "value": "other"},
                   {"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]
        with pytest.raises(client.exceptions.ApiException) as refused:
            core.api_client.call_api(
                "/api/v1/namespaces/default/configmaps/" + name, "PATCH", body=failing,
                header_params={"Content-Type": "application/json-patch+json"}, auth_settings=["BearerToken"],
                _request_timeout=10)
        writes = [e for e in proxy.entries() if e["method"] in ("POST", "PATCH")]
        assert [proxy.answers().get(e["id"]) for e in writes] == [201, refused.value.status]
        assert refused.value.status >= 400
    finally:
        core.delete_namespaced_config_map(name, "default", _request_timeout=10)
        proxy.stop()


def test_proxy_answers_faults_as_the_api_server_and_forwards_the_rest(tmp_path):
    proxy = chaos.KubeProxy(str(tmp_path), seed=7, rate=1.0)
    try:
        core = client.CoreV1Api(config.new_client_from_config(proxy.kubeconfig))
        seen = set()
        for _ in range(8):
            try:
                core.read_namespace("default", _request_timeout=10)
                seen.add("slow")  # the one fault that answers: held 1..4 s, then forwarded
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
        # every request that answered was a slow one, and each was held as long as the log says
        assert ("slow" in seen) == ("slow" in faults[:8])
        assert all(1 <= e["delay"] <= 4 for e in proxy.entries()[:8] if e["fault"] == "slow")
    finally:
        proxy.stop()


# Round-robin over these cases, one run each: the API server restart first (alone), then, side by side in
# the pool, two concurrent clear_cfn_refusals runs on one pair of stacks (the campaign's plan gives its
# first concurrent run PLAYBOOKS[seed % 5]: 4242 is clear_cfn_refusals, ~35 s), wait_gate under proxy faults and
# aws_infra_cleanup under AWS faults and the shared EC2 budget. prune_releases with the convoy twin crashing
# (two ansible-playbook runs, ~90 s alone on this machine) only with TEARDOWN_GATES_SLOW_TESTS=1. Where `make test`
# covers it: the apiserver-restart case here (a restart during a wait), molecule release_prune (the prune itself).
SHORT = ["concurrent", "apiserver-restart", "wait-gate", "aws-infra"] + (
    ["twin-crash"] if os.environ.get("TEARDOWN_GATES_SLOW_TESTS") else [])


def test_short_campaign_has_no_violation(tmp_path):
    seed = int(os.environ.get("CHAOS_SEED", "4242"))
    results = tmp_path / "short.json"
    p = subprocess.run(
        [sys.executable, os.path.join(REPO, "tests", "chaos", "run.py"), "--runs", str(len(SHORT)), "--seed", str(seed),
         "--cases", ",".join(SHORT), "--jobs", "3", "--results", str(results), "--workdir", str(tmp_path / "work")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    out = p.stdout
    assert results.exists(), out
    summary = json.loads(results.read_text())
    detail = json.dumps(summary["details"], indent=1)[:4000]
    assert summary["harness_errors"] == 0, detail
    assert summary["violations"] == 0, detail
    assert summary["faults"] > len(SHORT), f"hardly a fault injected\n{detail}"
    assert summary["faults_by_kind"].get("apiserver-restart") == 1, summary["faults_by_kind"]
    assert any(k.startswith("aws-") for k in summary["faults_by_kind"]), summary["faults_by_kind"]
    assert summary["faults_by_kind"].get("concurrent-run") == 2, summary["faults_by_kind"]
    assert f"chaos: runs={summary['runs']} faults={summary['faults']} violations=0" in out
