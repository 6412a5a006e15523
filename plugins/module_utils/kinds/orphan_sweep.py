# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The orphan_sweep kind: sweep AWS infrastructure whose HostedCluster is gone (role orphan_sweep).

It has no Kubernetes names and no report page of its own: its names are AWS tags. registry.py lists it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as aws_graph
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib
from ansible_collections.teardown.gates.plugins.module_utils.preflight.permissions import grant

NAME = "orphan_sweep"
PAGE = False  # its report is the role's JSON; no HTML page, chart or verdict

API_VERSIONS = ()
ANNOTATIONS = ()
# the AWS tags it reads (plugins/module_utils/aws/orphans.py CLUSTER_TAG and PROTECTED_TAG)
TAGS = ("kubernetes.io/cluster/<infraID>", "teardown.gates/protected")
FINALIZERS = {}
OBJECT_HINTS = {}
# the sweep reads AWS only: no controller Deployment
CONTROLLERS = ()

HINT_RULES = ()
CLOSED_STATES = ()


# The Kubernetes permissions a run needs on its path, as data (preflight/permissions.py reviews them before the first
# change): verb, API group, resource, the namespace (a template over the run's options; None: cluster-wide or every
# namespace), the option that must be true for the permission to be needed (None: always), and the RBAC file that
# grants them (tests/unit/plugins/module_utils/preflight/test_permissions.py parses it and checks each is granted).
RBAC_FILE = 'extensions/rbac/orphan_sweep.yml'
PERMISSIONS = (
    grant("list", "hypershift.openshift.io", "hostedclusters")
    + grant("get", "", "namespaces", name="kube-system", when="sweep_delete")
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


def _resources(manifest, preserve_iam, of, base):
    """Plan entries (deletes in aws_graph's dependency order, IAM last) and kept rows for one manifest."""
    ordered = aws_graph.plan(manifest or {}, preserve_iam=preserve_iam)
    entries = [planlib.entry(base + r["level"], "delete", r["type"], r["id"], of=of) for lvl in ordered["levels"] for r in lvl]
    keep = [planlib.kept(r["type"], r["id"], "preserve_iam (of %s)" % of) for r in ordered["retained"]]
    return entries, keep


def plan(facts, options):
    """The sweep's plan from what the role reads before its first change: aws_orphan_inventory's result
    (``facts['found']``). Each orphan's manifest, deleted in dependency order, IAM last; the infra IDs that are
    live, young, protected or unknown are kept, with their reason. Orphans are swept one after another, in infra
    ID order: orphan n's deletes are steps n*100 + level."""
    found = (facts or {}).get("found") or {}
    options = dict(options or {})
    preserve_iam = bool(options.get("preserve_iam"))
    entries, keep = [], []
    rows = sorted((i for i in found.get("infra_ids") or [] if isinstance(i, dict)), key=lambda i: i.get("infra_id", ""))
    orphans = [i for i in rows if i.get("status") == "orphan"]
    for n, row in enumerate(orphans):
        e, k = _resources(row.get("manifest"), preserve_iam, row["infra_id"], n * 100)
        entries += e
        keep += k
    for row in rows:
        if row.get("status") != "orphan":
            keep.append(planlib.kept("infra ID", row.get("infra_id", ""), "%s: %s" % (row.get("status", ""), row.get("reason", ""))))
        for r in row.get("protected") or []:
            rid = r.get("id", r) if isinstance(r, dict) else r
            keep.append(planlib.kept(r.get("type", "resource") if isinstance(r, dict) else "resource", rid,
                                     "tagged %s (of %s)" % (TAGS[1], row.get("infra_id", ""))))
    unknown = []
    if orphans:
        unknown.append(planlib.at_run_time("an orphan's resources tagged after this inventory (without approved_plan_digest; with it they are left out)",
                                           "the re-check right before each orphan's cleanup (aws_orphan_inventory, same infra ID)"))
    target = {"region": options.pop("aws_region", ""), "management_contexts": sorted(options.pop("management_contexts", []) or [])}
    return planlib.build(NAME, target, options, entries, unknown, keep)


# The AWS actions of a sweep: the region scan's reads (aws/orphans.py: the tags, the look by ID of each tagged EC2
# resource, the IAM, Route 53 and S3 listings) always, and with sweep_delete the destroy's AWS cleanup
# (aws_infra_cleanup) for each orphan: its deletes and waits.
AWS_SCAN_ACTIONS = (
    "ec2:DescribeAddresses", "ec2:DescribeDhcpOptions", "ec2:DescribeInstances", "ec2:DescribeInternetGateways",
    "ec2:DescribeNatGateways", "ec2:DescribeRouteTables", "ec2:DescribeSecurityGroups", "ec2:DescribeSubnets",
    "ec2:DescribeTags", "ec2:DescribeVolumes", "ec2:DescribeVpcEndpointServiceConfigurations",
    "ec2:DescribeVpcEndpoints", "ec2:DescribeVpcs",
    "iam:GetAccountAuthorizationDetails", "iam:GetOpenIDConnectProvider", "iam:ListInstanceProfiles",
    "iam:ListOpenIDConnectProviders",
    "route53:GetHostedZone", "route53:ListHostedZones", "route53:ListTagsForResource",
    "s3:GetBucketTagging", "s3:ListAllMyBuckets", "s3:ListBucket",
)


def aws_actions(sweep_delete=True):
    """The AWS actions a sweep needs, sorted: the scan's, and the cleanup's when it deletes."""
    from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster
    return tuple(sorted(set(AWS_SCAN_ACTIONS + (hosted_cluster.aws_actions() if sweep_delete else ()))))
