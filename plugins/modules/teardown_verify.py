#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: teardown_verify
short_description: Verify a teardown by independent reads - the Kubernetes objects left and every tracked AWS ID, in one run
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Two independent reads in one module run, each answered as its own module answers it, neither hiding the other.
  - The Kubernetes objects of O(objects), read (or listed) as M(teardown.gates.deletion_info) reads them with
    O(teardown.gates.deletion_info#module:dependents=false); the answers are in RV(objects), the worst in RV(state).
  - Every AWS ID of O(manifest) looked up again by ID, as M(teardown.gates.aws_infra_cleanup) in check mode looks
    them up (only reads reach AWS); the answer is in RV(aws), shaped as that module's result. A failed look is
    C(aws.failed) with C(aws.msg) - unknown, never absent. An empty O(manifest) is C(aws.skipped).
  - The AWS look runs beside the Kubernetes reads (its own thread). The module sends only reads, in check mode or not.
  - The task fails as M(teardown.gates.deletion_info) fails, when the API server did not answer while the client
    was built (every object is then unknown); a failed AWS look does not fail it.
options:
  manifest:
    description:
      - The tracked AWS IDs - a mapping of CloudFormation resource type name to a list of IDs (as
        M(teardown.gates.aws_infra_inventory) returns it), or the path of a JSON or YAML file holding one.
      - V({}) looks nothing up (C(aws.skipped)).
    type: raw
    required: true
  preserve_iam:
    description: The IAM roles, instance profiles, managed policies and OIDC providers were kept (outcome C(retained)).
    type: bool
    default: false
  retain:
    description:
      - Resources of the manifest kept on purpose, in the manifest's shape (type name -> list of IDs); each is
        reported with outcome C(retained) (reason C(retain)), not counted as left.
    type: dict
    default: {}
notes:
  - Time bound - the Kubernetes side as M(teardown.gates.deletion_info) (O(request_timeout)) and the AWS side run at
    the same time.
seealso:
  - module: teardown.gates.deletion_info
  - module: teardown.gates.aws_infra_cleanup
extends_documentation_fragment: [teardown.gates.k8s_aws_tls, teardown.gates.aws_bounds, teardown.gates.k8s_objects,
  teardown.gates.k8s_request_timeout, teardown.gates.aws_min_age, kubernetes.core.k8s_auth_options, amazon.aws.common.modules,
  amazon.aws.region.modules, amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Verify a HostedCluster's teardown - the HostedCluster, its control-plane namespace, NodePools left, every AWS ID
  teardown.gates.teardown_verify:
    objects:
      - {api_version: hypershift.openshift.io/v1beta1, kind: HostedCluster, namespace: clusters, name: demo}
      - {kind: Namespace, name: clusters-demo}
      - {api_version: hypershift.openshift.io/v1beta1, kind: NodePool, namespace: clusters, match: {spec.clusterName: demo}}
    manifest: "{{ manifest }}"
    region: us-east-1
  register: verified

- name: Every tracked AWS ID gone, or the look failed (unknown)
  ansible.builtin.debug:
    msg: "{{ 'unknown: ' ~ verified.aws.msg if verified.aws.failed | default(false) else verified.aws.verified | default(true) }}"
"""

RETURN = r"""
state:
  description: The worst answer of RV(objects) - V(unknown), else V(present), else V(absent).
  returned: always
  type: str
objects:
  description:
    - One answer per object, in the order given, as M(teardown.gates.deletion_info) returns its
      RV(teardown.gates.deletion_info#module:objects) - C(state), C(query), C(deleting), C(finalizers), C(conditions),
      C(inspect_next), C(item), and C(object), C(owners), C(namespace) when present; for a list C(count), C(names)
      and C(listed).
  returned: always
  type: list
  elements: dict
inspect_next:
  description: What to inspect next, from the objects' answers (at most 10).
  returned: always
  type: list
  elements: str
aws:
  description:
    - The AWS look, as M(teardown.gates.aws_infra_cleanup) in check mode returns its result - C(resources) (each
      C(type), C(id), C(outcome) - V(absent), V(planned) (still there), V(retained), V(kept), V(blocked), V(failed) -
      and C(observed)), C(verified), C(plan), C(kept), C(blocked), C(api_calls), C(api_errors), C(elapsed).
    - C(failed) and C(msg) when the look failed (with what it had found); the IDs it could not look up are unknown,
      never absent.
    - C(skipped) and C(msg) when O(manifest) tracks nothing.
  returned: always
  type: dict
  sample: {"verified": true, "resources": [{"type": "AWS::EC2::VPC", "id": "vpc-0abc", "outcome": "absent",
           "observed": "absent"}]}
msg:
  description: Why every object is unknown, when the API server did not answer while the client was built.
  returned: on that failure
  type: str
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked
from ansible_collections.teardown.gates.plugins.module_utils.drivers import teardown_verify as driver


def main():
    module = AnsibleAWSModule(argument_spec=driver.argument_spec(), supports_check_mode=True)
    module.exit_json(**checked(module, driver.run, module))


if __name__ == "__main__":
    main()
