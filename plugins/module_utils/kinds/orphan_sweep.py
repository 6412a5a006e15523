# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The orphan_sweep kind: sweep AWS infrastructure whose HostedCluster is gone (role orphan_sweep).

It has no Kubernetes names and no report page of its own: its names are AWS tags. registry.py lists it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

NAME = "orphan_sweep"
PAGE = False  # its report is the role's JSON; no HTML page, chart or verdict

API_VERSIONS = ()
ANNOTATIONS = ()
# the AWS tags it reads (plugins/module_utils/aws/orphans.py CLUSTER_TAG and PROTECTED_TAG)
TAGS = ("kubernetes.io/cluster/<infraID>", "teardown.gates/protected")
FINALIZERS = {}
OBJECT_HINTS = {}
HINT_RULES = ()
CLOSED_STATES = ()


# The Kubernetes permissions a run needs on its path, as data (preflight/permissions.py reviews them before the first
# change): verb, API group, resource, the namespace (a template over the run's options; None: cluster-wide or every
# namespace), the option that must be true for the permission to be needed (None: always), and the RBAC file that
# grants them (tests/unit/plugins/module_utils/preflight/test_permissions.py parses it and checks each is granted).
RBAC_FILE = 'extensions/rbac/orphan_sweep.yml'
PERMISSIONS = (
    {"verb": "list", "group": "hypershift.openshift.io", "resource": "hostedclusters", "namespace": None},
    {"verb": "get", "group": "", "resource": "namespaces", "namespace": None, "name": "kube-system",
     "when": "sweep_delete"},
)


FILES = {
    "role": ("roles/orphan_sweep", "orphan"),
    "playbook": ("playbooks/sweep_orphans.yml", "orphan_sweep"),
    "runbook": ("docs/runbook-sweep-orphans.md", "sweep_orphans"),
    "rbac": ("extensions/rbac/orphan_sweep.yml", "orphan_sweep"),
    "awx": ("extensions/awx/job_templates.yml", "sweep_orphans.yml"),
    "runner_row": ("tests/sandbox/tests/test_runner_playbooks.py", '"sweep_orphans.yml": Row('),
    "bad_input_row": ("tests/sandbox/tests/test_bad_input.py", "orphan_sweep"),
    # the sweep's AWS reads are its inventory module's: that module's target covers them
    "integration": ("tests/integration/targets/aws_orphan_inventory", "aws_orphan_inventory"),
    "molecule": ("extensions/molecule/orphan_sweep", "orphan_sweep"),
    "chaos": ("tests/chaos/case_orphans.py", "sweep_orphans"),
}

# The AWS actions of a sweep: the region scan's reads (aws/orphans.py: the tags, IAM, Route 53 and S3 listings) always,
# and with sweep_delete the destroy's AWS cleanup (aws_infra_cleanup) for each orphan: its deletes and waits.
AWS_SCAN_ACTIONS = (
    "ec2:DescribeRouteTables", "ec2:DescribeSecurityGroups", "ec2:DescribeTags",
    "iam:GetAccountAuthorizationDetails", "iam:GetOpenIDConnectProvider", "iam:ListInstanceProfiles",
    "iam:ListOpenIDConnectProviders",
    "route53:GetHostedZone", "route53:ListHostedZones", "route53:ListTagsForResource",
    "s3:GetBucketTagging", "s3:ListAllMyBuckets", "s3:ListBucket",
)


def aws_actions(sweep_delete=True):
    """The AWS actions a sweep needs, sorted: the scan's, and the cleanup's when it deletes."""
    from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster
    return tuple(sorted(set(AWS_SCAN_ACTIONS + (hosted_cluster.aws_actions() if sweep_delete else ()))))
