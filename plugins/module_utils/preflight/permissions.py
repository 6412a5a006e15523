# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Kubernetes permission preflight, as pure functions: which permissions a run needs (each kind's
``PERMISSIONS``, filled in from the run's options), how a SelfSubjectAccessReview asks for one, and the message that
names every missing one with the RBAC file that grants it.

``needed(kind, options)`` raises ``aws_args.BadInput`` when an option a permission's namespace needs is missing."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import string

from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput

_FORMAT = string.Formatter()


def grant(verbs, group, resource, namespace=None, **extra):
    """A kind's PERMISSIONS rows for one resource: one per verb of ``verbs`` (space-separated), in that order, each
    with the namespace template and ``extra`` (``name``, ``when``)."""
    return tuple(dict(verb=verb, group=group, resource=resource, namespace=namespace, **extra) for verb in verbs.split())


def _fields(template):
    return [name for dummy, name, dummy2, dummy3 in _FORMAT.parse(template or "") if name]


def _fill(template, options, what):
    if template is None:
        return None
    missing = [name for name in _fields(template) if not ("%s" % (options.get(name) or "")).strip()]
    if missing:
        raise BadInput("%s: required to tell the permission preflight where the run works (%s); nothing was sent"
                       % (missing[0], what))
    return template.format(**dict((k, "%s" % (v,)) for k, v in options.items()))


def needed(kind, options):
    """The permissions the run of ``kind`` (a kinds/ module) needs with ``options``, in the kind's order:
    ``[{"verb", "group", "resource", "namespace", "name"}]`` (namespace and name None when not scoped)."""
    shape = getattr(kind, "permission_options", None)
    options = shape(dict(options)) if shape is not None else dict(options)
    out = []
    for p in getattr(kind, "PERMISSIONS", ()):
        when = p.get("when")
        if when is not None and not _truthy(options.get(when)):
            continue
        what = "%s %s" % (p["verb"], p["resource"])
        out.append({"verb": p["verb"], "group": p["group"], "resource": _fill(p["resource"], options, what),
                    "namespace": _fill(p.get("namespace"), options, what), "name": _fill(p.get("name"), options, what)})
    return out


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() not in ("", "false", "no", "0", "off", "none")
    return bool(value)


def review_attributes(permission):
    """The ``resourceAttributes`` of the SelfSubjectAccessReview that asks for ``permission``."""
    return dict((k, v) for k, v in (("verb", permission["verb"]), ("group", permission["group"]),
                                    ("resource", permission["resource"]), ("namespace", permission["namespace"]),
                                    ("name", permission["name"])) if v not in (None, ""))


def describe(permission):
    """``delete releases.core.convoy.kumodo.io in namespace team-a``, as the collection's 403 messages say it."""
    resource = permission["resource"] + ("." + permission["group"] if permission["group"] else "")
    where = "in namespace %s" % permission["namespace"] if permission["namespace"] else "cluster-wide"
    named = " %s" % permission["name"] if permission.get("name") else ""
    return "%s %s%s %s" % (permission["verb"], resource, named, where)


def missing_message(missing, unknown, rbac_file):
    """Every permission the reviews refused, and every one no review answered, with the file that grants them."""
    parts = []
    if missing:
        parts.append("missing permission%s: %s" % ("s" if len(missing) > 1 else "", "; ".join(describe(p) for p in missing)))
    if unknown:
        parts.append("no answer to the review of: %s (unknown, not taken as granted)"
                     % "; ".join(describe(p) for p in unknown))
    return "%s - granted by %s; refused before any change" % (", ".join(parts), rbac_file or "(no RBAC file)")
