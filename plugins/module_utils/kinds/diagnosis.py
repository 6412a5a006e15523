# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The diagnosis kind: why won't this delete, for any object or namespace (role diagnose_deletion). Read-only.

It publishes no names of its own (it reads every kind's through the registry); its report body, chart and verdict
draw the role's JSON report. registry.py lists it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib
from ansible_collections.teardown.gates.plugins.module_utils.kinds.drawing import (
    epoch, esc, finish, html_list, html_table, row)

NAME = "diagnosis"
PAGE = True
ROLE_NAME = "teardown.gates.diagnose_deletion"

API_VERSIONS = ()
ANNOTATIONS = ()
FINALIZERS = {}
OBJECT_HINTS = {}
HINT_RULES = ()
# it owns no finalizer and runs no controller
CONTROLLERS = ()
CLOSED_STATES = ("absent",)
# read-only: its role needs no write, so the preflight has nothing to review; its reads are granted by RBAC_FILE
READ_ONLY = True
RBAC_FILE = "extensions/rbac/diagnose_deletion.yml"
PERMISSIONS = ()


def plan(facts, options):
    """A diagnosis deletes and changes nothing: its plan is empty whatever the world holds."""
    return planlib.build(NAME, {}, {}, [])


def claims(report):
    """A report of this kind names its role."""
    return report.get("role") == ROLE_NAME


def _what(report):
    t = report.get("target") or {}
    return "%s %s%s" % (t.get("kind"), (t["namespace"] + "/") if t.get("namespace") else "", t.get("name"))


def chart(report):
    """One row for the object, from its deletionTimestamp (or the run's start) to the run's end, open while it is
    present, with the blockers in its note; one row per blocker beside it."""
    start, end = epoch(report.get("started")), epoch(report.get("finished"))
    obj = report.get("object") or {}
    since = epoch(obj.get("deletion_timestamp"))
    state = report.get("state") or "unknown"
    open_ = state != "absent"
    first = since if since is not None and since < (start or since) else start
    blockers = report.get("blockers") or []
    rows = [row("Object", _what(report), state, first, end, open_,
                [{"label": "deletion requested", "at": since, "kind": "terminating"}] if since is not None else [],
                "; ".join("%s %s" % (b.get("what"), b.get("name")) for b in blockers) or state)]
    for b in blockers:
        rows.append(row("Blockers", "%s %s" % (b.get("what"), b.get("name")), "open", first, end, True, [],
                        b.get("detail") or ""))
    ms = [{"label": "diagnosed", "at": end}]
    return finish(NAME, "Why won't %s delete" % _what(report), rows, ms, first, end)


def body(report):
    parts = ["<p>State: <b>%s</b>%s</p>" % (esc(report.get("state")), " (deleting)" if report.get("deleting") else "")]
    if report.get("namespace_state"):
        parts.append("<p>Namespace content: <b id=\"namespace-state\">%s</b></p>" % esc(report["namespace_state"]))
    parts += ["<h2>Blockers</h2>", html_table(["what", "name", "detail"], [
        (b.get("what"), b.get("name"), b.get("detail")) for b in report.get("blockers") or []])]
    parts += ["<h2>Finalizers</h2>", html_table(["finalizer", "owner", "waits for / written by"], [
        (f.get("name"), f.get("owner"), f.get("waits_for") or ", ".join(
            "%s (%s %s)" % (m.get("manager"), m.get("operation"), m.get("time"))
            for m in (f.get("added_by") or f.get("last_written_by") or [])[:3]))
        for f in report.get("finalizers") or []])]
    parts += ["<h2>Admission webhooks that refuse its update</h2>", html_table(
        ["configuration", "webhook", "service", "endpoints"],
        [(w.get("configuration"), w.get("webhook"), w.get("service"), w.get("endpoints"))
         for w in report.get("webhooks") or []])]
    parts += ["<h2>APIServices not available</h2>", html_table(
        ["APIService", "service", "status", "reason"],
        [(a.get("name"), a.get("service"), a.get("status"), a.get("reason")) for a in report.get("apiservices") or []])]
    parts += ["<h2>Controllers</h2>", html_table(
        ["Deployment", "what", "state"],
        [("%s/%s" % (c.get("namespace"), c.get("name")), c.get("what"), c.get("state"))
         for c in report.get("controllers") or []])]
    parts += ["<h2>The way out</h2>", html_list([esc(w) for w in report.get("ways_out") or []])]
    return "\n".join(parts)


def verdict(report):
    state = report.get("state")
    if state == "absent":
        return "ok", "absent: nothing to diagnose"
    if state != "present":
        return "bad", "unknown: the object could not be read"
    names = ["%s %s" % (b.get("what"), b.get("name")) for b in report.get("blockers") or []]
    return "bad", ("held by " + "; ".join(names[:5])) if names else "present, no blocker observed"


FILES = {
    "role": ("roles/diagnose_deletion", "diagnose_deletion"),
    "playbook": ("playbooks/diagnose_deletion.yml", "diagnose_deletion"),
    "runbook": ("docs/runbook-diagnose-deletion.md", "diagnose_deletion"),
    "rbac": ("extensions/rbac/diagnose_deletion.yml", "diagnose_deletion"),
    "awx": ("extensions/awx/job_templates.yml", "diagnose_deletion.yml"),
    "runner_row": ("tests/sandbox/tests/test_runner_playbooks.py", '"diagnose_deletion.yml": Row('),
    "bad_input_row": ("tests/sandbox/tests/test_bad_input.py", "diagnose_deletion"),
    # its reads are deletion_info's (diagnose: true); its sandbox test seeds the three stuck deletions
    "integration": ("tests/integration/targets/deletion_info", "deletion_info"),
}
# read-only: no slot fits what these test (see tests/unit/test_kinds_complete.py NOT_APPLICABLE)
NOT_APPLICABLE = {
    "molecule": "the molecule scenarios converge a change and check idempotence; a diagnosis changes nothing, and "
                "tests/sandbox/tests/test_diagnose_deletion.py runs the role against three seeded stuck deletions",
    "chaos": "the chaos cases compare a teardown's outcome under faults with an uninterrupted run; a diagnosis has no "
             "outcome to resume, and a failed read is reported as an 'unread' blocker (unknown), unit tested",
}
