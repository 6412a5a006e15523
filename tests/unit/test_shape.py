"""The limits issue #32 sets on the collection's shape, measured by tools/shape.py.

- No module's main() runs over 40 lines: a module builds, calls its driver or run in module_utils, exits.
- No module defines a class: read adaptors and exception classes live in module_utils.
- Role expressions over 200 characters only decrease: LONG_EXPRESSIONS_AT_MOST is the count when this test was
  last tightened; lower it when you shorten one, never raise it (move the decision into Python instead).
- Every plugins/module_utils/<folder>/<file>.py has its unit test file at the mirror path
  tests/unit/plugins/module_utils/<folder>/test_<file>.py (#32 row 8); concern tests over several sources may
  sit beside them.
"""
import importlib.util
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[2]
LONG_EXPRESSIONS_AT_MOST = 0


def _shape():
    spec = importlib.util.spec_from_file_location("shape", REPO / "tools" / "shape.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_module_main_is_at_most_40_lines():
    mains = _shape().module_mains()
    assert len(mains) == len(list((REPO / "plugins" / "modules").glob("*.py")))
    assert [(name, length) for name, length, dummy in mains if length > 40] == []


def test_no_module_defines_a_class():
    assert _shape().module_classes() == []


def test_long_role_expressions_only_decrease():
    long_ones = _shape().long_role_expressions()
    assert len(long_ones) <= LONG_EXPRESSIONS_AT_MOST, "\n".join("%s:%d (%d)" % row for row in long_ones)


def test_the_measure_sees_a_long_expression():
    # the measure itself can fail: a 201-character condition and a 201-character template both count
    shape = _shape()
    condition = "when: " + "x" * 201 + "\n"
    template = "msg: \"{{ " + "y" * 198 + " }}\"\n"
    found = shape._expressions(condition + template)
    assert [len(expression) > 200 for dummy, expression in found] == [True, True]


def _module_utils_without_a_test():
    # tests/unit/plugins/module_utils/<folder>/test_<file>.py mirrors plugins/module_utils/<folder>/<file>.py
    sources = REPO / "plugins" / "module_utils"
    tests = REPO / "tests" / "unit" / "plugins" / "module_utils"
    return sorted(str(source.relative_to(sources)) for source in sources.rglob("*.py")
                  if source.name != "__init__.py"
                  and not (tests / source.parent.relative_to(sources) / ("test_" + source.name)).is_file())


def test_every_module_utils_source_has_a_unit_test_file_at_its_mirror_path():
    assert _module_utils_without_a_test() == []
