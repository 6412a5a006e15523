"""tests/chaos/run.py's plan for the concurrent case (issue 36, part 3), and its seeds kept apart from its
crash-and-restarts (at the end), without a sandbox.

The concurrent case took PLAYBOOKS[seed % 5], and the default mix puts every concurrent slot on one residue
modulo 5, so a campaign ran one playbook concurrently (sweep_orphans at the default seed) and never the other
four. The plan now rotates the playbook over the campaign's concurrent runs. These tests run the campaign's
own code (plan, one_run, the summary, main) with every case replaced by a stub, the concurrent one choosing its
playbook the way the real case does (case_concurrent.playbook_of).
"""
import importlib.util
import json
import os
import random
import threading
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIVE = {"destroy_hosted_cluster", "prune_releases", "clear_cfn_refusals", "release_held_deletion", "sweep_orphans"}


def load():
    spec = importlib.util.spec_from_file_location("chaos_run", os.path.join(REPO, "tests", "chaos", "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


chaos = load()
concurrent_case = chaos._concurrent_case()
DEFAULT = chaos.DEFAULT_CASES.split(",")
# three fixed campaign seeds, the five residues modulo 5 at the default seed, and a few drawn for this test run
# (printed on failure, so a failing draw can be replayed)
SEEDS = [42000, 51000, 63000, 42001, 42002, 42003, 42004] + random.SystemRandom().sample(range(1, 10 ** 7), 5)


def names(playbooks):
    return [chaos.pb_name(p) for p in playbooks]


def test_the_five_playbooks_are_the_playbooks_directory():
    on_disk = {f[:-len(".yml")] for f in os.listdir(os.path.join(REPO, "playbooks")) if f.endswith(".yml")}
    assert set(names(concurrent_case.PLAYBOOKS)) == FIVE
    assert FIVE <= on_disk, on_disk


def test_the_default_mix_puts_every_concurrent_slot_on_one_residue():
    # why the seed could not choose: at any start seed the concurrent runs' seeds share their residue modulo 5
    slots = [i for i, c in enumerate(DEFAULT) if c == "concurrent"]
    assert len(slots) >= 4, slots
    for seed in SEEDS:
        assert len({(seed + i) % 5 for i in range(150) if i % len(DEFAULT) in slots}) == 1


@pytest.mark.parametrize("seed", SEEDS)
def test_a_default_campaign_of_150_runs_plans_every_playbook_concurrently(seed):
    plan = chaos.plan(150, seed, DEFAULT)
    runs = [p for p in plan if p[2] == "concurrent"]
    ran = names(pb for index, run_seed, case, pb in runs)
    assert set(ran) == FIVE, (seed, ran)
    # 12 concurrent runs: each playbook at least twice, none more than three times
    assert len(runs) == 12 and all(2 <= ran.count(n) <= 3 for n in FIVE), (seed, ran)
    # the other cases carry no playbook and keep their round-robin places and seeds
    assert [(i, s, c) for i, s, c, pb in plan] == [(i, seed + i, DEFAULT[i % len(DEFAULT)]) for i in range(150)]
    assert all(pb is None for index, run_seed, c, pb in plan if c != "concurrent")


@pytest.mark.parametrize("seed", range(42000, 42000 + 2 * len(DEFAULT)))
def test_every_start_seed_covers_the_five_once_the_campaign_has_five_concurrent_runs(seed):
    plan = chaos.plan(150, seed, DEFAULT)
    runs = [pb for index, run_seed, c, pb in plan if c == "concurrent"]
    for k in range(len(runs) - 4):
        assert set(names(runs[k:k + 5])) == FIVE, (seed, k, names(runs))
    # with the default mix the fifth concurrent run is run 55 (index 54): from 55 runs on, all five
    assert set(names(pb for index, run_seed, c, pb in chaos.plan(55, seed, DEFAULT) if c == "concurrent")) == FIVE


def test_a_concurrent_only_campaign_of_five_runs_runs_each_playbook_once():
    for seed in SEEDS:
        assert sorted(names(pb for *head, pb in chaos.plan(5, seed, ["concurrent"]))) == sorted(FIVE)


def test_the_short_campaign_keeps_its_clear_cfn_refusals_run():
    # tests/sandbox/tests/test_chaos_short.py: seed 4242, the concurrent case first; it counts on the quick pair
    assert chaos.plan(4, 4242, ["concurrent", "apiserver-restart", "wait-gate", "aws-infra"])[0][3] == \
        "clear_cfn_refusals.yml"


def test_a_pin_runs_that_playbook_and_leaves_the_rotation():
    plan = chaos.plan(4, 100, ["concurrent", "concurrent:sweep_orphans", "concurrent:prune_releases.yml"])
    assert [pb for *head, pb in plan] == [concurrent_case.PLAYBOOKS[0], "sweep_orphans.yml", "prune_releases.yml",
                                          concurrent_case.PLAYBOOKS[1]]
    # a replay: --seed <the run's seed> --runs 1 --cases concurrent:<what its line printed>
    for seed, pb in [(p[1], p[3]) for p in chaos.plan(150, 42000, DEFAULT) if p[2] == "concurrent"]:
        assert chaos.plan(1, seed, ["concurrent:" + chaos.pb_name(pb)])[0][3] == pb


@pytest.mark.parametrize("spec", ["concurrent:nope", "wait-gate:prune_releases", "no-such-case", "concurrent:"])
def test_a_bad_case_is_refused(spec):
    if spec == "concurrent:":  # an empty pin is the plain case
        assert chaos.split_case(spec) == ("concurrent", None)
        return
    with pytest.raises(ValueError):
        chaos.split_case(spec)


def test_the_case_refuses_a_run_without_the_plans_playbook():
    with pytest.raises(ValueError):
        concurrent_case.playbook_of({"seed": 42004})
    assert concurrent_case.playbook_of({"seed": 42004, "playbook": "prune_releases.yml"}) == "prune_releases.yml"


def stub_cases(monkeypatch):
    """Every case a stub that returns at once; the concurrent one picks its playbook as the real case does."""
    chosen = []

    def concurrent_stub(run, rng, ctx):
        pb = concurrent_case.playbook_of(run)
        chosen.append((run["seed"], pb))
        run["concurrent"] = {label: {"rc": 0} for label in ("a", "b")}  # both runs carried out
        chaos.add_fault(run, "concurrent-run", 2)
        return []

    for name in list(chaos.CASES):
        monkeypatch.setitem(chaos.CASES, name, lambda run, rng, ctx: [])
    monkeypatch.setitem(chaos.CASES, "concurrent", concurrent_stub)
    return chosen


@pytest.mark.parametrize("seed", SEEDS[:3] + SEEDS[-2:])
def test_a_campaign_runs_and_reports_every_playbook_concurrently(seed, tmp_path, monkeypatch, capsys):
    chosen = stub_cases(monkeypatch)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "no-kubeconfig"))
    monkeypatch.setenv("SANDBOX_AWS_CONTROL", "http://127.0.0.1:9/")  # not called: --budget-scale 0
    results = tmp_path / "latest.json"
    rc = chaos.main(["--runs", "150", "--seed", str(seed), "--jobs", "4", "--budget-scale", "0",
                     "--results", str(results), "--workdir", str(tmp_path / "work")])
    out, err = capsys.readouterr()
    assert rc == 0, err[-2000:]
    assert set(names(pb for run_seed, pb in chosen)) == FIVE, (seed, chosen)
    summary = json.loads(results.read_text())
    assert summary["runs"] == 150 and summary["violations"] == 0
    counts = summary["concurrent_playbooks"]
    assert set(counts) == FIVE and all(n >= 2 for n in counts.values()), (seed, counts)
    assert sum(counts.values()) == summary["by_case"]["concurrent"]["runs"] == 12
    # the run's details name the playbook the case ran, and its line prints it as a replayable --cases
    for r in summary["details"]:
        if r["case"] == "concurrent":
            assert (r["seed"], r["playbook"]) in chosen
            assert f"seed={r['seed']} case=concurrent:{chaos.pb_name(r['playbook'])} " in err
    lines = out.strip().splitlines()
    head, sep, pairs = lines[-2].partition(": concurrent playbooks: ")
    assert head == "chaos" and {k: int(n) for k, n in (p.split("=") for p in pairs.split())} == counts, lines[-2]
    assert lines[-1] == f"chaos: runs=150 faults={summary['faults']} violations=0"


def test_main_refuses_a_bad_pin(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "no-kubeconfig"))
    monkeypatch.setenv("SANDBOX_AWS_CONTROL", "http://127.0.0.1:9/")
    assert chaos.main(["--runs", "1", "--cases", "concurrent:nope", "--budget-scale", "0",
                       "--results", str(tmp_path / "r.json"), "--workdir", str(tmp_path / "w")]) == 2
    assert "no such playbook" in capsys.readouterr().err


def test_every_aws_type_the_cleanup_deletes_has_its_delete_action_in_the_concurrent_check():
    # The report-true check accepts a resource both runs claim as deleted only when each run's key sent that type's
    # delete. A type missing from DELETE_ACTIONS (AWS::EC2::Volume was, campaign seed 42000, run 42129) turns two
    # true reports into a violation: every type the AWS graph names must be there.
    import re
    graph = open(os.path.join(REPO, "plugins", "module_utils", "aws", "graph.py")).read()
    types = set(re.findall(r'^[A-Z_]+ = "((?:AWS|Custom)::[A-Za-z0-9:]+)"', graph, re.M))
    assert "AWS::EC2::Volume" in types and len(types) > 15
    assert sorted(types - set(concurrent_case.DELETE_ACTIONS)) == []


def test_two_runs_deleting_one_release_are_both_true_only_when_each_delete_went_through(tmp_path):
    # seed 51014: both prune runs sent DELETE for one Release and both reports said "deletion requested"
    path = "/apis/core.convoy.kumodo.io/v1alpha1/namespaces/ns1/releases/r1"
    rows = [{"fault": None, "method": "DELETE", "path": path, "time": 1.0},
            {"fault": "status-503", "method": "DELETE", "path": path, "time": 2.0},
            {"fault": None, "method": "GET", "path": path, "time": 3.0}]
    log = tmp_path / "kubeproxy.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    releases = concurrent_case.Releases()
    seeded = {"namespace": "ns1", "releases": ["r1"]}
    assert not releases.sent_by_both("r1", seeded, str(tmp_path))  # one forwarded, one faulted: one report is false
    log.write_text(log.read_text() + json.dumps(dict(rows[0], time=4.0)) + "\n")
    assert releases.sent_by_both("r1", seeded, str(tmp_path))
    assert not releases.sent_by_both("r2", seeded, str(tmp_path))


def test_two_runs_restoring_one_held_object_are_both_true_only_when_each_patch_went_through(tmp_path):
    # seed 14039: both release_held_deletion runs PATCHed captf.io/restore-state 0.11 s apart, both reports said
    # "restored", and the campaign counted a false report
    path = "/apis/infrastructure.cluster.x-k8s.io/v1alpha1/namespaces/ns1/terraformclusters/t1"
    restore = '[{"op": "test", "path": "/metadata/uid", "value": "u1"}, {"op": "add", "path": "/metadata/annotations", ' \
              '"value": {"captf.io/restore-state": "11"}}]'
    abandon = restore.replace("captf.io/restore-state", "captf.io/abandon-infrastructure").replace('"11"', '"u1"')
    rows = [{"fault": None, "method": "PATCH", "path": path, "body": restore, "time": 1.0},
            {"fault": "status-503", "method": "PATCH", "path": path, "body": restore, "time": 2.0},
            {"fault": None, "method": "GET", "path": path, "time": 3.0}]
    log = tmp_path / "kubeproxy.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    held = concurrent_case.HeldDeletion()
    seeded = {"namespace": "ns1", "name": "t1"}
    assert not held.sent_by_both("t1", seeded, str(tmp_path), ("restored", "restored"))  # the second was faulted
    assert not held.sent_by_both("t1", seeded, str(tmp_path), ("restored", "abandoned"))  # no abandon sent
    log.write_text(log.read_text() + json.dumps(dict(rows[0], time=4.0)) + "\n")
    assert held.sent_by_both("t1", seeded, str(tmp_path), ("restored", "restored"))
    assert not held.sent_by_both("t2", seeded, str(tmp_path), ("restored", "restored"))
    log.write_text(log.read_text() + json.dumps(dict(rows[0], body=abandon, time=5.0)) + "\n")
    assert held.sent_by_both("t1", seeded, str(tmp_path), ("restored", "abandoned"))


# Seeds and crash-and-restarts. Seed 13000's campaign had one harness error: a run's HostedCluster seed POSTed
# Machines while another run had CAPI's manager (their webhook) down. A seed now waits for a restart under way, a
# restart for the seeds under way, and a waiting restart keeps new seeds back.


def record(guard, kind, events, hold=0.05):
    ctx = guard.seed() if kind == "seed" else guard.restart()
    with ctx:
        events.append(("start", kind, time.monotonic()))
        time.sleep(hold)
        events.append(("end", kind, time.monotonic()))


def overlaps(events):
    """The most seeds and restarts at once, seen at each start."""
    live, worst = {"seed": 0, "restart": 0}, []
    for what, kind, dummy in sorted(events, key=lambda e: e[2]):
        live[kind] += 1 if what == "start" else -1
        worst.append(dict(live))
    return worst


def test_seeds_run_together():
    # each seed, once in, waits for the other two to be in too: a guard that kept seeds apart would break the
    # barrier. (Holding each 0.3 s and hoping they overlap failed make test's unit stage at load 13: the third
    # thread started after the first had left.)
    guard, inside, broken = chaos.SeedsApartFromRestarts(), threading.Barrier(3, timeout=20), []

    def seed():
        with guard.seed():
            try:
                inside.wait()
            except threading.BrokenBarrierError:
                broken.append(1)
    threads = [threading.Thread(target=seed) for dummy in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert broken == [] and not any(t.is_alive() for t in threads)


def test_a_restart_never_runs_beside_a_seed_or_another_restart():
    guard, events = chaos.SeedsApartFromRestarts(), []
    kinds = ["seed", "restart", "seed", "seed", "restart", "seed", "restart", "seed"]
    threads = [threading.Thread(target=record, args=(guard, k, events)) for k in kinds]
    for t in threads:
        t.start()
        time.sleep(0.01)
    for t in threads:
        t.join(10)
    assert len(events) == 2 * len(kinds)
    for live in overlaps(events):
        assert live["restart"] <= 1
        assert not (live["restart"] and live["seed"]), live


def test_a_waiting_restart_keeps_new_seeds_back():
    guard, order = chaos.SeedsApartFromRestarts(), []
    first_seed_in = threading.Event()

    def long_seed():
        with guard.seed():
            first_seed_in.set()
            time.sleep(0.3)
            order.append("first seed ends")

    def restart():
        with guard.restart():
            order.append("restart")

    def late_seed():
        with guard.seed():
            order.append("late seed")

    a = threading.Thread(target=long_seed)
    a.start()
    first_seed_in.wait(5)
    b = threading.Thread(target=restart)
    b.start()
    time.sleep(0.1)  # the restart is waiting for the first seed now
    c = threading.Thread(target=late_seed)
    c.start()
    for t in (a, b, c):
        t.join(5)
    assert order == ["first seed ends", "restart", "late seed"]
