# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the hosted_cluster_destroy role says of bad input before any change (its Phase 0)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import as_int

# a Kubernetes object or namespace name (DNS label), an infra ID, and a whole number of seconds, as Phase 0 matches them
OBJECT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
INFRA_ID = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$")
SECONDS = re.compile(r"^[0-9]+$")
# what Phase 0 takes for a boolean take_over_cleanup, and for one that is on
BOOLEAN_TEXT = ("true", "false", "yes", "no")
TRUE_TEXT = ("true", "yes")


def _matches(pattern, value):
    return pattern.match(str(value)) is not None


def problems(name, namespace, infra_id, grace_period, aws_timeout, take_over, take_over_after, report_dir):
    """Each problem of the input, in Phase 0's order, each ending "; ", all in one text ("" when there is none):
    neither a name nor an infra ID; a name, namespace or infra ID that is not valid; a grace period or AWS timeout
    below 1 s; take_over_cleanup not a boolean; take_over_after not a whole number above 0, or (take_over_cleanup on)
    not below the grace period; no report_dir."""
    found = []
    if len(name) == 0 and len(infra_id) == 0:
        found.append("hosted_cluster_name: required (or infra_id for an infrastructure-only destroy); ")
    if len(name) > 0 and not _matches(OBJECT_NAME, name):
        found.append("hosted_cluster_name: %s is not a valid object name; " % (name,))
    if not _matches(OBJECT_NAME, namespace):
        found.append("hosted_cluster_namespace: %s is not a valid namespace name; " % (namespace,))
    if len(infra_id) > 0 and not _matches(INFRA_ID, infra_id):
        found.append("infra_id: %s is not a valid infra ID (letters, digits, dashes); " % (infra_id,))
    if as_int(grace_period) <= 0:
        found.append("cluster_grace_period: must be more than 0 seconds; ")
    if as_int(aws_timeout) <= 0:
        found.append("aws_cleanup_timeout: must be more than 0 seconds; ")
    if str(take_over).lower() not in BOOLEAN_TEXT:
        found.append("take_over_cleanup: %s is not a boolean (true or false); " % (take_over,))
    whole = _matches(SECONDS, take_over_after)
    if not whole or as_int(take_over_after) <= 0:
        found.append("take_over_after: %s is not a whole number of seconds above 0; " % (take_over_after,))
    if str(take_over).lower() in TRUE_TEXT and whole and as_int(take_over_after) >= as_int(grace_period):
        found.append("take_over_after: %s s must be less than cluster_grace_period (%s s), or the gates time out before a "
                     "stall can show; raise cluster_grace_period or lower take_over_after; " % (take_over_after, grace_period))
    if len(report_dir) == 0:
        found.append("report_dir: required (the baseline kept there is what lets a re-run resume); ")
    return "".join(found)
