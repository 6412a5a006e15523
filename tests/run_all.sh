#!/usr/bin/env bash
# The test pipeline behind `make test` (and `make unit|sanity|integration|molecule|sandbox-tests`).
# Starts the sandbox when a stage needs it, stops it on exit (even on failure) when this run started it,
# runs every requested stage even after one fails, and ends with one summary line.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
# Nothing here reads standard input, and ansible-test fails at start when there is none (a CI runner may close it)
exec </dev/null
# Python may keep the bytecode of what it compiles (this checkout's plugins, tests and sandbox): a machine that sets
# PYTHONDONTWRITEBYTECODE (this one does) has every process of the run compile them again
unset PYTHONDONTWRITEBYTECODE
# TEST_VENV: the tooling to test with (tests/matrix.sh gives another ansible-core's); .venv by default
venv="${TEST_VENV:-$repo/.venv}"
sandbox="$repo/tests/sandbox/sandbox"
stages=("$@")
# `make test`: the six cores' sanity (matrix), the sandbox tests, and integration and molecule on the newest core
# (lane 2) and on the oldest core (lane 3, stage `oldest`): a core that requires_ansible admits is a core CI tests.
# TEST_OLDEST=0 leaves lane 3 out (a quicker local run; CI never sets it)
# Lane 4 ends the run: its one-process checks (lint, docs, galaxy) go before the matrix, whose two sanity legs at
# once keep both cores busy once the sandbox lanes have ended (in run AB lane 4 ran alone for the last ~190 s, and
# its last 90 s were lint, docs and galaxy, one process at a time)
if [ ${#stages[@]} = 0 ]; then
  stages=(unit lint docs galaxy matrix sandbox integration molecule)
  [ "${TEST_OLDEST:-1}" = 0 ] || stages+=(oldest)
fi
# The meta-test: every module and playbook runs for real (outside check mode) somewhere in `make test`. The recorder
# (tests/coverage/callback_plugins/real_runs.py) writes what ran into TEARDOWN_GATES_REAL_RUNS_DIR, one file per
# process; the sandbox tests (conftest.py), ansible-test's targets (integration.cfg, stage_integration) and molecule
# (molecule.yml) load it; the lanes and tests/matrix.sh inherit the folder. A run that holds every stage that runs
# playbooks checks the records at its end (tests/coverage/check_real_runs.py). A folder set from outside is left as is.
real_runs_check=0
if [ -z "${TEARDOWN_GATES_REAL_RUNS_DIR:-}" ]; then
  export TEARDOWN_GATES_REAL_RUNS_DIR="${TEST_LOG_DIR:-$repo/build/test-logs}/real-runs"
  mkdir -p "$TEARDOWN_GATES_REAL_RUNS_DIR"
  find "$TEARDOWN_GATES_REAL_RUNS_DIR" -maxdepth 1 -name 'real-runs-*.jsonl' -delete
  if [ -z "${TEST_LANE:-}" ]; then
    real_runs_check=1
    for s in sandbox integration molecule; do printf '%s\n' "${stages[@]}" | grep -qx "$s" || real_runs_check=0; done
  fi
fi
# TEST_COPY_ROOT lets concurrent runs (several developers in one tree) use separate copies
copy_root="${TEST_COPY_ROOT:-$repo/build/ansible-test}"
coll_copy="$copy_root/ansible_collections/teardown/gates"

# the venvs' Pythons decide the version ansible-test is told (--python) and where PyPI's ansible put its collections
py_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }
venv_site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)
# ansible_collections/teardown/gates -> this checkout (made by the Makefile's bootstrap); another core's tooling
# (tests/matrix.sh, shared by checkouts in the build cache) has no link of its own
self_collections="$repo/.venv/collections"
# tests/matrix.sh points these at another ansible-core's sanity virtualenv and the collections that fit it
sanity_venv="${SANITY_VENV:-$repo/.venv-sanity}"
deps_collections="${DEPS_COLLECTIONS:-$venv_site/ansible_collections}"

log() { printf '\n==== [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
# CPU seconds (user + system) of this shell's finished children: a stage's cost on a shared 2-core machine is its
# CPU, not its wall time, which the other lanes stretch
# (`times` in this shell, not in a $(...) subshell, which has no children of its own yet)
children_cpu() {  # children_cpu VAR
  local f="${TMPDIR:-/tmp}/teardown-gates-times.$BASHPID"  # $$ is the same in a background subshell
  times > "$f"
  printf -v "$1" '%s' "$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }' "$f")"
  rm -f "$f"
}
# CPU seconds the whole machine spent busy (every process: the sandbox's too), from /proc/stat
machine_cpu() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%d", ($2 + $3 + $4 + $7 + $8) / hz }' /proc/stat; }
# CPU the hypervisor gave to other guests while ours wanted it: on a shared host the same run costs more wall (and
# more CPU-s, as caches go cold) when this is high, which is one source of the spread between runs of one commit
machine_steal() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%d", $9 / hz }' /proc/stat; }
run_t0=$SECONDS run_m0=$(machine_cpu) run_s0=$(machine_steal)

# Lanes: when a run holds the sandbox tests and the integration targets or molecule scenarios, these run at the
# same time in lanes of their own, each against a sandbox of its own (its own state, ports and ansible-test copy):
# lane 2 holds integration and molecule on the newest core, lane 3 (stage `oldest`) the same on the oldest core,
# with CAPA at its upstream timing (SANDBOX_CAPA_SYNC_PERIOD=10m: the one run that waits CAPA's real minute per
# Machine). TEST_LANES=1 runs all in turn.
lane_pids=() lane_outs=() lane_names=()
start_lane() {  # start_lane N EXTRA_ENV... -- STAGES...
  local n=$1; shift
  local envs=() out
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  out="${TEST_LOG_DIR:-$repo/build/test-logs}/lane$n.out"
  printf '\n==== [%s] lane %s (%s) starts beside this one (on a sandbox of its own if it needs one); its output: %s\n' \
    "$(date -u +%H:%M:%S)" "$n" "$*" "$out"
  # lane 4 (no sandbox, nothing timed) yields the CPU to the sandbox lanes, whose controllers and timeouts wait
  # on it, and takes what they leave
  local niceness=0; [ "$n" != 4 ] || niceness=${LANE4_NICE:-10}
  nice -n "$niceness" env TEST_LANE="$n" SANDBOX_HOME="$repo/build/sandbox-lane$n" \
    SANDBOX_PORT_BASE=$(( ${SANDBOX_PORT_BASE:-21000} + 2000 * n )) \
    TEST_COPY_ROOT="$repo/build/ansible-test-lane$n" "${envs[@]}" bash "${BASH_SOURCE[0]}" "$@" > "$out" 2>&1 &
  lane_pids+=($!) lane_outs+=("$out") lane_names+=("$n")
}
# Lane 4 holds the checks that need no sandbox (unit, the sanity matrix, lint, docs, galaxy-importer), so that
# their CPU fills the sandbox lanes' waiting from the start.
if [ -z "${TEST_LANE:-}" ] && [ "${TEST_LANES:-4}" != 1 ]; then
  lane1=() lane2=() lane3=() lane4=()
  for s in "${stages[@]}"; do
    case $s in
      integration|molecule) lane2+=("$s") ;;
      oldest) lane3+=("$s") ;;
      sandbox) lane1+=("$s") ;;
      *) lane4+=("$s") ;;
    esac
  done
  if [ $(( ${#lane2[@]} + ${#lane3[@]} )) -gt 0 ] && [ ${#lane1[@]} -gt 0 ]; then
    mkdir -p "${TEST_LOG_DIR:-$repo/build/test-logs}"
    # molecule in two parts (MOLECULE_JOBS=2): in one, its six scenarios were lane 2's longest stage (1,903 s on
    # 2026-12-04, most of it waiting on CAPA's minute and the take-over's grace periods, 554 CPU-s); the
    # scenarios seed names and namespaces of their own. (Two parts once coincided with release_prune's target
    # finding its Releases unknown after a list timed out, when wait_gate's stall case stopped the shared API server;
    # that case now stops a proxy of its own.)
    # lane 2's CAPA keeps its upstream timing (a minute between looks at a terminated instance): `make test`'s one
    # run that waits CAPA's real minute per deleted Machine (the integration destroys and molecule's hosted_cluster
    # and take_over); lane 1's looks every 10 s
    # lanes 2 and 3 run the same integration targets and molecule scenarios, each on its own core and sandbox, in
    # the same parts
    parts=(TEST_BESIDE="${TEST_BESIDE-molecule}" INTEGRATION_JOBS="${INTEGRATION_JOBS:-2}"
      MOLECULE_JOBS="${MOLECULE_JOBS:-2}" MOLECULE_ORDER="${MOLECULE_ORDER-hosted_cluster take_over held_deletion release_prune}"
      INTEGRATION_ORDER="${INTEGRATION_ORDER-wait_gate held_deletion_module finalizer hosted_cluster_info deletion_info}"
      INTEGRATION_SERIAL="${INTEGRATION_SERIAL-aws_infra_cleanup cloudformation_teardown}")
    [ ${#lane2[@]} = 0 ] || start_lane 2 SANDBOX_CAPA_SYNC_PERIOD="${LANE2_CAPA_SYNC_PERIOD:-10m}" "${parts[@]}" -- "${lane2[@]}"
    # lane 3's CAPA looks every 10 s, as lane 1's: lane 2 is the run with CAPA's real minute
    [ ${#lane3[@]} = 0 ] || start_lane 3 SANDBOX_CAPA_SYNC_PERIOD="${OLDEST_CAPA_SYNC_PERIOD:-10s}" "${parts[@]}" -- "${lane3[@]}"
    [ ${#lane4[@]} = 0 ] || start_lane 4 -- "${lane4[@]}"
    stages=("${lane1[@]}")
  fi
fi

needs_sandbox=0
for s in "${stages[@]}"; do case $s in sandbox|integration|molecule|oldest) needs_sandbox=1 ;; esac; done

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
    # the servers' CPU is no stage's: say it, so that a run's CPU can be accounted for
    sed -n 's/.*stopped \([^ ]*\) (it used \([0-9]*\) CPU-s).*/\1 \2/p' "$down_log" |
      awk -v lane="${TEST_LANE:+ of lane $TEST_LANE}" \
        '{ t += $2; s = s sep $1 " " $2; sep = ", " } END { if (NR) printf "the sandbox%s used %d CPU-s: %s\n", lane, t, s }'
  fi
}
up_pid="" up_failed=0 up_log="$log_dir/sandbox-up${TEST_LANE:+-lane$TEST_LANE}.log"
# a lane 1 that ends early still waits for the other lanes, which stop their own sandboxes
finish() {
  [ -z "$up_pid" ] || wait "$up_pid" 2>/dev/null
  [ -z "${prep_pid:-}" ] || wait "$prep_pid" 2>/dev/null
  stop_sandbox
  local p; for p in "${lane_pids[@]}"; do wait "$p"; done
}
trap finish EXIT
# The sandbox starts in the background (on a new machine that is the builds, minutes of them) while the stages
# that do not need it run; the first stage that needs it waits for it (wait_sandbox).
if [ $needs_sandbox = 1 ]; then
  if "$sandbox" status >/dev/null 2>&1; then
    log "sandbox already running; using it (and leaving it running)"
  else
    log "starting the sandbox in the background (its output: $up_log)"
    started_here=1
    "$sandbox" up > "$up_log" 2>&1 &
    up_pid=$!
  fi
  eval "$("$sandbox" env)"
  export SANDBOX_CLI="$sandbox"
  # `sandbox env` names .venv's collections and Python; another core's tooling (tests/matrix.sh) brings its own
  if [ "$venv" != "$repo/.venv" ]; then
    export ANSIBLE_COLLECTIONS_PATH="$self_collections:$venv_site" ANSIBLE_PYTHON_INTERPRETER="$venv/bin/python"
  fi
fi
# the oldest core's virtualenv is made meanwhile too (tests/matrix.sh full-venv)
prep_pid=""
if printf '%s\n' "${stages[@]}" | grep -qx oldest; then
  bash "$repo/tests/matrix.sh" full-venv > "$log_dir/oldest-venv.log" 2>&1 &
  prep_pid=$!
fi
wait_prepared() {
  [ -n "$prep_pid" ] || return 0
  local rc=0
  wait "$prep_pid" || { rc=1; echo "making the oldest core's virtualenv failed:" >&2; tail -20 "$log_dir/oldest-venv.log" >&2; }
  prep_pid=""
  return $rc
}
wait_sandbox() {
  [ -n "$up_pid" ] || return $up_failed
  log "waiting for the sandbox to be up"
  wait "$up_pid" || up_failed=1
  up_pid=""
  if [ $up_failed = 1 ]; then
    echo "sandbox up failed; the end of its output:" >&2
    tail -20 "$up_log" >&2
  else
    log "sandbox up"
  fi
  return $up_failed
}
export PATH="$venv/bin:$PATH"
# the test runs' Ansible configuration (tests/ansible.cfg: why); a configuration named from outside is left as is
export ANSIBLE_CONFIG="${ANSIBLE_CONFIG:-$repo/tests/ansible.cfg}"
export ANSIBLE_COLLECTIONS_PATH="${ANSIBLE_COLLECTIONS_PATH:-$self_collections}"
export PYTHONPATH="$self_collections${PYTHONPATH:+:$PYTHONPATH}"

# ansible-test needs to run from a folder named ansible_collections/teardown/gates; copy the tree.
sync_copy() {
  rm -rf "$coll_copy" && mkdir -p "$coll_copy"
  tar -C "$repo" --exclude=./.venv --exclude=./.venv-sanity --exclude=./.venv-docs --exclude=./.venv-eda --exclude=./.ansible --exclude=./.sandbox --exclude=./build --exclude=./.git \
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
# .venv-docs is made here when it is missing or stale, not before the run: `make test` starts the lanes sooner
stage_docs() { make -s -C "$repo" .venv-docs/.bootstrapped && bash "$repo/docs/docsite.sh" lint; }

# The sandbox tests share one sandbox: SANDBOX_TEST_WORKERS (default 3) pytest-xdist workers run them, a file per
# worker (a file's module fixtures seed once; every test names what it seeds its own way). (--dist loadgroup would
# spread a file's cases, but xdist 3.8 cannot rename pytest 9's node ids, so its groups are ignored.) The files go
# out longest first (conftest.py's LONGEST_FIRST; --no-loadscope-reorder keeps that order).
# Then the files marked `exclusive` (they change or judge what the whole sandbox shares: the AWS layer's knobs,
# the API server's life, the whole audit log) run alone, one after another.
# --durations: the slowest tests, to see where the stage spends its time
stage_sandbox() {
  local rc=0
  export TEARDOWN_GATES_TEST_CPU_LOG="$log_dir/sandbox-test-cpu.jsonl"
  rm -f "$TEARDOWN_GATES_TEST_CPU_LOG"
  pytest_stage -q -p no:cacheprovider --durations=25 -n "${SANDBOX_TEST_WORKERS:-3}" --dist loadfile --no-loadscope-reorder \
    -m "not exclusive" tests/sandbox/tests || rc=1
  pytest_stage -q -p no:cacheprovider --durations=10 -m exclusive tests/sandbox/tests || rc=1
  "$venv/bin/python" - "$TEARDOWN_GATES_TEST_CPU_LOG" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])] if __import__("os").path.exists(sys.argv[1]) else []
print("sandbox tests: %d CPU-s in all; the costliest (CPU-s, wall s, test):" % sum(r["cpu_s"] for r in rows))
for r in sorted(rows, key=lambda r: -r["cpu_s"])[:25]:
    print("  %7.1f %7.1f  %s" % (r["cpu_s"], r["wall_s"], r["test"]))
PY
  return $rc
}

# ansible-test sanity on every core that requires_ansible admits (tests/matrix.sh: one line per core)
stage_matrix() { bash "$repo/tests/matrix.sh" sanity; }

# galaxy-importer on the built tarball, as Galaxy and Automation Hub check a collection. Its ansible-lint run is
# left to stage lint (the same production profile, over the tarball's files and the tests' too): a second run cost
# a minute of CPU, and on a loaded machine it can pass the importer's own 180 s bound
stage_galaxy() { GALAXY_IMPORTER_LINT="${GALAXY_IMPORTER_LINT:-false}" bash "$repo/tests/galaxy_importer.sh"; }

# integration targets and molecule scenarios on the oldest core (tests/matrix.sh oldest), on this run's sandbox
stage_oldest() { bash "$repo/tests/matrix.sh" oldest; }

# ansible-test makes ~/.ansible/test/id_rsa at its start when it is missing, shared by every ansible-test of the
# user. Two runs starting at once on a new machine both ran ssh-keygen, and the second stopped at its
# "Overwrite (y/n)?": two integration parts of one lane (2026-12-03), then lanes 2 and 3 (2026-12-06, run AF). Make
# it first, as ansible-test does, under a lock that every lane and part takes
ansible_test_key() {
  local key="$HOME/.ansible/test/id_rsa"
  mkdir -p "$(dirname "$key")" || return 1
  (
    flock -w 60 9 || { echo "ansible_test_key: $key.lock held for 60 s" >&2; exit 1; }
    [ -e "$key" ] && [ -e "$key.pub" ] && exit 0
    rm -f "$key" "$key.pub"
    ssh-keygen -m PEM -q -t rsa -N '' -f "$key" </dev/null
  ) 9>"$key.lock"
}
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
  # The recorder of real runs: ansible-test gives targets an environment of its own (it sets ANSIBLE_CALLBACKS_ENABLED
  # and passes few variables), but takes tests/integration/integration.cfg as their ANSIBLE_CONFIG when the
  # collection has one, copied to a temporary folder: the copy gets one, with absolute paths.
  if [ -n "${TEARDOWN_GATES_REAL_RUNS_DIR:-}" ]; then
    "$venv/bin/python" - "$coll_copy/tests/integration/integration.cfg" "$repo/tests/coverage/callback_plugins" \
      "$TEARDOWN_GATES_REAL_RUNS_DIR" <<'PY'
import configparser, os, sys
path, callbacks, records = sys.argv[1:]
cfg = configparser.ConfigParser(interpolation=None)
cfg.read(path)  # the collection's own, should it ever have one
for section in ("defaults", "callback_real_runs"):
    if not cfg.has_section(section):
        cfg.add_section(section)
paths = [p for p in cfg.get("defaults", "callback_plugins", fallback="").split(os.pathsep) if p.strip()]
cfg.set("defaults", "callback_plugins", os.pathsep.join([callbacks] + [p for p in paths if p != callbacks]))
cfg.set("callback_real_runs", "dir", records)
# as tests/ansible.cfg sets it for the other test runs (why: there)
cfg.set("defaults", "internal_poll_interval", "0.05")
with open(path, "w") as f:
    cfg.write(f)
PY
  fi
  ansible_test_key || return 1
  local jobs=${INTEGRATION_JOBS:-1}
  if [ "$jobs" -le 1 ] || [ -n "${INTEGRATION_ARGS:-}" ]; then
    (cd "$coll_copy" && ansible-test integration --local --python "$(py_version "$venv/bin/python")" --color no ${INTEGRATION_ARGS:-})
    return
  fi
  # INTEGRATION_JOBS ansible-test runs at once, each on its own copy of the tree and a share of the targets (the
  # enabled ones, dealt round the runs in the order of INTEGRATION_ORDER, the longest first): the targets wait on
  # controllers far more than they use the CPU, and each seeds names of its own
  # INTEGRATION_SERIAL: the targets that set the sandbox's AWS realism layer as a whole (its knobs and fault rules
  # reset), one after the other in part 0; the rest are dealt from part 1 on
  local targets=() serial=() t i pids=() rc=0
  for t in ${INTEGRATION_SERIAL:-} ${INTEGRATION_ORDER:-} $(ls "$coll_copy/tests/integration/targets"); do
    case " ${targets[*]} ${serial[*]} " in *" $t "*) continue ;; esac
    [ -d "$coll_copy/tests/integration/targets/$t" ] || continue
    grep -qxE 'disabled|hidden|unsupported' "$coll_copy/tests/integration/targets/$t/aliases" 2>/dev/null && continue
    if printf '%s\n' ${INTEGRATION_SERIAL:-} | grep -qx "$t"; then serial+=("$t"); else targets+=("$t"); fi
  done
  rm -f "$log_dir"/integration-part*.exit
  for ((i = 0; i < jobs; i++)); do
    local mine=() k
    [ "$i" != 0 ] || mine=("${serial[@]}")
    for k in "${!targets[@]}"; do [ $(((k + 1) % jobs)) != "$i" ] || mine+=("${targets[$k]}"); done
    [ ${#mine[@]} -gt 0 ] || continue
    local copy="$copy_root-part$i/ansible_collections/teardown/gates"
    rm -rf "$copy_root-part$i" && mkdir -p "$(dirname "$copy")" && cp -a "$copy_root/ansible_collections/." "$copy_root-part$i/ansible_collections/"
    echo "integration part $i: ${mine[*]} (its output: $log_dir/integration-part$i.log)"
    # --continue-on-error: a failed target does not hide the state of the ones after it
    # each part writes its exit code: bash's `wait` once reported a failure for a matrix leg that had passed
    (cd "$copy" && ansible-test integration --local --python "$(py_version "$venv/bin/python")" --color no \
       --continue-on-error "${mine[@]}"; echo $? > "$log_dir/integration-part$i.exit") \
      > "$log_dir/integration-part$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    if [ "$(cat "$log_dir/integration-part$i.exit" 2>/dev/null)" = 0 ]; then echo "integration part $i passed"
    else rc=1; echo "integration part $i FAILED; the end of its output:"; tail -40 "$log_dir/integration-part$i.log"; fi
  done
  cat "$log_dir"/integration-part*.log
  return $rc
}

# One scenario, in plain text: the end of the run greps the log for why a scenario failed. Its ephemeral folder (the
# seed files, molecule's state) is the run's own, beside its ansible-test copy: molecule's default is named after the
# project folder's last name ("extensions") and the scenario only, so lanes 2 and 3 running one scenario at once
# shared it, and one's cleanup removed the other's seed file (2026-12-05)
molecule_scenario() {
  local eph="$copy_root-molecule/$1"
  mkdir -p "$eph"
  (cd "$repo/extensions" && MOLECULE_EPHEMERAL_DIRECTORY="$eph" NO_COLOR=1 PY_COLORS=0 ANSIBLE_NOCOLOR=1 \
     ANSIBLE_FORCE_COLOR=0 molecule test -s "$1")
}

# MOLECULE_JOBS scenarios at once (each seeds names and namespaces of its own), dealt in the order of
# MOLECULE_ORDER (the longest first), each part's output in molecule-part<N>.log, all of it in molecule.log
stage_molecule() {
  local scenarios=() s i rc=0 pids=() jobs=${MOLECULE_JOBS:-1}
  for s in ${MOLECULE_ORDER:-} $(cd "$repo/extensions/molecule" 2>/dev/null && ls); do
    case " ${scenarios[*]} " in *" $s "*) continue ;; esac
    [ -e "$repo/extensions/molecule/$s/molecule.yml" ] && scenarios+=("$s")
  done
  [ ${#scenarios[@]} -gt 0 ] || { echo "(no molecule scenarios yet)"; return 0; }
  if [ "$jobs" -le 1 ]; then
    for s in "${scenarios[@]}"; do molecule_scenario "$s" || rc=1; done
    return $rc
  fi
  rm -f "$log_dir"/molecule-part*.exit
  for ((i = 0; i < jobs; i++)); do
    local mine=() k
    for k in "${!scenarios[@]}"; do [ $((k % jobs)) != "$i" ] || mine+=("${scenarios[$k]}"); done
    [ ${#mine[@]} -gt 0 ] || continue
    echo "molecule part $i: ${mine[*]} (its output: $log_dir/molecule-part$i.log)"
    (r=0; for s in "${mine[@]}"; do molecule_scenario "$s" || r=1; done; echo $r > "$log_dir/molecule-part$i.exit"
     exit $r) > "$log_dir/molecule-part$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    if [ "$(cat "$log_dir/molecule-part$i.exit" 2>/dev/null)" = 0 ]; then echo "molecule part $i passed"; else rc=1; echo "molecule part $i FAILED"; fi
  done
  cat "$log_dir"/molecule-part*.log
  return $rc
}

# A few lines that say why STAGE failed, from its log: the failing tests, the failing target and its last
# unignored failure, the sanity errors.
why_failed() {
  local stage=$1 file="$log_dir/$1.log"
  [ -f "$file" ] || return 0
  case $stage in
    unit|sandbox) grep -E '^(FAILED|ERROR) ' "$file" | head -6 ;;
    matrix) grep -E '^matrix: .*FAILED|^    ' "$file" | head -8 ;;
    galaxy) grep -E 'ERROR|^galaxy' "$file" | tail -6 ;;
    oldest) grep -E '^failed stages|^  [a-z]+: ' "$file" | head -6 ;;
    real-runs) grep -E '^(missing|real runs|note)' "$file" | head -8 ;;
    sanity) grep -E '^ERROR: ' "$file" | head -6 ;;
    lint|docs) grep -vE '^\s*$' "$file" | tail -4 ;;
    molecule)
      # each scenario step that failed, with the last failure before it (the parts' logs are concatenated, so
      # the log's last failure may be another scenario's, rescued)
      awk '/INFO +\[[^]]+ > [a-z_]+\] Executing/ {match($0, /\[[^]]+\]/); at = substr($0, RSTART, RLENGTH)}
           /^fatal: |^failed: / {f = $0; next}
           /\.\.\.ignoring/ {f = ""; next}
           /^CRITICAL Ansible return code/ {print at " failed: " (f != "" ? f : $0); f = ""}' "$file" | head -4 ;;
    integration)
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
  case $stage in sandbox|integration|molecule|oldest) ;; *) return 0 ;; esac
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
# run_stage S: one stage, its output in $log_dir/S.log (and on this run's output unless it runs beside others);
# ends with the stage's line, and its result in $log_dir/S.rc
# The stage runs in a subshell that writes its own children's CPU to $log_dir/S.cpu: this shell's children also
# take in the lanes and the stages beside, which bash reaps whenever they end, inside another stage's window
stage_in_subshell() {
  local s=$1 c
  ( "stage_$s"; r=$?; children_cpu c; echo "$c" > "$log_dir/$s.cpu"; exit $r )
}
run_stage() {
  local s=$1 quiet=${2:-} t0=$SECONDS rc cpu
  rm -f "$log_dir/$s.cpu"
  case $s in
    sandbox|integration|molecule) wait_sandbox ;;
    oldest) wait_sandbox && wait_prepared ;;
  esac
  if [ $? = 0 ]; then
    if [ -n "$quiet" ]; then stage_in_subshell "$s" > "$log_dir/$s.log" 2>&1; rc=$?
    else stage_in_subshell "$s" 2>&1 | tee "$log_dir/$s.log"; rc=${PIPESTATUS[0]}; fi
  else
    rc=1
  fi
  cpu=$(cat "$log_dir/$s.cpu" 2>/dev/null || echo "?")
  if [ "$rc" = 0 ]; then log "stage $s passed in $((SECONDS - t0)) s ($cpu CPU-s)"
  else log "stage $s FAILED after $((SECONDS - t0)) s ($cpu CPU-s)"; fi
  echo "$rc" > "$log_dir/$s.rc"
  return "$rc"
}
count_stage() {  # count_stage S RC
  if [ "$2" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names+=("$1"); fi
  [ $up_failed = 1 ] || check_sandbox "$1"
}
# TEST_BESIDE: stages that run beside the others on the same sandbox (lane 2 runs molecule beside integration:
# each seeds names of its own, and one after the other they were the run's longest lane); their output goes to
# their logs only
beside=() beside_pids=() rest=()
for s in "${stages[@]}"; do
  if printf '%s\n' ${TEST_BESIDE:-} | grep -qx "$s" && [ ${#stages[@]} -gt 1 ]; then beside+=("$s"); else rest+=("$s"); fi
done
[ ${#beside[@]} = 0 ] || wait_sandbox || true
for s in "${beside[@]}"; do
  log "stage: $s (beside the others; its output: $log_dir/$s.log)"
  run_stage "$s" quiet &
  beside_pids+=($!)
done
for s in "${rest[@]}"; do
  log "stage: $s"
  run_stage "$s"
  count_stage "$s" $?
done
for i in "${!beside[@]}"; do
  wait "${beside_pids[$i]}"; rc=$?
  count_stage "${beside[$i]}" "$rc"
  [ "$rc" = 0 ] || tail -30 "$log_dir/${beside[$i]}.log"
done
wait_sandbox >/dev/null 2>&1
stop_sandbox
lane_why=()
for i in "${!lane_pids[@]}"; do
  n=${lane_names[$i]} out=${lane_outs[$i]}
  log "waiting for lane $n ($out)"
  wait "${lane_pids[$i]}"
  # its stage lines, and its own summary of what failed and why
  grep -E '^==== |^matrix: |^failed stages|^  [a-z]+: |^stages: |^the sandbox ' "$out" | sed "s/^/lane $n | /"
  l=$(sed -n 's/^stages: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$out" | tail -1)
  if [ -n "$l" ]; then
    passed=$((passed + ${l% *})); failed=$((failed + ${l#* }))
    [ "${l#* }" = 0 ] || { failed_names+=("(lane $n: see above)"); lane_why+=("$out:$n"); }
  else
    failed=$((failed + 1)); failed_names+=("lane$n"); echo "lane $n ended without a summary; the end of its output:"
    tail -20 "$out"
  fi
done
lane_pids=()
# the meta-test, once every lane has ended: a module or playbook without a real run fails the run
if [ "$real_runs_check" = 1 ]; then
  log "stage: real-runs (records: $TEARDOWN_GATES_REAL_RUNS_DIR)"
  "$venv/bin/python" "$repo/tests/coverage/check_real_runs.py" "$TEARDOWN_GATES_REAL_RUNS_DIR" 2>&1 | tee "$log_dir/real-runs.log"
  if [ "${PIPESTATUS[0]}" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names+=("real-runs"); fi
fi
# what the playbook runs cost, for whoever makes the run faster (not a check)
if [ -z "${TEST_LANE:-}" ] && [ -n "$(ls "$TEARDOWN_GATES_REAL_RUNS_DIR" 2>/dev/null)" ]; then
  "$venv/bin/python" "$repo/tests/coverage/run_costs.py" "$TEARDOWN_GATES_REAL_RUNS_DIR" > "$log_dir/run-costs.log" 2>&1
  head -12 "$log_dir/run-costs.log"
fi
if [ $failed != 0 ] || [ ${#sandbox_broken[@]} != 0 ]; then
  [ $failed = 0 ] || echo "failed stages: ${failed_names[*]} (whole logs in $log_dir)"
  for s in "${failed_names[@]}"; do why_failed "$s"; done
  # a failed lane's own reasons again, here at the end: CI shows only the end of the run's output
  for w in "${lane_why[@]}"; do grep -E '^  [a-z-]+: ' "${w%:*}" | sed "s/^/lane ${w##*:} | /"; done
  for b in "${sandbox_broken[@]}"; do echo "  sandbox broken $b"; done
fi
[ -n "${TEST_LANE:-}" ] || log "the whole run: $((SECONDS - run_t0)) s, the machine busy $(( $(machine_cpu) - run_m0 )) CPU-s of $(( $(getconf _NPROCESSORS_ONLN) * (SECONDS - run_t0) )), $(( $(machine_steal) - run_s0 )) CPU-s stolen by the host"
echo "stages: $passed passed, $failed failed"
[ $failed = 0 ]
