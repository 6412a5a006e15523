#!/usr/bin/env bash
# `make matrix`: the collection tested on every ansible-core that meta/runtime.yml's requires_ansible admits.
#
#   tests/matrix.sh                 ansible-test sanity on each core of LEGS, MATRIX_JOBS (default 2) at a time
#   tests/matrix.sh oldest|newest   integration targets and molecule scenarios on that leg (needs the sandbox);
#                                   newest also runs the sandbox tests with the slow ones (TEARDOWN_GATES_SLOW_TESTS=1)
#
# Each leg is a virtualenv in ~/.cache/teardown-gates/matrix/<core> (MATRIX_VENVS) made with a Python that core supports as a controller, holding
# that ansible-core and the sanity requirements its own ansible-test ships (_data/requirements/sanity.*.txt).
# kubernetes.core and amazon.aws come from the PyPI `ansible` package released with that core or the oldest one
# whose collections still fit requirements.yml (ansible 11: kubernetes.core 5, amazon.aws 9; ansible 9 and 10
# bundle older ones), installed with --no-deps into ~/.cache/teardown-gates/matrix/collections-<ansible>. Logs and
# ansible-test's copies are in build/matrix/ (MATRIX_ROOT).
# The end of the run prints one line per leg: "matrix: ansible-core X on Python Y (collections of ansible Z): passed|FAILED".
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
exec </dev/null
root="${MATRIX_ROOT:-$repo/build/matrix}"  # logs and ansible-test copies: this checkout's
# The virtualenvs and the collections live in the build cache, not in the checkout: CI runs in a fresh clone each
# time, and making them there each time cost minutes. Each says what it was made from in its .done stamp.
venvs="${MATRIX_VENVS:-${TEARDOWN_GATES_CACHE:-$HOME/.cache/teardown-gates}/matrix}"
mkdir -p "$venvs"
pyenv="${PYENV_ROOT:-$HOME/.pyenv}/versions"
mkdir -p "$root"

# core  python  ansible (collections)  - the Pythons are within each core's controller support:
# 2.16, 2.17: 3.10 to 3.12; 2.18, 2.19: 3.11 to 3.13; 2.20, 2.21: 3.12 to 3.14
LEGS=(
  "2.16.19 3.11 11.13.0"
  "2.17.14 3.12 11.13.0"
  "2.18.19 3.13 11.13.0"
  "2.19.14 3.11 12.3.0"
  "2.20.10 3.13 13.8.0"
  "2.21.5 3.12 14.5.0"
)

python_for() {  # the real interpreter, never pyenv's shims
  local v=$1 p
  p=$(ls -d "$pyenv/$v".*/bin/python"$v" 2>/dev/null | sort -V | tail -1)
  [ -n "$p" ] || p=$(command -v "python$v" 2>/dev/null | grep -v /shims/)
  [ -n "$p" ] || { echo "matrix: Python $v is missing (pyenv install $v, or python$v on PATH)" >&2; return 1; }
  echo "$p"
}

collections_for() {  # <cache>/matrix/collections-<ansible>/ansible_collections
  local ver=$1 dir="$venvs/collections-$1" have
  # the default .venv's own PyPI ansible, when it is that release: no second download
  have=$("$repo/.venv/bin/python" -c 'import importlib.metadata as m, sysconfig; print(m.version("ansible"), sysconfig.get_paths()["purelib"])' 2>/dev/null)
  if [ "${have%% *}" = "$ver" ] && [ -d "${have#* }/ansible_collections" ]; then echo "${have#* }/ansible_collections"; return; fi
  if [ ! -e "$dir/.done" ]; then
    rm -rf "$dir"
    bash "$repo/tools/mkvenv.sh" --target "$dir" "$repo/.venv/bin/python" --no-deps "ansible==$ver" >&2 || return 1
    touch "$dir/.done"
  fi
  echo "$dir/ansible_collections"
}

leg_venv() {  # <cache>/matrix/<core>: that core and its own sanity requirements
  local core=$1 pyv=$2 dir="$venvs/$1" py
  if [ ! -e "$dir/.done" ]; then
    py=$(python_for "$pyv") || return 1
    bash "$repo/tools/mkvenv.sh" "$dir" "$py" "ansible-core==$core" >&2 || return 1
    local reqs
    reqs=$("$dir/bin/python" -c 'import ansible_test, pathlib; print(pathlib.Path(ansible_test.__file__).parent / "_data/requirements")')
    # the sanity tests' pins, minus what names PowerShell; one file per test, so the same pin may repeat
    cat "$reqs"/sanity.*.txt | grep -vE '^\s*(#|$)' | sort -u > "$dir/sanity-requirements.txt"
    bash "$repo/tools/mkvenv.sh" --into "$dir" "$py" -r "$dir/sanity-requirements.txt" >&2 || return 1
    touch "$dir/.done"
  fi
  echo "$dir"
}

sanity_leg() {  # one leg's sanity; its output in build/matrix/logs/<core>/sanity.log
  local core=$1 pyv=$2 ans=$3 venv deps
  venv=$(leg_venv "$core" "$pyv") || { echo "setup failed (virtualenv)"; return 1; }
  deps=$(collections_for "$ans") || { echo "setup failed (collections of ansible $ans)"; return 1; }
  SANITY_VENV="$venv" DEPS_COLLECTIONS="$deps" TEST_COPY_ROOT="$root/copy-$core" TEST_LOG_DIR="$root/logs/$core" \
    bash "$repo/tests/run_all.sh" sanity > "$root/logs/$core.out" 2>&1
  local rc=$?
  echo "$rc" > "$root/logs/$core.exit"
  return $rc
}

run_sanity() {
  local jobs=${MATRIX_JOBS:-2} leg core pyv ans pids=() names=() i rc=0
  mkdir -p "$root/logs"
  rm -f "$root"/logs/*.exit
  # the venvs first, one at a time (pip is not safe to run twice into one cache at once on a small disk), and one
  # maker at a time: checkouts share the cache
  exec 7>"$venvs/.lock"; flock 7
  for leg in "${LEGS[@]}"; do
    read -r core pyv ans <<<"$leg"
    leg_venv "$core" "$pyv" >/dev/null || echo "matrix: setup of ansible-core $core on Python $pyv failed" >&2
    collections_for "$ans" >/dev/null || echo "matrix: collections of ansible $ans failed" >&2
  done
  exec 7>&-
  for leg in "${LEGS[@]}"; do
    read -r core pyv ans <<<"$leg"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 2; done
    echo "matrix: [$(date -u +%H:%M:%S)] sanity of ansible-core $core on Python $pyv started" >&2
    sanity_leg "$core" "$pyv" "$ans" &
    pids+=($!); names+=("$leg")
  done
  for i in "${!pids[@]}"; do
    read -r core pyv ans <<<"${names[$i]}"
    wait "${pids[$i]}"; local waited=$?
    # the leg's own word decides: on 2026-12-03 `wait` reported a failure for the 2.17 leg, whose run had exited 0
    # (its log ending "stages: 1 passed, 0 failed"); bash reaps the legs among the lane's many children
    local said; said=$(cat "$root/logs/$core.exit" 2>/dev/null)
    [ "$said" = "$waited" ] || echo "matrix: ansible-core $core: wait said $waited, the leg exited ${said:-(no word)}" >&2
    if [ "$said" = 0 ]; then
      echo "matrix: ansible-core $core on Python $pyv (collections of ansible $ans): sanity passed"
    else
      rc=1
      echo "matrix: ansible-core $core on Python $pyv (collections of ansible $ans): sanity FAILED ($root/logs/$core.out)"
      grep -E '^ERROR: ' "$root/logs/$core/sanity.log" 2>/dev/null | head -4 | sed 's/^/    /'
    fi
  done
  return $rc
}

# integration targets and molecule scenarios on one leg, with that core in a virtualenv of the leg's Python that
# also holds the test tooling (requirements-dev.txt, with that core's ansible-core and ansible)
full_venv() {  # <cache>/matrix/full-<core>: the oldest leg's core with the test tooling; prints its path
  local leg=${LEGS[0]} core pyv ans dir py
  read -r core pyv ans <<<"$leg"
  dir="$venvs/full-$core"
  # made again when requirements-dev.txt changes (the stamp holds its checksum)
  local want; want=$(sha256sum "$repo/requirements-dev.txt" | cut -d' ' -f1)
  exec 8>"$dir.lock"; flock 8  # one maker at a time: checkouts share the cache
  if [ "$(cat "$dir/.done" 2>/dev/null)" != "$want" ]; then
    py=$(python_for "$pyv") || return 1
    local reqs; reqs=$(mktemp)
    grep -vE '^(ansible|ansible-core)==' "$repo/requirements-dev.txt" > "$reqs"
    bash "$repo/tools/mkvenv.sh" "$dir" "$py" "ansible-core==$core" -r "$reqs" && \
      bash "$repo/tools/mkvenv.sh" --into "$dir" "$py" --no-deps "ansible==$ans" || { rm -f "$reqs"; return 1; }
    mv "$reqs" "$dir/requirements.txt"
    echo "$want" > "$dir/.done"
  fi >&2
  exec 8>&-
  echo "$dir"
}

run_full() {
  local which=$1 dir
  case $which in oldest|newest) ;; *) echo "usage: $0 [oldest|newest]" >&2; return 2 ;; esac
  if [ "$which" = newest ]; then  # the default .venv is the newest leg; the minutes-long sandbox tests run here
    TEARDOWN_GATES_SLOW_TESTS=1 bash "$repo/tests/run_all.sh" sandbox integration molecule; return
  fi
  dir=$(full_venv) || { echo "matrix: setup of the oldest leg's virtualenv failed" >&2; return 1; }
  local core=${dir##*/full-}
  "$dir/bin/ansible" --version | head -1
  local site; site=$("$dir/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  TEST_VENV="$dir" TEST_COPY_ROOT="$root/copy-full-$core" TEST_LOG_DIR="$root/logs/full-$core" \
    ANSIBLE_COLLECTIONS_PATH="$repo/.venv/collections:$site" bash "$repo/tests/run_all.sh" integration molecule
}

case ${1:-sanity} in
  sanity) run_sanity ;;
  oldest|newest) run_full "$1" ;;
  full-venv) full_venv ;;  # tests/run_all.sh's oldest lane: the path of that virtualenv, made when missing
  *) echo "usage: $0 [sanity|oldest|newest|full-venv]" >&2; exit 2 ;;
esac
