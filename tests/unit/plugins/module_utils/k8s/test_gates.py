# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.k8s import gates as G

NP = {"api_version": "hypershift.openshift.io/v1beta1", "kind": "NodePool", "namespace": "clusters", "name": "np"}


def k8s(name, uid, fins=None, deleting=False, conditions=None, kind="NodePool"):
    meta = {"name": name, "uid": uid, "namespace": "clusters", "resourceVersion": "1"}
    if fins:
        meta["finalizers"] = fins
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"apiVersion": "hypershift.openshift.io/v1beta1", "kind": kind, "metadata": meta,
            "status": {"conditions": conditions or []}}


def listed(*items):
    return {"ok": True, "items": list(items), "resource_version": "5", "query": {}}


def gate(**kw):
    g = {"name": "g", "resources": [dict(NP)], "until": "absent"}
    g.update(kw)
    return g


# --- validation ---------------------------------------------------------------------------------

def test_valid_gate_has_no_errors():
    assert G.validate_gates([gate()], 10) == []


@pytest.mark.parametrize("bad, words", [
    ([], "non-empty"),
    ([gate(resources=[{"api_version": "v1", "kind": "ConfigMap"}])], "name or label_selector is required"),
    ([gate(resources=[dict(NP, label_selector="a=b")])], "not both"),
    ([gate(until="gone")], "until"),
    ([gate(until="condition")], "condition.type"),
    ([gate(until="finalizers_only", finalizers=["Not A Name"])], "finalizers"),
    ([gate(timeout=-1)], "timeout"),
    ([gate(), gate()], "used by another gate"),
    ([gate(resources=[{"kind": "NodePool", "name": "x"}])], "api_version: required"),
])
def test_invalid_gates_are_named(bad, words):
    errors = G.validate_gates(bad, 10)
    assert errors and any(words in e for e in errors), errors


def test_negative_global_timeout():
    assert any("timeout" in e for e in G.validate_gates([gate()], -5))


# --- absent by UID -----------------------------------------------------------------------------

def test_absent_passes_only_when_the_listed_uid_is_gone():
    st = G.GateState(gate())
    assert not st.evaluate()  # nothing listed yet: not a pass
    st.on_listed(0, listed(k8s("np", "old", fins=["f/x"], deleting=True)))
    assert not st.evaluate()
    st.on_event(0, "DELETED", k8s("np", "old", deleting=True))
    assert st.evaluate()
    res = st.result(G.PASSED)
    assert res["objects"][0]["absence_proven_by"] == "watch DELETED event"
    assert res["objects"][0]["first_observed_terminating"]


def test_recreated_object_is_reported_not_mistaken():
    st = G.GateState(gate())
    st.on_listed(0, listed(k8s("np", "old")))
    st.on_event(0, "ADDED", k8s("np", "new"))  # same name, new UID, old still present
    assert not st.evaluate()
    res = st.result(G.TIMEOUT)
    assert [r["uid"] for r in res["remaining"]] == ["old"]
    assert res["new_objects"][0]["uid"] == "new"
    # the old one goes; the new one stays: the gate holds (it waits for the UIDs seen at the start)
    st.on_event(0, "DELETED", k8s("np", "old"))
    assert st.evaluate()
    assert st.result(G.PASSED)["new_objects"][0]["recreates_uid"] == "old"


def test_relist_without_the_uid_proves_absence_and_with_a_new_uid_does_not_confuse():
    st = G.GateState(gate())
    st.on_listed(0, listed(k8s("np", "old")))
    st.on_error(0, {"error": "watch dropped"})
    assert not st.evaluate()
    st.on_listed(0, listed(k8s("np", "new")))
    assert st.evaluate()
    assert st.records["old"]["absence_proven_by"] == "list"


def test_failed_first_list_is_unknown_never_absent():
    st = G.GateState(gate())
    st.on_error(0, {"error": "connection refused"})
    assert not st.evaluate()
    assert st.unknown_selectors() == [0]


def test_empty_first_list_passes_absent():
    st = G.GateState(gate())
    st.on_listed(0, listed())
    assert st.evaluate()


# --- condition and finalizers_only --------------------------------------------------------------

def test_condition_gate_waits_for_every_object_and_known_state():
    g = gate(until="condition", condition={"type": "Ready", "status": "False", "reason": None},
             resources=[dict(NP, name=None, label_selector="a=b")])
    st = G.GateState(g)
    st.on_listed(0, listed())
    assert not st.evaluate()  # nothing to hold the condition
    st.on_event(0, "ADDED", k8s("a", "1", conditions=[{"type": "Ready", "status": "False"}]))
    st.on_event(0, "ADDED", k8s("b", "2", conditions=[{"type": "Ready", "status": "True"}]))
    assert not st.evaluate()
    st.on_event(0, "MODIFIED", k8s("b", "2", conditions=[{"type": "Ready", "status": "False"}]))
    assert st.evaluate()
    st.on_error(0, {"error": "x"})
    assert not st.evaluate()  # never on stale data


def test_finalizers_only_gate():
    g = gate(until="finalizers_only", finalizers=["openshift.io/destroy-cluster"])
    st = G.GateState(g)
    st.on_listed(0, listed(k8s("np", "1", fins=["openshift.io/destroy-cluster", "hypershift.openshift.io/finalizer"])))
    assert not st.evaluate()
    st.on_event(0, "MODIFIED", k8s("np", "1", fins=["openshift.io/destroy-cluster"]))
    assert st.evaluate()


# --- run_gate with a scripted observer ---------------------------------------------------------

class ScriptedObserver(object):
    script = []

    def __init__(self, key, resource, sink, deadline, **kw):
        self.key, self.sink = key, sink

    def start(self):
        for msg in self.script:
            self.sink.put((self.key,) + msg)

    def stop(self):
        pass


class FakeResource(object):
    namespaced = True
    kind = "NodePool"

    def __init__(self, fail):
        self.fail = fail

    def get(self, **kw):
        if self.fail:
            raise IOError("timed out")
        return {"items": [k8s("np", "old")], "metadata": {"resourceVersion": "9"}}


def test_run_gate_unknown_when_the_final_check_fails():
    ScriptedObserver.script = [("listed", listed(k8s("np", "old"))), ("error", {"error": "read timed out"})]
    res = G.run_gate(gate(), [FakeResource(fail=True)], time.monotonic() + 0.2, observer_factory=ScriptedObserver)
    assert res["state"] == G.UNKNOWN
    assert res["unknown_selectors"] and "timed out" in res["unknown_selectors"][0]["error"]


def test_run_gate_timeout_when_the_server_answers():
    ScriptedObserver.script = [("listed", listed(k8s("np", "old")))]
    res = G.run_gate(gate(), [FakeResource(fail=False)], time.monotonic() + 0.2, observer_factory=ScriptedObserver)
    assert res["state"] == G.TIMEOUT
    assert res["remaining"][0]["uid"] == "old"


def test_run_gates_stops_at_the_first_failure():
    ScriptedObserver.script = [("listed", listed(k8s("np", "old"))), ("event", "DELETED", k8s("np", "old"), time.time())]
    gates = [gate(name="a"), gate(name="b")]
    results, failed = G.run_gates(gates, [[FakeResource(False)], [FakeResource(False)]], 5,
                                  observer_factory=ScriptedObserver)
    assert failed is None and [r["state"] for r in results] == ["passed", "passed"]
    ScriptedObserver.script = [("error", {"error": "refused"})]
    results, failed = G.run_gates(gates, [[FakeResource(True)], [FakeResource(True)]], 0.2,
                                  observer_factory=ScriptedObserver)
    assert failed == 0 and [r["state"] for r in results] == ["unknown", "not_started"]


# --- on_watching: the trigger (wait_gate's deletion) once every selector has answered ---------------

class KeyedObserver(object):
    """Each observer sends its own script: ``scripts[key]`` is a list of ``(delay_seconds, msg)``, sent in
    order from a thread. Every message sent, every start and every stop go to the shared ``log``."""
    scripts = {}
    log = []
    instances = []

    def __init__(self, key, resource, sink, deadline, **kw):
        self.key, self.resource, self.sink = key, resource, sink
        self.stopped = False
        KeyedObserver.instances.append(self)

    def start(self):
        import threading

        def send():
            for delay, msg in self.scripts.get(self.key, []):
                time.sleep(delay)
                if self.stopped:
                    return
                self.log.append(("sent", self.key, msg[0]))
                self.sink.put((self.key,) + msg)
        threading.Thread(target=send, daemon=True).start()

    def stop(self):
        self.stopped = True
        self.log.append(("stopped", self.key))


@pytest.fixture
def keyed():
    KeyedObserver.scripts, KeyedObserver.log, KeyedObserver.instances = {}, [], []
    return KeyedObserver


def two_selector_gate():
    return gate(resources=[dict(NP, name="np"), dict(NP, name="np2")])


@pytest.fixture
def judged(monkeypatch, keyed):
    """Every GateState.evaluate() call is logged, so the order of trigger and judgement shows."""
    original = G.GateState.evaluate

    def evaluate(self):
        keyed.log.append(("evaluate",))
        return original(self)
    monkeypatch.setattr(G.GateState, "evaluate", evaluate)
    return keyed


def test_on_watching_waits_for_every_selector_and_comes_before_any_judgement(judged):
    judged.scripts = {0: [(0, ("listed", listed(k8s("np", "u1"))))],
                      1: [(0.3, ("listed", listed(k8s("np2", "u2"))))]}
    calls = []

    def trigger():
        calls.append([e for e in judged.log if e[0] == "sent"])
        judged.log.append(("trigger",))
    # the objects stay, so the gate runs to its deadline: 5 s leaves the scripted 0.3 s room on a loaded machine
    res = G.run_gate(two_selector_gate(), [FakeResource(False), FakeResource(False)], time.monotonic() + 5.0,
                     observer_factory=judged, on_watching=trigger, final_check=False)
    assert len(calls) == 1
    assert sorted(k for sent, k, kind in calls[0] if kind == "listed") == [0, 1]  # both had answered
    kinds = [e[0] for e in judged.log]
    assert "evaluate" in kinds and kinds.index("trigger") < kinds.index("evaluate")
    assert res["state"] == G.TIMEOUT  # both objects stay: nothing deleted them


def test_on_watching_waits_for_a_successful_list_after_a_failed_one(judged):
    # a failed first list is no view of the objects: a deletion then could go unseen. Both lists find nothing, so
    # the gate passes as soon as it may judge: the deadline is only a bound (a 1.5 s one failed make test's unit
    # stage at load 18, when the scripted thread was not scheduled in time)
    judged.scripts = {0: [(0, ("listed", listed()))],
                      1: [(0.1, ("error", {"error": "HTTP 503: busy"})), (0.3, ("listed", listed()))]}
    calls = []

    def trigger():
        calls.append([e for e in judged.log if e[0] == "sent"])
    res = G.run_gate(two_selector_gate(), [FakeResource(False), FakeResource(False)], time.monotonic() + 60,
                     observer_factory=judged, on_watching=trigger, final_check=False)
    assert res["state"] == G.PASSED
    assert len(calls) == 1
    assert (("sent", 1, "listed") in calls[0]) and (("sent", 1, "error") in calls[0])


def test_on_watching_is_not_called_while_a_selector_only_fails(judged):
    judged.scripts = {0: [(0, ("listed", listed(k8s("np", "u1"))))],
                      1: [(0.05, ("error", {"error": "HTTP 503: busy"}))]}
    calls = []
    res = G.run_gate(two_selector_gate(), [FakeResource(False), FakeResource(False)], time.monotonic() + 0.4,
                     observer_factory=judged, on_watching=lambda: calls.append(1), final_check=False)
    assert calls == [] and res["state"] == G.UNKNOWN


def test_on_watching_is_not_called_before_a_selector_answers(judged):
    judged.scripts = {0: [(0, ("listed", listed(k8s("np", "u1"))))], 1: []}  # the second never answers
    calls = []
    res = G.run_gate(two_selector_gate(), [FakeResource(False), FakeResource(False)], time.monotonic() + 0.3,
                     observer_factory=judged, on_watching=lambda: calls.append(1), final_check=False)
    assert calls == [] and res["state"] == G.UNKNOWN
    assert ("evaluate",) not in judged.log  # never judged while the trigger is pending


def test_on_watching_is_called_even_when_everything_is_absent_at_the_first_list(judged):
    judged.scripts = {0: [(0, ("listed", listed()))]}  # nothing there: the gate would pass at once
    calls = []

    def trigger():
        calls.append(1)
        judged.log.append(("trigger",))
    res = G.run_gate(gate(), [FakeResource(False)], time.monotonic() + 5.0, observer_factory=judged,
                     on_watching=trigger, final_check=False)
    assert res["state"] == G.PASSED and calls == [1]
    assert [e[0] for e in judged.log if e[0] in ("trigger", "evaluate")][0] == "trigger"


def test_on_watching_is_called_once_even_when_a_selector_lists_again(judged):
    # a re-list after a dropped watch is another "listed" from the same selector: no second call
    judged.scripts = {0: [(0, ("listed", listed(k8s("np", "u1")))), (0.1, ("listed", listed(k8s("np", "u1")))),
                          (0.1, ("listed", listed(k8s("np", "u1"))))]}
    calls = []
    res = G.run_gate(gate(), [FakeResource(False)], time.monotonic() + 1.5, observer_factory=judged,
                     on_watching=lambda: calls.append(1), final_check=False)
    assert [e for e in judged.log if e[0] == "sent"] == [("sent", 0, "listed")] * 3  # all three were sent
    assert calls == [1] and res["state"] == G.TIMEOUT


def test_what_on_watching_does_is_seen(judged):
    judged.scripts = {0: [(0, ("listed", listed(k8s("np", "u1"))))]}
    calls = []

    def delete():  # as the deletion would: the watch then sees the object go
        calls.append(1)
        judged.instances[0].sink.put((0, "event", "DELETED", k8s("np", "u1", deleting=True), time.time()))
    res = G.run_gate(gate(), [FakeResource(False)], time.monotonic() + 5.0, observer_factory=judged,
                     on_watching=delete, final_check=False)
    assert res["state"] == G.PASSED and calls == [1]
    assert res["objects"][0]["absence_proven_by"] == "watch DELETED event"


def test_on_watching_error_propagates_and_stops_the_observers(judged):
    judged.scripts = {0: [(0, ("listed", listed(k8s("np", "u1"))))],
                      1: [(0, ("listed", listed(k8s("np2", "u2"))))]}

    def refused():
        raise RuntimeError("the deletion was refused")
    with pytest.raises(RuntimeError, match="refused"):
        G.run_gate(two_selector_gate(), [FakeResource(False), FakeResource(False)], time.monotonic() + 5.0,
                   observer_factory=judged, on_watching=refused)
    assert sorted(e[1] for e in judged.log if e[0] == "stopped") == [0, 1]
    assert ("evaluate",) not in judged.log


def test_run_gates_gives_on_watching_to_the_first_gate_only(keyed):
    keyed.scripts = {0: [(0, ("listed", listed()))]}  # every gate: nothing there, passes at once
    first, second = FakeResource(False), FakeResource(False)
    seen = []

    def trigger():
        seen.append([ob.resource for ob in keyed.instances])
    results, failed = G.run_gates([gate(name="a"), gate(name="b")], [[first], [second]], 5,
                                  observer_factory=keyed, on_watching=trigger)
    assert failed is None and [r["state"] for r in results] == ["passed", "passed"]
    assert len(seen) == 1 and seen[0] == [first]  # called while only the first gate was watched
    assert [ob.resource for ob in keyed.instances] == [first, second]


# --- stall: no progress by the owners for stall_after seconds -----------------------------------------

class Clock(object):
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_a_heartbeat_is_not_progress_but_a_finalizer_change_is():
    clock = Clock()
    st = G.GateState(gate(), now=clock)
    st.on_listed(0, listed(k8s("np", "u1", fins=["a/b", "c/d"])))
    clock.t += 30
    beat = k8s("np", "u1", fins=["a/b", "c/d"])
    beat["metadata"]["resourceVersion"] = "7"
    st.on_event(0, "MODIFIED", beat)
    assert st.stalled(30) and st.last_progress == 1000.0
    clock.t += 1
    st.on_event(0, "MODIFIED", k8s("np", "u1", fins=["a/b"]))
    assert not st.stalled(30)
    assert st.last_progress == 1031.0 and "finalizers now a/b" in st.last_progress_what


@pytest.mark.parametrize("change", ["deleting", "condition", "gone", "new"])
def test_each_kind_of_progress_resets_the_stall(change):
    clock = Clock()
    st = G.GateState(gate(), now=clock)
    st.on_listed(0, listed(k8s("np", "u1")))
    clock.t += 50
    if change == "deleting":
        st.on_event(0, "MODIFIED", k8s("np", "u1", deleting=True))
    elif change == "condition":
        deleting = {"type": "Deleting", "status": "True", "reason": "WaitingForWorkersDeletion"}
        st.on_event(0, "MODIFIED", k8s("np", "u1", conditions=[deleting]))
    elif change == "gone":
        st.on_event(0, "DELETED", k8s("np", "u1"))
    else:
        st.on_event(0, "ADDED", k8s("np2", "u2"))
    assert st.last_progress == 1050.0
    assert not st.stalled(10)


def test_an_unknown_selector_never_stalls():
    clock = Clock()
    st = G.GateState(gate(), now=clock)
    assert not st.stalled(1)  # nothing listed yet
    st.on_listed(0, listed(k8s("np", "u1")))
    st.on_error(0, {"error": "watch dropped"})
    clock.t += 100
    assert not st.stalled(1)
    st.on_listed(0, listed(k8s("np", "u1")))
    assert st.stalled(1)


def test_run_gate_ends_stalled_before_its_deadline_and_says_since_when():
    ScriptedObserver.script = [("listed", listed(k8s("np", "old")))]
    t0 = time.monotonic()
    res = G.run_gate(gate(), [FakeResource(fail=False)], t0 + 30, observer_factory=ScriptedObserver, stall_after=0.3)
    assert res["state"] == G.STALLED
    assert time.monotonic() - t0 < 20
    assert res["remaining"][0]["uid"] == "old"
    assert res["last_progress_what"] == "gate opened" and res["last_progress"]


def test_without_stall_after_the_same_gate_times_out():
    ScriptedObserver.script = [("listed", listed(k8s("np", "old")))]
    res = G.run_gate(gate(), [FakeResource(fail=False)], time.monotonic() + 0.3, observer_factory=ScriptedObserver)
    assert res["state"] == G.TIMEOUT
