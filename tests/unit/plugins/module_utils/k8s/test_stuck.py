# -*- coding: utf-8 -*-
"""The decisions of the event source teardown.gates.stuck_deletions (plugins/module_utils/k8s/stuck.py): what is
stuck, when an object is emitted again, unknown on a failed read, and the options' bad input."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.teardown.gates.plugins.module_utils.k8s import stuck as S
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import parse_k8s_time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))
CM = ("v1", "ConfigMap")
NS = ("v1", "Namespace")
T0 = parse_k8s_time("2026-12-04T10:00:00Z")


def obj(name, uid, deleting=True, fins=("dead.test/owner",), kind="ConfigMap", spec_fins=None, ts="2026-12-04T10:00:00Z"):
    meta = {"name": name, "uid": uid, "finalizers": list(fins)}
    if kind != "Namespace":
        meta["namespace"] = "team"
    if deleting:
        meta["deletionTimestamp"] = ts
    out = {"kind": kind, "metadata": meta}
    if spec_fins is not None:
        out["spec"] = {"finalizers": list(spec_fins)}
    return out


def states(events):
    return [(e["stuck_deletion"]["state"], (e["stuck_deletion"]["object"] or {}).get("name")) for e in events]


def test_an_object_is_stuck_only_after_its_kinds_stuck_after():
    t = S.Tracker({CM: 60})
    t.listed(CM, [obj("held", "u1"), obj("live", "u2", deleting=False)])
    assert t.due(T0 + 59) == []
    events = t.due(T0 + 61)
    assert states(events) == [("stuck", "held")]
    e = events[0]["stuck_deletion"]
    assert e["object"] == {"api_version": "v1", "kind": "ConfigMap", "namespace": "team", "name": "held", "uid": "u1"}
    assert e["terminating_seconds"] == 61 and e["stuck_after"] == 60
    assert e["finalizers"] == ["dead.test/owner"] and e["changed"] == "first seen stuck"
    assert e["deletion_timestamp"] == "2026-12-04T10:00:00Z"


def test_it_is_emitted_again_only_when_what_holds_it_changes():
    t = S.Tracker({CM: 10})
    t.listed(CM, [obj("held", "u1", fins=("a.test/x", "b.test/y"))])
    assert len(t.due(T0 + 20)) == 1
    # time passing, a resourceVersion, a re-list after a dropped watch: no change
    assert t.due(T0 + 3600) == []
    t.event(CM, "MODIFIED", obj("held", "u1", fins=("a.test/x", "b.test/y")))
    t.listed(CM, [obj("held", "u1", fins=("a.test/x", "b.test/y"))])
    assert t.due(T0 + 3700) == []
    # one finalizer came off: a new event that says so
    t.event(CM, "MODIFIED", obj("held", "u1", fins=("b.test/y",)))
    again = t.due(T0 + 3800)
    assert states(again) == [("stuck", "held")]
    assert again[0]["stuck_deletion"]["changed"] == "finalizers a.test/x, b.test/y -> b.test/y"
    # a new object of the same name (another UID) is another deletion
    t.event(CM, "DELETED", obj("held", "u1", fins=("b.test/y",)))
    t.event(CM, "ADDED", obj("held", "u9", fins=("b.test/y",)))
    assert [e["stuck_deletion"]["object"]["uid"] for e in t.due(T0 + 3900)] == ["u9"]


def test_a_namespaces_spec_finalizers_are_its_finalizers():
    t = S.Tracker({NS: 5})
    t.listed(NS, [obj("team-api", "n1", kind="Namespace", fins=(), spec_fins=("kubernetes",))])
    e = t.due(T0 + 6)[0]["stuck_deletion"]
    assert e["finalizers"] == ["kubernetes"] and e["object"]["namespace"] == ""


def test_an_object_that_goes_or_stops_terminating_is_forgotten():
    t = S.Tracker({CM: 1})
    t.listed(CM, [obj("a", "u1"), obj("b", "u2")])
    assert len(t.due(T0 + 5)) == 2
    t.event(CM, "DELETED", obj("a", "u1"))
    t.listed(CM, [obj("b", "u2", deleting=False)])  # gone from the terminating set at a re-list
    assert t.terminating[CM] == {} and t.emitted == {}


def test_a_failed_read_is_unknown_once_per_outage_and_never_judged_on_stale_data():
    t = S.Tracker({CM: 10, NS: 10})
    t.listed(CM, [obj("held", "u1")])
    t.listed(NS, [])
    t.failed(CM, "ReadTimeoutError: read timed out", T0 + 30)
    events = t.due(T0 + 31)
    assert states(events) == [("unknown", None)]
    e = events[0]["stuck_deletion"]
    assert e["object"] == {"api_version": "v1", "kind": "ConfigMap"}
    assert "read timed out" in e["error"] and "not known" in e["summary"]
    assert t.due(T0 + 40) == []  # once per outage
    t.failed(CM, "ReadTimeoutError: again", T0 + 45)
    assert t.due(T0 + 50) == [] and t.unknown[CM][1] == T0 + 30  # the outage's start is kept
    # known again: the stuck object is judged now (it had not been emitted: the outage came first)
    t.listed(CM, [obj("held", "u1")])
    assert states(t.due(T0 + 60)) == [("stuck", "held")]
    # a new outage is a new event
    t.failed(CM, "HTTP 503: busy", T0 + 70)
    assert states(t.due(T0 + 71)) == [("unknown", None)]


def test_an_unreachable_api_is_one_unknown_event_for_every_kind():
    t = S.Tracker({CM: 10, NS: 10})
    t.failed(None, "the API server at https://x did not answer within 20 s", T0)
    events = t.due(T0 + 1)
    assert states(events) == [("unknown", None)] and events[0]["stuck_deletion"]["object"] == {}
    assert "every watched kind" in events[0]["stuck_deletion"]["summary"]
    assert t.due(T0 + 2) == []
    t.listed(CM, [])
    assert None not in t.unknown


def test_the_defaults_are_the_registrys_kinds_and_namespaces_at_the_gate_windows():
    kinds = S.default_kinds()
    assert kinds[NS] == 600
    assert kinds[("hypershift.openshift.io/v1beta1", "HostedCluster")] == 600
    assert ("v1", "ConfigMap") not in kinds
    groups = set(pair[0].split("/", 1)[0] for pair in kinds if "/" in pair[0])
    assert {"hypershift.openshift.io", "cluster.x-k8s.io"} <= groups
    config = S.parse_options({})
    assert config["kinds"] == kinds and config["explicit_kinds"] is False
    assert (config["request_timeout"], config["watch_window"], config["check_every"]) == (10, 60, 5)


def test_every_kind_with_kubernetes_objects_has_a_gate_window():
    from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
    with_objects = sorted(k.NAME for k in registry.KINDS if any("/" in av for av in k.API_VERSIONS))
    assert with_objects == sorted(S.GATE_WINDOWS)


@pytest.mark.parametrize("kind", sorted(S.GATE_WINDOWS))
def test_the_gate_windows_are_the_roles_defaults(kind):
    role, var, seconds = S.GATE_WINDOWS[kind]
    with open(os.path.join(REPO, "roles", role, "defaults", "main.yml")) as f:
        assert yaml.safe_load(f)[var] == seconds


def test_stuck_after_by_kind_and_for_all():
    config = S.parse_options({"kinds": [{"api_version": "v1", "kind": "ConfigMap"},
                                        {"api_version": "v1", "kind": "Namespace"},
                                        {"api_version": "convoy.example.io/v1", "kind": "Release"}],
                              "stuck_after": {"ConfigMap": 5, "convoy.example.io/Release": 0}})
    assert config["kinds"] == {CM: 5, NS: 600, ("convoy.example.io/v1", "Release"): 0}
    assert config["explicit_kinds"] is True
    assert set(S.parse_options({"kinds": [{"api_version": "v1", "kind": "ConfigMap"}],
                                "stuck_after": 30})["kinds"].values()) == {30}


@pytest.mark.parametrize("args, words", [
    ({"stuck_after": -1}, "stuck_after: must be 0 or more seconds, got -1"),
    ({"stuck_after": {"Namespace": -5}}, "stuck_after.Namespace: must be 0 or more seconds, got -5"),
    ({"stuck_after": {"Nonesuch": 5}}, "stuck_after.Nonesuch: names no watched kind"),
    ({"stuck_after": "soon"}, "stuck_after: must be a number of seconds, got 'soon'"),
    ({"kinds": [{"kind": "ConfigMap"}]}, "kinds[0].api_version: required"),
    ({"kinds": [{"api_version": "v1", "kind": "ConfigMap", "plural": "x"}]}, "kinds[0]: unknown keys plural"),
    ({"kinds": "ConfigMap"}, "kinds: must be a non-empty list"),
    ({"kinds": [{"api_version": "v1", "kind": "A"}, {"api_version": "v1", "kind": "A"}]}, "kinds[1]: v1 A is listed twice"),
    ({"request_timeout": 0}, "request_timeout: must be more than 0 seconds"),
    ({"watch_window": 7200}, "watch_window: at most 3600 seconds"),
    ({"stuck_afer": 5}, "stuck_afer: not an option of teardown.gates.stuck_deletions"),
])
def test_bad_input_names_the_option(args, words):
    with pytest.raises(S.StuckOptionsError) as e:
        S.parse_options(args)
    assert words in str(e.value)


def test_the_rulebooks_omitted_vars_are_the_defaults():
    # the rulebook passes "{{ x | default(None) }}" for each option it does not set
    assert S.parse_options({"kinds": None, "stuck_after": None, "kubeconfig": None, "context": None}) == \
        S.parse_options({})
