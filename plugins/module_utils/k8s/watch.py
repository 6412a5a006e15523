# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubernetes watches: ``watch_stream`` (raw events with bookmarks) and the ``Observer`` thread that
lists, then watches with resourceVersion and bookmarks, reconnects with one re-list after a drop, and pushes
what it sees to a queue (used by k8s/gates.py). A 410 Gone is ``WatchExpired``: re-list, nothing is unknown."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import threading
import time

try:
    from kubernetes.watch.watch import iter_resp_lines
except ImportError:  # pragma: no cover - the module reports the missing kubernetes library
    iter_resp_lines = None

from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import DEFAULT_REQUEST_TIMEOUT, error_text
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import list_objects, query_record, selector_kwargs


class WatchExpired(TeardownGatesError):
    """The watch's resourceVersion is too old (410 Gone): re-list, nothing is unknown."""


def watch_stream(resource, namespace=None, name=None, label_selector=None, resource_version=None,
                 timeout_seconds=30, read_timeout=None, on_response=None):
    """Yield ``(event_type, object_dict)`` from one watch request, with bookmarks allowed.

    Ends normally when the server closes the window (``timeout_seconds``). Raises WatchExpired on
    410 Gone and any other exception on a failed or silent connection (``read_timeout``).
    ``on_response`` receives the open response so another thread can close it to stop the watch.
    """
    kwargs = selector_kwargs(resource, namespace, name, label_selector)
    kwargs.update({"watch": True, "allow_watch_bookmarks": True, "timeout_seconds": int(timeout_seconds),
                   "serialize": False,
                   "_request_timeout": (5.0, float(read_timeout or timeout_seconds + 10))})
    if resource_version:
        kwargs["resource_version"] = resource_version
    resp = resource.get(**kwargs)
    if on_response:
        on_response(resp)
    try:
        for line in iter_resp_lines(resp):  # the kubernetes client's own line splitter of a watch response
            if not line.strip():
                continue
            event = json.loads(line)
            etype = event.get("type")
            obj = event.get("object") or {}
            if etype == "ERROR":
                if obj.get("code") == 410:
                    raise WatchExpired(obj.get("message"))
                raise RuntimeError("watch error: %s" % obj.get("message"))
            yield etype, obj
    finally:
        try:
            resp.release_conn()
        except Exception:
            pass


class Observer(threading.Thread):
    """List, then watch one selector until stopped or the deadline, pushing to ``sink`` (a queue).

    Messages put on the sink, each a tuple starting with the observer's ``key``:

    - ``(key, "listed", list_result)``: a successful list (first one, or the re-list after a drop).
    - ``(key, "event", event_type, obj, epoch_seconds)``: ADDED / MODIFIED / DELETED.
    - ``(key, "error", query_dict)``: a failed list or a dropped watch; the selector is unknown
      until the next ``listed``.

    Watches resume from the last resourceVersion (bookmarks keep it fresh); after an error it
    re-lists once and watches again from the list's resourceVersion.
    """

    def __init__(self, key, resource, sink, deadline, namespace=None, name=None, label_selector=None,
                 request_timeout=DEFAULT_REQUEST_TIMEOUT, watch_window=30):
        super(Observer, self).__init__(name="observer-%s" % key)
        self.daemon = True
        self.key = key
        self.resource = resource
        self.sink = sink
        self.deadline = deadline  # time.monotonic() value
        self.namespace = namespace
        self.obj_name = name
        self.label_selector = label_selector
        self.request_timeout = request_timeout
        self.watch_window = watch_window
        self._stop_event = threading.Event()
        self._resp = None
        self.relists = 0

    def stop(self):
        """Ask the thread to end; never blocks (closing a response being read can block, so a
        helper thread does it)."""
        self._stop_event.set()
        resp = self._resp
        if resp is not None:
            def _close():
                try:
                    resp.shutdown() if hasattr(resp, "shutdown") else resp.close()
                except Exception:
                    pass
            t = threading.Thread(target=_close, name="close-%s" % self.key)
            t.daemon = True
            t.start()

    def _keep_resp(self, resp):
        self._resp = resp

    def run(self):
        rv = None
        need_list = True
        backoff = 0.2
        while not self._stop_event.is_set() and time.monotonic() < self.deadline:
            if need_list:
                res = list_objects(self.resource, self.namespace, self.obj_name, self.label_selector,
                                   request_timeout=self.request_timeout)
                if self._stop_event.is_set():
                    return
                if not res["ok"]:
                    self.sink.put((self.key, "error", res["query"]))
                    self._stop_event.wait(backoff)
                    backoff = min(backoff * 2, 2.0)
                    continue
                self.relists += 1
                self.sink.put((self.key, "listed", res))
                rv = res["resource_version"]
                need_list = False
                backoff = 0.2
            started = time.time()
            remaining = self.deadline - time.monotonic()
            window = max(1, min(self.watch_window, int(remaining) + 1))
            try:
                for etype, obj in watch_stream(self.resource, self.namespace, self.obj_name, self.label_selector,
                                               rv, timeout_seconds=window,
                                               read_timeout=window + self.request_timeout,
                                               on_response=self._keep_resp):
                    if self._stop_event.is_set():
                        return
                    new_rv = (obj.get("metadata") or {}).get("resourceVersion")
                    if new_rv:
                        rv = new_rv
                    if etype == "BOOKMARK":
                        continue
                    self.sink.put((self.key, "event", etype, obj, time.time()))
            except WatchExpired:
                need_list = True  # history compacted: re-list, the state is still known
            except Exception as e:
                if self._stop_event.is_set():
                    return
                self.sink.put((self.key, "error", query_record("watch", started, error=error_text(e))))
                need_list = True
                self._stop_event.wait(backoff)
                backoff = min(backoff * 2, 2.0)
            finally:
                self._resp = None
