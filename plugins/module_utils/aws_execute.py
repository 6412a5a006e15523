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

import functools
import threading
import time

try:
    import botocore.exceptions
    from botocore.parsers import ResponseParserError
except ImportError:  # pragma: no cover - AnsibleAWSModule reports the missing dependency
    ResponseParserError = None

from ansible_collections.teardown.gates.plugins.module_utils import aws_graph as g
from ansible_collections.teardown.gates.plugins.module_utils import bounds

NOT_FOUND = frozenset([
    "InvalidInstanceID.NotFound", "InvalidVpcID.NotFound", "InvalidSubnetID.NotFound", "InvalidGroup.NotFound",
    "InvalidGroupId.NotFound", "InvalidRouteTableID.NotFound", "InvalidInternetGatewayID.NotFound",
    "NatGatewayNotFound", "InvalidAllocationID.NotFound", "InvalidVpcEndpointId.NotFound",
    "InvalidDhcpOptionID.NotFound", "InvalidDhcpOptionsID.NotFound", "InvalidNetworkInterfaceID.NotFound",
    "InvalidAssociationID.NotFound", "Gateway.NotAttached", "NoSuchEntity", "NoSuchBucket", "NoSuchHostedZone",
    "LoadBalancerNotFound", "TargetGroupNotFound", "AccessPointNotFound", "NoSuchKey", "404",
])
REFUSALS = frozenset([
    "DependencyViolation", "InvalidIPAddress.InUse", "DeleteConflict", "HostedZoneNotEmpty", "BucketNotEmpty",
    "ResourceInUse", "InvalidNetworkInterface.InUse", "CannotDelete",
])
# AuthFailure, UnauthorizedOperation, AccessDenied are not refusals: no blocker explains them and a
# retry cannot clear them, so they fail at once, by ID, with AWS's words (the state stays unknown).
# reads answered with something botocore cannot parse: botocore does not retry these (it raises before its
# retry check), so this is not a second layer over its retries for the same failure
PARSER_ATTEMPTS = 3
# answers that ask the caller to slow down (botocore retries them; the executor's waits also space out)
THROTTLE_CODES = frozenset([
    "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottled", "RequestThrottledException",
    "RequestLimitExceeded", "SlowDown", "TooManyRequestsException", "PriorRequestNotComplete",
    "EC2ThrottledException", "BandwidthLimitExceeded",
])
# Check mode sends reads only. An allow-list, not a deny-list of verbs: an operation whose name does
# not start with one of AWS's read verbs (botocore's snake_case names) is refused, so a new kind of
# call (update_termination_protection, stop_instances, set_stack_policy ...) cannot slip through.
READ_PREFIXES = ("describe_", "list_", "get_", "head_")


def is_read_operation(operation):
    """True when ``operation`` (botocore's snake_case name, e.g. ``describe_vpcs``) only reads."""
    return isinstance(operation, str) and operation.startswith(READ_PREFIXES)


def error_code(exc):
    try:
        return exc.response["Error"]["Code"]
    except (AttributeError, KeyError, TypeError):
        return None


def error_text(exc):
    try:
        err = exc.response["Error"]
        return "%s: %s" % (err.get("Code"), err.get("Message"))
    except (AttributeError, KeyError, TypeError):
        return "%s: %s" % (type(exc).__name__, exc)


class CheckModeViolation(Exception):
    pass


# botocore's words for "no answer came in time" (after all its attempts): nothing was learned, the request may or
# may not have been applied. A refused or dropped connection is not here: it fails fast on its own.
try:
    UNANSWERED = (botocore.exceptions.ConnectTimeoutError, botocore.exceptions.ReadTimeoutError)

    class Unanswered(botocore.exceptions.BotoCoreError):
        """A service's endpoint gave no answer within its bound; the module's later calls to it are not sent."""
        fmt = "{msg}"
except NameError:  # pragma: no cover - botocore missing, AnsibleAWSModule reports it
    UNANSWERED = ()
    Unanswered = Exception


def unanswered_text(service, op_name, endpoint, exc):
    return ("the AWS endpoint %s did not answer %s %s (%s) within %d s (%d attempts, connect timeout %d s and read "
            "timeout %d s each): what AWS holds is unknown, and no further request to it was sent. Check the endpoint "
            "(AWS_ENDPOINT_URL or endpoint_url), the network path and any proxy, and a VPC endpoint's security "
            "group" % (endpoint, service, op_name, exc, bounds.aws_call_bound(), bounds.AWS_MAX_ATTEMPTS,
                       bounds.AWS_CONNECT_TIMEOUT, bounds.AWS_READ_TIMEOUT))


class Clients:
    """boto3 clients shared by the executor's threads: a bound on requests in flight, a count of every HTTP
    attempt by service and action (and of the throttled ones), and a guard that no mutating call leaves in
    check mode. ``config`` (``bounds.aws_config(module)``) is passed to ``factory`` (AnsibleAWSModule.client):
    its timeouts, its one retry policy and the user agent."""

    def __init__(self, factory, concurrency=8, check_mode=False, config=None):
        self._factory = factory
        self._config = config
        self._clients = {}
        self._lock = threading.Lock()
        self.sem = threading.BoundedSemaphore(max(1, int(concurrency)))
        self.check_mode = check_mode
        self.calls = {}
        self.errors = {}
        self.throttled = 0  # attempts AWS answered with a throttling code, botocore's own retries included
        self.unanswered = {}  # endpoint URL -> why it is taken as silent (no later call to it is sent, by any service)

    def client(self, service):
        with self._lock:
            if service not in self._clients:
                c = self._factory(service, config=self._config) if self._config is not None else self._factory(service)
                inner = getattr(c, "client", c)  # RetryingBotoClientWrapper keeps the boto3 client here
                events = getattr(getattr(inner, "meta", None), "events", None)
                if events is not None:
                    events.register("before-send", functools.partial(self._count, service))
                    events.register("needs-retry", self._note_throttle)
                self._clients[service] = inner
            return self._clients[service]

    def _count(self, service, **kwargs):
        action = kwargs.get("event_name", "").split(".")[-1]
        with self._lock:
            svc = self.calls.setdefault(service, {})
            svc[action] = svc.get(action, 0) + 1
        return None

    def _note_throttle(self, response=None, **kwargs):
        """Called by botocore after every attempt; returns None so that its own retry decision stands."""
        parsed = response[1] if isinstance(response, tuple) and len(response) > 1 else None
        code = parsed.get("Error", {}).get("Code") if isinstance(parsed, dict) else None
        if code in THROTTLE_CODES:
            with self._lock:
                self.throttled += 1
        return None

    def call(self, service, operation, **params):
        method = getattr(self.client(service), operation)
        op_name = "".join(w.capitalize() for w in operation.split("_"))
        reads = is_read_operation(operation)
        if self.check_mode and not reads:
            raise CheckModeViolation("check mode sends reads only (Describe, List, Get, Head): refusing %s.%s"
                                     % (service, op_name))

        def do():
            for attempt in range(PARSER_ATTEMPTS):
                try:
                    return method(**params)
                except ResponseParserError:
                    # an answer that is neither AWS's XML nor its JSON (an HTML 5xx page from a front end):
                    # botocore says a retry may succeed; a read is safe to send again, a change is left to
                    # the verification by ID
                    if not reads or attempt + 1 >= PARSER_ATTEMPTS:
                        raise
                    time.sleep(0.5 * 3 ** attempt)

        endpoint = getattr(getattr(self.client(service), "meta", None), "endpoint_url", None) or service
        gone = self.unanswered.get(endpoint)
        if gone is not None:  # this endpoint already failed to answer: the run's bound is one call's, not one per call
            raise Unanswered(msg=gone)
        try:
            with self.sem:
                return do()
        except UNANSWERED as e:
            text = unanswered_text(service, op_name, endpoint, e)
            with self._lock:
                self.unanswered.setdefault(endpoint, text)
            raise Unanswered(msg=text)
        except botocore.exceptions.ClientError as e:
            code = error_code(e)
            with self._lock:
                self.errors[code] = self.errors.get(code, 0) + 1
            raise


class Blocker:
    """Something that holds a refused delete: by type and ID, its state, and what to do about it."""

    def __init__(self, rtype, rid, state, going_away=False, note=None, action=None):
        self.type, self.id, self.state, self.going_away, self.note, self.action = rtype, rid, state, going_away, note, action

    def as_dict(self):
        out = {"type": self.type, "id": self.id, "state": self.state}
        if self.note:
            out["what_to_do"] = self.note
        return out


ENI = "AWS::EC2::NetworkInterface"


def _chunks(seq, n):
    seq = list(seq)
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def wall_iso():
    """Now, UTC, ISO-8601 with milliseconds (the report's format)."""
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + ".%03dZ" % (int(now * 1000) % 1000)


class Executor:
    """Run a plan (aws_graph.plan) against AWS through ``clients``."""

    def __init__(self, clients, plan, wait_timeout=900, sleep=time.sleep, clock=time.monotonic,
                 poll_interval=1.0, max_poll_interval=5.0, observed=None, backstop_interval=None,
                 calm_poll_interval=2.0):
        self.c = clients
        self.plan = plan
        self.manifest = plan["manifest"]
        self.active = {t: ids for t, ids in self.manifest.items()
                       if not any(r["type"] == t for r in plan["retained"])}
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
        # the merged wait: one DescribeNetworkInterfaces on the VPCs serves every NAT gateway, instance and
        # load balancer waited on (see wait_on_enis)
        self._eni_lock = threading.Lock()
        self._eni_waiters = {}  # (type, id) -> {"type", "id", "vpc", "enis", "desc", "state", "checked"}
        self._eni_slot = {"at": None, "interval": poll_interval}
        self.backstop_interval = backstop_interval if backstop_interval is not None else 6 * max_poll_interval
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
                if o["state"] in ("absent", "terminal"):
                    row["action"] = "none: already %s" % ("absent" if o["state"] == "absent" else g.TERMINAL.get(r["type"]))
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

    # ------------------------------------------------------------------ one look at a VPC's ENIs for every wait
    def eni_wait_spec(self, rtype, rid, after_delete=False):
        """How a wait can ride on the VPC's ENI look, or None (then it polls the resource by ID).

        A NAT gateway holds its ENI until ``deleted``; an instance keeps its ENIs attached until
        ``terminated``; a load balancer's ENIs (described ``ELB <name>``) linger after it and are what
        its subnets and groups wait for. So one DescribeNetworkInterfaces filtered by vpc-id shows all
        three transitions at once. What is needed: the VPC (and a NAT gateway's ENI IDs) from what
        discovery or the first look by ID saw."""
        obs = self.observed.get(rtype, {}).get(rid) or {}
        vpc = obs.get("VpcId") or obs.get("VPCId")
        if not vpc:
            return None
        if rtype == g.NAT:
            enis = set(a["NetworkInterfaceId"] for a in obs.get("NatGatewayAddresses") or []
                       if a.get("NetworkInterfaceId"))
            return {"vpc": vpc, "enis": enis} if enis else None
        if rtype == g.INSTANCE:
            return {"vpc": vpc}
        if rtype in (g.ELB, g.ELBV2) and after_delete:
            return {"vpc": vpc, "desc": elb_eni_description(rtype, rid)}
        return None

    def wait_on_enis(self, rtype, rid, spec):
        """Wait until a NAT gateway or instance is terminal (confirmed by ID), or a load balancer's ENIs
        are released; returns the last state (absent, terminal, pending or unknown).

        Every waiter shares one look schedule: the first look ``poll_interval`` after the first waiter
        joined (the delete has just answered "pending"), then spaced out by 1.5x up to
        ``look_cap()``. Each look is one DescribeNetworkInterfaces on the waiters' VPCs. A NAT
        gateway or instance whose ENIs are gone is confirmed by one batched look by ID (that look is its
        verification, as in wait_gone); if it is not terminal yet it is confirmed again at the next look.
        A slow look by ID every ``backstop_interval`` catches an owner that went terminal while an ENI
        outlived it. A failed query concludes nothing: the state stays pending (unknown at the end)."""
        key = self.eni_join(rtype, rid, spec)
        try:
            while True:
                state = self.eni_poll(key)
                if state in ("absent", "terminal"):
                    return state
                if self.clock() >= self.deadline:
                    return state
                self.sleep(min(0.2, max(0.0, self.deadline - self.clock())))
        finally:
            self.eni_leave(key)

    def eni_join(self, rtype, rid, spec):
        """A waiter joins the shared look (its state: pending, as the delete just answered)."""
        with self._eni_lock:
            if not self._eni_waiters:  # a fresh wait: the schedule starts now
                self._eni_slot = {"at": self.clock(), "interval": self.poll_interval}
            self._eni_waiters[(rtype, rid)] = dict(spec, type=rtype, id=rid, state="pending", checked=self.clock())
        return (rtype, rid)

    def eni_poll(self, key):
        """The waiter's state, after the shared look if one is due."""
        with self._eni_lock:
            w = self._eni_waiters[key]
            if w["state"] not in ("absent", "terminal") and \
                    self.clock() - self._eni_slot["at"] >= self._eni_slot["interval"]:
                self._eni_look()
            return w["state"]

    def eni_leave(self, key):
        with self._eni_lock:
            self._eni_waiters.pop(key, None)

    def _eni_look(self):
        """One look for every waiter still pending (called with _eni_lock held)."""
        waiting = [w for w in self._eni_waiters.values() if w["state"] not in ("absent", "terminal")]
        now = self.clock()
        try:
            enis = list_vpc_enis(self, sorted(set(w["vpc"] for w in waiting)))
        except Exception as e:  # noqa: BLE001 - a failed look proves nothing
            enis = None
            for w in waiting:
                w["state"], w["error"] = "unknown", error_text(e)
        signals = eni_signals(waiting, enis) if enis is not None else {}
        confirm = {}
        for w in waiting:
            sig = signals.get((w["type"], w["id"]))
            if w["type"] in (g.ELB, g.ELBV2):
                if sig == "released":
                    w["state"] = "absent"
                elif sig == "holding":
                    w["state"] = "pending"
                continue
            if sig == "released" or now - w["checked"] >= self.backstop_interval:
                confirm.setdefault(w["type"], []).append(w)
            elif sig == "holding":
                w["state"] = "pending"
        for rtype, ws in confirm.items():
            found = self.probe(rtype, [w["id"] for w in ws])
            for w in ws:
                w["checked"] = self.clock()
                st = found[w["id"]]["state"]
                w["state"] = st if st in ("absent", "terminal", "unknown") else "pending"
                if st in ("absent", "terminal"):
                    with self.lock:
                        self.seen_gone[(rtype, w["id"])] = st
        self._eni_slot["at"] = self.clock()
        # no reset when something changed: the three transitions are independent (tens of seconds apart)
        self._eni_slot["interval"] = min(self.look_cap(), self._eni_slot["interval"] * 1.5)

    # ------------------------------------------------------------------ execution
    def _set(self, rtype, rid, **res):
        # wall-clock times, for the report's timeline: when this ID's work began and when its outcome was known
        times = {"ended": wall_iso()}
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
        self.began[(rtype, rid)] = wall_iso()
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
            except botocore.exceptions.ClientError as e:
                code = error_code(e)
                if code in NOT_FOUND:
                    return ("absent", None, None)
                if code not in REFUSALS:
                    # an answer we cannot place (a concurrent run may have finished the resource first): only a
                    # successful read by ID that finds it gone makes it absent; anything else stays failed
                    if PROBES.get(rtype) and self.probe(rtype, [rid])[rid]["state"] in ("absent", "terminal"):
                        return ("absent", None, None)
                    return ("failed", error_text(e), None)
                blockers = BLOCKERS.get(rtype, _no_blockers)(self, rid, obs, code)
                refusals.append({"error": error_text(e), "blockers": [b.as_dict() for b in blockers], "at": wall_iso()})
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
            if result == "pending":
                state = self.wait_gone(rtype, rid, after_delete=True, known="pending")
                if state not in ("absent", "terminal"):
                    return ("failed", "delete started but %s %s was still %s at wait_timeout" % (rtype, rid, state), None)
                return ("deleted", None, None)
            return (result, None, None)

    # ------------------------------------------------------------------ verification by ID
    def verify(self):
        out = {}
        ok = True
        # one batched look per type, the types in parallel (the semaphore still bounds requests in flight)
        found_by_type = {}

        def look(rtype, ids):
            seen = dict((i, {"state": self.seen_gone[(rtype, i)]}) for i in ids if (rtype, i) in self.seen_gone)
            found_by_type[rtype] = dict(self.probe(rtype, [i for i in ids if i not in seen]), **seen)

        def look_iam():
            # roles by name and managed policies by ARN: one paged GetAccountAuthorizationDetails answers both
            # (instead of a ListRoles and a ListPolicies); a failure leaves both unknown
            try:
                found = _iam_roles_and_policies(self)
            except Exception as e:  # noqa: BLE001 - a failed query is unknown, never absent
                found = None
                failed = {"state": "unknown", "error": error_text(e)}
            for rtype in (g.ROLE, g.POLICY):
                found_by_type[rtype] = dict((i, dict(failed) if found is None else found[rtype].get(i, {"state": "absent"}))
                                            for i in self.active[rtype])
        paired = g.ROLE in self.active and g.POLICY in self.active
        threads = [threading.Thread(target=look, args=(rtype, ids)) for rtype, ids in self.active.items()
                   if not (paired and rtype in (g.ROLE, g.POLICY))]
        if paired:
            threads.append(threading.Thread(target=look_iam))
        for th in threads:
            th.daemon = True
            th.start()
        for th in threads:
            th.join()
        for rtype, ids in self.active.items():
            found = found_by_type[rtype]
            for i in ids:
                st = found[i]["state"]
                res = self.results.setdefault((rtype, i), {"type": rtype, "id": i, "outcome": "failed",
                                                           "error": "never processed"})
                res["verified_state"] = st
                if st not in ("absent", "terminal"):
                    ok = False
                    if res.get("outcome") in ("deleted", "absent"):
                        res["outcome"] = "failed"
                        res["error"] = "verification by ID found it %s%s" % (
                            st, (": " + found[i]["error"]) if found[i].get("error") else "")
                out.setdefault(rtype, {})[i] = st
        return ok, out


def _no_blockers(ex, rid, obs, code):
    return []


# ====================================================================== probes (batch, by ID)
def _ec2_probe(describe, key, idfield, filter_name, state_fn=None, filter_param="Filters"):
    def probe(ex, ids):
        out = {}
        for chunk in _chunks(ids, 150):
            kw = {filter_param: [{"Name": filter_name, "Values": chunk}]}
            resp = ex.c.call("ec2", describe, **kw)
            items = resp.get(key, [])
            if key == "Reservations":
                items = [i for r in items for i in r.get("Instances", [])]
            for item in items:
                st = state_fn(item) if state_fn else "present"
                out[item[idfield]] = dict(item, state=st)
        return out
    return probe


def _probe_endpoints(ex, ids):
    """By VpcEndpointIds (not every implementation filters on vpc-endpoint-id); one missing ID fails the
    whole call, so fall back to one call per ID then."""
    def one(chunk):
        resp = ex.c.call("ec2", "describe_vpc_endpoints", VpcEndpointIds=chunk)
        return dict((e["VpcEndpointId"], dict(e, state=_endpoint_state(e))) for e in resp.get("VpcEndpoints", []))
    try:
        return one(list(ids))
    except botocore.exceptions.ClientError as e:
        if error_code(e) not in NOT_FOUND:
            raise
    out = {}
    for i in ids:
        try:
            out.update(one([i]))
        except botocore.exceptions.ClientError as e:
            if error_code(e) not in NOT_FOUND:
                raise
    return out


def _instance_state(item):
    name = item.get("State", {}).get("Name")
    return {"terminated": "terminal", "shutting-down": "pending"}.get(name, "present")


def _nat_state(item):
    return {"deleted": "terminal", "deleting": "pending", "failed": "terminal"}.get(item.get("State"), "present")


def _endpoint_state(item):
    return {"deleted": "terminal", "deleting": "pending"}.get((item.get("State") or "").lower(), "present")


def _probe_elb(ex, ids):
    out = {}
    for i in ids:
        try:
            resp = ex.c.call("elb", "describe_load_balancers", LoadBalancerNames=[i])
        except botocore.exceptions.ClientError as e:
            if error_code(e) in NOT_FOUND:
                continue
            raise
        for lb in resp.get("LoadBalancerDescriptions", []):
            out[lb["LoadBalancerName"]] = dict(lb, state="present")
    return out


def _probe_elbv2(kind):
    def probe(ex, ids):
        out = {}
        for i in ids:
            try:
                if kind == "lb":
                    items = ex.c.call("elbv2", "describe_load_balancers", LoadBalancerArns=[i]).get("LoadBalancers", [])
                else:
                    items = ex.c.call("elbv2", "describe_target_groups", TargetGroupArns=[i]).get("TargetGroups", [])
            except botocore.exceptions.ClientError as e:
                if error_code(e) in NOT_FOUND:
                    continue
                raise
            for item in items:
                out[i] = dict(item, state="present")
        return out
    return probe


def split_record_id(rid):
    zone, rest = rid.split("/", 1)
    name, rtype = rest.rsplit("/", 1)
    return zone, name, rtype


def _norm_name(name):
    return name.replace("\\052", "*").rstrip(".").lower()


def _find_record(ex, rid):
    zone, name, rtype = split_record_id(rid)
    resp = ex.c.call("route53", "list_resource_record_sets", HostedZoneId=zone, StartRecordName=name,
                     StartRecordType=rtype, MaxItems="1")
    for rr in resp.get("ResourceRecordSets", []):
        if _norm_name(rr["Name"]) == _norm_name(name) and rr["Type"] == rtype:
            return zone, rr
    return zone, None


def _probe_records(ex, ids):
    out = {}
    for i in ids:
        try:
            zone, rr = _find_record(ex, i)
        except botocore.exceptions.ClientError as e:
            if error_code(e) in NOT_FOUND:
                continue
            raise
        if rr is not None:
            out[i] = {"state": "present", "record": rr}
    return out


def _probe_zones(ex, ids):
    out = {}
    for i in ids:
        try:
            z = ex.c.call("route53", "get_hosted_zone", Id=i)
        except botocore.exceptions.ClientError as e:
            if error_code(e) in NOT_FOUND:
                continue
            raise
        out[i] = {"state": "present", "name": z["HostedZone"]["Name"]}
    return out


def _probe_buckets(ex, ids):
    names = set(b["Name"] for b in ex.c.call("s3", "list_buckets").get("Buckets", []))
    return dict((i, {"state": "present"}) for i in ids if i in names)


def split_prefix_id(rid):
    bucket, prefix = rid.split("/", 1)
    return bucket, prefix


def _probe_prefixes(ex, ids):
    out = {}
    for i in ids:
        bucket, prefix = split_prefix_id(i)
        try:
            resp = ex.c.call("s3", "list_object_versions", Bucket=bucket, Prefix=prefix, MaxKeys=1)
        except botocore.exceptions.ClientError as e:
            if error_code(e) in NOT_FOUND:
                continue
            raise
        if resp.get("Versions") or resp.get("DeleteMarkers"):
            out[i] = {"state": "present"}
    return out


def _iam_list(ex, op, key, name_key):
    out = {}
    marker = None
    while True:
        kw = {"Marker": marker} if marker else {}
        if op == "list_policies":
            kw["Scope"] = "Local"
        resp = ex.c.call("iam", op, **kw)
        for item in resp.get(key, []):
            out[item[name_key]] = dict(item, state="present")
        if not resp.get("IsTruncated"):
            return out
        marker = resp.get("Marker")


def _iam_roles_and_policies(ex):
    """{ROLE: {name: ...}, POLICY: {arn: ...}} from every page of GetAccountAuthorizationDetails."""
    out = {g.ROLE: {}, g.POLICY: {}}
    kw = {"Filter": ["Role", "LocalManagedPolicy"]}
    while True:
        resp = ex.c.call("iam", "get_account_authorization_details", **kw)
        for r in resp.get("RoleDetailList", []):
            out[g.ROLE][r["RoleName"]] = {"state": "present"}
        for p in resp.get("Policies", []):
            out[g.POLICY][p["Arn"]] = {"state": "present"}
        if not (resp.get("IsTruncated") and resp.get("Marker")):
            return out
        kw["Marker"] = resp["Marker"]


PROBES = {
    g.INSTANCE: _ec2_probe("describe_instances", "Reservations", "InstanceId", "instance-id", _instance_state),
    g.NAT: _ec2_probe("describe_nat_gateways", "NatGateways", "NatGatewayId", "nat-gateway-id", _nat_state,
                      filter_param="Filter"),
    g.SUBNET: _ec2_probe("describe_subnets", "Subnets", "SubnetId", "subnet-id"),
    g.SG: _ec2_probe("describe_security_groups", "SecurityGroups", "GroupId", "group-id"),
    g.ROUTE_TABLE: _ec2_probe("describe_route_tables", "RouteTables", "RouteTableId", "route-table-id"),
    g.IGW: _ec2_probe("describe_internet_gateways", "InternetGateways", "InternetGatewayId", "internet-gateway-id"),
    g.EIP: _ec2_probe("describe_addresses", "Addresses", "AllocationId", "allocation-id"),
    g.ENDPOINT: _probe_endpoints,
    g.VPC: _ec2_probe("describe_vpcs", "Vpcs", "VpcId", "vpc-id"),
    g.DHCP: _ec2_probe("describe_dhcp_options", "DhcpOptions", "DhcpOptionsId", "dhcp-options-id"),
    ENI: _ec2_probe("describe_network_interfaces", "NetworkInterfaces", "NetworkInterfaceId", "network-interface-id"),
    g.ELB: _probe_elb,
    g.ELBV2: _probe_elbv2("lb"),
    g.TARGET_GROUP: _probe_elbv2("tg"),
    g.RECORD: _probe_records,
    g.ZONE: _probe_zones,
    g.BUCKET: _probe_buckets,
    g.PREFIX: _probe_prefixes,
    g.ROLE: lambda ex, ids: _iam_list(ex, "list_roles", "Roles", "RoleName"),
    g.PROFILE: lambda ex, ids: _iam_list(ex, "list_instance_profiles", "InstanceProfiles", "InstanceProfileName"),
    g.POLICY: lambda ex, ids: _iam_list(ex, "list_policies", "Policies", "Arn"),
    g.OIDC: lambda ex, ids: dict((p["Arn"], {"state": "present"}) for p in ex.c.call(
        "iam", "list_open_id_connect_providers").get("OpenIDConnectProviderList", [])),
}


# ====================================================================== deletes
def _one_call(service, operation, id_param, outcome="deleted", as_list=False):
    """A delete that is a single API call naming the resource's ID; "pending" when AWS finishes it later."""
    def delete(ex, rid, obs):
        ex.c.call(service, operation, **{id_param: [rid] if as_list else rid})
        return outcome
    return delete


def elb_eni_description(rtype, rid):
    """How AWS describes a load balancer's ENIs: "ELB <name>" (classic), "ELB app/<name>/<id>" (v2)."""
    return "ELB " + (rid.split(":loadbalancer/")[-1] if rtype == g.ELBV2 else rid)


def _probe_lb_enis(rtype):
    def probe(ex, ids):
        descs = dict((elb_eni_description(rtype, i), i) for i in ids)
        enis = ex.c.call("ec2", "describe_network_interfaces", Filters=[
            {"Name": "description", "Values": sorted(descs)}]).get("NetworkInterfaces", [])
        out = {}
        for e in enis:
            owner = descs.get(e.get("Description"))
            if owner:
                out.setdefault(owner, {"state": "pending", "enis": []})["enis"].append(e["NetworkInterfaceId"])
        return out
    return probe


def list_vpc_enis(ex, vpcs):
    """Every ENI of the given VPCs: one DescribeNetworkInterfaces (vpc-id filter) per 200 VPCs and page."""
    out = []
    for chunk in _chunks(vpcs, 200):
        kw = {"Filters": [{"Name": "vpc-id", "Values": chunk}]}
        while True:
            resp = ex.c.call("ec2", "describe_network_interfaces", **kw)
            out.extend(resp.get("NetworkInterfaces", []))
            if not resp.get("NextToken"):
                break
            kw["NextToken"] = resp["NextToken"]
    return out


def eni_signals(waiters, enis):
    """What one look at the ENIs of the waiters' VPCs says of each waiter: (type, id) -> "holding" or
    "released".

    A NAT gateway holds while one of its ENI IDs is listed; an instance while an ENI is attached to it;
    a load balancer while an ENI carries its description (``ELB <name>``). "released" is a hint, not a
    proof, for a NAT gateway or an instance: the caller confirms their state by ID."""
    ids = set(e.get("NetworkInterfaceId") for e in enis)
    attached = set((e.get("Attachment") or {}).get("InstanceId") for e in enis)
    descs = set(e.get("Description") for e in enis)
    out = {}
    for w in waiters:
        if w["type"] == g.NAT:
            holding = bool(set(w.get("enis") or ()) & ids)
        elif w["type"] == g.INSTANCE:
            holding = w["id"] in attached
        else:
            holding = w.get("desc") in descs
        out[(w["type"], w["id"])] = "holding" if holding else "released"
    return out


def _batch_terminate(ex, ids):
    """One TerminateInstances for every instance of the level (AWS takes up to 1000 IDs per call); the
    IDs it accepted are started. Any error (one ID already gone fails the whole call) leaves every ID to
    its own delete, which sorts out NotFound and refusals one by one."""
    started = set()
    for chunk in _chunks(ids, 1000):
        try:
            resp = ex.c.call("ec2", "terminate_instances", InstanceIds=chunk)
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError):
            continue
        started.update(i["InstanceId"] for i in resp.get("TerminatingInstances", []))
    return started


# deletes that AWS takes for many IDs in one call
BATCH_DELETES = {g.INSTANCE: _batch_terminate}


# after our own delete, what "gone" waits on when it is not the resource itself
WAIT_PROBES = {g.ELB: _probe_lb_enis(g.ELB), g.ELBV2: _probe_lb_enis(g.ELBV2)}


def _d_record(ex, rid, obs):
    zone, rr = _find_record(ex, rid) if not obs.get("record") else (split_record_id(rid)[0], obs["record"])
    if rr is None:
        return "absent"
    try:
        ex.c.call("route53", "change_resource_record_sets", HostedZoneId=zone,
                  ChangeBatch={"Changes": [{"Action": "DELETE", "ResourceRecordSet": rr}]})
    except botocore.exceptions.ClientError as e:
        if not _record_vanished(e):
            raise
        # someone else deleted it between our read and our DELETE: only a fresh read may say absent
        if _find_record(ex, rid)[1] is None:
            return "absent"
        raise
    return "deleted"


def _record_vanished(exc):
    """Route53 refuses a whole change batch when one DELETE names a record that is no longer there."""
    return error_code(exc) == "InvalidChangeBatch" and "not found" in str(exc)


# how often a zone is re-listed when a concurrent run deleted a record between our list and our DELETE
ZONE_RELIST_ATTEMPTS = 3


def _zone_records(ex, zone):
    records = []
    marker = {}
    while True:
        resp = ex.c.call("route53", "list_resource_record_sets", HostedZoneId=zone, **marker)
        records += [rr for rr in resp.get("ResourceRecordSets", []) if rr["Type"] not in ("NS", "SOA")]
        if not resp.get("IsTruncated"):
            return records
        marker = {"StartRecordName": resp["NextRecordName"], "StartRecordType": resp["NextRecordType"]}


def _empty_zone(ex, zone):
    for attempt in range(ZONE_RELIST_ATTEMPTS):
        changes = [{"Action": "DELETE", "ResourceRecordSet": rr} for rr in _zone_records(ex, zone)]
        try:
            for chunk in _chunks(changes, 500):
                ex.c.call("route53", "change_resource_record_sets", HostedZoneId=zone,
                          ChangeBatch={"Changes": chunk})
            return
        except botocore.exceptions.ClientError as e:
            if not _record_vanished(e) or attempt == ZONE_RELIST_ATTEMPTS - 1:
                raise


def _d_zone(ex, rid, obs):
    try:
        _empty_zone(ex, rid)
        ex.c.call("route53", "delete_hosted_zone", Id=rid)
    except botocore.exceptions.ClientError as e:
        if error_code(e) != "HostedZoneNotEmpty":
            raise
        _empty_zone(ex, rid)  # a record written meanwhile: the zone's own contents, deleted with it
        ex.c.call("route53", "delete_hosted_zone", Id=rid)
    return "deleted"


def _empty_bucket(ex, bucket, prefix=""):
    """Delete every version and delete marker (under ``prefix``); returns how many it asked to delete."""
    kw = {"Bucket": bucket}
    if prefix:
        kw["Prefix"] = prefix
    sent = 0
    while True:
        resp = ex.c.call("s3", "list_object_versions", **kw)
        objs = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in resp.get("Versions", []) + resp.get(
            "DeleteMarkers", [])]
        for chunk in _chunks(objs, 1000):
            ex.c.call("s3", "delete_objects", Bucket=bucket, Delete={"Objects": chunk, "Quiet": True})
        sent += len(objs)
        if not resp.get("IsTruncated"):
            return sent
        kw["KeyMarker"] = resp.get("NextKeyMarker")
        kw["VersionIdMarker"] = resp.get("NextVersionIdMarker")


def _d_bucket(ex, rid, obs):
    _empty_bucket(ex, rid)
    try:
        ex.c.call("s3", "delete_bucket", Bucket=rid)
    except botocore.exceptions.ClientError as e:
        if error_code(e) != "BucketNotEmpty":
            raise
        _empty_bucket(ex, rid)  # objects written meanwhile
        ex.c.call("s3", "delete_bucket", Bucket=rid)
    return "deleted"


def _d_prefix(ex, rid, obs):
    bucket, prefix = split_prefix_id(rid)
    # nothing left under the prefix (another run emptied it first): gone, but not deleted by us
    return "deleted" if _empty_bucket(ex, bucket, prefix) else "absent"


def _d_endpoint(ex, rid, obs):
    resp = ex.c.call("ec2", "delete_vpc_endpoints", VpcEndpointIds=[rid])
    for u in resp.get("Unsuccessful", []):
        code = u.get("Error", {}).get("Code")
        if code in NOT_FOUND:
            return "absent"
        raise botocore.exceptions.ClientError({"Error": u.get("Error", {})}, "DeleteVpcEndpoints")
    return "deleted"


def _links(ex, rtype, rid, obs, key):
    """The resource's links (associations, attachments) from what discovery saw, else from a probe;
    None when the probe finds the resource gone."""
    if obs.get(key) is not None:
        return obs[key]
    found = PROBES[rtype](ex, [rid])
    return found[rid].get(key, []) if rid in found else None


def _call_unless_gone(ex, service, operation, **params):
    """A detach-style call whose target may already be gone: NotFound is what we wanted."""
    try:
        ex.c.call(service, operation, **params)
    except botocore.exceptions.ClientError as e:
        if error_code(e) not in NOT_FOUND:
            raise


def _d_route_table(ex, rid, obs):
    assocs = _links(ex, g.ROUTE_TABLE, rid, obs, "Associations")
    if assocs is None:
        return "absent"
    for a in assocs:
        if not a.get("Main") and a.get("RouteTableAssociationId"):
            _call_unless_gone(ex, "ec2", "disassociate_route_table", AssociationId=a["RouteTableAssociationId"])
    ex.c.call("ec2", "delete_route_table", RouteTableId=rid)
    return "deleted"


def _d_igw(ex, rid, obs):
    atts = _links(ex, g.IGW, rid, obs, "Attachments")
    if atts is None:
        return "absent"
    for a in atts:
        if a.get("VpcId"):
            _call_unless_gone(ex, "ec2", "detach_internet_gateway", InternetGatewayId=rid, VpcId=a["VpcId"])
    ex.c.call("ec2", "delete_internet_gateway", InternetGatewayId=rid)
    return "deleted"


def _d_profile(ex, rid, obs):
    roles = obs.get("Roles")
    if roles is None:
        roles = ex.c.call("iam", "get_instance_profile", InstanceProfileName=rid)["InstanceProfile"].get("Roles", [])
    for r in roles:
        _call_unless_gone(ex, "iam", "remove_role_from_instance_profile", InstanceProfileName=rid, RoleName=r["RoleName"])
    ex.c.call("iam", "delete_instance_profile", InstanceProfileName=rid)
    return "deleted"


def _clear_role(ex, rid, obs=None):
    """Detach the role's managed policies and delete its inline ones: from what discovery saw
    (GetAccountAuthorizationDetails) when it saw them, else listed now. A refusal later (a policy
    attached meanwhile) comes back here through the blocker lookup, which lists afresh."""
    obs = obs or {}
    attached = obs.get("AttachedManagedPolicies")
    if attached is None:
        attached = ex.c.call("iam", "list_attached_role_policies", RoleName=rid).get("AttachedPolicies", [])
    for p in attached:
        _call_unless_gone(ex, "iam", "detach_role_policy", RoleName=rid, PolicyArn=p["PolicyArn"])
    inline = obs.get("RolePolicyList")
    names = [p["PolicyName"] for p in inline] if inline is not None else ex.c.call(
        "iam", "list_role_policies", RoleName=rid).get("PolicyNames", [])
    for name in names:
        _call_unless_gone(ex, "iam", "delete_role_policy", RoleName=rid, PolicyName=name)


def _d_role(ex, rid, obs):
    _clear_role(ex, rid, obs)
    ex.c.call("iam", "delete_role", RoleName=rid)
    return "deleted"


def _d_policy(ex, rid, obs):
    versions = obs.get("PolicyVersionList")
    if versions is None:
        versions = ex.c.call("iam", "list_policy_versions", PolicyArn=rid).get("Versions", [])
    for v in versions:
        if not v.get("IsDefaultVersion"):
            _call_unless_gone(ex, "iam", "delete_policy_version", PolicyArn=rid, VersionId=v["VersionId"])
    ex.c.call("iam", "delete_policy", PolicyArn=rid)
    return "deleted"


DELETES = {
    g.RECORD: _d_record, g.ZONE: _d_zone, g.BUCKET: _d_bucket, g.PREFIX: _d_prefix, g.ENDPOINT: _d_endpoint,
    g.ROUTE_TABLE: _d_route_table, g.IGW: _d_igw, g.PROFILE: _d_profile, g.ROLE: _d_role, g.POLICY: _d_policy,
    g.INSTANCE: _one_call("ec2", "terminate_instances", "InstanceIds", "pending", as_list=True),
    g.NAT: _one_call("ec2", "delete_nat_gateway", "NatGatewayId", "pending"),
    # a load balancer is done when its ENIs are released: they hold its subnets and groups until then
    g.ELB: _one_call("elb", "delete_load_balancer", "LoadBalancerName", "pending"),
    g.ELBV2: _one_call("elbv2", "delete_load_balancer", "LoadBalancerArn", "pending"),
    g.TARGET_GROUP: _one_call("elbv2", "delete_target_group", "TargetGroupArn"),
    g.SG: _one_call("ec2", "delete_security_group", "GroupId"),
    g.SUBNET: _one_call("ec2", "delete_subnet", "SubnetId"),
    g.EIP: _one_call("ec2", "release_address", "AllocationId"),
    g.VPC: _one_call("ec2", "delete_vpc", "VpcId"),
    g.DHCP: _one_call("ec2", "delete_dhcp_options", "DhcpOptionsId"),
    g.OIDC: _one_call("iam", "delete_open_id_connect_provider", "OpenIDConnectProviderArn"),
}


# ====================================================================== preparation per type
def _group_refs(perm):
    return [p for p in perm.get("UserIdGroupPairs", []) if p.get("GroupId")]


def _revoke_group_refs(ex, group, only_to=None):
    """Revoke the rules of ``group`` that reference other groups (or only ``only_to``)."""
    for direction, key in (("ingress", "IpPermissions"), ("egress", "IpPermissionsEgress")):
        perms = []
        for perm in group.get(key, []):
            pairs = [p for p in _group_refs(perm) if only_to is None or p["GroupId"] == only_to]
            if pairs:
                q = dict((k, v) for k, v in perm.items() if k in ("IpProtocol", "FromPort", "ToPort"))
                q["UserIdGroupPairs"] = [{"GroupId": p["GroupId"]} for p in pairs]
                perms.append(q)
        if perms:
            try:
                ex.c.call("ec2", "revoke_security_group_%s" % direction, GroupId=group["GroupId"], IpPermissions=perms)
            except botocore.exceptions.ClientError as e:
                if error_code(e) not in NOT_FOUND and error_code(e) != "InvalidPermission.NotFound":
                    raise


def _prepare_sgs(ex, ids):
    """Groups that reference each other cannot be deleted one by one: revoke those rules first."""
    obs = ex.observed.get(g.SG, {})
    for i in ids:
        group = obs.get(i)
        if group and group.get("state") == "present":
            _revoke_group_refs(ex, group)


PREPARE = {g.SG: _prepare_sgs}


# ====================================================================== blocker lookup
def _eni_blocker(ex, eni, nat_enis):
    """Classify an ENI found in the way: whose it is, whether it is going away, what to do."""
    eid = eni["NetworkInterfaceId"]
    if eid in nat_enis:
        return None  # the NAT gateway is the blocker, reported on its own
    att = eni.get("Attachment") or {}
    if att.get("InstanceId"):
        return None  # the instance is the blocker, reported on its own
    desc = eni.get("Description") or ""
    if desc.startswith("ELB "):
        lb = desc[4:]
        if "/" in lb:  # ELBv2: app/name/id or net/name/id
            owners = [a for a in ex.manifest.get(g.ELBV2, []) if a.endswith("loadbalancer/" + lb)]
            alive = bool(owners) and any(ex.results.get((g.ELBV2, a), {}).get("outcome") == "failed" for a in owners)
            known = bool(owners)
        else:
            known = lb in ex.manifest.get(g.ELB, [])
            ours = ex.results.get((g.ELB, lb), {}).get("outcome")
            alive = False if ours in ("deleted", "absent") else bool(_probe_elb(ex, [lb]))
        if not alive:
            return Blocker(ENI, eid, eni.get("Status", "in-use"), going_away=True,
                           note="ENI of load balancer %s, which is gone; AWS releases it shortly" % lb)
        return Blocker(ENI, eid, eni.get("Status", "in-use"), going_away=False,
                       note="ENI of load balancer %s, which still exists%s: delete that load balancer" % (
                           lb, "" if known else " and is not in the manifest"))
    if (ENI, eid) in ex.in_manifest:
        return Blocker(ENI, eid, eni.get("Status"), going_away=False, note="in the manifest but not deletable here")
    note = "network interface %s (%s) is not in the manifest: find its owner (requester %s) and delete it there, " \
        "or delete the ENI" % (eid, desc or "no description", eni.get("RequesterId", "unknown"))
    return Blocker(ENI, eid, eni.get("Status"), going_away=False, note=note)


def _nats(ex, name, value):
    resp = ex.c.call("ec2", "describe_nat_gateways", Filter=[{"Name": name, "Values": [value]}])
    return [n for n in resp.get("NatGateways", []) if n.get("State") != "deleted"]


def _nat_blocker(ex, n):
    if n.get("State") == "deleting":
        return Blocker(g.NAT, n["NatGatewayId"], "deleting", going_away=True)
    if (g.NAT, n["NatGatewayId"]) in ex.in_manifest:
        return Blocker(g.NAT, n["NatGatewayId"], n.get("State"), going_away=False,
                       note="in the manifest but not deleted; see its own result")
    return Blocker(g.NAT, n["NatGatewayId"], n.get("State"), going_away=False,
                   note="NAT gateway not in the manifest: delete it (it holds its ENI and EIP until 'deleted') "
                        "or add it to the manifest")


def _instance_blockers(ex, name, value):
    resp = ex.c.call("ec2", "describe_instances", Filters=[{"Name": name, "Values": [value]}])
    out = []
    for r in resp.get("Reservations", []):
        for i in r.get("Instances", []):
            st = i.get("State", {}).get("Name")
            if st == "terminated":
                continue
            going = st == "shutting-down"
            out.append(Blocker(g.INSTANCE, i["InstanceId"], st, going_away=going,
                               note=None if going else "instance not terminated and %s: terminate it" % (
                                   "in the manifest" if (g.INSTANCE, i["InstanceId"]) in ex.in_manifest
                                   else "not in the manifest")))
    return out


def _enis(ex, name, value):
    return ex.c.call("ec2", "describe_network_interfaces",
                     Filters=[{"Name": name, "Values": [value]}]).get("NetworkInterfaces", [])


def _nat_eni_ids(nats):
    return set(a.get("NetworkInterfaceId") for n in nats for a in n.get("NatGatewayAddresses", []))


def _b_subnet(ex, rid, obs, code):
    nats = _nats(ex, "subnet-id", rid)
    out = [_nat_blocker(ex, n) for n in nats]
    out += _instance_blockers(ex, "subnet-id", rid)
    nat_enis = _nat_eni_ids(nats)
    for eni in _enis(ex, "subnet-id", rid):
        b = _eni_blocker(ex, eni, nat_enis)
        if b is not None:
            out.append(b)
    return out


def _b_sg(ex, rid, obs, code):
    if code == "CannotDelete":
        return [Blocker(g.SG, rid, "default", note="a VPC's default group goes with its VPC: remove it from the manifest")]
    out = _instance_blockers(ex, "instance.group-id", rid)
    for eni in _enis(ex, "group-id", rid):
        b = _eni_blocker(ex, eni, set())
        if b is not None:
            out.append(b)
    groups = ex.c.call("ec2", "describe_security_groups").get("SecurityGroups", [])
    for other in groups:
        if other["GroupId"] == rid:
            continue
        refs = any(p.get("GroupId") == rid for perm in other.get("IpPermissions", []) + other.get(
            "IpPermissionsEgress", []) for p in _group_refs(perm))
        if not refs:
            continue
        if (g.SG, other["GroupId"]) in ex.in_manifest:
            # a group of the same infra: its rule goes with it, revoke it now (what the destroy command does)
            out.append(Blocker(g.SG, other["GroupId"], "references %s" % rid,
                               action=lambda o=other: _revoke_group_refs(ex, o, only_to=rid)))
        else:
            out.append(Blocker(g.SG, other["GroupId"], "references %s" % rid, going_away=False,
                               note="a rule of group %s (not in the manifest) references %s: revoke that rule" % (
                                   other["GroupId"], rid)))
    return out


def _b_igw(ex, rid, obs, code):
    found = PROBES[g.IGW](ex, [rid]).get(rid, {})
    out = []
    for a in found.get("Attachments", []):
        vpc = a.get("VpcId")
        nats = _nats(ex, "vpc-id", vpc)
        out += [_nat_blocker(ex, n) for n in nats]
        nat_enis = _nat_eni_ids(nats)
        for eni in _enis(ex, "vpc-id", vpc):
            if eni["NetworkInterfaceId"] in nat_enis or not (eni.get("Association") or {}).get("PublicIp"):
                continue
            att = eni.get("Attachment") or {}
            if att.get("InstanceId"):
                out += _instance_blockers(ex, "instance-id", att["InstanceId"])
            else:
                out.append(Blocker(ENI, eni["NetworkInterfaceId"], "has public address %s" % eni["Association"]["PublicIp"],
                                   note="disassociate the public address of this ENI (not in the manifest)"))
    return out


def _b_eip(ex, rid, obs, code):
    addrs = PROBES[g.EIP](ex, [rid])
    a = addrs.get(rid)
    if not a:
        return []
    out = []
    if a.get("NetworkInterfaceId"):
        nats = [n for n in ex.c.call("ec2", "describe_nat_gateways").get("NatGateways", [])
                if n.get("State") != "deleted"
                and any(x.get("AllocationId") == rid for x in n.get("NatGatewayAddresses", []))]
        if nats:
            out += [_nat_blocker(ex, n) for n in nats]
        elif a.get("InstanceId"):
            out += _instance_blockers(ex, "instance-id", a["InstanceId"])
        else:
            out.append(Blocker(ENI, a["NetworkInterfaceId"], "holds %s" % a.get("PublicIp"),
                               note="the address is associated with ENI %s: disassociate it (association %s)" % (
                                   a["NetworkInterfaceId"], a.get("AssociationId"))))
    elif a.get("InstanceId"):
        out += _instance_blockers(ex, "instance-id", a["InstanceId"])
    return out


def _b_vpc(ex, rid, obs, code):
    out = []

    def add(rtype, ids, note):
        for i in ids:
            if (rtype, i) in ex.in_manifest:
                res = ex.results.get((rtype, i), {})
                out.append(Blocker(rtype, i, res.get("outcome", "pending"), note="in the manifest; its own result: %s" % (
                    res.get("error") or res.get("outcome"))))
            else:
                out.append(Blocker(rtype, i, "present", note=note))

    vf = [{"Name": "vpc-id", "Values": [rid]}]
    add(g.SUBNET, [s["SubnetId"] for s in ex.c.call("ec2", "describe_subnets", Filters=vf).get("Subnets", [])],
        "subnet not in the manifest: delete it or add it")
    add(g.IGW, [i["InternetGatewayId"] for i in ex.c.call("ec2", "describe_internet_gateways", Filters=[
        {"Name": "attachment.vpc-id", "Values": [rid]}]).get("InternetGateways", [])],
        "internet gateway attached and not in the manifest: detach it")
    add(g.SG, [s["GroupId"] for s in ex.c.call("ec2", "describe_security_groups", Filters=vf).get("SecurityGroups", [])
               if s.get("GroupName") != "default"], "security group not in the manifest: delete it")
    add(g.ROUTE_TABLE, [r["RouteTableId"] for r in ex.c.call("ec2", "describe_route_tables", Filters=vf).get(
        "RouteTables", []) if not any(a.get("Main") for a in r.get("Associations", []))],
        "route table not in the manifest: delete it")
    add(g.ENDPOINT, [e["VpcEndpointId"] for e in ex.c.call("ec2", "describe_vpc_endpoints", Filters=vf).get(
        "VpcEndpoints", []) if (e.get("State") or "").lower() not in ("deleted", "deleting")],
        "VPC endpoint not in the manifest: delete it")
    nats = _nats(ex, "vpc-id", rid)
    out += [_nat_blocker(ex, n) for n in nats]
    for eni in _enis(ex, "vpc-id", rid):
        b = _eni_blocker(ex, eni, _nat_eni_ids(nats))
        if b is not None:
            out.append(b)
    # blockers whose own deletion failed are not going away
    return out


def _b_dhcp(ex, rid, obs, code):
    vpcs = ex.c.call("ec2", "describe_vpcs", Filters=[{"Name": "dhcp-options-id", "Values": [rid]}]).get("Vpcs", [])
    return [Blocker(g.VPC, v["VpcId"], "uses these DHCP options",
                    note="associate VPC %s with other options (or 'default'), or delete it" % v["VpcId"]) for v in vpcs]


def _b_role(ex, rid, obs, code):
    out = []
    profiles = ex.c.call("iam", "list_instance_profiles_for_role", RoleName=rid).get("InstanceProfiles", [])
    for p in profiles:
        out.append(Blocker(g.PROFILE, p["InstanceProfileName"], "contains the role", action=lambda p=p: ex.c.call(
            "iam", "remove_role_from_instance_profile", InstanceProfileName=p["InstanceProfileName"], RoleName=rid)))
    if not profiles:
        out.append(Blocker(g.ROLE, rid, "has policies", action=lambda: _clear_role(ex, rid)))
    return out


def _b_policy(ex, rid, obs, code):
    resp = ex.c.call("iam", "list_entities_for_policy", PolicyArn=rid)
    out = []
    for kind, key, name in (("AWS::IAM::Role", "PolicyRoles", "RoleName"), ("AWS::IAM::User", "PolicyUsers", "UserName"),
                            ("AWS::IAM::Group", "PolicyGroups", "GroupName")):
        for e in resp.get(key, []):
            out.append(Blocker(kind, e[name], "policy attached",
                               note="detach %s from %s %s (not deleted by this run)" % (rid, kind, e[name])))
    return out


BLOCKERS = {g.SUBNET: _b_subnet, g.SG: _b_sg, g.IGW: _b_igw, g.EIP: _b_eip, g.VPC: _b_vpc, g.DHCP: _b_dhcp,
            g.ROLE: _b_role, g.POLICY: _b_policy}
