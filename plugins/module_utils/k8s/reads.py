# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One Kubernetes read service per module run: ``KubeReads(client, request_timeout, check_mode)``.

Every Kubernetes module reads through it, so each read has the same three outcomes (present, absent,
unknown: a failure is never read as absent), the same bound (``request_timeout`` per request, a transient
failure tried again at most ``READ_ATTEMPTS`` times, ``k8s_client.retry_read``) and the same record
(``queries``). Discovery of a kind is a read too: asked once per run, with the same retry.

The few writes the modules send (DELETE, JSON patch) go through it as well, so its check-mode guard sees
every request: in check mode only get, list and watch reach the API server; a write raises
``CheckModeWrite`` and sends nothing. The kinds it hands out (``resource``) carry the same guard.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time
from concurrent.futures import ThreadPoolExecutor

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.finalizers import (
    apply_with_retry, build_remove_patch, is_conflict, set_annotation_patch)
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import (
    DEFAULT_REQUEST_TIMEOUT, READ_ATTEMPTS, ResourceLookupError, resolve_resource)
from ansible_collections.teardown.gates.plugins.module_utils.core.bounds import k8s_timeout
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import (
    ABSENT, PRESENT, UNKNOWN, _send_read, delete_object, list_contents, patch_object, query_record, read_object,
    read_objects, to_dict)
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import error_text, timeout_tuple

# the verbs that change the cluster, as the dynamic client's Resource names them
WRITE_VERBS = ("create", "patch", "replace", "delete", "apply", "server_side_apply")
# The one create that changes nothing: a SelfSubjectAccessReview asks the API server whether the caller may do
# something, and the answer is not stored. ``review_access`` sends it (in check mode too); through ``resource`` it
# is guarded as any other write.
ACCESS_REVIEW = ("authorization.k8s.io/v1", "SelfSubjectAccessReview")
# ``review_access_all`` sends at most this many reviews at a time (each still bounded and retried on its own)
REVIEW_WORKERS = 4


class CheckModeWrite(TeardownGatesError):
    """A write was about to reach the API server in check mode; it was not sent."""


class _NotKnown(TeardownGatesError):
    """A read inside a guarded write found no answer (or another object than the one meant): stop, unknown."""

    unknown = True


def _refuse(verb, what):
    def refused(*args, **kwargs):
        raise CheckModeWrite("check mode sends reads only (get, list, watch): refusing %s of %s" % (verb, what))
    return refused


class GuardedResource(object):
    """A dynamic-client Resource whose writes refuse in check mode; everything else is the Resource's own.

    A subresource reached through it (``resource.status``) is guarded the same way, since it can patch too."""

    def __init__(self, resource, check_mode, what):
        self._resource = resource
        self._check_mode = check_mode
        self._what = what

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_resource", "_check_mode", "_what"):
            raise AttributeError(name)  # not set yet (copy, pickle): never look them up in the wrapped Resource
        if self._check_mode and name in WRITE_VERBS:
            return _refuse(name, self._what)
        value = getattr(self._resource, name)
        # a subresource (``resource.status``) answers the write verbs as its parent does
        if not callable(value) and not isinstance(value, (str, bytes, bool, int, float, list, dict, tuple)) and \
                value is not None and any(hasattr(value, verb) for verb in ("patch", "delete")):
            return GuardedResource(value, self._check_mode, "%s/%s" % (self._what, name))
        return value


class KubeReads(object):
    """The reads (and the few writes) of one module run, against one API client.

    ``client`` is k8s_client's ``api_client(...)`` (kubernetes.core's K8SClient) or a DynamicClient;
    ``attempts`` bounds the tries of each read; ``sleep`` is the pause between them (retry_read's own when None;
    tests pass a recorder).
    ``queries`` holds one record per read sent, in order, with ``what`` when the caller named it.
    """

    def __init__(self, client, request_timeout=DEFAULT_REQUEST_TIMEOUT, check_mode=False, attempts=READ_ATTEMPTS,
                 sleep=None, unreachable=None):
        self.client = client
        # the ResourceLookupError raised while building the client, when the module goes on without one (it
        # reports every object as unknown): every kind then raises it, so no read is ever taken for absent
        self.unreachable = unreachable
        # when the run's reads began: the module's entry sets it to before the client was built
        self.started = time.time()
        self.request_timeout = request_timeout
        self.check_mode = bool(check_mode)
        self.attempts = attempts
        self.sleep = sleep
        self.queries = []
        self._resources = {}
        self._reviews = {}  # the unguarded SelfSubjectAccessReview kind, the one create it sends

    # -- kinds ----------------------------------------------------------------------------------------
    def resource(self, api_version, kind):
        """The kind's Resource (guarded), discovered once per run. Raises ResourceLookupError: ``unknown`` False
        when the kind is not served, True when discovery gave no answer; ``cause`` is the client's error."""
        if self.unreachable is not None:
            raise self.unreachable
        key = (api_version, kind)
        if key not in self._resources:
            found = resolve_resource(self.client, api_version, kind, attempts=self.attempts, sleep=self.sleep)
            self._resources[key] = GuardedResource(found, self.check_mode, "%s %s" % (api_version, kind))
        return self._resources[key]

    def served(self, api_version, kind):
        """The kind's Resource, or None when the cluster does not serve it (nothing of it can exist there).
        Raises ResourceLookupError when discovery itself gave no answer: that is unknown, not 'not served'."""
        try:
            return self.resource(api_version, kind)
        except ResourceLookupError as e:
            if e.unknown:
                raise
            return None

    def _record(self, query, what):
        self.queries.append(dict(query, what=what) if what is not None else dict(query))

    def _review_kind(self):
        """The unguarded SelfSubjectAccessReview kind, discovered once per run (ResourceLookupError as ``resource``)."""
        if self.unreachable is not None:
            raise self.unreachable
        if ACCESS_REVIEW not in self._reviews:
            self._reviews[ACCESS_REVIEW] = resolve_resource(self.client, ACCESS_REVIEW[0], ACCESS_REVIEW[1],
                                                            attempts=self.attempts, sleep=self.sleep)
        return self._reviews[ACCESS_REVIEW]

    def _send_review(self, review, attributes):
        """One review, bounded and retried as a read; its answer, not yet recorded."""
        body = {"apiVersion": ACCESS_REVIEW[0], "kind": ACCESS_REVIEW[1],
                "spec": {"resourceAttributes": dict((k, v) for k, v in attributes.items() if v not in (None, ""))}}
        started = time.time()
        answer, error, dummy = _send_read(
            lambda: review.create(body=body, _request_timeout=timeout_tuple(self.request_timeout)), self.attempts,
            self.sleep)
        if error is not None:
            query = query_record("create selfsubjectaccessreviews", started, error=error_text(error))
            return {"allowed": None, "reason": error_text(error), "query": query}
        status = (to_dict(answer) or {}).get("status") or {}
        query = query_record("create selfsubjectaccessreviews", started)
        return {"allowed": bool(status.get("allowed")) and not status.get("denied"),
                "reason": status.get("reason") or status.get("evaluationError") or "", "query": query}

    def review_access(self, attributes, what=None):
        """One SelfSubjectAccessReview of ``attributes`` (``resourceAttributes``: verb, group, resource, namespace,
        name, subresource): ``{"allowed": True|False|None, "reason", "query"}``; None when no answer came (unknown,
        never taken as allowed). A review, not a change: sent in check mode too, retried as a read."""
        got = self._send_review(self._review_kind(), attributes)
        self._record(got["query"], what)
        return got

    def review_access_all(self, asked, workers=REVIEW_WORKERS):
        """``review_access`` of each ``(attributes, what)`` in ``asked``, at most ``workers`` at a time: the answers,
        and their ``queries`` records, in the order asked whatever order they came in. Each review is bounded by
        ``request_timeout`` and retried as ``review_access``'s, so the whole takes about the longest review times
        ``len(asked) / workers``. The kind is discovered first, once (its failure raises, as ``review_access``'s)."""
        asked = list(asked)
        if not asked:
            return []
        review = self._review_kind()
        if workers <= 1 or len(asked) == 1:
            answers = [self._send_review(review, attributes) for attributes, dummy in asked]
        else:
            with ThreadPoolExecutor(max_workers=min(workers, len(asked))) as pool:
                answers = list(pool.map(lambda one: self._send_review(review, one[0]), asked))
        for got, (dummy, what) in zip(answers, asked):
            self._record(got["query"], what)
        return answers

    # -- reads ----------------------------------------------------------------------------------------
    def get(self, api_version, kind, name, namespace=None, what=None):
        """One GET: ``{"state": present|absent|unknown, "object", "query", "exception"}``; absent only for a 404.
        ``exception`` is the client's own error of the last try (None after an answer)."""
        obs, error = read_object(self.resource(api_version, kind), name, namespace,
                                 request_timeout=self.request_timeout, attempts=self.attempts, sleep=self.sleep)
        self._record(obs["query"], what)
        obs["exception"] = error
        return obs

    def list(self, api_version, kind, namespace=None, name=None, label_selector=None, field_selector=None,
             what=None):
        """One LIST: k8s_observe's ``{"ok", "items", "resource_version", "query"}`` with ``state`` (present: the
        list answered; unknown: it did not, whatever the items say) and ``exception`` as ``get`` gives it."""
        obs, error = read_objects(self.resource(api_version, kind), namespace, name, label_selector,
                                  request_timeout=self.request_timeout, attempts=self.attempts,
                                  field_selector=field_selector, sleep=self.sleep)
        self._record(obs["query"], what)
        obs["state"] = PRESENT if obs["ok"] else UNKNOWN
        obs["exception"] = error
        return obs

    def find(self, api_version, kind, name, namespace=None, what=None):
        """Presence by listing one name (a field selector): an empty successful list proves absence, and a
        failed list - even a 404, a kind not served - is unknown. ``{"state", "object", "query", "exception"}``."""
        listing = self.list(api_version, kind, namespace, name=name, what=what)
        if listing["state"] == UNKNOWN:
            state, obj = UNKNOWN, None
        elif listing["items"]:
            state, obj = PRESENT, listing["items"][0]
        else:
            state, obj = ABSENT, None
        return {"state": state, "object": obj, "query": listing["query"], "exception": listing["exception"]}

    def contents(self, namespace=None, skip_kinds=("Event",)):
        """k8s_observe's ``list_contents``: every object of every listable kind in ``namespace`` (every
        cluster-scoped one when None), each request bounded by ``request_timeout`` and sent once; ``ok`` False
        when a discovery or a list failed (the contents are then incomplete, never empty). GETs only."""
        if self.unreachable is not None:
            raise self.unreachable
        return list_contents(self.client.client, namespace=namespace, request_timeout=self.request_timeout,
                             skip_kinds=skip_kinds)

    # -- writes (refused in check mode) ---------------------------------------------------------------
    def _writable(self, verb, api_version, kind, name):
        if self.check_mode:  # before discovery too: check mode sends nothing for a write
            _refuse(verb, "%s %s %s" % (api_version, kind, name))()
        return self.resource(api_version, kind)

    def delete(self, api_version, kind, name, namespace=None, uid=None, propagation_policy=None):
        """k8s_observe's ``delete_object``: deleted, absent, refused or unknown."""
        return delete_object(self._writable("delete", api_version, kind, name), name, namespace=namespace, uid=uid,
                             propagation_policy=propagation_policy, request_timeout=self.request_timeout)

    def patch(self, api_version, kind, name, ops, namespace=None):
        """k8s_observe's ``patch_object``: one JSON patch, sent once; raises what the client raised."""
        return patch_object(self._writable("patch", api_version, kind, name), name, ops, namespace=namespace,
                            request_timeout=self.request_timeout)

    def finalize_namespace(self, name, body):
        """``PUT /api/v1/namespaces/{name}/finalize`` with ``body`` (the Namespace with its new
        ``spec.finalizers``), sent once, bounded by ``request_timeout``: the answer as a dict; raises what the
        client raised. A write: refused in check mode."""
        if self.check_mode:
            _refuse("put", "v1 Namespace %s/finalize" % name)()
        return self.client.client.request("put", "/api/v1/namespaces/%s/finalize" % name, body=body,
                                          _request_timeout=k8s_timeout(self.request_timeout)).to_dict()

    def annotate(self, api_version, kind, name, namespace, uid, key, value, attempts=3):
        """One annotation, by a JSON patch that tests the UID first (the object's other annotations stay; a map
        another writer created since the read makes the patch's resourceVersion test fail, and it reads again).

        ``{"state": done|refused|unknown|absent, "error"}``: refused when the server said no or the object was
        recreated, unknown when no answer came (the patch may have been applied)."""
        res = self._writable("patch", api_version, kind, name)
        for attempt in range(1, attempts + 1):
            r = self.get(api_version, kind, name, namespace)
            if r["state"] != PRESENT:
                return {"state": r["state"], "error": r["query"].get("error") or "not found"}
            obj = r["object"]
            if (obj.get("metadata") or {}).get("uid") != uid:
                return {"state": "refused", "error": "%s %s was recreated (uid %s)" % (
                    kind, name, (obj.get("metadata") or {}).get("uid"))}
            try:
                patch_object(res, name, set_annotation_patch(obj, key, value), namespace=namespace,
                             request_timeout=self.request_timeout)
            except Exception as e:  # pylint: disable=broad-except
                if attempt < attempts and is_conflict(e):
                    continue
                return {"state": "refused" if getattr(e, "status", None) else "unknown",
                        "error": "%s" % (getattr(e, "reason", None) or e)}
            return {"state": "done"}

    def remove_finalizers(self, api_version, kind, name, namespace, uid, names):
        """Remove ``names`` from one object's finalizers, the UID tested; a conflict re-reads and tries again.

        ``{"state": removed|absent|not_held|refused|unknown, "error"|"note"}``. When the answer to the patch was
        lost, a re-read decides: the finalizer gone from the same object is ``removed`` (with a note)."""
        res = self._writable("patch", api_version, kind, name)
        seen = {}

        def fetch():
            r = self.get(api_version, kind, name, namespace)
            if r["state"] == UNKNOWN:
                raise _NotKnown("could not read %s %s: %s" % (kind, name, r["query"].get("error")))
            seen["obj"] = r["object"]
            return r["object"] or {}

        def compute(obj):
            if not obj:
                return None
            if (obj.get("metadata") or {}).get("uid") != uid:
                raise _NotKnown("%s %s has uid %s, not %s: it was recreated; not touched" % (
                    kind, name, (obj.get("metadata") or {}).get("uid"), uid))
            return build_remove_patch(obj, names) or None

        def send(obj, payload):
            return patch_object(res, name, payload, namespace=namespace, request_timeout=self.request_timeout)

        try:
            dummy, after, dummy2 = apply_with_retry(fetch, compute, send)
        except _NotKnown as e:
            return {"state": "unknown", "error": str(e)}
        except Exception as e:  # pylint: disable=broad-except
            status = getattr(e, "status", None)
            error = "%s" % (getattr(e, "reason", None) or e)
            if status:
                return {"state": "refused", "error": error}
            # no answer: the patch may have been applied. A re-read that shows the finalizer gone from the same
            # object makes it ours, and it is recorded as removed, so the report does not lose it
            r = self.get(api_version, kind, name, namespace)
            meta = (r["object"] or {}).get("metadata") or {}
            if r["state"] == ABSENT:
                return {"state": "removed", "note": "the answer was lost (%s); a re-read finds the object gone" % error}
            if r["state"] == PRESENT and meta.get("uid") == uid and not set(names) & set(meta.get("finalizers") or []):
                return {"state": "removed", "note": "the answer was lost (%s); a re-read shows it gone" % error}
            return {"state": "unknown", "error": error}
        if after is None:
            return {"state": ABSENT if not seen.get("obj") else "not_held"}
        return {"state": "removed"}
