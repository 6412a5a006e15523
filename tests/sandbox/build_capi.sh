#!/usr/bin/env bash
# Build the upstream Cluster API core manager and the CAPA (AWS provider) manager from the Go
# module proxy into a cache folder keyed by both versions, and unpack their CRDs and webhook
# manifests from the same module zips.
# Usage: build_capi.sh CAPI_VERSION CAPA_VERSION CACHE_ROOT
# Both managers are built in one throwaway module that requires the two upstream modules, so Go's
# minimal version selection picks the versions upstream pinned (CAPA's go.mod requires this CAPI
# release, so the graph is CAPA's own). One graph means one compile of what both link (client-go,
# controller-runtime, CAPI's API packages, golang.org/x/...): built apart, CAPI's graph had eleven
# lower versions at the bottom (x/sys among them), so every package above them compiled twice.
set -euo pipefail
CAPI_VERSION=${1:?cluster-api version, e.g. v1.13.4}
CAPA_VERSION=${2:?cluster-api-provider-aws version, e.g. v2.13.0}
CACHE_ROOT=${3:?cache root}
OUT="$CACHE_ROOT/capi-$CAPI_VERSION-capa-$CAPA_VERSION"
BUILD_NAME=build_capi WHAT="the CAPI managers are"
. "$(dirname "${BASH_SOURCE[0]}")/build_common.sh"
RECIPE="capi=$CAPI_VERSION capa=$CAPA_VERSION recipe=2"
if [ -x "$OUT/bin/capi-manager" ] && [ -x "$OUT/bin/capa-manager" ] \
   && [ "$(cat "$OUT/BUILD_INFO" 2>/dev/null)" = "$RECIPE" ]; then
  step "cached: $OUT"; exit 0
fi
mkdir -p "$OUT/bin" "$OUT/manifests"

work="$OUT/module"
rm -rf "$OUT/module-capi-manager" "$OUT/module-capa-manager"   # recipe 1's two modules
mkdir -p "$work"

# fetch MODULE VERSION: the module's folder in Go's module cache (it must have its main package at the root)
fetch() {
  local dir
  step "fetching $1@$2 from the module proxy"
  dir=$(cd "$work" && go mod download -json "$1@$2" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p') \
    || die "cannot fetch $1@$2 from the Go module proxy ($(go env GOPROXY))"
  [ -f "$dir/main.go" ] || die "$1@$2 has no main.go at its root"
  echo "$dir"
}
capi_dir=$(fetch sigs.k8s.io/cluster-api "$CAPI_VERSION")
capa_dir=$(fetch sigs.k8s.io/cluster-api-provider-aws/v2 "$CAPA_VERSION")
go_line=$(sed -n 's/^go \(.*\)/go \1/p' "$capa_dir/go.mod" | head -1)
printf 'module teardowngates.local/capimanagers\n\n%s\n\nrequire (\n\tsigs.k8s.io/cluster-api %s\n\tsigs.k8s.io/cluster-api-provider-aws/v2 %s\n)\n' \
  "$go_line" "$CAPI_VERSION" "$CAPA_VERSION" > "$work/go.mod"
printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "sigs.k8s.io/cluster-api"\n\t_ "sigs.k8s.io/cluster-api-provider-aws/v2"\n)\n' > "$work/tools.go"
step "resolving the managers' dependencies (first time downloads a few hundred MB)"
(cd "$work" && go mod tidy -e 2>&1 | tail -3 >&2 || true)

# build MODULE NAME DIR: the manager binary, then the upstream manifests from the zip it came from
build() {
  local module=$1 name=$2 dir=$3 t0=$SECONDS
  step "go build $name (minutes on 2 cores the first time)"
  (cd "$work" && go build -trimpath -ldflags="-s -w" -o "$OUT/bin/$name.tmp" "$module") \
    || die "go build $module failed"
  mv "$OUT/bin/$name.tmp" "$OUT/bin/$name"
  rm -rf "$OUT/manifests/$name"; mkdir -p "$OUT/manifests/$name"
  cp -r "$dir/config/crd" "$dir/config/webhook" "$OUT/manifests/$name/"
  chmod -R u+w "$OUT/manifests/$name"
  step "built $name in $((SECONDS - t0)) s"
}
# CAPA first: it compiles most of what the CAPI manager then links from Go's build cache
build sigs.k8s.io/cluster-api-provider-aws/v2 capa-manager "$capa_dir"
build sigs.k8s.io/cluster-api capi-manager "$capi_dir"
echo "$RECIPE" > "$OUT/BUILD_INFO"
step "done: $OUT"
