"""convoy_release_info's planning reads through the sandbox's fault proxy (sandboxctl/kubeproxy.py: seeded
500/503/429 answers and dropped connections on a share of the requests).

What must hold, whatever the faults drew: a read that met a transient fault is tried again (the proxy log shows
the same GET again right after the fault), at most three times; a Release is never reported absent; a read that
still fails after its tries is reported unknown (and a Release list that fails fails the task); and the runs that
answer list every seeded Release. About a minute on the shared machine, so kept out of `make test`:
TEARDOWN_GATES_SLOW_TESTS=1 runs it (CONVOY_RETRY_RATE, CONVOY_RETRY_RUNS, CONVOY_RETRY_SEED change the draw).

Where `make test` covers it: the read service's retries, their limit and "unknown, never absent"
(tests/unit/plugins/module_utils/k8s/test_observe.py, test_reads.py); reads through the same fault proxy
(test_chaos_short.py, the wait-gate case); convoy_release_info unknown within its bound (test_bounded.py).
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

import pytest

from conftest import REPO, SANDBOX

pytestmark = pytest.mark.skipif(os.environ.get("TEARDOWN_GATES_SLOW_TESTS") != "1",
                                reason="about a minute: TEARDOWN_GATES_SLOW_TESTS=1 runs it")

RATE = float(os.environ.get("CONVOY_RETRY_RATE", "0.2"))
RUNS = int(os.environ.get("CONVOY_RETRY_RUNS", "5"))
SEED = int(os.environ.get("CONVOY_RETRY_SEED", "7"))
ATTEMPTS = 3


@pytest.fixture()
def proxy(tmp_path):
    port = int(os.environ.get("SANDBOX_PORT_BASE", "21000")) + 651
    kc, log = tmp_path / "kubeconfig", tmp_path / "proxy.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "sandboxctl.kubeproxy", "--port", str(port), "--seed", str(SEED),
                             "--rate", str(RATE), "--log", str(log), "--kubeconfig-out", str(kc)],
                            env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "tests", "sandbox")),
                            stdout=subprocess.DEVNULL, stderr=open(tmp_path / "proxy.err", "w"))
    deadline = time.monotonic() + 60
    while not kc.exists():
        assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "proxy.err").read_text()
        time.sleep(0.2)
    yield kc, log
    proc.terminate()
    proc.wait(timeout=10)


def _run(ns, kubeconfig):
    env = dict(os.environ, ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_STDOUT_CALLBACK="json")
    out = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible"), "localhost", "-m",
                          "teardown.gates.convoy_release_info", "-a", "namespace=%s kubeconfig=%s" % (ns, kubeconfig)],
                         capture_output=True, text=True, env=env, timeout=300, cwd=tempfile.gettempdir())
    return json.loads(out.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]


def test_planning_reads_retry_transient_faults_and_never_read_them_as_absent(proxy):
    kc, log = proxy
    name = "rr" + uuid.uuid4().hex[:6]
    seeded = subprocess.run([SANDBOX, "seed", "releases", "--name", name, "--namespace", name, "--knob", "count=3"],
                            capture_output=True, text=True, timeout=300)
    assert seeded.returncode == 0, seeded.stderr
    releases = sorted(json.loads(seeded.stdout.strip().splitlines()[-1])["releases"])
    results = [_run(name, kc) for dummy in range(RUNS)]
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]

    retried = 0
    for r in results:
        if r.get("failed"):
            assert "state unknown, nothing is taken as absent" in r["msg"], r["msg"]
            continue
        assert sorted(x["name"] for x in r["releases"]) == releases
        assert r["absent_names"] == [] and all(x["state"] == "present" for x in r["releases"])
        retried += sum(x["retries"] for x in r["retried"])
        assert all(0 < x["retries"] < ATTEMPTS for x in r["retried"])

    # in the proxy's log: a faulted read of a namespaced list is sent again at once (the same path), and no path
    # fails more than ATTEMPTS times in a row
    gets = [x for x in rows if x.get("method") == "GET"]
    streak = 0
    for prev, cur in zip(gets, gets[1:] + [{}]):
        streak = streak + 1 if prev.get("fault") else 0
        assert streak <= ATTEMPTS, prev
        if prev.get("fault") and streak < ATTEMPTS and "/namespaces/" in prev["path"] and cur:
            assert cur.get("path") == prev["path"], (prev, cur)
        if cur.get("path") != prev.get("path"):
            streak = 0
    faulted = sum(1 for x in gets if x.get("fault"))
    assert faulted > 0 and retried > 0, "the draw met no fault: raise CONVOY_RETRY_RATE or change CONVOY_RETRY_SEED"
