# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver of permission_preflight: one SelfSubjectAccessReview per permission the kind's run needs
(``preflight.permissions.needed``), every answer collected, then a failure naming every missing permission (and every
review that went unanswered) with the RBAC file that grants them. Reviews only: nothing is changed, in check mode or
not."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from
from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
from ansible_collections.teardown.gates.plugins.module_utils.preflight import permissions

CALLER = "permission_preflight"


def needed(module):
    """The permissions to review; fails the module (naming the option) on bad input, before any request."""
    p = module.params
    try:
        if p["request_timeout"] <= 0:
            raise BadInput("request_timeout: must be more than 0 seconds; nothing was sent")
        kind = registry.by_name(p["kind"])
        return kind, permissions.needed(kind, p["options"] or {})
    except (BadInput, registry.UnknownKind) as e:
        fail_from(module, e if isinstance(e, BadInput) else BadInput("kind: %s; nothing was sent" % e))
    return None, None  # not reached: fail_json exits


def check(module):
    needed(module)


def review(reads, perms):
    """(every permission with its answer, the missing ones, the unanswered ones)."""
    answered, missing, unknown = [], [], []
    for perm in perms:
        got = reads.review_access(permissions.review_attributes(perm), what="preflight: " + permissions.describe(perm))
        answered.append(dict(perm, allowed=got["allowed"], reason=got["reason"]))
        if got["allowed"] is None:
            unknown.append(perm)
        elif not got["allowed"]:
            missing.append(perm)
    return answered, missing, unknown


def run(module, reads):
    kind, perms = needed(module)
    answered, missing, unknown = review(reads, perms)
    result = dict(changed=False, kind=kind.NAME, rbac_file=kind.RBAC_FILE, permissions=answered,
                  missing=[permissions.describe(x) for x in missing], unknown=[permissions.describe(x) for x in unknown])
    if missing or unknown:
        module.fail_json(msg=permissions.missing_message(missing, unknown, kind.RBAC_FILE), **result)
    module.exit_json(msg="every permission the run needs is granted (%d reviewed)" % len(perms), **result)
