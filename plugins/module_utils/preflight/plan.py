# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan a run would carry out, as data, and its digest (issue 33, "An approved plan").

A plan is a dict:

- ``kind``: the teardown kind (plugins/module_utils/kinds/registry.py);
- ``target``: what the run is about (a HostedCluster, a namespace, a region), as the kind names it;
- ``options``: the options that shaped the plan;
- ``entries``: what the run would delete or change, each ``{"order", "action", "type", "id"}`` and optionally
  ``"of"`` (what it belongs to: an infra ID, a stack) and ``"detail"`` (a short text); ``order`` is the step it
  happens at (equal orders may run in any order among themselves);
- ``unknown``: what the run will act on but cannot name before its first change, each ``{"what", "rule"}``
  ("discovered at run time by <rule>");
- ``kept``: what stays out of the plan, each ``{"type", "id", "reason"}``.

``canonical`` sorts the entries by (order, action, type, id), ``kept`` and ``unknown`` likewise, so that the order
in which the world was listed does not matter; ``plan_digest`` is the sha256 of its JSON with sorted keys. A plan
holds no timestamps and no durations: the kinds build it from IDs and options only, and ``canonical`` drops the
keys in ``VOLATILE`` wherever they appear. ``diff`` words what differs between two plans for a person; ``verdict``
compares a recomputed plan with an approved digest."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import hashlib
import json
import os
import re

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

OPTION = "approved_plan_digest"
DIGEST_RE = re.compile(r"^[0-9a-f]{64}$")
# keys that change when the world has not: never part of a plan
VOLATILE = frozenset(["started", "finished", "at", "time", "timestamp", "duration", "duration_seconds", "elapsed",
                      "age", "age_seconds", "oldest_created", "created", "creation_timestamp", "resource_version",
                      "resourceVersion", "generation", "plan_digest"])
ENTRY_KEYS = ("order", "action", "type", "id", "of", "detail")
RUNTIME = "discovered at run time by %s"


class PlanError(TeardownGatesError):
    """A plan or an approved digest that cannot be used; the message names the option."""


def entry(order, action, rtype, rid, of="", detail=""):
    """One planned deletion or change."""
    out = {"order": int(order), "action": str(action), "type": str(rtype), "id": str(rid)}
    if of:
        out["of"] = str(of)
    if detail:
        out["detail"] = str(detail)
    return out


def at_run_time(what, rule):
    """Something the run will act on but cannot name before its first change."""
    return {"what": str(what), "rule": RUNTIME % rule}


def kept(rtype, rid, reason):
    """Something that stays out of the plan, and why."""
    return {"type": str(rtype), "id": str(rid), "reason": str(reason)}


def _clean(value):
    if isinstance(value, dict):
        return dict((str(k), _clean(v)) for k, v in value.items() if k not in VOLATILE)
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _entry_key(e):
    return (e.get("order", 0), e.get("action", ""), e.get("type", ""), e.get("id", ""), e.get("of", ""))


def _text_key(d):
    return json.dumps(d, sort_keys=True)


def build(kind, target, options, entries, unknown=(), keep=()):
    """A plan in canonical form."""
    return canonical({"kind": kind, "target": target or {}, "options": options or {}, "entries": list(entries),
                      "unknown": list(unknown), "kept": list(keep)})


def canonical(plan):
    """The plan with its lists sorted and volatile keys dropped: the same world gives the same plan."""
    if not isinstance(plan, dict):
        raise PlanError("a plan must be a dict, not %s" % type(plan).__name__)
    p = _clean(plan)
    entries = [dict((k, e[k]) for k in ENTRY_KEYS if k in e) for e in p.get("entries") or []]
    seen, unique = set(), []
    for e in sorted(entries, key=_entry_key):
        key = _text_key(e)
        if key not in seen:
            seen.add(key)
            unique.append(e)
    out = {
        "kind": p.get("kind", ""),
        "target": p.get("target") or {},
        "options": p.get("options") or {},
        "entries": unique,
        "unknown": sorted(p.get("unknown") or [], key=_text_key),
        "kept": sorted(p.get("kept") or [], key=_text_key),
    }
    return out


def canonical_json(plan):
    return json.dumps(canonical(plan), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def plan_digest(plan):
    """sha256 (hex) of the plan's canonical JSON."""
    return hashlib.sha256(canonical_json(plan).encode("utf-8")).hexdigest()


def with_digest(plan):
    """{'plan': the canonical plan, 'plan_digest': its digest}."""
    c = canonical(plan)
    return {"plan": c, "plan_digest": plan_digest(c)}


def digest_problem(value):
    """'' when value is empty (no approval asked) or a digest; otherwise what is wrong, naming the option."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str) or not DIGEST_RE.match(value.strip().lower()):
        return "%s: must be the 64 hexadecimal characters of a check run's plan_digest, not %r" % (OPTION, value)
    return ""


def _describe(e):
    words = "%s %s %s" % (e.get("action", ""), e.get("type", ""), e.get("id", ""))
    if e.get("of"):
        words += " (of %s)" % e["of"]
    return words + ", step %s" % e.get("order", 0)


def _by_key(entries):
    return dict(((e.get("action"), e.get("type"), e.get("id"), e.get("of", "")), e) for e in entries)


def diff(old, new):
    """What differs from the approved plan ``old`` to the recomputed ``new``: {'added', 'removed', 'changed',
    'options', 'target', 'unknown', 'kept', 'lines'}; 'lines' word it for a person (empty when equal)."""
    old, new = canonical(old), canonical(new)
    a, b = _by_key(old["entries"]), _by_key(new["entries"])
    added = [b[k] for k in b if k not in a]
    removed = [a[k] for k in a if k not in b]
    changed = [{"from": a[k], "to": b[k]} for k in a if k in b and a[k] != b[k]]
    options = sorted(k for k in set(old["options"]) | set(new["options"]) if old["options"].get(k) != new["options"].get(k))
    lines = []
    if old["kind"] != new["kind"]:
        lines.append("kind: %s -> %s" % (old["kind"], new["kind"]))
    if old["target"] != new["target"]:
        lines.append("target: %s -> %s" % (json.dumps(old["target"], sort_keys=True), json.dumps(new["target"], sort_keys=True)))
    for k in options:
        lines.append("option %s: %s -> %s" % (k, json.dumps(old["options"].get(k)), json.dumps(new["options"].get(k))))
    lines += ["added: %s" % _describe(e) for e in added]
    lines += ["removed: %s" % _describe(e) for e in removed]
    lines += ["changed: %s -> %s" % (_describe(c["from"]), _describe(c["to"])) for c in changed]
    unknown = {"added": [u for u in new["unknown"] if u not in old["unknown"]],
               "removed": [u for u in old["unknown"] if u not in new["unknown"]]}
    lines += ["now discovered at run time: %s" % u["what"] for u in unknown["added"]]
    lines += ["no longer discovered at run time: %s" % u["what"] for u in unknown["removed"]]
    keep = {"added": [k for k in new["kept"] if k not in old["kept"]],
            "removed": [k for k in old["kept"] if k not in new["kept"]]}
    lines += ["now kept: %s %s (%s)" % (k.get("type"), k.get("id"), k.get("reason")) for k in keep["added"]]
    lines += ["no longer kept: %s %s (%s)" % (k.get("type"), k.get("id"), k.get("reason")) for k in keep["removed"]]
    return {"added": added, "removed": removed, "changed": changed, "options": options,
            "target": old["target"] != new["target"], "unknown": unknown, "kept": keep, "lines": lines}


def approved_from_reports(report_dir, digest):
    """The plan of a check run's plan file (report_dir/plans) or JSON report in report_dir whose plan_digest is ``digest``, or None."""
    if not report_dir or not digest:
        return None
    base = os.path.expanduser(report_dir)
    # the roles keep their plan files in report_dir/plans (apart from the reports); the sweep's report holds its plan
    paths = sorted(glob.glob(os.path.join(base, "plans", "*.json")), reverse=True) + \
        sorted(glob.glob(os.path.join(base, "*.json")), reverse=True)
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, IOError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("plan_digest") == digest and isinstance(doc.get("plan"), dict):
            return doc["plan"]
    return None


def verdict(plan, approved_digest, approved_plan=None, report_dir=""):
    """Compare the plan recomputed from the live world with the approved digest.

    Returns {'asked', 'match', 'plan_digest', 'approved_plan_digest', 'diff', 'message'}: 'asked' False when no
    digest was given (the run goes on as without approval). Raises PlanError for a malformed digest."""
    problem = digest_problem(approved_digest)
    if problem:
        raise PlanError(problem)
    current = with_digest(plan)
    out = {"asked": bool(approved_digest), "match": True, "plan_digest": current["plan_digest"],
           "approved_plan_digest": (approved_digest or "").strip().lower(), "diff": None, "message": ""}
    if not out["asked"]:
        return out
    if out["approved_plan_digest"] == current["plan_digest"]:
        out["message"] = "the plan is the approved one (plan_digest %s): proceeding" % current["plan_digest"]
        return out
    out["match"] = False
    old, source = None, ""
    if isinstance(approved_plan, dict) and approved_plan:
        if plan_digest(approved_plan) == out["approved_plan_digest"]:
            old, source = approved_plan, "approved_plan"
    if old is None:
        old = approved_from_reports(report_dir, out["approved_plan_digest"])
        source = "the check run's report in report_dir" if old is not None else ""
    head = ("Refused before any change: the world has changed since the plan was approved. %s is %s, the plan "
            "recomputed now is %s." % (OPTION, out["approved_plan_digest"], current["plan_digest"]))
    if old is not None:
        out["diff"] = diff(old, current["plan"])
        out["message"] = "%s What differs from the approved plan (from %s): %s. Review the new plan (a new check run) and approve its digest." % (
            head, source, "; ".join(out["diff"]["lines"]))
    else:
        lines = [_describe(e) for e in current["plan"]["entries"]]
        out["message"] = ("%s The approved plan is not at hand (give approved_plan, or keep the check run's report in report_dir) "
                          "so the difference cannot be named; the new plan: %s." % (head, "; ".join(lines) or "nothing to delete"))
    return out
