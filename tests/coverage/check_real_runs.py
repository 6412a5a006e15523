#!/usr/bin/env python
"""The meta-test of issue 36: every module and every playbook of the collection ran for real in `make test`.

    check_real_runs.py DIR [--repo REPO]

DIR holds the JSON lines that the recording callback (tests/coverage/callback_plugins/real_runs.py) wrote during the
run, one file per process. A module counts as run for real when a task of it ended ok or changed outside check mode
(skipped and failed ones do not count, nor ignored failures); a playbook of playbooks/ when a play of its file
started outside check mode (`ansible-playbook teardown.gates.<name>`, a path, or import_playbook; a copy of the
file in a folder named playbooks, as ansible-runner's project holds, counts too).

Prints a line per module or playbook without such a run, saying what the records hold for it instead, then
`real runs: M/M modules, P/P playbooks`. Exits 1 when something is missing, 0 otherwise.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import argparse
import glob
import json
import os
import sys

PREFIX = "teardown.gates."
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PLAYBOOK_EXTENSIONS = (".yml", ".yaml")


def expected(repo):
    """The collection's modules (plugins/modules/*.py) and playbooks (playbooks/*.yml), by name."""
    modules = sorted(os.path.splitext(os.path.basename(p))[0]
                     for p in glob.glob(os.path.join(repo, "plugins", "modules", "*.py"))
                     if os.path.basename(p) != "__init__.py")
    playbooks = sorted(os.path.splitext(os.path.basename(p))[0] for ext in PLAYBOOK_EXTENSIONS
                       for p in glob.glob(os.path.join(repo, "playbooks", "*" + ext)))
    return modules, playbooks


def parse_lines(lines):
    """The records in LINES (JSON objects), and how many lines could not be read (a process killed mid-line)."""
    records, bad = [], 0
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            bad += 1
    return records, bad


def read_dir(folder):
    """Every record of the record files in FOLDER: (records, unreadable lines, files read)."""
    files = sorted(glob.glob(os.path.join(folder, "real-runs-*.jsonl")))
    records, bad = [], 0
    for path in files:
        with open(path) as f:
            found, unreadable = parse_lines(f)
        records.extend(found)
        bad += unreadable
    return records, bad, len(files)


def playbook_name(path):
    """The playbook a play's file is, when that file is in a folder named playbooks: NAME of .../playbooks/NAME.yml."""
    if not path:
        return None
    folder, base = os.path.split(path)
    name, ext = os.path.splitext(base)
    if ext not in PLAYBOOK_EXTENSIONS or os.path.basename(folder) != "playbooks":
        return None
    return name


def task_kind(record):
    """What a task record shows: 'real', or why it is not a real run."""
    check = record.get("check")
    if check is True:
        return "check mode"
    if check is not False:
        return "check mode unknown"
    status = record.get("status")
    if status in ("ok", "changed"):
        return "real"
    if status == "skipped":
        return "skipped"
    return "failed"  # failed (ignored or not) or unreachable


def tally(records):
    """{module name: {kind: count}} from the task records, {playbook name: {kind: count}} from the play records."""
    modules, playbooks = {}, {}
    for record in records:
        event = record.get("event")
        if event == "task":
            action = record.get("action") or ""
            if not action.startswith(PREFIX):
                continue
            counts = modules.setdefault(action[len(PREFIX):], {})
            kind = task_kind(record)
        elif event == "play":
            name = playbook_name(record.get("file"))
            if name is None:
                continue
            counts = playbooks.setdefault(name, {})
            kind = "real" if record.get("check") is False else "check mode"
        else:
            continue
        counts[kind] = counts.get(kind, 0) + 1
    return modules, playbooks


def _seen(counts):
    if not counts:
        return "never ran"
    return "recorded: " + ", ".join("%d %s" % (n, kind) for kind, n in sorted(counts.items()))


def judge(modules, playbooks, records):
    """(lines to print, whether something is missing): a line per module or playbook without a real run, then the
    summary line."""
    module_runs, playbook_runs = tally(records)
    lines = []
    missing_modules = [m for m in modules if not module_runs.get(m, {}).get("real")]
    missing_playbooks = [p for p in playbooks if not playbook_runs.get(p, {}).get("real")]
    for m in missing_modules:
        lines.append("missing: module %s%s has no real run (outside check mode, neither skipped nor failed); %s"
                     % (PREFIX, m, _seen(module_runs.get(m))))
    for p in missing_playbooks:
        lines.append("missing: playbook playbooks/%s.yml has no run outside check mode; %s"
                     % (p, _seen(playbook_runs.get(p))))
    lines.append("real runs: %d/%d modules, %d/%d playbooks" % (
        len(modules) - len(missing_modules), len(modules), len(playbooks) - len(missing_playbooks), len(playbooks)))
    return lines, bool(missing_modules or missing_playbooks)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("dir", help="the folder of the real-runs-<pid>.jsonl records")
    parser.add_argument("--repo", default=REPO, help="the collection whose modules and playbooks must have run")
    args = parser.parse_args(argv)
    modules, playbooks = expected(args.repo)
    if not modules and not playbooks:
        print("real runs: no modules or playbooks under %s" % args.repo)
        return 2
    records, bad, files = read_dir(args.dir)
    if not files:
        print("real runs: no records in %s (is tests/coverage/callback_plugins in the callback plugin path, and "
              "TEARDOWN_GATES_REAL_RUNS_DIR set, where playbooks run?)" % args.dir)
    if bad:
        print("note: %d unreadable line(s) skipped in %s (a process killed while writing)" % (bad, args.dir))
    lines, missing = judge(modules, playbooks, records)
    print("\n".join(lines))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
