# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""teardown.gates.stuck_deletions: an Event-Driven Ansible event source that notices deletions that are stuck.

It lists, then watches (bounded windows, resumed from the last resourceVersion, re-listed after a drop: the
Observer threads of wait_gate, plugins/module_utils/k8s/watch.py) every configured kind, and puts on the rulebook's
queue one event per object that has been terminating longer than its kind's ``stuck_after``, and again only when
what holds it changed (plugins/module_utils/k8s/stuck.py decides). A kind whose reads fail is an event of its own,
state ``unknown``. Runbook: docs/runbook-notice-stuck-deletions.md.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
short_description: Notice Kubernetes deletions that are stuck (an object terminating for too long).
description:
  - Lists, then watches each configured kind and emits one event per object whose deletionTimestamp is older than
    its kind's I(stuck_after); again only when its UID, deletionTimestamp or finalizers change.
  - "Each event is C({stuck_deletion: {state: stuck, object: {api_version, kind, namespace, name, uid},
    deletion_timestamp, terminating_seconds, stuck_after, finalizers, changed, observed_at, summary}}). A kind
    whose reads fail is C({stuck_deletion: {state: unknown, object: {api_version, kind}, error, unknown_since}}),
    once per outage."
  - Every request is bounded, by I(request_timeout) (a list, discovery) or by I(watch_window) plus
    I(request_timeout) (a watch).
options:
  kinds:
    description:
      - The kinds to watch, each C({api_version, kind}). Default the objects the collection's kind registry knows
        (HyperShift, Cluster API, convoy, CAPTF) and Namespaces; a default kind the cluster does not serve is skipped,
        a listed one fails the source.
  stuck_after:
    description:
      - Seconds an object may terminate before it counts as stuck, for every kind, or a dict keyed by kind
        (C(ConfigMap), or C(group/Kind)). Default the gate window of the kind's role (600 s).
  namespace:
    description: Watch this namespace only (cluster-scoped kinds are watched whole). Default all.
  label_selector:
    description: Watch only the objects with these labels (a Kubernetes label selector). Default all.
  kubeconfig:
    description: The kubeconfig file. Default K8S_AUTH_KUBECONFIG, KUBECONFIG, then ~/.kube/config.
  context:
    description: The kubeconfig context. Default the current one.
  request_timeout:
    description: Seconds each request may take (default 10).
  watch_window:
    description: Seconds each watch request stays open before it is renewed from its resourceVersion (default 60).
  check_every:
    description: Seconds between two looks at the clock for objects that became stuck (default 5).
  run_for:
    description: Seconds the source runs, then ends; 0 (the default) runs until the rulebook stops.
"""

EXAMPLES = r"""
- name: Notice stuck deletions
  hosts: all
  sources:
    - teardown.gates.stuck_deletions:
        stuck_after: {Namespace: 900}
  rules:
    - name: Diagnose it
      condition: event.stuck_deletion.state == "stuck"
      action:
        run_playbook:
          name: teardown.gates.diagnose_deletion
"""

import asyncio
import logging
import queue as thread_queue
import time

from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError, api_client
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import resolve_resource
from ansible_collections.teardown.gates.plugins.module_utils.k8s.stuck import StuckOptionsError, Tracker, parse_options
from ansible_collections.teardown.gates.plugins.module_utils.k8s.watch import Observer

LOG = logging.getLogger("teardown.gates.stuck_deletions")
FOREVER = 10 * 365 * 86400.0  # an Observer needs a deadline; run_for 0 gives it one beyond any run


def _connect(config):
    """The API client, and the Resource of each kind to watch. Raises ResourceLookupError (unknown: no answer)
    or StuckOptionsError (a listed kind the cluster does not serve)."""
    auth = dict((k, config[k]) for k in ("kubeconfig", "context") if config[k])
    client = api_client(None, request_timeout=config["request_timeout"], caller="stuck_deletions", **auth)
    resources = {}
    for (api_version, kind) in config["kinds"]:
        try:
            resources[(api_version, kind)] = resolve_resource(client, api_version, kind)
        except ResourceLookupError as e:
            if e.unknown:
                raise
            if config["explicit_kinds"]:
                raise StuckOptionsError("teardown.gates.stuck_deletions: kinds: %s %s is not served by the API "
                                        "server (%s)" % (api_version, kind, e))
            LOG.info("skipping %s %s: the cluster does not serve it", api_version, kind)
    _pool_for(client, len(resources) + 2)
    return resources


def _pool_for(client, size):
    """Room in the client's connection pool for one open watch per kind and a list beside them (urllib3 keeps 10
    by default and discards, with a warning, each connection over that)."""
    api = getattr(client, "client", client)  # kubernetes.core's K8SClient -> DynamicClient -> ApiClient
    api = getattr(api, "client", api)
    pool = getattr(getattr(api, "rest_client", None), "pool_manager", None)
    settings = getattr(pool, "connection_pool_kw", None)
    if settings is not None and (settings.get("maxsize") or 1) < size:
        settings["maxsize"] = size
        pool.clear()


def _watch(resources, config, sink, end):
    """One Observer thread per kind (list, then bounded watches resumed from the last resourceVersion, a re-list
    after a drop), all reporting to ``sink``; returns them by key (a string: it names the thread) with their kind."""
    observers = {}
    for pair, resource in resources.items():
        key = "%s %s" % pair
        observers[key] = (pair, Observer(key, resource, sink, end, namespace=config["namespace"],
                                         label_selector=config["label_selector"],
                                         request_timeout=config["request_timeout"],
                                         watch_window=int(config["watch_window"])))
        observers[key][1].start()
    return observers


def _drain(sink, wait):
    """The observers' messages of the next ``wait`` seconds (blocks a worker thread, not the event loop)."""
    out = []
    try:
        out.append(sink.get(timeout=wait))
        while True:
            out.append(sink.get_nowait())
    except thread_queue.Empty:
        pass
    return out


async def main(queue, args):
    """The entry point ansible-rulebook calls: runs until cancelled (or ``run_for``), putting events on ``queue``."""
    config = parse_options(args)  # bad input ends the source before any request, naming the option
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    end = started + (config["run_for"] or FOREVER)
    tracker = Tracker(config["kinds"])
    sink = thread_queue.Queue()
    observers = {}
    try:
        while time.monotonic() < end:
            if not observers:
                try:
                    resources = await loop.run_in_executor(None, _connect, config)
                except ResourceLookupError as e:
                    if not e.unknown:  # the kubeconfig or context is wrong: no answer will ever come
                        raise StuckOptionsError("teardown.gates.stuck_deletions: kubeconfig, context: %s" % e)
                    # the API server did not answer discovery: every kind is unknown; try again after check_every
                    tracker.failed(None, str(e), time.time())
                    resources = None
                if resources:
                    tracker.stuck_after = dict((p, s) for p, s in tracker.stuck_after.items() if p in resources)
                    observers = _watch(resources, config, sink, end)
                elif resources is not None:
                    raise StuckOptionsError("teardown.gates.stuck_deletions: kinds: the cluster serves none of "
                                            "the default kinds; list the kinds to watch")
            wait = config["check_every"] if observers else min(config["check_every"], config["request_timeout"])
            for msg in await loop.run_in_executor(None, _drain, sink, wait):
                pair, what = observers[msg[0]][0], msg[1]
                if what == "listed":
                    tracker.listed(pair, msg[2]["items"])
                elif what == "event":
                    tracker.event(pair, msg[2], msg[3])
                elif what == "error":
                    tracker.failed(pair, msg[2].get("error") or "the read failed", time.time())
            for event in tracker.due(time.time()):
                LOG.info("%s", event["stuck_deletion"]["summary"])
                await queue.put(event)
    finally:
        for dummy, obs in observers.values():
            obs.stop()


if __name__ == "__main__":
    # a look without a rulebook: print the events (python stuck_deletions.py; the collection on PYTHONPATH)

    class _Printer:
        async def put(self, event):
            print(event)

    asyncio.run(main(_Printer(), {"check_every": 2}))
