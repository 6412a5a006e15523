# -*- coding: utf-8 -*-
"""preflight/targets (#33): the target guards' option checks and their comparison with what was observed."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.preflight import targets as t

UID = "6f1c2a9e-3b1d-4f7e-9c55-0a1b2c3d4e5f"
ME = {"Account": "123456789012", "Arn": "arn:aws:iam::123456789012:user/ops"}


@pytest.mark.parametrize("value", ["12345678901", "1234567890123", "12345678901a", "arn:aws:iam::123456789012:root",
                                   "1234 5678 9012"])
def test_a_malformed_account_id_is_refused_naming_the_option(value):
    with pytest.raises(BadInput, match=r"^expected_aws_account_id: .* not an AWS account ID \(12 digits"):
        t.account_id(value)


def test_an_account_id_is_taken_stripped_and_empty_is_unset():
    assert t.account_id(" 123456789012 ") == "123456789012"
    assert t.account_id("") == ""
    assert t.account_id(None) == ""


@pytest.mark.parametrize("given,by,value", [
    (UID, "uid", UID),
    (UID.upper(), "uid", UID),
    ("https://API.Example.com:443/", "server", "https://api.example.com"),
    ("https://127.0.0.1:6443", "server", "https://127.0.0.1:6443"),
    ("http://h:80/k8s/", "server", "http://h/k8s"),
    ("https://[::1]:6443", "server", "https://[::1]:6443"),
])
def test_a_cluster_is_a_kube_system_uid_or_an_api_server_url(given, by, value):
    c = t.cluster(given)
    assert (c["by"], c["value"], c["given"]) == (by, value, given)


@pytest.mark.parametrize("value", ["mgmt-east", "api.example.com:6443", "ftp://h", "6f1c2a9e3b1d4f7e9c550a1b2c3d4e5f",
                                   "https://h:6443?x=1"])
def test_anything_else_is_refused_naming_the_option_and_what_is_accepted(value):
    with pytest.raises(BadInput, match=r"^expected_management_cluster: .*kube-system namespace.*API server URL"):
        t.cluster(value)


def test_clusters_take_one_value_or_a_list_and_leave_empty_answers_out():
    assert t.clusters(None) == []
    assert t.clusters("") == []
    assert [c["by"] for c in t.clusters([UID, "", "https://h"])] == ["uid", "server"]
    assert [c["by"] for c in t.clusters(UID)] == ["uid"]


def test_no_guard_set_is_not_guarded():
    g = t.guards()
    assert g == {"account": "", "clusters": [], "confirm": "", "required": False}
    assert not t.any_set(g)
    assert t.any_set(t.guards(confirm_account="x"))


@pytest.mark.parametrize("kwargs,option", [
    (dict(expected_aws_account_id="123456789012", touches_aws=False), "expected_aws_account_id"),
    (dict(confirm_account="123456789012", touches_aws=False), "confirm_account"),
    (dict(expected_management_cluster=[UID], touches_kubernetes=False), "expected_management_cluster"),
])
def test_a_guard_the_playbook_could_never_check_is_refused(kwargs, option):
    with pytest.raises(BadInput, match=r"^%s: this playbook sends no " % option):
        t.guards(**kwargs)


def test_required_guards_name_every_missing_option():
    with pytest.raises(BadInput) as e:
        t.guards(required=True)
    text = str(e.value)
    assert text.startswith("expected_aws_account_id: required with sweep_delete: true")
    assert "; expected_management_cluster: required with sweep_delete: true" in text
    assert "; confirm_account: required with sweep_delete: true: type the AWS account ID" in text
    assert text.endswith("nothing was sent")


@pytest.mark.parametrize("confirm", ["", "  ", None])
def test_an_empty_confirmation_is_refused_when_required(confirm):
    with pytest.raises(BadInput, match=r"^confirm_account: required with sweep_delete: true") as e:
        t.guards("123456789012", [UID], confirm, required=True)
    assert "expected_aws_account_id" not in str(e.value)


def test_required_guards_all_given_pass():
    g = t.guards("123456789012", UID, "123456789012", required=True)
    assert g["account"] == "123456789012" and g["confirm"] == "123456789012" and g["required"]


def test_the_right_target_has_no_problem():
    g = t.guards("123456789012", [UID, "https://other:6443"], "my-alias")
    assert t.problems(g, ME, ["my-alias"], [{"context": None, "uid": UID, "server": "https://x:6443"},
                                            {"context": "b", "uid": "other", "server": "https://OTHER:6443/"}]) == []


def test_a_wrong_account_names_the_option_expected_and_observed():
    g = t.guards("210987654321")
    assert t.problems(g, ME) == [
        "expected_aws_account_id: expected 210987654321, but the credentials are those of account 123456789012 "
        "(arn:aws:iam::123456789012:user/ops)"]


def test_a_wrong_confirmation_names_the_option_the_account_and_its_aliases():
    g = t.guards(confirm_account="prod")
    found = t.problems(g, ME, ["staging"])
    assert found == ["confirm_account: typed 'prod', which is neither the account ID 123456789012 nor its alias "
                     "(staging): type one of them to confirm the account the run deletes in"]
    assert "the account has none" in t.problems(g, ME, [])[0]
    assert t.problems(t.guards(confirm_account="123456789012"), ME, None) == []


def test_a_wrong_cluster_names_the_option_expected_context_uid_and_server():
    g = t.guards(expected_management_cluster=[UID])
    found = t.problems(g, None, None, [{"context": "mgmt", "uid": "0000", "server": "https://h:6443"}])
    assert found == ["expected_management_cluster: expected %s, but the management cluster (context mgmt) is "
                     "kube-system UID 0000 at https://h:6443" % UID]
    # by server: the UID does not matter
    g = t.guards(expected_management_cluster="https://h:6443")
    assert t.problems(g, None, None, [{"context": None, "uid": "0000", "server": "https://H:6443/"}]) == []
    assert t.problems(g, None, None, [{"context": None, "uid": UID, "server": "https://h:7443"}])


def test_every_problem_is_named_in_option_order():
    g = t.guards("210987654321", [UID], "nope")
    found = t.problems(g, ME, [], [{"context": None, "uid": "x", "server": "https://h"}])
    assert [f.split(":")[0] for f in found] == ["expected_aws_account_id", "confirm_account",
                                                "expected_management_cluster"]
    assert t.refused_message(found).startswith("refused before any change, the target is not the one the guards name")
