# -*- coding: utf-8 -*-
"""The pure code of the hosted_cluster_destroy role's baseline, shared by the hosted_cluster_baseline module and the
role's filter steps (whose own tests, tests/unit/plugins/plugin_utils/test_hosted_cluster_baseline.py, check the
filters' AnsibleFilterError and the precedence of each value)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster_baseline as base
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline as filters

HC = {"metadata": {"uid": "u-1", "finalizers": ["openshift.io/destroy-cluster"]},
      "spec": {"infraID": "demo-x", "platform": {"type": "AWS", "aws": {"region": "us-east-2"}}}}


def test_a_wrong_input_is_a_baseline_error_of_the_collection_not_a_filter_error():
    with pytest.raises(base.BaselineError, match="^hosted_cluster_baseline: expects the HostedCluster"):
        base.identity([], {}, True)
    assert issubclass(base.BaselineError, TeardownGatesError)


def test_the_filters_run_this_code():
    assert filters.aws_cleanup_runs.__wrapped__ is base.aws_cleanup_runs


def test_stored_baseline_refuses_naming_the_file():
    with pytest.raises(base.BaselineError, match="^hosted_cluster_stored_baseline: the stored baseline /r/x.json holds a list"):
        base.stored_baseline("[1]", "/r/x.json")
    assert base.stored_baseline("", "/r/x.json") == {}


def test_file_text_missing_or_a_directory_is_nothing_and_other_bytes_are_escaped(tmp_path):
    assert base.file_text(str(tmp_path / "none.json")) == "" and base.file_text(str(tmp_path)) == ""
    (tmp_path / "b.json").write_text('{"a": 1}\n\n')
    assert base.file_text(str(tmp_path / "b.json")) == '{"a": 1}'
    (tmp_path / "l.json").write_bytes(b"\xff{")
    with pytest.raises(base.BaselineError, match="l.json is not JSON"):
        base.stored_baseline(base.file_text(str(tmp_path / "l.json")), str(tmp_path / "l.json"))


def test_file_text_reads_a_relative_path_from_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "c.json").write_text("{}")
    assert base.file_text("out/c.json") == "{}"


def test_absent_refusal_only_when_nothing_names_what_to_destroy():
    assert base.absent_refusal(False, {}, "", "clusters", "demo", "/r") == (
        "HostedCluster clusters/demo does not exist (a successful read answered no such object) and no baseline is "
        "stored in /r: give infra_id to destroy its AWS infrastructure alone. Nothing changed.")
    assert base.absent_refusal(True, {}, "", "clusters", "demo", "/r") is None
    assert base.absent_refusal(False, {"cluster": {}}, "", "clusters", "demo", "/r") is None
    assert base.absent_refusal(False, {}, "demo-x", "clusters", "demo", "/r") is None


def test_platform_refusal():
    azure = {"spec": {"platform": {"type": "Azure"}}}
    assert base.platform_refusal(True, azure, "clusters", "demo") == (
        "HostedCluster clusters/demo runs on platform Azure: this role destroys AWS hosted clusters only. Nothing changed.")
    assert base.platform_refusal(False, azure, "clusters", "demo") is None
    assert base.platform_refusal(True, HC, "clusters", "demo") is None
    assert base.platform_refusal(True, {"spec": {}}, "clusters", "demo") is None  # no type reads as AWS


def test_infra_id_refusal():
    assert base.infra_id_refusal(True, HC, "other", "clusters", "demo") == (
        "infra_id: other is not the infra ID of HostedCluster clusters/demo (demo-x). Nothing changed.")
    assert base.infra_id_refusal(True, {}, "other", "clusters", "demo").endswith("(none). Nothing changed.")
    assert base.infra_id_refusal(True, HC, "demo-x", "clusters", "demo") is None
    assert base.infra_id_refusal(True, HC, "", "clusters", "demo") is None
    assert base.infra_id_refusal(False, HC, "other", "clusters", "demo") is None


def test_take_over_refusal_only_for_the_contradiction():
    msg = base.take_over_refusal(True, False, True, "clusters", "demo")
    assert msg.startswith('destroy_cloud_resources: false contradicts the annotation '
                          'hypershift.openshift.io/cleanup-cloud-resources: "true" already on HostedCluster clusters/demo, ')
    assert msg.endswith("or remove the annotation first to keep them. Nothing changed.")
    for args in [(False, False, True), (True, True, True), (True, False, False)]:
        assert base.take_over_refusal(*(args + ("clusters", "demo"))) is None


def test_a_stored_baseline_of_another_uid_is_forgotten_while_the_cluster_is_there():
    stored = {"cluster": {"uid": "u-old"}}
    assert base.same_cluster_stored(stored, HC, True) == {}
    assert base.same_cluster_stored(stored, HC, False) is stored
    assert base.same_cluster_stored({"cluster": {"uid": "u-1"}}, HC, True) == {"cluster": {"uid": "u-1"}}
    assert base.same_cluster_stored({"cluster": {}}, HC, True) == {"cluster": {}}


def test_cluster_state():
    assert base.cluster_state(HC) == {"deleting": False, "cli_finalizer_on": True}
    deleting = {"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": None}}
    assert base.cluster_state(deleting) == {"deleting": "2026-01-01T00:00:00Z", "cli_finalizer_on": False}
    assert base.cluster_state({}) == {"deleting": False, "cli_finalizer_on": False}


def test_unique_sorted():
    assert base.unique_sorted(["b", "a"], None, ["a", "c"]) == ["a", "b", "c"]


def test_versions_precedence():
    assert base.versions({"release_image": "r1"}, {"release_image": "r2", "control_plane_operator_image": "c1"},
                         {"versions": {"control_plane_operator_image": "c0"}}, "2.17.0") == {
        "ansible_core": "2.17.0", "release_image": "r1", "control_plane_operator_image": "c1"}
    assert base.versions({"release_image": None}, {}, {"versions": {"control_plane_operator_image": "c0"}}, "x") == {
        "ansible_core": "x", "release_image": "not recorded", "control_plane_operator_image": "c0"}
    assert base.versions({}, {}, {}, "x")["control_plane_operator_image"] == "not found"


def test_retained_keeps_the_guest_volumes_only_when_the_storage_is_not_deleted():
    assert base.retained(False, ["vol-1"]) == {"AWS::EC2::Volume": ["vol-1"]}
    assert base.retained(True, ["vol-1"]) == {} and base.retained(False, []) == {}


def test_region_refusal_names_both_regions_and_the_cluster():
    hc = {"spec": {"platform": {"aws": {"region": "us-east-2"}}}}
    msg = base.region_refusal(True, hc, {}, "eu-west-1", "clusters", "alpha")
    assert "aws_region: eu-west-1" in msg and "HostedCluster clusters/alpha (us-east-2)" in msg
    assert "Nothing changed" in msg
    assert base.region_refusal(True, hc, {}, "us-east-2", "clusters", "alpha") is None
    assert base.region_refusal(True, hc, {}, "", "clusters", "alpha") is None
    # the HostedCluster gone: the stored baseline's region is the cluster's
    stored = {"cluster": {"region": "us-west-2"}}
    assert "the stored baseline (us-west-2)" in base.region_refusal(False, {}, stored, "us-east-1", "clusters", "a")
    assert base.region_refusal(False, {}, {}, "us-east-1", "clusters", "a") is None  # nothing to disagree with


def test_stored_infra_id_refusal_when_the_option_and_the_stored_baseline_disagree():
    stored = {"cluster": {"infra_id": "alpha-x1"}}
    msg = base.stored_infra_id_refusal(False, stored, "alpha-x2", "/r/clusters-alpha.baseline.json")
    assert "infra_id: alpha-x2" in msg and "/r/clusters-alpha.baseline.json (alpha-x1)" in msg
    assert base.stored_infra_id_refusal(False, stored, "alpha-x1", "p") is None
    assert base.stored_infra_id_refusal(False, stored, "", "p") is None
    assert base.stored_infra_id_refusal(True, stored, "alpha-x2", "p") is None  # infra_id_refusal judges that case
    assert base.stored_infra_id_refusal(False, {}, "alpha-x2", "p") is None


def test_a_stored_baselines_managed_policies_are_kept_not_deleted():
    stored = {"AWS::IAM::ManagedPolicy": ["arn:aws:iam::1:policy/alpha-team"], "AWS::IAM::Role": ["alpha-node-pool"]}
    manifest, kept = base.upstream_manifest(stored)
    assert manifest == {"AWS::IAM::Role": ["alpha-node-pool"]}
    assert kept == [{"type": "AWS::IAM::ManagedPolicy", "id": "arn:aws:iam::1:policy/alpha-team",
                     "reason": base.NOT_HYPERSHIFTS["AWS::IAM::ManagedPolicy"]}]
    assert base.upstream_manifest({}) == ({}, [])
