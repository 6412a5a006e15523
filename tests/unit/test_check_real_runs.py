"""tests/coverage/check_real_runs.py, the meta-test of issue 36: which records make a real run of a module or of a
playbook, and what the checker prints and exits with when one is missing."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import importlib.util
import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKER = os.path.join(REPO, "tests", "coverage", "check_real_runs.py")
_spec = importlib.util.spec_from_file_location("check_real_runs", CHECKER)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


def task(module, check_mode=False, status="ok"):
    return {"event": "task", "action": "teardown.gates." + module, "check": check_mode, "status": status}


def play(path, check_mode=False):
    return {"event": "play", "file": path, "check": check_mode}


def test_a_module_runs_for_real_only_outside_check_mode_and_neither_skipped_nor_failed():
    assert check.task_kind(task("m")) == "real"
    assert check.task_kind(task("m", status="changed")) == "real"
    assert check.task_kind(task("m", check_mode=True)) == "check mode"
    assert check.task_kind(task("m", check_mode=True, status="changed")) == "check mode"
    assert check.task_kind(task("m", check_mode=None)) == "check mode unknown"
    assert check.task_kind(task("m", status="skipped")) == "skipped"
    assert check.task_kind(task("m", status="failed")) == "failed"
    assert check.task_kind(dict(task("m", status="failed"), ignore_errors=True)) == "failed"
    assert check.task_kind(task("m", status="unreachable")) == "failed"


def test_a_playbook_is_its_file_in_a_folder_named_playbooks_wherever_that_is():
    assert check.playbook_name("/work/main/playbooks/prune_releases.yml") == "prune_releases"
    installed = "/tmp/x/ansible_collections/teardown/gates/playbooks/sweep_orphans.yml"
    assert check.playbook_name(installed) == "sweep_orphans"
    assert check.playbook_name("/tmp/job/node/project/playbooks/clear_cfn_refusals.yaml") == "clear_cfn_refusals"
    assert check.playbook_name("/work/main/tests/integration/targets/release_prune/prune.yml") is None
    assert check.playbook_name("/work/main/playbooks/notes.md") is None
    assert check.playbook_name(None) is None
    assert check.playbook_name("") is None


def test_everything_ran_for_real():
    records = [task("a"), task("b", status="changed"), play("/r/playbooks/p.yml"), play("/r/playbooks/q.yml")]
    lines, missing = check.judge(["a", "b"], ["p", "q"], records)
    assert not missing
    assert lines == ["real runs: 2/2 modules, 2/2 playbooks"]


def test_each_missing_one_is_named_with_what_the_records_hold_instead():
    records = [
        task("a"),
        task("b", check_mode=True), task("b", check_mode=True), task("b", status="skipped"),
        task("c", status="failed"),
        play("/r/playbooks/p.yml"),
        play("/r/playbooks/q.yml", check_mode=True),
        {"event": "task", "action": "ansible.builtin.command", "check": False, "status": "ok"},
        {"event": "playbook", "files": ["/r/playbooks/q.yml"], "check": False},
    ]
    lines, missing = check.judge(["a", "b", "c", "d"], ["p", "q", "r"], records)
    assert missing
    assert lines == [
        "missing: module teardown.gates.b has no real run (outside check mode, neither skipped nor failed); "
        "recorded: 2 check mode, 1 skipped",
        "missing: module teardown.gates.c has no real run (outside check mode, neither skipped nor failed); "
        "recorded: 1 failed",
        "missing: module teardown.gates.d has no real run (outside check mode, neither skipped nor failed); never ran",
        "missing: playbook playbooks/q.yml has no run outside check mode; recorded: 1 check mode",
        "missing: playbook playbooks/r.yml has no run outside check mode; never ran",
        "real runs: 1/4 modules, 1/3 playbooks",
    ]


def test_one_real_run_among_check_runs_is_enough():
    records = [task("a", check_mode=True), task("a"), play("/r/playbooks/p.yml", True), play("/r/playbooks/p.yml")]
    assert check.judge(["a"], ["p"], records) == (["real runs: 1/1 modules, 1/1 playbooks"], False)


def test_a_line_cut_by_a_killed_process_is_skipped_and_counted():
    good = json.dumps(task("a"))
    records, bad = check.parse_lines([good + "\n", '{"event": "task", "act', "\n", "[1]\n"])
    assert records == [task("a")]
    assert bad == 2


def test_main_reads_every_record_file_and_exits_1_naming_what_is_missing(tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / "plugins" / "modules").mkdir(parents=True)
    (repo / "playbooks").mkdir()
    for name in ("__init__.py", "a.py", "b.py"):
        (repo / "plugins" / "modules" / name).write_text("")
    (repo / "playbooks" / "p.yml").write_text("")
    records = tmp_path / "records"
    records.mkdir()
    (records / "real-runs-1.jsonl").write_text(json.dumps(task("a")) + "\n")
    (records / "real-runs-2.jsonl").write_text(json.dumps(play(str(repo / "playbooks" / "p.yml"))) + "\n")
    (records / "other.jsonl").write_text(json.dumps(task("b")) + "\n")  # not a record file
    assert check.main([str(records), "--repo", str(repo)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "real runs: 1/2 modules, 1/1 playbooks"
    assert out[0].startswith("missing: module teardown.gates.b ")
    (records / "real-runs-3.jsonl").write_text(json.dumps(task("b", status="changed")) + "\n")
    assert check.main([str(records), "--repo", str(repo)]) == 0
    assert capsys.readouterr().out.splitlines() == ["real runs: 2/2 modules, 1/1 playbooks"]


def test_main_without_records_says_where_it_looked(tmp_path, capsys):
    assert check.main([str(tmp_path / "none"), "--repo", REPO]) == 1
    out = capsys.readouterr().out
    assert "no records in" in out and "real runs: 0/" in out


def test_the_collection_lists_its_modules_and_playbooks():
    modules, playbooks = check.expected(REPO)
    assert "finalizer" in modules and "__init__" not in modules
    assert "destroy_hosted_cluster" in playbooks
