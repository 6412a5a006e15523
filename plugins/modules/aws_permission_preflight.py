#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: aws_permission_preflight
short_description: Check, before the first change, every AWS permission a teardown will need
version_added: 0.1.0
description:
  - Names the caller with STS GetCallerIdentity (which needs no permission). An assumed-role session is checked as
    its role.
  - Asks IAM SimulatePrincipalPolicy, in batches, whether the caller may perform each action the run will need
    (O(kind), shaped by its options, and O(actions)). V(allowed) is allowed; V(implicitDeny) and V(explicitDeny)
    are missing.
  - Where the simulation is itself refused (the caller lacks C(iam:SimulatePrincipalPolicy), say), sends each EC2
    delete with C(DryRun=true) instead - AWS answers C(DryRunOperation) when the call would be authorized and
    C(UnauthorizedOperation) when not, and changes nothing.
  - What neither way could check is reported as unverified, never as allowed.
  - Fails when any action is missing, naming every one (not only the first) and
    C(extensions/iam/teardown-gates-policy.json), which grants them.
  - Sends reads and permission checks only, in check mode too; it never changes anything.
  - M(teardown.gates.permission_preflight) runs the same check (its O(teardown.gates.permission_preflight#module:aws_kind))
    in one module run with the Kubernetes access reviews; the C(before_first_delete) role uses that one.
author:
  - teardown.gates developers (@teardown-gates)
options:
  kind:
    description:
      - The kind of run whose AWS actions to check - V(hosted_cluster) (the destroy's AWS cleanup, its deletes and
        waits), V(cfn) (a stack teardown, with the remedies of O(clear) and O(disable_termination_protection)),
        V(orphan_sweep) (the region scan, and the cleanup when O(sweep_delete)).
      - Required unless O(actions) is given.
    type: str
    choices: [hosted_cluster, cfn, orphan_sweep]
  actions:
    description: More IAM actions to check, each C(service:Action) (for example V(ec2:DeleteVpc)).
    type: list
    elements: str
    default: []
  clear:
    description: With O(kind=cfn), the remedies the teardown may use (as M(teardown.gates.cloudformation_teardown)'s).
    type: list
    elements: str
    default: []
    choices: [empty_buckets, detach_iam, disable_deletion_protection, release_dependencies, nested]
  disable_termination_protection:
    description: With O(kind=cfn), the teardown may turn termination protection off.
    type: bool
    default: false
  sweep_delete:
    description: With O(kind=orphan_sweep), the sweep deletes (and so needs the cleanup's actions).
    type: bool
    default: true
  dry_run_ids:
    description:
      - Real resource IDs for the DryRun checks, by parameter name (V(VpcId), V(SubnetId), V(GroupId),
        V(InternetGatewayId), V(RouteTableId), V(AssociationId), V(NatGatewayId), V(AllocationId), V(DhcpOptionsId),
        V(VpcEndpointId), V(InstanceId), V(NetworkInterfaceId), V(VolumeId)). Placeholders are sent for those not given; a policy
        that narrows its Resource to some IDs is then checked on the placeholder.
    type: dict
    default: {}
  fail_on_missing:
    description: Fail when an action is missing. V(false) only reports it.
    type: bool
    default: true
notes:
  - The simulation evaluates the policies of the caller's identity; a policy it is not given (a resource's own
    policy, a session policy) can still refuse a call it allows, and the run's own error then names the permission.
seealso:
  - module: teardown.gates.permission_preflight
extends_documentation_fragment: [teardown.gates.aws_bounds, amazon.aws.common.modules, amazon.aws.region.modules, amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Check every AWS permission the destroy will need, before the first change
  teardown.gates.aws_permission_preflight:
    kind: hosted_cluster
    region: us-east-1

- name: Check a stack teardown that may empty buckets and detach IAM policies
  teardown.gates.aws_permission_preflight:
    kind: cfn
    clear: [empty_buckets, detach_iam]
"""

RETURN = r"""
caller_arn:
  description: The caller, as STS GetCallerIdentity names it.
  returned: when STS answered
  type: str
simulated_arn:
  description: The ARN simulated (an assumed role's role), or null when the caller cannot be simulated.
  returned: when STS answered
  type: str
simulation_refused:
  description: Why the simulation could not answer (then the EC2 deletes were checked by DryRun), or null.
  returned: when STS answered
  type: str
actions:
  description: Each action checked, with V(allowed), V(missing) or V(unverified), how (V(simulation), V(dry_run)
    or null) and the answer (V(implicitDeny), V(explicitDeny), V(DryRunOperation) ...).
  returned: when STS answered
  type: list
  elements: dict
missing:
  description: The actions the caller lacks.
  returned: when STS answered
  type: list
  elements: str
unverified:
  description: The actions neither the simulation nor a DryRun could check.
  returned: when STS answered
  type: list
  elements: str
allowed:
  description: The actions the caller has.
  returned: when STS answered
  type: list
  elements: str
api_calls:
  description: The check's AWS requests (STS, the IAM policy simulation, EC2 DryRun calls), by service and action.
  returned: always
  type: dict
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked
from ansible_collections.teardown.gates.plugins.module_utils.preflight import aws_permissions


def main():
    module = AnsibleAWSModule(argument_spec=aws_permissions.argument_spec(), supports_check_mode=True)
    module.exit_json(**checked(module, aws_permissions.run, module))


if __name__ == "__main__":
    main()
