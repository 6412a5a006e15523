# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The aws_config filter: the collection's botocore settings as an amazon.aws module's aws_config option."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.teardown.gates.plugins.module_utils.core import bounds


def aws_config(caller):
    """The bound and user agent of bounds.aws_config(), as the plain dict amazon.aws hands to botocore."""
    if not isinstance(caller, str) or not caller.strip():
        raise AnsibleFilterError("aws_config: expects the caller's name (a role or a module), got %r" % (caller,))
    return bounds.aws_config_options(caller.strip())


class FilterModule(object):
    def filters(self):
        return {"aws_config": aws_config}
