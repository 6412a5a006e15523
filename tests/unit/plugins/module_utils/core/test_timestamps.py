# -*- coding: utf-8 -*-
"""core/timestamps.py: the one time format (UTC ISO-8601, milliseconds, Z) and its parser, which reads what our
modules, Kubernetes and AWS write and gives None for anything else."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.core import timestamps

UTC = datetime.timezone.utc


def test_an_aware_datetime_is_written_in_utc_with_milliseconds_and_z():
    two_hours_east = datetime.timezone(datetime.timedelta(hours=2))
    dt = datetime.datetime(2026, 1, 2, 5, 4, 5, 678901, tzinfo=two_hours_east)
    # the offset is folded into UTC and the microseconds are cut (not rounded) to milliseconds
    assert timestamps.datetime_iso(dt) == "2026-01-02T03:04:05.678Z"


def test_epoch_seconds_are_written_in_the_same_format():
    assert timestamps.utc_iso(0) == "1970-01-01T00:00:00.000Z"
    assert timestamps.utc_iso(1767323045.5) == "2026-01-02T03:04:05.500Z"


def test_now_is_the_default_and_reads_back():
    before = datetime.datetime.now(UTC).replace(microsecond=0)
    now = timestamps.parse_iso(timestamps.utc_iso())
    assert before <= now <= datetime.datetime.now(UTC)


@pytest.mark.parametrize("text,expected", [
    ("2026-01-02T03:04:05Z", datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),          # Kubernetes
    ("2026-01-02T03:04:05.678Z", datetime.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)),  # ours
    ("2026-01-02T03:04:05.123456+00:00", datetime.datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)),  # AWS
    ("2026-01-02T05:34:05+02:30", datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ("2026-01-02T00:04:05-03:00", datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    # nanoseconds (Go's RFC3339Nano) keep their microseconds
    ("2026-01-02T03:04:05.123456789Z", datetime.datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)),
    ("  2026-01-02T03:04:05Z ", datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
])
def test_the_times_the_collection_meets_parse_to_aware_utc(text, expected):
    parsed = timestamps.parse_iso(text)
    assert parsed == expected and parsed.utcoffset() == datetime.timedelta(0)


@pytest.mark.parametrize("text", [None, "", "yesterday", "2026-01-02", "2026-01-02 03:04:05Z",
                                  "2026-01-02T03:04:05+0200", "2026-01-02T03:04Z"])
def test_anything_else_is_none_not_an_error(text):
    assert timestamps.parse_iso(text) is None


def test_the_format_reads_back_to_the_same_millisecond():
    dt = datetime.datetime(2026, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
    assert timestamps.parse_iso(timestamps.datetime_iso(dt)) == dt


def test_times_parse_and_print_as_the_reports_write_them():
    # moved from report/test_render.py's test_times_parse_and_archive_names_sort
    t = timestamps.parse_iso("2026-01-01T10:00:00.123Z")
    assert t == datetime.datetime(2026, 1, 1, 10, 0, 0, 123000, tzinfo=UTC)
    assert timestamps.parse_iso("2026-01-01T12:00:00+02:00") == datetime.datetime(2026, 1, 1, 10, tzinfo=UTC)
    assert timestamps.datetime_iso(t) == "2026-01-01T10:00:00.123Z"
    assert timestamps.utc_iso(t.timestamp()) == "2026-01-01T10:00:00.123Z"
