# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The wait_gate module's driver: resolve every gate's kinds through KubeReads, send O(delete) once the first
gate is watched, run the gates, and say what holds the one that failed. Every read is sent once (the gates'
own loop is their retry)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.teardown.gates.plugins.module_utils.k8s.diagnosis import deleting_condition, inspect_next, kind_label, \
    object_text
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from, TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.gates import (
    NOT_STARTED,
    STALLED,
    UNKNOWN,
    run_gates,
    validate_gates,
)
from ansible_collections.teardown.gates.plugins.module_utils.k8s.gate_progress import ProgressFile
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError

CALLER = "wait_gate"
ATTEMPTS = 1


class DeleteFailed(TeardownGatesError):
    """The object of ``delete`` could not be deleted (refused, or no answer): no gate is judged."""


def clean_selector(sel):
    return dict((k, v) for k, v in sel.items() if v is not None)


def gates_of(params):
    """The gates as run_gates takes them: each selector without its unset keys."""
    gates = []
    for g in params["gates"]:
        g = dict(g)
        g["resources"] = [clean_selector(s) for s in g.get("resources") or []]
        gates.append(g)
    return gates


def validate(params, gates):
    """Input errors, each naming the option; empty when the input is valid."""
    errors = validate_gates(gates, params["timeout"])
    if params["request_timeout"] <= 0:
        errors.append("request_timeout: must be more than 0 seconds")
    if params["stall_after"] is not None and params["stall_after"] <= 0:
        errors.append("stall_after: must be more than 0 seconds, got %s" % params["stall_after"])
    return errors


def not_evaluated(gates, state):
    """Every gate still gets a row, so a failed connection reads as "unknown", never as no answer."""
    return [{"name": g["name"], "until": g.get("until") or "absent", "state": state} for g in gates]


def describe(rec):
    return object_text(kind_label(rec.get("api_version"), rec.get("kind")), rec.get("namespace"), rec.get("name"),
                       rec.get("uid"), (rec.get("finalizers") or []) + ["spec:" + f for f in rec.get("spec_finalizers") or []],
                       deleting_condition(rec.get("conditions")))


def progress_path(params, environ, pid):
    """The progress file: O(progress_file), else one per process under TEARDOWN_GATES_PROGRESS_DIR, else None."""
    path = params["progress_file"]
    if not path and environ.get("TEARDOWN_GATES_PROGRESS_DIR"):
        path = os.path.join(environ["TEARDOWN_GATES_PROGRESS_DIR"], "wait_gate-%d.json" % pid)
    return path


def failure(res):
    """``(msg, hints)`` for the gate result ``res`` that failed; adds each remaining object's inspect_next,
    kind_label and waiting_for to it."""
    for rec in res.get("remaining") or []:
        rec["inspect_next"] = inspect_next(rec, state="present")
        rec["kind_label"] = kind_label(rec.get("api_version"), rec.get("kind"))
        why = deleting_condition(rec.get("conditions"))
        if why:
            rec["waiting_for"] = why
    hints = []
    if res["state"] == UNKNOWN:
        hints = inspect_next(None, state="unknown")
        errs = "; ".join("%s %s: %s" % (s.get("kind"), s.get("name") or s.get("label_selector"), s.get("error"))
                         for s in res.get("unknown_selectors") or [])
        msg = ("gate %r: state unknown after %.1f s - the last query failed (%s); absence is not proven"
               % (res["name"], res["duration"], errs))
    else:
        left = res.get("remaining") or []
        how = "timeout" if res["state"] != STALLED else "stalled (no progress since %s: %s)" % (
            res.get("last_progress"), res.get("last_progress_what"))
        msg = "gate %r: %s after %.1f s; %d object(s) hold it: %s" % (
            res["name"], how, res["duration"], len(left), "; ".join(describe(r) for r in left[:10]))
        for rec in left:
            for h in rec["inspect_next"]:
                if h not in hints:
                    hints.append(h)
    if hints:
        msg += ". Inspect next: " + " | ".join(hints[:3])
    return msg, hints


def prepare_delete(module, reads, gates):
    """For O(delete): ``(deletion, send)`` - the result dict it fills, and the callable the first gate calls
    once it is watched (None without O(delete)). Bad input fails here, before anything is sent."""
    spec = module.params["delete"]
    if not spec:
        return {}, None
    deletion = dict((k, spec.get(k)) for k in ("api_version", "kind", "namespace", "name"))
    try:
        res = reads.resource(spec["api_version"], spec["kind"])
    except ResourceLookupError as e:
        fail_from(module, e, what="delete", gates=not_evaluated(gates, UNKNOWN if e.unknown else NOT_STARTED))
    if res.namespaced and not spec.get("namespace"):
        module.fail_json(msg="delete: namespace is required, since %s is namespaced" % spec["kind"],
                         gates=not_evaluated(gates, NOT_STARTED))
    what = "%s %s%s" % (spec["kind"], (spec["namespace"] + "/") if res.namespaced else "", spec["name"])
    deletion["what"] = what

    if module.check_mode:
        # nothing is deleted: say what would be, and wait only when there is nothing to delete anyway
        obs = reads.get(spec["api_version"], spec["kind"], spec["name"], spec.get("namespace"))
        obs.pop("exception", None)
        if obs["state"] == UNKNOWN:
            module.fail_json(msg="could not read %s (%s); its state is unknown" % (what, obs["query"].get("error")),
                             deletion=dict(deletion, state=UNKNOWN, query=obs["query"]),
                             gates=not_evaluated(gates, NOT_STARTED))
        if obs["state"] == "present":
            deletion.update(state="would_delete", query=obs["query"])
            module.exit_json(changed=True, deletion=deletion, gates=not_evaluated(gates, NOT_STARTED),
                             msg="check mode: would delete %s once the first gate is watched, then wait on %d gate(s)"
                                 % (what, len(module.params["gates"])))
        deletion.update(state="absent", query=obs["query"])
        return deletion, None

    def send():
        answer = reads.delete(spec["api_version"], spec["kind"], spec["name"], namespace=spec.get("namespace"),
                              uid=spec.get("uid"), propagation_policy=spec.get("propagation_policy"))
        deletion.update(answer)
        if answer["state"] == "refused":
            raise DeleteFailed("could not delete %s: %s; nothing was waited for" % (what, answer["query"].get("error")))
        if answer["state"] == UNKNOWN:
            raise DeleteFailed("the deletion of %s got no answer (%s): it may or may not have been applied; "
                               "run again" % (what, answer["query"].get("error")))

    return deletion, send


def check(module):
    errors = validate(module.params, gates_of(module.params))
    if errors:
        module.fail_json(msg="invalid input: " + "; ".join(errors))


def client_failed(module, err, started=None):
    fail_from(module, err, then="absence is not proven", state=UNKNOWN if err.unknown else None,
              gates=not_evaluated(gates_of(module.params), UNKNOWN if err.unknown else NOT_STARTED),
              inspect_next=inspect_next(None, state=UNKNOWN) if err.unknown else [])


def resolve_gates(module, reads, gates):
    """Each gate's selectors' Resources (guarded), in order; fails the module on a kind that is not served,
    or a namespace given for a cluster-scoped kind."""
    resources = []
    for g in gates:
        row = []
        for sel in g["resources"]:
            try:
                res = reads.resource(sel["api_version"], sel["kind"])
            except ResourceLookupError as e:
                fail_from(module, e, what="gate %r" % g["name"], state=UNKNOWN if e.unknown else None,
                          gates=not_evaluated(gates, UNKNOWN if e.unknown else NOT_STARTED))
            if not res.namespaced and sel.get("namespace"):
                module.fail_json(msg="gate %r: namespace given for cluster-scoped kind %s" % (g["name"], sel["kind"]))
            row.append(res)
        resources.append(row)
    return resources


def run(module, reads):
    p = module.params
    gates = gates_of(p)
    resources = resolve_gates(module, reads, gates)
    deletion, send_delete = prepare_delete(module, reads, gates)
    path = progress_path(p, os.environ, os.getpid())
    progress = ProgressFile(path, len(gates)) if path else None
    try:
        results, failed = run_gates(gates, resources, p["timeout"], request_timeout=p["request_timeout"],
                                    progress=progress, on_watching=send_delete, stall_after=p["stall_after"])
    except DeleteFailed as e:
        fail_from(module, e, changed=False, deletion=deletion, gates=not_evaluated(gates, NOT_STARTED))
    extra = {"deletion": deletion} if deletion else {}
    changed = deletion.get("state") == "deleted"
    if deletion and "state" not in deletion:
        deletion["state"] = "not_sent"
    if failed is None:
        module.exit_json(changed=changed, gates=results, **extra)
    res = results[failed]
    msg, hints = failure(res)
    if deletion.get("state") == "not_sent":
        msg = "%s was not deleted: the first gate could not be listed in time; %s" % (deletion["what"], msg)
    module.fail_json(msg=msg, changed=changed, gates=results, failed_gate=res["name"], inspect_next=hints, **extra)
