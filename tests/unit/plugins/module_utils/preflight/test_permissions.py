# -*- coding: utf-8 -*-
"""preflight/permissions (#33): each kind's Kubernetes permissions are granted by the RBAC file it names (parsed
from extensions/rbac/), filled in from the run's options, and a missing one is named with that file."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
from ansible_collections.teardown.gates.plugins.module_utils.kinds import held_deletion, hosted_cluster, release_prune
from ansible_collections.teardown.gates.plugins.module_utils.preflight import permissions as p

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))
OPTIONS = {"release_namespace": "team-a", "convoy_cluster_name": "dev", "prune_cluster": True, "held_namespace": "t",
           "held_kind": "TerraformMachine", "hosted_cluster_namespace": "clusters", "hosted_cluster_name": "demo",
           "take_over_cleanup": True, "sweep_delete": True}


def rules_of(path):
    with open(os.path.join(REPO, path)) as f:
        doc = yaml.safe_load(f)
    return [r for item in doc["items"] if item["kind"] == "ClusterRole" for r in item["rules"]]


def granted(rule, perm):
    def has(values, value):
        return "*" in values or value in values
    return (has(rule.get("verbs") or [], perm["verb"]) and has(rule.get("apiGroups") or [], perm["group"])
            and has(rule.get("resources") or [], perm["resource"])
            and (not rule.get("resourceNames") or perm.get("name") in rule["resourceNames"]))


@pytest.mark.parametrize("kind", registry.KINDS, ids=lambda k: k.NAME)
def test_each_declared_permission_is_granted_by_the_kinds_rbac_file(kind):
    perms = p.needed(kind, OPTIONS)
    if kind.RBAC_FILE is None or getattr(kind, "READ_ONLY", False):
        assert perms == []  # AWS only, or a kind that changes nothing
        return
    assert perms, "%s declares no permission" % kind.NAME
    rules = rules_of(kind.RBAC_FILE)
    not_granted = [p.describe(x) for x in perms if not any(granted(r, x) for r in rules)]
    assert not_granted == [], "%s does not grant: %s" % (kind.RBAC_FILE, not_granted)


def test_the_check_above_can_fail():
    rules = rules_of(release_prune.RBAC_FILE)
    assert not any(granted(r, {"verb": "deletecollection", "group": "core.convoy.kumodo.io", "resource": "releases",
                               "name": None}) for r in rules)
    assert not any(granted(r, {"verb": "get", "group": "", "resource": "namespaces", "name": "default"})
                   for r in rules_of("extensions/rbac/orphan_sweep.yml"))


def test_namespaces_and_resources_are_filled_in_from_the_options():
    perms = p.needed(hosted_cluster, OPTIONS)
    assert {x["namespace"] for x in perms} == {"clusters", "clusters-demo", None}
    held = p.needed(held_deletion, OPTIONS)
    assert held[0] == {"verb": "list", "group": "infrastructure.cluster.x-k8s.io", "resource": "terraformmachines",
                       "namespace": "t", "name": None}
    assert held[-1]["name"] == "terraformmachines.infrastructure.cluster.x-k8s.io"


def test_a_permission_whose_option_is_off_is_not_needed():
    off = dict(OPTIONS, prune_cluster=False, take_over_cleanup="false", convoy_cluster_name="")
    assert not [x for x in p.needed(release_prune, off) if x["resource"] == "clusters"]
    assert not [x for x in p.needed(hosted_cluster, off) if x["verb"] == "delete" and
                x["resource"] == "hostedcontrolplanes"]


def test_a_missing_namespace_option_is_bad_input_naming_it():
    with pytest.raises(BadInput, match=r"^release_namespace: required to tell the permission preflight"):
        p.needed(release_prune, {"release_namespace": " "})


def test_the_review_asks_exactly_the_permission():
    perm = p.needed(release_prune, OPTIONS)[3]
    assert p.review_attributes(perm) == {"verb": "delete", "group": "core.convoy.kumodo.io", "resource": "releases",
                                         "namespace": "team-a"}


def test_the_message_names_every_missing_permission_and_the_file():
    perms = p.needed(release_prune, OPTIONS)
    text = p.missing_message([perms[3], perms[4]], [perms[0]], release_prune.RBAC_FILE)
    assert text.startswith("missing permissions: delete releases.core.convoy.kumodo.io in namespace team-a; "
                           "list releaseinventories.core.convoy.kumodo.io in namespace team-a")
    assert "no answer to the review of: list releases.core.convoy.kumodo.io in namespace team-a" in text
    assert text.endswith("granted by extensions/rbac/release_prune.yml; refused before any change")
    one = p.missing_message([p.needed(registry.KINDS[-1], OPTIONS)[0]], [], "f.yml")
    assert one.startswith("missing permission: ") and "cluster-wide" in one


def test_grant_makes_one_row_per_verb_in_order_with_the_namespace_and_the_extra_keys():
    rows = p.grant("list get", "apps", "deployments", "{ns}", when="prune_cluster")
    assert rows == ({"verb": "list", "group": "apps", "resource": "deployments", "namespace": "{ns}", "when": "prune_cluster"},
                    {"verb": "get", "group": "apps", "resource": "deployments", "namespace": "{ns}", "when": "prune_cluster"})
    assert p.grant("get", "", "namespaces", name="kube-system") == (
        {"verb": "get", "group": "", "resource": "namespaces", "namespace": None, "name": "kube-system"},)


def test_the_destroy_reviews_and_its_role_grants_list_watch_and_delete_of_the_secrets_in_the_hosted_cluster_namespace():
    # the Secrets `hypershift create cluster` made (HC-13): listed by their label, each deleted by name and watched
    # until it is gone (wait_gate)
    secrets = [(x["verb"], x["group"], x["namespace"]) for x in p.needed(hosted_cluster, OPTIONS) if x["resource"] == "secrets"]
    assert secrets == [("list", "", "clusters"), ("watch", "", "clusters"), ("delete", "", "clusters")]
    with open(os.path.join(REPO, hosted_cluster.RBAC_FILE)) as f:
        roles = dict((i["metadata"]["name"], i["rules"]) for i in yaml.safe_load(f)["items"] if i["kind"] == "ClusterRole")
    # by the role bound in the HostedCluster's namespace; the control-plane namespace's stays read-only and secret-free
    for verb, group, dummy in secrets:
        assert any(granted(r, {"verb": verb, "group": group, "resource": "secrets", "name": None})
                   for r in roles["teardown-gates-hosted-cluster-destroy"])
    assert not any("secrets" in (r.get("resources") or []) for r in roles["teardown-gates-hosted-cluster-destroy-hcp"])
