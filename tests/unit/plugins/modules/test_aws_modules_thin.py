# -*- coding: utf-8 -*-
"""Thin AWS modules (#32): each AWS module's main() builds the AnsibleAWSModule, calls its run in module_utils
through aws_args.checked, and exits; it holds no rule, no try/except (client creation included) and no failure
ladder of its own, and runs 40 lines at most."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

import pytest

MODULES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))), "plugins", "modules")
AWS_MODULES = ["aws_infra_cleanup", "aws_infra_inventory", "aws_orphan_inventory", "aws_permission_preflight",
               "permission_preflight",
               "hosted_cluster_baseline",
               "cloudformation_teardown", "target_guard", "teardown_verify"]
MAX_LINES = 40


def _tree(name):
    with open(os.path.join(MODULES, name + ".py")) as f:
        return ast.parse(f.read())


def _main(tree):
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"]
    assert len(found) == 1
    return found[0]


def _called(node):
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            names.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None))
    return names


def test_every_aws_module_is_listed():
    found = set()
    for f in os.listdir(MODULES):
        if f.endswith(".py"):
            with open(os.path.join(MODULES, f)) as fh:
                if "AnsibleAWSModule(" in fh.read():
                    found.add(f[:-3])
    assert found == set(AWS_MODULES)


@pytest.mark.parametrize("name", AWS_MODULES)
def test_main_is_thin(name):
    main = _main(_tree(name))
    assert main.end_lineno - main.lineno + 1 <= MAX_LINES
    assert {"AnsibleAWSModule", "checked", "exit_json"} <= _called(main)
    assert not {"fail_json", "fail_json_aws", "fail_from"} & _called(main)


@pytest.mark.parametrize("name", AWS_MODULES)
def test_no_try_and_no_other_function_in_the_module(name):
    tree = _tree(name)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Try)], "%s has a try statement" % name
    assert [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))] == ["main"]


def test_the_check_catches_a_fat_main():
    source = "def main():\n    try:\n        x = 1\n    except Exception:\n        pass\n" + "    y = 2\n" * 40
    main = _main(ast.parse(source))
    assert main.end_lineno - main.lineno + 1 > MAX_LINES
    assert [n for n in ast.walk(main) if isinstance(n, ast.Try)]
