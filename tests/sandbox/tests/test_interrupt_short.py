"""The short form of the interruption campaign (tests/chaos/interrupt.py, `make chaos`).

The pure parts first (what counts as a finalizer removal, which one the hosted-cluster role may send),
then one kill per playbook for the two quickest playbooks, each beside its uninterrupted reference:
the campaign must kill both, and end with no violation and no harness error.
"""
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "chaos"))

import interrupt  # noqa: E402

# alone on the sandbox (tests/run_all.sh runs these after the others, one at a time): it judges every
# finalizer change in the audit log, whoever sent it
pytestmark = pytest.mark.exclusive

SHORT_PLAYBOOKS = "clear_cfn_refusals,release_held_deletion"


def _patch(ops):
    return {"method": "PATCH", "path": "/apis/hypershift.openshift.io/v1beta1/namespaces/t/hostedclusters/t",
            "body": json.dumps(ops), "time": 100.0}


def test_finalizer_changes_name_what_comes_off():
    remove = _patch([{"op": "test", "path": "/metadata/finalizers/1", "value": "openshift.io/destroy-cluster"},
                     {"op": "remove", "path": "/metadata/finalizers/1"}])
    assert interrupt.finalizer_changes(remove) == [("remove", "openshift.io/destroy-cluster")]
    add = _patch([{"op": "add", "path": "/metadata/finalizers/-", "value": "openshift.io/destroy-cluster"}])
    assert interrupt.finalizer_changes(add) == [("add", "openshift.io/destroy-cluster")]
    blind = _patch([{"op": "remove", "path": "/metadata/finalizers/0"}])
    assert interrupt.finalizer_changes(blind)[0][0] == "rewrite"
    merge = {"method": "PATCH", "path": "/api/v1/namespaces/t/configmaps/c",
             "body": json.dumps({"metadata": {"finalizers": None}})}
    assert interrupt.finalizer_changes(merge)[0][0] == "rewrite"
    label = {"method": "PATCH", "path": "/api/v1/namespaces/t/configmaps/c", "body": '{"metadata":{"labels":{"a":"b"}}}'}
    assert interrupt.finalizer_changes(label) == []
    assert interrupt.entry_namespace("/api/v1/namespaces/t-target/configmaps/c?x=1") == "t-target"
    assert interrupt.entry_namespace("/api/v1/namespaces/t") == "t"
    assert interrupt.entry_namespace("/apis/x/v1/things") == ""


def test_only_the_documented_finalizer_path_is_allowed():
    hc = interrupt.PLAYBOOKS["destroy_hosted_cluster"]
    remove = _patch([{"op": "test", "path": "/metadata/finalizers/0", "value": "openshift.io/destroy-cluster"},
                     {"op": "remove", "path": "/metadata/finalizers/0"}])
    change = interrupt.finalizer_changes(remove)[0]
    phase5 = [{"name": "teardown.gates.hosted_cluster_destroy : Phase 5 | Remove the CLI finalizer openshift.io/destroy-cluster", "t": 99.0}]
    assert hc.allowed_finalizer_change(change, remove, "t", phase5)
    # before the documented task started, from another object, or another finalizer: not allowed
    assert not hc.allowed_finalizer_change(change, remove, "t", [dict(phase5[0], t=101.0)])
    assert not hc.allowed_finalizer_change(change, remove, "other", phase5)
    other = _patch([{"op": "test", "path": "/metadata/finalizers/0", "value": "hypershift.openshift.io/finalizer"},
                    {"op": "remove", "path": "/metadata/finalizers/0"}])
    assert not hc.allowed_finalizer_change(interrupt.finalizer_changes(other)[0], other, "t", phase5)
    for name in ("prune_releases", "release_held_deletion", "clear_cfn_refusals"):
        assert not interrupt.PLAYBOOKS[name].allowed_finalizer_change(change, remove, "t", phase5)


def test_short_interruption_campaign(tmp_path):
    # seed 1057 draws kill points after mutations began: clear_cfn_refusals after task 9 (the stacks' teardown),
    # release_held_deletion after task 12 (the restore sent, CAPTF acting on it); CHAOS_SEED draws others
    seed = int(os.environ.get("CHAOS_SEED", "1057"))
    results = tmp_path / "interrupt.json"
    p = subprocess.run([sys.executable, os.path.join(REPO, "tests", "chaos", "interrupt.py"), "--kills", "1",
                        "--seed", str(seed), "--playbooks", SHORT_PLAYBOOKS, "--results", str(results),
                        "--workdir", str(tmp_path / "work")],
                       capture_output=True, text=True, timeout=900, check=False)
    out = p.stdout + p.stderr
    assert results.exists(), out[-4000:]
    summary = json.loads(results.read_text())
    assert not summary["harness_errors"], summary["harness_errors"]
    assert summary["violations"] == [], json.dumps(summary["violations"], indent=1)[:4000]
    assert summary["runs"] == 4, out[-2000:]
    # both kill points drawn for this seed lie inside the runs; a run that ended before one is no kill
    assert summary["kills"] + summary["kill_points_missed"] == 2, out[-2000:]
    assert summary["kills"] >= 1, out[-2000:]
    assert p.returncode == 0, out[-4000:]
    assert out.strip().splitlines()[-1] == f"interrupt: runs=4 kills={summary['kills']} violations=0"
