from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift_fleet import group_names, hosted_cluster_hostvars, safe_group


def _hc(**over):
    hc = {"metadata": {"name": "demo", "namespace": "clusters", "uid": "u-1", "labels": {"env": "dev"}},
          "spec": {"infraID": "demo-x7k2", "platform": {"type": "AWS", "aws": {"region": "eu-west-1"}}}}
    hc["metadata"].update(over)
    return hc


def test_hostvars_name_the_role_variables_and_the_hcp_namespace():
    hv = hosted_cluster_hostvars(_hc())
    assert hv["inventory_name"] == "clusters-demo"
    assert (hv["hosted_cluster_name"], hv["hosted_cluster_namespace"]) == ("demo", "clusters")
    assert (hv["infra_id"], hv["aws_region"], hv["hosted_cluster_platform"]) == ("demo-x7k2", "eu-west-1", "aws")
    assert hv["hosted_cluster_deleting"] is False


def test_groups_include_deleting_only_for_deleting_clusters():
    assert group_names(hosted_cluster_hostvars(_hc())) == ["hosted_clusters", "namespace_clusters", "platform_aws"]
    deleting = hosted_cluster_hostvars(_hc(deletionTimestamp="2026-11-29T10:00:00Z"))
    assert "deleting" in group_names(deleting)


def test_platform_without_type_is_inferred_from_its_aws_block_and_missing_is_empty():
    hc = _hc()
    hc["spec"]["platform"] = {"aws": {"region": "us-east-2"}}
    assert hosted_cluster_hostvars(hc)["hosted_cluster_platform"] == "aws"
    hc["spec"] = {}
    hv = hosted_cluster_hostvars(hc)
    assert (hv["hosted_cluster_platform"], hv["aws_region"], hv["infra_id"]) == ("", "", "")
    assert "platform_" not in " ".join(group_names(hv))


def test_group_names_are_safe_for_ansible():
    assert safe_group("team-a.prod") == "team_a_prod"
