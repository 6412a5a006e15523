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

from ansible_collections.teardown.gates.plugins.module_utils.kinds import drawing, registry

# the row helpers live in kinds/drawing.py (the kind files draw with them); their old names stay readable here
epoch = drawing.epoch
gate_row = drawing.gate_row
aws_rows = drawing.aws_rows
phase_rows = drawing.phase_rows
_row = drawing.row
_finish = drawing.finish

CLOSED = registry.closed_states()


def chart(report, kind=None):
    """The chart of any of our reports; ``kind`` defaults to what the report's own fields say it is (the kind
    registry's ``of_report``), and each kind's file draws its own."""
    k = registry.of_report(report) if kind is None else registry.by_name(kind)
    return k.chart(report)


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
