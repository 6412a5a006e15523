# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values as the roles' Jinja read them, for the code that modules and filters share: print a value, read a flag,
decode JSON text that may arrive as text or as what it holds. Nothing here raises an error of its own: the caller
says what a wrong input raises (a filter an AnsibleFilterError, a module's code its own error)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

# what the bool filter of ansible-core 2.16 takes for true, as text (case-insensitive), besides True and 1
_TRUE_TEXT = ("yes", "on", "1", "true")


def printed(value):
    """As Jinja prints a value on its own: None as nothing (in a join or a ``~`` concatenation it is "None")."""
    return "" if value is None else str(value)


def as_bool(value):
    """A flag as the role's ``| bool`` read it on ansible-core 2.16: True, the number 1, or yes/on/1/true as text
    (any case); anything else is False. A flag may reach a filter as text ("True") when ansible-core 2.16 rendered
    it through a template."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        return value.lower() in _TRUE_TEXT
    return isinstance(value, (int, float)) and value == 1


def json_or_value(value, not_json):
    """``value`` with JSON text decoded: None for None or blank text, the decoded JSON for other text (bytes are read
    as UTF-8), anything else as it is. ansible-core 2.16 may hand a mapping on as its text, later cores do not: both
    arrive the same here. Text that is not JSON raises what ``not_json(error)`` returns."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            return json.loads(value)
        except ValueError as e:
            raise not_json(e)
    return value
