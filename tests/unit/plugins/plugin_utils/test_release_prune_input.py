# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.teardown.gates.plugins.plugin_utils.release_prune_input import cluster_held, cluster_line, input_problem, selection_problem


def test_no_namespace_comes_first():
    assert selection_problem("", 2) == "release_namespace: required (the namespace of the Releases)."


@pytest.mark.parametrize("selectors, shown", [(0, "0"), (2, "2"), ("3", "3")])
def test_then_exactly_one_way_to_select(selectors, shown):
    assert selection_problem("apps", selectors) == \
        "release_names, release_label_selector, convoy_cluster_name: give exactly one of them (got %s)." % shown


def test_none_as_namespace_is_text_as_jinja_prints_it():
    assert selection_problem(None, 1).startswith("release_names, ")


def test_prune_cluster_without_a_cluster_comes_first():
    assert input_problem(True, "", 0, 0, ["Bad"]) == "prune_cluster: true needs convoy_cluster_name (which Cluster to delete)."
    assert input_problem("yes", None, 0, 0, []).startswith("prune_cluster: true needs")


@pytest.mark.parametrize("timeout", [0, "0", -5, "-1", "soon", None, 0.5])
def test_then_a_timeout_below_one(timeout):
    assert input_problem(False, "", timeout, 1, []) == "timeout: must be more than 0 seconds, got %s" % (timeout,)


def test_prune_cluster_with_a_cluster_goes_on_to_the_timeout():
    assert input_problem("True", "c", "0", 1, []) == "timeout: must be more than 0 seconds, got 0"


@pytest.mark.parametrize("batch", [0, "0", "x"])
def test_then_a_batch_size_below_one(batch):
    assert input_problem(False, "", "30", batch, []) == "release_prune_batch_size: must be 1 or more, got %s" % (batch,)


def test_else_the_names_that_are_not_object_names():
    assert input_problem(False, "", 30, 1, ["ok", "Bad", "a.b", "-x", 7]) == "release_names: not valid object names: Bad, -x"
    assert input_problem("false", "", "1.5", "2", ["ok"]) == "release_names: not valid object names: "


def test_names_must_be_a_list():
    with pytest.raises(AnsibleFilterError, match="release_prune_input_problem"):
        input_problem(False, "", 30, 1, "a,b")


def test_the_cluster_line_is_empty_without_prune_cluster():
    assert cluster_line({"state": "present"}, "c", False) == ""
    assert cluster_line("not read", "c", "no") == ""


def test_a_present_cluster_shows_its_prune_releases():
    assert cluster_line({"name": "c", "state": "present", "prune_releases": True}, "c", True) == \
        "Cluster c: present, pruneReleases True, will be deleted."


def test_an_absent_cluster_shows_its_state_alone():
    assert cluster_line('{"name": "c", "state": "absent"}', "c", "yes") == "Cluster c: absent, will be deleted."


KEPT = [{"name": "payments", "namespace": "team-a", "cluster": "prod"}, {"name": "alpha", "namespace": "team-a", "cluster": "prod"},
        {"name": "other", "namespace": "team-a", "cluster": "stage"}, {"name": "loose", "namespace": "team-a", "cluster": ""}]


def test_the_kept_releases_of_the_cluster_hold_it_in_the_order_listed():
    assert cluster_held(KEPT, "prod") == ["payments", "alpha"]
    assert cluster_held(KEPT, "stage") == ["other"]
    assert cluster_held(KEPT, "none") == []


def test_the_cluster_name_is_matched_as_given_even_empty():
    # as selectattr('cluster', 'equalto', convoy_cluster_name) matched it
    assert cluster_held(KEPT, "") == ["loose"]


def test_nothing_kept_holds_nothing():
    assert cluster_held([], "prod") == []
    assert cluster_held(None, "prod") == []
    assert cluster_held([{"name": "no-cluster"}, "not a row"], "prod") == []


def test_the_kept_releases_must_be_a_list():
    with pytest.raises(AnsibleFilterError, match="release_prune_cluster_held: expects the kept Releases of the plan"):
        cluster_held({"name": "payments"}, "prod")
