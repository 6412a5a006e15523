# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The failed_resources filter: one line naming each AWS resource a cleanup could not delete, and what blocks it."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError


def _one(resource):
    text = "%s %s" % (resource.get("type", "?"), resource.get("id", "?"))
    for b in resource.get("blockers") or []:
        text += " blocked by %s %s (%s)" % (b.get("type") or "?", b.get("id") or "?", b.get("state") or "")
    return text


def failed_resources(resources, lead=""):
    """``lead`` (the cleanup's message), then each resource whose outcome is ``failed``, separated by "; "."""
    if not isinstance(resources, (list, tuple)):
        raise AnsibleFilterError("failed_resources: expects the list of resources of aws_infra_cleanup, got %s"
                                 % type(resources).__name__)
    parts = [lead] if lead else []
    parts.extend(_one(r) for r in resources if isinstance(r, dict) and r.get("outcome") == "failed")
    return "; ".join(parts)


class FilterModule(object):
    def filters(self):
        return {"failed_resources": failed_resources}
