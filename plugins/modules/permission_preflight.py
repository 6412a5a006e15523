#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: permission_preflight
short_description: Before the first change, check every Kubernetes and AWS permission a teardown needs, in one run
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Kubernetes, with O(kind) - sends one C(SelfSubjectAccessReview) for each Kubernetes permission the run of O(kind)
    needs (each kind declares them as data - verb, API group, resource, and the namespace from the run's
    O(options)), a few at a time.
  - AWS, with O(aws_kind) - checks every AWS action the run will need as M(teardown.gates.aws_permission_preflight)
    does (STS C(GetCallerIdentity), IAM C(SimulatePrincipalPolicy), EC2 C(DryRun) where the simulation is refused);
    what neither way could check is returned in RV(aws.unverified), never as allowed.
  - Fails when any permission is not granted, naming every missing one of both parts (not only the first) and every
    review that went unanswered (unknown, never taken as granted), with the file that grants them - the file of
    C(extensions/rbac/) and C(extensions/iam/teardown-gates-policy.json).
  - One module run for both checks (the C(before_first_delete) role's); a part whose kind is not given sends nothing
    and builds no client.
  - A review changes nothing (the API server does not store it), nor does a policy simulation or a DryRun; they are
    sent in check mode too.
options:
  kind:
    description:
      - The teardown kind whose Kubernetes permissions are reviewed (C(hosted_cluster), C(release_prune),
        C(held_deletion), C(orphan_sweep), C(cfn)).
      - Required unless O(aws_kind) is given.
    type: str
  options:
    description:
      - The run's options, which shape both parts - for Kubernetes where it works, such as C(release_namespace),
        C(hosted_cluster_namespace) and C(hosted_cluster_name), C(held_namespace) and C(held_kind), and the switches
        that add permissions (C(prune_cluster), C(take_over_cleanup), C(sweep_delete)).
      - For AWS the options of M(teardown.gates.aws_permission_preflight) of the same names - C(clear) (a list of
        C(empty_buckets), C(detach_iam), C(disable_deletion_protection), C(release_dependencies), C(nested)) and
        C(disable_termination_protection) (default C(false)) with O(aws_kind=cfn), C(sweep_delete) (default
        C(true)) with O(aws_kind=orphan_sweep).
      - A namespace option a permission needs and that is empty, or a value of the wrong type, fails before any
        request, naming it.
    type: dict
    default: {}
  aws_kind:
    description:
      - The kind of AWS changes the run makes, whose actions are checked - V(hosted_cluster) (the destroy's AWS
        cleanup), V(cfn) (a stack teardown, with the remedies of O(options)), V(orphan_sweep) (the region scan, and
        the cleanup unless O(options) says C(sweep_delete=false)). Unset, no AWS request is sent.
      - As M(teardown.gates.aws_permission_preflight)'s O(teardown.gates.aws_permission_preflight#module:kind).
    type: str
    choices: [hosted_cluster, cfn, orphan_sweep]
notes:
  - Time bound, Kubernetes - each review is bounded by O(request_timeout) and tried at most three times.
  - Cost - one review per permission (up to 14, for C(hosted_cluster)), at most four at a time; for AWS the caller's
    identity and the simulation in batches of 25 actions (each EC2 delete by DryRun where the simulation is refused).
seealso:
  - module: teardown.gates.target_guard
  - module: teardown.gates.aws_permission_preflight
extends_documentation_fragment: [teardown.gates.k8s_aws_tls, teardown.gates.aws_bounds, teardown.gates.k8s_request_timeout,
  kubernetes.core.k8s_auth_options, amazon.aws.common.modules, amazon.aws.region.modules, amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Check every permission the prune needs before deleting anything
  teardown.gates.permission_preflight:
    kind: release_prune
    options:
      release_namespace: team-a
      convoy_cluster_name: dev
      prune_cluster: true

- name: Check the Kubernetes and the AWS permissions of a HostedCluster destroy, in one run
  teardown.gates.permission_preflight:
    kind: hosted_cluster
    options:
      hosted_cluster_namespace: clusters
      hosted_cluster_name: demo
    aws_kind: hosted_cluster
    region: us-east-1
  register: preflight

- name: Say what could not be checked either way
  ansible.builtin.debug:
    msg: "{{ preflight.aws.unverified }}"
  when: preflight.aws.unverified | default([]) | length > 0

- name: Check the AWS permissions of a stack teardown that may empty buckets
  teardown.gates.permission_preflight:
    aws_kind: cfn
    options:
      clear: [empty_buckets]
"""

RETURN = r"""
kind:
  description: The Kubernetes kind reviewed, or null without O(kind).
  returned: always
  type: str
permissions:
  description: Each permission reviewed, with C(allowed) (true, false, or null when no answer came) and the reason.
  returned: always
  type: list
  elements: dict
missing:
  description: The Kubernetes permissions not granted, as C(verb resource.group in namespace ns).
  returned: always
  type: list
  elements: str
  sample: ["delete releases.core.convoy.kumodo.io in namespace team-a"]
unknown:
  description: The Kubernetes permissions whose review went unanswered.
  returned: always
  type: list
  elements: str
rbac_file:
  description: The file of extensions/rbac/ that grants the kind's permissions (null for a kind with no Kubernetes side).
  returned: always
  type: str
aws:
  description:
    - The AWS part, as M(teardown.gates.aws_permission_preflight) returns it; empty without O(aws_kind).
  returned: always
  type: dict
  contains:
    caller_arn:
      description: The caller, as STS GetCallerIdentity names it.
      type: str
    simulated_arn:
      description: The ARN simulated (an assumed role's role), or null when the caller cannot be simulated.
      type: str
    simulation_refused:
      description: Why the simulation could not answer (then the EC2 deletes were checked by DryRun), or null.
      type: str
    actions:
      description: Each action checked, with V(allowed), V(missing) or V(unverified), how and the answer.
      type: list
      elements: dict
    missing:
      description: The AWS actions the caller lacks.
      type: list
      elements: str
    unverified:
      description: The AWS actions neither the simulation nor a DryRun could check (never taken as allowed).
      type: list
      elements: str
    allowed:
      description: The AWS actions the caller has.
      type: list
      elements: str
    api_calls:
      description: The AWS part's requests (STS, the IAM policy simulation, EC2 DryRun calls), by service and action.
      type: dict
  sample: {"missing": [], "unverified": [], "allowed": ["ec2:DeleteVpc"], "caller_arn": "arn:aws:iam::123456789012:user/ops"}
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked
from ansible_collections.teardown.gates.plugins.module_utils.drivers import permission_preflight as driver


def main():
    module = AnsibleAWSModule(argument_spec=driver.argument_spec(), supports_check_mode=True)
    module.exit_json(**checked(module, driver.run, module))


if __name__ == "__main__":
    main()
