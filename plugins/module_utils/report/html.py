# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report as one self-contained HTML page: an SVG Gantt of the timeline, then the lists. Pure, no I/O.

No external URL and no script: the page is read where it is opened (a laptop at 2 a.m., an AWX artifact, a
post-mortem's attachment). Each bar is an SVG rect whose x and width are the row's seconds times one scale, and
carries data-* attributes with the seconds, so a test reads the geometry from the DOM without computing layout.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from ansible_collections.teardown.gates.plugins.module_utils.report import timeline as tl
from ansible_collections.teardown.gates.plugins.module_utils.kinds import drawing, registry

WIDTH = 1100
LABEL_W = 270
LEFT = LABEL_W + 10
RIGHT = WIDTH - 20
TOP = 40
ROW_H = 26
NOTE_H = 14
STEPS = (0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400)

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;max-width:1140px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:22px 0 6px;border-bottom:1px solid #d8dce3}
.result{display:inline-block;padding:3px 10px;border-radius:4px;font-weight:600;color:#fff}
.ok{background:#1f7a3f}.warn{background:#b35c00}.bad{background:#b3261e}.plan{background:#4a5568}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d8dce3;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f3f5f8}code{font-size:12px}ul{margin:4px 0 4px 18px;padding:0}
svg{display:block;background:#fff;border:1px solid #d8dce3}svg text{font:12px system-ui,sans-serif;fill:#1d2330}
svg .note{font-size:11px;fill:#4a5568}svg .axis{font-size:11px;fill:#4a5568}svg .section{font-weight:700}
svg .grid{stroke:#eceff3}svg .ms{stroke:#2b4acb;stroke-dasharray:4 3}svg text.mslabel{fill:#2b4acb;font-size:11px}
.bar{fill:#3b82c4}.bar.closed{fill:#1f7a3f}.bar.open{fill:url(#open);stroke:#b3261e;stroke-width:1.5}
.bar.span{fill:#9aa5b8}.bar.failed{fill:url(#open);stroke:#b3261e}.tick{stroke:#1f7a3f;stroke-width:2}
.mark{fill:#f2b705;stroke:#1d2330;stroke-width:.8}.mark.refused{fill:#b3261e;stroke:#b3261e;stroke-width:1.5}svg text.open{fill:#b3261e;font-weight:700}
#fleet td{white-space:nowrap}.legend span{display:inline-block;margin-right:16px}.sw{display:inline-block;width:14px;height:10px;
margin-right:5px;vertical-align:middle}
"""


_e = drawing.esc


def _fmt_s(s):
    if s is None:
        return "-"
    if s < 10:
        return "%.2f s" % s
    if s < 120:
        return "%.1f s" % s
    return "%dm%02ds" % (int(s) // 60, int(round(s)) % 60)


def layout(ch):
    """Scale (pixels per second) and the rows' vertical places: what the SVG and its tests share."""
    span = max(ch["t1"] - ch["t0"], 0.001)
    scale = (RIGHT - LEFT) / span
    y, places, section = TOP, [], None
    for r in ch["rows"]:
        if r["section"] != section:
            section = r["section"]
            y += 18
        places.append(y)
        y += ROW_H + (NOTE_H if r["note"] and (r["open"] or r["section"] not in ("Gates",)) else 0)
    return scale, places, y + 28


def _x(ch, scale, t):
    return LEFT + (t - ch["t0"]) * scale


def render_svg(ch):
    scale, places, height = layout(ch)
    head = (WIDTH, height, WIDTH, height, scale, ch["t0"], _e(ch["title"]))
    out = ['<svg xmlns="http://www.w3.org/2000/svg" id="timeline" width="%d" height="%d" viewBox="0 0 %d %d" '
           'data-scale="%.6f" data-t0="%.3f" role="img" aria-label="%s">' % head,
           '<defs><pattern id="open" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
           '<rect width="8" height="8" fill="#f9d4d1"/><line x1="0" y1="0" x2="0" y2="8" stroke="#b3261e" '
           'stroke-width="3"/></pattern></defs>']
    span = ch["t1"] - ch["t0"]
    step = next((s for s in STEPS if span / s <= 10), STEPS[-1])
    k = 0
    while k * step <= span + 1e-9:
        x = _x(ch, scale, ch["t0"] + k * step)
        out.append('<line class="grid" x1="%.2f" y1="%d" x2="%.2f" y2="%d"/>' % (x, TOP, x, height - 22))
        label = ("+%gs" % (k * step)) if step < 60 else "+%dm%02ds" % (k * step // 60, k * step % 60)
        out.append('<text class="axis" x="%.2f" y="%d" text-anchor="middle">%s</text>' % (x, height - 8, label))
        k += 1
    section = None
    for i, (r, y) in enumerate(zip(ch["rows"], places)):
        if r["section"] != section:
            section = r["section"]
            out.append('<text class="section" x="8" y="%d">%s</text>' % (y - 5, _e(section)))
        out.append('<text x="16" y="%d">%s</text>' % (y + 15, _e(_clip(r["label"], 40))))
        if r["start"] is None:
            out.append('<text class="note" x="%d" y="%d">%s</text>' % (LEFT + 4, y + 15, _e(r["note"] or r["state"])))
            continue
        seconds = max((r["end"] if r["end"] is not None else r["start"]) - r["start"], 0.0)
        x, w = _x(ch, scale, r["start"]), seconds * scale
        kind = "open" if r["open"] else ("closed" if r["state"] in tl.CLOSED else
                                         ("span" if r["state"] == "span" else "other"))
        out.append('<rect class="bar %s" x="%.3f" y="%d" width="%.3f" height="16" data-row="%d" data-section="%s" '
                   'data-label="%s" data-state="%s" data-seconds="%.3f" data-open="%s"><title>%s: %s, %s</title></rect>'
                   % (kind, x, y + 3, w, i, _e(r["section"]), _e(r["label"]), _e(r["state"]), seconds,
                      "true" if r["open"] else "false", _e(r["label"]), _e(r["state"]), _fmt_s(seconds)))
        if w < 2:  # too short to see: a tick shows where it was, the rect keeps the true width
            out.append('<line class="tick" x1="%.2f" y1="%d" x2="%.2f" y2="%d"/>' % (x, y + 1, x, y + 21))
        for m in r["marks"]:
            mx = _x(ch, scale, m["at"])
            if m.get("kind") == "refused":  # a delete refused while a blocker went away: a red notch
                shape = "M%.2f %d l4 -5 l-8 0 z M%.2f %d l0 16" % (mx, y + 3, mx, y + 3)
            else:  # the first terminating observation: a diamond
                shape = "M%.2f %d l5 6 l-5 6 l-5 -6 z" % (mx, y + 5)
            out.append('<path class="mark %s" d="%s" data-row="%d" data-at="%.3f"><title>%s</title></path>' % (
                _e(m.get("kind") or "event"), shape, i, m["at"], _e(m["label"])))
        tag = ("OPEN " if r["open"] else "") + _fmt_s(seconds)
        tx = x + w + 6
        anchor = "start"
        if tx + 8 * len(tag) > RIGHT:
            tx, anchor = x - 6, "end"
        out.append('<text class="%s" x="%.2f" y="%d" text-anchor="%s">%s</text>' % (
            "open" if r["open"] else "dur", tx, y + 15, anchor, _e(tag)))
        if r["note"] and (r["open"] or r["section"] != "Gates"):
            cw = 7.0 if r["open"] else 6.2  # about the width of one character (bold for an open row), in px
            note = _clip(r["note"], int((RIGHT - 16) / cw))
            nx = max(min(x, RIGHT - cw * len(note)), 16.0)
            out.append('<text class="note%s" x="%.2f" y="%d">%s</text>' % (
                " open" if r["open"] else "", nx, y + 15 + NOTE_H, _e(note)))
    last, level = None, 0
    for m in sorted(ch["milestones"], key=lambda m: m["at"]):
        x = _x(ch, scale, m["at"])
        level = (1 - level) if last is not None and x - last < 130 else 0  # near labels take turns, not overlap
        last = x
        out.append('<line class="ms" x1="%.2f" y1="%d" x2="%.2f" y2="%d" data-milestone="%s" data-at="%.3f"/>' % (
            x, 4 + 13 * level, x, height - 22, _e(m["label"]), m["at"]))
        anchor = "end" if x > RIGHT - 100 else "start"
        out.append('<text class="mslabel" x="%.2f" y="%d" text-anchor="%s">%s</text>' % (
            x + (-3 if anchor == "end" else 3), 12 + 13 * level, anchor, _e(m["label"])))
    out.append("</svg>")
    return "\n".join(out)


def _clip(text, n):
    text = str(text)
    return text if len(text) <= n else text[:n - 1] + "\u2026"


LEGEND = ('<p class="legend"><span><i class="sw" style="background:#1f7a3f"></i>passed / deleted</span>'
          '<span><i class="sw" style="background:#f9d4d1;border:1px solid #b3261e"></i>open: what it waits for had '
          'not happened when the run ended</span><span><i class="sw" style="background:#f2b705"></i>first '
          'observed terminating</span><span><i class="sw" style="background:#b3261e;width:3px"></i>delete refused, '
          'waiting on a blocker</span><span><i class="sw" style="border-left:2px dashed #2b4acb"></i>milestone'
          '</span></p>')


_list = drawing.html_list
_table = drawing.html_table
_id = drawing.aws_id

# each kind's report body is its kind file's body(report) (kinds/); the old names stay readable here
BODIES = dict((name, registry.page_kind(name).body) for name in registry.page_kinds())
hosted_cluster_body = BODIES["hosted_cluster"]


def verdict(report, kind):
    """(css class, words) for the page's headline: only what the report observed (the kind file's verdict)."""
    if report.get("check_mode"):
        return "plan", "check mode: plan only, nothing changed"
    return registry.by_name(kind).verdict(report)


def render_html(report, kind=None):
    ch = tl.chart(report, kind)
    cls, words = verdict(report, ch["kind"])
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>%s</title>" % _e(ch["title"]), "<style>%s</style></head><body>" % CSS,
        "<h1>%s</h1>" % _e(ch["title"]),
        '<p>Result: <span class="result %s" id="result">%s</span> &nbsp; from %s, %s in all</p>' % (
            cls, _e(words), _e(_iso(ch["t0"])), _fmt_s(ch["t1"] - ch["t0"])),
        render_svg(ch), LEGEND, registry.page_kind(ch["kind"]).body(report),
        "<p><small>Drawn from the JSON report alone: the Markdown report's Mermaid chart shows the same rows."
        "</small></p>", "</body></html>", ""])


def render_markdown(report, kind=None):
    """A short Markdown report for the roles that wrote only JSON: the verdict and the timeline as Mermaid."""
    ch = tl.chart(report, kind)
    words = verdict(report, ch["kind"])[1]
    return "# %s\n\n**Result: %s**\n\n## Timeline\n\n%s\nThe whole report is the JSON file of the same name; the " \
        "HTML page next to it draws the same timeline.\n" % (ch["title"], words, tl.render_mermaid(ch))


def _iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


# ---------------------------------------------------------------------------------------------- the fleet page
def fleet_rows(reports):
    """One row per hosted-cluster report, worst first: not finished, finished but not verified, check mode,
    verified; then more remaining first, then longer first. ``reports`` is [(html file name, report)]."""
    rows = []
    for href, r in reports:
        c = r.get("cluster") or {}
        ms = r.get("milestones") or {}
        dur = tl.epoch(ms.get("finished")), tl.epoch(ms.get("started"))
        seconds = dur[0] - dur[1] if None not in dur else None
        if r.get("check_mode"):
            rank = 2
        else:
            rank = 3 if r.get("verified") else (1 if r.get("command_succeeded") else 0)
        remaining = r.get("remaining") or []
        rows.append({"cluster": "%s/%s" % (c.get("namespace"), c.get("name")), "href": href, "rank": rank,
                     "verdict": verdict(r, "hosted_cluster"), "seconds": seconds,  # the stop is a column of its own
                     "remaining": [x.get("id") or x.get("what") for x in remaining],
                     "stopped_at": (r.get("stopped") or {}).get("gate"), "finished": ms.get("finished")})
    rows.sort(key=lambda x: (x["rank"], -len(x["remaining"]), -(x["seconds"] or 0), x["cluster"]))
    return rows


def render_index(reports):
    rows = fleet_rows(reports)
    bad = sum(1 for r in rows if r["rank"] < 2)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8"><title>Teardown reports</title>',
           "<style>%s</style></head><body>" % CSS, "<h1>Teardown reports: %d clusters, %d not verified</h1>" % (
               len(rows), bad),
           '<table id="fleet"><tr><th>cluster</th><th>result</th><th>duration</th><th>remaining</th>'
           '<th>stopped at</th><th>finished</th></tr>']
    for r in rows:
        rem = r["remaining"]
        # nothing listed is only "none" when verified: a run that did not verify does not know
        rem_text = "none" if r["rank"] == 3 else "unknown: not verified"
        if rem:
            rem_text = "%d: %s%s" % (len(rem), ", ".join(str(x) for x in rem[:3]), ", \u2026" if len(rem) > 3 else "")
        out.append('<tr data-rank="%d"><td><a href="%s">%s</a></td><td><span class="result %s">%s</span></td>'
                   "<td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
                       r["rank"], _e(r["href"]), _e(r["cluster"]), r["verdict"][0], _e(r["verdict"][1].split(" (stopped at")[0]),
                       _fmt_s(r["seconds"]), _e(rem_text), _e(r["stopped_at"]), _e(r["finished"])))
    out += ["</table>", "<p><small>Worst first: not finished, then finished but not verified, then check mode, "
            "then verified.</small></p>", "</body></html>", ""]
    return "\n".join(out)
