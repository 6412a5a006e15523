# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.hosted_cluster_verify import (
    verification_checks, verification_message)

HS = "hypershift.openshift.io/v1beta1"
HC_ITEM = {"api_version": HS, "kind": "HostedCluster", "namespace": "clusters", "name": "demo"}
NS_ITEM = {"api_version": "v1", "kind": "Namespace", "name": "clusters-demo"}
NP_ITEM = {"api_version": HS, "kind": "NodePool", "namespace": "clusters", "match": {"spec.clusterName": "demo"}}
CONTENTS = [{"kind": "Machine", "name": "demo-a-1"}, {"kind": "Machine", "name": "demo-a-2"}, {"kind": "Pod", "name": "kas-0"},
            {"kind": "Service", "name": "kas"}]


def _answer(item, state, **kw):
    answer = {"item": item, "state": state, "query": {"ok": state != "unknown", "error": None}, "finalizers": [], "conditions": []}
    answer.update(kw)
    return answer


def _nodepools(names=None, failed=None):
    """deletion_info's list answer for the NodePools (``failed``: the msg of a list that got no answer)."""
    if failed:
        return _answer(NP_ITEM, "unknown", query={"ok": False, "error": "timed out"}, msg=failed, names=[], count=0)
    return _answer(NP_ITEM, "present" if names else "absent", names=names or [], count=len(names or []))


def test_checks_when_everything_is_gone():
    checks = verification_checks([_answer(HC_ITEM, "absent"), _answer(NS_ITEM, "absent"), _nodepools()],
                                 "demo", "clusters", False)
    assert checks == [
        {"what": "HostedCluster clusters/demo", "state": "absent", "count": 0, "names": [], "error": ""},
        {"what": "Namespace clusters-demo and everything in it", "state": "absent", "count": 0, "names": [], "error": ""},
        {"what": "NodePools of demo in clusters", "state": "absent", "count": 0, "names": [], "error": ""}]


def test_checks_of_unknown_reads_and_a_failed_nodepool_list():
    checks = verification_checks(
        [_answer(HC_ITEM, "unknown", query={"ok": False, "error": "HTTP 503"}), _answer(HC_ITEM, "present"),
         _answer(NS_ITEM, "unknown", query={"ok": False, "error": None}), _nodepools(failed="could not list NodePools")],
        "demo", "clusters", False)
    assert [(c["state"], c["count"], c["names"], c["error"]) for c in checks] == [
        ("unknown", 0, [], "HTTP 503"), ("present", 1, ["demo"], ""), ("unknown", 0, [], ""),
        ("unknown", 0, [], "could not list NodePools")]


@pytest.mark.parametrize("complete, retained, other_state, missing_state, ns_state", [
    (True, False, "present", "absent", "present"),
    (False, False, "present", "unknown", "present"),
    (True, True, "retained", "absent", "retained"),
])
def test_checks_of_a_namespace_still_there_kind_by_kind(complete, retained, other_state, missing_state, ns_state):
    checks = verification_checks(
        [_answer(NS_ITEM, "present", namespace={"contents": CONTENTS, "contents_complete": complete}), _nodepools(["demo-a"])],
        "demo", "clusters", retained)
    by_what = dict((c["what"], c) for c in checks)
    assert [c["what"] for c in checks][:3] == ["HostedControlPlane in clusters-demo", "Machine in clusters-demo", "AWSMachine in clusters-demo"]
    assert len(checks) == 9 + 3
    assert by_what["Machine in clusters-demo"] == {"what": "Machine in clusters-demo", "state": "present", "count": 2,
                                                   "names": ["demo-a-1", "demo-a-2"], "error": ""}
    assert by_what["AWSMachine in clusters-demo"]["state"] == missing_state
    assert by_what["other objects in clusters-demo (pods, Services, PVCs ...)"] == {
        "what": "other objects in clusters-demo (pods, Services, PVCs ...)", "state": other_state, "count": 2,
        "names": ["Pod kas-0", "Service kas"], "error": ""}
    assert by_what["Namespace clusters-demo"] == {"what": "Namespace clusters-demo", "state": ns_state, "count": 1,
                                                  "names": ["clusters-demo"], "error": ""}
    assert checks[-1] == {"what": "NodePools of demo in clusters", "state": "present", "count": 1, "names": ["demo-a"], "error": ""}


SECRET_ITEM = {"api_version": "v1", "kind": "Secret", "namespace": "clusters",
               "label_selector": "hypershift.openshift.io/auto-created-for-infra=demo-x7k2p"}
SECRETS_WHAT = "Secrets labelled hypershift.openshift.io/auto-created-for-infra=demo-x7k2p in clusters"


@pytest.mark.parametrize("answer, want", [
    (_answer(SECRET_ITEM, "absent", names=[], count=0),
     {"what": SECRETS_WHAT, "state": "absent", "count": 0, "names": [], "error": ""}),
    (_answer(SECRET_ITEM, "present", names=["demo-pull-secret"], count=1),
     {"what": SECRETS_WHAT, "state": "present", "count": 1, "names": ["demo-pull-secret"], "error": ""}),
    (_answer(SECRET_ITEM, "unknown", msg="could not list Secret in clusters: HTTP 403", names=[], count=0),
     {"what": SECRETS_WHAT, "state": "unknown", "count": 0, "names": [], "error": "could not list Secret in clusters: HTTP 403"}),
])
def test_the_cli_secrets_are_checked_last_and_apart_from_the_nodepools(answer, want):
    checks = verification_checks([_answer(HC_ITEM, "absent"), _answer(NS_ITEM, "absent"), _nodepools(), answer],
                                 "demo", "clusters", False)
    assert [c["what"] for c in checks[:3]] == [
        "HostedCluster clusters/demo", "Namespace clusters-demo and everything in it", "NodePools of demo in clusters"]
    assert checks[2]["state"] == "absent"  # the Secret list is not taken for the NodePools'
    assert checks[3:] == [want]
    assert ("%s: %s" % (SECRETS_WHAT, want["state"])) in verification_message(checks, {"verified": True}, {})


def test_checks_of_an_empty_namespace_listed_in_full():
    checks = verification_checks([_answer(NS_ITEM, "present", namespace={"contents": [], "contents_complete": True})],
                                 "", "clusters", False)
    assert set(c["state"] for c in checks[:10]) == {"absent"} and checks[10]["state"] == "present"
    assert checks[-1]["what"] == "NodePools of  in clusters"


def test_nodepools_never_listed_for_a_named_cluster_are_unknown_not_absent():
    checks = verification_checks([_answer(HC_ITEM, "absent"), _answer(NS_ITEM, "absent")], "demo", "clusters", False)
    assert checks[-1] == {"what": "NodePools of demo in clusters", "state": "unknown", "count": 0, "names": [],
                          "error": "the NodePools were not listed"}


MANIFEST = {"AWS::EC2::VPC": ["vpc-1"], "AWS::EC2::Subnet": ["subnet-1"]}
CHECKS = [{"what": "HostedCluster clusters/demo", "state": "present", "count": 1, "names": ["demo"], "error": ""},
          {"what": "NodePools of demo in clusters", "state": "absent", "count": 0, "names": [], "error": ""}]


def test_verification_message_with_ids_still_there():
    aws = {"verified": False, "resources": [{"id": "vpc-1", "outcome": "planned"}, {"id": "subnet-1", "outcome": "absent"}]}
    assert verification_message(CHECKS, aws, MANIFEST) == (
        "HostedCluster clusters/demo: present (demo); NodePools of demo in clusters: absent; AWS: NOT verified: vpc-1")


@pytest.mark.parametrize("aws, manifest, verdict", [
    ({"verified": True, "resources": []}, MANIFEST, "every tracked ID absent or terminal"),
    ({"skipped": True}, {}, "every tracked ID absent or terminal"),
    ({}, MANIFEST, "NOT verified: query failed"),
    ({"failed": True, "msg": "AccessDenied"}, MANIFEST, "NOT verified: AccessDenied"),
    ({"verified": None, "msg": None}, MANIFEST, "NOT verified: None"),
])
def test_verification_message_aws_verdict(aws, manifest, verdict):
    assert verification_message([], aws, manifest) == "AWS: " + verdict


@pytest.mark.parametrize("call", [
    lambda: verification_checks({}, "demo", "clusters", False),
    lambda: verification_checks(None, "demo", "clusters", False),
    lambda: verification_message([], "failed", {}),
])
def test_refuses_input_of_the_wrong_type(call):
    with pytest.raises(AnsibleFilterError, match="expects"):
        call()
