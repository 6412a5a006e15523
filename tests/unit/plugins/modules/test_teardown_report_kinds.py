# -*- coding: utf-8 -*-
# teardown_report's path for any kind (kind, report, basename): one module run writes the files a role wrote with
# a task per format before - the same JSON as to_nice_json, the same Markdown and HTML as the report filters - each
# 0600, the folder created 0700; nothing in check mode; and the hosted-cluster options stay apart from it.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

import pytest

from ansible.module_utils.testing import patch_module_args
from ansible.plugins.filter.core import to_nice_json
from ansible_collections.teardown.gates.plugins.filter import report_page
from ansible_collections.teardown.gates.plugins.modules import teardown_report
from module_exit_double import Exit, Fail, no_exit  # noqa: F401  pylint: disable=unused-import

REPORT = {"role": "teardown.gates.release_prune", "started": "2026-01-01T10:00:00.000Z",
          "finished": "2026-01-01T10:00:20.000Z", "check_mode": False, "outcome": "pruned",
          "input": {"release_namespace": "apps", "timeout": 600}, "note": "caf\u00e9 \u2713",
          "waits": [{"name": "Releases of batch 1 gone", "state": "passed", "started": "2026-01-01T10:00:01.000Z",
                     "passed_at": "2026-01-01T10:00:11.000Z", "releases": []}]}


def run(**args):
    """(exited, result) of one teardown_report run with ``args``."""
    with patch_module_args(args):
        with pytest.raises((Exit, Fail)) as e:
            teardown_report.main()
    return e.type is Exit, e.value.args[0]


def mode(path):
    return stat.S_IMODE(os.stat(str(path)).st_mode)


def read(path):
    with open(str(path)) as f:
        return f.read()


def test_one_run_writes_the_three_files_the_filters_would_have_written(tmp_path):
    folder = tmp_path / "reports"
    ok, res = run(kind="release_prune", report=REPORT, report_dir=str(folder), basename="release_prune-report")
    assert ok and res["changed"] is False
    base = str(folder / "release_prune-report")
    assert res["files"] == {"json": base + ".json", "md": base + ".md", "html": base + ".html"}
    assert read(base + ".json") == to_nice_json(REPORT) + "\n"
    assert read(base + ".md") == report_page.report_markdown(REPORT, "release_prune")
    assert read(base + ".html") == report_page.report_html(REPORT, "release_prune")
    assert mode(folder) == 0o700 and all(mode(p) == 0o600 for p in res["files"].values())
    assert sorted(os.listdir(str(folder))) == ["release_prune-report.html", "release_prune-report.json",
                                               "release_prune-report.md"]


def test_a_rerun_replaces_the_files_in_an_existing_folder_and_leaves_its_mode(tmp_path):
    tmp_path.chmod(0o755)
    run(kind="cfn", report=dict(REPORT, outcome="first"), report_dir=str(tmp_path), basename="cfn_refusals-report")
    ok, res = run(kind="cfn", report=REPORT, report_dir=str(tmp_path), basename="cfn_refusals-report")
    assert ok and read(res["files"]["json"]) == to_nice_json(REPORT) + "\n"
    assert mode(tmp_path) == 0o755 and len(os.listdir(str(tmp_path))) == 3


def test_check_mode_writes_nothing_and_still_names_the_files(tmp_path):
    ok, res = run(kind="held_deletion", report=REPORT, report_dir=str(tmp_path / "r"), basename="held-deletion-ns-1",
                  _ansible_check_mode=True)
    assert ok and res["files"]["json"] == str(tmp_path / "r" / "held-deletion-ns-1.json")
    assert not (tmp_path / "r").exists()


def test_a_format_the_role_drew_is_written_as_given_and_only_the_asked_formats_are_written(tmp_path):
    ok, res = run(kind="orphan_sweep", report={"kind": "orphan-sweep"}, report_dir=str(tmp_path),
                  basename="orphan-sweep-1", formats=["json", "md"], rendered={"md": "# Orphan sweep\n"})
    assert ok and sorted(res["files"]) == ["json", "md"]
    assert read(res["files"]["md"]) == "# Orphan sweep\n"
    assert sorted(os.listdir(str(tmp_path))) == ["orphan-sweep-1.json", "orphan-sweep-1.md"]


@pytest.mark.parametrize("args, words", [
    (dict(kind="prune"), "unknown teardown kind 'prune'"),
    (dict(kind="orphan_sweep"), "has no report page; those that do: .*: give its md and html in rendered"),
    (dict(kind="cfn", basename="../elsewhere"), "basename must be a file name without a folder"),
    (dict(kind="cfn", formats=["json"], rendered={"md": "x"}), "rendered gives md, which formats does not ask for"),
    (dict(kind="cfn", cluster={"namespace": "c", "name": "a"}), "mutually exclusive: cluster|kind"),
    (dict(kind="cfn", baseline={"a": 1}), "mutually exclusive: baseline|kind"),
    (dict(kind=None, basename=None, report=None), "one of the following is required: cluster, kind"),
    (dict(basename=None), "parameters are required together: kind, report, basename"),
])
def test_bad_input_names_what_is_wrong_and_writes_nothing(tmp_path, args, words):
    full = dict(kind="cfn", report=REPORT, report_dir=str(tmp_path / "r"), basename="cfn_refusals-report")
    full.update(args)
    ok, res = run(**dict((k, v) for k, v in full.items() if v is not None))
    assert not ok and pytest.importorskip("re").search(words, res["msg"]), res["msg"]
    assert not (tmp_path / "r").exists()


def test_the_hosted_cluster_report_is_unchanged_by_the_kind_options(tmp_path):
    ok, res = run(report_dir=str(tmp_path), cluster={"namespace": "clusters", "name": "demo"})
    assert ok and res["json_path"] == str(tmp_path / "clusters-demo.json") and "files" not in res
    assert os.path.exists(res["html_path"]) and os.path.exists(res["index_path"])
