# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.kinds.hosted_cluster_baseline import (
    BaselineError, aws_cleanup_runs, identity, issuer_bucket, merged_manifest, stored_baseline)

HC = {"metadata": {"uid": "u-hc", "annotations": {"hypershift.openshift.io/cleanup-cloud-resources": "true"}},
      "spec": {"infraID": "demo-hc", "issuerURL": "https://demo-oidc.s3.us-east-2.amazonaws.com/demo-hc",
               "platform": {"aws": {"region": "us-east-2"}}, "release": {"image": "quay.io/r:4.17"},
               "dns": {"baseDomain": "hc.example.com"}}}
STORED = {"cluster": {"uid": "u-stored", "infra_id": "demo-stored", "region": "eu-west-1", "release_image": "quay.io/r:4.16",
                      "base_domain": "stored.example.com"},
          "annotations": {"cleanup_preexisting": True, "skip_namespace_delete": True}, "oidc_bucket": "stored-oidc",
          "manifest": {}}


def test_the_hosted_cluster_wins_over_the_stored_baseline():
    assert identity(HC, STORED, True, "", "", "", "us-west-1") == {
        "uid": "u-hc", "infra_id": "demo-hc", "region": "us-east-2", "release_image": "quay.io/r:4.17",
        "base_domain": "hc.example.com", "oidc_bucket": "demo-oidc", "cleanup_preexisting": True,
        "skip_namespace_delete": False, "created": ""}


def test_the_options_win_over_everything():
    got = identity(HC, STORED, True, "ap-south-1", "my-oidc", "demo-opt", "us-west-1")
    assert (got["region"], got["oidc_bucket"], got["infra_id"]) == ("ap-south-1", "my-oidc", "demo-hc")


def test_without_a_hosted_cluster_the_stored_baseline_answers():
    assert identity({}, STORED, False, "", "", "demo-opt", "us-west-1") == {
        "uid": "u-stored", "infra_id": "demo-stored", "region": "eu-west-1", "release_image": "quay.io/r:4.16",
        "base_domain": "stored.example.com", "oidc_bucket": "stored-oidc", "cleanup_preexisting": True,
        "skip_namespace_delete": True, "created": ""}


def test_with_nothing_stored_the_options_and_the_environment_answer():
    assert identity({}, {}, False, "", "", "demo-opt", "us-west-1") == {
        "uid": None, "infra_id": "demo-opt", "region": "us-west-1", "release_image": None, "base_domain": "",
        "oidc_bucket": "", "cleanup_preexisting": False, "skip_namespace_delete": False, "created": ""}


def test_empty_values_fall_through_where_the_role_used_default_true():
    hc = {"metadata": {"uid": "", "annotations": None},
          "spec": {"infraID": "", "platform": {"aws": {"region": ""}}, "dns": {"baseDomain": ""}, "release": {"image": ""}}}
    got = identity(hc, STORED, True, "", "", "", "")
    # uid and release_image keep an empty value (default without true); the others fall through
    assert (got["uid"], got["release_image"]) == ("", "")
    assert (got["infra_id"], got["region"], got["base_domain"]) == ("demo-stored", "eu-west-1", "stored.example.com")
    assert (got["cleanup_preexisting"], got["skip_namespace_delete"]) == (False, False)


def test_a_stored_empty_base_domain_is_kept():
    assert identity({}, {"cluster": {"base_domain": None}}, False)["base_domain"] is None


def test_present_as_text_and_stored_as_json_text_on_ansible_core_2_16():
    hc = dict(HC, metadata={"uid": "u", "annotations": {
        "hypershift.openshift.io/skip-delete-hosted-controlplane-namespace": "true"}})
    got = identity(hc, json.dumps(STORED), "True")
    assert (got["cleanup_preexisting"], got["skip_namespace_delete"]) == (False, True)
    assert identity({}, json.dumps(STORED), "False")["infra_id"] == "demo-stored"


def test_a_stored_baseline_that_is_not_an_object_is_refused():
    with pytest.raises(BaselineError, match="^hosted_cluster_baseline: expects the stored baseline"):
        identity({}, "[]", False)


@pytest.mark.parametrize("url, bucket", [
    ("https://demo-oidc.s3.us-east-2.amazonaws.com/demo", "demo-oidc"),
    ("https://demo-oidc.s3-us-east-2.amazonaws.com/demo", "demo-oidc"),
    ("https://oidc.example.com/demo", ""),
    ("", ""),
    (None, ""),
])
def test_issuer_bucket(url, bucket):
    assert issuer_bucket(url) == bucket


def test_manifest_keeps_every_id_ever_recorded():
    stored = {"vpc": ["vpc-1"], "subnet": ["s-1", "s-2"], "nat": ["n-1"], "zone": {"id": "z-1"}}
    found = {"subnet": ["s-2", "s-3"], "eip": ["e-1"], "nat": "n-2", "zone": {"id": "z-2"}}
    assert merged_manifest(stored, found) == {
        "vpc": ["vpc-1"], "subnet": ["s-1", "s-2", "s-3"], "nat": "n-2", "zone": {"id": "z-2"}, "eip": ["e-1"]}
    assert list(merged_manifest(stored, found)) == ["vpc", "subnet", "nat", "zone", "eip"]


def test_manifest_with_nothing_stored_is_the_one_found():
    assert merged_manifest({}, {"vpc": ["vpc-1"]}) == {"vpc": ["vpc-1"]}
    assert merged_manifest(None, {"vpc": ["vpc-1"]}) == {"vpc": ["vpc-1"]}
    assert merged_manifest('{"vpc": ["vpc-0"]}', {"vpc": ["vpc-1"]}) == {"vpc": ["vpc-0", "vpc-1"]}


def test_manifest_found_must_be_a_mapping():
    with pytest.raises(BaselineError, match="^hosted_cluster_manifest: expects the manifest of aws_infra_inventory"):
        merged_manifest({}, None)


@pytest.mark.parametrize("manifest, runs", [
    ({"AWS::EC2::VPC": ["vpc-1"]}, True),
    ({"AWS::EC2::VPC": [], "AWS::IAM::Role": ["r-1"]}, True),  # IAM only (kept or not by preserve_iam): still runs
    ({}, False),  # the infrastructure is gone (or never was): no AWS request but the inventory's reads
    ({"AWS::EC2::VPC": [], "AWS::EC2::Subnet": []}, False),  # types with no ID name nothing to delete
])
def test_the_aws_cleanup_runs_when_the_manifest_names_a_resource(manifest, runs):
    assert aws_cleanup_runs(manifest) is runs


# stored_read: where Phase 1 read the stored baseline from, then the same check as hosted_cluster_stored_baseline

STORED_TEXT = json.dumps({"cluster": {"uid": "u-1"}, "nodepools": ["demo-a"]}, indent=2, sort_keys=True) + "\n"


def test_the_cleanup_annotation_does_not_decide_whether_the_aws_cleanup_runs():
    """The decision reads the manifest only: a baseline whose cleanup annotation was set before (or with
    destroy_cloud_resources false and no annotation) deletes the cluster's AWS infrastructure all the same, so it
    checks the AWS permissions first all the same."""
    found = identity(HC, STORED, True, "", "", "", "")
    assert found["cleanup_preexisting"] is True
    assert aws_cleanup_runs(merged_manifest(STORED["manifest"], {"AWS::EC2::VPC": ["vpc-1"]})) is True


def test_the_aws_cleanup_decision_refuses_what_is_not_a_manifest():
    with pytest.raises(BaselineError, match="^hosted_cluster_aws_cleanup_runs: expects the baseline's AWS manifest"):
        aws_cleanup_runs(["vpc-1"])


def test_the_creation_time_is_the_hosted_cluster_s_else_the_stored_one():
    hc = dict(HC, metadata=dict(HC["metadata"], creationTimestamp="2026-12-05T01:00:00Z"))
    stored = dict(STORED, cluster=dict(STORED["cluster"], created="2026-12-01T00:00:00Z"))
    assert identity(hc, stored, True)["created"] == "2026-12-05T01:00:00Z"
    assert identity({}, stored, False)["created"] == "2026-12-01T00:00:00Z"  # a resumed run, the HostedCluster gone


# stored_baseline: what the filter hosted_cluster_stored_baseline was, the check stored_read makes

STORED_PATH = "/var/lib/teardown/clusters-demo.baseline.json"

# a baseline as the role's Phase 1 builds it (true, false and null included: the JSON words a Python literal lacks)
BASELINE = {
    "cluster": {"namespace": "clusters", "name": "demo", "uid": "6b1c", "infra_id": "demo-x7k2p", "region": "us-east-1",
                "hcp_namespace": "clusters-demo", "release_image": None, "base_domain": "example.com"},
    "options": {"destroy_cloud_resources": True, "preserve_iam": False, "cluster_grace_period": 900, "resumed": False},
    "annotations": {"cleanup_preexisting": False, "skip_namespace_delete": False},
    "nodepools": ["demo-a", "demo-b"],
    "oidc_bucket": "demo-oidc",
    "versions": {"ansible_core": "2.16.19", "release_image": "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"},
    "recorded_at": "2026-12-03T10:00:00.000Z",
    "manifest": {"AWS::EC2::VPC": ["vpc-0a1b"], "AWS::EC2::Subnet": ["subnet-1", "subnet-2"], "AWS::IAM::Role": []},
}


def stored_as_teardown_report_writes_it(baseline):
    """teardown_report's store_baseline: indented, keys sorted, a newline at the end."""
    return json.dumps(baseline, indent=2, sort_keys=True) + "\n"


def test_the_stored_text_gives_the_baseline():
    assert stored_baseline(stored_as_teardown_report_writes_it(BASELINE), STORED_PATH) == BASELINE


def test_text_and_the_dict_an_older_core_made_of_it_give_the_same_baseline():
    # ansible-core before 2.19 turns a template result that looks like a dict into one (true -> True, null -> None)
    as_text = stored_baseline(stored_as_teardown_report_writes_it(BASELINE), STORED_PATH)
    as_dict = stored_baseline(json.loads(stored_as_teardown_report_writes_it(BASELINE)), STORED_PATH)
    assert as_text == as_dict == BASELINE


def test_bytes_are_read_as_utf8_text():
    assert stored_baseline(json.dumps({"oidc_bucket": "b\u00e9"}).encode("utf-8"), STORED_PATH) == {"oidc_bucket": "b\u00e9"}


@pytest.mark.parametrize("nothing", [None, "", "   ", "\n", b""])
def test_nothing_stored_is_no_baseline(nothing):
    assert stored_baseline(nothing, STORED_PATH) == {}


def test_an_empty_object_is_an_empty_baseline():
    assert stored_baseline("{}", STORED_PATH) == {}


def test_keys_it_does_not_know_are_kept():
    assert stored_baseline('{"recorded_at": "x", "later": [1]}', STORED_PATH) == {"recorded_at": "x", "later": [1]}


@pytest.mark.parametrize("stored, said", [
    ("not json", "is not JSON"),
    ('{"cluster": ', "is not JSON"),
    ("[1, 2]", "holds a list, not a JSON object"),
    ('"text"', "holds text, not a JSON object"),
    ("42", "holds int, not a JSON object"),
    ([{"cluster": {}}], "holds a list, not a JSON object"),
    (42, "holds int, not a JSON object"),
    ('{"cluster": []}', "has a list as cluster, expected a mapping"),
    ('{"nodepools": "demo-a"}', "has text as nodepools, expected a list"),
    ('{"recorded_at": 1}', "has int as recorded_at, expected text"),
    ('{"manifest": null}', "has NoneType as manifest, expected a mapping"),
    ({"manifest": {"AWS::EC2::VPC": "vpc-0a1b"}}, "IDs that are not a list in its manifest, for AWS::EC2::VPC"),
])
def test_anything_else_is_refused_naming_the_file(stored, said):
    with pytest.raises(BaselineError) as e:
        stored_baseline(stored, STORED_PATH)
    msg = str(e.value)
    assert msg.startswith("hosted_cluster_stored_baseline: the stored baseline " + STORED_PATH)
    assert said in msg
    assert "Nothing changed" in msg
