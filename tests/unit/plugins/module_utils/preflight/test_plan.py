# -*- coding: utf-8 -*-
"""The approved plan (#33): a plan as data in canonical form, its digest stable while the world is, a change in
scope changing it, and a difference worded for a person."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as p

VPC, SUBNET, ROLE = "AWS::EC2::VPC", "AWS::EC2::Subnet", "AWS::IAM::Role"


def sample(entries=None, options=None, keep=()):
    entries = entries if entries is not None else [
        p.entry(1, "delete", SUBNET, "subnet-1", of="infra-a"),
        p.entry(2, "delete", VPC, "vpc-1", of="infra-a"),
    ]
    return p.build("orphan_sweep", {"region": "us-east-1"}, options or {"preserve_iam": False}, entries,
                   [p.at_run_time("late tags", "the re-check")], keep)


def test_the_digest_is_sha256_hex_of_the_canonical_json():
    d = p.plan_digest(sample())
    assert len(d) == 64 and int(d, 16) >= 0
    assert p.digest_problem(d) == ""


def test_same_world_same_digest_whatever_the_listing_order():
    a = sample()
    b = sample(entries=list(reversed(a["entries"])))
    assert p.plan_digest(a) == p.plan_digest(b)
    # a plan read back from a report's JSON (another dict order) too
    assert p.plan_digest(json.loads(json.dumps(a, sort_keys=False))) == p.plan_digest(a)


def test_timestamps_and_durations_are_not_part_of_the_plan():
    a = sample()
    b = dict(sample(), started="2026-12-04T10:00:00Z")
    b["options"] = dict(b["options"], duration_seconds=12)
    assert p.plan_digest(a) == p.plan_digest(b)


def test_a_resource_tagged_into_scope_changes_the_digest_and_the_diff_names_it():
    old = sample()
    new = sample(entries=old["entries"] + [p.entry(1, "delete", SUBNET, "subnet-2", of="infra-a")])
    assert p.plan_digest(old) != p.plan_digest(new)
    d = p.diff(old, new)
    assert [e["id"] for e in d["added"]] == ["subnet-2"]
    assert d["removed"] == [] and d["changed"] == []
    assert d["lines"] == ["added: delete %s subnet-2 (of infra-a), step 1" % SUBNET]


def test_the_diff_names_removed_changed_options_and_kept():
    old = sample()
    new = sample(entries=[p.entry(3, "delete", VPC, "vpc-1", of="infra-a")], options={"preserve_iam": True},
                 keep=[p.kept(ROLE, "role-1", "preserve_iam")])
    d = p.diff(old, new)
    assert [e["id"] for e in d["removed"]] == ["subnet-1"]
    assert d["changed"][0]["to"]["order"] == 3
    assert d["options"] == ["preserve_iam"]
    text = "\n".join(d["lines"])
    assert "option preserve_iam: false -> true" in text
    assert "removed: delete %s subnet-1" % SUBNET in text
    assert "changed: delete %s vpc-1 (of infra-a), step 2 -> delete %s vpc-1 (of infra-a), step 3" % (VPC, VPC) in text
    assert "now kept: %s role-1 (preserve_iam)" % ROLE in text


def test_equal_plans_have_no_difference():
    assert p.diff(sample(), sample())["lines"] == []


@pytest.mark.parametrize("bad", ["abc", "g" * 64, "a" * 63, 12, ["a" * 64]])
def test_a_malformed_digest_names_the_option(bad):
    assert p.digest_problem(bad).startswith("approved_plan_digest: must be the 64 hexadecimal characters")
    with pytest.raises(p.PlanError, match="approved_plan_digest"):
        p.verdict(sample(), bad)


def test_no_digest_asks_nothing():
    v = p.verdict(sample(), "")
    assert v["asked"] is False and v["match"] is True and v["plan_digest"] == p.plan_digest(sample())


def test_the_approved_digest_matches_and_proceeds():
    v = p.verdict(sample(), p.plan_digest(sample()).upper())
    assert v["match"] is True and "proceeding" in v["message"]


def test_a_mismatch_against_the_approved_plan_names_the_difference():
    old = sample()
    new = sample(entries=old["entries"] + [p.entry(1, "delete", SUBNET, "subnet-2", of="infra-a")])
    v = p.verdict(new, p.plan_digest(old), approved_plan=old)
    assert v["match"] is False
    assert "Refused before any change" in v["message"]
    assert "added: delete %s subnet-2" % SUBNET in v["message"]
    assert "from approved_plan" in v["message"]


def test_an_approved_plan_that_is_not_the_approved_digest_is_not_diffed_against():
    other = sample(options={"preserve_iam": True})
    v = p.verdict(sample(), "0" * 64, approved_plan=other)
    assert v["match"] is False and v["diff"] is None
    assert "cannot be named" in v["message"] and "subnet-1" in v["message"]


def test_a_mismatch_finds_the_approved_plan_in_the_check_runs_report(tmp_path):
    old = sample()
    new = sample(entries=old["entries"][:1])
    (tmp_path / "orphan-sweep-1.json").write_text(json.dumps({"plan": old, "plan_digest": p.plan_digest(old)}))
    (tmp_path / "broken.json").write_text("{")
    v = p.verdict(new, p.plan_digest(old), report_dir=str(tmp_path))
    assert v["match"] is False
    assert "report in report_dir" in v["message"]
    assert [e["id"] for e in v["diff"]["removed"]] == ["vpc-1"]


def test_canonical_refuses_what_is_not_a_plan():
    with pytest.raises(p.PlanError):
        p.canonical(["not", "a", "plan"])
