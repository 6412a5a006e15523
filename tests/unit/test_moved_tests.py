"""A test kept out of `make test` says, in a comment beside it, which test in `make test` still covers its
behaviour (issue 36): each sandbox test behind TEARDOWN_GATES_SLOW_TESTS, and each integration target with the
alias `disabled`. The phrase looked for is "`make test` covers it" or "`make test` still covers", over comment
lines joined, so a sentence may wrap."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SANDBOX_TESTS = sorted((REPO / "tests/sandbox/tests").glob("test_*.py"))
DISABLED_TARGETS = sorted(p.parent for p in (REPO / "tests/integration/targets").glob("*/aliases")
                          if "disabled" in p.read_text().split())

NAMES_ITS_COUNTERPART = re.compile(r"`make test` (still covers|covers it)")
# the marks that keep a sandbox test out of `make test` (conftest.SLOW is the skip on TEARDOWN_GATES_SLOW_TESTS)
KEPT_OUT = re.compile(r"^\s*@SLOW\b|TEARDOWN_GATES_SLOW_TESTS\"\)")
LOOK_BACK = 12  # lines above a mark where its comment may start


def _joined(lines):
    """Comment and docstring lines as one text: markers dropped, whitespace collapsed."""
    return " ".join(re.sub(r"^\s*#\s?", "", line).strip() for line in lines)


def _docstring(lines):
    text = "\n".join(lines)
    found = re.match(r'\s*(?:"""|\'\'\')(.*?)(?:"""|\'\'\')', text, re.S)
    return found.group(1) if found else ""


def kept_out_without_counterpart(text):
    """The line numbers (1-based) of marks in a test file whose comment names no counterpart in `make test`. A
    module-wide mark (pytestmark) may name it in the module's docstring instead."""
    lines = text.splitlines()
    missing = []
    for i, line in enumerate(lines):
        if not KEPT_OUT.search(line) or line.lstrip().startswith("reason="):
            continue
        near = _joined(lines[max(0, i - LOOK_BACK):i + 1])
        if line.lstrip().startswith("pytestmark") or lines[i - 1].lstrip().startswith("pytestmark"):
            near += " " + _joined(_docstring(lines).splitlines())
        if not NAMES_ITS_COUNTERPART.search(near):
            missing.append(i + 1)
    return missing


@pytest.mark.parametrize("path", SANDBOX_TESTS, ids=lambda p: p.name)
def test_each_sandbox_test_kept_out_names_its_counterpart(path):
    assert kept_out_without_counterpart(path.read_text()) == [], (
        "%s: say beside each mark which test in `make test` still covers it ('Where `make test` covers it: ...')"
        % path.relative_to(REPO))


@pytest.mark.parametrize("target", DISABLED_TARGETS, ids=lambda p: p.name)
def test_each_disabled_target_names_its_counterpart(target):
    main = [p for p in (target / "runme.sh", target / "tasks/main.yml") if p.exists()]
    assert main, "%s has neither runme.sh nor tasks/main.yml" % target.name
    assert NAMES_ITS_COUNTERPART.search(_joined(main[0].read_text().splitlines())), (
        "%s: say which test in `make test` still covers it" % main[0].relative_to(REPO))


def test_the_marks_are_found_and_the_check_can_fail():
    assert DISABLED_TARGETS, "no disabled target found: the alias file's format changed?"
    assert sum(1 for p in SANDBOX_TESTS for line in p.read_text().splitlines() if KEPT_OUT.search(line)) >= 5
    bare = "import os\n\n\n@SLOW  # a minute each\ndef test_x():\n    pass\n"
    assert kept_out_without_counterpart(bare) == [4]
    named = "# Out of `make test`. Where\n# `make test` covers it: test_y.\n@SLOW\ndef test_x():\n    pass\n"
    assert kept_out_without_counterpart(named) == []
    module_wide = ('"""Slow. Where `make test` covers it: test_y."""\nimport os\n'
                   'pytestmark = pytest.mark.skipif(os.environ.get("TEARDOWN_GATES_SLOW_TESTS") != "1",\n'
                   '                                reason="slow")\n')
    assert kept_out_without_counterpart(module_wide) == []
    assert kept_out_without_counterpart(module_wide.replace("Where `make test` covers it", "Nothing")) == [3]
