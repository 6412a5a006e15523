# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The held_deletion kind: release a CAPTF deletion held by its Terraform state (role held_deletion).

Its published names (CAPTF's API, finalizers and annotations), the hints for its objects, its rules, its report
body, chart and verdict. registry.py lists it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib
from ansible_collections.teardown.gates.plugins.module_utils.preflight.permissions import grant
from ansible_collections.teardown.gates.plugins.module_utils.owners import captf
from ansible_collections.teardown.gates.plugins.module_utils.kinds.drawing import (
    epoch, esc, finish, gate_row, html_list, row)
from ansible_collections.teardown.gates.plugins.module_utils.kinds.rules import condition_rule

NAME = "held_deletion"
PAGE = True

API_VERSIONS = (captf.API_VERSION,)
ANNOTATIONS = (captf.ABANDON_ANNOTATION, captf.RESTORE_ANNOTATION, captf.APPLIED_ANNOTATION,
               captf.DIGEST_ANNOTATION, captf.PAUSED_ANNOTATION)

# CAPTF is known only through its seed documents (tests/sandbox/spec/captf.md), which name no Deployment:
# no controller to read
CONTROLLERS = ()

FINALIZERS = {
    "terraformcluster.infrastructure.cluster.x-k8s.io": (
        "CAPTF (TerraformCluster)", "machines and pools gone, then a destroy Job, or an abandon with the UID"),
    "terraformmachine.infrastructure.cluster.x-k8s.io": (
        "CAPTF (TerraformMachine)", "a destroy Job, or an abandon with the UID"),
    "terraformmachinepool.infrastructure.cluster.x-k8s.io": (
        "CAPTF (TerraformMachinePool)", "a destroy Job, or an abandon with the UID"),
}

_CAPTF = ("Read StateReadable, DeletionBlocked and ApplyJobSucceeded. A hold is StateReadable=False with "
          "StateLost, StateCorrupt, StateEncrypted or StateInconsistent (StateLocked is not a hold: look "
          "for a stale state lock). Leave a hold with captf.io/restore-state=<serial from "
          "status.stateBackups> or captf.io/abandon-infrastructure=<metadata.uid>; never strip the finalizer.")

OBJECT_HINTS = {
    (captf.GROUP, "TerraformCluster"): [
        _CAPTF, "DeletionBlocked=True/DependentsExist: TerraformMachines or TerraformMachinePools remain "
        "(an abandon does not release this)."],
    (captf.GROUP, "TerraformMachine"): [_CAPTF],
    (captf.GROUP, "TerraformMachinePool"): [_CAPTF],
}

HOLD_REASONS = ("StateLost", "StateCorrupt", "StateEncrypted", "StateInconsistent")


# Rules: view (see diagnosis.inspect_next) -> [(where, hint)], each over one condition (rules.condition_rule)
state_hold_rule = condition_rule("StateReadable", (
    (lambda c: c.get("status") == "False" and c.get("reason") in HOLD_REASONS,
     lambda c: "CAPTF deletion hold (%s): restore a backup from status.stateBackups with captf.io/restore-state, or "
               "abandon with captf.io/abandon-infrastructure=<uid> (teardown.gates.held_deletion)." % c.get("reason")),
    (lambda c: c.get("reason") == "StateLocked",
     "StateLocked is not a hold: a stale state lock makes the destroy Job fail after lockTimeoutSeconds; inspect the "
     "lock Lease."),
))

deletion_blocked_rule = condition_rule("DeletionBlocked", (
    (lambda c: c.get("status") == "True",
     lambda c: "DeletionBlocked (%s): %s" % (c.get("reason"), c.get("message") or "dependents remain")),
))

destroy_job_rule = condition_rule("ApplyJobSucceeded", (
    (lambda c: c.get("status") == "False",
     lambda c: "Last destroy Job failed (%s): it retries with backoff; read the Job's logs." % c.get("reason")),
), where="last")


HINT_RULES = ((20, state_hold_rule), (30, deletion_blocked_rule), (40, destroy_job_rule))

CLOSED_STATES = ("passed", "deleted", "absent", "restore", "abandon", "released")


def claims(report):
    """The last page kind: a report no other kind claims is drawn as a held deletion."""
    return isinstance(report, dict)


def chart(report):
    """release_held_deletion: per held object, the hold (diagnosis and decision, then the restore or abandon) and
    the wait for CAPTF's finalizer to go; an object still held at the end is open, with why."""
    run_end = epoch(report.get("finished_at"))
    start = epoch(report.get("started_at"))
    still = dict((u.get("name"), u) for u in report.get("still_held") or [])
    waits = dict()
    for w in report.get("waits") or []:
        waits[(w.get("name") or "").rsplit("/", 1)[-1].replace(" released", "")] = w
    rows, released = [], []
    for p in report.get("plan") or []:
        name, action = p.get("name"), p.get("action") or "none"
        w = waits.get(name)
        held = still.get(name)
        end = epoch(w.get("started")) if w else run_end
        open_ = held is not None and w is None
        note = "%s: %s" % (p.get("reason"), action)
        if held is not None:
            note = "still held: %s after %s - %s" % (held.get("reason"), held.get("action_taken"), held.get("message") or "")
        rows.append(row("Held", "%s %s: %s" % (report.get("kind") or "object", name, action),
                        action if not open_ else "held", start, end, open_ and start is not None, note=note))
        if w:
            g = gate_row(w, "Released", run_end)
            if held is not None and not g["open"]:
                g["note"] = note
            released.append(g)
    ms = [{"label": "finished", "at": run_end}]
    return finish("held_deletion", "Held %s deletions in %s" % (report.get("kind"), report.get("namespace")),
                  rows + released, ms, start, run_end)


def body(report):
    parts = ["<h2>Restored</h2>", html_list([esc(n) for n in report.get("restored") or []])]
    parts += ["<h2>Abandoned: keeps running in the cloud, untracked</h2>", html_list([
        "%s (uid %s, %s): %s" % (esc(a.get("name")), esc(a.get("uid")), esc(a.get("cause")), esc(a.get("warning")))
        for a in report.get("abandoned") or []])]
    parts += ["<h2>Still held</h2>", html_list(["%s (%s): %s after %s - %s" % (
        esc(u.get("name")), esc(u.get("uid")), esc(u.get("reason")), esc(u.get("action_taken")), esc(u.get("message")))
        for u in report.get("still_held") or []])]
    parts += ["<h2>Saved state</h2>", html_list([esc(p) for p in report.get("saved_state") or []])]
    return "\n".join(parts)


def verdict(report):
    return ("bad", "%d still held" % len(report["still_held"])) if report.get("still_held") else ("ok", "released")


# The Kubernetes permissions a run needs on its path, as data (preflight/permissions.py reviews them before the first
# change): verb, API group, resource, the namespace (a template over the run's options; None: cluster-wide or every
# namespace), the option that must be true for the permission to be needed (None: always), and the RBAC file that
# grants them (tests/unit/plugins/module_utils/preflight/test_permissions.py parses it and checks each is granted).
RBAC_FILE = 'extensions/rbac/held_deletion.yml'
PERMISSIONS = (
    grant("list get watch patch", "infrastructure.cluster.x-k8s.io", "{held_resource}", "{held_namespace}")
    + grant("get", "cluster.x-k8s.io", "clusters", "{held_namespace}")
    + grant("list get", "", "secrets", "{held_namespace}")
    + grant("get", "apiextensions.k8s.io", "customresourcedefinitions",
            name="{held_resource}.infrastructure.cluster.x-k8s.io")
)


def permission_options(options):
    """The run's options with ``held_resource``, the plural of ``held_kind`` that PERMISSIONS name."""
    return dict(options, held_resource=captf.PLURALS.get(options.get("held_kind") or "TerraformCluster", ""))


FILES = {
    "role": ("roles/held_deletion", "held_deletion"),
    "playbook": ("playbooks/release_held_deletion.yml", "held_deletion"),
    "runbook": ("docs/runbook-release-held-deletion.md", "release_held_deletion"),
    "rbac": ("extensions/rbac/held_deletion.yml", "held_deletion"),
    "awx": ("extensions/awx/job_templates.yml", "release_held_deletion.yml"),
    "runner_row": ("tests/sandbox/tests/test_runner_playbooks.py", '"release_held_deletion.yml": Row('),
    "bad_input_row": ("tests/sandbox/tests/test_bad_input.py", "held_deletion"),
    "integration": ("tests/integration/targets/release_held_deletion", "held_deletion"),
    "molecule": ("extensions/molecule/held_deletion", "held_deletion"),
    "chaos": ("tests/chaos/case_silent_playbooks.py", "release_held_deletion.yml"),
}


# the options of held_deletion that shape its plan
PLAN_OPTIONS = ("held_kind", "held_name", "prefer_restore", "abandon_uid", "min_age")


def plan(facts, options):
    """held_deletion's plan from its Phase 3 decisions (``facts['plan']``: per held object its name, uid, reason
    and action - restore with a backup serial, abandon, or none), made before the first change. Restores are step
    1, abandons step 2, in name order; an object left alone is kept with its reason."""
    facts, options = facts or {}, dict(options or {})
    opts = dict((k, options[k]) for k in PLAN_OPTIONS if k in options)
    ns, kind = options.get("namespace", ""), options.get("held_kind", "")
    entries, keep = [], []
    for o in sorted((o for o in facts.get("plan") or [] if isinstance(o, dict)), key=lambda o: o.get("name", "")):
        oid = "%s/%s" % (ns, o.get("name", ""))
        if o.get("action") == "restore":
            entries.append(planlib.entry(1, "restore", kind, oid, detail="uid %s, backup serial %s" % (o.get("uid", ""), o.get("backup_serial"))))
        elif o.get("action") == "abandon":
            entries.append(planlib.entry(2, "abandon", kind, oid, detail="uid %s: the infrastructure keeps running, untracked" % o.get("uid", "")))
        elif o.get("kept"):
            keep.append(planlib.kept(kind, oid, o["kept"]))  # labelled teardown.gates/protected, or younger than min_age
        else:
            keep.append(planlib.kept(kind, oid, "left alone: %s" % (o.get("reason") or "not held")))
    unknown = []
    if entries:
        unknown.append(planlib.at_run_time("what CAPTF destroys after a restore", "CAPTF's own destroy of the restored state"))
    return planlib.build(NAME, {"namespace": ns, "kind": kind}, opts, entries, unknown, keep)
