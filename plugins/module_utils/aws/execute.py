# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Executor for an ordered AWS cleanup: observe, delete in dependency order, wait on the real
blocker, verify by ID.

* Observe: every resource of the manifest is looked up by ID first (one filtered call per type where
  the API allows it). What is already absent or terminal costs no mutating call; this is what makes a
  re-run after completion change nothing, and a re-run after an interruption finish the job.
* Execute: a type's deletes start when every type it waits for (aws_graph.TYPE_DEPS) is done; the
  deletes of a type run in parallel; a semaphore bounds the requests in flight (``concurrency``).
* Refusals (DependencyViolation, InvalidIPAddress.InUse, DeleteConflict, ...): the blocker is looked
  up (ENIs by subnet/group/VPC, the NAT gateway still ``deleting``, the rule that references a group,
  the instance still ``shutting-down``), and the refused delete is retried only once that blocker is
  gone, by polling the blocker's own state by ID. A blocker that is not in the manifest and is not
  going away is reported by ID with what to do, never retried forever.
* Throttling, 5xx answers, dropped connections and timeouts: botocore alone retries them (standard mode,
  ``bounds.AWS_MAX_ATTEMPTS`` attempts, connect and read timeouts on each; ``bounds.aws_config``), so a
  silent endpoint fails one call within ``bounds.aws_call_bound()`` seconds instead of a product of layers.
* Verify: every non-retained resource is looked up by ID again; a failed query is ``unknown``, never
  ``absent``.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

try:
    import botocore.exceptions
except ImportError:  # pragma: no cover - AnsibleAWSModule reports the missing dependency
    pass

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.blockers import BLOCKERS, no_blockers
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import (
    NOT_FOUND_CODES, REFUSAL_CODES, error_code, error_text)
from ansible_collections.teardown.gates.plugins.module_utils.aws.deletes import (
    BATCH_DELETES, DELETES, PREPARE, WAIT_PROBES, deleted_with_instance)
from ansible_collections.teardown.gates.plugins.module_utils.aws.eni_wait import EniWaits
from ansible_collections.teardown.gates.plugins.module_utils.aws.probes import PROBES, iam_roles_and_policies
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import utc_iso


class Executor(EniWaits):
    """Run a plan (aws_graph.plan) against AWS through ``clients``."""

    def __init__(self, clients, plan, wait_timeout=900, sleep=time.sleep, clock=time.monotonic,
                 poll_interval=1.0, max_poll_interval=5.0, observed=None, backstop_interval=None,
                 calm_poll_interval=2.0):
        self.c = clients
        self.plan = plan
        self.manifest = plan["manifest"]
        # what the plan deletes, by type (a type may be retained in part: retain names IDs, not types)
        self.active = {}
        for level in plan["levels"]:
            for r in level:
                self.active.setdefault(r["type"], []).append(r["id"])
        self.in_manifest = set((t, i) for t, ids in self.manifest.items() for i in ids)
        self.wait_timeout = wait_timeout
        self.sleep = sleep
        self.clock = clock
        self.poll_interval = poll_interval
        self.max_poll_interval = max_poll_interval
        self.calm_poll_interval = calm_poll_interval
        self.prefetched = observed or {}
        self.observed = {}
        self.results = {}
        self.done = {}
        self.lock = threading.Lock()
        self.deadline = None
        self._poll_lock = threading.Lock()
        self._polls = {}
        self.seen_gone = {}  # (type, id) -> absent|terminal, seen by a look by ID during this run
        EniWaits.__init__(self, poll_interval, backstop_interval if backstop_interval is not None
                          else 6 * max_poll_interval)
        self.began = {}  # (type, id) -> wall-clock time its own work began (after the waits on other types)

    # ------------------------------------------------------------------ observation by ID
    def probe(self, rtype, ids, fn=None):
        """{id: {"state": absent|terminal|pending|present|unknown, ...details}} for one type."""
        ids = list(ids)
        if not ids:
            return {}
        fn = fn or PROBES.get(rtype)
        try:
            found = fn(self, ids)
        except Exception as e:  # noqa: BLE001 - a failed query is unknown, never absent
            return dict((i, {"state": "unknown", "error": error_text(e)}) for i in ids)
        return dict((i, found.get(i, {"state": "absent"})) for i in ids)

    def observe_all(self):
        """Look every resource up by ID, unless discovery just saw all of a type (its answer is as fresh)."""
        for rtype, ids in self.active.items():
            seen = self.prefetched.get(rtype, {})
            if ids and all(i in seen for i in ids):
                self.observed[rtype] = dict((i, seen[i]) for i in ids)
            else:
                self.observed[rtype] = self.probe(rtype, ids)
        return self.observed

    def check_plan(self):
        """The plan annotated with what the observation found: nothing is changed."""
        self.observe_all()
        levels = []
        for level in self.plan["levels"]:
            rows = []
            for r in level:
                o = self.observed.get(r["type"], {}).get(r["id"], {"state": "unknown"})
                row = dict(r, observed=o["state"])
                with_instance = deleted_with_instance(self, o) if r["type"] == g.VOLUME else None
                if o["state"] in ("absent", "terminal"):
                    row["action"] = "none: already %s" % ("absent" if o["state"] == "absent" else g.TERMINAL.get(r["type"]))
                elif with_instance:
                    row["action"] = "verify: AWS deletes it with instance %s (DeleteOnTermination)" % with_instance
                elif o["state"] == "unknown":
                    row["action"] = "delete (state unknown: %s)" % o.get("error")
                else:
                    row["action"] = "delete"
                rows.append(row)
            levels.append(rows)
        return levels

    # ------------------------------------------------------------------ waiting on one resource by ID
    def look_cap(self):
        """How far apart a wait's looks may grow. While AWS answers freely, ``calm_poll_interval``: a NAT
        gateway that goes while nobody looks holds the whole teardown (the subnets, the internet gateway
        and the VPC wait on it), so a short gap saves wall time. Once AWS has throttled this run,
        ``max_poll_interval``: the looks share the account's request budget with everything else
        (a fleet of teardowns, the account's own automation)."""
        if getattr(self.c, "throttled", 0):
            return self.max_poll_interval
        return min(self.calm_poll_interval, self.max_poll_interval)

    def state_of(self, rtype, rid, probe=None, known=None):
        """Current state of one resource; concurrent waiters on one type share one batched query.

        ``known`` is the state the caller has just been told (the delete's answer, the blocker lookup's
        or the observation's): a waiter that brings it costs no look now, and joins the type's next
        scheduled look. Looks on a slot start ``poll_interval`` after its first waiter joined and
        space out by 1.5x while nothing changes, up to ``look_cap()`` (the transitions waited
        on here take tens of seconds on AWS: a NAT gateway's ``deleting``, an instance's
        ``shutting-down``, a load balancer's ENIs)."""
        now = self.clock()
        with self._poll_lock:
            slot = self._polls.setdefault(rtype, {"ids": set(), "at": None, "states": {}, "interval": self.poll_interval})
            if rid not in slot["ids"]:
                if not slot["ids"]:  # a fresh wait: the schedule starts now
                    slot["at"] = None if known is None else now
                    slot["interval"] = self.poll_interval
                slot["ids"].add(rid)
                if known is not None:
                    slot["states"][rid] = known
            if slot["at"] is None or now - slot["at"] >= slot["interval"] or rid not in slot["states"]:
                before = dict(slot["states"])
                slot["states"].update(dict((k, v["state"]) for k, v in self.probe(
                    rtype, sorted(slot["ids"]), probe).items()))
                slot["at"] = self.clock()
                slot["interval"] = self.poll_interval if slot["states"] != before else min(
                    self.look_cap(), slot["interval"] * 1.5)
            return slot["states"].get(rid, "unknown")

    def forget(self, rtype, rid):
        with self._poll_lock:
            slot = self._polls.get(rtype)
            if slot:
                slot["ids"].discard(rid)
                slot["states"].pop(rid, None)

    def wait_gone(self, rtype, rid, after_delete=False, known=None):
        """Wait until a resource is absent or terminal; returns its last state. ``known``: its state as
        just answered (e.g. "pending" from the delete), so the first look can wait for the schedule."""
        interval = 0.2
        spec = self.eni_wait_spec(rtype, rid, after_delete)
        if spec is not None:
            return self.wait_on_enis(rtype, rid, spec)
        own = rtype
        slot = rtype + (" (after delete)" if after_delete and rtype in WAIT_PROBES else "")
        probe = WAIT_PROBES.get(rtype) if after_delete else None
        rtype = slot
        try:
            while True:
                state = self.state_of(rtype, rid, probe, known)
                known = None
                if state in ("absent", "terminal"):
                    if probe is None:
                        # a look by ID at the resource itself found it gone or terminal: both are final
                        # (AWS never reuses an ID, a deleted NAT gateway or terminated instance stays so),
                        # so this look is its verification
                        with self.lock:
                            self.seen_gone[(own, rid)] = state
                    return state
                if self.clock() >= self.deadline:
                    return state
                # a waiter's own pause costs no request (the shared slot decides when to query): keep it short
                self.sleep(min(interval, max(0.0, self.deadline - self.clock())))
        finally:
            self.forget(rtype, rid)

    # ------------------------------------------------------------------ execution
    def _set(self, rtype, rid, **res):
        # wall-clock times, for the report's timeline: when this ID's work began and when its outcome was known
        times = {"ended": utc_iso()}
        if (rtype, rid) in self.began:
            times["started"] = self.began[(rtype, rid)]
        with self.lock:
            self.results[(rtype, rid)] = dict({"type": rtype, "id": rid}, **dict(times, **res))

    def run(self):
        t0 = self.clock()
        self.deadline = t0 + self.wait_timeout
        self.observe_all()
        for r in self.plan["retained"]:
            self._set(r["type"], r["id"], outcome="retained", reason=r["reason"])
        for r in self.plan.get("kept", []):
            self._set(r["type"], r["id"], outcome="kept", reason=r["reason"],
                      observed=self.prefetched.get(r["type"], {}).get(r["id"], {}).get("state", "present"))
        for r in self.plan.get("blocked", []):
            self._set(r["type"], r["id"], outcome="blocked", blocked_by=r["blocked_by"],
                      error="not deleted: it waits on %s, kept" % ", ".join(r["blocked_by"]))
        events = dict((t, threading.Event()) for t in self.active)
        threads = []
        for rtype in self.active:
            th = threading.Thread(target=self._run_type, args=(rtype, events), name="cleanup-" + rtype)
            th.daemon = True
            th.start()
            threads.append(th)
        for th in threads:
            th.join()
        verification = self.verify()
        return verification

    def _run_type(self, rtype, events):
        try:
            waits = self.plan["waits"].get(rtype, [])
            for dep in waits:
                events[dep].wait()
            failed_deps = []
            for dep in waits:
                for i in self.active.get(dep, []):
                    res = self.results.get((dep, i), {})
                    if res.get("outcome") == "failed":
                        failed_deps.append("%s %s" % (dep, i))
            ids = self.active[rtype]
            if failed_deps:
                for i in ids:
                    self._set(rtype, i, outcome="failed", error="not attempted: it waits on %s, which could not be "
                              "deleted" % ", ".join(failed_deps))
                return
            obs = self.observed.get(rtype, {})
            todo = [i for i in ids if obs.get(i, {}).get("state") not in ("absent", "terminal")]
            for i in ids:
                if i not in todo:
                    self._set(rtype, i, outcome="absent")
            prepare = PREPARE.get(rtype)
            if prepare and todo:
                try:
                    prepare(self, todo)
                except Exception as e:  # noqa: BLE001
                    for i in todo:
                        self._set(rtype, i, outcome="failed", error="preparing the deletes failed: " + error_text(e))
                    return
            started = set()
            batch = BATCH_DELETES.get(rtype)
            if batch and len(todo) > 1:
                started = batch(self, [i for i in todo if obs.get(i, {}).get("state") != "pending"])
            threads = []
            for i in todo:
                th = threading.Thread(target=self._run_one, args=(rtype, i, i in started))
                th.daemon = True
                th.start()
                threads.append(th)
            for th in threads:
                th.join()
        except Exception as e:  # noqa: BLE001 - never leave dependents waiting forever
            for i in self.active.get(rtype, []):
                if (rtype, i) not in self.results:
                    self._set(rtype, i, outcome="failed", error="internal error: %r" % (e,))
        finally:
            events[rtype].set()

    def _run_one(self, rtype, rid, started=False):
        t0 = self.clock()
        self.began[(rtype, rid)] = utc_iso()
        obs = self.observed.get(rtype, {}).get(rid, {})
        refusals = []
        try:
            if started:
                # our batched delete was accepted for this ID: wait for its terminal state
                state = self.wait_gone(rtype, rid, after_delete=True, known="pending")
                if state in ("absent", "terminal"):
                    self._set(rtype, rid, outcome="deleted", seconds=round(self.clock() - t0, 3))
                else:
                    self._set(rtype, rid, outcome="failed", seconds=round(self.clock() - t0, 3),
                              error="delete started but %s %s was still %s at wait_timeout" % (rtype, rid, state))
                return
            if obs.get("state") == "pending":
                # already going away (someone else started it): wait, and it was not us who deleted it
                state = self.wait_gone(rtype, rid, known="pending")
                if state in ("absent", "terminal"):
                    self._set(rtype, rid, outcome="absent", seconds=round(self.clock() - t0, 3))
                else:
                    self._set(rtype, rid, outcome="failed", error="still %s after wait_timeout" % state)
                return
            outcome = self._delete_with_blockers(rtype, rid, obs, refusals)
            res = {"outcome": outcome[0], "seconds": round(self.clock() - t0, 3)}
            if refusals:
                res["refusals"] = refusals
            if outcome[0] == "failed":
                res["error"] = outcome[1]
                if outcome[2]:
                    res["blockers"] = outcome[2]
            self._set(rtype, rid, **res)
        except Exception as e:  # noqa: BLE001
            self._set(rtype, rid, outcome="failed", error=error_text(e), refusals=refusals)

    def _delete_with_blockers(self, rtype, rid, obs, refusals):
        deleter = DELETES[rtype]
        quiet_retries = 0
        while True:
            try:
                result = deleter(self, rid, obs)
            except is_boto3_error_code(NOT_FOUND_CODES):
                return ("absent", None, None)
            except is_boto3_error_code(REFUSAL_CODES) as e:  # pylint: disable=duplicate-except
                blockers = BLOCKERS.get(rtype, no_blockers)(self, rid, obs, error_code(e))
                refusals.append({"error": error_text(e), "blockers": [b.as_dict() for b in blockers], "at": utc_iso()})
                stuck = [b for b in blockers if not b.going_away and b.action is None]
                if stuck:
                    return ("failed", "%s refused: %s; blocked by what is not in the manifest and not going "
                            "away: %s" % (rtype, error_text(e), "; ".join(
                                "%s %s (%s)%s" % (b.type, b.id, b.state, ": " + b.note if b.note else "")
                                for b in stuck)), [b.as_dict() for b in stuck])
                if self.clock() >= self.deadline:
                    return ("failed", "wait_timeout reached; last refusal: " + error_text(e),
                            [b.as_dict() for b in blockers])
                if not blockers:
                    quiet_retries += 1
                    if quiet_retries > 3:
                        return ("failed", "%s refused %d times and no blocker could be found: %s" % (
                            rtype, quiet_retries, error_text(e)), None)
                    self.sleep(min(2.0 * quiet_retries, max(0.0, self.deadline - self.clock())))
                    continue
                for b in blockers:
                    if b.action is not None:
                        b.action()
                    elif b.going_away:
                        state = self.wait_gone(b.type, b.id, known="pending")
                        if state not in ("absent", "terminal"):
                            return ("failed", "%s %s was still %s when wait_timeout ran out" % (b.type, b.id, state),
                                    [b.as_dict()])
                obs = {}
                continue
            except botocore.exceptions.ClientError as e:  # pylint: disable=duplicate-except
                # an answer we cannot place (a concurrent run may have finished the resource first): only a
                # successful read by ID that finds it gone makes it absent; anything else stays failed
                if PROBES.get(rtype) and self.probe(rtype, [rid])[rid]["state"] in ("absent", "terminal"):
                    return ("absent", None, None)
                return ("failed", error_text(e), None)
            if result == "with-instance":
                # AWS deletes it with its instance (DeleteOnTermination): verified by ID, not deleted a second time
                state = self.wait_gone(rtype, rid, known="pending")
                if state not in ("absent", "terminal"):
                    return ("failed", "%s %s was still %s at wait_timeout, though AWS deletes it with its instance "
                            "(DeleteOnTermination)" % (rtype, rid, state), None)
                return ("absent", None, None)
            if result == "pending":
                state = self.wait_gone(rtype, rid, after_delete=True, known="pending")
                if state not in ("absent", "terminal"):
                    return ("failed", "delete started but %s %s was still %s at wait_timeout" % (rtype, rid, state), None)
                return ("deleted", None, None)
            return (result, None, None)

    # ------------------------------------------------------------------ verification by ID
    def verify(self):
        """(ok, type -> {id: state}): ok only when every resource the plan deletes was looked up gone and nothing
        was kept; what waits on a kept resource is looked up too (a resumed run may find it gone)."""
        out = {}
        ok = not self.plan.get("kept")
        look_at = dict((t, list(ids)) for t, ids in self.active.items())
        for r in self.plan.get("blocked", []):
            look_at.setdefault(r["type"], []).append(r["id"])
        # one batched look per type, the types in parallel (the semaphore still bounds requests in flight)
        found_by_type = {}

        def look(rtype, ids):
            seen = dict((i, {"state": self.seen_gone[(rtype, i)]}) for i in ids if (rtype, i) in self.seen_gone)
            found_by_type[rtype] = dict(self.probe(rtype, [i for i in ids if i not in seen]), **seen)

        def look_iam():
            # roles by name and managed policies by ARN: one paged GetAccountAuthorizationDetails answers both
            # (instead of a ListRoles and a ListPolicies); a failure leaves both unknown
            try:
                found = iam_roles_and_policies(self)
            except Exception as e:  # noqa: BLE001 - a failed query is unknown, never absent
                found = None
                failed = {"state": "unknown", "error": error_text(e)}
            for rtype in (g.ROLE, g.POLICY):
                found_by_type[rtype] = dict((i, dict(failed) if found is None else found[rtype].get(i, {"state": "absent"}))
                                            for i in look_at[rtype])
        paired = g.ROLE in look_at and g.POLICY in look_at
        threads = [threading.Thread(target=look, args=(rtype, ids)) for rtype, ids in look_at.items()
                   if not (paired and rtype in (g.ROLE, g.POLICY))]
        if paired:
            threads.append(threading.Thread(target=look_iam))
        for th in threads:
            th.daemon = True
            th.start()
        for th in threads:
            th.join()
        for rtype, ids in look_at.items():
            found = found_by_type[rtype]
            for i in ids:
                st = found[i]["state"]
                res = self.results.setdefault((rtype, i), {"type": rtype, "id": i, "outcome": "failed",
                                                           "error": "never processed"})
                res["verified_state"] = st
                if res.get("outcome") == "blocked" and st in ("absent", "terminal"):
                    res["outcome"] = "absent"  # gone already (an earlier run, or someone else): nothing blocked
                    res.pop("error", None)
                if st not in ("absent", "terminal"):
                    ok = False
                    if res.get("outcome") in ("deleted", "absent"):
                        res["outcome"] = "failed"
                        res["error"] = "verification by ID found it %s%s" % (
                            st, (": " + found[i]["error"]) if found[i].get("error") else "")
                out.setdefault(rtype, {})[i] = st
        return ok, out
