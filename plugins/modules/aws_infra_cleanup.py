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
author:
  - teardown.gates developers (@teardown-gates)
options:
  manifest:
    description:
      - A mapping of CloudFormation resource type name to a list of IDs, or the path of a JSON or YAML file
        holding one.
      - "Known types: C(AWS::EC2::Instance), C(AWS::EC2::NatGateway), C(AWS::EC2::InternetGateway),
        C(AWS::EC2::Subnet), C(AWS::EC2::RouteTable), C(AWS::EC2::SecurityGroup), C(AWS::EC2::VPCEndpoint),
        C(AWS::EC2::EIP), C(AWS::EC2::VPC), C(AWS::EC2::DHCPOptions), C(AWS::ElasticLoadBalancing::LoadBalancer),
        C(AWS::ElasticLoadBalancingV2::LoadBalancer), C(AWS::ElasticLoadBalancingV2::TargetGroup),
        C(AWS::Route53::HostedZone), C(AWS::Route53::RecordSet) (C(ZONEID/NAME/TYPE)), C(AWS::S3::Bucket),
        C(Custom::S3Prefix) (C(BUCKET/PREFIX/)), C(AWS::IAM::Role), C(AWS::IAM::InstanceProfile),
        C(AWS::IAM::ManagedPolicy), C(AWS::IAM::OIDCProvider)."
      - Mutually exclusive with O(infra_id).
    type: raw
  infra_id:
    description:
      - Discover the manifest from this infra ID (as M(teardown.gates.aws_infra_inventory) does) instead.
    type: str
  base_domain:
    description: With O(infra_id), the public zone holding the C(*.apps) record.
    type: str
  cluster_name:
    description: With O(infra_id), the cluster name in the C(*.apps) record; defaults to O(infra_id).
    type: str
  oidc_bucket:
    description: With O(infra_id), the bucket whose C(<infra_id>/) prefix holds the OIDC documents.
    type: str
  preserve_iam:
    description: Keep the IAM roles, instance profiles, managed policies and OIDC providers (outcome C(retained)).
    type: bool
    default: false
  wait_timeout:
    description:
      - Seconds the whole cleanup may take, waits on blockers included. Resources still blocked then are
        reported as C(failed) with their blockers; a re-run resumes.
    type: int
    default: 900
  concurrency:
    description: Most AWS requests in flight at once.
    type: int
    default: 8
notes:
  - Time bound - each AWS request has a connect timeout of 5 s and a read timeout of 15 s; botocore alone
    retries (standard mode, 4 attempts in all), so one call ends within 87 seconds. Once an endpoint has not
    answered within that, no further request goes to it (what it holds is unknown, never absent), so against
    an endpoint that accepts and never answers the task fails, naming the endpoint, after about 87 seconds.
    O(wait_timeout) bounds the waits on blockers.
extends_documentation_fragment:
  - amazon.aws.common.modules
  - amazon.aws.region.modules
  - amazon.aws.boto3
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
      description: C(deleted) (this run deleted it), C(absent) (already gone or terminal), C(retained)
        (preserve_iam), C(failed); C(planned) in check mode.
      type: str
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
  description: AWS requests made, by service and action (every HTTP attempt, retries included).
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
verified:
  description: True only when lookups by ID found every non-retained resource absent or terminal.
  returned: always
  type: bool
manifest:
  description: The manifest used (normalised).
  returned: always
  type: dict
"""

import json
import os
import time

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils import aws_graph
from ansible_collections.teardown.gates.plugins.module_utils.bounds import aws_config
from ansible_collections.teardown.gates.plugins.module_utils.aws_client import Clients
from ansible_collections.teardown.gates.plugins.module_utils.aws_execute import Executor
from ansible_collections.teardown.gates.plugins.module_utils.aws_inventory import discover
from ansible_collections.teardown.gates.plugins.module_utils.errors import fail_from

try:
    import botocore.exceptions
except ImportError:
    pass  # handled by AnsibleAWSModule


def load_manifest(module, value):
    if isinstance(value, str):
        path = value
        if not os.path.isfile(path):
            module.fail_json(msg="manifest: %r is neither a mapping nor a readable file" % value)
        with open(path) as f:
            text = f.read()
        try:
            return json.loads(text)
        except ValueError:
            try:
                import yaml
                return yaml.safe_load(text)
            except Exception as e:  # noqa: BLE001
                module.fail_json(msg="manifest: %s is neither JSON nor YAML: %s" % (path, e))
    return value


def main():
    argument_spec = dict(
        manifest=dict(type="raw"),
        infra_id=dict(type="str"),
        base_domain=dict(type="str"),
        cluster_name=dict(type="str"),
        oidc_bucket=dict(type="str"),
        preserve_iam=dict(type="bool", default=False),
        wait_timeout=dict(type="int", default=900),
        concurrency=dict(type="int", default=8),
    )
    module = AnsibleAWSModule(argument_spec=argument_spec, supports_check_mode=True,
                              mutually_exclusive=[("manifest", "infra_id")],
                              required_one_of=[("manifest", "infra_id")])
    t0 = time.monotonic()
    p = module.params
    if p["infra_id"] is not None and not p["infra_id"].strip():
        module.fail_json(msg="infra_id must not be empty: an empty infra ID would match every cluster's tag")
    if p["wait_timeout"] < 1:
        module.fail_json(msg="wait_timeout must be at least 1 second, got %d" % p["wait_timeout"])
    if p["concurrency"] < 1:
        module.fail_json(msg="concurrency must be at least 1, got %d" % p["concurrency"])
    manifest = None
    if p["manifest"] is not None:
        manifest = load_manifest(module, p["manifest"])
        try:
            aws_graph.validate_manifest(manifest)
        except aws_graph.PlanError as e:
            fail_from(module, e, what="manifest")

    clients = Clients(module.client, concurrency=p["concurrency"], check_mode=module.check_mode, config=aws_config("aws_infra_cleanup"))
    observed = None
    if manifest is None:
        try:
            manifest, details = discover(clients, p["infra_id"].strip(), base_domain=p["base_domain"],
                                         cluster_name=p["cluster_name"], oidc_bucket=p["oidc_bucket"],
                                         region=module.region or "us-east-1")
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as e:
            module.fail_json_aws(e, msg="discovery of infra ID %s failed; nothing was deleted" % p["infra_id"],
                                 api_calls=clients.calls)
        observed = details["observed"]
    try:
        plan = aws_graph.plan(manifest, preserve_iam=p["preserve_iam"])
    except aws_graph.PlanError as e:
        fail_from(module, e, what="manifest")

    ex = Executor(clients, plan, wait_timeout=p["wait_timeout"], observed=observed)
    result = dict(manifest=plan["manifest"])
    if module.check_mode:
        levels = ex.check_plan()
        resources = [dict(type=r["type"], id=r["id"], outcome="retained", reason=r["reason"]) for r in plan["retained"]]
        verified = True
        for level in levels:
            for r in level:
                resources.append(dict(type=r["type"], id=r["id"], outcome="planned" if r["action"] == "delete" else (
                    "absent" if r["observed"] in ("absent", "terminal") else "planned"), observed=r["observed"]))
                verified = verified and r["observed"] in ("absent", "terminal")
        result.update(changed=any(r["outcome"] == "planned" for r in resources), plan=levels, resources=resources,
                      verified=verified)
    else:
        verified, dummy = ex.run()
        order = dict(((r["type"], r["id"]), n) for n, level in enumerate(plan["levels"]) for r in level)
        resources = sorted(ex.results.values(), key=lambda r: (order.get((r["type"], r["id"]), -1), r["type"], r["id"]))
        result.update(changed=any(r.get("outcome") == "deleted" for r in resources), plan=plan["levels"],
                      resources=resources, verified=verified)
    result.update(api_calls=clients.calls, api_errors=clients.errors, elapsed=round(time.monotonic() - t0, 3),
                  refused=sum(len(r.get("refusals", [])) for r in result["resources"]))
    failed = [r for r in result["resources"] if r.get("outcome") == "failed"]
    if failed:
        detail = "; ".join("%s %s: %s" % (r["type"], r["id"], r.get("error")) for r in failed[:5])
        module.fail_json(msg="%d of %d resources could not be deleted: %s" % (len(failed), len(result["resources"]), detail),
                         **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
