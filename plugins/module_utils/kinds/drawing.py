# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kind files share to draw their charts and write their report bodies: pure functions, no I/O.

Chart rows are ``{"section", "label", "state", "start", "end", "open", "marks", "note"}`` (see report/timeline.py);
``finish`` makes the chart of them. The HTML helpers escape everything they are given. ``condition`` reads one
condition from a list of them, for the kinds' rules.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
from html import escape

from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import parse_iso

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def epoch(value):
    t = parse_iso(value)
    return None if t is None else (t - _EPOCH).total_seconds()


def row(section, label, state, start, end, open_=False, marks=None, note=""):
    return {"section": section, "label": label, "state": state, "start": start, "end": end, "open": bool(open_),
            "marks": list(marks or []), "note": note}


def _held_by(remaining):
    """What holds an open gate, in words: each object with its finalizers."""
    out = []
    for o in remaining or []:
        what = "%s %s" % (o.get("kind") or "object", "/".join(x for x in (o.get("namespace"), o.get("name")) if x))
        if o.get("finalizers"):
            what += " (finalizers: %s)" % ", ".join(o["finalizers"])
        out.append(what)
    return "; ".join(out)


def gate_row(g, section, run_end):
    """One wait_gate result (or report gate row) as a chart row."""
    start = epoch(g.get("started"))
    end = epoch(g.get("passed_at"))
    state = g.get("state") or "unknown"
    open_ = start is not None and end is None
    if open_:
        end = epoch(g.get("ended"))
        if end is None and g.get("duration_s") is not None:
            end = start + float(g["duration_s"])
        if end is None and g.get("duration") is not None:
            end = start + float(g["duration"])
        if end is None:
            end = run_end
    marks = []
    term = epoch(g.get("first_observed_terminating"))
    if term is not None:
        marks.append({"label": "first terminating", "at": term, "kind": "terminating"})
    note = ""
    if open_:
        note = "open (%s)" % state
        held = _held_by(g.get("remaining"))
        if held:
            note += ": held by " + held
        elif g.get("reason"):
            note += ": " + str(g["reason"])
    elif start is None:
        note = state.replace("_", " ")
    return row(section, g.get("name") or "gate", state, start, end, open_, marks, note)


def _short_type(rtype):
    return (rtype or "").split("::")[-1] or "resource"


def _waited_on(resources):
    names = []
    for r in resources:
        for b in r.get("waited_on") or []:
            text = "%s %s" % (_short_type(b.get("type")), b.get("id"))
            if b.get("state"):
                text += " (%s)" % b["state"]
            if text not in names:
                names.append(text)
    return names


def aws_rows(report, run_end):
    """The AWS phase: a row per resource type from its first delete to its last, with the blockers it waited on.

    Only IDs with recorded times are drawn (reports of older runs have none, and then no AWS rows)."""
    aws = report.get("aws") or {}
    by_type = {}
    for bucket in ("deleted", "absent", "remaining"):
        for r in aws.get(bucket) or []:
            if epoch(r.get("started")) is not None:
                by_type.setdefault(r.get("type"), []).append(dict(r, bucket=bucket))
    rows = []
    for rtype in sorted(by_type, key=lambda t: (min(epoch(r["started"]) for r in by_type[t]), t)):
        rs = by_type[rtype]
        ends = [epoch(r.get("ended")) for r in rs if epoch(r.get("ended")) is not None]
        failed = [r for r in rs if r["bucket"] == "remaining"]
        note = ["%d %s" % (len(rs), "ID" if len(rs) == 1 else "IDs")]
        waits = _waited_on(rs)
        if waits:
            note.append("waited on " + ", ".join(waits))
        if failed:
            note.append("NOT deleted: " + ", ".join(str(r.get("id")) for r in failed))
        marks = [{"label": "refused: waits on %s %s" % (_short_type(b.get("type")), b.get("id")), "at": epoch(b["at"]),
                  "kind": "refused"}
                 for r in rs for b in r.get("waited_on") or [] if epoch(b.get("at")) is not None]
        rows.append(row("AWS", _short_type(rtype), "failed" if failed else "deleted", min(epoch(r["started"]) for r in rs),
                        max(ends) if ends else run_end, bool(failed), marks, "; ".join(note)))
    return rows


def phase_rows(report, gates, aws):
    """The role's phases, from the milestones and the gates: before the delete, the gates, AWS, verification.
    A phase the run stopped in is open."""
    ms = report.get("milestones") or {}
    started, run_end, cmd = epoch(ms.get("started")), epoch(ms.get("finished")), epoch(ms.get("command_finished"))
    starts = [r["start"] for r in gates if r["start"] is not None]
    ends = [r["end"] for r in gates if r["end"] is not None]
    gates_open = any(r["open"] for r in gates)
    rows = []
    if started is not None and starts:
        rows.append(row("Phases", "check, baseline, retain", "passed", started, min(starts)))
    if starts:
        rows.append(row("Phases", "delete and wait on the gates", "open" if gates_open else "passed", min(starts),
                        max(ends) if ends else run_end, gates_open,
                        note="open: stopped at a gate" if gates_open else ""))
    if ends and not gates_open:
        aws_end = cmd
        open_ = aws_end is None and bool(report.get("stopped"))
        if open_:
            aws_end = run_end
        if aws_end is not None and aws_end >= max(ends):
            rows.append(row("Phases", "AWS infrastructure, IAM, CLI finalizer", "open" if open_ else "passed",
                            max(ends), aws_end, open_, note="open: stopped before the command finished"
                            if open_ else ""))
    if cmd is not None and run_end is not None and (report.get("verification") or {}).get("checks"):
        rows.append(row("Phases", "verify by independent queries", "passed" if report.get("verified") else
                        "not verified", cmd, run_end, not report.get("verified"),
                        note="" if report.get("verified") else "NOT verified: see Remaining"))
    return rows


def _bounds(rows, milestones, t0=None, t1=None):
    times = [t for t in [t0, t1] if t is not None]
    for r in rows:
        times += [t for t in (r["start"], r["end"]) if t is not None]
        times += [m["at"] for m in r["marks"]]
    times += [m["at"] for m in milestones]
    if not times:
        return 0.0, 0.0
    return min(times), max(times)


def finish(kind, title, rows, milestones, t0=None, t1=None):
    milestones = [m for m in milestones if m["at"] is not None]
    lo, hi = _bounds(rows, milestones, t0, t1)
    return {"kind": kind, "title": title, "t0": lo, "t1": hi, "rows": rows, "milestones": milestones}


def esc(v):
    return escape("-" if v is None else str(v), quote=True)


def html_list(items):
    if not items:
        return "<p>None.</p>"
    return "<ul>" + "".join("<li>%s</li>" % i for i in items) + "</ul>"


def html_table(head, rows):
    out = ["<table>" + ("<tr>" + "".join("<th>%s</th>" % esc(h) for h in head) + "</tr>" if head else "")]
    for r in rows:
        out.append("<tr>" + "".join("<td>%s</td>" % esc(c) for c in r) + "</tr>")
    return "".join(out) + "</table>"


def aws_id(r):
    return "<code>%s</code> %s" % (esc(r.get("type")), esc(r.get("id")))


def condition(conds, ctype):
    """The first condition of type ``ctype`` in ``conds``, or None."""
    for c in conds or []:
        if isinstance(c, dict) and c.get("type") == ctype:
            return c
    return None
