# -*- coding: utf-8 -*-
"""AnsibleModule's exit_json and fail_json raised as exceptions, so that a module's main() can be run in-process
and its result read: ``Exit`` carries what exit_json was given, ``Fail`` what fail_json was. A test module takes
them with ``from module_exit_double import Exit, Fail, no_exit`` (the fixture applies itself to every test there)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.module_utils.basic import AnsibleModule


class Exit(Exception):
    pass


class Fail(Exception):
    pass


@pytest.fixture(autouse=True)
def no_exit(monkeypatch):
    def exit_json(self, **kw):
        raise Exit(kw)

    def fail_json(self, **kw):
        raise Fail(kw)
    monkeypatch.setattr(AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(AnsibleModule, "fail_json", fail_json)
