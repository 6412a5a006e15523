# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How long a request may take, how often it is tried, and who it says is calling.

One place for the numbers every module states in its DOCUMENTATION (and docs/concepts.md repeats):

- Kubernetes: each request has a connect timeout of ``min(5, request_timeout)`` and a read timeout of
  ``request_timeout``; building the client (``/version`` and discovery) takes at most
  ``CLIENT_BOUND_FACTOR * request_timeout``; a read is sent at most ``k8s_observe.READ_ATTEMPTS`` times,
  again only after a transient answer (429, 5xx, a connection lost), never after a timeout.
- AWS: botocore alone retries (standard mode, ``AWS_MAX_ATTEMPTS`` attempts in all), with a connect
  timeout of ``AWS_CONNECT_TIMEOUT`` and a read timeout of ``AWS_READ_TIMEOUT`` per attempt, so one call
  to a silent endpoint ends within ``aws_call_bound()`` seconds.
- ``user_agent(module)``: ``teardown.gates/<version> (<module>)``, sent as the Kubernetes client's
  User-Agent and as botocore's ``user_agent_extra``, so the audit log and CloudTrail name the caller.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

# kept equal to galaxy.yml's version by tests/unit/plugins/module_utils/core/test_bounds.py
VERSION = "0.1.0"
COLLECTION = "teardown.gates"

CLIENT_BOUND_FACTOR = 3  # client creation: /version, /api, /apis, each at most request_timeout
K8S_CONNECT_TIMEOUT = 5.0

AWS_CONNECT_TIMEOUT = 5
AWS_READ_TIMEOUT = 15
AWS_MAX_ATTEMPTS = 4  # botocore's standard mode: the first attempt and three retries


def user_agent(module=None):
    """``teardown.gates/0.1.0 (finalizer)``: the collection, its version and the module sending the request."""
    base = "%s/%s" % (COLLECTION, VERSION)
    return "%s (%s)" % (base, module) if module else base


def k8s_timeout(request_timeout):
    """(connect, read) seconds for one Kubernetes request that is not a watch."""
    rt = float(request_timeout)
    return (min(K8S_CONNECT_TIMEOUT, rt), rt)


def client_bound(request_timeout):
    """Seconds the Kubernetes client's creation (``/version`` and discovery) may take before it is unknown."""
    return CLIENT_BOUND_FACTOR * float(request_timeout)


def aws_call_bound():
    """Seconds one AWS call may take against an endpoint that accepts and never answers: every attempt
    connects and waits its read timeout, with standard mode's backoff between attempts."""
    attempts = AWS_MAX_ATTEMPTS
    # standard mode waits at most 2**i seconds (capped at 20) before retry i+1
    backoff = sum(min(2 ** i, 20) for i in range(attempts - 1))
    return attempts * (AWS_CONNECT_TIMEOUT + AWS_READ_TIMEOUT) + backoff


def aws_config_options(module=None):
    """The settings of ``aws_config``, as the plain dict an amazon.aws module's ``aws_config`` option takes."""
    return {"connect_timeout": AWS_CONNECT_TIMEOUT, "read_timeout": AWS_READ_TIMEOUT,
            "retries": {"mode": "standard", "max_attempts": AWS_MAX_ATTEMPTS},
            "user_agent_extra": user_agent(module)}


def aws_config(module=None):
    """The botocore Config every AWS client of the collection uses (a user's ``aws_config`` merges over it)."""
    import botocore.config
    return botocore.config.Config(**aws_config_options(module))
