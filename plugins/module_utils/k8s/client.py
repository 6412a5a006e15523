# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Kubernetes client every module shares: kubernetes.core's ``get_api_client``, its creation bounded
(``bounds.client_bound``), every later request given a timeout, urllib3's retries off, our User-Agent; the one
retry policy for reads (``retry_read``: a transient answer only, ``READ_ATTEMPTS`` at most); discovery of a kind
(``resolve_resource``); and the words of a failure (``error_text``, ``missing_permission`` for a 403)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import json
import os
import re
import threading
import time

from ansible_collections.teardown.gates.plugins.module_utils.core.bounds import (
    CLIENT_BOUND_FACTOR, client_bound, k8s_timeout, user_agent,
)
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

# (connect, read) seconds for one non-watch request; a hung server becomes `unknown` after this.
DEFAULT_REQUEST_TIMEOUT = 10.0


class ResourceLookupError(TeardownGatesError):
    """api_version/kind is not served by the cluster (or discovery failed: then `unknown`). ``cause`` is the
    client's own exception, for a module that words it as it always has."""

    def __init__(self, msg, unknown=False, cause=None):
        super(ResourceLookupError, self).__init__(msg)
        self.unknown = unknown
        self.cause = cause


def status_of(exc):
    return getattr(exc, "status", None)


# the API server's authorizer says: ... cannot <verb> resource "<resource>[/<sub>]" in API group "<group>"
# (in the namespace "<ns>" | at the cluster scope)
_FORBIDDEN = re.compile(r'cannot (\S+) resource "([^"]+)" in API group "([^"]*)"'
                        r'(?: in the namespace "([^"]+)"| at the cluster scope)?')


def missing_permission(exc):
    """What a 403 says the credentials may not do, in RBAC terms, or None when exc is not a 403."""
    if status_of(exc) != 403:
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


def error_text(exc):
    status = status_of(exc)
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


def timeout_tuple(request_timeout):
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


def _option(module, auth, name):
    return (module.params.get(name) if module is not None else None) or auth.get(name)


def kubeconfig_server(kubeconfig=None, context=None, environ=None):
    """The server of the kubeconfig's context, read as kubernetes.core would pick the file (the option, then
    K8S_AUTH_KUBECONFIG, KUBECONFIG's first file, ~/.kube/config) and the context (the option, K8S_AUTH_CONTEXT,
    current-context); None when that cannot be read. For messages only: the client reads the file itself."""
    environ = os.environ if environ is None else environ
    try:
        config = kubeconfig or environ.get("K8S_AUTH_KUBECONFIG") or \
            (environ.get("KUBECONFIG") or "").split(os.pathsep)[0] or os.path.expanduser("~/.kube/config")
        if not isinstance(config, dict):
            import yaml
            with open(config) as f:
                config = yaml.safe_load(f)
        name = context or environ.get("K8S_AUTH_CONTEXT") or config.get("current-context")
        cluster = [c["context"]["cluster"] for c in config.get("contexts") or [] if c.get("name") == name][0]
        return [c["cluster"]["server"] for c in config.get("clusters") or [] if c.get("name") == cluster][0]
    except Exception:  # pylint: disable=broad-except
        return None


def _endpoint(module, auth):
    """The API server's address as the client was configured (for messages), or None. Not the library's default
    configuration: before kubernetes.core has loaded a kubeconfig that says http://localhost, which no one asked
    for."""
    found = _option(module, auth, "host") or kubeconfig_server(_option(module, auth, "kubeconfig"),
                                                               _option(module, auth, "context"))
    if not found and os.environ.get("KUBERNETES_SERVICE_HOST"):  # in a pod (an AWX job): the in-cluster address
        found = "https://%s:%s" % (os.environ["KUBERNETES_SERVICE_HOST"],
                                   os.environ.get("KUBERNETES_SERVICE_PORT", "443"))
    return found


def api_client(module=None, request_timeout=DEFAULT_REQUEST_TIMEOUT, caller=None, **auth):
    """kubernetes.core's client (``get_api_client``) for a module's auth options, retries off, every request bounded.

    Creating the client already talks to the server (``/version``, discovery) with no timeout of its own, so it
    runs in a helper thread that gets ``bounds.client_bound(request_timeout)`` seconds; a server that does not
    answer in that time is ``unknown``. Raises ResourceLookupError with ``unknown=True`` when the server did not
    answer (refused, TLS, timeout) and ``unknown=False`` for a configuration error. ``caller`` (the module's
    name) goes into the User-Agent: ``teardown.gates/<version> (<caller>)``.
    """
    bound = client_bound(request_timeout)
    # the Python imports before the clock starts: on a loaded host they cost seconds, and the bound is the server's
    _import_client()
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


def _import_client():
    importlib.import_module("ansible_collections.kubernetes.core.plugins.module_utils.k8s.client")


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
            if attempt + 1 < CLIENT_ATTEMPTS and transient(e):
                time.sleep(0.5 * 3 ** attempt)
                continue
            raise ResourceLookupError("the API server at %s did not answer: %s" % (
                _endpoint(module, auth) or "(the kubeconfig's server)", error_text(e)), unknown=True)


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


def transient(exc):
    """A server busy or a connection lost on the way, not a refusal or a TLS/configuration fault."""
    status = status_of(exc)
    if status is not None:
        return status in _TRANSIENT_STATUS
    return "SSL" not in repr(exc) and "CERTIFICATE" not in repr(exc).upper()


READ_ATTEMPTS = 3


def _read_transient(exc):
    """A read worth trying again: the server busy (429, 5xx) or the connection lost on the way (reset,
    refused, closed without an answer). Not a refusal, a missing kind, a TLS fault or a timeout."""
    status = status_of(exc)
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


def resolve_resource(client, api_version, kind, attempts=1, sleep=None):
    """Find the Resource for api_version/kind through discovery.

    ``client`` is kubernetes.core's K8SClient (``get_api_client``) or a DynamicClient. Discovery is a read:
    with ``attempts`` above 1 a transient failure is tried again as ``retry_read`` allows.
    Raises ResourceLookupError: ``unknown=False`` when the kind is not served, ``True`` when
    discovery itself failed (the answer is then not known); its ``cause`` is the client's exception.
    """
    try:
        from kubernetes.dynamic.exceptions import ResourceNotFoundError, ResourceNotUniqueError
    except ImportError:  # pragma: no cover
        ResourceNotFoundError = ResourceNotUniqueError = LookupError

    def lookup():
        if hasattr(client, "resource"):
            return client.resource(kind, api_version)
        return client.resources.get(api_version=api_version, kind=kind)
    try:
        # retry_read's own pause unless the caller gave one
        return (retry_read(lookup, attempts=attempts) if sleep is None else
                retry_read(lookup, attempts=attempts, sleep=sleep))[0]
    except (ResourceNotFoundError, ResourceNotUniqueError) as e:
        raise ResourceLookupError("kind %s is not served at api_version %s (%s)" % (kind, api_version, e), cause=e)
    except Exception as e:  # discovery request failed: we do not know
        raise ResourceLookupError("discovery of %s %s failed: %s" % (api_version, kind, error_text(e)), unknown=True,
                                  cause=e)
