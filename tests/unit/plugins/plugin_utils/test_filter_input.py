# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import (
    as_bool, as_int, dict_list, dicts, one_dict, parsed_dict, plain_list, printed, role_steps)


@pytest.mark.parametrize("value", [True, 1, 1.0, "yes", "On", "1", "TRUE", "true", b"true"])
def test_what_reads_as_true(value):
    assert as_bool(value) is True


@pytest.mark.parametrize("value", [False, None, 0, 2, "no", "False", "", " true", "y", [], {}, b"no"])
def test_what_reads_as_false(value):
    assert as_bool(value) is False


def test_parsed_dict_takes_a_mapping_or_its_json_text():
    assert parsed_dict({"a": 1}, "f", "a mapping") == {"a": 1}
    assert parsed_dict('{"a": 1}', "f", "a mapping") == {"a": 1}
    assert parsed_dict(b'{"a": [1]}', "f", "a mapping") == {"a": [1]}


@pytest.mark.parametrize("value", [None, "", "  \n", b""])
def test_parsed_dict_of_nothing_is_empty(value):
    assert parsed_dict(value, "f", "a mapping") == {}


def test_parsed_dict_refuses_text_that_is_not_json():
    with pytest.raises(AnsibleFilterError, match="^f: expects a mapping, got text that is not JSON"):
        parsed_dict("{not json", "f", "a mapping")


@pytest.mark.parametrize("value", ["[1, 2]", [1], 3])
def test_parsed_dict_refuses_what_is_not_an_object(value):
    with pytest.raises(AnsibleFilterError, match="^f: expects a mapping, got (list|int)"):
        parsed_dict(value, "f", "a mapping")


def test_the_older_helpers():
    assert printed(None) == "" and printed(3) == "3"
    assert plain_list((1, 2), "f", "a list") == [1, 2]
    assert dict_list([{"a": 1}, 2], "f", "a list") == [{"a": 1}]
    assert one_dict({}, "f", "a mapping") == {}
    with pytest.raises(AnsibleFilterError, match="f: expects a list, got dict"):
        plain_list({}, "f", "a list")
    with pytest.raises(AnsibleFilterError, match="f: expects a mapping, got list"):
        one_dict([], "f", "a mapping")


def test_dicts_are_the_mappings_of_a_list_that_may_be_missing():
    assert dicts([{"a": 1}, "b", None, {}]) == [{"a": 1}, {}]
    assert dicts(None) == [] and dicts([]) == []


@pytest.mark.parametrize("value, number", [(5, 5), ("5", 5), ("-3", -3), (2.9, 2), ("2.9", 2), (True, 1), ("x", 0), (None, 0),
                                           ([], 0), ("", 0)])
def test_as_int_reads_a_number_as_the_int_filter_does(value, number):
    assert as_int(value) == number


def test_role_steps_runs_the_step_on_the_value_and_the_arguments_after_it():
    step = role_steps("demo_step", {"pair": lambda value, other="": (value, other), "upper": lambda value: value.upper()})
    assert step.__name__ == "demo_step"
    assert step("a", "pair", "b") == ("a", "b")
    assert step("a", "upper") == "A"


def test_role_steps_refuses_a_step_it_does_not_know_naming_its_steps():
    step = role_steps("demo_step", {"pair": lambda value: value, "upper": lambda value: value})
    with pytest.raises(AnsibleFilterError, match=r"^demo_step: no step 'lower'; the steps are pair, upper$"):
        step("a", "lower")
