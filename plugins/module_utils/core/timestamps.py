# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one time format of every result and report: UTC ISO-8601 with milliseconds and a Z
(2026-01-02T03:04:05.678Z), and its parser, which also reads what Kubernetes and AWS write."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import re
import time

_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?([+-]\d{2}:\d{2})?$")


def datetime_iso(dt):
    """An aware datetime in the format."""
    return dt.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)


def utc_iso(ts=None):
    """Epoch seconds (default: now) in the format."""
    return datetime_iso(datetime.datetime.fromtimestamp(time.time() if ts is None else ts, tz=datetime.timezone.utc))


def parse_iso(value):
    """The times our modules, Kubernetes and AWS write (Z or an offset, with or without fractions) as an aware
    UTC datetime; anything else (None, "", a typo) is None."""
    if not value:
        return None
    m = _ISO.match(str(value).strip().replace("Z", "+00:00"))
    if not m:
        return None
    base = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")
    base = base.replace(microsecond=int((m.group(2) or ".0")[1:7].ljust(6, "0")))
    off = m.group(3) or "+00:00"
    sign = 1 if off[0] == "+" else -1
    tz = datetime.timezone(sign * datetime.timedelta(hours=int(off[1:3]), minutes=int(off[4:6])))
    return base.replace(tzinfo=tz).astimezone(datetime.timezone.utc)
