# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shape of most hint rules, written once: "when the object's condition of this type says so, hint this".

A hint rule takes the view of a deleting object (``k8s.diagnosis.inspect_next``) and returns ``[(where, hint)]``,
``where`` "first" or "last", or ``[]``. A kind declares a rule over one condition as data: the condition's type and
its cases, each ``(holds, hint)`` with ``holds(condition)`` a test and ``hint`` a text or a function of the
condition that makes one. The first case that holds gives the rule's one hint."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.kinds.drawing import condition


def condition_rule(ctype, cases, where="first"):
    """A hint rule over the view's condition of type ``ctype``: the hint of the first of ``cases`` that holds,
    placed ``where``; ``[]`` when the object has no such condition or no case holds."""
    def rule(view):
        found = condition(view["conditions"], ctype)
        if not found:
            return []
        for holds, hint in cases:
            if holds(found):
                return [(where, hint(found) if callable(hint) else hint)]
        return []
    return rule
