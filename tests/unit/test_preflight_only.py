# -*- coding: utf-8 -*-
"""preflight_only ends every playbook the same way (#32 item 6): before_first_delete's last part,
tasks/permissions.yml, ends the play after the permission checks; main.yml runs its two parts, and no other role
ends a run for preflight_only nor sets a flag on the shared role to end it elsewhere."""
import pathlib

import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = REPO / "roles" / "before_first_delete" / "tasks"


def _tasks(path):
    return yaml.safe_load(path.read_text()) or []


def _ends_for_preflight_only(task):
    return task.get("ansible.builtin.meta") == "end_host" and "preflight_only" in str(task.get("when", ""))


def test_the_shared_role_ends_a_preflight_only_run_in_its_last_part_only():
    ends = [(path.name, task["name"]) for path in sorted(SHARED.glob("*.yml")) for task in _tasks(path)
            if _ends_for_preflight_only(task)]
    assert ends == [("permissions.yml", "Before the first delete | Stop here, nothing changed - preflight_only was asked")]
    assert _tasks(SHARED / "permissions.yml")[-1]["ansible.builtin.meta"] == "end_host"
    assert [t["ansible.builtin.import_tasks"] for t in _tasks(SHARED / "main.yml")] == ["target.yml", "permissions.yml"]


def test_no_other_role_ends_a_preflight_only_run_or_flags_the_shared_role():
    for path in sorted((REPO / "roles").glob("*/tasks/*.yml")):
        if path.parent == SHARED:
            continue
        text = path.read_text()
        assert "end_for_preflight_only" not in text, path
        assert not [t for t in _tasks(path) if isinstance(t, dict) and _ends_for_preflight_only(t)], path
