#!/usr/bin/env bash
# mkvenv.sh DIR PYTHON [REQUIREMENT-ARGS...]: (re)make the virtualenv DIR with PYTHON, with pip in it, and install
# the requirements (pip's own arguments: -r FILE, NAME==VERSION, --no-deps ...).
# mkvenv.sh --into DIR PYTHON REQUIREMENT-ARGS...: install into the virtualenv DIR as it is.
# mkvenv.sh --target DIR PYTHON REQUIREMENT-ARGS...: install the packages' files into the plain folder DIR (made
# anew), for PYTHON, as `pip install --target` does (tests/matrix.sh: PyPI ansible's collections for a sanity leg).
#
# With uv (PyPI's `uv`, pinned below, kept in the build cache) the install takes seconds where pip took minutes:
# uv links the packages from its cache instead of unpacking each wheel again, and CI makes .venv in every fresh
# clone. When uv cannot be had (no index reachable for it), pip does the install as before.
set -euo pipefail
UV_VERSION=0.13.9
into=0 target=0
[ "${1:-}" != --into ] || { into=1; shift; }
[ "${1:-}" != --target ] || { target=1; shift; }
dir=$1 python=$2; shift 2
cache="${TEARDOWN_GATES_CACHE:-$HOME/.cache/teardown-gates}"
tool="$cache/tools/uv-$UV_VERSION"

uv_bin() {
  if [ ! -x "$tool/bin/uv" ]; then
    mkdir -p "$cache/tools"
    (exec 9>"$tool.lock"; flock 9
     [ -x "$tool/bin/uv" ] || { rm -rf "$tool" && "$python" -m venv "$tool" \
       && "$tool/bin/python" -m pip install -q "uv==$UV_VERSION"; } >&2) || return 1
  fi
  echo "$tool/bin/uv"
}

[ $into = 1 ] || rm -rf "$dir"
if [ $target = 1 ]; then
  # PyPI's ansible is some 30,000 files: pip unpacked them for minutes on a new machine, uv in seconds. No
  # bytecode: ansible-test reads these collections, it does not run them many times over
  if uv=$(uv_bin 2>/dev/null); then
    "$uv" pip install -q -p "$python" --target "$dir" "$@"
  else
    "$python" -m pip install -q --target "$dir" "$@"
  fi
  exit 0
fi
if uv=$(uv_bin 2>/dev/null); then
  # the venv module makes it, with the pip and setuptools that Python bundles as before (ansible-test, tests/matrix.sh
  # and the docs call `python -m pip`); pip is upgraded as before
  [ $into = 1 ] || { "$python" -m venv "$dir" && "$uv" pip install -q -p "$dir/bin/python" --upgrade pip; }
  # --compile-bytecode: pip writes every module's .pyc at install time, uv only when asked; without them each of
  # the run's thousands of Python processes compiles ansible, kubernetes and botocore again (this machine sets
  # PYTHONDONTWRITEBYTECODE, so nothing is cached later either): 2.9 CPU-s instead of 1.6 to import them
  [ $# = 0 ] || "$uv" pip install -q --compile-bytecode -p "$dir/bin/python" "$@"
else
  echo "mkvenv: uv $UV_VERSION could not be installed; pip makes $dir" >&2
  [ $into = 1 ] || { "$python" -m venv "$dir" && "$dir/bin/python" -m pip install -q --upgrade pip; }
  [ $# = 0 ] || "$dir/bin/python" -m pip install -q "$@"
fi
