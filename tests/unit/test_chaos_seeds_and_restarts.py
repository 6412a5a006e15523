"""tests/chaos/run.py keeps its seeds apart from its crash-and-restarts, without a sandbox.

Seed 13000's campaign had one harness error: a run's HostedCluster seed POSTed Machines while another run had
CAPI's manager (their webhook) down. A seed now waits for a restart under way, a restart for the seeds under way,
and a waiting restart keeps new seeds back.
"""
import importlib.util
import os
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load():
    spec = importlib.util.spec_from_file_location("chaos_run_guard", os.path.join(REPO, "tests", "chaos", "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


chaos = load()


def record(guard, kind, events, hold=0.05):
    ctx = guard.seed() if kind == "seed" else guard.restart()
    with ctx:
        events.append(("start", kind, time.monotonic()))
        time.sleep(hold)
        events.append(("end", kind, time.monotonic()))


def overlaps(events):
    """The most seeds and restarts at once, seen at each start."""
    live, worst = {"seed": 0, "restart": 0}, []
    for what, kind, _ in sorted(events, key=lambda e: e[2]):
        live[kind] += 1 if what == "start" else -1
        worst.append(dict(live))
    return worst


def test_seeds_run_together():
    guard, events = chaos.SeedsApartFromRestarts(), []
    threads = [threading.Thread(target=record, args=(guard, "seed", events, 0.3)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert max(o["seed"] for o in overlaps(events)) == 3


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
