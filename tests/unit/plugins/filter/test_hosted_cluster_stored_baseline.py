# -*- coding: utf-8 -*-
from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.filter.hosted_cluster_destroy_steps import (
    FilterModule, hosted_cluster_stored_baseline)

PATH = "/var/lib/teardown/clusters-demo.baseline.json"

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
    assert hosted_cluster_stored_baseline(stored_as_teardown_report_writes_it(BASELINE), PATH) == BASELINE


def test_text_and_the_dict_an_older_core_made_of_it_give_the_same_baseline():
    # ansible-core before 2.19 turns a template result that looks like a dict into one (true -> True, null -> None)
    as_text = hosted_cluster_stored_baseline(stored_as_teardown_report_writes_it(BASELINE), PATH)
    as_dict = hosted_cluster_stored_baseline(json.loads(stored_as_teardown_report_writes_it(BASELINE)), PATH)
    assert as_text == as_dict == BASELINE


def test_bytes_are_read_as_utf8_text():
    assert hosted_cluster_stored_baseline(json.dumps({"oidc_bucket": "b\u00e9"}).encode("utf-8"), PATH) == {"oidc_bucket": "b\u00e9"}


@pytest.mark.parametrize("nothing", [None, "", "   ", "\n", b""])
def test_nothing_stored_is_no_baseline(nothing):
    assert hosted_cluster_stored_baseline(nothing, PATH) == {}


def test_an_empty_object_is_an_empty_baseline():
    assert hosted_cluster_stored_baseline("{}", PATH) == {}


def test_keys_it_does_not_know_are_kept():
    assert hosted_cluster_stored_baseline('{"recorded_at": "x", "later": [1]}', PATH) == {"recorded_at": "x", "later": [1]}


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
    with pytest.raises(AnsibleFilterError) as e:
        hosted_cluster_stored_baseline(stored, PATH)
    msg = str(e.value)
    assert msg.startswith("hosted_cluster_stored_baseline: the stored baseline " + PATH)
    assert said in msg
    assert "Nothing changed" in msg


def test_registered_as_a_filter():
    assert FilterModule().filters()["hosted_cluster_stored_baseline"] is hosted_cluster_stored_baseline
