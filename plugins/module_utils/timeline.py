# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The timeline of a report, as rows to draw: pure functions, no I/O.

Every picture (the HTML page's SVG Gantt, the Mermaid gantt in the Markdown) is drawn from ``chart(report)``,
and the chart is read from the stored JSON report alone, so the HTML and the Markdown always tell the same story.

A chart is ``{"kind", "title", "t0", "t1", "rows", "milestones"}``: ``t0``/``t1`` are epoch seconds, each row is
``{"section", "label", "state", "start", "end", "open", "marks", "note"}`` (``start`` None: never started, no
bar) and each milestone ``{"label", "at"}``. A row is open when what it waited for had not happened when the run
ended; its bar then ends at the last time the run saw it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from ansible_collections.teardown.gates.plugins.module_utils.timestamps import parse_iso

CLOSED = ("passed", "deleted", "absent", "restore", "abandon", "released", "DELETE_COMPLETE", "NOT_FOUND", "skipped",
          "retained")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def epoch(value):
    t = parse_iso(value)
    return None if t is None else (t - _EPOCH).total_seconds()


def _row(section, label, state, start, end, open_=False, marks=None, note=""):
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
    return _row(section, g.get("name") or "gate", state, start, end, open_, marks, note)


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
        rows.append(_row("AWS", _short_type(rtype), "failed" if failed else "deleted", min(epoch(r["started"]) for r in rs),
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
        rows.append(_row("Phases", "check, baseline, retain", "passed", started, min(starts)))
    if starts:
        rows.append(_row("Phases", "delete and wait on the gates", "open" if gates_open else "passed", min(starts),
                         max(ends) if ends else run_end, gates_open,
                         note="open: stopped at a gate" if gates_open else ""))
    if ends and not gates_open:
        aws_end = cmd
        open_ = aws_end is None and bool(report.get("stopped"))
        if open_:
            aws_end = run_end
        if aws_end is not None and aws_end >= max(ends):
            rows.append(_row("Phases", "AWS infrastructure, IAM, CLI finalizer", "open" if open_ else "passed",
                             max(ends), aws_end, open_, note="open: stopped before the command finished"
                             if open_ else ""))
    if cmd is not None and run_end is not None and (report.get("verification") or {}).get("checks"):
        rows.append(_row("Phases", "verify by independent queries", "passed" if report.get("verified") else
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


def _finish(kind, title, rows, milestones, t0=None, t1=None):
    milestones = [m for m in milestones if m["at"] is not None]
    lo, hi = _bounds(rows, milestones, t0, t1)
    return {"kind": kind, "title": title, "t0": lo, "t1": hi, "rows": rows, "milestones": milestones}


def hosted_cluster_chart(report):
    ms = report.get("milestones") or {}
    c = report.get("cluster") or {}
    run_end = epoch(ms.get("finished"))
    gates = [gate_row(g, "Gates", run_end) for g in report.get("gates") or []]
    aws = aws_rows(report, run_end)
    rows = phase_rows(report, gates, aws) + gates + aws
    milestones = [{"label": "command finished", "at": epoch(ms.get("command_finished"))}]
    requested, started = epoch(ms.get("hc_deletion_timestamp")), epoch(ms.get("started"))
    # an earlier run's delete (a resumed run) is not on this run's axis: it could be hours before
    if requested is not None and (started is None or requested >= started - 1):
        milestones.insert(0, {"label": "delete requested", "at": requested})
    if report.get("verified"):
        milestones.append({"label": "verified", "at": epoch(ms.get("verified_at") or ms.get("finished"))})
    elif report.get("stopped"):
        milestones.append({"label": "stopped", "at": run_end})
    title = "Teardown of HostedCluster %s/%s" % (c.get("namespace"), c.get("name"))
    return _finish("hosted_cluster", title, rows, milestones, epoch(ms.get("started")), run_end)


def release_prune_chart(report):
    """prune_releases: a row per batch (its wait), then a row per Release, from its batch's start to when it was
    first seen absent; a Release never seen absent is open, with its finalizers and the role's diagnosis."""
    run_end = epoch(report.get("finished"))
    held = dict((h.get("name"), h) for h in report.get("held") or [])
    rows, releases = [], []
    for w in report.get("waits") or []:
        batch = gate_row(w, "Batches", run_end)
        rows.append(batch)
        for o in w.get("releases") or []:
            gone = epoch(o.get("first_observed_absent"))
            marks = []
            term = epoch(o.get("first_observed_terminating"))
            if term is not None:
                marks.append({"label": "first terminating", "at": term, "kind": "terminating"})
            note = ""
            if gone is None:
                note = "not gone: finalizers %s" % ", ".join(o.get("finalizers") or []) if o.get("finalizers") else \
                    "not seen absent"
                if o.get("name") in held:
                    note += "; " + "; ".join(str(d) for d in held[o["name"]].get("diagnosis") or [])
            releases.append(_row("Releases", "Release %s" % o.get("name"), "deleted" if gone is not None else "open",
                                 batch["start"], gone if gone is not None else batch["end"],
                                 gone is None and batch["start"] is not None, marks, note))
    rows += releases
    for g in report.get("cluster_wait") or []:
        rows.append(gate_row(g, "Cluster", run_end))
    ms = [{"label": "finished: %s" % report.get("outcome"), "at": run_end}]
    return _finish("release_prune", "Prune of convoy Releases in %s" % (report.get("input") or {}).get(
        "release_namespace"), rows, ms, epoch(report.get("started")), run_end)


def cfn_chart(report):
    """clear_cfn_refusals: a row per stack from its first delete event of this run to its last, with each refusal
    (DELETE_FAILED) and re-delete marked, and the refusals' classes and remedies in words."""
    run_end = epoch(report.get("finished"))
    rows = []
    for s in report.get("stacks") or []:
        events = sorted((e for e in s.get("events") or [] if epoch(e.get("timestamp")) is not None),
                        key=lambda e: epoch(e["timestamp"]))
        own = [e for e in events if e.get("type") == "AWS::CloudFormation::Stack"]
        marks, deletes = [], 0
        for e in own:
            if e.get("status") == "DELETE_FAILED":
                marks.append({"label": "DELETE_FAILED", "at": epoch(e["timestamp"]), "kind": "refused"})
            elif e.get("status") == "DELETE_IN_PROGRESS":
                deletes += 1
                if deletes > 1:
                    marks.append({"label": "deleted again", "at": epoch(e["timestamp"]), "kind": "terminating"})
        status = s.get("status") or "unknown"
        start = epoch(events[0]["timestamp"]) if events else None
        end = epoch(events[-1]["timestamp"]) if events else None
        open_ = start is not None and status != "DELETE_COMPLETE"
        refusals = ["%s %s: %s, %s" % (r.get("logical_id"), r.get("class"), r.get("remedy") or "no remedy",
                                       r.get("action")) for r in s.get("refusals") or []]
        note = "; ".join(refusals) or "no refusal"
        if s.get("error"):
            note += "; " + str(s["error"])
        if start is None:
            note = status if status != "NOT_FOUND" else "already gone"
        rows.append(_row("Stacks", s.get("stack") or "stack", status, start, run_end if open_ else end, open_, marks,
                         note))
    ms = [{"label": "finished", "at": run_end}]
    return _finish("cfn", "CloudFormation stacks out of DELETE_FAILED", rows, ms, epoch(report.get("started")), run_end)


def held_deletion_chart(report):
    """release_held_deletion: per held object, the hold (diagnosis and decision, then the restore or abandon) and
    the wait for CAPTF's finalizer to go; an object still held at the end is open, with why."""
    run_end = epoch(report.get("finished_at"))
    start = epoch(report.get("started_at"))
    still = dict((u.get("name"), u) for u in report.get("still_held") or [])
    waits = dict()
    for w in report.get("waits") or []:
        waits[(w.get("name") or "").rsplit("/", 1)[-1].replace(" released", "")] = w
    rows, released = [], []
    for p in report.get("plan") or []:
        name, action = p.get("name"), p.get("action") or "none"
        w = waits.get(name)
        held = still.get(name)
        end = epoch(w.get("started")) if w else run_end
        open_ = held is not None and w is None
        note = "%s: %s" % (p.get("reason"), action)
        if held is not None:
            note = "still held: %s after %s - %s" % (held.get("reason"), held.get("action_taken"), held.get("message") or "")
        rows.append(_row("Held", "%s %s: %s" % (report.get("kind") or "object", name, action),
                         action if not open_ else "held", start, end, open_ and start is not None, note=note))
        if w:
            g = gate_row(w, "Released", run_end)
            if held is not None and not g["open"]:
                g["note"] = note
            released.append(g)
    ms = [{"label": "finished", "at": run_end}]
    return _finish("held_deletion", "Held %s deletions in %s" % (report.get("kind"), report.get("namespace")),
                   rows + released, ms, start, run_end)


def chart(report, kind=None):
    """The chart of any of our reports; ``kind`` defaults to what the report's own fields say it is."""
    if kind is None:
        if "gates" in report and "cluster" in report:
            kind = "hosted_cluster"
        elif report.get("role") == "teardown.gates.release_prune":
            kind = "release_prune"
        elif "stacks" in report:
            kind = "cfn"
        else:
            kind = "held_deletion"
    return {"hosted_cluster": hosted_cluster_chart, "release_prune": release_prune_chart, "cfn": cfn_chart,
            "held_deletion": held_deletion_chart}[kind](report)


# ---------------------------------------------------------------------------------------------- Mermaid
def _mermaid_text(text):
    """Mermaid task names end at ':' and lines at ';' or '#'; keep them out of the names."""
    out = str(text).replace(":", " -").replace(";", ",").replace("#", "no.").replace("\n", " ")
    return out.strip() or "-"


def render_mermaid(ch):
    """A Mermaid gantt of the chart (times as epoch milliseconds, so no time zone is guessed)."""
    lines = ["```mermaid", "gantt", "    title %s" % _mermaid_text(ch["title"]), "    dateFormat x",
             "    axisFormat %H:%M:%S"]
    section = None
    for i, r in enumerate(ch["rows"]):
        if r["start"] is None:
            continue
        if r["section"] != section:
            section = r["section"]
            lines.append("    section %s" % _mermaid_text(section))
        tag = "crit, " if r["open"] else ("done, " if r["state"] in CLOSED else "")
        end = max(r["end"] if r["end"] is not None else r["start"], r["start"] + 0.001)
        label = r["label"] + (" (OPEN)" if r["open"] else "")
        lines.append("    %s :%sr%d, %d, %d" % (_mermaid_text(label), tag, i, round(r["start"] * 1000),
                                                round(end * 1000)))
    if ch["milestones"]:
        lines.append("    section Milestones")
        for i, m in enumerate(ch["milestones"]):
            lines.append("    %s :milestone, m%d, %d, 0d" % (_mermaid_text(m["label"]), i, round(m["at"] * 1000)))
    lines.append("```")
    return "\n".join(lines) + "\n"
