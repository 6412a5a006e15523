#!/usr/bin/env bash
# A destroy killed (SIGKILL, as a crash or a lost terminal would) between phases resumes: one run is
# killed in the gates (the HostedCluster deleting, the CLI finalizer on), one in the AWS phase (the
# HostedCluster down to the CLI finalizer, AWS deletes under way). The same playbook run again with
# the same variables finishes both to "verified", and a run after that changes nothing.
# Not in `make test` (alias disabled): two killed destroys and their re-runs cost minutes on the shared 2-core machine.
# What `make test` still covers: a destroy that stopped at a gate, CLI finalizer on, re-run to "verified"
# (tests/sandbox/tests/test_take_over.py::test_the_operator_down_stops_without_the_option_and_finishes_verified_with_it);
# a kill and its re-run for the two quickest playbooks (test_interrupt_short.py). A killed destroy_hosted_cluster
# is resumed only here and in `make chaos` (tests/chaos/interrupt.py).
# Run it with: INTEGRATION_ARGS="--allow-disabled hosted_cluster_resume" make integration
set -eu
here=$(pwd)
. "$here/../setup_hosted_cluster/files/sandbox_env.sh"
check="$HC_PYTHON $here/../setup_hosted_cluster/files/hc_check.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/hc-resume.XXXXXX")
pids=""
trap 'for p in $pids; do kill -9 -- "-$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
tag=$(python -c 'import random; print(random.randrange(10000, 99999))')
ns="resume-$tag"

for c in gates aws; do
  "$SANDBOX_CLI" seed hosted-cluster --name "r$tag-$c" --namespace "$ns" --knob cleanup_cloud_resources=true \
    --knob nodepools=1 --knob replicas=1 > "$work/$c.out" 2> "$work/$c.err" &
done
wait
for c in gates aws; do tail -n 1 "$work/$c.out" > "$work/$c.json"; done

destroy() {  # destroy CASE [ansible-playbook args]: the operator's command
  local c=$1; shift
  ansible-playbook teardown.gates.destroy_hosted_cluster -e hosted_cluster_name="r$tag-$c" \
    -e hosted_cluster_namespace="$ns" -e report_dir="$work/reports-$c" "$@"
}
hc() { $check hc "r$tag-$1" "$ns"; }
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: poll until COMMAND succeeds
  local limit=$1 what=$2; shift 2
  local end=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $end ] || { echo "timed out waiting for: $what"; return 1; }
    sleep 0.2
  done
}
deleting() { hc "$1" | python -c 'import json,sys; h=json.load(sys.stdin); sys.exit(0 if h["deleting"] else 1)'; }
only_cli() { hc "$1" | python -c 'import json,sys; h=json.load(sys.stdin); sys.exit(0 if h["finalizers"] == ["openshift.io/destroy-cluster"] else 1)'; }
# the AWS requests that change something, logged after a mark ("AUDIT_LINE AWS_LINE")
aws_mutated_since() { [ -n "$($check mutations $1 none | python -c 'import json,sys; print(" ".join(json.load(sys.stdin)["aws"]))')" ]; }
marks() { $check mark | python -c 'import json,sys; m=json.load(sys.stdin); print(m["audit"], m["aws"])'; }

# each run in its own process group, so that the kill takes ansible-playbook and its workers at once
setsid bash -c "$(declare -f destroy); tag=$tag ns=$ns work=$work destroy gates" > "$work/run1-gates.log" 2>&1 &
pg_gates=$!; pids="$pids $pg_gates"
setsid bash -c "$(declare -f destroy); tag=$tag ns=$ns work=$work destroy aws" > "$work/run1-aws.log" 2>&1 &
pg_aws=$!; pids="$pids $pg_aws"

# 1. killed in the gates: the HostedCluster is deleting and the CLI finalizer is on
wait_for 240 "gates: HostedCluster deleting" deleting gates
kill -9 -- "-$pg_gates"
# 2. killed in the AWS phase: the controllers are done (only the CLI finalizer), the destroy is deleting AWS resources
wait_for 400 "aws: only the CLI finalizer left" only_cli aws
mark=$(marks)
wait_for 240 "aws: the destroy's first AWS delete" aws_mutated_since "$mark"
kill -9 -- "-$pg_aws"
sleep 0.5

for c in gates aws; do
  state=$(hc $c)
  echo "after the kill, $c: $state"
  echo "$state" | python -c 'import json,sys; h=json.load(sys.stdin); assert h["present"] and "openshift.io/destroy-cluster" in h["finalizers"], h'
done

# 3. the same command again, for both at once: it resumes and finishes
cat > "$work/inventory.yml" <<EOI
all:
  hosts:
    gates: {ansible_connection: local, ansible_python_interpreter: $HC_PYTHON, seed_file: $work/gates.json, report_dir: $work/reports-gates}
    aws: {ansible_connection: local, ansible_python_interpreter: $HC_PYTHON, seed_file: $work/aws.json, report_dir: $work/reports-aws}
EOI
ansible-playbook -i "$work/inventory.yml" -e @"$config" -e "{\"hc_check\": \"$check\"}" resume.yml "$@"

# 4. and once more: nothing left to change
destroy aws | tee "$work/run3.log"
grep -Eq 'localhost +: ok=[0-9]+ +changed=0 ' "$work/run3.log" || { echo "a run after the finished teardown changed something"; exit 1; }
