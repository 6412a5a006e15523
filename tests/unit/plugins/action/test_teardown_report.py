# -*- coding: utf-8 -*-
# teardown_report's action plugin: the task runs in the controller's worker, with the module's argument spec and
# messages, its check mode, its files and its result keys - the same as the module's main() and the driver give.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import stat
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args
from ansible_collections.teardown.gates.plugins.action.teardown_report import ActionModule
from ansible_collections.teardown.gates.plugins.module_utils.drivers import teardown_report as driver
from ansible_collections.teardown.gates.plugins.modules import teardown_report as module

ACTION = "teardown.gates.teardown_report"
CLUSTER = {"namespace": "clusters", "name": "demo", "uid": "0b5c", "infra_id": "demo-x7k2p"}
# a finish time given, so that two runs build the same report
MILESTONES = {"started": "2026-01-01T10:00:00.000Z", "finished": "2026-01-01T10:05:00.000Z",
              "command_succeeded": True}
KIND_REPORT = {"role": "teardown.gates.release_prune", "started": "2026-01-01T10:00:00.000Z",
               "finished": "2026-01-01T10:00:20.000Z", "check_mode": False, "outcome": "pruned", "waits": []}


class Exit(Exception):
    pass


class Fail(Exception):
    pass


def act(args, check_mode=False, task_vars=None):
    """The action plugin's result for one task with ``args``."""
    task = SimpleNamespace(args=args, action=ACTION, check_mode=check_mode, async_val=0)
    plugin = ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), None)
    return plugin.run(task_vars=task_vars if task_vars is not None else {})


def module_run(args, monkeypatch, check_mode=False):
    """(exited, result) of the module's main() with ``args``, in this process."""
    def exit_json(self, **kw):
        raise Exit(kw)

    def fail_json(self, **kw):
        raise Fail(kw)
    monkeypatch.setattr(AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(AnsibleModule, "fail_json", fail_json)
    # the name Ansible gives a module run, as the action plugin names the task
    with patch_module_args(dict(args, _ansible_check_mode=check_mode, _ansible_module_name=ACTION)):
        with pytest.raises((Exit, Fail)) as e:
            module.main()
    return e.type is Exit, e.value.args[0]


def mode(path):
    return stat.S_IMODE(os.stat(str(path)).st_mode)


def files_under(folder):
    return sorted(os.listdir(str(folder))) if os.path.isdir(str(folder)) else []


@pytest.mark.parametrize("args, option", [
    (dict(cluster=CLUSTER), "report_dir"),
    (dict(report_dir="R", cluster="clusters/demo"), "cluster"),
    (dict(report_dir="R", cluster=CLUSTER, gates="not a list of dicts"), "gates"),
    (dict(report_dir="R", cluster=CLUSTER, namespace_retained="perhaps"), "namespace_retained"),
    (dict(report_dir="R", cluster=CLUSTER, colour="blue"), "colour"),
    (dict(report_dir="R", kind="cfn", report=KIND_REPORT, basename="b", formats=["pdf"]), "formats"),
    (dict(report_dir="R", kind="cfn", report=KIND_REPORT, basename="b", cluster=CLUSTER), "cluster|kind"),
    (dict(report_dir="R", kind="cfn", report=KIND_REPORT, basename="b", baseline={"a": 1}), "baseline|kind"),
    (dict(report_dir="R"), "cluster, kind"),
    (dict(report_dir="R", kind="cfn", report=KIND_REPORT), "kind, report, basename"),
    (dict(report_dir="R", kind="prune", report=KIND_REPORT, basename="b"), "prune"),
    (dict(report_dir="R", kind="cfn", report=KIND_REPORT, basename="../b"), "basename"),
    (dict(report_dir="R", cluster={"name": "demo"}), "cluster.namespace"),
    (dict(report_dir=" ", cluster=CLUSTER), "report_dir"),
])
def test_bad_input_fails_naming_the_option_as_the_module_does_and_writes_nothing(tmp_path, monkeypatch, args,
                                                                                 option):
    args = dict((k, str(tmp_path / "r") if v == "R" else v) for k, v in args.items())
    res = act(args)
    assert res["failed"] is True and option in res["msg"], res
    assert not (tmp_path / "r").exists()
    ok, expected = module_run(args, monkeypatch)
    assert not ok and res["msg"] == expected["msg"]


def test_an_unknown_option_is_named_with_the_task_s_action(tmp_path):
    res = act(dict(report_dir=str(tmp_path), cluster=CLUSTER, colour="blue"))
    assert res["msg"].startswith("Unsupported parameters for (teardown.gates.teardown_report) module: colour")


@pytest.mark.parametrize("args", [
    dict(cluster=CLUSTER, milestones=MILESTONES),
    dict(cluster=CLUSTER, baseline={"manifest": {"vpc": ["vpc-1"]}}),
    dict(kind="release_prune", report=KIND_REPORT, basename="release_prune-report"),
])
def test_check_mode_writes_nothing_and_returns_what_the_module_returns(tmp_path, monkeypatch, args):
    args = dict(args, report_dir=str(tmp_path / "r"))
    res = act(args, check_mode=True)
    assert not (tmp_path / "r").exists()
    assert "failed" not in res and res["changed"] is False
    ok, expected = module_run(args, monkeypatch, check_mode=True)
    assert ok and not (tmp_path / "r").exists()
    assert res == expected


def test_a_cluster_report_writes_its_files_and_returns_the_module_s_result(tmp_path, monkeypatch):
    folder = tmp_path / "reports"
    args = dict(report_dir=str(folder), cluster=CLUSTER, milestones=MILESTONES)
    res = act(args)
    base = str(folder / "clusters-demo")
    assert (res["json_path"], res["markdown_path"], res["html_path"], res["index_path"]) == \
        (base + ".json", base + ".md", base + ".html", str(folder / "index.html"))
    assert files_under(folder) == [".index.lock", "clusters-demo.html", "clusters-demo.json", "clusters-demo.md",
                                   "index.html"]
    with open(base + ".json") as f:
        assert json.load(f) == res["report"]
    assert mode(folder) == 0o700 and mode(base + ".json") == 0o600 and res["archived"] is None
    # the module's main() on a second folder: the same keys and values, its paths aside
    other = tmp_path / "module"
    ok, expected = module_run(dict(args, report_dir=str(other)), monkeypatch)
    assert ok and files_under(other) == files_under(folder)
    assert json.loads(json.dumps(res).replace(str(folder), str(other))) == expected


def test_a_second_report_archives_the_first(tmp_path):
    args = dict(report_dir=str(tmp_path), cluster=CLUSTER, milestones=MILESTONES)
    act(args)
    res = act(args)
    assert res["archived"] == str(tmp_path / "clusters-demo.20260101T100500.000Z.json")
    assert os.path.isfile(res["archived"])


def test_the_baseline_is_stored_as_the_module_stores_it(tmp_path, monkeypatch):
    args = dict(report_dir=str(tmp_path / "a"), cluster=CLUSTER, baseline={"manifest": {"vpc": ["vpc-1"]}})
    res = act(args)
    ok, expected = module_run(dict(args, report_dir=str(tmp_path / "m")), monkeypatch)
    assert res == {"changed": False, "baseline_path": str(tmp_path / "a" / "clusters-demo.baseline.json")}
    assert ok and expected == {"changed": False, "baseline_path": str(tmp_path / "m" / "clusters-demo.baseline.json")}
    with open(res["baseline_path"]) as f, open(expected["baseline_path"]) as g:
        assert f.read() == g.read() == '{\n  "manifest": {\n    "vpc": [\n      "vpc-1"\n    ]\n  }\n}\n'
    assert mode(res["baseline_path"]) == 0o600


def test_a_kind_report_writes_its_files_and_returns_the_driver_s_result(tmp_path):
    args = dict(report_dir=str(tmp_path), kind="release_prune", report=KIND_REPORT, basename="release_prune-report",
                formats=["json", "md"], rendered={"md": "# mine\n"})
    res = act(args)
    params = dict((k, v.get("default")) for k, v in driver.argument_spec().items())
    params.update(args)
    assert res == driver.run(params, check_mode=True)  # the driver's keys and values (check mode: no second write)
    assert res["files"] == {"json": str(tmp_path / "release_prune-report.json"),
                            "md": str(tmp_path / "release_prune-report.md")}
    assert files_under(tmp_path) == ["release_prune-report.json", "release_prune-report.md"]
    with open(res["files"]["md"]) as f:
        assert f.read() == "# mine\n"


def test_a_relative_report_dir_is_under_the_playbook_s_folder_and_returned_as_given(tmp_path, monkeypatch):
    # a module run with connection local works in the playbook's folder: a relative report_dir went there
    monkeypatch.chdir(str(tmp_path))
    playbooks = tmp_path / "playbooks"
    playbooks.mkdir()
    res = act(dict(report_dir="reports", cluster=CLUSTER, milestones=MILESTONES),
              task_vars={"playbook_dir": str(playbooks)})
    assert res["json_path"] == "reports/clusters-demo.json" and res["index_path"] == "reports/index.html"
    assert "reports/clusters-demo.html" in res["outcome"]
    assert files_under(playbooks / "reports") == [".index.lock", "clusters-demo.html", "clusters-demo.json",
                                                  "clusters-demo.md", "index.html"]
    res = act(dict(report_dir="reports", cluster=CLUSTER, milestones=MILESTONES),
              task_vars={"playbook_dir": str(playbooks)})
    assert res["archived"] == "reports/clusters-demo.20260101T100500.000Z.json"
    assert os.path.isfile(str(playbooks / res["archived"]))
    res = act(dict(report_dir="kinds", kind="cfn", report=KIND_REPORT, basename="b", formats=["json"]),
              task_vars={"playbook_dir": str(playbooks)})
    assert res["files"] == {"json": "kinds/b.json"} and files_under(playbooks / "kinds") == ["b.json"]
    assert sorted(os.listdir(str(tmp_path))) == ["playbooks"]


def test_a_report_dir_under_home_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    res = act(dict(report_dir="~/reports", cluster=CLUSTER, baseline={"a": 1}))
    assert res["baseline_path"] == str(tmp_path / "reports" / "clusters-demo.baseline.json")
    assert os.path.isfile(res["baseline_path"])


def test_a_failed_write_fails_with_what_was_built(tmp_path, monkeypatch):
    (tmp_path / "taken").write_text("a file, not a folder")
    args = dict(report_dir=str(tmp_path / "taken"), cluster=CLUSTER, milestones=MILESTONES)
    res = act(args)
    assert res["failed"] is True and res["msg"].startswith("could not write the report under %s: " % args["report_dir"])
    assert res["summary"]["cluster"] and res["report"]["cluster"]["name"] == "demo"
    ok, expected = module_run(args, monkeypatch)
    assert not ok and expected == dict((k, res[k]) for k in ("msg", "report", "summary"))
    res = act(dict(report_dir=str(tmp_path / "taken"), kind="cfn", report=KIND_REPORT, basename="b"))
    assert res["failed"] is True and re.match("could not write the cfn report under ", res["msg"])
    assert res["files"]["json"] == str(tmp_path / "taken" / "b.json")


def test_the_task_s_arguments_are_not_changed(tmp_path):
    milestones = dict(MILESTONES)
    args = dict(report_dir=str(tmp_path), cluster=CLUSTER, milestones=milestones, gates=[{"name": "g"}])
    before = json.dumps(args, sort_keys=True)
    act(args)
    assert json.dumps(args, sort_keys=True) == before
