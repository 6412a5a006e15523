# -*- coding: utf-8 -*-
"""The report_html / report_mermaid / report_markdown filters: what the roles write next to their JSON reports."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.teardown.gates.plugins.filter import report_page as F

REPORT = {"role": "teardown.gates.release_prune", "started": "2026-01-01T10:00:00.000Z",
          "finished": "2026-01-01T10:00:20.000Z", "outcome": "pruned", "input": {"release_namespace": "apps"},
          "waits": [{"name": "Releases of batch 1 gone", "state": "passed", "started": "2026-01-01T10:00:01.000Z",
                     "passed_at": "2026-01-01T10:00:11.000Z", "releases": []}]}


def test_the_filters_are_registered():
    assert sorted(F.FilterModule().filters()) == ["report_html", "report_markdown", "report_mermaid"]


def test_the_page_and_the_gantt_show_the_same_batch():
    page = F.report_html(REPORT, "release_prune")
    assert page.startswith("<!DOCTYPE html>") and 'data-label="Releases of batch 1 gone"' in page
    assert 'data-seconds="10.000"' in page
    assert "Releases of batch 1 gone :done, r0, 1767261601000, 1767261611000" in F.report_mermaid(REPORT)
    assert "**Result: pruned**" in F.report_markdown(REPORT)


@pytest.mark.parametrize("value, kind, words", [
    ("not a dict", None, "must be a report dictionary"),
    (REPORT, "prune", "kind must be one of"),
])
def test_bad_input_names_what_is_wrong(value, kind, words):
    with pytest.raises(AnsibleFilterError, match=words):
        F.report_html(value, kind)
