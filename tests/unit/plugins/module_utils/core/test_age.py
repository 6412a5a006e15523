# -*- coding: utf-8 -*-
"""core/age.py: min_age's one duration format (the sweep's), the message that refuses a bad one before any request,
and the decision that keeps what was created less than min_age ago, with its reason."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.core import age
from ansible_collections.teardown.gates.plugins.module_utils.aws import orphans

NOW = datetime.datetime(2026, 12, 5, 2, 0, 0, tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize("value, seconds", [
    ("24h", 86400), ("90m", 5400), ("1d12h", 129600), ("0", 0), (0, 0), (3600, 3600), ("45s", 45), ("2w", 1209600),
    (" 1h 30m ", 5400)])
def test_parse_age_reads_seconds_and_durations(value, seconds):
    assert age.parse_age(value) == seconds


def test_the_sweep_parses_min_age_with_the_same_function():
    assert orphans.parse_age is age.parse_age


@pytest.mark.parametrize("value, why", [(-5, "is negative"), ("-5", "is negative"), ("banana", "is not a duration"),
                                        (True, "is not a duration"), ("1h-", "is not a duration")])
def test_a_bad_min_age_is_a_problem_naming_the_option_and_why(value, why):
    problem = age.min_age_problem(value)
    assert problem.startswith("min_age: ") and why in problem and "nothing changed" in problem


@pytest.mark.parametrize("value", [0, "0", "24h", 3600])
def test_a_good_min_age_is_no_problem(value):
    assert age.min_age_problem(value) == ""


def test_younger_than_min_age_is_kept_with_the_creation_time_and_min_age_in_the_reason():
    created = "2026-12-05T01:02:03Z"
    assert age.too_young(created, 3600, NOW) == "created 2026-12-05T01:02:03Z, less than min_age (3600 s) ago"
    # AWS's answers are datetimes, with fractions; the reason reads the same
    aws = datetime.datetime(2026, 12, 5, 1, 59, 0, 123000, tzinfo=datetime.timezone.utc)
    assert age.too_young(aws, 3600, NOW) == "created 2026-12-05T01:59:00Z, less than min_age (3600 s) ago"


def test_older_than_min_age_or_min_age_off_is_not_kept():
    assert age.too_young("2026-12-05T00:59:59Z", 3600, NOW) == ""
    assert age.too_young("2026-12-05T01:59:59Z", 0, NOW) == ""  # 0 is off
    assert age.too_young(None, 0, NOW) == ""  # off: a missing time does not matter


def test_exactly_min_age_old_is_old_enough():
    assert age.too_young("2026-12-05T01:00:00Z", 3600, NOW) == ""


def test_an_unreadable_creation_time_is_not_taken_as_old():
    for created in (None, "", "yesterday"):
        assert "no creation time is readable" in age.too_young(created, 60, NOW)


FIELDS = ("LaunchTime", "CreateTime")


def test_young_rows_judge_each_resource_by_its_own_time_else_by_the_cluster_s():
    manifest = {"AWS::EC2::Instance": ["i-new", "i-old", "i-gone"], "AWS::EC2::Subnet": ["subnet-1"]}
    observed = {"AWS::EC2::Instance": {
        "i-new": {"state": "present", "LaunchTime": datetime.datetime(2026, 12, 5, 1, 30, tzinfo=datetime.timezone.utc)},
        "i-old": {"state": "present", "LaunchTime": "2026-11-01T00:00:00+00:00"},
        "i-gone": {"state": "terminal", "LaunchTime": "2026-12-05T01:59:00+00:00"}}}
    # a subnet's answer carries no creation time: the HostedCluster's, two hours old, is old enough
    rows = age.young_rows(manifest, observed, 3600, "2026-12-04T23:59:00Z", FIELDS, now=NOW)
    assert rows == [{"type": "AWS::EC2::Instance", "id": "i-new",
                     "reason": "created 2026-12-05T01:30:00Z, less than min_age (3600 s) ago"}]
    # a cluster made 10 minutes ago: its subnet is kept too
    rows = age.young_rows(manifest, observed, 3600, "2026-12-05T01:50:00Z", FIELDS, now=NOW)
    assert [r["id"] for r in rows] == ["i-new", "subnet-1"]
    assert rows[1]["reason"] == "created 2026-12-05T01:50:00Z, less than min_age (3600 s) ago"


def test_young_rows_off_at_zero_and_unknown_cluster_time_is_not_old():
    manifest = {"AWS::EC2::Subnet": ["subnet-1"]}
    assert age.young_rows(manifest, {}, 0, None, FIELDS, now=NOW) == []
    [row] = age.young_rows(manifest, {}, 60, None, FIELDS, now=NOW)
    assert "no creation time is readable" in row["reason"]


def test_young_rows_of_a_look_by_id_skip_what_it_did_not_find():
    manifest = {"AWS::EC2::Subnet": ["subnet-1", "subnet-2"]}
    observed = {"AWS::EC2::Subnet": {"subnet-1": {"state": "present"}}}
    rows = age.young_rows(manifest, observed, 3600, "2026-12-05T01:50:00Z", FIELDS, missing_is_absent=True, now=NOW)
    assert [r["id"] for r in rows] == ["subnet-1"]
    rows = age.young_rows(manifest, observed, 3600, "2026-12-05T01:50:00Z", FIELDS, now=NOW)
    assert [r["id"] for r in rows] == ["subnet-1", "subnet-2"]
