"""benchmarks/bench_aws_cleanup.py: a tool that fails or prints nothing usable is a result (rc, stderr's end),
and the scenario's cases say so instead of the bench crashing (as it did with IndexError on an empty stdout)."""
import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load():
    spec = importlib.util.spec_from_file_location("bench_aws_cleanup",
                                                  os.path.join(REPO, "benchmarks", "bench_aws_cleanup.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


bench = load()


def test_a_result_line_is_the_result():
    assert bench.command_result(0, 'noise\n{"seconds": 3.5}\n', "", bench._last_json_line) == {"seconds": 3.5}


def test_empty_stdout_is_a_failure_not_an_index_error():
    out = bench.command_result(0, "", "Traceback ...\nbotocore.exceptions.ClientError: Throttling", bench._last_json_line)
    assert out["failed"] is True and out["rc"] == 0
    assert out["stderr_tail"].endswith("Throttling")


def test_a_non_zero_rc_is_a_failure_even_with_json():
    out = bench.command_result(2, '{"seconds": 1}', "boom", bench._last_json_line)
    assert out["failed"] is True and out["rc"] == 2 and out["stderr_tail"] == "boom"


def test_a_peer_that_cannot_run_is_recorded(tmp_path):
    wall, out = bench._run([sys.executable, "-c", "import sys; sys.stderr.write('no loop here'); sys.exit(3)"],
                           bench._last_json_line)
    assert out == {"failed": True, "rc": 3, "stderr_tail": "no loop here", "stdout_tail": ""}
    assert wall >= 0


def test_scenario_cases_carry_the_peer_failure(monkeypatch):
    ours = {"requests": 10, "refused": 0, "throttled": 0, "wall": 5.0, "inside": 4.0, "left": 0,
            "max_refusals_per_resource": 1, "blockers": 1, "verified": True}
    peer = {"requests": None, "refused": None, "throttled": 0, "wall": None, "inside": None, "left": 3,
            "failure": {"rc": 1, "stderr_tail": "IndexError"}}
    hypershift = dict(ours, requests=40, wall=10.0, inside=9.0, left=0)
    monkeypatch.setattr(bench, "one_run", lambda label, throttle: {
        "ours": dict(ours), "peer": dict(peer), "hypershift": dict(hypershift),
        "ours_unversioned": dict(ours, requests=20), "hypershift_unversioned": dict(hypershift, requests=50)})
    cases = bench.scenario("10% throttled", 0.1, 1)[0]
    assert len(cases) == 5 * len(bench.PEERS)
    loop = [c for c in cases if c["peer_name"].startswith("re-try-everything")]
    model = [c for c in cases if c["peer_name"].startswith("hypershift destroy") and "unversioned" not in c["name"]]
    unversioned = [c for c in cases if "unversioned registry bucket" in c["name"]]
    assert len(loop) == 5 and len(model) == 5 and len(unversioned) == 5
    # the unversioned pair is measured against our run on the same kind of seed, not against the versioned one
    assert unversioned[0]["ours"] == 20 and unversioned[0]["peer"] == 50 and unversioned[0]["ratio"] == 2.5
    for case in loop:  # the failed peer is said in every one of its cases, and claims no figure
        assert case["peer_outcome"].startswith("failed in 1 of 1 runs") and "IndexError" in case["peer_outcome"]
        assert case["ours_outcome"] == "ran 1 of 1"
    assert loop[0]["peer"] is None and loop[0]["ratio"] is None and loop[0]["met"] is False
    assert loop[-1]["ours"] == 0 and loop[-1]["met"] is True
    # the other peer's cases are whole: its figures and ratios against ours
    assert all(c["peer_outcome"] == "ran 1 of 1" for c in model)
    assert model[0]["peer"] == 40 and model[0]["ratio"] == 4.0 and model[0]["met"] is True
    assert all("vs hypershift" in c["name"] for c in model)
