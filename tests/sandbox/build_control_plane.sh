#!/usr/bin/env bash
# Build etcd, kube-apiserver and kube-controller-manager from the official Go
# modules (through the Go module proxy only) into a cache folder keyed by version.
# Usage: build_control_plane.sh K8S_VERSION CACHE_ROOT
set -euo pipefail
K8S_VERSION=${1:?kubernetes version, e.g. v1.36.3}
CACHE_ROOT=${2:?cache root}
OUT="$CACHE_ROOT/$K8S_VERSION/bin"
BUILD_NAME=build_control_plane WHAT="the control plane is"
. "$(dirname "${BASH_SOURCE[0]}")/build_common.sh"
# The stamp names the recipe: a change to the flags below rebuilds (fast, from Go's build cache).
RECIPE="k8s=$K8S_VERSION recipe=2"
if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/kube-controller-manager" ] && [ -x "$OUT/etcd" ] \
   && [ "$(cat "$OUT/BUILD_INFO" 2>/dev/null)" = "$RECIPE" ]; then
  step "cached: $OUT"; exit 0
fi

WORK="$CACHE_ROOT/$K8S_VERSION/module"
mkdir -p "$WORK" "$OUT"
cd "$WORK"

step "fetching k8s.io/kubernetes@$K8S_VERSION go.mod from the module proxy"
gomod_json=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" 2>&1) \
  || die "cannot fetch k8s.io/kubernetes@$K8S_VERSION from the Go module proxy ($(go env GOPROXY)): $gomod_json"
gomod=$(printf '%s' "$gomod_json" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
[ -f "$gomod" ] || die "module proxy answered without a go.mod for k8s.io/kubernetes@$K8S_VERSION"

staging_version="v0.${K8S_VERSION#v1.}"
etcd_version=$(sed -n 's#^[[:space:]]*go.etcd.io/etcd/server/v3 \(v[^ ]*\).*#\1#p' "$gomod" | head -1)
[ -n "$etcd_version" ] || die "cannot read the etcd version from $gomod"
step "staging modules at $staging_version, etcd $etcd_version"

{
  echo "module teardowngates.local/controlplane"
  echo
  sed -n 's/^go \(.*\)/go \1/p' "$gomod" | head -1
  echo
  echo "require ("
  echo "	k8s.io/kubernetes $K8S_VERSION"
  echo "	go.etcd.io/etcd/server/v3 $etcd_version"
  echo ")"
  echo
  echo "replace ("
  # every "k8s.io/x => ./staging/src/k8s.io/x" becomes the published version
  sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod" | sort -u | while read -r m; do
    echo "	$m => $m $staging_version"
  done
  echo ")"
} > go.mod
cat > tools.go <<'GO'
//go:build tools

package controlplane

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
GO

step "resolving dependencies (go mod tidy; first time downloads a few hundred MB)"
go mod tidy -e 2>&1 | tail -5 >&2 || true

# Stamp the release into the binaries, as Kubernetes' own build does (else /version says v0.0.0).
minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
vpkg=k8s.io/component-base/version
LDFLAGS="-s -w -X $vpkg.gitVersion=$K8S_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor \
 -X $vpkg.gitTreeState=clean"

build() {
  local pkg=$1 name=$2 t0=$SECONDS
  step "go build $name (minutes on 2 cores the first time)"
  go build -trimpath -ldflags="$LDFLAGS" -o "$OUT/$name.tmp" "$pkg" || die "go build $pkg failed"
  mv "$OUT/$name.tmp" "$OUT/$name"
  step "built $name in $((SECONDS - t0)) s"
}
build go.etcd.io/etcd/server/v3 etcd
build k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver
build k8s.io/kubernetes/cmd/kube-controller-manager kube-controller-manager
echo "$RECIPE" > "$OUT/BUILD_INFO"
step "done: $OUT"
