# -*- coding: utf-8 -*-
"""One error model (#32): every exception class in plugins/ derives from errors.TeardownGatesError, and
fail_from is the one path from such an error to fail_json."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import importlib
import os

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.core import errors
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError, fail_from, \
    failure_message

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


def test_attributes_default_and_set():
    e = TeardownGatesError("boom")
    assert (str(e), e.unknown, e.partial, e.inspect) == ("boom", False, None, None)
    e = TeardownGatesError("boom", unknown=1, partial={"a": 1}, inspect="the namespace's events")
    assert (e.unknown, e.partial, e.inspect) == (True, {"a": 1}, "the namespace's events")
    with pytest.raises(TypeError):
        TeardownGatesError("boom", unkown=True)  # pylint: disable=pointless-exception-statement


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


class FakeModule:
    def __init__(self):
        self.failed = None

    def fail_json(self, **kwargs):
        self.failed = kwargs
        raise SystemExit(1)


def test_fail_from_names_what_failed_and_returns_partial_and_extra():
    m = FakeModule()
    err = TeardownGatesError("no answer in 10 s", unknown=True, partial={"state": "unknown", "gates": []},
                             inspect="the API server's health")
    with pytest.raises(SystemExit):
        fail_from(m, err, what="read HostedCluster clusters/a", then="nothing was changed", gates=["x"])
    assert m.failed == dict(msg="read HostedCluster clusters/a: no answer in 10 s; nothing was changed; "
                                "inspect: the API server's health", state="unknown", gates=["x"])


def test_fail_from_is_the_plain_message_without_what_or_inspect():
    m = FakeModule()
    with pytest.raises(SystemExit):
        fail_from(m, TeardownGatesError("stack s: DeleteStack failed"), changed=False)
    assert m.failed == dict(msg="stack s: DeleteStack failed", changed=False)
    assert failure_message(TeardownGatesError("x"), what="kind") == "kind: x"


def test_fail_from_an_unforeseen_exception_returns_its_traceback():
    m = FakeModule()
    try:
        raise ValueError("bad host")
    except ValueError as e:
        with pytest.raises(SystemExit):
            fail_from(m, e, what="could not create the API client")
    assert m.failed["msg"] == "could not create the API client: bad host"
    assert "ValueError: bad host" in m.failed["exception"]
    assert sorted(m.failed) == ["exception", "msg"]


def test_partial_cannot_replace_msg():
    m = FakeModule()
    with pytest.raises(SystemExit):
        fail_from(m, errors.TeardownGatesError("real", partial={"msg": "not this", "k": 1}))
    assert m.failed == dict(msg="real", k=1)
