#!/usr/bin/env python
"""Where `make test`'s CPU went, by ansible-playbook run: the costliest runs and the sum per playbook file.

    run_costs.py DIR [--top N]

DIR holds the records of tests/coverage/callback_plugins/real_runs.py: each run's first playbook file (its
"playbook" event) and, at its end, its CPU and wall seconds (its "cost" event), both from one process.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_real_runs import read_dir  # noqa: E402  pylint: disable=wrong-import-position


def runs(records):
    """One row per process that ended a run: (cpu_s, wall_s, playbook, check, cwd)."""
    by_pid = collections.defaultdict(dict)
    for r in records:
        if r.get("event") == "playbook" and "playbook" not in by_pid[r.get("pid")]:
            files = r.get("files") or r.get("args") or ["?"]
            by_pid[r.get("pid")]["playbook"] = files[0]
        elif r.get("event") == "cost":
            by_pid[r.get("pid")].update(cost=r)
    rows = []
    for run in by_pid.values():
        cost = run.get("cost")
        if cost:
            rows.append((cost["cpu_s"], cost["wall_s"], run.get("playbook", "?"), cost.get("check"), cost.get("cwd")))
    return rows


def short(path):
    parts = path.split(os.sep)
    return os.sep.join(parts[-3:]) if len(parts) > 3 else path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("dir")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    records = read_dir(args.dir)[0]
    rows = runs(records)
    if not rows:
        print("run costs: no records with costs in %s" % args.dir)
        return 0
    print("run costs: %d playbook runs, %.0f CPU-s in all; the costliest (CPU-s, wall s, playbook, cwd):"
          % (len(rows), sum(r[0] for r in rows)))
    for cpu, wall, playbook, check, cwd in sorted(rows, reverse=True)[:args.top]:
        print("  %7.1f %7.1f  %s%s  (%s)" % (cpu, wall, short(playbook), " --check" if check else "", short(cwd or "?")))
    per = collections.defaultdict(lambda: [0, 0.0])
    for row in rows:
        per[short(row[2])][0] += 1
        per[short(row[2])][1] += row[0]
    print("run costs by playbook file (runs, CPU-s):")
    for playbook, (n, cpu) in sorted(per.items(), key=lambda kv: -kv[1][1])[:args.top]:
        print("  %4d %8.1f  %s" % (n, cpu, playbook))
    return 0


if __name__ == "__main__":
    sys.exit(main())
