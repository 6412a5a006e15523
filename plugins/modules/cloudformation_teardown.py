#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: cloudformation_teardown
short_description: Delete a CloudFormation stack, clearing the refusals that leave it in DELETE_FAILED
version_added: 0.1.0
description:
  - Deletes a stack and waits, with a time limit, for it to leave C(DELETE_IN_PROGRESS).
  - When the stack stops at C(DELETE_FAILED), every refusal (each resource still C(DELETE_FAILED), through nested
    stacks) is classified from its status reason as AWS words it - C(DeleteConflict), C(DependencyViolation),
    C(BucketNotEmpty), C(DeletionProtection), C(ChildStackFailed), C(ExportInUse), C(TerminationProtection),
    C(transient) or C(other) - and only the remedies listed in O(clear) are applied, then the stack is deleted
    again. This repeats until C(DELETE_COMPLETE), a refusal the module may not clear, or O(wait_timeout).
  - A refusal it may not clear fails the task with a message naming the resource, the cause and the option
    that would clear it; nothing else is changed for it.
  - A stack that goes back to a C(*_COMPLETE) status other than C(DELETE_COMPLETE) after DeleteStack (an
    export still imported elsewhere) is a failure, said plainly; an export imported by a live stack is found
    before any delete is sent.
  - Resources left standing (C(DeletionPolicy) Retain/Snapshot, or retained with O(retain_unclearable)) are
    listed in RV(retained) by physical ID.
  - In check mode no mutating request is sent; the module returns the refusals it finds (for a stack in
    C(DELETE_FAILED)) or predicts (for a stack not yet deleting, by looking at what holds each resource) and the
    remedies it would apply.
  - A stack already deleted (not found by name, or C(DELETE_COMPLETE) by ARN) is C(ok), C(changed=false).
author:
  - teardown.gates developers (@teardown-gates)
options:
  stack_name:
    description:
      - The stack's name or ARN. A deleted stack is found only by its ARN.
    type: str
    required: true
    aliases: [name]
  clear:
    description:
      - The refusal causes the module may clear.
      - C(empty_buckets) deletes every object version and delete marker of a bucket that refuses with
        C(BucketNotEmpty).
      - C(detach_iam) detaches managed policies, deletes inline policies and removes instance-profile membership
        of an IAM role (user, group membership, policy attachments) that refuses with C(DeleteConflict); for a
        managed policy, it detaches the policy from the roles, users and groups of the stack and deletes its
        non-default versions.
      - C(disable_deletion_protection) turns off C(DeletionProtection) of an RDS DB cluster or instance.
      - C(release_dependencies) revokes other security groups' rules that refer to a refusing group, deletes
        unattached network interfaces of the stack that use it (or sit in a refusing subnet), and moves the
        stack's attached interfaces to their other groups or, with none, to the VPC's default group.
      - A network interface, role, user or group outside the stack is touched only when O(release_outside_stack)
        names it.
      - C(nested) recurses into a nested stack that failed and clears its refusals (with the same choices).
    type: list
    elements: str
    choices: [empty_buckets, detach_iam, disable_deletion_protection, release_dependencies, nested]
    default: []
  retain_unclearable:
    description:
      - Resources that refuse for a cause the module may not clear, or keep refusing after their remedy, are kept
        with DeleteStack's C(RetainResources) and listed in RV(retained).
      - When the endpoint does not support C(RetainResources) (it rejects or ignores it) the task fails saying so.
    type: bool
    default: false
  disable_termination_protection:
    description: Turn off the stack's termination protection before deleting it.
    type: bool
    default: false
  poll_interval:
    description: Seconds between looks at the stack's status while it is deleting.
    type: float
    default: 2.0
  release_outside_stack:
    description:
      - The holders outside the stack that the remedies of O(clear) may change, by the ID the check-mode plan shows
        (RV(refusals[].holders[].id) of a holder with C(outside_stack=true)) - a network interface ID, or the name of a
        role, user or group.
      - Outside the stack means not a resource of the stack or of its nested stacks; a network interface attached to
        an instance of the stack is the stack's.
      - A holder outside the stack that is not named here is left as it is. Its refusal is one the module may not
        clear - the task fails naming each such ID and what the remedy would do to it, before any change for that
        refusal, or with O(retain_unclearable) the resource is retained.
      - Anything but a list of IDs fails before any request.
    type: list
    elements: str
    default: []
    version_added: 0.1.0
notes:
  - Time bound, waits - O(wait_timeout) bounds the wait on the deletion. Against an endpoint that accepts and never
    answers, the task fails with RV(stack_status=UNKNOWN).
extends_documentation_fragment: [teardown.gates.aws_bounds, teardown.gates.aws_wait_timeout, amazon.aws.common.modules, amazon.aws.region.modules,
  amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Show the refusals and what would be done about them
  teardown.gates.cloudformation_teardown:
    stack_name: my-app
    clear: [empty_buckets, detach_iam]
  check_mode: true
  register: plan

- name: Delete the stack, emptying its buckets and detaching IAM policies, keep what still refuses
  teardown.gates.cloudformation_teardown:
    stack_name: my-app
    clear: [empty_buckets, detach_iam, release_dependencies, nested]
    retain_unclearable: true
    wait_timeout: 1800
  register: teardown

- name: List what was left standing
  ansible.builtin.debug:
    var: teardown.retained

- name: Also move an interface of an instance outside the stack, named from the check-mode plan
  teardown.gates.cloudformation_teardown:
    stack_name: my-app
    clear: [release_dependencies]
    release_outside_stack: [eni-0123456789abcdef0]
"""

RETURN = r"""
stack_status:
  description:
    - The stack's status as last observed; C(NOT_FOUND) only when CloudFormation answered that no stack of that
      name exists (already deleted).
    - C(UNKNOWN) when no read of the stack answered (throttled, a 5xx, a silent endpoint past its bound);
      the stack may be in any state, and is never reported as absent.
  returned: always
  type: str
  sample: DELETE_COMPLETE
stack_id:
  description: The stack's ARN (the only way to find it once deleted).
  returned: when the stack was found
  type: str
refusals:
  description: Each refusal seen, with its class and the remedy applied (or that would be, in check mode).
  returned: always
  type: list
  elements: dict
  contains:
    logical_id:
      description: The resource's logical ID.
      type: str
    type:
      description: The resource type.
      type: str
    physical_id:
      description: The resource's physical ID.
      type: str
    stack:
      description: The stack holding it (a nested stack's name for a child's resource).
      type: str
    class:
      description: C(DeleteConflict), C(DependencyViolation), C(BucketNotEmpty), C(DeletionProtection),
        C(ChildStackFailed), C(ExportInUse), C(TerminationProtection), C(transient) or C(other).
      type: str
    remedy:
      description: The option used for it (a O(clear) choice, C(disable_termination_protection), C(retry),
        C(retain_unclearable)), or null when none may be.
      type: str
    action:
      description:
        - C(cleared) (this run released what held it), C(found clear) (nothing held it any more when this run looked,
          for example another run had cleared it; the delete is retried), C(recurse), C(retry), C(retain),
          C(stopped); C(would ...) in check mode.
      type: str
    reason:
      description: The status reason AWS gave.
      type: str
    holders:
      description: What held the resource.
      type: list
      elements: dict
      contains:
        kind:
          description: C(objects), C(attached_policy), C(inline_policy), C(instance_profile), C(group), C(role),
            C(user), C(version), C(deletion_protection), C(sg_rule_ingress), C(sg_rule_egress) or C(eni).
          type: str
        id:
          description: The holder's ID (the ID O(release_outside_stack) takes for one outside the stack).
          type: str
        what:
          description: The holder in words; for one outside the stack, also what the remedy would do to it.
          type: str
        outside_stack:
          description:
            - For a network interface, or a role, user or group a managed policy is attached to - true when it is not
              the stack's (not a resource of the stack or of its nested stacks, nor, for an interface, attached to an
              instance that is).
            - The remedy changes one outside the stack only when O(release_outside_stack) names its RV(refusals[].holders[].id).
          type: bool
          returned: for a network interface, or a role, user or group a managed policy is attached to
          version_added: 0.1.0
    not_released:
      description:
        - Each holder outside the stack that stopped the remedy, by ID ("<id> is outside the stack ...; name it in
          release_outside_stack to let the remedy ..."); the refusal was stopped or retained and nothing was
          changed for it.
      type: list
      elements: str
  sample: [{"logical_id": "Logs", "type": "AWS::S3::Bucket", "physical_id": "p-bucket-logs", "class": "BucketNotEmpty",
            "remedy": "empty_buckets", "action": "cleared"}]
retained:
  description: Resources left standing, by physical ID, with why (DeletionPolicy or retain_unclearable).
  returned: always
  type: list
  elements: dict
  sample: [{"logical_id": "Data", "type": "AWS::S3::Bucket", "physical_id": "p-retain-data", "why": "DeletionPolicy (DELETE_SKIPPED)"}]
notes:
  description: What could not be known (a failed lookup), said so rather than taken as absent.
  returned: always
  type: list
  elements: str
retain_supported:
  description: Whether the endpoint honoured RetainResources; null when it was not used.
  returned: always
  type: bool
events:
  description: Stack events seen during this run, oldest first.
  returned: always
  type: list
  elements: dict
api_calls:
  description: The teardown's AWS requests (CloudFormation, and S3, IAM or EC2 for the remedies), by service and action.
  returned: always
  type: dict
elapsed:
  description: Seconds the module took.
  returned: always
  type: float
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.cfn import run as cfn_run
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked


def main():
    module = AnsibleAWSModule(argument_spec=cfn_run.argument_spec(), supports_check_mode=True)
    module.exit_json(**checked(module, cfn_run.run, module))


if __name__ == "__main__":
    main()
