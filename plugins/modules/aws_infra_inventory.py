#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: aws_infra_inventory
short_description: Record what an infra ID owns in AWS as a manifest of IDs
version_added: 0.1.0
description:
  - Discovers the AWS resources of a HyperShift-style infra ID the way the destroy command finds them,
    and returns them as a manifest, a mapping of CloudFormation resource type name to a list of IDs.
  - EC2 resources by the tag C(kubernetes.io/cluster/<infra_id>=owned), VPC endpoint service configurations
    (C(AWS::EC2::VPCEndpointService)) among them; the children of each tagged VPC
    by C(vpc-id) (subnets, route tables other than the main one, security groups other than C(default),
    NAT gateways, VPC endpoints, classic and v2 load balancers, target groups); private hosted zones
    associated with a tagged VPC; the C(*.apps) record in the public zone of O(base_domain); buckets named
    C(<infra_id>-image-registry-*); the C(<infra_id>/) prefix of O(oidc_bucket); IAM by name (the OIDC
    provider whose ARN ends in the infra ID, the roles C(<infra_id>-<component>), the instance profile
    C(<infra_id>-worker), customer managed policies named C(<infra_id>-*)).
  - The manifest is what M(teardown.gates.aws_infra_cleanup) deletes and verifies later, by ID, because a
    detached or untagged resource vanishes from a tag filter without being deleted.
  - Read-only. A failed query fails the module; it never reads as "nothing there".
author:
  - teardown.gates developers (@teardown-gates)
options:
  infra_id:
    description: The infra ID (HyperShift C(spec.infraID)).
    type: str
    required: true
  manifest_path:
    description:
      - Write the manifest as JSON to this file too (not in check mode).
    type: path
extends_documentation_fragment: [teardown.gates.aws_bounds, teardown.gates.aws_infra_discovery, teardown.gates.aws_min_age, amazon.aws.common.modules,
  amazon.aws.region.modules, amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Record what infra ID demo-x7k2q owns
  teardown.gates.aws_infra_inventory:
    infra_id: demo-x7k2q
    base_domain: example.com
    cluster_name: demo
    oidc_bucket: my-oidc-bucket
    manifest_path: /var/tmp/demo-x7k2q.manifest.json
  register: inv

- name: Show the VPCs found
  ansible.builtin.debug:
    var: inv.manifest['AWS::EC2::VPC']
"""

RETURN = r"""
manifest:
  description: CloudFormation resource type name -> sorted list of IDs. Types with nothing found are left out.
  returned: always
  type: dict
  sample: {"AWS::EC2::VPC": ["vpc-0abc"], "AWS::IAM::Role": ["demo-x7k2q-node-pool"]}
counts:
  description: Number of IDs per type.
  returned: always
  type: dict
  sample: {"AWS::EC2::VPC": 1}
total:
  description: Number of IDs in the manifest.
  returned: always
  type: int
  sample: 42
manifest_path:
  description: Where the manifest was written, when O(manifest_path) was given and not in check mode.
  returned: when O(manifest_path) is set
  type: str
guest_volumes:
  description:
    - The EBS volumes of the manifest that are the guest cluster's persistent volumes (tagged by the EBS CSI driver
      for a PVC or PV), sorted. The others under C(AWS::EC2::Volume) are the instances' own.
  returned: always
  type: list
  elements: str
  sample: ["vol-0abc"]
guest_groups:
  description:
    - The security groups of the manifest that only the guest's load balancers use, each made for its load balancer
      by that load balancer's controller (the cloud provider's C(k8s-elb-<load balancer name>) of a classic ELB, an
      NLB's managed group, the AWS Load Balancer Controller's groups tagged C(elbv2.k8s.aws/cluster)) and used by no
      instance or VPC endpoint of the manifest, sorted. The controller deletes it after its load balancer; a
      take-over of the guest's cleanup deletes it the same way.
  returned: always
  type: list
  elements: str
  sample: ["sg-0abc"]
protected:
  description:
    - The resources found tagged C(teardown.gates/protected=true), and those created less than O(min_age) ago, each
      with C(type), C(id) and C(reason), from the tags and creation times discovery's answers carry (no request is
      added). M(teardown.gates.aws_infra_cleanup) keeps them.
  returned: always
  type: list
  elements: dict
  sample: [{"type": "AWS::EC2::NatGateway", "id": "nat-0abc", "reason": "tagged teardown.gates/protected"}]
api_calls:
  description: The inventory's AWS requests (all of them reads), by service and action - every HTTP attempt, retries included.
  returned: always
  type: dict
  sample: {"ec2": {"DescribeVpcs": 1}}
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.aws import runs as aws_runs
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked


def main():
    module = AnsibleAWSModule(argument_spec=aws_runs.inventory_spec(), supports_check_mode=True)
    module.exit_json(**checked(module, aws_runs.inventory, module))


if __name__ == "__main__":
    main()
