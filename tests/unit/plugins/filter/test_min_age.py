# -*- coding: utf-8 -*-
"""The min_age_problem filter: the roles' input check of min_age, the same reading as the modules' (core/age.py)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.filter.min_age import FilterModule


def test_the_filter_names_min_age_and_why_or_is_empty():
    problem = FilterModule().filters()["min_age_problem"]
    assert problem("banana").startswith("min_age: 'banana' is not a duration")
    assert problem(-5).startswith("min_age: -5 is negative")
    assert problem("-5").startswith("min_age: '-5' is negative")
    assert problem(0) == "" and problem("1h") == ""


def test_the_seconds_filter_reads_durations_and_refuses_a_bad_one_naming_min_age():
    import pytest
    from ansible.errors import AnsibleFilterError
    seconds = FilterModule().filters()["min_age_seconds"]
    assert seconds("24h") == 86400 and seconds("0") == 0 and seconds(90) == 90
    with pytest.raises(AnsibleFilterError, match="min_age: 'banana'"):
        seconds("banana")
