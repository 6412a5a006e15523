# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kind registry: every teardown kind, one line each, and the lookups the shared code reads.

A kind file (this folder) declares ``NAME``, ``PAGE`` (whether it has a report page), ``API_VERSIONS``,
``ANNOTATIONS``, ``FINALIZERS`` (finalizer -> (owner, what it waits for); optionally ``FINALIZERS_ON``, (api group,
kind, finalizer) -> the same, where one kind's owner of that name is another), ``OBJECT_HINTS`` ((api group, kind)
-> hints), ``HINT_RULES`` ((order, rule) pairs), ``CONTROLLERS`` (the controller Deployments that own its finalizers:
namespace, name, what, the API versions they serve and the finalizers they own), ``CLOSED_STATES`` and ``FILES`` (slot -> (path, word), for
tests/unit/test_kinds_complete.py); a kind with a page also has ``claims(report)``, ``chart(report)``,
``body(report)`` and ``verdict(report)``. Every kind has ``plan(facts, options)``: the plan its role would carry
out, built from what the role read before its first change (plugins/module_utils/preflight/plan.py); ``planner``
looks it up. ``GROUND`` holds what is not a kind but every kind meets (core
Kubernetes): its finalizers and hints are looked up with the kinds'.

Adding a kind is a file here and one line in ``KINDS``. Page kinds are tried in ``KINDS`` order by ``of_report``;
the last page kind claims what no other does.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.kinds import (
    cfn, diagnosis, held_deletion, hosted_cluster, kubernetes, orphan_sweep, release_prune)

KINDS = (
    hosted_cluster,
    release_prune,
    cfn,
    diagnosis,
    held_deletion,  # the last page kind: of_report falls back to it
    orphan_sweep,
)

GROUND = (kubernetes,)


class UnknownKind(TeardownGatesError, KeyError):
    """A kind name the registry does not list (a KeyError too, as the old dict lookups raised)."""

    def __str__(self):
        return Exception.__str__(self)


def names():
    return tuple(k.NAME for k in KINDS)


def by_name(name):
    """The kind file (module) named ``name``; UnknownKind when none is."""
    for k in KINDS:
        if k.NAME == name:
            return k
    raise UnknownKind("unknown teardown kind %r; known: %s" % (name, ", ".join(names())))


def planner(name):
    """The plan builder of the kind named ``name``: plan(facts, options) -> a canonical plan."""
    return by_name(name).plan


def page_kinds():
    """The names of the kinds with a report page, in registry order."""
    return tuple(k.NAME for k in KINDS if k.PAGE)


def page_kind(name):
    """The kind file of a page kind; UnknownKind for a name that is not one."""
    k = by_name(name)
    if not k.PAGE:
        raise UnknownKind("teardown kind %r has no report page; those that do: %s" % (name, ", ".join(page_kinds())))
    return k


def of_report(report):
    """The page kind a report is, by its own fields: the first page kind that claims it."""
    pages = [k for k in KINDS if k.PAGE]
    for k in pages[:-1]:
        if k.claims(report):
            return k
    return pages[-1]


def _sources():
    return KINDS + GROUND


def finalizer_owners():
    """finalizer -> (owner, what it waits for), from every kind and the ground truth."""
    out = {}
    for k in _sources():
        out.update(k.FINALIZERS)
    return out


def finalizer_owners_on():
    """(api group, kind, finalizer) -> (owner, what it waits for), where that kind's owner differs from
    ``finalizer_owners()``'s (HyperShift's ``hypershift.openshift.io/finalizer`` is CPO's on a HostedControlPlane)."""
    out = {}
    for k in _sources():
        out.update(getattr(k, "FINALIZERS_ON", None) or {})
    return out


def by_finalizer(finalizer):
    """The kind file (or the ground-truth module) that publishes ``finalizer``; UnknownKind when none does."""
    for k in _sources():
        if finalizer in k.FINALIZERS:
            return k
    raise UnknownKind("no teardown kind publishes the finalizer %r" % (finalizer,))


def object_hints():
    """(api group, kind) -> hints, from every kind and the ground truth."""
    out = {}
    for k in _sources():
        out.update(k.OBJECT_HINTS)
    return out


def hint_rules():
    """Every kind's (order, rule) pairs, by order."""
    return sorted((pair for k in _sources() for pair in k.HINT_RULES), key=lambda p: p[0])


def controllers_for(api_version, finalizers=()):
    """The controller Deployments that reconcile objects of ``api_version`` or own one of ``finalizers``, from every
    kind and the ground truth: ``[{"namespace", "name", "what"}]``, each once."""
    out = []
    for k in _sources():
        for c in k.CONTROLLERS:
            if api_version in c.get("serves", ()) or set(finalizers or ()) & set(c.get("finalizers", ())):
                entry = {"namespace": c["namespace"], "name": c["name"], "what": c["what"]}
                if entry not in out:
                    out.append(entry)
    return out


def closed_states():
    """The row states every chart draws as done (the union of the kinds', first seen first)."""
    out = []
    for k in KINDS:
        out += [s for s in k.CLOSED_STATES if s not in out]
    return tuple(out)
