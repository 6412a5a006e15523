# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.orphan_sweep_outcome import (
    UNREAD, VERIFIED, outcome, recheck_verdict, record, sweep_verified)

ID = "demo-x1y2z"
SKIPPED = {"changed": False, "skipped": True, "skip_reason": "Conditional result was False"}


def recheck(known=True, *entries):
    return {"management_known": known, "infra_ids": list(entries)}


def cleanup(*outcomes, **over):
    result = {"changed": True, "plan": ["vpc"], "verified": True,
              "resources": [{"type": "vpc", "id": "vpc-%d" % i, "outcome": o, "verified_state": "absent", "extra": 1}
                            for i, o in enumerate(outcomes)]}
    result.update(over)
    return result


def test_recheck_orphan_again_is_still_one():
    assert recheck_verdict(recheck(True, {"infra_id": ID, "status": "orphan"}), ID) == {"still": True, "why_not": ""}


def test_recheck_that_no_longer_reports_it_is_still_one():
    assert recheck_verdict(recheck(True, {"infra_id": "other", "status": "claimed"}), ID) == {"still": True, "why_not": ""}


def test_recheck_claimed_since_is_left_alone_with_its_reason():
    verdict = recheck_verdict(recheck(True, {"infra_id": ID, "status": "claimed", "reason": "HostedCluster a/b"}), ID)
    assert verdict == {"still": False, "why_not": "HostedCluster a/b"}


@pytest.mark.parametrize("known", [False, "False", None])
def test_recheck_with_a_management_cluster_unread_is_left_alone(known):
    assert recheck_verdict(recheck(known, {"infra_id": ID, "status": "orphan"}), ID) == {"still": False, "why_not": UNREAD}


def test_recheck_known_as_text_on_ansible_core_2_16():
    assert recheck_verdict({"management_known": "True", "infra_ids": []}, ID)["still"] is True


def test_recheck_that_is_not_a_mapping_is_refused():
    with pytest.raises(AnsibleFilterError, match="^orphan_sweep_recheck_verdict: expects"):
        recheck_verdict("x", ID)


@pytest.mark.parametrize("aws_result, still, check, expected", [
    (cleanup("deleted"), False, False, "left_alone"),
    (cleanup("deleted"), "False", False, "left_alone"),
    (SKIPPED, True, True, "planned"),
    (SKIPPED, True, False, "nothing_to_delete"),
    ({}, True, False, "nothing_to_delete"),
    (cleanup("deleted", msg="AccessDenied"), True, False, "failed"),
    ({"failed": True, "msg": "no credentials"}, True, False, "failed"),
    (cleanup("deleted", verified=False), True, False, "failed"),
    (cleanup("deleted", "absent"), True, False, "destroyed"),
    (cleanup("absent"), "True", "False", "already_gone"),
    (cleanup(), True, False, "already_gone"),
])
def test_outcome(aws_result, still, check, expected):
    assert outcome(aws_result, still, check) == expected


def test_record_of_a_destroyed_orphan_names_the_ids_that_remain():
    # the outcome follows the cleanup's own verdict (no msg, verified); a failed ID is listed as remaining
    assert record(ID, cleanup("deleted", "failed"), True, "", False, "2026-01-01T00:00:00.000Z") == {
        "infra_id": ID, "outcome": "destroyed", "reason": VERIFIED, "verified": True, "remaining": ["vpc-1"], "plan": ["vpc"],
        "resources": [{"type": "vpc", "id": "vpc-0", "outcome": "deleted", "verified_state": "absent"},
                      {"type": "vpc", "id": "vpc-1", "outcome": "failed", "verified_state": "absent"}],
        "finished": "2026-01-01T00:00:00.000Z"}


def test_record_reason_of_each_outcome():
    assert record(ID, cleanup("deleted"), True, "", False, "t")["reason"] == VERIFIED
    assert record(ID, cleanup("absent"), True, "", False, "t")["reason"] == VERIFIED
    assert record(ID, SKIPPED, False, "claimed", False, "t")["reason"] == "claimed"
    assert record(ID, cleanup("deleted", msg="AccessDenied"), True, "", False, "t")["reason"] == "AccessDenied"
    assert record(ID, SKIPPED, True, "", False, "t")["reason"] == ""
    assert record(ID, cleanup("deleted"), True, "", True, "t")["reason"] == ""


def test_record_verified_only_outside_check_mode_and_when_the_cleanup_ran_clean():
    assert record(ID, cleanup("deleted"), True, "", True, "t")["verified"] is False
    assert record(ID, SKIPPED, True, "", False, "t")["verified"] is False
    assert record(ID, cleanup("deleted", msg="x"), True, "", False, "t")["verified"] is False
    assert record(ID, cleanup("deleted", verified=False), True, "", False, "t")["verified"] is False


def test_record_of_a_skipped_cleanup_has_no_plan_nor_resources():
    got = record(ID, SKIPPED, True, "", False, "t")
    assert (got["plan"], got["resources"], got["remaining"]) == ([], [], [])


def test_record_takes_none_for_a_missing_result():
    assert record(ID, None, True, "", False, "t")["outcome"] == "nothing_to_delete"


def test_record_of_a_result_that_is_not_a_mapping_is_refused():
    with pytest.raises(AnsibleFilterError, match="^orphan_sweep_record: expects the result of aws_infra_cleanup"):
        record(ID, ["x"], True, "", False, "t")


def test_sweep_verified_when_every_destroyed_one_is_verified_and_nothing_unknown_nor_failed():
    results = [{"outcome": "destroyed", "verified": True}, {"outcome": "left_alone", "verified": False},
               {"outcome": "already_gone", "verified": True}]
    assert sweep_verified(results, [{"status": "orphan"}, {"status": "young"}]) is True
    assert sweep_verified([], []) is True
    assert sweep_verified([], None) is True


@pytest.mark.parametrize("results, infra_ids", [
    ([{"outcome": "destroyed", "verified": True}, {"outcome": "destroyed", "verified": False}], []),
    ([{"outcome": "destroyed", "verified": True}], [{"status": "unknown"}]),
    ([{"outcome": "failed", "verified": False}], []),
])
def test_sweep_not_verified(results, infra_ids):
    assert sweep_verified(results, infra_ids) is False


def test_sweep_verified_refuses_records_that_are_not_a_list():
    with pytest.raises(AnsibleFilterError, match="^orphan_sweep_verified: expects the sweep's records"):
        sweep_verified({}, [])
