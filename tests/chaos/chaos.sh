#!/usr/bin/env bash
# `make chaos`: the fault campaign (tests/chaos/run.py) against the sandbox.
# Starts the sandbox unless one runs (and then stops it again on exit); CHAOS_RUNS (default 100),
# CHAOS_SEED (default: from the clock, printed in the results), CHAOS_CASES and CHAOS_RATE pass through.
set -u
repo="$(cd "$(dirname "$0")/../.." && pwd)"
sandbox="$repo/tests/sandbox/sandbox"
started_here=0
stop_sandbox() { if [ $started_here = 1 ]; then "$sandbox" down; fi; }
trap stop_sandbox EXIT
if ! "$sandbox" status >/dev/null 2>&1; then
  started_here=1
  "$sandbox" up || { echo "chaos: sandbox up failed" >&2; exit 1; }
fi
eval "$("$sandbox" env)"
args=(--runs "${CHAOS_RUNS:-100}")
[ -n "${CHAOS_SEED:-}" ] && args+=(--seed "$CHAOS_SEED")
[ -n "${CHAOS_CASES:-}" ] && args+=(--cases "$CHAOS_CASES")
[ -n "${CHAOS_RATE:-}" ] && args+=(--rate "$CHAOS_RATE")
"$repo/.venv/bin/python" "$repo/tests/chaos/run.py" "${args[@]}"
