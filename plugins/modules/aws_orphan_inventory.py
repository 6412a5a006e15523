#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: aws_orphan_inventory
short_description: Find the infra IDs of an AWS region that no HostedCluster owns any more
version_added: 0.2.0
description:
  - Finds every infra ID a region shows, the way HyperShift names what it creates - the EC2 tag
    C(kubernetes.io/cluster/<infraID>=owned) (any EC2 resource), the IAM roles C(<infraID>-<component>), the
    instance profile C(<infraID>-worker), the OIDC provider whose URL path is the infra ID, private hosted zones
    tagged for the infra ID or associated with its VPC, the buckets C(<infraID>-image-registry-*), and the
    C(<infraID>/) prefixes of O(oidc_bucket).
  - Lists the HostedClusters (all namespaces) of each of O(management_contexts) and matches their C(spec.infraID).
  - For each infra ID no HostedCluster has, records what it owns as a manifest of IDs (as
    M(teardown.gates.aws_infra_inventory) does), its age (the oldest creation time it can read) and whether any
    resource is tagged C(teardown.gates/protected=true).
  - Each infra ID gets a status - V(live) (a HostedCluster has it), V(unknown) (a management cluster could not be
    read, so nothing is an orphan), V(protected), V(uncertain) (seen only by names that read like it, none carrying
    HyperShift's own mark - the C(kubernetes.io/cluster/<infraID>=owned) tag, the OIDC provider of that path, a role
    trusting that provider, the worker role in the worker profile), V(young) (younger than O(min_age), or no creation
    time readable), V(orphan). Only an orphan is ever swept.
  - Read-only, in check mode too. A failed AWS query fails the module; it never reads as "nothing there".
  - The public C(*.apps) record is not looked for, since an orphan's cluster name is not known.
author:
  - teardown.gates developers (@teardown-gates)
options:
  management_contexts:
    description:
      - The kubeconfig contexts of the management clusters whose HostedClusters own infra IDs.
      - Empty takes the kubeconfig's current context. A context the kubeconfig does not have fails before any request.
    type: list
    elements: str
    default: []
  kubeconfig:
    description: The kubeconfig file; defaults to E(KUBECONFIG), then C(~/.kube/config).
    type: path
  min_age:
    description:
      - An infra ID whose oldest readable creation time is more recent than this is V(young), never an orphan.
      - Seconds, or a duration such as V(24h), V(90m), V(1d12h). V(0) takes every age.
    type: raw
    default: 24h
  oidc_bucket:
    description: The bucket whose C(<infraID>/) prefixes hold the OIDC documents.
    type: str
  infra_id_prefix:
    description: Only infra IDs starting with this (for example a CI system's naming scheme).
    type: str
    default: ""
  infra_ids:
    description: Only these infra IDs (the re-check right before a delete uses it).
    type: list
    elements: str
notes:
  - Time bound, Kubernetes - each request to a management cluster is bounded by O(request_timeout).
extends_documentation_fragment: [teardown.gates.aws_bounds, teardown.gates.k8s_request_timeout, amazon.aws.common.modules, amazon.aws.region.modules,
  amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Which infra IDs of us-east-1 do the two management clusters not own?
  teardown.gates.aws_orphan_inventory:
    management_contexts: [mgmt-east, mgmt-west]
    oidc_bucket: my-oidc-bucket
    region: us-east-1
  register: found

- name: Show the orphans
  ansible.builtin.debug:
    msg: "{{ found.infra_ids | selectattr('status', 'equalto', 'orphan') | map(attribute='infra_id') | list }}"
"""

RETURN = r"""
infra_ids:
  description: One entry per infra ID found, sorted by infra ID.
  returned: always
  type: list
  elements: dict
  contains:
    infra_id:
      description: The infra ID.
      type: str
    status:
      description: V(live), V(unknown), V(protected), V(uncertain), V(young) or V(orphan).
      type: str
    reason:
      description: Why it has that status.
      type: str
    evidence:
      description: What showed the infra ID in the region (type and ID).
      type: list
    manifest:
      description: CloudFormation type name -> IDs (not for V(live) ones, which are not looked into).
      type: dict
    total:
      description: Number of IDs in the manifest.
      type: int
    oldest_created:
      description: The oldest creation time read (ISO 8601), or null.
      type: str
    age_seconds:
      description: Seconds since RV(infra_ids[].oldest_created), or null.
      type: int
    protected:
      description: The resources tagged C(teardown.gates/protected=true).
      type: list
    not_covered:
      description:
        - What showed the infra ID but is not in the manifest, so that no sweep deletes it (an EBS volume, say).
          Reported so that nothing is lost silently.
      type: list
orphans:
  description: The infra IDs whose status is V(orphan).
  returned: always
  type: list
  elements: str
management:
  description: Per context, whether its HostedClusters were read, how many, and the error.
  returned: always
  type: list
  elements: dict
management_known:
  description: True only when every management cluster was read.
  returned: always
  type: bool
min_age_seconds:
  description: O(min_age) in seconds.
  returned: always
  type: int
api_calls:
  description: The region scan's AWS requests (tag and resource listings), by service and action.
  returned: always
  type: dict
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.aws import orphan_run
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked
from ansible_collections.teardown.gates.plugins.module_utils.core.args import with_request_timeout


def main():
    module = AnsibleAWSModule(argument_spec=with_request_timeout(orphan_run.argument_spec()), supports_check_mode=True)
    module.exit_json(**checked(module, orphan_run.run, module))


if __name__ == "__main__":
    main()
