# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The release_prune kind: prune convoy Releases (and their Cluster) (role release_prune).

Its published names (convoy's API and finalizers), the hints for its objects, its rule, its report body, chart and
verdict. registry.py lists it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib
from ansible_collections.teardown.gates.plugins.module_utils.preflight.permissions import grant
from ansible_collections.teardown.gates.plugins.module_utils.owners import convoy
from ansible_collections.teardown.gates.plugins.module_utils.kinds.drawing import (
    epoch, esc, finish, gate_row, html_list, html_table, row)

NAME = "release_prune"
PAGE = True
ROLE_NAME = "teardown.gates.release_prune"

API_VERSIONS = (convoy.API_VERSION,)
ANNOTATIONS = ()
LABELS = (convoy.LABEL_RELEASE, convoy.LABEL_RELEASE_UID, convoy.LABEL_HOOK, convoy.LABEL_PHASE)

# convoy is known only through its "Deletion" document (tests/sandbox/spec/convoy.md), which names no
# Deployment: no controller to read
CONTROLLERS = ()

FINALIZERS = {
    convoy.RELEASE_FINALIZER: (
        "convoy (Release)", "preDelete hooks, deletion of the Release's objects on the target cluster"),
    convoy.CLUSTER_FINALIZER: (
        "convoy (Cluster)", "the Cluster's Releases pruned"),
}

OBJECT_HINTS = {
    (convoy.GROUP, "Release"): [
        "convoy Release: check the target Cluster's status.reachable (convoy does not connect to check), "
        "preDelete hooks (a failed hook with onFailure: Fail keeps the finalizer; hooks are rechecked every "
        "10 s), spec.deletionPolicy.keepWorkloads, and the ReleaseInventory."],
    (convoy.GROUP, "Cluster"): [
        "convoy Cluster: its Releases must be pruned first (spec.deletionPolicy.pruneReleases); list the "
        "Releases whose clusterRef names it."],
}


def unreachable_cluster_rule(view):
    if view["kind"] == "Cluster" and view["group"] == convoy.GROUP and view["status"].get("reachable") is False:
        return [("first", "convoy Cluster status.reachable is false: convoy skips deleting objects on it "
                          "(they stay on the target cluster).")]
    return []


HINT_RULES = ((90, unreachable_cluster_rule),)

CLOSED_STATES = ("passed", "deleted", "absent")


def claims(report):
    """A report of this kind names its role."""
    return report.get("role") == ROLE_NAME


def chart(report):
    """prune_releases: a row per batch (its wait), then a row per Release, from its batch's start to when it was
    first seen absent; a Release never seen absent is open, with its finalizers and the role's diagnosis."""
    run_end = epoch(report.get("finished"))
    held = dict((h.get("name"), h) for h in report.get("held") or [])
    rows, releases = [], []
    for w in report.get("waits") or []:
        batch = gate_row(w, "Batches", run_end)
        rows.append(batch)
        for o in w.get("releases") or []:
            gone = epoch(o.get("first_observed_absent"))
            marks = []
            term = epoch(o.get("first_observed_terminating"))
            if term is not None:
                marks.append({"label": "first terminating", "at": term, "kind": "terminating"})
            note = ""
            if gone is None:
                note = "not gone: finalizers %s" % ", ".join(o.get("finalizers") or []) if o.get("finalizers") else \
                    "not seen absent"
                if o.get("name") in held:
                    note += "; " + "; ".join(str(d) for d in held[o["name"]].get("diagnosis") or [])
            releases.append(row("Releases", "Release %s" % o.get("name"), "deleted" if gone is not None else "open",
                                batch["start"], gone if gone is not None else batch["end"],
                                gone is None and batch["start"] is not None, marks, note))
    rows += releases
    for g in report.get("cluster_wait") or []:
        rows.append(gate_row(g, "Cluster", run_end))
    ms = [{"label": "finished: %s" % report.get("outcome"), "at": run_end}]
    return finish("release_prune", "Prune of convoy Releases in %s" % (report.get("input") or {}).get(
        "release_namespace"), rows, ms, epoch(report.get("started")), run_end)


def body(report):
    error = (": " + esc(report["error"])) if report.get("error") else ""
    parts = ["<p>Outcome: <b>%s</b>%s</p>" % (esc(report.get("outcome")), error)]
    parts += ["<h2>Deletion requested</h2>", html_list([esc(n) for n in report.get("deletion_requested") or []])]
    held = []
    for r in report.get("held") or []:
        held.append("%s (%s): %s" % (esc(r.get("name")), esc(r.get("uid")),
                                     esc("; ".join(str(d) for d in r.get("diagnosis") or []))))
    parts += ["<h2>Did not go</h2>", html_list(held)]
    orphans = ["%s %s/%s" % (esc(o.get("kind")), esc(o.get("namespace")), esc(o.get("name")))
               for o in report.get("orphaned_by_opt_in") or []]
    parts += ["<h2>Left running and untracked</h2>", html_list(orphans)]
    ver = report.get("verification")
    if isinstance(ver, dict):
        parts += ["<h2>Verification</h2>", html_table(["what", "value"], sorted(ver.items()))]
    return "\n".join(parts)


def verdict(report):
    return ("ok" if report.get("outcome") == "pruned" else "bad"), str(report.get("outcome"))


# The Kubernetes permissions a run needs on its path, as data (preflight/permissions.py reviews them before the first
# change): verb, API group, resource, the namespace (a template over the run's options; None: cluster-wide or every
# namespace), the option that must be true for the permission to be needed (None: always), and the RBAC file that
# grants them (tests/unit/plugins/module_utils/preflight/test_permissions.py parses it and checks each is granted).
RBAC_FILE = 'extensions/rbac/release_prune.yml'
PERMISSIONS = (
    grant("list get watch delete", "core.convoy.kumodo.io", "releases", "{release_namespace}")
    + grant("list", "core.convoy.kumodo.io", "releaseinventories", "{release_namespace}")
    + grant("get", "core.convoy.kumodo.io", "clusters", "{release_namespace}", when="convoy_cluster_name")
    + grant("delete watch", "core.convoy.kumodo.io", "clusters", "{release_namespace}", when="prune_cluster")
)


FILES = {
    "role": ("roles/release_prune", "release_prune"),
    "playbook": ("playbooks/prune_releases.yml", "release_prune"),
    "runbook": ("docs/runbook-prune-releases.md", "prune_releases"),
    "rbac": ("extensions/rbac/release_prune.yml", "release_prune"),
    "awx": ("extensions/awx/job_templates.yml", "prune_releases.yml"),
    "runner_row": ("tests/sandbox/tests/test_runner_playbooks.py", '"prune_releases.yml": Row('),
    "bad_input_row": ("tests/sandbox/tests/test_bad_input.py", "release_prune"),
    "integration": ("tests/integration/targets/release_prune", "release_prune"),
    "molecule": ("extensions/molecule/release_prune", "release_prune"),
    "chaos": ("tests/chaos/run.py", "prune_releases.yml"),
}


# the options of release_prune that shape its plan (timeout is a duration: not part of it)
PLAN_OPTIONS = ("prune_cluster", "allow_orphaned_workloads", "batch_size", "label_selector", "names", "cluster_name",
                "min_age")


def _object_id(e):
    ns = e.get("namespace")
    return "%s/%s" % (ns, e.get("name", "")) if ns else e.get("name", "")


def cluster_held(info, cluster_name):
    """The kept (labelled protected) Releases of the Cluster ``cluster_name``: while one stays, the Cluster is not
    deleted (deleting it deletes its Releases)."""
    return sorted(r.get("name", "") for r in (info or {}).get("protected") or []
                  if cluster_name and r.get("cluster") == cluster_name)


def plan(facts, options):
    """release_prune's plan from convoy_release_info's result (``facts['info']``: ``releases``, ``clusters``,
    ``absent_names``), read before the first delete. Step 1: the Cluster, when prune_cluster deletes it (its
    pruneReleases flow then deletes the Releases); steps 10 + batch: each Release of the batch (its UID as the
    delete's precondition), or a wait for one already deleting; step 11 + batch: what convoy's flow removes of its
    inventory. The Releases are batched in the order convoy_release_info lists them (by name)."""
    info, options = (facts or {}).get("info") or {}, dict(options or {})
    opts = dict((k, options[k]) for k in PLAN_OPTIONS if k in options)
    for k in ("names",):
        if isinstance(opts.get(k), list):
            opts[k] = sorted(opts[k])
    ns = options.get("namespace", "")
    cluster_name = options.get("cluster_name") or ""
    size = max(1, int(options.get("batch_size") or 1))
    entries, keep = [], []
    cluster = [c for c in info.get("clusters") or [] if isinstance(c, dict) and c.get("name") == cluster_name]
    by_cluster = False
    for r in sorted(info.get("protected") or [], key=lambda r: r.get("name", "")):
        keep.append(planlib.kept("Release", "%s/%s" % (ns, r.get("name", "")), r.get("reason", "")))
    held = cluster_held(info, cluster_name)
    if options.get("prune_cluster") and cluster and cluster[0].get("state") == "present":
        c = cluster[0]
        # a held Cluster is not deleted: its other Releases are then deleted one by one, as without pruneReleases
        by_cluster = bool(c.get("prune_releases")) and not held
        if held:
            # its pruneReleases flow (or convoy's finalizer) would take the kept Releases with it
            keep.append(planlib.kept("Cluster", "%s/%s" % (ns, c["name"]), "holds kept Release(s) %s" % ", ".join(held)))
        elif by_cluster and not c.get("deleting"):
            entries.append(planlib.entry(1, "delete", "Cluster", "%s/%s" % (ns, c["name"]), detail="uid %s" % c.get("uid", "")))
    present = sorted((r for r in info.get("releases") or [] if isinstance(r, dict) and r.get("state") == "present"),
                     key=lambda r: r.get("name", ""))
    for n, r in enumerate(present):
        step = 10 + 2 * (n // size)
        rid = "%s/%s" % (ns, r.get("name", ""))
        if r.get("deleting"):
            entries.append(planlib.entry(step, "wait", "Release", rid, detail="already deleting"))
        elif by_cluster:
            entries.append(planlib.entry(step, "deleted by the Cluster's pruneReleases", "Release", rid, detail="uid %s" % r.get("uid", "")))
        else:
            entries.append(planlib.entry(step, "delete", "Release", rid, detail="uid %s" % r.get("uid", "")))
        for e in (r.get("inventory") or {}).get("entries") or []:
            if isinstance(e, dict):
                entries.append(planlib.entry(step + 1, "pruned by convoy", "%s %s" % (e.get("apiVersion", ""), e.get("kind", "")),
                                             _object_id(e), of=rid))
        for o in r.get("orphans") or [] if options.get("allow_orphaned_workloads") else []:
            if isinstance(o, dict):
                keep.append(planlib.kept("%s %s" % (o.get("apiVersion", ""), o.get("kind", "")), _object_id(o),
                                         "allow_orphaned_workloads: left running, untracked (of %s)" % rid))
    for name in sorted(info.get("absent_names") or []):
        keep.append(planlib.kept("Release", "%s/%s" % (ns, name), "already absent"))
    unknown = []
    if present:
        unknown.append(planlib.at_run_time("objects labelled as a Release's that its inventory does not record",
                                           "convoy's own pruning (not deleted by this run)"))
    return planlib.build(NAME, {"namespace": ns}, opts, entries, unknown, keep)
