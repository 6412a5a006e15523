# -*- coding: utf-8 -*-
"""One error model (#32): every exception class in plugins/ derives from errors.TeardownGatesError.

A concern test over all of plugins/ (it walks every source file); what core/errors.py itself does (the base's
attributes, fail_from) is tested in tests/unit/plugins/module_utils/core/test_errors.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import importlib
import os


from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

PLUGINS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "plugins")
PACKAGE = "ansible_collections.teardown.gates.plugins"


def _class_defs():
    """(module name, class name, reachable as a module attribute, base names as written) for every class
    statement in plugins/: those at module level (also inside a module-level try/if) are reachable."""
    out = []
    for root, dummy_dirs, files in os.walk(PLUGINS):
        for f in sorted(files):
            if not f.endswith(".py") or f == "__init__.py":
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, PLUGINS)[:-3].replace(os.sep, ".")
            with open(path) as fh:
                tree = ast.parse(fh.read(), path)
            top = set()

            def module_level(body):
                for node in body:
                    if isinstance(node, ast.ClassDef):
                        top.add(id(node))
                    for attr in ("body", "orelse", "finalbody"):
                        if isinstance(node, (ast.Try, ast.If)) and getattr(node, attr, None):
                            module_level(getattr(node, attr))
                    if isinstance(node, ast.Try):
                        for h in node.handlers:
                            module_level(h.body)
            module_level(tree.body)
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    bases = [ast.unparse(b) if hasattr(ast, "unparse") else ast.dump(b) for b in node.bases]
                    out.append((PACKAGE + "." + rel, node.name, id(node) in top, bases))
    return out


CLASS_DEFS = _class_defs()


def _exception_classes():
    found = []
    for modname, name, reachable, bases in CLASS_DEFS:
        if not reachable:
            continue
        cls = getattr(importlib.import_module(modname), name)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append((modname, name, cls))
    return found


def test_the_walk_finds_the_known_exception_classes():
    # a guard on the walk itself: if it found none of these, the test below would pass vacuously
    names = set(n for dummy, n, dummy_cls in _exception_classes())
    for known in ("ReadFailed", "Refused", "QueryFailed", "DeleteFailed", "InputError", "CheckModeViolation",
                  "Unanswered", "ObjectsNotDeleted", "ResourceLookupError", "Unclear", "Failed", "Unknown",
                  "PlanError", "OrderError", "WatchExpired", "TeardownGatesError"):
        assert known in names


def test_every_exception_class_in_plugins_derives_from_the_base():
    stray = ["%s.%s" % (m, n) for m, n, cls in _exception_classes() if not issubclass(cls, TeardownGatesError)]
    assert stray == [], "exception classes not deriving from errors.TeardownGatesError: %s" % stray


def test_no_exception_class_hides_inside_a_function():
    # a class defined in a function cannot be imported and checked above: none may look like an exception
    hidden = ["%s.%s(%s)" % (m, n, ", ".join(b)) for m, n, reachable, b in CLASS_DEFS
              if not reachable and any(("Error" in x or "Exception" in x or "Failed" in x) for x in b)]
    assert hidden == []


def test_existing_classes_keep_their_attributes_and_messages():
    from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
    from ansible_collections.teardown.gates.plugins.module_utils.cfn.teardown import Failed
    from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift_take_over import Unknown
    e = ResourceLookupError("no kind Foo", unknown=True)
    assert (str(e), e.unknown) == ("no kind Foo", True)
    assert ResourceLookupError("x").unknown is False
    f = Failed("stack s: DeleteStack failed")
    assert (str(f), f.msg, f.args) == ("stack s: DeleteStack failed", "stack s: DeleteStack failed",
                                       ("stack s: DeleteStack failed",))
    assert Unknown("read failed").unknown is True
