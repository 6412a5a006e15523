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


def _params(**given):
    p = dict((k, v.get("default")) for k, v in R.argument_spec().items())
    p.update(given)
    return p


def test_run_returns_the_result_and_raises_the_collection_s_error_with_what_was_built(tmp_path):
    import pytest
    from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
    cluster = {"namespace": "c", "name": "a"}
    res = R.run(_params(report_dir=str(tmp_path), cluster=cluster), check_mode=False)
    assert res["changed"] is False and res["json_path"] == str(tmp_path / "c-a.json") and (tmp_path / "c-a.json").is_file()
    with pytest.raises(R.ReportError, match="cluster.name is required"):
        R.run(_params(report_dir=str(tmp_path), cluster={"namespace": "c"}), check_mode=False)
    (tmp_path / "file").write_text("x")
    with pytest.raises(TeardownGatesError) as e:
        R.run(_params(report_dir=str(tmp_path / "file"), cluster=cluster), check_mode=False)
    assert str(e.value).startswith("could not write the report under") and sorted(e.value.partial) == ["report", "summary"]


def test_a_relative_report_dir_is_written_under_cwd_and_returned_as_given(tmp_path):
    res = R.run(_params(report_dir="r", kind="cfn", report={"a": 1}, basename="b", formats=["json"]),
                check_mode=False, cwd=str(tmp_path))
    assert res == {"changed": False, "files": {"json": "r/b.json"}} and (tmp_path / "r" / "b.json").is_file()


def test_the_library_versions_are_those_the_libraries_give_and_a_missing_one_is_not_importable(monkeypatch):
    import boto3
    import botocore
    import kubernetes
    assert R._lib_versions() == {"python-kubernetes": kubernetes.__version__, "python-boto3": boto3.__version__,
                                 "python-botocore": botocore.__version__}
    import importlib.metadata
    import sys

    def unknown(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(importlib.metadata, "version", unknown)
    monkeypatch.setitem(sys.modules, "kubernetes", None)  # an import of it fails
    assert R._lib_versions() == {"python-kubernetes": "not importable", "python-boto3": boto3.__version__,
                                 "python-botocore": botocore.__version__}
