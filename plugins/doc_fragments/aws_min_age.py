# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # min_age of a hosted cluster's AWS resources (aws_runs.age_spec; core/age.py).
    DOCUMENTATION = r"""
options:
  min_age:
    description:
      - Keep what was created less than this long ago, as a resource tagged C(teardown.gates/protected=true) is kept
        (with what waits on it), the reason being C(created <time>, less than min_age (<n> s\) ago). Seconds, or a
        duration such as V(90m), V(24h), V(1d12h); V(0), the default, is off.
      - Each resource is judged by the creation time its read's answer carries (an instance's C(LaunchTime), a
        volume's or NAT gateway's C(CreateTime), a load balancer's C(CreatedTime), a VPC endpoint's
        C(CreationTimestamp)), else by O(cluster_created). No request is added.
      - A negative value or one that is not a duration fails before any request, naming C(min_age).
    type: raw
    default: 0
  cluster_created:
    description:
      - The creation time (ISO 8601) of the HostedCluster whose resources these are; with O(min_age), the creation
        time of a resource whose answer carries none (subnets, route tables, security groups, VPCs, IAM, Route 53,
        S3 - they were made with the cluster or after it). Empty, with O(min_age) above 0, such a resource is kept
        (its age is not shown to be above O(min_age)).
    type: str
    default: ""
"""
