# shellcheck shell=bash
# Sourced by build_control_plane.sh and build_capi.sh after they set BUILD_NAME, CACHE_ROOT and WHAT:
# their log lines, Go on PATH, and one build at a time per cache.
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

step() { printf '[build %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf '%s: %s\n' "$BUILD_NAME" "$*" >&2; exit 1; }

command -v go >/dev/null || die "Go is not on PATH: install Go 1.26 or newer ($WHAT built from source)"
# One build at a time per cache (two sandboxes starting together): the second waits, then finds it cached.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"
if ! flock -n 9; then
  step "another build into $CACHE_ROOT is running; waiting for it"
  flock 9
fi
