#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: aws_infra_cleanup
short_description: Delete an infra ID's AWS resources in dependency order and verify absence by ID
version_added: 0.1.0
description:
  - Deletes the resources of a manifest (from M(teardown.gates.aws_infra_inventory), or discovered from
    O(infra_id)) in dependency order; independent deletes run in parallel, bounded by O(concurrency).
  - Every resource is first looked up by ID; what is already absent (or C(terminated), C(deleted)) costs no
    mutating call, so a re-run after completion changes nothing and a re-run after an interruption
    finishes the job.
  - When AWS refuses a delete (C(DependencyViolation), C(InvalidIPAddress.InUse), C(DeleteConflict), ...), the
    module finds the blocker (the ENIs in a subnet or group, the NAT gateway still C(deleting), the instance
    still C(shutting-down), the rule of another group that references the group) and waits on that blocker's
    own state by ID before it re-tries only the refused delete. A blocker that is not in the manifest and is
    not going away is reported by ID with what to do; it is never re-tried blindly.
  - The waits after its own deletes share one look per round. NAT gateways still C(deleting), instances still
    C(shutting-down) and the ENIs that a deleted load balancer leaves behind are watched through one
    C(DescribeNetworkInterfaces) on their VPC. A NAT gateway or instance whose ENI is gone is confirmed
    C(deleted) or C(terminated) by a look by ID, and a slower look by ID catches one whose ENI outlives it.
  - Those looks start 1 s after the deletes and space out by 1.5x, to at most 2 s apart while AWS answers
    freely, since the subnets, the internet gateway and the VPC wait on the last NAT gateway and a look that
    comes late delays the whole teardown. Once AWS has throttled any request of the run, they space out to 5 s.
  - Throttling and server errors back off with jitter.
  - At the end every non-retained resource is looked up by ID again, unless a look by ID during the run
    already found it C(deleted) or C(terminated); RV(verified) is true only when each was found absent or
    terminal. A failed query counts as unknown, never as absent.
  - In check mode no mutating call is made; the module returns the whole ordered plan (levels, resources,
    the steps of each, what each waits on) with what the lookup by ID found.
  - A resource tagged C(teardown.gates/protected=true) is never deleted (RV(kept)), nor is anything that waits on
    it in the order above (RV(blocked); IAM waits on every infrastructure type). The tags are read from the first
    look by ID (or discovery's answers), no request is added; only types whose answer carries tags can be
    protected so (the EC2 types). Kept and blocked resources do not fail the module; RV(verified) is then false.
    One of those types whose look failed has unknown tags; it is not deleted either (nor what waits on it), and it
    fails the module (outcome C(failed), C(its tags are unknown ...)).
  - With O(min_age), what was created less than that long ago is kept the same way (RV(kept), with the reason), and
    what waits on it is blocked.
author:
  - teardown.gates developers (@teardown-gates)
options:
  manifest:
    description:
      - A mapping of CloudFormation resource type name to a list of IDs, or the path of a JSON or YAML file
        holding one.
      - "Known types: C(AWS::EC2::Instance), C(AWS::EC2::NatGateway), C(AWS::EC2::InternetGateway),
        C(AWS::EC2::Subnet), C(AWS::EC2::RouteTable), C(AWS::EC2::SecurityGroup), C(AWS::EC2::VPCEndpoint),
        C(AWS::EC2::VPCEndpointService) (a VPC endpoint service configuration, by its C(vpce-svc-) ID),
        C(AWS::EC2::EIP), C(AWS::EC2::VPC), C(AWS::EC2::DHCPOptions), C(AWS::ElasticLoadBalancing::LoadBalancer),
        C(AWS::ElasticLoadBalancingV2::LoadBalancer), C(AWS::ElasticLoadBalancingV2::TargetGroup), C(AWS::EC2::Volume),
        C(AWS::Route53::HostedZone), C(AWS::Route53::RecordSet) (C(ZONEID/NAME/TYPE)), C(AWS::S3::Bucket),
        C(Custom::S3Prefix) (C(BUCKET/PREFIX/)), C(AWS::IAM::Role), C(AWS::IAM::InstanceProfile),
        C(AWS::IAM::ManagedPolicy), C(AWS::IAM::OIDCProvider)."
      - Mutually exclusive with O(infra_id).
    type: raw
  infra_id:
    description:
      - Discover the manifest from this infra ID (as M(teardown.gates.aws_infra_inventory) does) instead.
    type: str
  preserve_iam:
    description: Keep the IAM roles, instance profiles, managed policies and OIDC providers (outcome C(retained)).
    type: bool
    default: false
  retain:
    description:
      - Resources of the manifest to keep as they are, in the manifest's shape (type name -> list of IDs); each is
        reported with outcome C(retained) (reason C(retain)), neither deleted nor counted as left.
      - M(teardown.gates.aws_infra_inventory)'s RV(teardown.gates.aws_infra_inventory#module:guest_volumes) under
        C(AWS::EC2::Volume) keeps the guest's persistent volumes when the guest's storage is not to be deleted.
    type: dict
    default: {}
  require_owned:
    description:
      - Resources of the manifest (C(resources), in the manifest's shape) that are deleted only when the first look by
        ID shows them tagged C(kubernetes.io/cluster/<infra_id>=owned) (C(infra_id)). One present without that tag
        (untagged, or tagged for another infra ID, or C(shared)) is refused - neither it nor what waits on it is
        deleted - and fails the module (outcome C(failed), its C(error) naming what it carries). One already gone is
        simply absent; one whose look failed has unknown tags and fails as such, never taken as absent.
      - Only types whose look by ID answers with their tags (the EC2 types) can be checked so. The HostedCluster
        take-over passes the VPC endpoint service configurations it takes over from the hypershift-operator here.
    type: dict
  concurrency:
    description: Most AWS requests in flight at once.
    type: int
    default: 8
notes:
  - Time bound, waits - O(wait_timeout) bounds the waits on blockers (an instance terminating, a NAT gateway
    deleting); what has not gone by then is reported by ID as left.
extends_documentation_fragment: [teardown.gates.aws_bounds, teardown.gates.aws_infra_discovery, teardown.gates.aws_wait_timeout,
  teardown.gates.aws_min_age, amazon.aws.common.modules, amazon.aws.region.modules, amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Show the ordered plan, change nothing
  teardown.gates.aws_infra_cleanup:
    manifest: /var/tmp/demo-x7k2q.manifest.json
  check_mode: true
  register: plan

- name: Delete everything in the manifest, keep IAM
  teardown.gates.aws_infra_cleanup:
    manifest: "{{ inv.manifest }}"
    preserve_iam: true
    wait_timeout: 1200
  register: cleanup

- name: Fail when anything is left
  ansible.builtin.assert:
    that: cleanup.verified
    fail_msg: "{{ cleanup.resources | selectattr('outcome', 'equalto', 'failed') | list }}"

- name: Discover and delete in one step
  teardown.gates.aws_infra_cleanup:
    infra_id: demo-x7k2q
    base_domain: example.com
    oidc_bucket: my-oidc-bucket
"""

RETURN = r"""
resources:
  description: One entry per resource of the manifest.
  returned: always
  type: list
  elements: dict
  contains:
    type:
      description: CloudFormation type name.
      type: str
    id:
      description: The resource's ID.
      type: str
    outcome:
      description: C(deleted) (this run deleted it), C(absent) (already gone or terminal, or deleted by AWS with
        its instance), C(retained) (preserve_iam or retain), C(kept) (tagged teardown.gates/protected, with
        C(reason)), C(blocked) (waits on a kept resource, with C(blocked_by)), C(failed); C(planned) in check mode.
      type: str
    reason:
      description: Why it was retained or kept (C(preserve_iam), C(retain), C(tagged teardown.gates/protected)).
      type: str
    blocked_by:
      description: When blocked, the kept resources it waits on, each as C(TYPE ID).
      type: list
    error:
      description: Why it failed, when it failed.
      type: str
    blockers:
      description: When failed because of something in the way, what (type, id, state, what_to_do).
      type: list
    refusals:
      description: Each refused delete, with the blockers found for it.
      type: list
    verified_state:
      description: What the final lookup by ID found (absent, terminal, present, unknown).
      type: str
  sample: [{"type": "AWS::EC2::Subnet", "id": "subnet-0abc", "outcome": "deleted", "verified_state": "absent"}]
plan:
  description: The ordered plan; a list of levels, each a list of resources with C(steps), C(waits_on) and,
    in check mode, C(observed) and C(action).
  returned: always
  type: list
  elements: list
api_calls:
  description: The cleanup's AWS requests (discovery, deletes, waits, verification), by service and action - every HTTP attempt, retries included.
  returned: always
  type: dict
api_errors:
  description: Error answers received, by error code.
  returned: always
  type: dict
refused:
  description: Number of refused deletes (each is followed by a blocker lookup).
  returned: always
  type: int
elapsed:
  description: Seconds the module took.
  returned: always
  type: float
kept:
  description: The resources tagged C(teardown.gates/protected=true) or created less than O(min_age) ago, never
    deleted, each with C(type), C(id) and C(reason).
  returned: always
  type: list
  elements: dict
  sample: [{"type": "AWS::EC2::NatGateway", "id": "nat-0abc", "reason": "tagged teardown.gates/protected"}]
blocked:
  description: What waits on a kept resource and is therefore not deleted either, each with C(type), C(id) and
    C(blocked_by) (the kept resources, each as C(TYPE ID)).
  returned: always
  type: list
  elements: dict
  sample: [{"type": "AWS::EC2::VPC", "id": "vpc-0abc", "blocked_by": ["AWS::EC2::NatGateway nat-0abc"]}]
verified:
  description: True only when lookups by ID found every non-retained resource absent or terminal, and nothing was
    kept.
  returned: always
  type: bool
manifest:
  description: The manifest used (normalised).
  returned: always
  type: dict
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.aws import runs as aws_runs
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked


def main():
    module = AnsibleAWSModule(argument_spec=aws_runs.cleanup_spec(), supports_check_mode=True, **aws_runs.CLEANUP_RULES)
    module.exit_json(**checked(module, aws_runs.cleanup, module))


if __name__ == "__main__":
    main()
