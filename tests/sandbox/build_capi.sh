#!/usr/bin/env bash
# Build the upstream Cluster API core manager and the CAPA (AWS provider) manager from the Go
# module proxy into a cache folder keyed by both versions, and unpack their CRDs and webhook
# manifests from the same module zips.
# Usage: build_capi.sh CAPI_VERSION CAPA_VERSION CACHE_ROOT
# Each manager is built in a throwaway module that requires only that upstream module, so Go's
# minimal version selection picks the dependency versions upstream pinned in its own go.mod.
set -euo pipefail
CAPI_VERSION=${1:?cluster-api version, e.g. v1.13.4}
CAPA_VERSION=${2:?cluster-api-provider-aws version, e.g. v2.13.0}
CACHE_ROOT=${3:?cache root}
OUT="$CACHE_ROOT/capi-$CAPI_VERSION-capa-$CAPA_VERSION"
BUILD_NAME=build_capi WHAT="the CAPI managers are"
. "$(dirname "${BASH_SOURCE[0]}")/build_common.sh"
RECIPE="capi=$CAPI_VERSION capa=$CAPA_VERSION recipe=1"
if [ -x "$OUT/bin/capi-manager" ] && [ -x "$OUT/bin/capa-manager" ] \
   && [ "$(cat "$OUT/BUILD_INFO" 2>/dev/null)" = "$RECIPE" ]; then
  step "cached: $OUT"; exit 0
fi
mkdir -p "$OUT/bin" "$OUT/manifests"

# build MODULE VERSION NAME: a throwaway module whose tools.go imports the module's main package
build() {
  local module=$1 version=$2 name=$3 t0=$SECONDS work="$OUT/module-$3"
  mkdir -p "$work"
  step "fetching $module@$version from the module proxy"
  local dir
  dir=$(cd "$work" && go mod download -json "$module@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p') \
    || die "cannot fetch $module@$version from the Go module proxy ($(go env GOPROXY))"
  [ -f "$dir/main.go" ] || die "$module@$version has no main.go at its root"
  local go_line
  go_line=$(sed -n 's/^go \(.*\)/go \1/p' "$dir/go.mod" | head -1)
  printf 'module teardowngates.local/%s\n\n%s\n\nrequire %s %s\n' "$name" "$go_line" "$module" "$version" > "$work/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$module" > "$work/tools.go"
  step "resolving $name's dependencies (first time downloads a few hundred MB)"
  (cd "$work" && go mod tidy -e 2>&1 | tail -3 >&2 || true)
  step "go build $name (minutes on 2 cores the first time)"
  (cd "$work" && go build -trimpath -ldflags="-s -w" -o "$OUT/bin/$name.tmp" "$module") \
    || die "go build $module@$version failed"
  mv "$OUT/bin/$name.tmp" "$OUT/bin/$name"
  # the upstream manifests, from the same zip the binary came from
  rm -rf "$OUT/manifests/$name"; mkdir -p "$OUT/manifests/$name"
  cp -r "$dir/config/crd" "$dir/config/webhook" "$OUT/manifests/$name/"
  chmod -R u+w "$OUT/manifests/$name"
  step "built $name in $((SECONDS - t0)) s"
}
build sigs.k8s.io/cluster-api "$CAPI_VERSION" capi-manager
build sigs.k8s.io/cluster-api-provider-aws/v2 "$CAPA_VERSION" capa-manager
echo "$RECIPE" > "$OUT/BUILD_INFO"
step "done: $OUT"
