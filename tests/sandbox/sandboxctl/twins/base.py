"""A small reconcile loop shared by the twins.

A twin subclasses `Twin`, lists the kinds it watches in `WATCHES` as (api_version, kind), and
implements `reconcile(obj) -> float | None` (seconds until it wants to see the object again, or
None). Events from every watch and due requeues feed one work queue, handled one at a time, so a
twin's logic never races itself. Knobs come from the environment (`SANDBOX_KNOBS_FILE`, JSON) and
from annotations on the objects (`sandbox.teardown.gates/knob-<name>`), re-read on every reconcile.
"""
import heapq
import json
import logging
import os
import queue
import threading
import time

from kubernetes import config, dynamic, watch
from kubernetes.client import ApiException

KNOB_PREFIX = "sandbox.teardown.gates/knob-"
log = logging.getLogger("twin")


def now_iso():
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)


def knob(obj, name, default=None):
    """A knob from the object's annotations, else from the sandbox knob file, else default."""
    ann = (obj.get("metadata") or {}).get("annotations") or {}
    if KNOB_PREFIX + name in ann:
        return ann[KNOB_PREFIX + name]
    path = os.environ.get("SANDBOX_KNOBS_FILE")
    if path and os.path.exists(path):
        try:
            with open(path) as f:
                return json.load(f).get(name, default)
        except (OSError, ValueError):
            pass
    return default


def set_condition(obj, ctype, status, reason, message=""):
    """Set (or replace) a condition in obj['status']['conditions']; returns True when it changed."""
    st = obj.setdefault("status", {}) or {}
    obj["status"] = st
    conds = st.setdefault("conditions", []) or []
    st["conditions"] = conds
    for c in conds:
        if c.get("type") == ctype:
            if (c.get("status"), c.get("reason"), c.get("message")) == (status, reason, message):
                return False
            if c.get("status") != status:
                c["lastTransitionTime"] = now_iso()[:19] + "Z"
            c.update(status=status, reason=reason, message=message)
            return True
    conds.append({"type": ctype, "status": status, "reason": reason, "message": message,
                  "lastTransitionTime": now_iso()[:19] + "Z"})
    return True


class Twin:
    WATCHES = []  # [(api_version, kind)]
    NAME = "twin"

    def __init__(self):
        self.client = dynamic.DynamicClient(config.new_client_from_config(os.environ["KUBECONFIG"]))
        self.queue = queue.Queue()
        self._timers = []
        self._timers_lock = threading.Lock()

    # -- helpers for subclasses -------------------------------------------------------------
    def api(self, api_version, kind):
        return self.client.resources.get(api_version=api_version, kind=kind)

    def get(self, api_version, kind, name, namespace=None):
        """The object as a dict, or None when it is absent (other errors raise)."""
        try:
            return self.api(api_version, kind).get(name=name, namespace=namespace).to_dict()
        except ApiException as e:
            if e.status == 404:
                return None
            raise

    def list(self, api_version, kind, namespace=None, label_selector=None):
        return [i.to_dict() for i in self.api(api_version, kind).get(
            namespace=namespace, label_selector=label_selector).items]

    def delete(self, api_version, kind, name, namespace=None):
        """Request deletion; absent is fine. Returns True if the request was sent to a present object."""
        try:
            self.api(api_version, kind).delete(name=name, namespace=namespace)
            return True
        except ApiException as e:
            if e.status == 404:
                return False
            raise

    def remove_finalizer(self, obj, finalizer):
        """JSON patch with a test on uid and the value at the index, as a careful controller does."""
        fins = obj["metadata"].get("finalizers") or []
        if finalizer not in fins:
            return False
        i = fins.index(finalizer)
        api = self.api(obj["apiVersion"], obj["kind"])
        try:
            api.patch(name=obj["metadata"]["name"], namespace=obj["metadata"].get("namespace"),
                      content_type="application/json-patch+json",
                      body=[{"op": "test", "path": "/metadata/uid", "value": obj["metadata"]["uid"]},
                            {"op": "test", "path": f"/metadata/finalizers/{i}", "value": finalizer},
                            {"op": "remove", "path": f"/metadata/finalizers/{i}"}])
            return True
        except ApiException as e:
            if e.status in (404, 409, 422):
                return False
            raise

    def add_finalizer(self, obj, finalizer):
        if finalizer in (obj["metadata"].get("finalizers") or []) or obj["metadata"].get("deletionTimestamp"):
            return False
        api = self.api(obj["apiVersion"], obj["kind"])
        ops = [{"op": "test", "path": "/metadata/uid", "value": obj["metadata"]["uid"]}]
        if obj["metadata"].get("finalizers"):
            ops.append({"op": "add", "path": "/metadata/finalizers/-", "value": finalizer})
        else:
            ops.append({"op": "add", "path": "/metadata/finalizers", "value": [finalizer]})
        try:
            api.patch(name=obj["metadata"]["name"], namespace=obj["metadata"].get("namespace"),
                      content_type="application/json-patch+json", body=ops)
            return True
        except ApiException as e:
            if e.status in (404, 409, 422):
                return False
            raise

    def update_status(self, obj):
        api = self.api(obj["apiVersion"], obj["kind"])
        try:
            api.status.replace(body=obj)
        except ApiException as e:
            if e.status not in (404, 409):
                raise

    def event(self, obj, etype, reason, message):
        """Emit a core/v1 Event about obj (as `kubectl describe` would show it)."""
        md = obj["metadata"]
        body = {"apiVersion": "v1", "kind": "Event",
                "metadata": {"generateName": md["name"] + ".", "namespace": md.get("namespace") or "default"},
                "involvedObject": {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": md["name"],
                                   "namespace": md.get("namespace"), "uid": md["uid"]},
                "type": etype, "reason": reason, "message": message, "source": {"component": self.NAME},
                "firstTimestamp": now_iso()[:19] + "Z", "lastTimestamp": now_iso()[:19] + "Z", "count": 1}
        try:
            self.api("v1", "Event").create(namespace=body["metadata"]["namespace"], body=body)
        except ApiException:
            log.exception("event not recorded")

    # -- the loop -------------------------------------------------------------------------
    def requeue(self, key, after):
        with self._timers_lock:
            heapq.heappush(self._timers, (time.monotonic() + after, key))

    def _timer_loop(self):
        while True:
            time.sleep(0.1)
            due = []
            with self._timers_lock:
                while self._timers and self._timers[0][0] <= time.monotonic():
                    due.append(heapq.heappop(self._timers)[1])
            for key in due:
                self.queue.put(key)

    def _watch_loop(self, api_version, kind):
        api = self.api(api_version, kind)
        while True:
            try:
                listing = api.get()
                for item in listing.items:
                    self.queue.put((api_version, kind, item.metadata.namespace, item.metadata.name))
                rv = listing.metadata.resourceVersion
                for ev in api.watch(resource_version=rv, timeout=300):
                    o = ev["object"]
                    self.queue.put((api_version, kind, o.metadata.namespace, o.metadata.name))
            except Exception:  # noqa: BLE001 - a twin keeps going, like a controller
                log.exception("watch %s %s broke; re-listing", api_version, kind)
                time.sleep(1)

    def run(self):
        logging.basicConfig(level=logging.INFO, format=f"%(asctime)s {self.NAME} %(levelname)s %(message)s")
        for av, kind in self.WATCHES:
            threading.Thread(target=self._watch_loop, args=(av, kind), daemon=True).start()
        threading.Thread(target=self._timer_loop, daemon=True).start()
        log.info("started; watching %s", self.WATCHES)
        while True:
            key = self.queue.get()
            api_version, kind, namespace, name = key
            try:
                obj = self.get(api_version, kind, name, namespace)
                if obj is None:
                    continue
                after = self.reconcile(obj)
            except Exception:  # noqa: BLE001
                log.exception("reconcile %s %s/%s failed; retrying in 2 s", kind, namespace, name)
                after = 2
            if after is not None:
                self.requeue(key, after)

    def reconcile(self, obj):  # pragma: no cover - subclasses implement
        raise NotImplementedError
