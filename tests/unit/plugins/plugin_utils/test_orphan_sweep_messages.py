# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.orphan_sweep_messages import (
    orphan_sweep_failed_message, orphan_sweep_found_message, orphan_sweep_unread_message)

REPORT = "/var/tmp/reports/orphan-sweep-eu-west-1-20260102T030405Z.json"


def _context(context, ok, clusters=0, error=None):
    return {"context": context, "ok": ok, "error": error,
            "hosted_clusters": [{"namespace": "clusters", "name": "hc-%d" % i, "infra_id": "demo-%d" % i} for i in range(clusters)]}


def _infra_id(infra_id, status, reason, total, age):
    return {"infra_id": infra_id, "status": status, "reason": reason, "evidence": [], "manifest": {}, "total": total,
            "oldest_created": None, "age_seconds": age, "protected": [], "not_covered": []}


# as aws_orphan_inventory returns it, reduced to what the messages read
FOUND = {
    "management": [_context("mgmt-a", True, 3), _context("mgmt-b", False, error="401 Unauthorized"), _context("mgmt-c", False)],
    "infra_ids": [_infra_id("demo-0", "live", "HostedCluster clusters/hc-0 owns it", 0, None),
                  _infra_id("old-1", "orphan", "no HostedCluster owns it", 12, 86400),
                  _infra_id("new-2", "young", "younger than min_age", 3, 0),
                  _infra_id("odd-3", None, None, None, None)],
    "orphans": ["old-1"], "management_known": False, "min_age_seconds": 3600,
}


def test_found_names_each_context_and_infra_id_then_the_orphans_to_sweep():
    assert orphan_sweep_found_message(FOUND, True) == (
        "context mgmt-a: 3 HostedClusters; context mgmt-b: NOT READ (401 Unauthorized); context mgmt-c: NOT READ (None);  "
        "demo-0: live (HostedCluster clusters/hc-0 owns it); old-1: orphan (no HostedCluster owns it), 12 resources, age 86400 s; "
        "new-2: young (younger than min_age), 3 resources, age 0 s; odd-3:  ();  1 orphan(s) to sweep.")


def test_found_nothing_and_nothing_to_sweep():
    found = {"management": [_context(None, True)], "infra_ids": [], "orphans": []}
    assert orphan_sweep_found_message(found) == "context : 0 HostedClusters;   0 orphan(s)."
    assert orphan_sweep_found_message(found, False) == "context : 0 HostedClusters;   0 orphan(s)."


def test_unread_names_each_context_not_read_and_the_report():
    assert orphan_sweep_unread_message(FOUND["management"], REPORT) == (
        "context mgmt-b: 401 Unauthorized; context mgmt-c: ;  nothing was swept. Report: " + REPORT)


def test_unread_of_every_context_read():
    assert orphan_sweep_unread_message([_context("mgmt-a", True)], REPORT) == " nothing was swept. Report: " + REPORT


def test_failed_names_each_failed_infra_id_and_the_report():
    results = [{"infra_id": "old-1", "outcome": "failed", "reason": "AWS::EC2::VPC vpc-1 left: DependencyViolation", "resources": []},
               {"infra_id": "old-2", "outcome": "destroyed", "reason": "every resource verified absent by ID", "resources": []},
               {"infra_id": "old-3", "outcome": "left_alone", "reason": "a HostedCluster owns it now", "resources": []},
               {"infra_id": "old-4", "outcome": "failed", "reason": None, "resources": []}]
    assert orphan_sweep_failed_message(results, REPORT) == (
        "old-1: AWS::EC2::VPC vpc-1 left: DependencyViolation; old-4: ; Report: " + REPORT + ". A re-run resumes.")


def test_failed_of_no_failure():
    assert orphan_sweep_failed_message([], REPORT) == "Report: " + REPORT + ". A re-run resumes."


@pytest.mark.parametrize("call, name", [
    (lambda: orphan_sweep_found_message(["demo-0"]), "orphan_sweep_found_message"),
    (lambda: orphan_sweep_found_message({"management": "mgmt-a", "infra_ids": []}), "orphan_sweep_found_message"),
    (lambda: orphan_sweep_unread_message(None, REPORT), "orphan_sweep_unread_message"),
    (lambda: orphan_sweep_failed_message({"infra_id": "old-1"}, REPORT), "orphan_sweep_failed_message"),
])
def test_refuses_what_it_cannot_read(call, name):
    with pytest.raises(AnsibleFilterError, match=name + ": expects"):
        call()
