# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Timeline and report rendering for a hosted-cluster teardown: pure functions, no I/O.

The report is a dict (written as JSON) and a Markdown rendering of the same dict. Inputs are what
the hosted_cluster_destroy role collected: the cluster's identity, the options, the wait_gate
results, the aws_infra_cleanup results, the independent verification, and the milestones.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import re

from ansible_collections.teardown.gates.plugins.module_utils.aws.graph import IAM_TYPES
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import parse_iso

SCHEMA = 1
GATE_STATES = ("passed", "timeout", "unknown", "not_started", "skipped", "retained", "planned")


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def seconds_between(start, end):
    a, b = parse_iso(start), parse_iso(end)
    if a is None or b is None:
        return None
    return round((b - a).total_seconds(), 3)


def archive_stamp(ts):
    """The UTC time in an archived report's file name: 20260101T100000.123Z (sorts by time)."""
    return ts.astimezone(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.") + "%03dZ" % (ts.microsecond // 1000)


def base_name(namespace, name):
    return "%s-%s" % (namespace, name)


def gate_rows(gates):
    """Normalise wait_gate results (or planned/skipped gates the role adds) into report rows."""
    rows = []
    for g in gates or []:
        state = g.get("state") or "unknown"
        started = g.get("started")
        passed_at = g.get("passed_at")
        duration = g.get("duration_s")
        if duration is None:
            duration = g.get("duration")
        if duration is None and started and (passed_at or g.get("ended")):
            duration = seconds_between(started, passed_at or g.get("ended"))
        row = {
            "name": g.get("name"),
            "state": state,
            "started": started,
            "passed_at": passed_at,
            "duration_s": duration,
            "first_observed_terminating": g.get("first_observed_terminating"),
            "first_observed_absent": g.get("first_observed_absent"),
        }
        if g.get("reason"):
            row["reason"] = g["reason"]
        remaining = g.get("remaining") or []
        if remaining and state != "passed":
            row["remaining"] = [_obj_ref(o) for o in remaining]
        rows.append(row)
    return rows


def _obj_ref(o):
    ref = {k: o.get(k) for k in ("kind", "namespace", "name", "uid") if o.get(k) is not None}
    if o.get("finalizers"):
        ref["finalizers"] = list(o["finalizers"])
    return ref


def split_aws(resources):
    """aws_infra_cleanup's per-resource results -> aws {deleted, absent, retained, remaining}, iam {deleted, retained}.

    IAM types are counted under both ``aws`` (everything by ID) and ``iam`` (the IAM scope alone), so
    that a caller can read either. ``remaining`` is every resource neither deleted, absent, terminal
    nor retained: what a later run or an operator must still deal with, by ID.
    """
    aws = {"deleted": [], "absent": [], "retained": [], "remaining": [], "planned": []}
    iam = {"deleted": [], "retained": [], "remaining": []}
    for r in resources or []:
        ref = {"type": r.get("type"), "id": r.get("id")}
        for k in ("started", "ended"):  # the timeline's AWS rows
            if r.get(k):
                ref[k] = r[k]
        waited = _waited_on(r.get("refusals"))
        if waited:
            ref["waited_on"] = waited
        outcome = r.get("outcome")
        verified = r.get("verified_state") or r.get("observed")
        if outcome == "deleted":
            bucket = "deleted"
        elif outcome == "retained":
            bucket = "retained"
            ref["reason"] = r.get("reason") or "preserve_iam"
        elif outcome == "absent" or verified in ("absent", "terminal"):
            bucket = "absent"
        elif outcome == "planned":
            bucket = "planned"  # check mode: would be deleted
        else:
            bucket = "remaining"
            ref["outcome"] = outcome
            if r.get("error"):
                ref["error"] = r["error"]
            if verified:
                ref["state"] = verified
            if r.get("blockers"):
                ref["blockers"] = r["blockers"]
            # kept (tagged protected) and what waits on it: left on purpose, by ID, with why
            for k in ("reason", "blocked_by"):
                if r.get(k):
                    ref[k] = r[k]
        aws[bucket].append(ref)
        if ref["type"] in IAM_TYPES and bucket in iam:
            iam[bucket].append(ref)
    for d in (aws, iam):
        for v in d.values():
            v.sort(key=lambda x: (x.get("type") or "", x.get("id") or ""))
    return aws, iam


def _waited_on(refusals):
    """The blockers each refused delete waited on, once each: type, id, state, when first refused."""
    out, seen = [], set()
    for ref in refusals or []:
        for b in ref.get("blockers") or []:
            key = (b.get("type"), b.get("id"))
            if key in seen:
                continue
            seen.add(key)
            item = dict((k, b[k]) for k in ("type", "id", "state") if b.get(k))
            if ref.get("at"):
                item["at"] = ref["at"]
            out.append(item)
    return out


def merge_manifests(*manifests):
    """Union of manifests (type -> IDs); a stored baseline keeps IDs a fresh discovery no longer finds."""
    out = {}
    for m in manifests:
        for rtype, ids in (m or {}).items():
            if not ids:
                continue
            out.setdefault(rtype, set()).update(ids)
    return dict((k, sorted(v)) for k, v in sorted(out.items()))


def split_manifest(manifest):
    """(infrastructure manifest, IAM manifest)."""
    infra, iam = {}, {}
    for rtype, ids in (manifest or {}).items():
        (iam if rtype in IAM_TYPES else infra)[rtype] = list(ids)
    return infra, iam


def tracked_states(resources):
    """Each tracked AWS ID as the verification's look by ID found it: {type, id, state}, from the resources of the
    read-only aws_infra_cleanup run (their ``observed`` state: absent, terminal, pending, present or unknown;
    one retained by request reads ``retained``; one kept by the protect tag carries ``kept``, the reason, and what
    waits on it ``blocked_by``). Sorted by type and ID; nothing given, an empty list."""
    out = []
    for r in resources or []:
        if not isinstance(r, dict) or not r.get("type") or not r.get("id"):
            continue
        state = "retained" if r.get("outcome") == "retained" else r.get("observed") or r.get("outcome") or "unknown"
        row = {"type": r["type"], "id": r["id"], "state": state}
        # tagged teardown.gates/protected, or waiting on what is: present on purpose, and why
        if r.get("outcome") == "kept":
            row["kept"] = r.get("reason") or "kept"
        if r.get("outcome") == "blocked":
            row["blocked_by"] = list(r.get("blocked_by") or [])
        out.append(row)
    return sorted(out, key=lambda r: (r["type"], r["id"]))


def build_report(cluster, options, gates=None, aws_resources=None, verification=None, milestones=None,
                 hcp_conditions=None, namespace_retained=False, retained=None, stopped=None, versions=None,
                 check_mode=False, plan=None, aws_cleanup_ran=None, aws_lookup_ran=None, taken_over=None,
                 manifest=None, cli_secrets=None):
    """The report dict. ``verification`` is {checks: [{what, state, ...}], aws_verified: bool, tracked: [the
    resources of the verification's read-only aws_infra_cleanup run]}; the report lists each tracked ID with the
    state its look by ID found (``tracked_states``).

    ``taken_over``: the take-overs of this run (take_over_cleanup), each ``{owner, part, reason, started, ended,
    verified, finalizers_removed: [...]}``; every finalizer removed is listed with its evidence.

    ``aws_cleanup_ran`` and ``aws_lookup_ran`` say whether the AWS cleanup and the verification's lookups by
    ID ran at all (None: inferred from ``aws_resources`` and ``verification``); a count no look produced is
    reported as not observed, never as 0.

    ``manifest``: the AWS IDs the run was to clean (type -> IDs, the baseline's). A run that stopped before its AWS
    cleanup lists each of them in ``aws.not_cleaned``: nothing is lost, even in the report of a stop; they are not
    counted as remaining, which no look of this run observed.

    ``cli_secrets``: the Secrets the CLI made that Phase 5 deleted (``cli_secret_names``); whether they are gone is
    the verification's check of them."""
    milestones = dict(milestones or {})
    aws, iam = split_aws(aws_resources)
    if aws_cleanup_ran is None:
        aws_cleanup_ran = bool(aws_resources)
    if aws_lookup_ran is None:
        aws_lookup_ran = "aws_verified" in (verification or {})
    aws["observed"] = bool(aws_cleanup_ran)
    aws["looked_up"] = bool(aws_lookup_ran)
    aws["not_cleaned"] = not_cleaned(manifest) if not aws_cleanup_ran and not check_mode else []
    checks = list((verification or {}).get("checks") or [])
    command_succeeded = bool(milestones.get("command_succeeded"))
    k8s_ok = bool(checks) and all(c.get("state") in ("absent", "retained") for c in checks)
    aws_ok = bool((verification or {}).get("aws_verified")) and not aws["remaining"]
    verified = bool(command_succeeded and k8s_ok and aws_ok and not check_mode)
    retained_list = list(retained or [])
    if namespace_retained:
        retained_list.append({"what": "Namespace %s" % cluster.get("hcp_namespace"),
                              "why": "the HostedCluster asked for it (skip-delete-hosted-controlplane-namespace: \"true\")"})
    if iam["retained"]:
        retained_list.append({"what": "%d IAM resources" % len(iam["retained"]),
                              "why": "preserve_iam: true (intended retention, not a leak)"})
    report = {
        "schema": SCHEMA,
        "cluster": dict((k, cluster.get(k)) for k in ("namespace", "name", "uid", "infra_id", "region",
                                                      "hcp_namespace") if k in cluster),
        "options": dict(options or {}),
        "check_mode": bool(check_mode),
        "milestones": milestones,
        "gates": gate_rows(gates),
        "hcp_conditions": dict(hcp_conditions or {}),
        "aws": aws,
        "iam": {"deleted": iam["deleted"], "retained": iam["retained"]},
        "namespace_retained": bool(namespace_retained),
        "cli_secrets": cli_secret_names(cli_secrets),
        "retained": retained_list,
        "remaining": aws["remaining"] + [c for c in checks if c.get("state") not in ("absent", "retained")],
        "verification": {"checks": checks, "aws_verified": bool((verification or {}).get("aws_verified")),
                         "tracked": tracked_states((verification or {}).get("tracked"))},
        "command_succeeded": command_succeeded,
        "verified": verified,
        "stopped": stopped,
        "taken_over": [t for t in taken_over or [] if t],
        "versions": dict(versions or {}),
    }
    if plan is not None:
        report["plan"] = plan
    for k in ("namespace", "name", "uid", "infra_id"):
        report["cluster"].setdefault(k, None)
    return report


def cli_secret_names(cli_secrets):
    """The report's ``cli_secrets``: ``namespace``, ``selector`` and the names ``deleted``, ``absent`` (already
    gone), ``planned`` (check mode) and ``failed`` (each ``name`` and ``error``), from what Phase 5 recorded; {} when
    it recorded nothing (the run stopped before, or an infrastructure-only destroy)."""
    c = cli_secrets if isinstance(cli_secrets, dict) else {}
    if not c.get("selector"):
        return {}
    out = {"namespace": c.get("namespace"), "selector": c["selector"]}
    for k in ("deleted", "absent", "planned"):
        out[k] = sorted("%s" % n for n in c.get(k) or [])
    out["failed"] = [{"name": f.get("name"), "error": f.get("error") or ""} for f in c.get("failed") or []
                     if isinstance(f, dict)]
    if c.get("error"):
        out["error"] = c["error"]
    return out


def not_cleaned(manifest):
    """The rows of ``aws.not_cleaned``: each ID of ``manifest`` (type -> IDs), by type then ID."""
    manifest = manifest or {}
    return [{"type": t, "id": i, "state": "not cleaned: the run stopped before its AWS cleanup"}
            for t in sorted(manifest) for i in sorted(manifest[t] or [])]


def summary(report):
    """The short form for set_stats and the module's result."""
    return {
        "cluster": "%s/%s" % (report["cluster"].get("namespace"), report["cluster"].get("name")),
        "uid": report["cluster"].get("uid"),
        "infra_id": report["cluster"].get("infra_id"),
        "command_succeeded": report["command_succeeded"],
        "verified": report["verified"],
        "check_mode": report.get("check_mode", False),
        "gates": dict((g["name"], g["state"]) for g in report["gates"]),
        "aws_deleted": len(report["aws"]["deleted"]),
        "aws_retained": len(report["aws"]["retained"]),
        "aws_not_cleaned": len(report["aws"].get("not_cleaned") or []),
        # None when neither the cleanup nor a lookup by ID ran: not observed, which is not 0
        "aws_remaining": (len(report["aws"]["remaining"]) if report["aws"].get("observed", True)
                          or report["aws"].get("looked_up", True) else None),
        "iam_retained": len(report["iam"]["retained"]),
        "namespace_retained": report["namespace_retained"],
        "stopped_at": (report.get("stopped") or {}).get("gate"),
        "finalizers_taken_over": sum(len(t.get("finalizers_removed") or []) for t in report.get("taken_over") or []),
    }


PHASES = ("baseline", "retain", "delete and gates", "AWS infrastructure and IAM", "release the CLI finalizer",
          "verify")


def outcome(report, markdown_path, html_path):
    """The one line the playbook prints at the end: only what was observed. A stop names the phases that
    never ran; a count no look produced says "not observed"."""
    s = summary(report)
    stop_gate = s["stopped_at"] or ""
    if stop_gate:
        # a gate's own name carries no phase: the stop record says which phase it was in
        m = re.match(r"Phase (\d)", stop_gate)
        phase = str((report.get("stopped") or {}).get("phase") or "")
        stop_phase = int(phase) if phase.isdigit() else (int(m.group(1)) if m else 0)
        never = ["%d %s" % (n, PHASES[n - 1]) for n in range(stop_phase + 1, 7)]
        head = "STOPPED at %s; phases that never ran: %s;" % (stop_gate, ", ".join(never) or "none")
    else:
        head = "command %s," % ("succeeded" if s["command_succeeded"] else "did not finish")
    aws = report["aws"]
    aws_said = ("deleted %d, retained %d" % (s["aws_deleted"], s["aws_retained"]) if aws.get("observed", True)
                else "cleanup not run" + (" (%d IDs of the manifest not cleaned, listed by ID in the report)"
                                          % s["aws_not_cleaned"] if s["aws_not_cleaned"] else ""))
    if s["aws_remaining"] is None:
        remaining = "not observed"
    elif aws.get("looked_up", True):
        remaining = "%d (looked up by ID)" % s["aws_remaining"]
    else:
        remaining = "%d (by the cleanup's own reads, not looked up by ID)" % s["aws_remaining"]
    ns_reads = [c for c in report["verification"]["checks"] if (c.get("what") or "").startswith("Namespace ")]
    if s["namespace_retained"]:
        ns_state = "retained"
    elif ns_reads:
        ns_state = "deleted (a read answered absent)" if ns_reads[0].get("state") == "absent" else ns_reads[0].get("state")
    else:
        ns_state = "not observed"
    return "%s: %s teardown %s; AWS %s, remaining %s; namespace %s; report %s, page %s%s" % (
        s["cluster"], head, "VERIFIED" if s["verified"] else "not verified", aws_said, remaining, ns_state,
        markdown_path, html_path, " (check mode: not written)" if s["check_mode"] else "")


def removed_finalizer_rows(report):
    """One row per finalizer a take-over removed: object, UID, finalizer, owner, evidence of absence, time."""
    rows = []
    for t in report.get("taken_over") or []:
        for r in t.get("finalizers_removed") or []:
            o = r.get("object") or {}
            evidence = "; ".join("%s (absent at %s)" % (e.get("what"), e.get("verified_absent_at"))
                                 for e in r.get("evidence") or [])
            rows.append(("%s %s%s" % (o.get("kind"), (o["namespace"] + "/") if o.get("namespace") else "", o.get("name")),
                         r.get("uid"), r.get("finalizer"), r.get("owner"), evidence, r.get("at")))
    return rows


def taken_over_lines(report):
    if not report.get("taken_over"):
        return []
    lines = ["", "## Taken over (take_over_cleanup)", ""]
    for t in report["taken_over"]:
        why = t.get("reason") or {}
        lines.append("- %s, part %s, %s to %s, %s. %s" % (
            t.get("owner"), t.get("part"), t.get("started"), t.get("ended"),
            "verified" if t.get("verified") else "NOT verified",
            ("Why: gate '%s' %s, no progress since %s (last: %s)." % (why.get("gate"), why.get("state"),
                                                                      why.get("last_progress"),
                                                                      why.get("last_progress_what"))) if why else ""))
    rows = removed_finalizer_rows(report)
    lines += ["", "| object | uid | finalizer removed | owner | evidence of absence | at |",
              "| --- | --- | --- | --- | --- | --- |"]
    lines += ["| %s |" % " | ".join(_md_escape(c) for c in row) for row in rows] or ["| none | | | | | |"]
    return lines


def _fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.3f" % v
    return str(v)


def _md_escape(v):
    return _fmt(v).replace("|", "\\|").replace("\n", " ")


def _cli_secret_lines(cli):
    """The Markdown of the Secrets the CLI made: by name, what was deleted, already gone, would be deleted, failed."""
    if not cli:
        return []
    lines = ["", "## Secrets the CLI made", "", "`%s` in %s" % (cli.get("selector"), cli.get("namespace"))]
    said = [("Deleted", cli.get("deleted")), ("Already gone", cli.get("absent")), ("Would delete", cli.get("planned"))]
    for title, names in said:
        if names:
            lines += ["", "%s:" % title, ""] + ["- %s" % n for n in names]
    if cli.get("failed"):
        lines += ["", "Not deleted:", ""] + ["- %s: %s" % (f.get("name"), f.get("error")) for f in cli["failed"]]
    if cli.get("error"):
        lines += ["", "Not listed: %s" % cli["error"]]
    if not any(names for dummy, names in said) and not cli.get("failed") and not cli.get("error"):
        lines += ["", "None left to delete."]
    return lines


def render_markdown(report, mermaid=None):
    """The Markdown report; ``mermaid`` is the timeline chart (timeline.render_mermaid), drawn from this report."""
    c = report["cluster"]
    lines = ["# Teardown of HostedCluster %s/%s" % (c.get("namespace"), c.get("name")), ""]
    status = "verified" if report["verified"] else ("command finished, NOT verified" if report["command_succeeded"]
                                                    else "NOT finished")
    if report.get("check_mode"):
        status = "check mode: plan only, nothing changed"
    lines += ["**Result: %s**" % status, ""]
    lines += ["| | |", "| --- | --- |"]
    for k in ("uid", "infra_id", "region", "hcp_namespace"):
        lines.append("| %s | %s |" % (k, _md_escape(c.get(k))))
    for k, v in sorted(report["options"].items()):
        lines.append("| option `%s` | %s |" % (k, _md_escape(v)))
    ms = report.get("milestones") or {}
    for k in ("started", "command_finished", "verified_at", "finished"):
        if ms.get(k):
            lines.append("| %s | %s |" % (k.replace("_", " "), ms[k]))
    lines.append("| command succeeded | %s |" % report["command_succeeded"])
    lines.append("| teardown verified | %s |" % report["verified"])
    if mermaid:
        lines += ["", "## Timeline", "", mermaid]
    lines += ["", "## Gates", "", "| gate | state | started | first terminating | passed | seconds |",
              "| --- | --- | --- | --- | --- | --- |"]
    for g in report["gates"]:
        lines.append("| %s | %s | %s | %s | %s | %s |" % tuple(_md_escape(x) for x in (
            g["name"], g["state"], g["started"], g.get("first_observed_terminating"), g["passed_at"], g["duration_s"])))
    if report.get("hcp_conditions"):
        lines += ["", "## HostedControlPlane conditions (last observed)", "",
                  "| condition | status | reason | message |", "| --- | --- | --- | --- |"]
        for t, cond in sorted(report["hcp_conditions"].items()):
            cond = cond or {}
            lines.append("| %s | %s | %s | %s |" % tuple(_md_escape(x) for x in (
                t, cond.get("status", "not observed"), cond.get("reason"), cond.get("message"))))
    aws = report["aws"]
    if aws.get("observed", True):
        aws_line = "deleted by this run: %d, already absent or terminal: %d, retained: %d, remaining: %s" % (
            len(aws["deleted"]), len(aws.get("absent", [])), len(aws["retained"]),
            len(aws["remaining"]) if aws.get("looked_up", True) else "%d (by the cleanup's own reads, not looked up by "
            "ID)" % len(aws["remaining"]))
        aws_line += (", would delete: %d" % len(aws["planned"]) if aws.get("planned") else "")
    else:
        aws_line = "The AWS cleanup did not run: nothing was deleted or looked up by this run."
    lines += ["", "## AWS", "", aws_line]
    if aws.get("not_cleaned"):
        lines += ["", "Not cleaned (the manifest's IDs, which the run stopped before; the resume cleans them):", ""]
        lines += ["- `%s` %s" % (r["type"], r["id"]) for r in aws["not_cleaned"]]
    if aws["deleted"]:
        lines += ["", "Deleted:", ""] + ["- `%s` %s" % (r["type"], r["id"]) for r in aws["deleted"]]
    lines += _cli_secret_lines(report.get("cli_secrets"))
    if report["retained"]:
        lines += ["", "## Retained, and why", ""] + ["- %s: %s" % (r["what"], r["why"]) for r in report["retained"]]
        if report["iam"]["retained"]:
            lines += [""] + ["- `%s` %s" % (r["type"], r["id"]) for r in report["iam"]["retained"]]
    lines += ["", "## Remaining", ""]
    if report["remaining"]:
        for r in report["remaining"]:
            if "type" in r:
                lines.append("- `%s` %s (%s)%s" % (r["type"], r["id"], r.get("state") or r.get("outcome"),
                                                   (": " + r["error"]) if r.get("error") else ""))
            else:
                lines.append("- %s: %s" % (r.get("what"), r.get("state")))
    else:
        lines.append("Nothing." if report["verified"] else "Nothing known (see the verification below).")
    checks = report["verification"]["checks"]
    if checks:
        lines += ["", "## Verification (independent queries)", "", "| what | state | count |", "| --- | --- | --- |"]
        for ch in checks:
            lines.append("| %s | %s | %s |" % tuple(_md_escape(x) for x in (ch.get("what"), ch.get("state"), ch.get("count"))))
        lines.append("")
        aws_said = "every non-retained ID absent or terminal" if report["verification"]["aws_verified"] else "NOT verified"
        lines.append("AWS lookups by ID: %s" % aws_said)
    lines += taken_over_lines(report)
    st = report.get("stopped")
    if st:
        lines += ["", "## Stopped", "", "At: %s" % st.get("gate"), "", _fmt(st.get("message"))]
        for hint in st.get("inspect_next") or []:
            lines.append("- inspect: %s" % hint)
        if st.get("plan_refused"):
            # a refused plan is not resumed: its resume says how to get a new plan approved
            lines += ["", "The approved plan was refused, the run is not resumed: %s" % _fmt(st.get("resume"))]
        elif st.get("resume"):
            lines += ["", "Resume with:", "", "```", st["resume"], "```"]
    if report.get("versions"):
        lines += ["", "## Versions", ""] + ["- %s: %s" % (k, _fmt(v)) for k, v in sorted(report["versions"].items())]
    return "\n".join(lines) + "\n"
