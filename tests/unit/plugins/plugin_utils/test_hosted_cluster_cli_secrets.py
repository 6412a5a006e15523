# -*- coding: utf-8 -*-
"""The Secrets `hypershift create cluster` made, which the destroy deletes in Phase 5 as `destroy cluster` does (HC-13):
what is listed (the exact label, never a prefix), what the list and the deletes leave on record, and the line."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.hosted_cluster_cli_secrets import (
    cli_secrets_deleted, cli_secrets_found, cli_secrets_message, cli_secrets_reads, cli_secrets_stopped, selector)

LABEL = "hypershift.openshift.io/auto-created-for-infra"
INFRA = "demo-x7k2p"
SELECTOR = LABEL + "=" + INFRA
ITEM = {"api_version": "v1", "kind": "Secret", "namespace": "clusters", "label_selector": SELECTOR}


def _listed(*secrets, **kw):
    """deletion_info's result on the one list of cli_secrets_reads: each secret (name, uid) listed."""
    listed = [{"name": n, "namespace": "clusters", "uid": u, "deleting": False, "finalizers": []} for n, u in secrets]
    answer = {"item": ITEM, "state": "present" if secrets else "absent", "names": [n for n, dummy in secrets],
              "count": len(secrets), "listed": listed}
    answer.update(kw)
    return {"changed": False, "state": answer["state"], "objects": [answer]}


def _deletes(*rows):
    """wait_gate's looped result (failed_when: false): each row (name, uid, answer)."""
    return {"changed": any(a.get("changed") for dummy, dummy2, a in rows), "results": [
        dict(a, item={"name": n, "uid": u}, ansible_loop_var="item") for n, u, a in rows]}


PASSED = [{"name": "Secret gone", "state": "passed"}]
DELETED = {"changed": True, "deletion": {"state": "deleted", "query": {"ok": True}}, "gates": PASSED}
GONE = {"changed": False, "deletion": {"state": "absent", "query": {"ok": True}}, "gates": PASSED}
REFUSED = {"changed": False, "failed": True, "failed_when_result": False,
           "deletion": {"state": "refused",
                        "query": {"ok": False, "error": "HTTP 409: Precondition failed: UID in precondition"}},
           "gates": [], "msg": "the deletion of Secret clusters/x was refused: HTTP 409: Precondition failed: UID in "
                               "precondition"}


def test_the_selector_is_the_label_equal_to_the_infra_id_and_never_a_prefix_or_a_wider_selector():
    assert selector(INFRA) == SELECTOR
    # the neighbour <infraID>-2 is another value of the same label: an equality selector does not match it
    assert selector(INFRA + "-2") == SELECTOR + "-2"
    for bad in ("", "demo,other", "demo!", "a" * 64, "-demo", "demo in (a,b)", None):
        assert selector(bad) == ""


def test_reads_list_the_secrets_of_the_namespace_by_the_label_and_none_for_an_infrastructure_only_destroy():
    assert cli_secrets_reads("demo", "clusters", INFRA) == [ITEM]
    assert cli_secrets_reads("", "clusters", INFRA) == []        # no HostedCluster name: the CLI's destroy infra deletes none
    assert cli_secrets_reads("demo", "clusters", "") == []       # no infra ID, nothing can carry its label
    assert cli_secrets_reads("demo", "clusters", "x,y") == []


def test_found_takes_each_listed_secret_by_name_and_uid_sorted():
    record = cli_secrets_found(_listed(("demo-ssh-key", "u-2"), ("demo-pull-secret", "u-1")), "clusters", INFRA)
    assert record == {"namespace": "clusters", "selector": SELECTOR, "listed": True, "error": "",
                      "secrets": [{"name": "demo-pull-secret", "uid": "u-1"}, {"name": "demo-ssh-key", "uid": "u-2"}],
                      "deleted": [], "absent": [], "planned": [], "failed": []}
    # its result as text (ansible-core 2.16 hands a registered result over so)
    assert cli_secrets_found(json.dumps(_listed(("a", "u"))), "clusters", INFRA)["secrets"] == [{"name": "a", "uid": "u"}]


@pytest.mark.parametrize("result, infra_id", [
    ({"changed": False, "skipped": True, "skip_reason": "Conditional result was False"}, INFRA),  # no HostedCluster name
    ({}, ""),  # no infra ID
])
def test_found_nothing_to_list_is_none_of_them(result, infra_id):
    record = cli_secrets_found(result, "clusters", infra_id)
    assert record["listed"] and record["secrets"] == [] and record["error"] == ""
    assert not cli_secrets_stopped(cli_secrets_deleted(record, {}, False))


@pytest.mark.parametrize("result, error", [
    (_listed(state="unknown", msg="could not list Secret in clusters (HTTP 403: missing permission: list secrets in "
                                  "namespace clusters): what is left is unknown, not nothing"), "HTTP 403: missing permission"),
    # the module failed while it built its client: no answer at all
    ({"failed": False, "msg": "the API server https://k:6443 did not answer in 30 s"}, "did not answer"),
])
def test_a_list_without_an_answer_is_unknown_never_none_and_stops_the_run(result, error):
    record = cli_secrets_found(result, "clusters", INFRA)
    assert not record["listed"] and record["secrets"] == [] and error in record["error"]
    record = cli_secrets_deleted(record, {"skipped": True, "results": []}, False)
    assert cli_secrets_stopped(record)
    message = cli_secrets_message(record)
    assert message.startswith("could not list the Secrets labelled %s in clusters: " % SELECTOR)
    assert message.endswith("unknown, not none; the CLI finalizer stays on")


def test_deleted_records_each_secret_by_name_deleted_already_gone_or_failed():
    found = cli_secrets_found(_listed(("demo-etcd-encryption-key", "u-3"), ("demo-pull-secret", "u-1"),
                                      ("demo-ssh-key", "u-2")), "clusters", INFRA)
    record = cli_secrets_deleted(found, _deletes(("demo-etcd-encryption-key", "u-3", DELETED), ("demo-pull-secret", "u-1", GONE),
                                                 ("demo-ssh-key", "u-2", REFUSED)), False)
    assert record["deleted"] == ["demo-etcd-encryption-key"]
    assert record["absent"] == ["demo-pull-secret"]
    assert record["failed"] == [{"name": "demo-ssh-key", "error": REFUSED["msg"]}]
    assert record["planned"] == []
    assert cli_secrets_stopped(record)
    assert cli_secrets_message(record) == (
        "deleted the Secrets labelled %s in clusters: demo-etcd-encryption-key; already gone: demo-pull-secret; "
        "could not delete demo-ssh-key (%s)" % (SELECTOR, REFUSED["msg"]))


def test_a_delete_accepted_but_not_read_gone_is_failed_not_deleted():
    found = cli_secrets_found(_listed(("demo-pull-secret", "u-1")), "clusters", INFRA)
    timed_out = dict(DELETED, failed=True, gates=[{"name": "Secret gone", "state": "timeout"}],
                     msg="gate Secret demo-pull-secret gone: timeout after 60 s (1 object remains)")
    record = cli_secrets_deleted(found, _deletes(("demo-pull-secret", "u-1", timed_out)), False)
    assert record["deleted"] == [] and record["failed"] == [{"name": "demo-pull-secret", "error": timed_out["msg"]}]
    assert cli_secrets_stopped(record)


def test_deleted_all_is_no_stop_and_a_rerun_with_none_left_changes_nothing():
    found = cli_secrets_found(_listed(("demo-pull-secret", "u-1"), ("demo-ssh-key", "u-2")), "clusters", INFRA)
    record = cli_secrets_deleted(found, _deletes(("demo-pull-secret", "u-1", DELETED), ("demo-ssh-key", "u-2", DELETED)), False)
    assert record["deleted"] == ["demo-pull-secret", "demo-ssh-key"] and not cli_secrets_stopped(record)
    # the re-run: the list finds none, the loop has nothing to do
    again = cli_secrets_deleted(cli_secrets_found(_listed(), "clusters", INFRA), {"changed": False, "results": [],
                                                                                  "skipped": True}, False)
    assert (again["deleted"], again["absent"], again["failed"]) == ([], [], []) and not cli_secrets_stopped(again)
    assert cli_secrets_message(again) == "none of the Secrets labelled %s in clusters is left: nothing to delete" % SELECTOR


def test_check_mode_plans_every_listed_secret_and_sent_nothing():
    found = cli_secrets_found(_listed(("demo-pull-secret", "u-1"), ("demo-ssh-key", "u-2")), "clusters", INFRA)
    skipped = _deletes(("demo-pull-secret", "u-1", {"skipped": True}), ("demo-ssh-key", "u-2", {"skipped": True}))
    record = cli_secrets_deleted(found, skipped, True)
    assert record["planned"] == ["demo-pull-secret", "demo-ssh-key"]
    assert (record["deleted"], record["absent"], record["failed"]) == ([], [], [])
    assert cli_secrets_message(record) == "would delete the Secrets labelled %s in clusters: demo-pull-secret, demo-ssh-key" % SELECTOR
    assert not cli_secrets_stopped(record)


def test_an_infrastructure_only_destroy_says_there_is_nothing_of_the_cli_to_delete():
    record = cli_secrets_deleted(cli_secrets_found({"skipped": True}, "clusters", ""), {}, False)
    assert record["selector"] == "" and cli_secrets_message(record).startswith("no Secret the CLI made to delete")


def test_bad_input_names_the_step():
    with pytest.raises(AnsibleFilterError, match="hosted_cluster_cli_secrets_found: expects the result of Phase 5's deletion_info"):
        cli_secrets_found(["not", "a", "result"], "clusters", INFRA)
    with pytest.raises(AnsibleFilterError, match="hosted_cluster_cli_secrets_deleted: expects the deletes' results"):
        cli_secrets_deleted({}, {"results": "x"}, False)
