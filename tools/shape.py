#!/usr/bin/env python
"""Print the collection's shape as issue #32 measures it: module main() lengths, classes defined in modules,
failure call sites, and role expressions over 200 characters.

    python tools/shape.py             # a summary
    python tools/shape.py --long      # and every long role expression by file:line

tests/unit/test_shape.py holds the limits; this script only reports.
"""
import ast
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
LONG = 200

# a Jinja expression in a role: {{ ... }}, or the bare expression of when/until/that/failed_when/changed_when
_BRACES = re.compile(r"\{\{.*?\}\}", re.S)
_BARE_KEYS = re.compile(r"^\s*-?\s*(when|until|that|failed_when|changed_when)\s*:\s*(.*)$")


def module_mains():
    """(module file name, main() length in lines, main's first line) for each module."""
    rows = []
    for path in sorted((REPO / "plugins" / "modules").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "main":
                rows.append((path.name, node.end_lineno - node.lineno + 1, node.lineno))
    return rows


def module_classes():
    """(module file name, class name) for each class a module defines."""
    rows = []
    for path in sorted((REPO / "plugins" / "modules").glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                rows.append((path.name, node.name))
    return rows


def failure_calls():
    """{file relative to plugins/: count of fail_json / fail_json_aws calls}."""
    counts = {}
    for path in sorted((REPO / "plugins").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("fail_json", "fail_json_aws"):
                key = str(path.relative_to(REPO / "plugins"))
                counts[key] = counts.get(key, 0) + 1
    return counts


def _expressions(text):
    """(line, expression) for each Jinja expression in a YAML file's text, bare conditions included."""
    found = []
    for match in _BRACES.finditer(text):
        found.append((text.count("\n", 0, match.start()) + 1, " ".join(match.group(0).split())))
    lines = text.splitlines()
    for index, line in enumerate(lines):
        bare = _BARE_KEYS.match(line)
        if not bare:
            continue
        value = bare.group(2).strip()
        if value in ("", "|", ">", "|-", ">-"):
            # a block scalar or a list of conditions: the indented lines below
            indent = len(line) - len(line.lstrip())
            body = []
            for below in lines[index + 1:]:
                if below.strip() and len(below) - len(below.lstrip()) <= indent:
                    break
                body.append(below.strip().lstrip("- ").strip())
            items = [b for b in body if b] if value == "" else [" ".join(body)]
            found.extend((index + 1, item) for item in items if "{{" not in item)
        elif "{{" not in value and not value.startswith("["):
            found.append((index + 1, value))
    return found


def long_role_expressions(limit=LONG):
    """(file relative to the repository, line, length) of each role expression over LIMIT characters."""
    rows = []
    for path in sorted((REPO / "roles").rglob("*.yml")):
        for line, expression in _expressions(path.read_text()):
            if len(expression) > limit:
                rows.append((str(path.relative_to(REPO)), line, len(expression)))
    return rows


def main(argv):
    mains = module_mains()
    print("module main() lines (longest first):")
    for name, length, line in sorted(mains, key=lambda row: -row[1]):
        print("  %-32s %4d  (main at line %d)" % (name, length, line))
    classes = module_classes()
    print("classes defined in modules: %d%s" % (len(classes), "".join("\n  %s: %s" % row for row in classes)))
    calls = failure_calls()
    print("fail_json/fail_json_aws call sites: %d in %d files" % (sum(calls.values()), len(calls)))
    long_ones = long_role_expressions()
    print("role expressions over %d characters: %d" % (LONG, len(long_ones)))
    if "--long" in argv:
        for path, line, length in long_ones:
            print("  %s:%d (%d)" % (path, line, length))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
