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
  - EC2 resources by the tag C(kubernetes.io/cluster/<infra_id>=owned); the children of each tagged VPC
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
  base_domain:
    description:
      - The public zone holding the C(*.apps.<cluster_name>.<base_domain>) record.
      - Without it no record set is recorded.
    type: str
  cluster_name:
    description: The cluster name in the C(*.apps) record; defaults to O(infra_id).
    type: str
  oidc_bucket:
    description: The bucket whose C(<infra_id>/) prefix holds the OIDC documents.
    type: str
  manifest_path:
    description:
      - Write the manifest as JSON to this file too (not in check mode).
    type: path
notes:
  - Time bound - each AWS request has a connect timeout of 5 s and a read timeout of 15 s; botocore alone
    retries (standard mode, 4 attempts in all), so one call ends within 87 seconds. Once an endpoint has not
    answered within that, no further request goes to it, so against an endpoint that accepts and never answers
    the task fails, naming the endpoint, after about 87 seconds.
extends_documentation_fragment:
  - amazon.aws.common.modules
  - amazon.aws.region.modules
  - amazon.aws.boto3
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
api_calls:
  description: AWS requests made, by service and action (every HTTP attempt, retries included).
  returned: always
  type: dict
  sample: {"ec2": {"DescribeVpcs": 1}}
"""

import json
import os

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.bounds import aws_config
from ansible_collections.teardown.gates.plugins.module_utils.aws_client import Clients
from ansible_collections.teardown.gates.plugins.module_utils.aws_inventory import discover

try:
    import botocore.exceptions
except ImportError:
    pass  # handled by AnsibleAWSModule


def main():
    argument_spec = dict(
        infra_id=dict(type="str", required=True),
        base_domain=dict(type="str"),
        cluster_name=dict(type="str"),
        oidc_bucket=dict(type="str"),
        manifest_path=dict(type="path"),
    )
    module = AnsibleAWSModule(argument_spec=argument_spec, supports_check_mode=True)
    infra_id = (module.params["infra_id"] or "").strip()
    if not infra_id:
        module.fail_json(msg="infra_id must not be empty: an empty infra ID would match every cluster's tag")
    clients = Clients(module.client, concurrency=4, config=aws_config("aws_infra_inventory"))
    try:
        manifest, details = discover(clients, infra_id, base_domain=module.params["base_domain"],
                                     cluster_name=module.params["cluster_name"],
                                     oidc_bucket=module.params["oidc_bucket"],
                                     region=module.region or "us-east-1")
    except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as e:
        module.fail_json_aws(e, msg="discovery of infra ID %s failed; no manifest is returned because an "
                                    "incomplete one would leave resources behind" % infra_id,
                             api_calls=clients.calls)
    result = dict(changed=False, manifest=manifest, counts=dict((t, len(v)) for t, v in manifest.items()),
                  total=sum(len(v) for v in manifest.values()), api_calls=clients.calls, vpcs=details["vpcs"])
    path = module.params["manifest_path"]
    if path:
        text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
        old = None
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
        if old != text:
            result["changed"] = True
            if not module.check_mode:
                tmp = path + ".tmp"
                with open(tmp, "w") as f:
                    f.write(text)
                os.replace(tmp, path)
        result["manifest_path"] = path
    module.exit_json(**result)


if __name__ == "__main__":
    main()
