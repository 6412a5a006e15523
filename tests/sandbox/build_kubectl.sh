#!/usr/bin/env bash
# kubectl from the same Go module (k8s.io/kubernetes@VERSION) as the sandbox's control plane, cached beside
# it in CACHE_ROOT/VERSION/bin. Only `make bench` needs it (its gate-latency peer, `kubectl wait
# --for=delete`), so `make test` never builds it. Usage: build_kubectl.sh v1.36.3 ~/.cache/teardown-gates/k8s
set -euo pipefail
K8S_VERSION=${1:?kubernetes version, e.g. v1.36.3}
CACHE_ROOT=${2:?cache root}
OUT="$CACHE_ROOT/$K8S_VERSION/bin"
WORK="$CACHE_ROOT/$K8S_VERSION/module"
BUILD_NAME=build_kubectl WHAT="kubectl is"
. "$(dirname "${BASH_SOURCE[0]}")/build_common.sh"
if [ -x "$OUT/kubectl" ]; then step "cached: $OUT/kubectl"; exit 0; fi
# the control plane's module (go.mod with the staging replaces) is where kubectl's packages resolve
[ -f "$WORK/go.mod" ] || die "$WORK/go.mod is missing: start the sandbox once (it builds the control plane there)"
cd "$WORK"
minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
vpkg=k8s.io/component-base/version
step "go build kubectl (a few minutes on 2 cores the first time)"
t0=$SECONDS
go build -trimpath -ldflags="-s -w -X $vpkg.gitVersion=$K8S_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor" \
  -o "$OUT/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl || die "go build k8s.io/kubernetes/cmd/kubectl failed"
mv "$OUT/kubectl.tmp" "$OUT/kubectl"
step "built kubectl in $((SECONDS - t0)) s: $OUT/kubectl"
