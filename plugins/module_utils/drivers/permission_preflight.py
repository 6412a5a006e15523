# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver of permission_preflight: both permission checks of a run, in one module process.

- Kubernetes (``kind``): one SelfSubjectAccessReview per permission the kind's run needs
  (``preflight.permissions.needed``), a few at a time (``KubeReads.review_access_all``), the answers in the kind's
  order.
- AWS (``aws_kind``): the actions the run will need, checked as aws_permission_preflight checks them
  (``preflight.aws_permissions``: STS, IAM policy simulation, EC2 DryRun where the simulation is refused). The
  run's ``options`` shape them as they shape the reviews: ``clear``, ``disable_termination_protection`` and
  ``sweep_delete`` are aws_permission_preflight's options of those names (``aws_scope``).

Bad input of either part fails before any request. Every answer of both parts is collected, then one failure names
every missing permission (and every review that went unanswered) with the files that grant them: the RBAC file of
``extensions/rbac/`` and ``extensions/iam/teardown-gates-policy.json``. Reviews, reads and permission checks only:
nothing is changed, in check mode or not. A part whose kind is not given sends nothing and builds no client."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.cfn.classify import CLEAR_CHOICES
from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError, fail_from, failure_message
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import AwsModuleAsK8s, build_reads
from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import aws_permissions, permissions

CALLER = "permission_preflight"


def argument_spec():
    """The module's options over amazon.aws's (AnsibleAWSModule adds them): kubernetes.core's validate_certs (no
    default) replaces amazon.aws's, so a kubeconfig's own TLS setting holds; botocore verifies certificates when it
    is not set (as hosted_cluster_baseline's)."""
    return k8s_argument_spec(
        kind=dict(type="str"),
        options=dict(type="dict", default={}),
        aws_kind=dict(type="str", choices=list(aws_permissions.KINDS)),
    )


def aws_scope(options):
    """The options of aws_permission_preflight that shape the AWS actions (``clear``, ``disable_termination_protection``,
    ``sweep_delete``), taken from the run's ``options`` where they have the same names and meaning; BadInput names
    a bad one. A dict option's values are not checked by the argument spec, so they are checked here."""
    clear = options.get("clear") or []
    if not isinstance(clear, list) or [c for c in clear if c not in CLEAR_CHOICES]:
        raise BadInput("options.clear: %r is not a list of %s; nothing was sent" % (clear, ", ".join(CLEAR_CHOICES)))
    scope = dict(clear=clear)
    for name, default in (("disable_termination_protection", False), ("sweep_delete", True)):
        value = options.get(name, default)
        try:
            scope[name] = boolean(value, strict=True)
        except TypeError:
            raise BadInput("options.%s: %r is not a boolean; nothing was sent" % (name, value))
    return scope


def needed(module):
    """(the Kubernetes kind or None, its permissions to review, the AWS actions to check): bad input raises
    BadInput naming the option, before any request."""
    p = module.params
    if not p.get("kind") and not p.get("aws_kind"):
        raise BadInput("kind or aws_kind: give the kind of run whose Kubernetes or AWS permissions to check; "
                       "nothing was sent")
    kind, perms = None, []
    if p.get("kind"):
        if p["request_timeout"] <= 0:
            raise BadInput("request_timeout: must be more than 0 seconds; nothing was sent")
        try:
            kind = registry.by_name(p["kind"])
        except registry.UnknownKind as e:
            raise BadInput("kind: %s; nothing was sent" % e)
        perms = permissions.needed(kind, p.get("options") or {})
    actions = []
    if p.get("aws_kind"):
        actions = aws_permissions.needed_actions(dict(aws_scope(p.get("options") or {}), kind=p["aws_kind"]))
    return kind, perms, actions


def check(module):
    """Fails the module on bad input, before any request."""
    try:
        needed(module)
    except BadInput as e:
        fail_from(module, e)


def review(reads, perms):
    """(every permission with its answer, the missing ones, the unanswered ones), in the kind's order; the reviews
    are sent a few at a time."""
    got = reads.review_access_all(
        [(permissions.review_attributes(perm), "preflight: " + permissions.describe(perm)) for perm in perms])
    answered, missing, unknown = [], [], []
    for perm, one in zip(perms, got):
        answered.append(dict(perm, allowed=one["allowed"], reason=one["reason"]))
        if one["allowed"] is None:
            unknown.append(perm)
        elif not one["allowed"]:
            missing.append(perm)
    return answered, missing, unknown


def kubernetes_part(module, kind, perms, reads=None):
    """The Kubernetes part's result and its failure message (None when every permission is granted). ``reads``
    (the run's KubeReads) is built here, only when there is a permission to review."""
    result = dict(kind=kind.NAME if kind else None, rbac_file=kind.RBAC_FILE if kind else None, permissions=[],
                  missing=[], unknown=[])
    if not perms:
        return result, None
    if reads is None:
        reads = build_reads(AwsModuleAsK8s(module), _Reads)
    try:
        answered, missing, unknown = review(reads, perms)
    except TeardownGatesError as e:
        fail_from(module, e, queries=reads.queries)
    result.update(permissions=answered, missing=[permissions.describe(x) for x in missing],
                  unknown=[permissions.describe(x) for x in unknown])
    if missing or unknown:
        return result, permissions.missing_message(missing, unknown, kind.RBAC_FILE)
    return result, None


class _Reads(object):
    """What drivers.entry.build_reads needs of a driver: the caller's name (a client that cannot be built fails the
    module, as any other Kubernetes module)."""

    CALLER = CALLER


def run(module, reads=None):
    """permission_preflight: the result for exit_json, or fail_json naming every missing permission of both parts.
    ``reads``: the run's KubeReads (tests give theirs); built when a permission is to be reviewed."""
    kind, perms, actions = needed(module)
    result, failure = kubernetes_part(module, kind, perms, reads)
    failures = [failure] if failure else []
    result["aws"] = {}
    if actions:
        result["aws"], missing = aws_permissions.findings(module, actions, caller=CALLER, said=failure,
                                                          changed=False, **result)
        if missing is not None:
            failures.append(failure_message(missing))
    result["changed"] = False
    reviewed = len(result["permissions"])
    if failures:
        module.fail_json(msg="; ".join(failures), **result)
    result["msg"] = "every permission the run needs is granted (%d reviewed%s)" % (
        reviewed, ", %d AWS actions checked" % len(actions) if actions else "")
    return result
