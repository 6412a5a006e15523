# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import threading
import time

try:
    import queue
except ImportError:  # pragma: no cover
    import Queue as queue  # noqa: N813

from ansible_collections.teardown.gates.plugins.module_utils.k8s import observe as O
from ansible_collections.teardown.gates.plugins.module_utils.k8s import watch as W


class FakeResp(object):
    def __init__(self, events):
        self.lines = [json.dumps(e).encode() + b"\n" for e in events]

    def stream(self, amt=None, decode_content=False):
        return iter(self.lines)

    def release_conn(self):
        pass


class FakeResource(object):
    """First watch drops; second watch delivers a bookmark and a DELETED event; later ones idle."""
    namespaced = True
    kind = "ConfigMap"
    group_version = "v1"

    def __init__(self):
        self.calls = []
        self.third_watch = threading.Event()

    def get(self, **kw):
        self.calls.append(kw)
        watches = [c for c in self.calls if c.get("watch")]
        if len(watches) >= 3:
            self.third_watch.set()
        if not kw.get("watch"):
            return {"items": [{"metadata": {"name": "a", "uid": "u1", "resourceVersion": "5"}}],
                    "metadata": {"resourceVersion": "5"}}
        if len(watches) == 1:
            raise IOError("connection reset by peer")
        if len(watches) == 2:
            return FakeResp([{"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "7"}}},
                             {"type": "DELETED", "object": {"metadata": {"name": "a", "uid": "u1", "resourceVersion": "8"}}}])
        time.sleep(0.05)
        return FakeResp([])


def test_observer_relists_once_after_a_drop_and_resumes_from_bookmarks():
    sink = queue.Queue()
    res = FakeResource()
    # stopped once it resumes (its third watch), not at a short deadline: a loaded machine (unit tests run at
    # nice 10 beside the sandbox lanes) could reach a 0.6 s deadline before the third watch
    ob = W.Observer(0, res, sink, time.monotonic() + 30, namespace="ns", name="a")
    ob.start()
    assert res.third_watch.wait(20), res.calls
    ob.stop()
    ob.join(5)
    kinds = []
    while not sink.empty():
        kinds.append(sink.get()[1:3])
    assert [k[0] for k in kinds[:4]] == ["listed", "error", "listed", "event"]
    assert kinds[3][1] == "DELETED"
    watches = [c for c in res.calls if c.get("watch")]
    assert all(c["allow_watch_bookmarks"] for c in watches)
    assert watches[1]["resource_version"] == "5"  # from the re-list
    assert watches[2]["resource_version"] == "8"  # resumed after the event, no third list
    assert len([c for c in res.calls if not c.get("watch")]) == 2
    assert watches[0]["field_selector"] == "metadata.name=a"


def test_watch_stream_raises_watch_expired_on_410():
    class Gone(FakeResource):
        def get(self, **kw):
            return FakeResp([{"type": "ERROR", "object": {"code": 410, "message": "too old resource version"}}])
    try:
        list(W.watch_stream(Gone(), "ns", resource_version="1"))
    except W.WatchExpired:
        pass
    else:
        raise AssertionError("410 must raise WatchExpired")


def test_failed_get_is_unknown_and_404_is_absent():
    class E(Exception):
        def __init__(self, status):
            super(E, self).__init__("HTTP %d" % status)
            self.status = status

    class R(object):
        namespaced = True

        def __init__(self, status):
            self.status = status

        def get(self, **kw):
            raise E(self.status)
    assert O.get_object(R(404), "a", "ns")["state"] == O.ABSENT
    for status in (403, 500, 503):
        obs = O.get_object(R(status), "a", "ns")
        assert obs["state"] == O.UNKNOWN and obs["query"]["ok"] is False
    assert O.list_objects(R(500), "ns")["ok"] is False


def test_an_event_split_across_chunks_is_read_whole():
    deleted = {"type": "DELETED", "object": {"metadata": {"name": "a", "resourceVersion": "9"}}}
    raw = json.dumps({"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "8"}}}).encode() + b"\n\n" + \
        json.dumps(deleted).encode() + b"\n"

    class Split(FakeResource):
        def get(self, **kw):
            resp = FakeResp([])
            resp.lines = [raw[:7], raw[7:60], raw[60:]]
            return resp
    assert [e for e, dummy in W.watch_stream(Split(), "ns")] == ["BOOKMARK", "DELETED"]
