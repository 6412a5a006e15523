# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""min_age (issue 33, item 3): what was created less than ``min_age`` ago stays out of every plan and is listed as
kept, with the reason, as the protect mark keeps (core/protect.py). One duration format for every playbook (the
sweep's: seconds, or ``24h``, ``90m``, ``1d12h``), one reading of it, and one decision with its reason text."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import re

from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import parse_iso

_AGE = re.compile(r"(\d+)\s*([smhdw])")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_age(value):
    """Seconds in ``value``: a number of seconds, or a duration such as ``24h``, ``90m``, ``1d12h``, ``0``.

    Raises ValueError for anything else, a negative value included."""
    if isinstance(value, bool):
        raise ValueError("%r is not a duration" % (value,))
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError("%r is negative" % (value,))
        return int(value)
    text = str(value or "").strip().lower()
    if re.match(r"^\d+$", text):
        return int(text)
    if text.startswith("-"):
        raise ValueError("%r is negative" % (value,))
    parts = _AGE.findall(text)
    if not parts or _AGE.sub("", text).strip():
        raise ValueError("%r is not a duration (seconds, or e.g. 24h, 90m, 1d12h)" % (value,))
    return sum(int(n) * _UNIT[u] for n, u in parts)


def min_age_problem(value):
    """What is wrong with the option ``min_age`` (a message naming it, for a failure before any request), or ""."""
    try:
        parse_age(value)
    except ValueError as e:
        return "min_age: %s; nothing changed" % e
    return ""


def _aware(created):
    """``created`` (an aware or naive datetime, or the text Kubernetes and AWS write) as an aware UTC datetime;
    None when there is none or it does not read as a time."""
    if isinstance(created, datetime.datetime):
        return created if created.tzinfo else created.replace(tzinfo=datetime.timezone.utc)
    return parse_iso(created)


def too_young(created, min_age_seconds, now=None):
    """The kept reason when ``created`` is less than ``min_age_seconds`` before ``now`` (default: the present),
    else "". min_age 0 is off: nothing is too young. With min_age on, a creation time that is missing or does not
    read is not shown to be old enough, so it is kept too (unknown is never taken as old)."""
    if not min_age_seconds:
        return ""
    when = _aware(created)
    if when is None:
        return "no creation time is readable, so it is not shown to be older than min_age (%d s)" % min_age_seconds
    now = now or datetime.datetime.now(datetime.timezone.utc)
    if (now - when).total_seconds() < min_age_seconds:
        return "created %s, less than min_age (%d s) ago" % (when.strftime("%Y-%m-%dT%H:%M:%SZ"), min_age_seconds)
    return ""


def oldest(item, time_fields):
    """The oldest of the creation times ``item`` (a read's answer) carries in ``time_fields``, or None."""
    times = [t for t in (_aware((item or {}).get(f)) for f in time_fields) if t is not None]
    return min(times) if times else None


def young_rows(manifest, observed, min_age_seconds, fallback_created, time_fields, missing_is_absent=False, now=None):
    """The kept rows ({type, id, reason}) of the resources of ``manifest`` (type -> IDs) created less than
    ``min_age_seconds`` ago. Each is judged by its own creation time where the read's answer (``observed``: type ->
    {id: answer, with ``state``}) carries one (``time_fields``), else by ``fallback_created`` (for a hosted cluster's
    resources, the HostedCluster's creationTimestamp: they were made with it or after it). What the read found
    absent or terminal is not kept, nor, with ``missing_is_absent`` (a look by ID that answers only for what
    exists), an ID the read did not answer for. min_age 0 is off: no row."""
    if not min_age_seconds:
        return []
    rows = []
    for rtype, ids in sorted((manifest or {}).items()):
        seen = (observed or {}).get(rtype)
        for rid in sorted(ids or []):
            item = (seen or {}).get(rid)
            if item is None and missing_is_absent and seen is not None:
                continue
            if (item or {}).get("state") in ("absent", "terminal"):
                continue
            why = too_young(oldest(item, time_fields) or fallback_created, min_age_seconds, now)
            if why:
                rows.append({"type": rtype, "id": rid, "reason": why})
    return rows
