# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cfn kind: CloudFormation stacks out of DELETE_FAILED (role cfn_refusals).

It has no Kubernetes names: its stacks are AWS's. Its report body, chart and verdict. registry.py lists it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib
from ansible_collections.teardown.gates.plugins.module_utils.kinds.drawing import epoch, finish, html_table, row

NAME = "cfn"
PAGE = True

API_VERSIONS = ()
ANNOTATIONS = ()
FINALIZERS = {}
OBJECT_HINTS = {}
# CloudFormation is an AWS service: no controller Deployment
CONTROLLERS = ()

HINT_RULES = ()

DONE = ("DELETE_COMPLETE", "NOT_FOUND")  # a stack deleted, or gone before the run
KEPT = "KEPT"  # tagged teardown.gates/protected or younger than min_age, or held by one that is: never deleted, listed with the reason
CLOSED_STATES = DONE + (KEPT,)


def claims(report):
    """A report of this kind lists stacks."""
    return "stacks" in report


def chart(report):
    """clear_cfn_refusals: a row per stack from its first delete event of this run to its last, with each refusal
    (DELETE_FAILED) and re-delete marked, and the refusals' classes and remedies in words."""
    run_end = epoch(report.get("finished"))
    rows = []
    for s in report.get("stacks") or []:
        events = sorted((e for e in s.get("events") or [] if epoch(e.get("timestamp")) is not None),
                        key=lambda e: epoch(e["timestamp"]))
        own = [e for e in events if e.get("type") == "AWS::CloudFormation::Stack"]
        marks, deletes = [], 0
        for e in own:
            if e.get("status") == "DELETE_FAILED":
                marks.append({"label": "DELETE_FAILED", "at": epoch(e["timestamp"]), "kind": "refused"})
            elif e.get("status") == "DELETE_IN_PROGRESS":
                deletes += 1
                if deletes > 1:
                    marks.append({"label": "deleted again", "at": epoch(e["timestamp"]), "kind": "terminating"})
        status = s.get("status") or "unknown"
        start = epoch(events[0]["timestamp"]) if events else None
        end = epoch(events[-1]["timestamp"]) if events else None
        open_ = start is not None and status != "DELETE_COMPLETE"
        refusals = ["%s %s: %s, %s" % (r.get("logical_id"), r.get("class"), r.get("remedy") or "no remedy",
                                       r.get("action")) for r in s.get("refusals") or []]
        note = "; ".join(refusals) or "no refusal"
        if s.get("error"):
            note += "; " + str(s["error"])
        if start is None:
            note = status if status != "NOT_FOUND" else "already gone"
        rows.append(row("Stacks", s.get("stack") or "stack", status, start, run_end if open_ else end, open_, marks,
                        note))
    ms = [{"label": "finished", "at": run_end}]
    return finish("cfn", "CloudFormation stacks out of DELETE_FAILED", rows, ms, epoch(report.get("started")), run_end)


def body(report):
    rows = []
    for st in report.get("stacks") or []:
        refusals = "; ".join("%s %s (%s): %s, %s" % (
            r.get("logical_id"), r.get("type"), r.get("class"), r.get("remedy") or "no remedy", r.get("action"))
            for r in st.get("refusals") or [])
        kept = ", ".join("%s (%s)" % (k.get("physical_id"), k.get("why")) for k in st.get("retained") or [])
        rows.append((st.get("stack"), st.get("status"), refusals or "-", kept or "-",
                     st.get("error") or ("kept: %s" % st["reason"] if st.get("reason") else "-")))
    return "\n".join(["<h2>Stacks, in deletion order</h2>",
                      html_table(["stack", "final status", "refusals (resource, class: remedy, action)", "retained",
                                  "error"], rows)])


def verdict(report):
    failed = [s for s in report.get("stacks") or [] if s.get("status") not in DONE + (KEPT,)]
    kept = [s for s in report.get("stacks") or [] if s.get("status") == KEPT]
    if failed:
        return ("bad", "%d stack(s) not deleted" % len(failed))
    if kept:
        return ("ok", "every stack deleted but %d kept: %s" % (len(kept), ", ".join(
            "%s (%s)" % (s.get("stack"), s.get("reason")) for s in kept)))
    return ("ok", "every stack deleted")


# The Kubernetes permissions a run needs on its path, as data (preflight/permissions.py reviews them before the first
# change): verb, API group, resource, the namespace (a template over the run's options; None: cluster-wide or every
# namespace), the option that must be true for the permission to be needed (None: always), and the RBAC file that
# grants them (tests/unit/plugins/module_utils/preflight/test_permissions.py parses it and checks each is granted).
RBAC_FILE = None  # no Kubernetes request: AWS only (extensions/iam/)
PERMISSIONS = ()


FILES = {
    "role": ("roles/cfn_refusals", "cfn_refusals"),
    "playbook": ("playbooks/clear_cfn_refusals.yml", "cfn_refusals"),
    "runbook": ("docs/runbook-clear-cfn-refusals.md", "clear_cfn_refusals"),
    # CloudFormation is AWS only: its permissions are the IAM policy's, not a Kubernetes Role
    "rbac": ("extensions/iam/teardown-gates-policy.json", "cloudformation:DeleteStack"),
    "awx": ("extensions/awx/job_templates.yml", "clear_cfn_refusals.yml"),
    "runner_row": ("tests/sandbox/tests/test_runner_playbooks.py", '"clear_cfn_refusals.yml": Row('),
    "bad_input_row": ("tests/sandbox/tests/test_bad_input.py", "cfn_refusals"),
    "integration": ("tests/integration/targets/cloudformation_teardown", "cfn"),
    "molecule": ("extensions/molecule/cfn_refusals", "cfn_refusals"),
    "chaos": ("tests/chaos/run.py", "clear_cfn_refusals.yml"),
}


# the options of cfn_refusals that shape its plan
# (release_outside_stack among them: what the remedies may change outside the stacks is part of what was approved)
PLAN_OPTIONS = ("stacks", "stack_prefix", "stack_tag", "statuses", "clear", "retain_unremovable", "min_age",
                "release_outside_stack")


def _refusing(facts_of_stack):
    return [r for r in (facts_of_stack or {}).get("stack_resource_list") or []
            if isinstance(r, dict) and r.get("resource_status") == "DELETE_FAILED"]


def plan(facts, options):
    """cfn_refusals' plan from what it reads before its first change: ``facts['order']`` (cfn_delete_order's
    result: the stacks in deletion order, importers first, and those left to their parent) and ``facts['info']``
    (cloudformation_info's stacks with their resources). Stack n (in that order) is step 10 * (n + 1): first each
    resource in DELETE_FAILED is cleared (step - 1), then the stack is deleted. What clears a refusal is decided at
    run time from the stack's events."""
    facts, options = facts or {}, dict(options or {})
    order, info = facts.get("order") or {}, facts.get("info") or {}
    opts = dict((k, sorted(options[k]) if isinstance(options[k], list) else options[k]) for k in PLAN_OPTIONS if k in options)
    entries, keep, unknown = [], [], []
    for n, s in enumerate(order.get("order") or []):
        step = 10 * (n + 1)
        entries.append(planlib.entry(step, "delete", "AWS::CloudFormation::Stack", s.get("id") or s.get("name", ""), detail=s.get("name", "")))
        for r in _refusing(info.get(s.get("name"))):
            entries.append(planlib.entry(step - 1, "clear refusal", r.get("resource_type", ""),
                                         r.get("physical_resource_id") or r.get("logical_resource_id", ""), of=s.get("name", "")))
    for s in order.get("handled_by_parent") or []:
        keep.append(planlib.kept("AWS::CloudFormation::Stack", s.get("id") or s.get("name", ""), "nested: deleted by its parent %s" % s.get("parent_id", "")))
    for s in order.get("kept") or []:
        keep.append(planlib.kept("AWS::CloudFormation::Stack", s.get("id") or s.get("name", ""), s.get("reason", "")))
    for name in sorted(facts.get("missing") or []):
        keep.append(planlib.kept("AWS::CloudFormation::Stack", name, "already gone"))
    if entries:
        unknown.append(planlib.at_run_time("how each refusal is cleared (emptied, deleted, or retained)",
                                           "the stack's DELETE_FAILED events read by cloudformation_teardown"))
    for name in order.get("unknown_imports") or []:
        unknown.append(planlib.at_run_time("the stacks that import from %s (its imports name a value known only then)" % name,
                                           "CloudFormation's export list at the delete"))
    return planlib.build(NAME, {"region": options.get("aws_region", "")}, opts, entries, unknown, keep)


# The AWS actions of a stack teardown (cfn/teardown.py, cfn/remedies.py): the delete and its wait always ...
AWS_DELETE_ACTIONS = (
    "cloudformation:DeleteStack", "cloudformation:DescribeStackEvents", "cloudformation:DescribeStacks",
    "cloudformation:ListImports", "cloudformation:ListStackResources",
)
# ... the role's own lookup of the stacks before it (amazon.aws.cloudformation_info with the templates and resources:
# roles/cfn_refusals/tasks/main.yml) ...
AWS_LOOKUP_ACTIONS = ("cloudformation:DescribeStacks", "cloudformation:GetTemplate", "cloudformation:ListStackResources")
# ... and what each remedy the caller allows sends (option `clear`, and disable_termination_protection)
AWS_REMEDY_ACTIONS = {
    "disable_termination_protection": ("cloudformation:UpdateTerminationProtection",),
    "empty_buckets": ("s3:DeleteObject", "s3:DeleteObjectVersion", "s3:ListBucket", "s3:ListBucketVersions"),
    # a managed policy's remedy detaches it from groups too and deletes its non-default versions
    "detach_iam": (
        "iam:DeletePolicyVersion", "iam:DeleteRolePolicy", "iam:DeleteUserPolicy", "iam:DetachGroupPolicy",
        "iam:DetachRolePolicy", "iam:DetachUserPolicy",
        "iam:GetInstanceProfile", "iam:ListAttachedRolePolicies", "iam:ListAttachedUserPolicies",
        "iam:ListEntitiesForPolicy", "iam:ListGroupsForUser", "iam:ListInstanceProfilesForRole",
        "iam:ListPolicyVersions", "iam:ListRolePolicies", "iam:ListUserPolicies", "iam:RemoveRoleFromInstanceProfile",
        "iam:RemoveUserFromGroup"),
    "disable_deletion_protection": ("rds:DescribeDBClusters", "rds:DescribeDBInstances", "rds:ModifyDBCluster",
                                    "rds:ModifyDBInstance"),
    "release_dependencies": ("ec2:DeleteNetworkInterface", "ec2:DescribeNetworkInterfaces",
                             "ec2:DescribeSecurityGroups", "ec2:ModifyNetworkInterfaceAttribute",
                             "ec2:RevokeSecurityGroupEgress", "ec2:RevokeSecurityGroupIngress"),
    "nested": (),  # a nested stack is deleted by the same calls
}


def aws_actions(clear=(), disable_termination_protection=False):
    """The AWS actions a stack teardown with these remedies needs, sorted."""
    wanted = list(clear or ()) + (["disable_termination_protection"] if disable_termination_protection else [])
    out = set(AWS_DELETE_ACTIONS + AWS_LOOKUP_ACTIONS)
    for remedy in wanted:
        out.update(AWS_REMEDY_ACTIONS[remedy])
    return tuple(sorted(out))
