# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.release_prune_messages import (
    held_releases_message, orphaning_refusal_message, wait_summaries)

# Releases as convoy_release_info returns them (module_utils convoy.summarize_release), reduced to what the messages read
ORPHANING = [
    {"name": "web", "namespace": "apps", "state": "present", "deleting": False, "cluster_check": "unreachable", "orphan_risk": True,
     "orphan_warning": "Cluster edge is not reachable (status.reachable is not true): deleting Release apps/web now leaves its 3 "
                       "recorded object(s) running on the target and skips 2 delete hook(s); convoy still deletes the "
                       "ReleaseInventory, so nothing tracks them afterwards",
     "orphans": [{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "podinfo", "name": "podinfo"},
                 {"apiVersion": "v1", "kind": "Service", "namespace": "podinfo", "name": "podinfo"},
                 {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "namespace": None, "name": "podinfo-reader"}]},
    {"name": "keep", "namespace": "apps", "state": "present", "deleting": False, "cluster_check": "absent", "orphan_risk": True,
     "orphan_warning": "Cluster edge is absent: deleting Release apps/keep now skips its 2 delete hook(s) (its objects stay, as "
                       "keepWorkloads asks, and its ReleaseInventory goes)",
     "orphans": []},
]

HELD = [
    {"name": "web", "namespace": "apps", "state": "present", "deleting": True,
     "diagnosis": ["preDelete hook drain failed (Job apps/web-drain-1, attempt 3: BackoffLimitExceeded: Job has reached the "
                   "specified backoff limit) and its onFailure is Fail: convoy keeps the finalizer and deletes no object until it succeeds"],
     "ways_out": ["fix what makes hook drain fail (read the logs of Job apps/web-drain-1); convoy runs the hook again and the deletion goes on",
                  "if the Release may go without it, set that hook's onFailure to Continue in spec.lifecycle.preDelete (convoy records the "
                  "failure and continues)",
                  "or remove the hook from spec.lifecycle.preDelete",
                  "do not remove the finalizer release.core.convoy.kumodo.io/prune-workloads: the workloads and the ReleaseInventory "
                  "would stay, untracked"]},
    {"name": "slow", "namespace": "apps", "state": "present", "deleting": True,
     "diagnosis": ["no failure observed: convoy is still working on it (condition Deleting: Pruning 2 left)"],
     "ways_out": ["wait longer (raise timeout) and re-run; the role resumes from what it observes"]},
    {"name": "other", "namespace": "apps", "state": "present", "deleting": True,
     "diagnosis": ["convoy's finalizer is gone; other finalizers hold it: example.com/guard, example.com/audit"],
     "ways_out": []},
]


def _tracked(name, terminating, absent):
    return {"kind": "Release", "api_version": "core.convoy.kumodo.io/v1alpha1", "name": name, "namespace": "apps", "uid": "uid-" + name,
            "first_observed": "2026-01-02T02:46:40.000Z", "first_observed_terminating": terminating, "first_observed_absent": absent,
            "selector": 0, "deletion_timestamp": "2026-01-02T03:04:05Z", "finalizers": ["release.core.convoy.kumodo.io/prune-workloads"],
            "conditions": [], "absence_proven_by": "watch DELETED event"}


# gates as wait_gate returns them (module_utils gates.GateState.result), the timeline cut short
WAITS = [
    {"name": "Releases of batch 1 gone", "until": "absent", "state": "passed", "started": "2026-01-02T02:46:40.000Z",
     "ended": "2026-01-02T02:46:42.500Z", "duration": 2.5, "passed_at": "2026-01-02T02:46:42.500Z",
     "first_observed_terminating": "2026-01-02T02:46:40.500Z", "first_observed_absent": "2026-01-02T02:46:42.000Z",
     "objects": [_tracked("web", "2026-01-02T02:46:40.500Z", "2026-01-02T02:46:41.500Z"),
                 _tracked("api", "2026-01-02T02:46:41.000Z", "2026-01-02T02:46:42.000Z")],
     "remaining": [], "new_objects": [], "queries": {"lists": 2, "events": 2, "errors": 0},
     "last_progress": "2026-01-02T02:46:42.000Z", "last_progress_what": "Release api gone", "unknown_selectors": [],
     "timeline": [{"at": "2026-01-02T02:46:42.500Z", "event": "gate passed"}]},
    {"name": "Releases of batch 2 gone", "until": "absent", "state": "unknown", "started": "2026-01-02T02:46:43.000Z",
     "ended": "2026-01-02T02:56:43.000Z", "duration": 600.0, "passed_at": None},
]


def test_orphaning_refusal_names_each_release_and_its_objects_then_the_ways_out():
    assert orphaning_refusal_message(ORPHANING) == (
        "Refusing to delete 2 Release(s) whose Cluster is not reachable: Cluster edge is not reachable (status.reachable is not "
        "true): deleting Release apps/web now leaves its 3 recorded object(s) running on the target and skips 2 delete hook(s); "
        "convoy still deletes the ReleaseInventory, so nothing tracks them afterwards [Deployment/podinfo/podinfo, "
        "Service/podinfo/podinfo, ClusterRole/None/podinfo-reader]. Cluster edge is absent: deleting Release apps/keep now skips "
        "its 2 delete hook(s) (its objects stay, as keepWorkloads asks, and its ReleaseInventory goes) [].  Nothing was deleted. "
        "Ways out: make the Cluster reachable (convoy reads status.reachable) and re-run; or exclude these Releases from the "
        "selection; or re-run with allow_orphaned_workloads: true to delete them anyway (their objects stay running, untracked; "
        "the report lists them).")


def test_orphaning_refusal_of_no_release():
    assert orphaning_refusal_message([]) == (
        "Refusing to delete 0 Release(s) whose Cluster is not reachable:  Nothing was deleted. Ways out: make the Cluster "
        "reachable (convoy reads status.reachable) and re-run; or exclude these Releases from the selection; or re-run with "
        "allow_orphaned_workloads: true to delete them anyway (their objects stay running, untracked; the report lists them).")


def test_held_releases_each_with_its_diagnosis_and_ways_out():
    assert held_releases_message(HELD, 600) == (
        "3 Release(s) still present after 600 s (their finalizer stays: nothing was forced). Release apps/web: preDelete hook "
        "drain failed (Job apps/web-drain-1, attempt 3: BackoffLimitExceeded: Job has reached the specified backoff limit) and "
        "its onFailure is Fail: convoy keeps the finalizer and deletes no object until it succeeds Ways out: fix what makes hook "
        "drain fail (read the logs of Job apps/web-drain-1); convoy runs the hook again and the deletion goes on; if the Release "
        "may go without it, set that hook's onFailure to Continue in spec.lifecycle.preDelete (convoy records the failure and "
        "continues); or remove the hook from spec.lifecycle.preDelete; do not remove the finalizer "
        "release.core.convoy.kumodo.io/prune-workloads: the workloads and the ReleaseInventory would stay, untracked. Release "
        "apps/slow: no failure observed: convoy is still working on it (condition Deleting: Pruning 2 left) Ways out: wait "
        "longer (raise timeout) and re-run; the role resumes from what it observes. Release apps/other: convoy's finalizer is "
        "gone; other finalizers hold it: example.com/guard, example.com/audit Ways out: .  Re-run the same command after the "
        "fix: the role resumes from what it observes.")


def test_held_releases_of_no_release_and_a_timeout_given_as_text():
    assert held_releases_message([], "45") == (
        "0 Release(s) still present after 45 s (their finalizer stays: nothing was forced).  Re-run the same command after the "
        "fix: the role resumes from what it observes.")


def test_wait_summaries_keep_each_gate_and_the_timeline_of_its_releases():
    out = wait_summaries(WAITS)
    assert [list(w) for w in out] == [
        ["name", "until", "state", "started", "ended", "duration", "passed_at", "first_observed_terminating",
         "first_observed_absent", "remaining", "new_objects", "queries", "last_progress", "last_progress_what",
         "unknown_selectors", "timeline", "releases"],
        ["name", "until", "state", "started", "ended", "duration", "passed_at", "releases"]]
    assert out[0]["releases"] == [
        {"kind": "Release", "name": "web", "uid": "uid-web", "first_observed_terminating": "2026-01-02T02:46:40.500Z",
         "first_observed_absent": "2026-01-02T02:46:41.500Z", "finalizers": ["release.core.convoy.kumodo.io/prune-workloads"]},
        {"kind": "Release", "name": "api", "uid": "uid-api", "first_observed_terminating": "2026-01-02T02:46:41.000Z",
         "first_observed_absent": "2026-01-02T02:46:42.000Z", "finalizers": ["release.core.convoy.kumodo.io/prune-workloads"]}]
    assert out[1] == {"name": "Releases of batch 2 gone", "until": "absent", "state": "unknown", "started": "2026-01-02T02:46:43.000Z",
                      "ended": "2026-01-02T02:56:43.000Z", "duration": 600.0, "passed_at": None, "releases": []}
    assert "objects" in WAITS[0]  # the input is left as it was
    assert json.loads(json.dumps(out)) == out


def test_wait_summaries_of_no_wait():
    assert wait_summaries([]) == []


@pytest.mark.parametrize("call", [
    lambda: orphaning_refusal_message({"releases": []}),
    lambda: held_releases_message("web", 600),
    lambda: wait_summaries(None),
])
def test_refuses_what_is_not_a_list(call):
    with pytest.raises(AnsibleFilterError, match="expects"):
        call()
