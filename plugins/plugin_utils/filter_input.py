# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every filter of this collection does with its input: print a value as the role's Jinja did, and
refuse an input of the wrong type with a message that names the filter and what it expects."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
# printed, as_bool and json_or_value are shared with the modules' code (module_utils); imported from there
from ansible_collections.teardown.gates.plugins.module_utils.core.values import (  # noqa: F401  pylint: disable=unused-import
    as_bool, json_or_value, printed)


def plain_list(value, filter_name, what):
    """A list input as a list; anything else fails naming ``filter_name`` and ``what`` it expects."""
    if not isinstance(value, (list, tuple)):
        raise AnsibleFilterError("%s: expects %s, got %s" % (filter_name, what, type(value).__name__))
    return list(value)


def dict_list(value, filter_name, what):
    """The mappings of a list input; anything but a list fails naming ``filter_name`` and ``what`` it expects."""
    return [v for v in plain_list(value, filter_name, what) if isinstance(v, dict)]


def dicts(value):
    """The mappings of a list that may be missing (None): a part of an input read as the role's Jinja loop read it."""
    return [v for v in value or [] if isinstance(v, dict)]


def one_dict(value, filter_name, what):
    """A mapping input, or a failure naming ``filter_name`` and ``what`` it expects."""
    if not isinstance(value, dict):
        raise AnsibleFilterError("%s: expects %s, got %s" % (filter_name, what, type(value).__name__))
    return value


def as_int(value):
    """A number as the role's ``| int`` read it: an int, text of an int, or the whole part of a float (or of text of
    one); anything else is 0."""
    try:
        if isinstance(value, str):
            return int(value, 10)
        return int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return 0


def parsed_dict(value, filter_name, what):
    """A mapping input, or the JSON object it holds as text; {} for None or blank text. Anything else fails naming
    ``filter_name`` and ``what`` it expects."""
    value = json_or_value(value, lambda e: AnsibleFilterError(
        "%s: expects %s, got text that is not JSON (%s)" % (filter_name, what, e)))
    if value is None:
        return {}
    return one_dict(value, filter_name, what)


def role_steps(filter_name, steps):
    """The one filter of a role's internal steps, named ``filter_name``: ``value | filter_name(STEP, *args)`` runs
    ``steps[STEP](value, *args)``; a STEP it does not know is refused, naming the steps it has."""
    def step(value, name, *args):
        if name not in steps:
            raise AnsibleFilterError("%s: no step %r; the steps are %s" % (filter_name, name, ", ".join(sorted(steps))))
        return steps[name](value, *args)
    step.__name__ = filter_name
    return step
