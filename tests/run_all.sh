#!/usr/bin/env bash
# The test pipeline behind `make test` (and `make unit|sanity|integration|molecule|sandbox-tests`).
# Starts the sandbox when a stage needs it, stops it on exit (even on failure) when this run started it,
# runs every requested stage even after one fails, and ends with one summary line.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
# Nothing here reads standard input, and ansible-test fails at start when there is none (a CI runner may close it)
exec </dev/null
# TEST_VENV: the tooling to test with (tests/matrix.sh gives another ansible-core's); .venv by default
venv="${TEST_VENV:-$repo/.venv}"
sandbox="$repo/tests/sandbox/sandbox"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(unit sanity lint docs sandbox integration molecule)
# TEST_COPY_ROOT lets concurrent runs (several developers in one tree) use separate copies
copy_root="${TEST_COPY_ROOT:-$repo/build/ansible-test}"
coll_copy="$copy_root/ansible_collections/teardown/gates"

# the venvs' Pythons decide the version ansible-test is told (--python) and where PyPI's ansible put its collections
py_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }
venv_site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)
# tests/matrix.sh points these at another ansible-core's sanity virtualenv and the collections that fit it
sanity_venv="${SANITY_VENV:-$repo/.venv-sanity}"
deps_collections="${DEPS_COLLECTIONS:-$venv_site/ansible_collections}"

log() { printf '\n==== [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# Two lanes when a run holds both the sandbox tests and the integration targets or molecule scenarios: the
# second lane (integration, molecule) runs at the same time, against a sandbox of its own (its own state,
# ports and ansible-test copy). Most of their time is spent waiting on controllers (the real CAPA looks
# again a minute after it terminates an instance), not on the CPU. TEST_LANES=1 runs everything in turn.
lane2_pid=""
lane2_out=""
if [ -z "${TEST_LANE:-}" ] && [ "${TEST_LANES:-2}" != 1 ]; then
  lane1=() lane2=()
  for s in "${stages[@]}"; do case $s in integration|molecule) lane2+=("$s") ;; *) lane1+=("$s") ;; esac; done
  if [ ${#lane2[@]} -gt 0 ] && printf '%s\n' "${lane1[@]}" | grep -qx sandbox; then
    mkdir -p "${TEST_LOG_DIR:-$repo/build/test-logs}"
    lane2_out="${TEST_LOG_DIR:-$repo/build/test-logs}/lane2.out"
    printf '\n==== [%s] lane 2 (%s) starts beside this one, on its own sandbox; its output: %s\n' \
      "$(date -u +%H:%M:%S)" "${lane2[*]}" "$lane2_out"
    TEST_LANE=2 SANDBOX_HOME="$repo/build/sandbox-lane2" SANDBOX_PORT_BASE=$(( ${SANDBOX_PORT_BASE:-21000} + 4000 )) \
      TEST_COPY_ROOT="$repo/build/ansible-test-lane2" bash "${BASH_SOURCE[0]}" "${lane2[@]}" > "$lane2_out" 2>&1 &
    lane2_pid=$!
    stages=("${lane1[@]}")
  fi
fi

needs_sandbox=0
for s in "${stages[@]}"; do case $s in sandbox|integration|molecule) needs_sandbox=1 ;; esac; done

started_here=0
# each stage's output is kept in build/test-logs (TEST_LOG_DIR) so that the end of the run can say why a stage failed:
# CI shows only the last lines of a run
log_dir="${TEST_LOG_DIR:-$repo/build/test-logs}"
mkdir -p "$log_dir"
stop_sandbox() {
  if [ $started_here = 1 ]; then
    started_here=0
    local down_log="$log_dir/sandbox-down${TEST_LANE:+-lane$TEST_LANE}.log"
    log "stopping the sandbox (its output: $down_log)"
    "$sandbox" down > "$down_log" 2>&1 || tail -5 "$down_log"
  fi
}
# a lane 1 that ends early still waits for lane 2, which stops its own sandbox
finish() { stop_sandbox; [ -z "$lane2_pid" ] || wait "$lane2_pid"; }
trap finish EXIT
if [ $needs_sandbox = 1 ]; then
  if "$sandbox" status >/dev/null 2>&1; then
    log "sandbox already running; using it (and leaving it running)"
  else
    log "starting the sandbox"
    started_here=1
    "$sandbox" up || { echo "sandbox up failed" >&2; exit 1; }
  fi
  eval "$("$sandbox" env)"
  export SANDBOX_CLI="$sandbox"
fi
export PATH="$venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH="${ANSIBLE_COLLECTIONS_PATH:-$venv/collections}"
export PYTHONPATH="$venv/collections${PYTHONPATH:+:$PYTHONPATH}"

# ansible-test needs to run from a folder named ansible_collections/teardown/gates; copy the tree.
sync_copy() {
  rm -rf "$coll_copy" && mkdir -p "$coll_copy"
  tar -C "$repo" --exclude=./.venv --exclude=./.venv-sanity --exclude=./.venv-docs --exclude=./.ansible --exclude=./.sandbox --exclude=./build --exclude=./.git \
      --exclude='__pycache__' --exclude=./.cache -cf - . | tar -C "$coll_copy" -xf -
  # ansible-test lists content through git when it can; give the copy an index of its own
  (cd "$coll_copy" && git init -q . && git add -A >/dev/null 2>&1)
  # ansible-test resolves dependencies (doc fragments, module_utils of kubernetes.core, amazon.aws)
  # only next to the collection under test: link the venv's copies in
  local dep
  for dep in kubernetes/core amazon/aws; do
    mkdir -p "$copy_root/ansible_collections/${dep%/*}"
    ln -sfn "$deps_collections/$dep" "$copy_root/ansible_collections/$dep"
  done
}

pytest_stage() {  # pytest exits 5 when it collects nothing; that is "no tests yet", not failure
  "$venv/bin/python" -m pytest "$@"; local rc=$?
  [ $rc = 5 ] && { echo "(no tests collected in $*)"; return 0; }
  return $rc
}

stage_unit() {
  [ -d tests/unit ] || { echo "(no unit tests yet)"; return 0; }
  pytest_stage -q -p no:cacheprovider tests/unit
}

stage_sanity() {
  sync_copy
  # ansible-test's pip bootstrap script comes from a host we cannot reach: provide our own
  # the pip version it wants is pinned in ansible-test.txt (2.16 to 2.19) or in its requirements code (2.20 and later)
  local pipv; pipv=$("$sanity_venv/bin/python" - <<'PY' 2>/dev/null || echo 24.2
import pathlib, re, ansible_test
root = pathlib.Path(ansible_test.__file__).parent
found = re.findall(r"^pip\s*==\s*([0-9.]+)", (root / "_data/requirements/ansible-test.txt").read_text(), re.M)
found += re.findall(r"pip='([0-9.]+)'", (root / "_internal/python_requirements.py").read_text())
print(found[0])
PY
)
  mkdir -p "$HOME/.ansible/test/cache"
  # test equipment (the sandbox, chaos, benchmarks) is not collection content: sanity checks our plugins, roles, playbooks
  local excludes="" d
  for d in tests/sandbox tests/chaos benchmarks; do
    [ -n "$(find "$coll_copy/$d" -name '*.py' -print -quit 2>/dev/null)" ] && excludes="$excludes --exclude $d/"
  done
  cp "$repo/tests/sanity/get_pip_local.py" "$HOME/.ansible/test/cache/get_pip_${pipv//./_}.py"
  (cd "$coll_copy" && "$sanity_venv/bin/ansible-test" sanity --local --python "$(py_version "$sanity_venv/bin/python")" --color no \
     --skip-test shellcheck --skip-test pslint $excludes \
     ${SANITY_ARGS:-})
}

# ansible-lint, production profile (.ansible-lint says what is content); --offline: no Galaxy here
stage_lint() { "$venv/bin/ansible-lint" --offline --nocolor -q; }

# antsibull-docs lint-collection-docs --plugin-docs (the docs site's sources); `make docs` builds the site
stage_docs() { bash "$repo/docs/docsite.sh" lint; }

# --durations: the slowest tests, to see where the stage spends its time
stage_sandbox() { pytest_stage -q -p no:cacheprovider --durations=20 tests/sandbox/tests; }

stage_integration() {
  sync_copy
  if [ -z "$(ls -A "$coll_copy/tests/integration/targets" 2>/dev/null)" ]; then
    echo "(no integration targets yet)"; return 0
  fi
  # ansible-test passes only a few environment variables to targets: hand the sandbox's over as
  # variables; each target wraps its tasks in `environment: "{{ sandbox_env }}"`.
  "$venv/bin/python" - "$coll_copy/tests/integration/integration_config.yml" <<'PY'
import json, os, sys
keys = [k for k in os.environ if k.startswith(("SANDBOX_", "AWS_", "K8S_AUTH_")) or k in ("KUBECONFIG",)]
env = {k: os.environ[k] for k in sorted(keys)}
with open(sys.argv[1], "w") as f:
    json.dump({"sandbox_env": env, "sandbox_cli": os.environ["SANDBOX_CLI"],
               "sandbox_python": sys.executable}, f, indent=2)
PY
  (cd "$coll_copy" && ansible-test integration --local --python "$(py_version "$venv/bin/python")" --color no ${INTEGRATION_ARGS:-})
}

stage_molecule() {
  local dir="$repo/extensions" found=0 rc=0 scenario name
  for scenario in "$dir"/molecule/*/molecule.yml; do
    [ -e "$scenario" ] || continue
    found=1
    name=$(basename "$(dirname "$scenario")")
    # plain text: the end of the run greps this log for why a scenario failed
    (cd "$dir" && NO_COLOR=1 PY_COLORS=0 ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 molecule test -s "$name") || rc=1
  done
  [ $found = 1 ] || echo "(no molecule scenarios yet)"
  return $rc
}

# A few lines that say why STAGE failed, from its log: the failing tests, the failing target and its last
# unignored failure, the sanity errors.
why_failed() {
  local stage=$1 file="$log_dir/$1.log"
  [ -f "$file" ] || return 0
  case $stage in
    unit|sandbox) grep -E '^(FAILED|ERROR) ' "$file" | head -6 ;;
    sanity) grep -E '^ERROR: ' "$file" | head -6 ;;
    lint|docs) grep -vE '^\s*$' "$file" | tail -4 ;;
    integration|molecule)
      grep -E 'Running .* integration test role|INFO +Running [^ ]+ > ' "$file" | tail -1
      # a fatal: line not followed by "...ignoring" is a real failure
      awk '/^fatal: |^failed: /{if (f != "") last = f; f = $0; next} /\.\.\.ignoring/{f = ""; next} {if (f != "") {last = f; f = ""}}
           END {if (f != "") last = f; if (last != "") print last}' "$file"
      grep -E '^ERROR: |CRITICAL ' "$file" | tail -2 ;;
  esac | cut -c1-300 | sed "s/^/  $stage: /"
}

# After a stage that used the sandbox: is every component still running and the API server answering? A stage
# that broke it would fail every later stage for a reason that is not theirs: say which component is down (with
# the end of its log), and start it again.
sandbox_broken=()
check_sandbox() {
  local stage=$1 status_file="$log_dir/sandbox-status-after-$1.txt"
  [ $needs_sandbox = 1 ] || return 0
  case $stage in sandbox|integration|molecule) ;; *) return 0 ;; esac
  "$sandbox" status --logs > "$status_file" 2>&1 && return 0
  # every process running but /version slow (a busy machine) is not broken: look once more
  grep -q ' stopped ' "$status_file" || { sleep 3; "$sandbox" status --logs > "$status_file" 2>&1 && return 0; }
  log "the sandbox is not whole after stage $stage; starting what stopped"
  cat "$status_file"
  local stopped; stopped=$(awk '$2 == "stopped" && / pid=/ {printf "%s ", $1}' "$status_file")
  sandbox_broken+=("after $stage: ${stopped:-every process runs, but kube-apiserver does not answer /version}")
  "$sandbox" up || echo "sandbox up failed after stage $stage" >&2
}

passed=0; failed=0; failed_names=()
for s in "${stages[@]}"; do
  log "stage: $s"
  t0=$SECONDS
  "stage_$s" 2>&1 | tee "$log_dir/$s.log"
  if [ "${PIPESTATUS[0]}" = 0 ]; then passed=$((passed + 1)); log "stage $s passed in $((SECONDS - t0)) s"
  else failed=$((failed + 1)); failed_names+=("$s"); log "stage $s FAILED after $((SECONDS - t0)) s"; fi
  check_sandbox "$s"
done
stop_sandbox
if [ -n "$lane2_pid" ]; then
  log "waiting for lane 2 ($lane2_out)"
  wait "$lane2_pid"
  lane2_pid=""
  # its stage lines, and its own summary of what failed and why
  grep -E '^==== |^failed stages|^  [a-z]+: |^stages: ' "$lane2_out" | sed 's/^/lane 2 | /'
  l2=$(sed -n 's/^stages: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$lane2_out" | tail -1)
  if [ -n "$l2" ]; then
    passed=$((passed + ${l2% *})); failed=$((failed + ${l2#* }))
    [ "${l2#* }" = 0 ] || failed_names+=("(lane 2: see above)")
  else
    failed=$((failed + 1)); failed_names+=("lane2"); echo "lane 2 ended without a summary; the end of its output:"
    tail -20 "$lane2_out"
  fi
fi
if [ $failed != 0 ] || [ ${#sandbox_broken[@]} != 0 ]; then
  [ $failed = 0 ] || echo "failed stages: ${failed_names[*]} (whole logs in $log_dir)"
  for s in "${failed_names[@]}"; do why_failed "$s"; done
  for b in "${sandbox_broken[@]}"; do echo "  sandbox broken $b"; done
fi
echo "stages: $passed passed, $failed failed"
[ $failed = 0 ]
