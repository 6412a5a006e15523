# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # What narrows the discovery of an infra ID's resources (aws_args.discovery_spec); the infra ID itself stays in
    # each module: it is required (aws_infra_inventory) or the alternative to a manifest (aws_infra_cleanup).
    DOCUMENTATION = r"""
options:
  base_domain:
    description:
      - The public zone holding the C(*.apps.<cluster_name>.<base_domain>) record of the infra ID.
      - Without it no record set is recorded.
    type: str
  cluster_name:
    description: The cluster name in the C(*.apps) record; defaults to the infra ID.
    type: str
  oidc_bucket:
    description: The bucket whose C(<infra_id>/) prefix holds the OIDC documents.
    type: str
"""
