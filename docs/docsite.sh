#!/usr/bin/env bash
# The collection's docs site, built the way Ansible's own docsite is (antsibull-docs + Sphinx).
#   docs/docsite.sh lint    antsibull-docs lint-collection-docs --plugin-docs . (schema, markup, references, RST)
#   docs/docsite.sh build   the HTML site into build/docs/build/html (sources in build/docs)
# Needs .venv (the collection and its dependencies) and .venv-docs (requirements-docs.txt; `make docs` makes it).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
mode=${1:-build}
docs_venv="$repo/.venv-docs"
deps_src="$("$repo/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)/ansible_collections"
[ -x "$docs_venv/bin/antsibull-docs" ] || { echo "docsite: $docs_venv is missing; run 'make docs' (it installs requirements-docs.txt)" >&2; exit 2; }
[ -e "$repo/.venv/collections/ansible_collections/teardown/gates" ] || { echo "docsite: .venv is missing; run 'make bootstrap'" >&2; exit 2; }

# antsibull-docs copies the collection and each dependency before reading their docs, and copies a
# folder that sits inside a git checkout with `git ls-files`: kubernetes.core and amazon.aws under
# .venv (ignored by git) would arrive empty and every doc fragment of theirs would be "unknown".
# So they are staged outside the checkout. (The collection itself is copied from git's index:
# a plugin file not yet `git add`-ed is not linted.)
deps=$(mktemp -d "${TMPDIR:-/tmp}/teardown-gates-docs-deps.XXXXXX")
trap 'rm -rf "$deps"' EXIT
for dep in kubernetes/core amazon/aws; do
  mkdir -p "$deps/ansible_collections/${dep%/*}"
  cp -r "$deps_src/$dep" "$deps/ansible_collections/$dep"
done
export PATH="$docs_venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH="$repo/.venv/collections:$deps"

case $mode in
  lint)
    antsibull-docs lint-collection-docs --plugin-docs .
    echo "docsite: lint-collection-docs --plugin-docs: no findings"
    ;;
  build)
    dest="$repo/build/docs"
    rm -rf "$dest" && mkdir -p "$dest"
    antsibull-docs sphinx-init --use-current --squash-hierarchy --fail-on-error --dest-dir "$dest" \
      --project teardown.gates --title "teardown.gates" teardown.gates >/dev/null
    # This machine (and CI) cannot fetch intersphinx inventories from docs.ansible.com, so references
    # into Ansible's own docsite (common_return_values, kubernetes.core.k8s, ...) cannot resolve here.
    # References inside this collection are checked by `docsite.sh lint`; everything else stays -W.
    cat >> "$dest/conf.py" <<'PY'

# teardown.gates: built offline (docs/docsite.sh build): no intersphinx inventories to fetch
intersphinx_mapping = {}
suppress_warnings = ['ref.ref', 'ref.envvar']
PY
    (cd "$dest" && bash ./build.sh)
    echo "docsite: $dest/build/html/index.html"
    ;;
  *) echo "usage: docs/docsite.sh lint|build" >&2; exit 2 ;;
esac
