#!/usr/bin/env bash
# make changelog: render CHANGELOG.rst from the fragments for the version in galaxy.yml, which is not
# released yet. antsibull-changelog only renders releases, and `release` would consume the fragments
# and record the version as released, so it runs on a throw-away copy; the work tree keeps its
# fragments and changelogs/changelog.yaml untouched.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=$repo/.venv
version=$(sed -n 's/^version: *//p' "$repo/galaxy.yml")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy=$tmp/ansible_collections/teardown/gates
mkdir -p "$copy"
cp -r "$repo/galaxy.yml" "$repo/changelogs" "$repo/plugins" "$repo/meta" "$copy/"
sed -i 's/^keep_fragments: false/keep_fragments: true/' "$copy/changelogs/config.yaml"
# antsibull-changelog runs ansible-doc to name new plugins; it must find this copy and the dependencies.
(cd "$copy" && PATH="$venv/bin:$PATH" \
  ANSIBLE_COLLECTIONS_PATH="$tmp:$(echo "$venv"/lib/python3*/site-packages)" \
  "$venv/bin/antsibull-changelog" release --version "$version" --date "$(date -u +%F)" >/dev/null)
sed "s/^v$version\$/v$version (unreleased)/; s/^=\{${#version}\}=\$/&==============/" \
  "$copy/CHANGELOG.rst" > "$repo/CHANGELOG.rst"
echo "CHANGELOG.rst: $(grep -c '^- ' "$repo/CHANGELOG.rst") entries for v$version (unreleased)"
