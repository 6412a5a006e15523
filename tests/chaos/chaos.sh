#!/usr/bin/env bash
# `make chaos`: the fault campaign (tests/chaos/run.py) against the sandbox, then (when its call is
# here) the interruption campaign (tests/chaos/interrupt.py).
# Starts the sandbox unless one runs (and then stops it again on exit); CHAOS_RUNS (default 150),
# CHAOS_SEED (default 42000; printed in the results), CHAOS_CASES, CHAOS_RATE, CHAOS_JOBS
# (runs at a time) and CHAOS_BUDGET_SCALE (the shared EC2 budget) pass through to run.py.
# The last line is `chaos: runs=N faults=F violations=V`, the sum over both campaigns: run.py's
# results/latest.json, plus results/interrupt-latest.json when this invocation wrote it (its runs are
# added to N, its kills counted as faults in F, its violations added to V). Exit status 1 when either
# campaign failed (a violation or a harness error). The line before it (stderr) also names the playbooks the
# concurrent case ran, with their counts (results/latest.json's concurrent_playbooks).
set -u
repo="$(cd "$(dirname "$0")/../.." && pwd)"
sandbox="$repo/tests/sandbox/sandbox"
py="$repo/.venv/bin/python"
results="$repo/tests/chaos/results"
started_here=0
stop_sandbox() { if [ $started_here = 1 ]; then "$sandbox" down; fi; }
trap stop_sandbox EXIT
if ! "$sandbox" status >/dev/null 2>&1; then
  started_here=1
  "$sandbox" up || { echo "chaos: sandbox up failed" >&2; exit 1; }
fi
eval "$("$sandbox" env)"
t0=$(date +%s)
marker="$(mktemp)"  # results written after this file are this invocation's
args=(--runs "${CHAOS_RUNS:-150}")
[ -n "${CHAOS_SEED:-}" ] && args+=(--seed "$CHAOS_SEED")
[ -n "${CHAOS_CASES:-}" ] && args+=(--cases "$CHAOS_CASES")
[ -n "${CHAOS_RATE:-}" ] && args+=(--rate "$CHAOS_RATE")
[ -n "${CHAOS_JOBS:-}" ] && args+=(--jobs "$CHAOS_JOBS")
rc=0
"$py" "$repo/tests/chaos/run.py" "${args[@]}" || rc=1

# The interruption campaign (tests/chaos/interrupt.py): CHAOS_KILLS (default 3) SIGKILLed runs per
# playbook, each re-run and compared with an uninterrupted run; INTERRUPT_JOBS scenarios at a time (4).
iargs=(--kills "${CHAOS_KILLS:-3}")
[ -n "${CHAOS_SEED:-}" ] && iargs+=(--seed "$CHAOS_SEED")
"$py" "$repo/tests/chaos/interrupt.py" "${iargs[@]}" || rc=1

"$py" - "$marker" "$results/latest.json" "$results/interrupt-latest.json" "$t0" <<'EOF' || rc=1
import json, os, sys, time
marker, faults_path, interrupt_path, t0 = sys.argv[1:5]
since = os.path.getmtime(marker)
runs = faults = violations = 0
parts = []
for path, kind in ((faults_path, "faults"), (interrupt_path, "interrupt")):
    if not os.path.exists(path) or os.path.getmtime(path) < since:
        continue  # not written by this invocation: not counted
    with open(path) as f:
        d = json.load(f)
    v = d.get("violations", 0)
    n_v = len(v) if isinstance(v, list) else int(v)
    n_f = int(d.get("faults", 0)) if kind == "faults" else int(d.get("kills", 0))
    runs, faults, violations = runs + int(d.get("runs", 0)), faults + n_f, violations + n_v
    parts.append(f"{kind}: runs={d.get('runs', 0)} {'faults' if kind == 'faults' else 'kills'}={n_f} violations={n_v}")
    pbs = (d.get("concurrent_playbooks") or {}) if kind == "faults" else {}
    if any(pbs.values()):
        parts.append("concurrent: " + " ".join(f"{k}={n}" for k, n in sorted(pbs.items())))
if not parts:
    print("chaos: no campaign wrote its results", file=sys.stderr)
    sys.exit(1)
print(f"chaos: {'; '.join(parts)}; wall time {int(time.time()) - int(t0)} s", file=sys.stderr)
print(f"chaos: runs={runs} faults={faults} violations={violations}")
EOF
rm -f "$marker"
exit $rc
