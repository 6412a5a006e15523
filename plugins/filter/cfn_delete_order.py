# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cfn_delete_order filter: a set of stacks from amazon.aws.cloudformation_info in deletion order."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.module_utils.cfn import classify as cfn_classify


def cfn_delete_order(info, names=None, min_age=0):
    try:
        return cfn_classify.order_from_info(info, names=names, min_age=min_age)
    except cfn_classify.OrderError as e:
        raise AnsibleFilterError("cfn_delete_order: %s" % e)
    except ValueError as e:  # a bad min_age (the role refuses it first, before any request)
        raise AnsibleFilterError("cfn_delete_order: min_age: %s" % e)


class FilterModule(object):
    def filters(self):
        return {"cfn_delete_order": cfn_delete_order}
