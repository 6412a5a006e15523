# -*- coding: utf-8 -*-
"""Every kind in the kind registry (#32) is whole: the files docs/development.md ("Add a teardown kind") lists
exist for it and name it. A kind added to registry.KINDS without its role, playbook, runbook, RBAC file, AWX job
template, runner row, bad-input row, integration target, molecule scenario or chaos case fails here."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SLOTS = ("role", "playbook", "runbook", "rbac", "awx", "runner_row", "bad_input_row", "integration", "molecule",
         "chaos")
# where each slot's file lives (a kind names the file, this says which folder it must be in)
UNDER = {"role": "roles/", "playbook": "playbooks/", "runbook": "docs/", "rbac": "extensions/",
         "awx": "extensions/awx/", "runner_row": "tests/sandbox/", "bad_input_row": "tests/sandbox/tests/test_bad_input.py",
         "integration": "tests/integration/targets/", "molecule": "extensions/molecule/", "chaos": "tests/chaos/"}


def _texts(path):
    """The text of a file, or of every file under a folder."""
    if os.path.isfile(path):
        paths = [path]
    else:
        paths = [os.path.join(d, f) for d, dummy, fs in os.walk(path) for f in fs]
    for p in sorted(paths):
        try:
            with open(p, encoding="utf-8") as fh:
                yield fh.read()
        except (UnicodeDecodeError, OSError):
            continue


def missing(kind):
    """What a kind lacks, in words: a slot it names no file for, a file that is not there, or one that does not
    name the kind."""
    out = []
    files = getattr(kind, "FILES", None) or {}
    # a slot that does not fit a kind (a read-only kind has no change to converge nor to interrupt) is named in
    # NOT_APPLICABLE with the reason, never just left out
    skipped = getattr(kind, "NOT_APPLICABLE", None) or {}
    for slot in SLOTS:
        if slot in skipped:
            if slot in files or len(str(skipped[slot]).strip()) < 20:
                out.append("%s: %s is both named and not applicable, or not applicable without a reason" % (
                    kind.NAME, slot))
            continue
        if slot not in files:
            out.append("%s: no %s named in its FILES" % (kind.NAME, slot))
            continue
        rel, word = files[slot]
        path = os.path.join(ROOT, rel)
        if not rel.startswith(UNDER[slot]):
            out.append("%s: its %s %s is not under %s" % (kind.NAME, slot, rel, UNDER[slot]))
        elif not os.path.exists(path):
            out.append("%s: its %s %s does not exist" % (kind.NAME, slot, rel))
        elif not any(word in text for text in _texts(path)):
            out.append("%s: its %s %s does not mention %r" % (kind.NAME, slot, rel, word))
    return out


@pytest.mark.parametrize("kind", registry.KINDS, ids=lambda k: k.NAME)
def test_every_kind_has_all_its_files(kind):
    assert missing(kind) == []


def test_a_missing_file_fails(monkeypatch):
    kind = registry.by_name("release_prune")
    monkeypatch.setitem(kind.FILES, "chaos", ("tests/chaos/no_such_case.py", "prune_releases.yml"))
    monkeypatch.setitem(kind.FILES, "awx", ("extensions/awx/job_templates.yml", "a kind no template names"))
    monkeypatch.delitem(kind.FILES, "molecule")
    assert missing(kind) == [
        "release_prune: its awx extensions/awx/job_templates.yml does not mention 'a kind no template names'",
        "release_prune: no molecule named in its FILES",
        "release_prune: its chaos tests/chaos/no_such_case.py does not exist"]


def test_a_slot_not_applicable_needs_a_reason(monkeypatch):
    kind = registry.by_name("diagnosis")
    monkeypatch.setitem(kind.NOT_APPLICABLE, "chaos", "")
    assert missing(kind) == ["diagnosis: chaos is both named and not applicable, or not applicable without a reason"]


def test_the_development_guide_names_every_slot_and_the_registry():
    with open(os.path.join(ROOT, "docs", "development.md"), encoding="utf-8") as fh:
        guide = fh.read()
    assert "plugins/module_utils/kinds/registry.py" in guide
    for where in UNDER.values():
        assert where.rstrip("/") in guide, where
