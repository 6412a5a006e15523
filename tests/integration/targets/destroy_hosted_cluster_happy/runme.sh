#!/usr/bin/env bash
# destroy_hosted_cluster on a seeded hosted cluster, through the playbook as an operator runs it:
# check mode prints the whole plan (gates and AWS levels) and sends no mutating request to either API;
# the real run passes every gate in order, deletes every AWS ID of the baseline and verifies by
# independent queries; the report files carry the fields; a second run changes nothing and keeps
# the first report as <namespace>-<name>.<UTC time>.json.
# (A script target: a role-type target named hosted_cluster_destroy would resolve to the role itself.)
# Not in `make test` (alias disabled): every behaviour it proves is proven there on another whole teardown, and
# each run costs lane 2 about 80 CPU-s and five minutes at CAPA's real timing. Where `make test` covers it:
# - the playbook in check mode on the live cluster, no mutating request, the plan's gates and AWS levels, the real
#   run, a second run changing nothing, the AWS IDs and the Kubernetes objects gone by independent queries, the
#   report's fields, the kept first report, the HTML, Markdown and fleet pages: molecule scenario hosted_cluster
#   (converge.yml, idempotence, verify.yml);
# - the playbook entry (not the role) on a real teardown, from the installed tarball, carried out by the real CAPI
#   and CAPA managers, and the cleanup annotation added by the role: tests/sandbox/tests/test_runner_playbooks.py
#   (the destroy row).
# Run it with: INTEGRATION_ARGS="--allow-disabled destroy_hosted_cluster_happy" make integration
set -eu
here=$(pwd)
. "$here/../setup_hosted_cluster/files/sandbox_env.sh"
check="$HC_PYTHON $here/../setup_hosted_cluster/files/hc_check.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/hc-happy.XXXXXX")
trap 'rm -rf "$work"' EXIT
tag=$(python -c 'import random; print(random.randrange(10000, 99999))')
name=happy$tag
# a namespace of its own: the check pass below counts every mutating request in it, and molecule's scenarios run on
# the same sandbox at the same time (tests/run_all.sh, lane 2)
ns=happy-$tag
reports=$work/reports
dhc() { ansible-playbook teardown.gates.destroy_hosted_cluster -e hosted_cluster_name="$name" -e hosted_cluster_namespace="$ns" \
          -e report_dir="$reports" -e cluster_grace_period=240 "$@"; }

"$SANDBOX_CLI" seed hosted-cluster --name "$name" --namespace "$ns" > "$work/seed.out"
tail -n 1 "$work/seed.out" > "$work/seed.json"

# ---- check mode: the plan, and not one mutating request
mark=$($check mark)
# the plan's AWS requests signed with a key of their own, so that the twins' and other runs' requests are not counted
plan_key=AKIAPLANHAPPY$tag
AWS_ACCESS_KEY_ID=$plan_key dhc --check > "$work/check.log" 2>&1 || { cat "$work/check.log"; exit 1; }
read -r a w < <(python -c 'import json,sys; m=json.loads(sys.argv[1]); print(m["audit"], m["aws"])' "$mark")
$check mutations "$a" "$w" --aws-key "$plan_key" "$ns" "$ns-$name" > "$work/check-mutations.json"

# ---- the real run, then the same again
dhc > "$work/run1.log" 2>&1 || { cat "$work/run1.log"; exit 1; }
dhc > "$work/run2.log" 2>&1 || { cat "$work/run2.log"; exit 1; }
$check aws "$work/seed.json" > "$work/leftovers.json"

ansible-playbook -i "${INVENTORY_PATH:-../../inventory}" -e @"$config" \
  -e "{\"work\": \"$work\", \"reports\": \"$reports\"}" happy.yml "$@"
