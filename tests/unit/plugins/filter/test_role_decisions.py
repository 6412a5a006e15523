# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.filter.role_decisions import FilterModule

FILTERS = FilterModule().filters()


def test_each_filter_is_published():
    assert sorted(FILTERS) == [
        "hosted_cluster_aws_cleanup_runs", "hosted_cluster_aws_verified",
        "hosted_cluster_baseline",
        "hosted_cluster_cli_finalizer_on", "hosted_cluster_input_problems", "hosted_cluster_manifest", "hosted_cluster_report_gates",
        "hosted_cluster_stop_message",
        "hosted_cluster_stop_record",
        "teardown_plan", "teardown_plan_digest_problem", "teardown_plan_restrict", "teardown_plan_verdict"]


def test_hosted_cluster_filters():
    got = FILTERS["hosted_cluster_baseline"]({}, {"cluster": {"region": "eu-west-1"}}, False)
    assert (got["region"], got["infra_id"]) == ("eu-west-1", "")
    assert FILTERS["hosted_cluster_baseline"]({}, {}, False, env_region="us-east-1")["region"] == "us-east-1"
    assert FILTERS["hosted_cluster_manifest"]({"vpc": ["a"]}, {"vpc": ["b"]}) == {"vpc": ["a", "b"]}
    assert FILTERS["hosted_cluster_aws_cleanup_runs"]({"vpc": ["a"]}) is True
    assert FILTERS["hosted_cluster_aws_cleanup_runs"]({}) is False
    message = FILTERS["hosted_cluster_stop_message"]({"gate": "Phase 5 | x", "message": "m"}, "n", "c", "r")
    assert message == "Teardown of HostedCluster n/c stopped at Phase 5 | x: m (phases that never ran: 6 verify.)  Resume: r"
    assert "(baseline b, report p)" in FILTERS["hosted_cluster_stop_message"]({"gate": "g"}, "n", "c", "r", True, "b", "p")


def test_hosted_cluster_stop_record():
    assert FILTERS["hosted_cluster_stop_record"]({}, {"name": "t"}, {"msg": "m"}, "r") == {"gate": "t", "message": "m", "resume": "r"}
    refused = FILTERS["hosted_cluster_stop_record"]({}, {"name": "t"}, {"msg": "m"}, "r",
                                                    {"asked": True, "match": False, "message": "m"})
    assert refused["plan_refused"] is True and refused["resume"].startswith("not with the same variables")


def test_the_wrappers_of_the_roles_records_and_messages():
    assert FILTERS["hosted_cluster_input_problems"]("c", "clusters", "", 600, 900, False, 900, "/r") == ""
    assert FILTERS["hosted_cluster_cli_finalizer_on"]({}, False, True, False) is True
    assert FILTERS["hosted_cluster_report_gates"]({}, [{"name": "g"}], True) == [{"name": "g", "state": "planned"}]
    assert FILTERS["hosted_cluster_aws_verified"]({"verified": True}, [], {}) is True
