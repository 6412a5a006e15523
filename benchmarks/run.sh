#!/usr/bin/env bash
# make bench: run every benchmarks/bench_*.py against the sandbox (started here if needed) and
# collect their cases into benchmarks/results/latest.json, then print a table.
# Contract for a bench_*.py: runs with the sandbox's environment, prints progress to stderr, and as
# its LAST stdout line a JSON list of cases:
#   {"name", "unit", "ours", "peer", "peer_name", "ratio", "target", "met"}   (ratio > 1: we are better)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
sandbox="$repo/tests/sandbox/sandbox"
started=0
if ! "$sandbox" status >/dev/null 2>&1; then "$sandbox" up || exit 1; started=1; fi
trap '[ $started = 1 ] && "$sandbox" down' EXIT
eval "$("$sandbox" env)"
export SANDBOX_CLI="$sandbox" PYTHONPATH="$repo/.venv/collections:$repo/tests/sandbox"
# the gate-latency peer `kubectl wait`, from the control plane's own Go module (cached after the first time)
bash "$repo/tests/sandbox/build_kubectl.sh" "${SANDBOX_K8S_VERSION:-v1.36.3}" \
  "${TEARDOWN_GATES_CACHE:-$HOME/.cache/teardown-gates}/k8s" \
  || echo "kubectl could not be built: the gate-latency case records that peer's failure" >&2
out="$repo/benchmarks/results"
mkdir -p "$out"
cases=()
rc=0
for b in "$repo"/benchmarks/bench_*.py; do
  [ -e "$b" ] || continue
  echo "== $(basename "$b")" >&2
  t0=$SECONDS
  line=$("$repo/.venv/bin/python" "$b" ${BENCH_ARGS:-} | tail -1) || { echo "$(basename "$b") failed" >&2; rc=1; continue; }
  echo "== $(basename "$b"): $((SECONDS - t0)) s" >&2
  cases+=("$line")
done
printf '%s\n' "${cases[@]}" | "$repo/.venv/bin/python" "$repo/benchmarks/collect.py" "$out/latest.json" || rc=1
echo "make bench: $SECONDS s in all" >&2
exit $rc
