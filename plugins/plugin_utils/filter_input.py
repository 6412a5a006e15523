# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every filter of this collection does with its input: print a value as the role's Jinja did, and
refuse an input of the wrong type with a message that names the filter and what it expects."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError


def printed(value):
    """As Jinja prints a value on its own: None as nothing (in a join or a ``~`` concatenation it is "None")."""
    return "" if value is None else str(value)


def plain_list(value, filter_name, what):
    """A list input as a list; anything else fails naming ``filter_name`` and ``what`` it expects."""
    if not isinstance(value, (list, tuple)):
        raise AnsibleFilterError("%s: expects %s, got %s" % (filter_name, what, type(value).__name__))
    return list(value)


def dict_list(value, filter_name, what):
    """The mappings of a list input; anything but a list fails naming ``filter_name`` and ``what`` it expects."""
    return [v for v in plain_list(value, filter_name, what) if isinstance(v, dict)]


def one_dict(value, filter_name, what):
    """A mapping input, or a failure naming ``filter_name`` and ``what`` it expects."""
    if not isinstance(value, dict):
        raise AnsibleFilterError("%s: expects %s, got %s" % (filter_name, what, type(value).__name__))
    return value
