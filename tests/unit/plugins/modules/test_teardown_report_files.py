# -*- coding: utf-8 -*-
# teardown_report's file writes: a missing report_dir is created 0700 on a first run (for the baseline
# as for the report), each file is written 0600 by a rename, and a failed write leaves no temporary file.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.drivers import teardown_report as T


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_missing_folder_is_created_private_and_the_file_is_private(tmp_path):
    path = tmp_path / "reports" / "deeper" / "clusters-hc1.baseline.json"
    T._atomic_write(str(path), '{"a": 1}\n')
    assert path.read_text() == '{"a": 1}\n'
    assert mode(str(tmp_path / "reports" / "deeper")) == 0o700 and mode(str(path)) == 0o600


def test_a_rewrite_replaces_the_file_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "clusters-hc1.json"
    T._atomic_write(str(path), "first\n")
    T._atomic_write(str(path), "second\n")
    assert path.read_text() == "second\n"
    assert sorted(os.listdir(str(tmp_path))) == ["clusters-hc1.json"]


def test_a_failed_write_removes_its_temporary_file(tmp_path, monkeypatch):
    def refuse(src, dst):
        raise OSError("read-only file system")
    monkeypatch.setattr(T.os, "rename", refuse)
    with pytest.raises(OSError):
        T._atomic_write(str(tmp_path / "clusters-hc1.json"), "text\n")
    assert os.listdir(str(tmp_path)) == []


def test_the_index_lists_the_cluster_reports_only_worst_first(tmp_path):
    import json
    import re
    fixtures = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
    for name in ("report-verified.json", "report-stopped.json"):
        with open(os.path.join(fixtures, name)) as f:
            doc = json.load(f)
        base = "%s-%s" % (doc["cluster"]["namespace"], doc["cluster"]["name"])
        T._atomic_write(str(tmp_path / (base + ".json")), json.dumps(doc))
        # an archived report, a baseline and someone else's JSON are not rows
        T._atomic_write(str(tmp_path / (base + ".20261129T213953.875Z.json")), json.dumps(doc))
        T._atomic_write(str(tmp_path / (base + ".baseline.json")), json.dumps({"manifest": {}}))
    T._atomic_write(str(tmp_path / "release_prune-report.json"), json.dumps({"role": "x"}))
    T._atomic_write(str(tmp_path / "broken.json"), "{not json")
    path = T.write_index(str(tmp_path))
    with open(path) as f:
        page = f.read()
    assert re.findall(r'<a href="([^"]+)">', page) == ["clusters-stuck-213650.html", "clusters-demo-213650.html"]
    assert mode(path) == 0o600
