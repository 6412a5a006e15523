#!/usr/bin/env bash
# galaxy-importer on the built tarball: the checks Galaxy and Automation Hub run when a collection is uploaded
# (MANIFEST.json and FILES.json, galaxy.yml's fields and Automation Hub's required tags, a README for the
# collection and for every role, a changelog, ansible-doc on every plugin, meta/runtime.yml, the execution
# environment's dependency files, ansible-lint's production profile, and the sanity ignore files).
#
#   bash tests/galaxy_importer.sh
#
# The importer and its tools (PyPI's ansible, ansible-lint, ansible-builder) live in a virtualenv of their own,
# ~/.cache/teardown-gates/venvs/galaxy-importer-<checksum>, made once from requirements-galaxy.txt with Python 3.12 (made again when that file
# changes). Offline, and no container: the importer's own ansible-test runner only runs `ansible-test sanity
# --docker`, so it is off here; `make sanity` / `make matrix` run ansible-test sanity on every admitted core.
# Its output is kept in build/galaxy-importer/importer.log. The run fails on any ERROR the importer logs, on any
# WARNING (an ansible-lint finding, an ignore file, a missing changelog ...), and when the importer does not end
# with "Importer processing completed successfully". The last line printed starts with "galaxy-importer:".
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
exec </dev/null
root="${GALAXY_IMPORTER_ROOT:-$repo/build/galaxy-importer}"
reqs="$repo/requirements-galaxy.txt"
# The virtualenv lives in the build cache, keyed by requirements-galaxy.txt's checksum: CI runs in a fresh clone
# each time, and making it there each time cost minutes
cache="${TEARDOWN_GATES_CACHE:-$HOME/.cache/teardown-gates}"
want_sum=$(sha256sum "$reqs" | cut -d' ' -f1)
venv="${GALAXY_IMPORTER_VENV:-$cache/venvs/galaxy-importer-${want_sum:0:12}}"
stamp="$venv/.bootstrapped"
want_py=3.12

say() { printf 'galaxy-importer: %s\n' "$*"; }
t0=$SECONDS

# The same Python as the Makefile: PYTHON when it is a 3.12, else pyenv's real 3.12 (never its shims), else
# python3.12 on PATH.
is_312() { [ -n "$1" ] && "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; }
python="${PYTHON:-}"
is_312 "$python" || python=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$want_py".*/bin/python"$want_py" 2>/dev/null | sort -V | tail -1)
is_312 "$python" || python=$(command -v "python$want_py" 2>/dev/null | grep -v /shims/)
if ! is_312 "$python"; then
  say "FAILED: Python $want_py is needed (looked at PYTHON, in ~/.pyenv/versions/$want_py.*/bin and for python$want_py on PATH)"
  exit 2
fi

# One run at a time in this folder (two developers in one tree would share the virtualenv and the tarball)
mkdir -p "$root"
exec 9>"$root/.lock"
flock 9

# The virtualenv, once: the stamp holds the checksum of requirements-galaxy.txt it was made from. One maker at a
# time (two clones may share the cache).
mkdir -p "$(dirname "$venv")"
exec 8>"$venv.lock"
flock 8
if [ "$(cat "$stamp" 2>/dev/null)" != "$want_sum" ] || ! "$venv/bin/python" -c '' 2>/dev/null; then
  say "making $venv from requirements-galaxy.txt (a few minutes, once)"
  rm -rf "$venv"
  if ! bash "$(dirname "${BASH_SOURCE[0]}")/../tools/mkvenv.sh" "$venv" "$python" -r "$reqs" >"$root/venv.log" 2>&1; then
    tail -20 "$root/venv.log"
    say "FAILED: could not make the virtualenv (its log: $root/venv.log)"
    exit 1
  fi
  echo "$want_sum" > "$stamp"
fi
exec 8>&-

# Read before the environment is cleared below: make test's lint stage runs the same profile over more files
run_lint="${GALAXY_IMPORTER_LINT:-true}"
# Only this virtualenv's tools and the collections PyPI's ansible brings: nothing of the caller's .venv
# (make test exports its PATH, ANSIBLE_COLLECTIONS_PATH to this checkout, PYTHONPATH), no ansible.cfg.
for v in $(compgen -e); do case $v in ANSIBLE_*|GALAXY_IMPORTER_*) unset "$v" ;; esac; done
unset PYTHONPATH VIRTUAL_ENV
export PATH="$venv/bin:$PATH"
: > "$root/ansible.cfg"
export ANSIBLE_CONFIG="$root/ansible.cfg"

# The tarball, as `make build` makes it, into a folder of its own
dist="$root/dist"
rm -rf "$dist" && mkdir -p "$dist"
if ! "$venv/bin/ansible-galaxy" collection build --force --output-path "$dist" "$repo" >"$root/build.log" 2>&1; then
  cat "$root/build.log"
  say "FAILED: ansible-galaxy collection build"
  exit 1
fi
tarball=$(ls "$dist"/*.tar.gz 2>/dev/null | head -1)
[ -n "$tarball" ] || { cat "$root/build.log"; say "FAILED: no tarball in $dist"; exit 1; }

# The importer's settings (an ini file named by GALAXY_IMPORTER_CONFIG). Everything it writes stays in $root.
work="$root/work"
rm -rf "$work" && mkdir -p "$work/tmp" "$work/ansible-tmp"
cat > "$root/galaxy-importer.cfg" <<EOF
[galaxy-importer]
log_level_main = INFO
# ansible-doc on every plugin, ansible-lint --profile production --offline (GALAXY_IMPORTER_LINT=false leaves it
# to make test's lint stage, the same profile over more files), the changelog
run_ansible_doc = true
run_ansible_lint = $run_lint
offline_ansible_lint = true
check_changelog = true
# Automation Hub's: one of its required tags in galaxy.yml
check_required_tags = true
# its local runner is ansible-test sanity --docker (no container here): make sanity and make matrix run it
run_ansible_test = false
ansible_test_local_image = false
ansible_local_tmp = $work/ansible-tmp
tmp_root_dir = $work/tmp
EOF
export GALAXY_IMPORTER_CONFIG="$root/galaxy-importer.cfg"

log="$root/importer.log"
(cd "$work" && "$venv/bin/python" -m galaxy_importer.main "$tarball") >"$log" 2>&1
rc=$?
last=$(grep -v '^[[:space:]]*$' "$log" | tail -1)
errors=$(grep -cE '^(ERROR|CRITICAL)\b|Traceback \(most recent call last\)' "$log")
warnings=$(grep -cE '^WARNING\b' "$log")
if [ "$errors" != 0 ] || [ "$warnings" != 0 ]; then
  grep -E '^(ERROR|CRITICAL|WARNING)\b' "$log" | head -40
fi
echo "$last"
took=$((SECONDS - t0))
if [ $rc != 0 ] || [ "$errors" != 0 ] || [ "$warnings" != 0 ] || [ "$last" != "Importer processing completed successfully" ]; then
  # the importer gives ansible-lint 180 s; on a busy machine that bound, not the content, can be what failed
  grep -q 'Timeout on call to ansible-lint' "$log" && \
    say "ansible-lint ran past the importer's 180 s bound (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
  say "FAILED on $(basename "$tarball"): exit $rc, $errors error(s), $warnings warning(s) in $took s (whole output: $log)"
  exit 1
fi
if [ "$run_lint" = true ]; then lint_said="its ansible-lint pass included"; else lint_said="its ansible-lint pass left to the lint stage"; fi
say "passed on $(basename "$tarball"): no error, no warning, in $took s, $lint_said (whole output: $log)"
