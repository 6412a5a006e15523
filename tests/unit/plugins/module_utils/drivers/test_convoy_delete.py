# -*- coding: utf-8 -*-
"""drivers/convoy_delete.py: the convoy_delete module's input rule (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.drivers import convoy_delete as C


def test_every_object_needs_its_name_and_uid():
    assert C.input_error([{"name": "a", "uid": "u"}]) is None
    assert C.input_error([{"name": "a", "uid": "u"}, {"name": "b"}]) == "objects[1]: missing uid"
    assert C.input_error([{}]) == "objects[0]: missing name, uid"


def test_a_refusal_without_a_missing_permission_adds_nothing():
    assert C._why(ValueError("x")) == ""
