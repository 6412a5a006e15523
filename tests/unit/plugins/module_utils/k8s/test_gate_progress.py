# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.teardown.gates.plugins.callback.gate_progress import format_progress
from ansible_collections.teardown.gates.plugins.module_utils.k8s import gates as G
from ansible_collections.teardown.gates.plugins.module_utils.k8s.gate_progress import ProgressFile


def k8s(name, uid, fins=None):
    return {"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": name, "uid": uid, "namespace": "ns", "finalizers": fins or [],
                         "deletionTimestamp": "2026-01-01T00:00:00Z"}}


def test_progress_file_follows_the_gate(tmp_path):
    path = str(tmp_path / "p.json")
    prog = ProgressFile(path, total=2, min_interval=0)
    gate = {"name": "workers gone", "until": "absent",
            "resources": [{"api_version": "v1", "kind": "ConfigMap", "namespace": "ns", "label_selector": "a=b"}]}
    st = G.GateState(gate)
    prog(0, st)
    snap = json.load(open(path))
    assert snap["listed"] is False and snap["done"] is False and snap["gate"] == "workers gone"
    assert "waiting for the first successful list" in format_progress(snap)
    st.on_listed(0, {"items": [k8s("a", "1", ["x.io/f"]), k8s("b", "2")], "resource_version": "1"})
    prog(0, st)
    line = format_progress(json.load(open(path)))
    assert line.startswith("gate 1/2 'workers gone' (absent) open")
    assert "2 left: ConfigMap ns/a (terminating) [x.io/f]; ConfigMap ns/b" in line
    st.on_error(0, {"error": "refused"})
    prog(0, st)
    assert "UNKNOWN" in format_progress(json.load(open(path)))
    st.on_listed(0, {"items": [], "resource_version": "2"})
    prog(0, st, G.PASSED)
    snap = json.load(open(path))
    assert snap["state"] == "passed" and snap["done"] is False  # gate 2 of 2 still to come
    prog(1, G.GateState(dict(gate, name="second")), G.TIMEOUT)
    snap = json.load(open(path))
    assert snap["done"] is True and snap["passed_gates"] == ["workers gone"]


class FakeDisplay(object):
    verbosity = 0

    def __init__(self):
        self.lines = []

    def display(self, msg, *a, **kw):
        self.lines.append(msg)


def test_callback_prints_live_waits_and_drops_finished_or_dead_ones(tmp_path, monkeypatch):
    import os
    from ansible_collections.teardown.gates.plugins.callback import gate_progress
    monkeypatch.setenv("TEARDOWN_GATES_PROGRESS_DIR", str(tmp_path))
    cb = gate_progress.CallbackModule(display=FakeDisplay())
    base = {"gate": "g", "index": 1, "of": 1, "until": "absent", "elapsed": 3, "listed": True,
            "remaining_count": 0, "remaining": []}
    files = {"live": dict(base, pid=os.getpid(), done=False), "done": dict(base, pid=os.getpid(), done=True),
             "dead": dict(base, pid=2 ** 22 + 12345, done=False)}
    for name, snap in files.items():
        (tmp_path / ("wait_gate-%s.json" % name)).write_text(json.dumps(snap))
    lines = cb.poll_once()
    assert lines == ["gate 1/1 'g' (absent) open 3s - 0 left: -"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wait_gate-live.json"]
