# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report_html, report_mermaid and report_markdown filters: a role's report dict as its HTML page, its
timeline as a Mermaid gantt, or a short Markdown report around that gantt."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.module_utils.report import html as page
from ansible_collections.teardown.gates.plugins.module_utils.report import timeline
from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry

KINDS = registry.page_kinds()


def _plain(report, kind, name):
    if not isinstance(report, dict):
        raise AnsibleFilterError("%s: the input must be a report dictionary, not %s" % (name, type(report).__name__))
    if kind is not None and kind not in KINDS:
        raise AnsibleFilterError("%s: kind must be one of %s, not %r" % (name, ", ".join(KINDS), kind))
    # drawn from the report as its JSON file holds it: the page and the JSON cannot differ
    return json.loads(json.dumps(report, default=str))


def report_html(report, kind=None):
    return page.render_html(_plain(report, kind, "report_html"), kind)


def report_markdown(report, kind=None):
    return page.render_markdown(_plain(report, kind, "report_markdown"), kind)


def report_mermaid(report, kind=None):
    return timeline.render_mermaid(timeline.chart(_plain(report, kind, "report_mermaid"), kind))


class FilterModule(object):
    def filters(self):
        return {"report_html": report_html, "report_mermaid": report_mermaid, "report_markdown": report_markdown}
