# -*- coding: utf-8 -*-
"""drivers/teardown_report.py: the input rule and the archive name as plain functions."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.teardown.gates.plugins.module_utils.drivers import teardown_report as R


def test_the_input_rules_as_the_module_words_them():
    assert R.input_error({"cluster": {"namespace": "c", "name": "a"}, "report_dir": "/r"}) is None
    assert R.input_error({"cluster": {"name": "a"}, "report_dir": "/r"}).startswith("cluster.namespace is required")
    assert R.input_error({"cluster": {"namespace": "c", "name": "a"}, "report_dir": " "}) == "report_dir must not be empty"


def test_an_earlier_report_is_archived_under_its_finish_time_then_numbered(tmp_path):
    base = str(tmp_path / "c-a")
    with open(base + ".json", "w") as f:
        json.dump({"milestones": {"finished": "2026-11-29T21:39:53.875Z"}}, f)
    first = R.archive_path(base, base + ".json")
    assert first == base + ".20261129T213953.875Z.json"
    open(first, "w").close()
    assert R.archive_path(base, base + ".json") == base + ".20261129T213953.875Z-1.json"
