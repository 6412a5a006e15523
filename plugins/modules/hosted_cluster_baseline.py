#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: hosted_cluster_baseline
short_description: Read where a HostedCluster destroy starts - the HostedCluster, the stored baseline and the AWS inventory - in one run
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - The whole baseline (Phase 1) of the C(teardown.gates.hosted_cluster_destroy) role in one process, with one
    Kubernetes client and one set of AWS clients.
  - Reads the HostedCluster O(namespace)/O(name), its NodePools and the images it runs as
    M(teardown.gates.hosted_cluster_info) does (nothing is read from Kubernetes without O(name)), and the baseline an
    earlier run stored at O(baseline_path).
  - Decides the identity of the cluster, each value by its precedence (the option, then the HostedCluster, then the
    stored baseline, then C(AWS_DEFAULT_REGION)), and the options of the run. A stored baseline of another UID than the
    HostedCluster's (an earlier cluster of the same name) is forgotten.
  - Refuses, before any change, a HostedCluster that does not exist when nothing is stored and no O(infra_id) is
    given, a HostedCluster on another platform than AWS, an O(infra_id) that is not the HostedCluster's, and
    O(take_over_cleanup) with O(destroy_cloud_resources=false) when the cleanup annotation is already set; and a stored
    baseline that is not one, naming its file.
  - Then records the AWS inventory of the infra ID it decided as M(teardown.gates.aws_infra_inventory) does, and
    merges it with the stored baseline, so that every ID ever recorded stays tracked.
  - A read that fails (Kubernetes, after its retries, or AWS) fails the task as unknown - never as absent.
  - Read-only; check mode runs the same reads.
  - The AWS region is O(region), else the HostedCluster's, else the stored baseline's, else C(AWS_DEFAULT_REGION).
notes:
  - Time bound - the Kubernetes reads as M(teardown.gates.hosted_cluster_info)'s (building the client at most
    3 x O(request_timeout), each request at most O(request_timeout), tried at most 3 times), then the AWS reads.
options:
  name:
    description:
      - The HostedCluster's name. Empty for an infrastructure-only destroy by O(infra_id) (nothing is read from
        Kubernetes).
    type: str
    default: ""
  namespace:
    description: The HostedCluster's namespace.
    type: str
    default: clusters
  infra_id:
    description:
      - The infra ID to destroy when the HostedCluster is gone; when it is there, O(infra_id) must be its
        C(spec.infraID).
    type: str
    default: ""
  oidc_bucket:
    description: The OIDC bucket, else the bucket of the HostedCluster's issuer URL, else the stored one.
    type: str
    default: ""
  baseline_path:
    description:
      - The file an earlier run stored its baseline in (M(teardown.gates.teardown_report)'s
        C(<namespace>-<name>.baseline.json)); a relative path is read from the working directory. A file that is
        missing or cannot be read is nothing stored.
    type: str
    required: true
  report_dir:
    description: The directory of the reports, named in the refusal of a HostedCluster that does not exist.
    type: str
    default: ""
  started:
    description: When the run started; the baseline's C(recorded_at) when nothing is stored.
    type: str
    default: ""
  destroy_cloud_resources:
    description: Whether the run sets the cleanup annotation (the guest's cloud resources are deleted).
    type: bool
    default: true
  preserve_iam:
    description: Whether the run keeps the cluster's IAM (recorded in the options).
    type: bool
    default: false
  take_over_cleanup:
    description: Whether the run may take over the guest's cleanup (recorded; refused when it contradicts the annotation).
    type: bool
    default: false
  take_over_after:
    description: Seconds before a take-over (recorded in the options).
    type: int
    default: 900
  cluster_grace_period:
    description: Seconds each gate waits (recorded in the options).
    type: int
    default: 600
  min_age:
    description:
      - Keep what was created less than this long ago (seconds, or a duration such as V(24h)), as
        M(teardown.gates.aws_infra_inventory)'s O(teardown.gates.aws_infra_inventory#module:min_age); the
        HostedCluster's creation time (else the stored one) judges what has no creation time of its own.
    type: raw
    default: 0
seealso:
  - module: teardown.gates.hosted_cluster_info
  - module: teardown.gates.aws_infra_inventory
  - module: teardown.gates.teardown_verify
    description: Verifies, after the teardown, every AWS ID of the manifest this module builds.
extends_documentation_fragment: [teardown.gates.k8s_aws_tls, teardown.gates.aws_bounds, teardown.gates.k8s_request_timeout,
  kubernetes.core.k8s_auth_options, amazon.aws.common.modules, amazon.aws.region.modules, amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Where would a destroy of clusters/demo start from?
  teardown.gates.hosted_cluster_baseline:
    name: demo
    baseline_path: /var/tmp/reports/clusters-demo.baseline.json
  register: start

- name: Show it
  ansible.builtin.debug:
    msg: "{{ start.cluster.infra_id }} in {{ start.cluster.region }}: {{ start.manifest | length }} kinds of AWS resources"
"""

RETURN = r"""
hc_present:
  description: Whether the HostedCluster is there (a successful read answered it).
  returned: always
  type: bool
hosted_cluster:
  description: The HostedCluster as read; empty when it is not there.
  returned: always
  type: dict
stored:
  description: The stored baseline as read and checked; empty when nothing is stored or it was of another UID.
  returned: always
  type: dict
cluster:
  description: The identity - namespace, name, uid, infra_id, region, hcp_namespace, release_image, base_domain, created.
  returned: always
  type: dict
options:
  description: The options of the run (the role's C(hosted_cluster_destroy_options)).
  returned: always
  type: dict
cleanup_preexisting:
  description: Whether the cleanup annotation was set before this run.
  returned: always
  type: bool
skip_namespace_delete:
  description: Whether the skip annotation keeps the HCP namespace.
  returned: always
  type: bool
oidc_bucket:
  description: The OIDC bucket decided.
  returned: always
  type: str
deleting:
  description: The HostedCluster's deletionTimestamp when set, else false.
  returned: always
  type: raw
cli_finalizer_on:
  description: Whether the CLI's finalizer C(openshift.io/destroy-cluster) is on the HostedCluster.
  returned: always
  type: bool
nodepools:
  description: The NodePools read now and those stored, sorted.
  returned: always
  type: list
  elements: str
versions:
  description: ansible_core, release_image and control_plane_operator_image.
  returned: always
  type: dict
guest_volumes:
  description: The guest's persistent volumes, stored and found now, sorted.
  returned: always
  type: list
  elements: str
guest_groups:
  description: The security groups of the guest's load balancers, stored and found now, sorted.
  returned: always
  type: list
  elements: str
manifest:
  description: The stored manifest merged with the one found now (type name to IDs).
  returned: always
  type: dict
baseline:
  description: The baseline to store, without its manifest.
  returned: always
  type: dict
retain:
  description: The guest's volumes kept when its storage is not to be deleted, as aws_infra_cleanup's retain.
  returned: always
  type: dict
aws_cleanup_runs:
  description: Whether the manifest names an AWS resource (the AWS cleanup runs).
  returned: always
  type: bool
protected:
  description: The resources kept - tagged C(teardown.gates/protected=true), or younger than O(min_age).
  returned: always
  type: list
  elements: dict
counts:
  description: How many IDs of each type the AWS inventory of this run found.
  returned: always
  type: dict
total:
  description: How many IDs the AWS inventory of this run found, of every type.
  returned: always
  type: int
api_calls:
  description: The AWS inventory's requests (reads only), by service and action; the Kubernetes reads are in RV(queries).
  returned: always
  type: dict
queries:
  description: Each Kubernetes read (what, verb, started, finished, ok, attempts, and status or error).
  returned: always
  type: list
  elements: dict
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked
from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_baseline as driver


def main():
    module = AnsibleAWSModule(argument_spec=driver.argument_spec(), supports_check_mode=True)
    module.exit_json(**checked(module, driver.run, module))


if __name__ == "__main__":
    main()
