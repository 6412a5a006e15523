# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The release_prune role's two stop messages, from the Releases of convoy_release_info (orphaning_refusal_message,
held_releases_message), and its report's waits, from wait_gate's gates (wait_summaries): steps of the
release_prune_step filter."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import dict_list, printed

# what the report keeps of each Release a wait tracked: its timeline
WAIT_OBJECT_KEYS = ("kind", "name", "uid", "finalizers", "first_observed_terminating", "first_observed_absent")


def _orphans(release):
    return ", ".join("/".join(str(o.get(k)) for k in ("kind", "namespace", "name")) for o in release.get("orphans") or [])


def orphaning_refusal_message(releases):
    """Why the role refuses to delete Releases whose Cluster is not reachable: each one's warning and recorded
    objects (KIND/NAMESPACE/NAME), then the ways out."""
    releases = dict_list(releases, "orphaning_refusal_message", "the Releases of convoy_release_info that would orphan workloads")
    return (
        "Refusing to delete %d Release(s) whose Cluster is not reachable: %s Nothing was deleted. Ways out: make the "
        "Cluster reachable (convoy reads status.reachable) and re-run; or exclude these Releases from the selection; "
        "or re-run with allow_orphaned_workloads: true to delete them anyway (their objects stay running, untracked; "
        "the report lists them)."
        % (len(releases), "".join("%s [%s]. " % (printed(r.get("orphan_warning")), _orphans(r)) for r in releases)))


def held_releases_message(releases, timeout):
    """Which Releases are still present after ``timeout`` seconds, each with its diagnosis and ways out."""
    releases = dict_list(releases, "held_releases_message", "the Releases of convoy_release_info still present")
    return (
        "%d Release(s) still present after %s s (their finalizer stays: nothing was forced). %s Re-run the same "
        "command after the fix: the role resumes from what it observes."
        % (len(releases), printed(timeout), "".join(
            "Release %s/%s: %s Ways out: %s. " % (
                printed(r.get("namespace")), printed(r.get("name")), " ".join(str(d) for d in r.get("diagnosis") or []),
                "; ".join(str(w) for w in r.get("ways_out") or []))
            for r in releases)))


def wait_summaries(gates):
    """Each wait_gate gate without its tracked objects, with ``releases``: each tracked Release's kind, name, uid,
    finalizers and when it was first observed terminating and absent."""
    gates = dict_list(gates, "wait_summaries", "the gates of wait_gate")
    return [
        dict([(k, v) for k, v in g.items() if k != "objects"]
             + [("releases", [dict((k, v) for k, v in o.items() if k in WAIT_OBJECT_KEYS)
                              for o in g.get("objects") or [] if isinstance(o, dict)])])
        for g in gates]
