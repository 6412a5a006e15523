# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Observe Kubernetes objects with three outcomes: present, absent, unknown.

Every query here returns what it saw *and* the times it rests on. A query that fails (timeout,
connection refused, 5xx, 403, discovery failure) is ``unknown``: it is never read as ``absent``.
Only a successful GET answering 404, a successful LIST that does not contain the object, or a
DELETED watch event proves absence.

Public functions (reused by modules and roles):

- ``api_client(module=None, request_timeout=..., caller=None, **auth)``: kubernetes.core's client, its creation
  bounded (``bounds.client_bound``), every later request given a timeout, urllib3's retries off, our User-Agent.

- ``utc_iso(ts=None)``: UTC ISO-8601 with milliseconds (``2026-01-02T03:04:05.678Z``).
- ``parse_k8s_time(value)``: a Kubernetes timestamp to epoch seconds (or None).
- ``resolve_resource(client, api_version, kind)``: the dynamic-client Resource, or ResourceLookupError.
- ``get_object(resource, name, namespace=None, request_timeout=..., attempts=1)``: an Observation dict;
  with ``attempts`` above 1 a transient failure (429, 5xx, a dropped connection) is read again (``retry_read``).
- ``list_objects(resource, namespace=None, name=None, label_selector=None, request_timeout=..., attempts=1)``.
- ``watch_stream(resource, ...)``: raw watch events (type, object dict) with bookmarks.
- ``Observer``: a thread that lists, then watches with resourceVersion and bookmarks, reconnects
  with one re-list after a drop, and pushes what it sees to a queue (used by gates.py).
- ``list_contents(dyn, namespace=None)``: every object of every listable kind in a namespace (or
  every cluster-scoped object), by listing; the truth a Namespace's conditions only summarise.
- ``delete_object(resource, name, namespace=None, uid=None, ...)``: one DELETE (with the uid as a
  precondition when given): ``deleted``, ``absent`` (404), ``refused`` (the server said no) or ``unknown``.
- ``object_summary(obj)``: the deletion-relevant fields of an object as a flat dict.
- ``retry_read(read, attempts=3)``: a read tried again, with backoff, after a transient failure (429, 5xx,
  a dropped connection); the last failure is raised (the caller records it as unknown).
- ``missing_permission(exc)``: for a 403, the permission the credentials lack, as
  ``missing permission: <verb> <resource>.<group> in namespace <ns>`` (None for anything else).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import json
import re
import threading
import time
from datetime import datetime, timezone

from ansible_collections.teardown.gates.plugins.module_utils.bounds import (
    CLIENT_BOUND_FACTOR, client_bound, k8s_timeout, user_agent,
)
from ansible_collections.teardown.gates.plugins.module_utils.diagnosis import status_conditions

PRESENT = "present"
ABSENT = "absent"
UNKNOWN = "unknown"

# (connect, read) seconds for one non-watch request; a hung server becomes `unknown` after this.
DEFAULT_REQUEST_TIMEOUT = 10.0


class ResourceLookupError(Exception):
    """api_version/kind is not served by the cluster (or discovery failed: then `unknown`)."""

    def __init__(self, msg, unknown=False):
        super(ResourceLookupError, self).__init__(msg)
        self.unknown = unknown


class WatchExpired(Exception):
    """The watch's resourceVersion is too old (410 Gone): re-list, nothing is unknown."""


def utc_iso(ts=None):
    """Epoch seconds (default: now) as UTC ISO-8601 with milliseconds and a Z."""
    if ts is None:
        ts = time.time()
    dt = datetime.fromtimestamp(ts, tz=timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)


def parse_k8s_time(value):
    """'2026-01-02T03:04:05Z' (optionally with fractions) to epoch seconds; None stays None."""
    if not value:
        return None
    text = str(value).replace("Z", "+00:00")
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


def _status_of(exc):
    return getattr(exc, "status", None)


# the API server's authorizer says: ... cannot <verb> resource "<resource>[/<sub>]" in API group "<group>"
# (in the namespace "<ns>" | at the cluster scope)
_FORBIDDEN = re.compile(r'cannot (\S+) resource "([^"]+)" in API group "([^"]*)"'
                        r'(?: in the namespace "([^"]+)"| at the cluster scope)?')


def missing_permission(exc):
    """What a 403 says the credentials may not do, in RBAC terms, or None when exc is not a 403."""
    if _status_of(exc) != 403:
        return None
    body = getattr(exc, "body", None)
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    try:
        body = json.loads(body).get("message") or body  # a Status object: its message has the authorizer's words
    except (ValueError, AttributeError, TypeError):
        pass
    m = _FORBIDDEN.search("%s %s" % (body or "", exc))
    if not m:
        return "missing permission (403 Forbidden; the API server did not say which)"
    verb, resource, group, namespace = m.groups()
    what = resource + ("." + group if group else "")
    return "missing permission: %s %s %s" % (verb, what, ("in namespace " + namespace) if namespace else "cluster-wide")


def _error_text(exc):
    status = _status_of(exc)
    body = getattr(exc, "body", None)
    msg = None
    if body:
        try:
            msg = json.loads(body).get("message")
        except (ValueError, AttributeError, TypeError):
            msg = None
    text = msg or str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if status == 403:
        return "HTTP 403: %s (%s)" % (missing_permission(exc), text)
    if status:
        return "HTTP %s: %s" % (status, text)
    return "%s: %s" % (type(exc).__name__, text)


def _timeout_tuple(request_timeout):
    if request_timeout is None:
        return None
    return k8s_timeout(request_timeout)


class BoundedPool:
    """The client's urllib3 pool manager, with a timeout for every request that comes without one.

    kubernetes' own lookups (lazy discovery of a group's resources, ``/version``) pass no
    ``_request_timeout``; urllib3 then waits forever on a server that accepted and went silent. Our
    requests keep the timeout they pass."""

    def __init__(self, pool, timeout):
        self.pool = pool
        self.timeout = timeout

    def request(self, method, url, **kwargs):
        if kwargs.get("timeout") is None:
            import urllib3
            kwargs["timeout"] = urllib3.Timeout(connect=self.timeout[0], read=self.timeout[1])
        return self.pool.request(method, url, **kwargs)

    def __getattr__(self, name):
        return getattr(self.pool, name)


def _endpoint(module, auth):
    """The API server's address as the client was configured (for messages), or None."""
    host = (module.params.get("host") if module is not None else None) or auth.get("host")
    if host:
        return host
    try:
        import kubernetes
        return kubernetes.client.Configuration.get_default_copy().host
    except Exception:  # pylint: disable=broad-except
        return None


def api_client(module=None, request_timeout=DEFAULT_REQUEST_TIMEOUT, caller=None, **auth):
    """kubernetes.core's client (``get_api_client``) for a module's auth options, retries off, every request bounded.

    Creating the client already talks to the server (``/version``, discovery) with no timeout of its own, so it
    runs in a helper thread that gets ``bounds.client_bound(request_timeout)`` seconds; a server that does not
    answer in that time is ``unknown``. Raises ResourceLookupError with ``unknown=True`` when the server did not
    answer (refused, TLS, timeout) and ``unknown=False`` for a configuration error. ``caller`` (the module's
    name) goes into the User-Agent: ``teardown.gates/<version> (<caller>)``.
    """
    bound = client_bound(request_timeout)
    box = {}

    def build():
        try:
            box["client"] = _build_client(module, auth)
        except BaseException as e:  # pylint: disable=broad-except
            box["error"] = e  # a fail_json in there (SystemExit) too: re-raised in the module's own thread
    worker = threading.Thread(target=build, name="k8s-client")
    worker.daemon = True  # a silent server keeps it blocked; it must not keep the module's process alive
    worker.start()
    worker.join(bound)
    if worker.is_alive():
        raise ResourceLookupError(
            "the API server at %s did not answer within %.0f s while the client read /version and discovery "
            "(/api, /apis): its state, and that of everything behind it, is unknown. Check that the API server "
            "is up and reachable from this host (for example `kubectl get --raw /readyz`), the kubeconfig's "
            "server address, and any proxy or load balancer in front of it; request_timeout sets this bound "
            "(%s x request_timeout)" % (_endpoint(module, auth) or "(the kubeconfig's server)", bound,
                                        CLIENT_BOUND_FACTOR), unknown=True)
    if "error" in box:
        raise box["error"]
    client = box["client"]
    bound_requests(client, request_timeout, caller)
    return client


def _build_client(module, auth):
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client
    try:
        from ansible_collections.kubernetes.core.plugins.module_utils.k8s.exceptions import CoreException
    except ImportError:  # pragma: no cover
        CoreException = ValueError
    for attempt in range(CLIENT_ATTEMPTS):
        try:
            return get_api_client(module=module, **auth)
        except CoreException as e:
            raise ResourceLookupError("could not configure the API client: %s" % e)
        except Exception as e:
            # Building the client reads /version and /apis: one dropped connection or 503 there would
            # fail the whole task, so a transient answer gets two more tries (0.5 s, then 1.5 s).
            if attempt + 1 < CLIENT_ATTEMPTS and _transient(e):
                time.sleep(0.5 * 3 ** attempt)
                continue
            raise ResourceLookupError("the API server at %s did not answer: %s" % (
                _endpoint(module, auth) or "(the kubeconfig's server)", _error_text(e)), unknown=True)


def bound_requests(client, request_timeout=DEFAULT_REQUEST_TIMEOUT, caller=None):
    """Retries off, a default timeout on every request, and our User-Agent, for an existing client."""
    disable_retries(client)
    api = getattr(client, "client", client)
    api = getattr(api, "client", api)
    rest = getattr(api, "rest_client", None)
    pool = getattr(rest, "pool_manager", None)
    if pool is not None and not isinstance(pool, BoundedPool):
        rest.pool_manager = BoundedPool(pool, k8s_timeout(request_timeout))
    elif isinstance(pool, BoundedPool):
        pool.timeout = k8s_timeout(request_timeout)
    if hasattr(api, "user_agent"):
        api.user_agent = user_agent(caller)


CLIENT_ATTEMPTS = 3
_TRANSIENT_STATUS = (429, 500, 502, 503, 504)


def _transient(exc):
    """A server busy or a connection lost on the way, not a refusal or a TLS/configuration fault."""
    status = _status_of(exc)
    if status is not None:
        return status in _TRANSIENT_STATUS
    return "SSL" not in repr(exc) and "CERTIFICATE" not in repr(exc).upper()


READ_ATTEMPTS = 3


def _read_transient(exc):
    """A read worth trying again: the server busy (429, 5xx) or the connection lost on the way (reset,
    refused, closed without an answer). Not a refusal, a missing kind, a TLS fault or a timeout."""
    status = _status_of(exc)
    if status is not None:
        return status in _TRANSIENT_STATUS
    try:
        from urllib3.exceptions import NewConnectionError, ProtocolError
        lost = (ConnectionError, NewConnectionError, ProtocolError)
    except ImportError:  # pragma: no cover
        lost = (ConnectionError,)
    return any(isinstance(e, lost) for e in (exc, getattr(exc, "reason", None)) if e is not None)


def retry_read(read, attempts=READ_ATTEMPTS, sleep=time.sleep, delay=0.5):
    """Call ``read()`` (a GET or LIST, nothing that changes the world) until it answers, at most ``attempts`` times.

    Tried again, after ``delay`` then three times as long each time: a transient answer (429, 500, 502,
    503, 504) or a connection lost on the way, as ``api_client`` does for discovery. Not tried again: a
    refusal (403, 404, any other status), a TLS or configuration fault, a timeout (``request_timeout``
    bounds each read; a silent server is unknown at once). The last failure is raised, so the caller
    records the read as unknown, never as absent. Returns ``(answer, retries)``.
    """
    for attempt in range(attempts):
        try:
            return read(), attempt
        except Exception as e:
            if attempt + 1 >= attempts or not _read_transient(e):
                raise
            sleep(delay * 3 ** attempt)


def disable_retries(client):
    """Make every request of ``client`` fail at its first timeout or connection error.

    urllib3 retries a GET that timed out (three times by default), so a silent server would look
    slow instead of unknown and a ``request_timeout`` would not bound a query. ``client`` is
    kubernetes.core's K8SClient, a DynamicClient or an ApiClient. Returns True when applied.
    """
    api = getattr(client, "client", client)  # K8SClient -> DynamicClient
    api = getattr(api, "client", api)  # DynamicClient -> ApiClient
    rest = getattr(api, "rest_client", None)
    pool = getattr(rest, "pool_manager", None)
    if pool is None or not hasattr(pool, "connection_pool_kw"):
        return False
    pool.connection_pool_kw["retries"] = False
    pool.clear()
    return True


def resolve_resource(client, api_version, kind):
    """Find the Resource for api_version/kind through discovery.

    ``client`` is kubernetes.core's K8SClient (``get_api_client``) or a DynamicClient.
    Raises ResourceLookupError: ``unknown=False`` when the kind is not served, ``True`` when
    discovery itself failed (the answer is then not known).
    """
    try:
        from kubernetes.dynamic.exceptions import ResourceNotFoundError, ResourceNotUniqueError
    except ImportError:  # pragma: no cover
        ResourceNotFoundError = ResourceNotUniqueError = LookupError
    try:
        if hasattr(client, "resource"):
            return client.resource(kind, api_version)
        return client.resources.get(api_version=api_version, kind=kind)
    except (ResourceNotFoundError, ResourceNotUniqueError) as e:
        raise ResourceLookupError("kind %s is not served at api_version %s (%s)" % (kind, api_version, e))
    except Exception as e:  # discovery request failed: we do not know
        raise ResourceLookupError("discovery of %s %s failed: %s" % (api_version, kind, _error_text(e)), unknown=True)


def _query(verb, started, error=None, **extra):
    q = {"verb": verb, "started": utc_iso(started), "finished": utc_iso(), "ok": error is None}
    if error is not None:
        q["error"] = error
    q.update(extra)
    return q


def _to_dict(obj):
    if obj is None:
        return None
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    return obj


def _send_read(send, attempts):
    """``send()`` (a GET or LIST, or a DELETE, which is as repeatable) as ``retry_read`` allows: ``attempts`` times
    at most, again only after a transient failure. Returns ``(answer, error, sent)``: the answer or the last
    failure, and how many were sent."""
    sent = []

    def counted():
        sent.append(1)
        return send()
    try:
        return retry_read(counted, attempts=attempts)[0], None, len(sent)
    except Exception as e:  # pylint: disable=broad-except
        # the caller records it: unknown, never absent
        return None, e, len(sent)


def get_object(resource, name, namespace=None, request_timeout=DEFAULT_REQUEST_TIMEOUT, attempts=1):
    """GET one object; with ``attempts`` above 1, a transient failure is read again (see ``retry_read``) and
    the query says how many were sent (``attempts``).

    Returns ``{"state": present|absent|unknown, "object": dict|None, "query": {...}}``;
    ``absent`` only for a 404 answer, ``unknown`` for any other failure (the last one, after the tries).
    """
    started = time.time()
    kwargs = {"name": name, "_request_timeout": _timeout_tuple(request_timeout)}
    if resource.namespaced:
        kwargs["namespace"] = namespace
    obj, error, sent = _send_read(functools.partial(resource.get, **kwargs), attempts)
    extra = {"attempts": sent} if attempts > 1 else {}
    if error is None:
        return {"state": PRESENT, "object": _to_dict(obj), "query": _query("get", started, **extra)}
    if _status_of(error) == 404:
        return {"state": ABSENT, "object": None, "query": _query("get", started, status=404, **extra)}
    return {"state": UNKNOWN, "object": None, "query": _query("get", started, error=_error_text(error), **extra)}


def delete_object(resource, name, namespace=None, uid=None, propagation_policy=None,
                  request_timeout=DEFAULT_REQUEST_TIMEOUT):
    """DELETE one object; with ``uid``, only that object (a newer one of the same name is refused, 409).

    Returns ``{"state": deleted|absent|refused|unknown, "query": {...}}``. ``absent`` is a 404 to the first
    attempt: there was nothing to delete. A 404 to a retry is ``deleted``: the attempt before it went
    unanswered (a lost connection, a 5xx) and most likely removed the object. ``unknown`` means no
    answer came (timeout, connection lost after the tries ``retry_read`` allows): the deletion may or
    may not have been applied. A DELETE is repeatable, so the same retries as a read are safe.
    """
    started = time.time()
    body = {"apiVersion": "v1", "kind": "DeleteOptions"}
    if uid:
        body["preconditions"] = {"uid": uid}
    if propagation_policy:
        body["propagationPolicy"] = propagation_policy
    kwargs = {"name": name, "body": body, "_request_timeout": _timeout_tuple(request_timeout)}
    if resource.namespaced:
        kwargs["namespace"] = namespace
    dummy, error, sent = _send_read(functools.partial(resource.delete, **kwargs), READ_ATTEMPTS)
    if error is None:
        return {"state": "deleted", "query": _query("delete", started, retries=sent - 1)}
    status = _status_of(error)
    if status == 404 and sent > 1:
        return {"state": "deleted", "query": _query(
            "delete", started, status=404, retries=sent - 1,
            detail="gone at the retry: the unanswered attempt before it most likely deleted it")}
    if status == 404:
        return {"state": ABSENT, "query": _query("delete", started, status=404)}
    state = "refused" if status is not None and not _transient(error) else UNKNOWN
    return {"state": state, "query": _query("delete", started, error=_error_text(error), status=status)}


def _selector_kwargs(resource, namespace, name, label_selector):
    """The list/watch arguments that select objects: one place, so a list and its watch never disagree."""
    kwargs = {}
    if resource.namespaced and namespace:
        kwargs["namespace"] = namespace
    if name:
        kwargs["field_selector"] = "metadata.name=%s" % name
    if label_selector:
        kwargs["label_selector"] = label_selector
    return kwargs


def list_objects(resource, namespace=None, name=None, label_selector=None,
                 request_timeout=DEFAULT_REQUEST_TIMEOUT, attempts=1):
    """LIST objects (one name through a field selector, or a label selector); ``attempts`` as in ``get_object``.

    Returns ``{"ok": bool, "items": [dict], "resource_version": str|None, "query": {...}}``.
    A failed list has ``ok: False`` and no items: the caller must treat it as unknown.
    """
    started = time.time()
    kwargs = _selector_kwargs(resource, namespace, name, label_selector)
    kwargs["_request_timeout"] = _timeout_tuple(request_timeout)
    answer, error, sent = _send_read(functools.partial(resource.get, **kwargs), attempts)
    extra = {"attempts": sent} if attempts > 1 else {}
    if error is not None:
        return {"ok": False, "items": [], "resource_version": None,
                "query": _query("list", started, error=_error_text(error), **extra)}
    result = _to_dict(answer)
    items = result.get("items") or []
    api_version = resource.group_version if hasattr(resource, "group_version") else None
    for item in items:  # list items carry no apiVersion/kind
        item.setdefault("kind", resource.kind)
        if api_version:
            item.setdefault("apiVersion", api_version)
    rv = (result.get("metadata") or {}).get("resourceVersion")
    return {"ok": True, "items": items, "resource_version": rv, "query": _query("list", started, **extra)}


def _iter_lines(resp):
    buf = b""
    for chunk in resp.stream(amt=None, decode_content=False) if hasattr(resp, "stream") else resp:
        if not chunk:
            continue
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line.strip():
                yield line
    if buf.strip():
        yield buf


def watch_stream(resource, namespace=None, name=None, label_selector=None, resource_version=None,
                 timeout_seconds=30, read_timeout=None, on_response=None):
    """Yield ``(event_type, object_dict)`` from one watch request, with bookmarks allowed.

    Ends normally when the server closes the window (``timeout_seconds``). Raises WatchExpired on
    410 Gone and any other exception on a failed or silent connection (``read_timeout``).
    ``on_response`` receives the open response so another thread can close it to stop the watch.
    """
    kwargs = _selector_kwargs(resource, namespace, name, label_selector)
    kwargs.update({"watch": True, "allow_watch_bookmarks": True, "timeout_seconds": int(timeout_seconds),
                   "serialize": False,
                   "_request_timeout": (5.0, float(read_timeout or timeout_seconds + 10))})
    if resource_version:
        kwargs["resource_version"] = resource_version
    resp = resource.get(**kwargs)
    if on_response:
        on_response(resp)
    try:
        for line in _iter_lines(resp):
            event = json.loads(line.decode("utf-8"))
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
                self.sink.put((self.key, "error", _query("watch", started, error=_error_text(e))))
                need_list = True
                self._stop_event.wait(backoff)
                backoff = min(backoff * 2, 2.0)
            finally:
                self._resp = None


def object_summary(obj):
    """The deletion-relevant fields of an object dict, flat; pods get their grace deadline."""
    meta = obj.get("metadata") or {}
    status = obj.get("status") or {}
    out = {
        "api_version": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "name": meta.get("name"),
        "namespace": meta.get("namespace"),
        "uid": meta.get("uid"),
        "resource_version": meta.get("resourceVersion"),
        "deletion_timestamp": meta.get("deletionTimestamp"),
        "finalizers": list(meta.get("finalizers") or []),
        "conditions": [dict((k, c.get(k)) for k in ("type", "status", "reason", "message", "lastTransitionTime")
                            if c.get(k) is not None)
                       for c in status_conditions(obj)],
    }
    if obj.get("kind") == "Namespace":
        out["spec_finalizers"] = list((obj.get("spec") or {}).get("finalizers") or [])
    if meta.get("deletionGracePeriodSeconds") is not None:
        out["deletion_grace_period_seconds"] = meta.get("deletionGracePeriodSeconds")
    if obj.get("kind") == "Pod":
        spec = obj.get("spec") or {}
        if spec.get("terminationGracePeriodSeconds") is not None:
            out["termination_grace_period_seconds"] = spec.get("terminationGracePeriodSeconds")
        # for a pod, deletionTimestamp is the end of the grace period, not the request time
        if meta.get("deletionTimestamp"):
            out["grace_deadline"] = meta.get("deletionTimestamp")
    return out


def owner_uids(obj):
    return [r.get("uid") for r in ((obj.get("metadata") or {}).get("ownerReferences") or []) if r.get("uid")]


def _discover_listable(dyn, namespaced, request_timeout):
    """(group_version, kind, plural) of every listable kind, preferred versions only."""
    to = _timeout_tuple(request_timeout)
    out = []
    errors = []
    group_versions = ["v1"]
    try:
        groups = json.loads(dyn.request("get", "/apis", serialize=False, _request_timeout=to).data)
        for g in groups.get("groups") or []:
            pv = (g.get("preferredVersion") or {}).get("groupVersion")
            if pv:
                group_versions.append(pv)
    except Exception as e:
        errors.append("discovery /apis: %s" % _error_text(e))
    for gv in group_versions:
        path = "/api/v1" if gv == "v1" else "/apis/%s" % gv
        try:
            doc = json.loads(dyn.request("get", path, serialize=False, _request_timeout=to).data)
        except Exception as e:
            errors.append("discovery %s: %s" % (path, _error_text(e)))
            continue
        for r in doc.get("resources") or []:
            if "/" in r.get("name", "") or "list" not in (r.get("verbs") or []):
                continue
            if bool(r.get("namespaced")) != bool(namespaced):
                continue
            out.append((gv, r.get("kind"), r.get("name")))
    return out, errors


def list_contents(dyn, namespace=None, request_timeout=DEFAULT_REQUEST_TIMEOUT, skip_kinds=("Event",)):
    """List every object of every listable kind in ``namespace`` (or every cluster-scoped one).

    ``dyn`` is a DynamicClient (``get_api_client(...).client``). Returns
    ``{"ok": bool, "items": [object_summary + owner_uids], "errors": [str], "query": {...}}``;
    ``ok`` is False when discovery or any list failed: the contents are then incomplete (unknown),
    never "empty".
    """
    started = time.time()
    kinds, errors = _discover_listable(dyn, namespaced=namespace is not None, request_timeout=request_timeout)
    to = _timeout_tuple(request_timeout)
    items = []
    for gv, kind, plural in kinds:
        if kind in skip_kinds:
            continue
        base = "/api/v1" if gv == "v1" else "/apis/%s" % gv
        path = "%s/namespaces/%s/%s" % (base, namespace, plural) if namespace else "%s/%s" % (base, plural)
        try:
            doc = json.loads(dyn.request("get", path, serialize=False, _request_timeout=to).data)
        except Exception as e:
            if _status_of(e) in (404, 405):
                continue
            errors.append("list %s: %s" % (path, _error_text(e)))
            continue
        for item in doc.get("items") or []:
            item.setdefault("apiVersion", gv)
            item.setdefault("kind", kind)
            summary = object_summary(item)
            summary["owner_uids"] = owner_uids(item)
            items.append(summary)
    return {"ok": not errors, "items": items, "errors": errors,
            "query": _query("list-contents", started, error="; ".join(errors) if errors else None)}
