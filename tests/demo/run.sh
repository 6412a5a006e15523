#!/usr/bin/env bash
# make demo: start the sandbox (unless one is running), seed a hosted cluster, destroy it with
# teardown.gates.destroy_hosted_cluster and live gate progress, print the report, stop the sandbox
# it started, and print, last, the path of the report's HTML page (its timeline as a Gantt).
# DEMO_REPORT_TO=docs/demo-report also copies the report there (.md, .json and .html).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
sandbox=tests/sandbox/sandbox
say() { printf '\n\033[1m==== %s\033[0m\n' "$*"; }
t0=$(date +%s)

started_here=0
if "$sandbox" status >/dev/null 2>&1; then
  say "sandbox already running: using it (and leaving it running)"
else
  say "starting the sandbox (Kubernetes control plane, AWS endpoint, controller twins)"
  "$sandbox" up
  started_here=1
fi
page=""
stop() {
  if [ $started_here = 1 ]; then say "stopping the sandbox"; "$sandbox" down >/dev/null 2>&1 || true; fi
  # last of all: the report's HTML page (its timeline as a Gantt), to open in a browser
  if [ -n "$page" ]; then say "the report as a page (fleet index: $(dirname "$page")/index.html):"; echo "$page"; fi
}
trap stop EXIT
eval "$("$sandbox" env)"

name=demo-$(date -u +%H%M%S)
reports=${DEMO_REPORT_DIR:-${SANDBOX_HOME:-$repo/.sandbox}/reports}
say "seeding HostedCluster clusters/$name: NodePool, Machines, HCP namespace with pods, Services and PVCs, and its AWS infrastructure"
seed_json=$("$sandbox" seed hosted-cluster --name "$name" --namespace clusters | tail -n 1)
python3 - "$seed_json" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
n = sum(len(v) for v in s["aws"].values() if isinstance(v, list))
print("HostedCluster %s/%s uid %s, infra ID %s; %d AWS resources in its worker VPC and IAM, %d Machines, %d pods"
      % (s["namespace"], s["name"], s["uid"], s["infra_id"], n, len(s["machines"]), len(s["pods"])))
PY

say "ansible-playbook teardown.gates.destroy_hosted_cluster -e hosted_cluster_name=$name (live gate progress)"
t1=$(date +%s)
ANSIBLE_CALLBACKS_ENABLED=teardown.gates.gate_progress TEARDOWN_GATES_PROGRESS_INTERVAL=${TEARDOWN_GATES_PROGRESS_INTERVAL:-3} \
ANSIBLE_DISPLAY_SKIPPED_HOSTS=false ANSIBLE_DISPLAY_OK_HOSTS=${ANSIBLE_DISPLAY_OK_HOSTS:-true} \
  ansible-playbook playbooks/destroy_hosted_cluster.yml -e hosted_cluster_name="$name" -e hosted_cluster_namespace=clusters \
  -e report_dir="$reports"
t2=$(date +%s)

say "the report: $reports/clusters-$name.md"
cat "$reports/clusters-$name.md"
if [ -n "${DEMO_REPORT_TO:-}" ]; then
  cp "$reports/clusters-$name.md" "$DEMO_REPORT_TO.md"
  cp "$reports/clusters-$name.json" "$DEMO_REPORT_TO.json"
  cp "$reports/clusters-$name.html" "$DEMO_REPORT_TO.html"
  say "copied to $DEMO_REPORT_TO.md, .json and .html"
fi
say "demo done: the playbook took $((t2 - t1)) s, the whole demo $(( $(date +%s) - t0 )) s so far"
[ -s "$reports/clusters-$name.html" ] || { echo "no HTML page at $reports/clusters-$name.html" >&2; exit 1; }
page="$reports/clusters-$name.html"
