# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the event source ``teardown.gates.stuck_deletions`` (extensions/eda/plugins/event_source) decides, without
I/O: its options (``parse_options``), the kinds it watches by default (``default_kinds``), and ``Tracker``, which is
fed what the watches saw (a list, an event, a failed read) and says, at a given time, which events are due.

- An object is stuck when its deletionTimestamp is set and older than its kind's ``stuck_after``.
- A stuck object is emitted once; again only when what holds it changed: its UID (a new object of the same name),
  its deletionTimestamp or its finalizers (metadata.finalizers, and a Namespace's spec.finalizers). Time passing
  is not a change.
- A kind whose last read failed (a failed list, a dropped watch not yet re-listed) is ``unknown``: one event per
  outage, never silence; its stuck objects are not judged on stale data until a list answers again.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import parse_k8s_time, utc_iso

# The gate windows: how long each role lets its gates wait before it calls the teardown late (the roles' defaults:
# hosted_cluster_destroy's cluster_grace_period, release_prune's and held_deletion's timeout). A deletion that
# takes longer than its window is what a person would call stuck. tests/unit/plugins/module_utils/k8s/test_stuck.py checks that
# these agree with roles/*/defaults/main.yml.
GATE_WINDOWS = {
    "hosted_cluster": ("hosted_cluster_destroy", "cluster_grace_period", 600),
    "release_prune": ("release_prune", "timeout", 600),
    "held_deletion": ("held_deletion", "timeout", 600),
}
# Namespaces (every kind's teardown ends with one) get the longest window of the kinds
NAMESPACE = ("v1", "Namespace")

OPTIONS = ("kinds", "stuck_after", "namespace", "label_selector", "kubeconfig", "context", "request_timeout", "watch_window",
           "check_every", "run_for")


class StuckOptionsError(TeardownGatesError, ValueError):
    """The source's options are wrong; the message names each option and why."""


def _registry():
    from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
    return registry


def default_kinds():
    """``{(api_version, kind): stuck_after}``: the objects the registry's kinds know (their OBJECT_HINTS, at the
    kind's API versions) with the kind's gate window, and Namespaces with the longest window."""
    out = {}
    longest = max(w[2] for w in GATE_WINDOWS.values())
    for k in _registry().KINDS:
        # a kind with Kubernetes objects and no window of its own (tests/unit/plugins/module_utils/k8s/test_stuck.py asks for
        # one) is still watched, at the longest
        window = GATE_WINDOWS.get(k.NAME, (None, None, longest))[2]
        versions = dict((av.split("/", 1)[0], av) for av in k.API_VERSIONS if "/" in av)
        for group, kind in sorted(k.OBJECT_HINTS):
            if group in versions:
                out.setdefault((versions[group], kind), window)
    out[NAMESPACE] = longest
    return out


def _seconds(value, where, errors, positive=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            errors.append("%s: must be a number of seconds, got %r" % (where, value))
            return None
    if value < 0 or (positive and value == 0):
        errors.append("%s: must be %s seconds, got %r" % (where, "more than 0" if positive else "0 or more", value))
        return None
    return value


def _kind_key(api_version, kind):
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    return "%s/%s" % (group, kind) if group else kind


def parse_options(args):
    """The source's arguments (a dict from the rulebook) to a config dict; StuckOptionsError naming every bad option.

    ``kinds``: a list of ``{api_version, kind}`` (default: ``default_kinds()``); ``stuck_after``: seconds for every
    kind, or a dict keyed by kind (``ConfigMap``, or ``group/Kind`` such as ``hypershift.openshift.io/HostedCluster``)
    over the defaults (the kind's gate window; 600 s for a kind the registry does not know). The config's
    ``kinds`` maps (api_version, kind) to its stuck_after.
    """
    args = dict(args or {})
    errors = []
    unknown = sorted(k for k in args if k not in OPTIONS and not k.startswith("_"))
    if unknown:
        errors.append("%s: not an option of teardown.gates.stuck_deletions (its options: %s)" % (
            ", ".join(unknown), ", ".join(OPTIONS)))
    defaults = default_kinds()
    fallback = max(defaults.values())
    raw = args.get("kinds")
    kinds = {}
    explicit = raw is not None
    if raw is None:
        kinds = dict(defaults)
    elif not isinstance(raw, list) or not raw:
        errors.append("kinds: must be a non-empty list of {api_version, kind}, got %r" % (raw,))
    else:
        for i, entry in enumerate(raw):
            where = "kinds[%d]" % i
            if not isinstance(entry, dict):
                errors.append("%s: must be a dict with api_version and kind, got %r" % (where, entry))
                continue
            extra = sorted(set(entry) - set(("api_version", "kind")))
            if extra:
                errors.append("%s: unknown keys %s (give api_version and kind)" % (where, ", ".join(extra)))
            av, kind = entry.get("api_version"), entry.get("kind")
            for key, value in (("api_version", av), ("kind", kind)):
                if not isinstance(value, str) or not value.strip():
                    errors.append("%s.%s: required, a non-empty string" % (where, key))
            if isinstance(av, str) and isinstance(kind, str) and av.strip() and kind.strip():
                if (av, kind) in kinds:
                    errors.append("%s: %s %s is listed twice" % (where, av, kind))
                kinds[(av, kind)] = defaults.get((av, kind), fallback)
    stuck = args.get("stuck_after")
    if isinstance(stuck, dict):
        names = {}
        for av, kind in kinds:
            names.setdefault(kind, []).append((av, kind))
            names.setdefault(_kind_key(av, kind), []).append((av, kind))
        for key in sorted(stuck, key=str):
            seconds = _seconds(stuck[key], "stuck_after.%s" % key, errors)
            if key not in names:
                errors.append("stuck_after.%s: names no watched kind (watched: %s)" % (
                    key, ", ".join(sorted(set(_kind_key(av, k) for av, k in kinds))) or "none"))
            elif seconds is not None:
                for pair in names[key]:
                    kinds[pair] = seconds
    elif stuck is not None:
        seconds = _seconds(stuck, "stuck_after", errors)
        if seconds is not None:
            kinds = dict((pair, seconds) for pair in kinds)
    out = {"kinds": kinds, "explicit_kinds": explicit, "namespace": args.get("namespace") or None,
           "label_selector": args.get("label_selector") or None,
           "kubeconfig": args.get("kubeconfig") or None, "context": args.get("context") or None}
    for key, default, positive in (("request_timeout", 10, True), ("watch_window", 60, True),
                                   ("check_every", 5, True), ("run_for", 0, False)):
        value = args.get(key, default)
        out[key] = _seconds(default if value is None else value, key, errors, positive=positive)
    if out["watch_window"] is not None and out["watch_window"] > 3600:
        errors.append("watch_window: at most 3600 seconds (the API server's own watch bound), got %r"
                      % out["watch_window"])
    for key in ("namespace", "label_selector", "kubeconfig", "context"):
        if out[key] is not None and not isinstance(out[key], str):
            errors.append("%s: must be a string, got %r" % (key, out[key]))
    if errors:
        raise StuckOptionsError("teardown.gates.stuck_deletions: " + "; ".join(errors))
    return out


def _finalizers(obj):
    meta = obj.get("metadata") or {}
    out = list(meta.get("finalizers") or [])
    if obj.get("kind") == "Namespace":
        out += [f for f in (obj.get("spec") or {}).get("finalizers") or [] if f not in out]
    return out


def _ref(obj, pair):
    meta = obj.get("metadata") or {}
    # namespace "" for a cluster-scoped object, as diagnose_deletion takes it
    return {"api_version": pair[0], "kind": pair[1], "namespace": meta.get("namespace") or "",
            "name": meta.get("name"), "uid": meta.get("uid")}


class Tracker(object):
    """The terminating objects of each watched kind and what was emitted for them; no I/O, time is passed in.

    Feed it ``listed(pair, items)``, ``event(pair, type, obj)`` and ``failed(pair, error, now)``; ``due(now)``
    returns the events to emit now (each ``{"stuck_deletion": {...}}``) and remembers them.
    """

    def __init__(self, stuck_after):
        self.stuck_after = dict(stuck_after)  # (api_version, kind) -> seconds
        self.terminating = dict((pair, {}) for pair in self.stuck_after)  # pair -> uid -> object
        self.unknown = {}  # pair -> (error, since): the kind's last read failed
        self.emitted = {}  # uid -> signature last emitted
        self.unknown_emitted = set()  # pairs whose current outage was emitted

    @staticmethod
    def signature(obj):
        """What holds the object: a change here is worth a new event (time passing is not)."""
        meta = obj.get("metadata") or {}
        return (meta.get("uid"), meta.get("deletionTimestamp"), tuple(_finalizers(obj)))

    def listed(self, pair, items):
        """A successful list: the kind (and the API) is known again; its terminating objects are exactly these."""
        for key in (pair, None):
            self.unknown.pop(key, None)
            self.unknown_emitted.discard(key)
        keep = dict(((o.get("metadata") or {}).get("uid"), o) for o in items
                    if (o.get("metadata") or {}).get("deletionTimestamp"))
        for uid in set(self.terminating.get(pair, {})) - set(keep):
            self.emitted.pop(uid, None)
        self.terminating[pair] = keep

    def event(self, pair, etype, obj):
        meta = obj.get("metadata") or {}
        uid = meta.get("uid")
        objects = self.terminating.setdefault(pair, {})
        if etype == "DELETED" or not meta.get("deletionTimestamp"):
            objects.pop(uid, None)
            self.emitted.pop(uid, None)
        else:
            objects[uid] = obj

    def failed(self, pair, error, now):
        """A failed read of ``pair``, or of the whole API (discovery, the client) when pair is None: unknown until
        the next successful list."""
        since = self.unknown[pair][1] if pair in self.unknown else now
        self.unknown[pair] = (error, since)

    def _unknown_event(self, pair, now):
        self.unknown_emitted.add(pair)
        error, since = self.unknown[pair]
        what = "%s %s" % pair if pair else "every watched kind"
        return {"stuck_deletion": {
            "state": "unknown", "object": {"api_version": pair[0], "kind": pair[1]} if pair else {},
            "error": error, "unknown_since": utc_iso(since), "observed_at": utc_iso(now),
            "summary": "%s: the API server did not answer (%s); which deletions are stuck is not known" % (
                what, error)}}

    def due(self, now):
        """The events to emit at ``now``: an unknown kind (or API) once per outage, and each stuck object whose
        signature differs from the one last emitted for it."""
        if None in self.unknown:  # the client could not even be built: one event for the API, no judgement
            return [] if None in self.unknown_emitted else [self._unknown_event(None, now)]
        events = []
        for pair in sorted(self.stuck_after):
            if pair in self.unknown:
                if pair not in self.unknown_emitted:
                    events.append(self._unknown_event(pair, now))
                continue  # no judgement on stale data
            for uid, obj in sorted(self.terminating.get(pair, {}).items(), key=lambda kv: str(kv[0])):
                event = self._stuck_event(pair, obj, now)
                if event is not None:
                    events.append(event)
        return events

    def _stuck_event(self, pair, obj, now):
        meta = obj.get("metadata") or {}
        since = parse_k8s_time(meta.get("deletionTimestamp"))
        if since is None:
            return None
        seconds = now - since
        if seconds < self.stuck_after[pair]:
            return None
        sig = self.signature(obj)
        before = self.emitted.get(meta.get("uid"))
        if before == sig:
            return None
        self.emitted[meta.get("uid")] = sig
        ref = _ref(obj, pair)
        if before is None:
            changed = "first seen stuck"
        elif before[0] != sig[0]:
            changed = "a new object of the same name (UID %s)" % sig[0]
        elif before[2] != sig[2]:
            changed = "finalizers %s -> %s" % (", ".join(before[2]) or "none", ", ".join(sig[2]) or "none")
        else:
            changed = "deletionTimestamp %s -> %s" % (before[1], sig[1])
        where = "%s/%s" % (ref["namespace"], ref["name"]) if ref.get("namespace") else ref["name"]
        return {"stuck_deletion": {
            "state": "stuck", "object": ref, "deletion_timestamp": meta.get("deletionTimestamp"),
            "terminating_seconds": int(seconds), "stuck_after": self.stuck_after[pair],
            "finalizers": list(sig[2]), "changed": changed, "observed_at": utc_iso(now),
            "summary": "%s %s terminating for %d s (over %s s), finalizers: %s" % (
                pair[1], where, int(seconds), self.stuck_after[pair], ", ".join(sig[2]) or "none")}}
