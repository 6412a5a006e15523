# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The gate engine: wait, by watch, until a set of objects is absent / has a condition / holds
only the named finalizers, and keep a timeline of what was observed and when.

A gate is a dict::

    {"name": "workers gone",
     "resources": [{"api_version": "hypershift.openshift.io/v1beta1", "kind": "NodePool",
                    "namespace": "clusters", "name": "demo-workers"},        # or "label_selector"
                   {"api_version": "cluster.x-k8s.io/v1beta1", "kind": "Machine",
                    "namespace": "clusters-demo", "label_selector": "cluster.x-k8s.io/cluster-name=demo"}],
     "until": "absent",                       # or "condition" / "finalizers_only"
     "condition": {"type": "Ready", "status": "True", "reason": None},
     "finalizers": ["openshift.io/destroy-cluster"],
     "timeout": 600}                          # optional, per gate

Rules the engine keeps:

- ``absent`` is by UID: the UIDs of the first successful list are the ones that must go; an
  object created later (even with the same name) is reported in ``new_objects``, never taken
  for the old one. Only a DELETED event or a successful list without the UID proves absence.
- ``condition``: every matched object (at least one) has the condition (type, status, and
  reason when given). ``finalizers_only``: every matched object holds only the named finalizers
  (an object already gone satisfies it).
- A failed list or a dropped watch makes the selector ``unknown`` until a re-list succeeds;
  ``condition`` and ``finalizers_only`` are never evaluated on stale data. At the deadline one
  verifying list per selector decides between ``timeout`` (the server answered: objects remain)
  and ``unknown`` (it did not). Neither ever passes.
- Progress is a change that the owners make to what holds the gate: an object gone, newly
  terminating or new, a changed finalizer list, a changed condition (type, status, reason or
  message). A status write that changes none of these (a heartbeat, a resourceVersion) is not
  progress. With ``stall_after``, a gate whose selectors are all known and that has shown no
  progress for that long ends ``stalled`` (after the same verifying list); a gate with an unknown
  selector never stalls, since no event may only mean no answer.

Public API:

- ``validate_gates(gates, global_timeout=None)``: list of error sentences (empty when valid); pure.
- ``GateState(gate, now=time.time)``: the pure bookkeeping (feed it lists/events/errors,
  ``evaluate()``, ``result(state)``); usable without a cluster, e.g. in unit tests.
- ``run_gate(gate, resources, deadline, request_timeout=10, observer_factory=Observer)``: one
  gate, watched until it passes or ``deadline`` (a ``time.monotonic()`` value); returns its result.
- ``run_gates(gates, resources, timeout, request_timeout=10, progress=None, on_watching=None, stall_after=None)``: the gates in order;
  stops at the first that does not pass; returns ``(results, failed_index_or_None)``.
- ``gate_progress.ProgressFile(path, total)``: writes the open gate's state as JSON for a progress display.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

try:
    import queue
except ImportError:  # pragma: no cover
    import Queue as queue  # noqa: N813

from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import list_objects, object_summary, utc_iso
from ansible_collections.teardown.gates.plugins.module_utils.k8s.watch import Observer
from ansible_collections.teardown.gates.plugins.module_utils.k8s.diagnosis import status_conditions
from ansible_collections.teardown.gates.plugins.module_utils.k8s.finalizers import validate_finalizer_name

UNTIL_CHOICES = ("absent", "condition", "finalizers_only")
PASSED, TIMEOUT, UNKNOWN, NOT_STARTED, STALLED = "passed", "timeout", "unknown", "not_started", "stalled"
TIMELINE_LIMIT = 200


def validate_gates(gates, global_timeout=None):
    """Check gate specs before any request. Returns a list of sentences naming the option and why."""
    errors = []
    if global_timeout is not None and global_timeout < 0:
        errors.append("timeout: must be 0 or more seconds, got %s" % global_timeout)
    if not isinstance(gates, list) or not gates:
        return errors + ["gates: must be a non-empty list"]
    names = set()
    for gi, gate in enumerate(gates):
        where = "gates[%d]" % gi
        if not isinstance(gate, dict):
            errors.append("%s: must be a dict" % where)
            continue
        name = gate.get("name")
        if not name:
            errors.append("%s.name: required (it labels the gate in the output)" % where)
        elif name in names:
            errors.append("%s.name: %r is used by another gate" % (where, name))
        names.add(name)
        where = "gates[%d] (%s)" % (gi, name)
        until = gate.get("until", "absent")
        if until not in UNTIL_CHOICES:
            errors.append("%s.until: must be one of %s, got %r" % (where, ", ".join(UNTIL_CHOICES), until))
        if until == "condition":
            cond = gate.get("condition") or {}
            if not isinstance(cond, dict) or not cond.get("type"):
                errors.append("%s.condition.type: required when until is condition" % where)
        if until == "finalizers_only":
            fins = gate.get("finalizers")
            if not isinstance(fins, list):
                errors.append("%s.finalizers: a list is required when until is finalizers_only" % where)
            else:
                for f in fins:
                    why = validate_finalizer_name(f)
                    if why:
                        errors.append("%s.finalizers: %s" % (where, why))
        t = gate.get("timeout")
        if t is not None and (not isinstance(t, (int, float)) or isinstance(t, bool) or t < 0):
            errors.append("%s.timeout: must be 0 or more seconds, got %r" % (where, t))
        resources = gate.get("resources")
        if not isinstance(resources, list) or not resources:
            errors.append("%s.resources: must be a non-empty list of selectors" % where)
            continue
        for ri, sel in enumerate(resources):
            sw = "%s.resources[%d]" % (where, ri)
            if not isinstance(sel, dict):
                errors.append("%s: must be a dict" % sw)
                continue
            for key in ("api_version", "kind"):
                if not sel.get(key):
                    errors.append("%s.%s: required" % (sw, key))
            has_name, has_sel = bool(sel.get("name")), bool(sel.get("label_selector"))
            if has_name and has_sel:
                errors.append("%s: give name or label_selector, not both" % sw)
            elif not has_name and not has_sel:
                errors.append("%s: name or label_selector is required (a gate never means 'every object "
                              "of a kind' by accident)" % sw)
            unknown = set(sel) - set(("api_version", "kind", "namespace", "name", "label_selector"))
            if unknown:
                errors.append("%s: unknown keys %s" % (sw, ", ".join(sorted(unknown))))
    return errors


def _uid(obj):
    return (obj.get("metadata") or {}).get("uid")


def _progress_marks(summary):
    """What an owner changes when it makes progress on an object (see the module doc)."""
    conds = sorted((str(c.get("type")), str(c.get("status")), str(c.get("reason")), str(c.get("message")))
                   for c in summary.get("conditions") or [])
    return (summary.get("deletion_timestamp"), tuple(summary.get("finalizers") or []), tuple(conds))


def _what_changed(old, new):
    parts = []
    if old.get("deletion_timestamp") != new.get("deletion_timestamp"):
        parts.append("terminating")
    if list(old.get("finalizers") or []) != list(new.get("finalizers") or []):
        parts.append("finalizers now %s" % (", ".join(new.get("finalizers") or []) or "none"))
    if _progress_marks(old)[2] != _progress_marks(new)[2]:
        parts.append("conditions")
    return ", ".join(parts)


def _condition_matches(obj, want):
    for c in status_conditions(obj):
        if not isinstance(c, dict) or c.get("type") != want.get("type"):
            continue
        if want.get("status") is not None and str(c.get("status")) != str(want.get("status")):
            return False
        if want.get("reason") and c.get("reason") != want.get("reason"):
            return False
        return True
    return False


class GateState(object):
    """The bookkeeping of one gate: what each selector has shown, per UID, with times."""

    def __init__(self, gate, now=time.time):
        self.gate = gate
        self.until = gate.get("until") or "absent"
        self.now = now
        self.started = now()
        self.sel = [{"known": False, "listed": False, "current": {}, "initial": set(), "last_error": None}
                    for dummy in gate["resources"]]
        self.records = {}  # uid -> record (tracked objects and new ones)
        self.new_uids = []
        self.timeline = []
        self.counts = {"lists": 0, "events": 0, "errors": 0}
        self.passed_at = None
        self.last_progress, self.last_progress_what = self.started, "gate opened"
        self._note(self.started, "gate opened", detail=self.until)

    # -- feeding ---------------------------------------------------------------------------
    def _note(self, at, event, obj=None, detail=None):
        if len(self.timeline) >= TIMELINE_LIMIT:
            return
        entry = {"at": utc_iso(at), "event": event}
        if obj is not None:
            meta = obj.get("metadata") or {}
            entry.update({"kind": obj.get("kind"), "name": meta.get("name"), "uid": meta.get("uid")})
            if meta.get("namespace"):
                entry["namespace"] = meta.get("namespace")
        if detail:
            entry["detail"] = detail
        self.timeline.append(entry)

    def _progress(self, at, what):
        self.last_progress, self.last_progress_what = at, what

    def _see(self, key, obj, at, via):
        uid = _uid(obj)
        s = object_summary(obj)
        rec = self.records.get(uid)
        if rec is not None and _progress_marks(rec) != _progress_marks(s):
            self._progress(at, "%s %s changed (%s)" % (s["kind"], s["name"], _what_changed(rec, s)))
        if rec is None:
            rec = {"kind": s["kind"], "api_version": s["api_version"], "name": s["name"], "namespace": s["namespace"],
                   "uid": uid, "first_observed": utc_iso(at), "first_observed_terminating": None,
                   "first_observed_absent": None, "selector": key}
            self.records[uid] = rec
        for k in ("resource_version", "deletion_timestamp", "spec_finalizers", "deletion_grace_period_seconds", "grace_deadline",
                  "termination_grace_period_seconds", "finalizers", "conditions"):
            if k in s:
                rec[k] = s[k]
        if s["deletion_timestamp"] and not rec["first_observed_terminating"]:
            rec["first_observed_terminating"] = utc_iso(at)
            self._note(at, "observed terminating", obj, detail="via %s; deletionTimestamp %s" % (via, s["deletion_timestamp"]))
        rec["_obj"] = obj
        return rec

    def _absent(self, uid, at, via):
        rec = self.records.get(uid)
        if rec is not None and not rec["first_observed_absent"]:
            rec["first_observed_absent"] = utc_iso(at)
            rec["absence_proven_by"] = via
            self._progress(at, "%s %s gone" % (rec.get("kind"), rec.get("name")))
            self._note(at, "observed absent", rec.get("_obj"), detail="by %s" % via)

    def _new(self, key, obj, at):
        uid = _uid(obj)
        if uid in self.new_uids:
            return
        self.new_uids.append(uid)
        name = (obj.get("metadata") or {}).get("name")
        same = [r["uid"] for r in self.records.values()
                if r["uid"] != uid and r["name"] == name and r["uid"] in self.sel[key]["initial"]]
        rec = self.records[uid]
        self._progress(at, "new %s %s" % (rec.get("kind"), rec.get("name")))
        if same:
            rec["recreates_uid"] = same[0]
        self._note(at, "new object (not tracked)" if not same else "recreated with a new UID", obj,
                   detail=("old UID %s" % same[0]) if same else None)

    def on_listed(self, key, res, at=None):
        """A successful list for selector ``key`` (the first sets the UIDs an absent gate waits for)."""
        at = at if at is not None else self.now()
        st = self.sel[key]
        self.counts["lists"] += 1
        seen = {}
        for item in res["items"]:
            seen[_uid(item)] = item
        first = not st["listed"]
        for uid, item in seen.items():
            self._see(key, item, at, "list")
            if first:
                st["initial"].add(uid)
            elif uid not in st["initial"]:
                self._new(key, item, at)
        for uid in list(st["initial"]):
            if uid not in seen:
                self._absent(uid, at, "list")
        if first:
            self._note(at, "listed", detail="selector %d: %d object(s)" % (key, len(seen)))
        elif not st["known"]:
            self._note(at, "re-listed after a drop", detail="selector %d: %d object(s)" % (key, len(seen)))
        st["current"] = seen
        st["listed"] = True
        st["known"] = True
        st["last_error"] = None

    def on_event(self, key, etype, obj, at=None):
        """A watch event for selector ``key``."""
        at = at if at is not None else self.now()
        st = self.sel[key]
        uid = _uid(obj)
        if not uid or not st["listed"]:
            return
        self.counts["events"] += 1
        if etype == "DELETED":
            self._see(key, obj, at, "watch")
            st["current"].pop(uid, None)
            self._absent(uid, at, "watch DELETED event")
            return
        st["current"][uid] = obj
        self._see(key, obj, at, "watch")
        if uid not in st["initial"]:
            self._new(key, obj, at)

    def on_error(self, key, query, at=None):
        """A failed list or dropped watch: the selector is unknown until the next list."""
        at = at if at is not None else self.now()
        st = self.sel[key]
        self.counts["errors"] += 1
        if st["known"] or st["last_error"] is None:
            self._note(at, "query failed: state unknown", detail=query.get("error"))
        st["known"] = False
        st["last_error"] = query

    # -- evaluating ------------------------------------------------------------------------
    def remaining(self):
        """The objects (records) that hold the gate now."""
        if self.until == "absent":
            return [self.records[u] for st in self.sel for u in sorted(st["initial"])
                    if not self.records[u]["first_observed_absent"]]
        current = [self.records[u] for st in self.sel for u in st["current"]]
        if self.until == "condition":
            want = self.gate.get("condition") or {}
            return [r for r in current if not _condition_matches(r["_obj"], want)]
        allowed = set(self.gate.get("finalizers") or [])
        return [r for r in current if not set(r.get("finalizers") or []) <= allowed]

    def evaluate(self):
        """True when the gate holds on what has been observed (never on unknown data)."""
        if not all(st["listed"] for st in self.sel):
            return False
        if self.until == "absent":
            return not self.remaining()  # absence, once proven, stays proven
        if not all(st["known"] for st in self.sel):
            return False
        if self.until == "condition" and not any(st["current"] for st in self.sel):
            return False
        return not self.remaining()

    def unknown_selectors(self):
        return [i for i, st in enumerate(self.sel) if not st["known"]]

    def stalled(self, stall_after, at=None):
        """True when every selector is known and nothing has progressed for ``stall_after`` seconds."""
        at = at if at is not None else self.now()
        if stall_after is None or not all(st["listed"] for st in self.sel) or self.unknown_selectors():
            return False
        return at - self.last_progress >= stall_after

    def mark_passed(self, at=None):
        at = at if at is not None else self.now()
        self.passed_at = at
        self._note(at, "gate passed")

    def result(self, state, ended=None):
        """The gate's result dict (see wait_gate's RETURN)."""
        ended = ended if ended is not None else (self.passed_at or self.now())
        if state != PASSED:
            self._note(ended, "gate %s" % state)

        def clean(rec):
            return dict((k, v) for k, v in rec.items() if not k.startswith("_") and v is not None)

        tracked = [clean(self.records[u]) for st in self.sel for u in sorted(st["initial"])]
        absences = [r["first_observed_absent"] for r in tracked if r.get("first_observed_absent")]
        terminating = [r["first_observed_terminating"] for r in tracked if r.get("first_observed_terminating")]
        out = {
            "name": self.gate.get("name"),
            "until": self.until,
            "state": state,
            "started": utc_iso(self.started),
            "ended": utc_iso(ended),
            "duration": round(ended - self.started, 3),
            "passed_at": utc_iso(self.passed_at) if self.passed_at else None,
            "first_observed_terminating": min(terminating) if terminating else None,
            "first_observed_absent": max(absences) if absences and self.until == "absent" and state == PASSED else None,
            "objects": tracked,
            "remaining": [clean(r) for r in self.remaining()] if state != PASSED else [],
            "new_objects": [clean(self.records[u]) for u in self.new_uids],
            "queries": dict(self.counts),
            "last_progress": utc_iso(self.last_progress),
            "last_progress_what": self.last_progress_what,
            "unknown_selectors": [
                dict(self.gate["resources"][i], error=(self.sel[i]["last_error"] or {}).get("error"))
                for i in self.unknown_selectors()],
            "timeline": self.timeline,
        }
        return out


def run_gate(gate, resources, deadline, request_timeout=10.0, observer_factory=Observer, final_check=True,
             progress=None, on_watching=None, stall_after=None):
    """Watch one gate until it passes or ``deadline`` (time.monotonic()). Returns its result dict.

    ``resources`` are the resolved dynamic-client Resources, one per selector, in order.
    ``progress(gate_state, final_state=None)``, when given, is called as the state changes.
    ``on_watching()``, when given, is called once every selector has listed successfully, before the
    gate is first judged: what it does (a deletion) is then seen from its start. A selector whose lists
    keep failing holds it back until the deadline (then it is never called). An exception it raises
    stops the gate and goes to the caller.
    """
    state = GateState(gate)
    report = progress or (lambda st, final_state=None: None)
    sink = queue.Queue()
    observers = []
    for key, (sel, res) in enumerate(zip(gate["resources"], resources)):
        ob = observer_factory(key, res, sink, deadline, namespace=sel.get("namespace"), name=sel.get("name"),
                              label_selector=sel.get("label_selector"), request_timeout=request_timeout)
        observers.append(ob)
        ob.start()

    listed = set()

    def handle(msg):
        key, kind = msg[0], msg[1]
        if kind == "listed":
            listed.add(key)
        if kind == "listed":
            state.on_listed(key, msg[2])
        elif kind == "event":
            state.on_event(key, msg[2], msg[3], msg[4])
        elif kind == "error":
            state.on_error(key, msg[2])

    passed = stalled = False
    report(state)
    try:
        while True:
            if on_watching is not None and len(listed) >= len(observers):
                trigger, on_watching = on_watching, None
                trigger()
                continue  # what the trigger did may already show; judge after reading it
            if on_watching is None and state.evaluate():
                passed = True
                state.mark_passed()
                break
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if state.stalled(stall_after):
                stalled = True
                break
            wait = min(left, 1.0) if progress else left
            if stall_after is not None:  # wake when a stall would be due
                wait = max(0.05, min(wait, stall_after - (state.now() - state.last_progress)))
            try:  # with a progress hook, wake every second to refresh it
                msg = sink.get(timeout=wait)
            except queue.Empty:
                report(state)
                continue
            handle(msg)
            while True:  # drain what is already there before evaluating again
                try:
                    handle(sink.get_nowait())
                except queue.Empty:
                    break
            report(state)
    finally:
        for ob in observers:
            ob.stop()
    if passed:
        report(state, PASSED)
        return state.result(PASSED)
    if final_check:
        # one verifying list per selector: did the server answer (timeout) or not (unknown)?
        for key, (sel, res) in enumerate(zip(gate["resources"], resources)):
            r = list_objects(res, sel.get("namespace"), sel.get("name"), sel.get("label_selector"),
                             request_timeout=min(float(request_timeout), 5.0))
            if r["ok"]:
                state.on_listed(key, r)
            else:
                state.on_error(key, r["query"])
        if state.evaluate():
            state.mark_passed()
            report(state, PASSED)
            return state.result(PASSED)
    # progress seen by the verifying list itself means the owner is not stalled after all
    final = UNKNOWN if state.unknown_selectors() else (STALLED if stalled and state.stalled(stall_after) else TIMEOUT)
    report(state, final)
    return state.result(final)


def run_gates(gates, resources, timeout, request_timeout=10.0, observer_factory=Observer, progress=None,
              on_watching=None, stall_after=None):
    """Run ``gates`` in order within ``timeout`` seconds overall (a gate's own ``timeout`` caps it).

    ``resources[i]`` is the list of resolved Resources for ``gates[i]``. Returns
    ``(results, failed_index)``; ``failed_index`` is None when every gate passed. Gates after a
    failed one are reported with state ``not_started``. ``progress`` is an optional
    ``gate_progress.ProgressFile`` (or any ``f(index, gate_state, final_state=None)``). ``on_watching`` is called
    once the first gate is watched (see ``run_gate``); ``stall_after`` applies to every gate.
    """
    overall = time.monotonic() + float(timeout)
    results = []
    failed = None
    for i, gate in enumerate(gates):
        if failed is not None:
            results.append({"name": gate.get("name"), "until": gate.get("until") or "absent", "state": NOT_STARTED})
            continue
        deadline = overall
        if gate.get("timeout") is not None:
            deadline = min(overall, time.monotonic() + float(gate["timeout"]))
        hook = None
        if progress is not None:
            def hook(st, final_state=None, _i=i):
                progress(_i, st, final_state)
        res = run_gate(gate, resources[i], deadline, request_timeout=request_timeout, observer_factory=observer_factory,
                       progress=hook, on_watching=on_watching if i == 0 else None, stall_after=stall_after)
        results.append(res)
        if res["state"] != PASSED:
            failed = i
    return results, failed
