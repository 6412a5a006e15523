# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The run of cloudformation_teardown: check the options (``aws_args``), run ``cfn.Teardown`` on the stack and build
the result. A failure returns the same keys as a success (refusals, retained, notes, the stack's status as last
observed): a ``cfn.Failed`` and a refused mutating call in check mode through ``errors.fail_from``, a failed AWS
request through ``fail_json_aws``."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.teardown.gates.plugins.module_utils.aws import args as aws_args
from ansible_collections.teardown.gates.plugins.module_utils.cfn import teardown as cfn
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import AWS_ERRORS, CheckModeViolation, \
    module_clients
from ansible_collections.teardown.gates.plugins.module_utils.cfn.classify import CLEAR_CHOICES
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from

CALLER = "cloudformation_teardown"


def argument_spec():
    return dict(
        stack_name=dict(type="str", required=True, aliases=["name"]),
        clear=dict(type="list", elements="str", default=[], choices=list(CLEAR_CHOICES)),
        retain_unclearable=dict(type="bool", default=False),
        disable_termination_protection=dict(type="bool", default=False),
        wait_timeout=aws_args.wait_timeout_spec(),
        poll_interval=dict(type="float", default=2.0),
        release_outside_stack=dict(type="list", elements="str", default=[]),
    )


def options(p):
    """The stack's name or ARN, stripped; the options checked in the order the module always checked them."""
    name = aws_args.not_empty("stack_name", p["stack_name"])
    aws_args.wait_timeout(p["wait_timeout"])
    aws_args.more_than_zero("poll_interval", p["poll_interval"])
    aws_args.aws_ids("release_outside_stack", p.get("release_outside_stack"))
    return name


def result(td, clients, t0, check_mode, st, sid, failed=False, **extra):
    """What the module returns (also when it fails): ``st`` is the stack's description as last read, or None."""
    refusals = [dict(r) for r in td.refusals]
    would = check_mode and not failed and st is not None and st["StackStatus"] != "DELETE_COMPLETE"
    out = dict(changed=td.changed or would, notes=td.notes,
               stack_status=st["StackStatus"] if st is not None else td.observed_status(sid),
               refusals=refusals, retained=td.retained, retain_supported=td.retain_supported, events=td.events,
               api_calls=clients.calls, elapsed=round(time.monotonic() - t0, 3))
    if sid:
        out["stack_id"] = sid
    out.update(extra)
    return out


def last_seen(td, name, sid):
    """The stack's description read once more after a failure (by ARN when known), or None when no read answers:
    the failure is what matters, and the status stays the last one observed."""
    try:
        return td.describe(sid or name, track=True)
    except Exception:  # noqa: BLE001
        return None


def run(module):
    """cloudformation_teardown: delete the stack, clearing the refusals the options allow; the result for exit_json."""
    t0 = time.monotonic()
    p = module.params
    name = options(p)
    clients = module_clients(module, CALLER, concurrency=1)
    td = cfn.Teardown(clients, clear=p["clear"], retain_unclearable=p["retain_unclearable"],
                      disable_termination_protection=p["disable_termination_protection"],
                      wait_timeout=p["wait_timeout"], check_mode=module.check_mode, poll=p["poll_interval"],
                      release_outside_stack=aws_args.aws_ids("release_outside_stack", p.get("release_outside_stack")))

    def failure(st, sid):
        return result(td, clients, t0, module.check_mode, st, sid, failed=True)

    st, sid = None, None
    try:
        st, sid = td.run(name)
    except cfn.Failed as e:
        sid = sid or next((r.get("stack_id") for r in td.refusals if r.get("stack_id")), None)
        cur = last_seen(td, name, sid)
        fail_from(module, e, **failure(cur, cur["StackId"] if cur else sid))
    except CheckModeViolation as e:
        fail_from(module, e, what="internal error, refused a mutating call in check mode", **failure(None, None))
    except AWS_ERRORS as e:
        module.fail_json_aws(e, msg="stack %s: AWS request failed" % p["stack_name"], **failure(None, sid))
    return result(td, clients, t0, module.check_mode, st, sid)
