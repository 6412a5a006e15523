# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What to inspect next when a deletion is pending: the seeds' rules, as data.

Nothing here removes anything: the hints select evidence to inspect. Removing a finalizer is
never the advice; the owners' own release paths are.

Public data and functions:

- ``FINALIZER_OWNERS``: finalizer -> (owner, what it waits for), read from the kind registry (kinds/: each kind
  file publishes its own, kinds/kubernetes.py core Kubernetes').
- ``KIND_RULES``: (api group, kind) -> list of hints (the seed's "Remaining gate / Inspect first"), read from the
  kind registry too; ``RULES`` are the kinds' rules on conditions and fields, by order, with this file's own.
- ``UNKNOWN_HINT``: the hint for a failed query.
- ``FINALIZER_OWNERS_ON``: (api group, kind, finalizer) -> (owner, what it waits for), where a kind's owner of a
  finalizer differs from ``FINALIZER_OWNERS``'.
- ``finalizer_owner(name, api_version=None, kind=None)``: ``{"name", "owner", "waits_for"}`` (owner ``unknown`` when
  not known); give the object's kind: the same name can have another owner on another kind.
- ``inspect_next(obj_or_summary, state=...)``: the hints for one object, kind rules first, then
  hints drawn from its conditions and fields by ``RULES`` (CAPTF holds, convoy reachability, HCP cleanup...).
- ``status_conditions(obj)``: an object's conditions, Cluster API's v1beta2 ones included.
- ``deleting_condition(conditions)``: the condition that says what a deleting object waits for.
- ``kind_label(api_version, kind)``: ``Kind.group``, as kubectl names a kind (``Cluster`` alone is
  ambiguous: Cluster API's and convoy's).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry

# every kind's published finalizers and object hints, from its file in kinds/ (and core Kubernetes')
FINALIZER_OWNERS = registry.finalizer_owners()
FINALIZER_OWNERS_ON = registry.finalizer_owners_on()

UNKNOWN_HINT = ("A failed query: inspect authentication, permissions, throttling or API connectivity; "
                "a failed observation is not evidence that a resource was deleted.")

# (api group, kind) -> hints. Group "" is the core group.
KIND_RULES = registry.object_hints()


def finalizer_owner(name, api_version=None, kind=None):
    """``{"name", "owner", "waits_for"}`` for a finalizer on an object of ``api_version`` and ``kind`` (when given);
    owner ``unknown`` when not known."""
    owner, waits = FINALIZER_OWNERS_ON.get((_group(api_version), kind, name)) or FINALIZER_OWNERS.get(
        name, ("unknown", None))
    out = {"name": name, "owner": owner}
    if waits:
        out["waits_for"] = waits
    return out


def _group(api_version):
    return api_version.split("/", 1)[0] if api_version and "/" in api_version else ""


def status_conditions(obj):
    """An object's status conditions. Cluster API v1.11+ objects read as v1beta1 (as HyperShift reads
    them) carry the new conditions, among them ``Deleting``, in ``status.v1beta2.conditions``; read as
    v1beta2 they are ``status.conditions``, and the old ones move to ``status.deprecated.v1beta1``.
    The new ones come first; an old one is kept when no new one has its type."""
    status = (obj or {}).get("status") or {}
    newer = (status.get("v1beta2") or {}).get("conditions") or []
    out = [c for c in newer if isinstance(c, dict)]
    seen = set(c.get("type") for c in out)
    out += [c for c in status.get("conditions") or [] if isinstance(c, dict) and c.get("type") not in seen]
    return out


def deleting_condition(conditions):
    """``"Deleting=True Reason: message"`` for the condition a deleting Cluster API object uses to say
    what it waits for (Machine WaitingForInfrastructureDeletion, Cluster WaitingForWorkersDeletion...),
    or None."""
    c = _cond(conditions or [], "Deleting")
    if not c or str(c.get("status")) != "True":
        return None
    message = " ".join(str(c.get("message") or "").split())
    return "Deleting=True %s%s" % (c.get("reason") or "", (": " + message) if message else "")


def kind_label(api_version, kind):
    group = _group(api_version)
    return "%s.%s" % (kind, group) if group else kind


def object_text(label, namespace, name, uid, finalizers, note=None):
    """How every message names an object that holds a teardown: ``KIND.group NS/NAME (uid U, finalizers: A,
    B) - NOTE``; an empty ``finalizers`` says "no finalizers" (then the object is going, not held)."""
    return "%s %s%s (uid %s, %s)%s" % (label, (namespace + "/") if namespace else "", name, uid,
                                       ("finalizers: " + ", ".join(finalizers)) if finalizers else "no finalizers",
                                       (" - " + note) if note else "")


def _conditions(obj):
    if "conditions" in obj and "metadata" not in obj:  # an object_summary
        return obj.get("conditions") or []
    return status_conditions(obj)


def _cond(conds, ctype):
    for c in conds:
        if isinstance(c, dict) and c.get("type") == ctype:
            return c
    return None


def deleting_rule(view):
    """Cluster API's Deleting condition, for any kind's object."""
    why = deleting_condition(view["conditions"])
    return [("first", "%s %s: %s" % (kind_label(view["api_version"], view["kind"]), view["name"], why))] if why else []


# the kinds' rules (kinds/*.py HINT_RULES) and this file's own, in the order they apply
RULES = sorted(registry.hint_rules() + [(70, deleting_rule)], key=lambda p: p[0])


def inspect_next(obj, state="present"):
    """Hints (strings) for one object (a full object dict or an ``object_summary``).

    ``state`` is the observation: ``unknown`` yields the failed-query hint only; ``absent`` none.
    """
    if state == "unknown":
        return [UNKNOWN_HINT]
    if state == "absent" or not obj:
        return []
    api_version = obj.get("apiVersion") or obj.get("api_version")
    kind = obj.get("kind")
    hints = list(KIND_RULES.get((_group(api_version), kind), []))
    conds = _conditions(obj)
    status = obj.get("status") or {}
    meta = obj.get("metadata") or {}
    finalizers = meta.get("finalizers") if meta else obj.get("finalizers")
    finalizers = list(finalizers or [])

    view = {"api_version": api_version, "kind": kind, "group": _group(api_version),
            "name": (meta or obj).get("name") or "", "conditions": conds, "status": status, "finalizers": finalizers}
    for dummy, rule in RULES:
        for where, hint in rule(view):
            if where == "first":
                hints.insert(0, hint)
            else:
                hints.append(hint)
    unknown_owners = [f for f in finalizers if f not in FINALIZER_OWNERS]
    if unknown_owners:
        hints.append("Finalizers with no known owner: %s; find the controller that added them "
                     "(managedFields show the manager)." % ", ".join(unknown_owners))
    return hints
