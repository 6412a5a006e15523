#!/usr/bin/env bash
# new_machine_test.sh [SCRATCH]: make test from a fresh clone as a new machine would run it, on this one: every cache
# the run reads is an empty folder under SCRATCH (default /tmp/new-machine): the project's build cache
# (TEARDOWN_GATES_CACHE), Go's build and module caches, pip's and uv's (XDG_CACHE_HOME), and ansible-test's
# virtualenvs (~/.ansible/test, moved aside for the run and put back after). The clone is of this checkout's HEAD.
# Prints the run's log path and its wall seconds; the stage lines are in SCRATCH/run.log.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=${1:-/tmp/new-machine}
# a new machine's shell has none of a sandbox's or a test's variables
for v in $(env | sed -n "s/^\(SANDBOX_[A-Z_]*\|K8S_AUTH_[A-Z_]*\|KUBECONFIG\|ANSIBLE_[A-Z_]*\|PYTHONPATH\|TEARDOWN_[A-Z_]*\)=.*/\1/p"); do
  unset "$v"
done
unset AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION AWS_DEFAULT_REGION
rm -rf "$scratch" && mkdir -p "$scratch"
export TEARDOWN_GATES_CACHE=$scratch/teardown-gates XDG_CACHE_HOME=$scratch/xdg GOPATH=$scratch/gopath \
       GOCACHE=$scratch/go-build GOMODCACHE=$scratch/gopath/pkg/mod PIP_CACHE_DIR=$scratch/pip UV_CACHE_DIR=$scratch/uv
kept=""
if [ -d "$HOME/.ansible/test" ]; then kept="$HOME/.ansible/test.kept-$$"; mv "$HOME/.ansible/test" "$kept"; fi
restore() { rm -rf "$HOME/.ansible/test"; [ -z "$kept" ] || mv "$kept" "$HOME/.ansible/test"; }
trap restore EXIT
git clone -q "$repo" "$scratch/main"
cd "$scratch/main" || exit 1
start=$(date +%s)
CI=true bash .ci/run > "$scratch/run.log" 2>&1
rc=$?
echo "new machine: rc=$rc, $(( $(date +%s) - start )) s from the clone to the end; log $scratch/run.log" | tee -a "$scratch/run.log"
exit $rc
