# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The executor's merged wait: one DescribeNetworkInterfaces on the VPCs serves every NAT gateway,
instance and load balancer being waited on, instead of one poll by ID each (see ``wait_on_enis``)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import error_text
from ansible_collections.teardown.gates.plugins.module_utils.aws.deletes import elb_eni_description, eni_signals, \
    list_vpc_enis


class EniWaits:
    """Mixed into the Executor: uses its ``observed``, ``probe``, ``clock``, ``sleep``, ``deadline``,
    ``look_cap``, ``lock`` and ``seen_gone``."""

    def __init__(self, poll_interval, backstop_interval):
        self._eni_lock = threading.Lock()
        self._eni_waiters = {}  # (type, id) -> {"type", "id", "vpc", "enis", "desc", "state", "checked"}
        self._eni_slot = {"at": None, "interval": poll_interval}
        self.backstop_interval = backstop_interval

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
