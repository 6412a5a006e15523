# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWS modules' options: the argument specs more than one AWS module has, written once beside the doc fragment
that documents them (validate-modules compares each module's argument_spec with its DOCUMENTATION), and the checks of
option values a spec cannot express, which raise ``BadInput`` naming the option and why.

``checked(module, run, *args)`` is the one place a module's run meets ``BadInput``: it calls ``run`` and turns the
error into ``fail_from``'s failure (the message as it is, nothing else returned), so no module writes the ladder."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError, fail_from

# the default of wait_timeout in seconds, as plugins/doc_fragments/aws_wait_timeout.py documents it
WAIT_TIMEOUT_DEFAULT = 900


class BadInput(TeardownGatesError):
    """An option's value the module cannot work with; the message names the option and why. Nothing was sent."""


def checked(module, run, *args, **kwargs):
    """``run(*args, **kwargs)``'s result; a ``BadInput`` it raises fails the module with the error's message."""
    try:
        return run(*args, **kwargs)
    except BadInput as e:
        fail_from(module, e)
    return None  # not reached: fail_json exits


def discovery_spec():
    """The options that narrow the discovery of an infra ID's resources (documented by the
    ``teardown.gates.aws_infra_discovery`` doc fragment), a fresh dict each call."""
    return dict(
        base_domain=dict(type="str"),
        cluster_name=dict(type="str"),
        oidc_bucket=dict(type="str"),
    )


def wait_timeout_spec(default=WAIT_TIMEOUT_DEFAULT):
    """The spec of ``wait_timeout`` (documented by the ``teardown.gates.aws_wait_timeout`` doc fragment)."""
    return dict(type="int", default=default)


def infra_id(value):
    """``value`` stripped; BadInput when it is empty, since an empty infra ID would match every cluster's tag."""
    stripped = (value or "").strip()
    if not stripped:
        raise BadInput("infra_id must not be empty: an empty infra ID would match every cluster's tag")
    return stripped


def wait_timeout(value):
    """``value``, at least 1 second."""
    if value < 1:
        raise BadInput("wait_timeout must be at least 1 second, got %d" % value)
    return value


def at_least_one(name, value):
    """``value`` of option ``name``, at least 1."""
    if value < 1:
        raise BadInput("%s must be at least 1, got %d" % (name, value))
    return value


def more_than_zero(name, value, unit="seconds"):
    """``value`` of option ``name``, more than 0."""
    if value <= 0:
        raise BadInput("%s must be more than 0 %s, got %s" % (name, unit, value))
    return value


def not_empty(name, value):
    """``value`` of option ``name`` stripped; BadInput when nothing is left."""
    stripped = (value or "").strip()
    if not stripped:
        raise BadInput("%s must not be empty" % name)
    return stripped


# an AWS ID or an IAM name (IAM allows letters, digits and +=,.@_- in the names of roles, users and groups)
AWS_ID = re.compile(r"^[A-Za-z0-9+=,.@_-]{1,128}$")


def aws_ids(name, value):
    """``value`` of option ``name``, a list of AWS IDs or IAM names, each stripped; BadInput for anything else
    (Ansible turns a dict or a number in a list of str into text, which no ID looks like)."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise BadInput("%s must be a list of IDs, got %s" % (name, type(value).__name__))
    out = []
    for v in value:
        s = v.strip() if isinstance(v, str) else None
        if not s or not AWS_ID.match(s):
            raise BadInput("%s must be a list of IDs (a network interface ID, a role, user or group name), got %r"
                           % (name, v))
        out.append(s)
    return out
