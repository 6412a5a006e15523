# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.core.values import as_bool, json_or_value, printed
from ansible_collections.teardown.gates.plugins.plugin_utils import filter_input


def test_printed_prints_none_as_nothing():
    assert (printed(None), printed(0), printed("x"), printed(False)) == ("", "0", "x", "False")


@pytest.mark.parametrize("value", [True, 1, 1.0, "yes", "On", "TRUE", "1", b"true"])
def test_as_bool_true_as_the_bool_filter_of_2_16(value):
    assert as_bool(value) is True


@pytest.mark.parametrize("value", [None, False, 0, 2, "no", "", "2026-01-01T00:00:00Z", [], {"a": 1}])
def test_as_bool_anything_else_is_false(value):
    assert as_bool(value) is False


def test_json_or_value_decodes_text_and_keeps_the_rest():
    assert json_or_value('{"a": 1}', ValueError) == {"a": 1}
    assert json_or_value(b"[1]", ValueError) == [1]
    assert json_or_value("  ", ValueError) is None and json_or_value(None, ValueError) is None
    assert json_or_value({"a": 1}, ValueError) == {"a": 1}


def test_json_or_value_raises_what_the_caller_says():
    class Mine(Exception):
        pass
    with pytest.raises(Mine, match="^bad: "):
        json_or_value("not json", lambda e: Mine("bad: %s" % e))


def test_the_filters_use_these_very_functions():
    assert (filter_input.printed, filter_input.as_bool, filter_input.json_or_value) == (printed, as_bool, json_or_value)
