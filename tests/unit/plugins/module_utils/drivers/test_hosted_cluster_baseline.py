# -*- coding: utf-8 -*-
"""drivers/hosted_cluster_baseline.py: the whole Phase 1 read against stand-ins for the Kubernetes reads (no client)
and AWS discovery (no request): the refusals before any AWS request, the precedence, the merges."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import runs as aws_runs
from ansible_collections.teardown.gates.plugins.module_utils.drivers import entry
from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_baseline as D
from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_info as info

from aws_module_double import AWSModuleDouble, Exited

HC = {"metadata": {"uid": "u-1", "creationTimestamp": "2026-01-01T00:00:00Z",
                   "annotations": {"hypershift.openshift.io/cleanup-cloud-resources": "true"}},
      "spec": {"infraID": "demo-x", "platform": {"type": "AWS", "aws": {"region": "us-east-2"}},
               "dns": {"baseDomain": "example.com"}, "release": {"image": "quay.io/r:4.17"},
               "issuerURL": "https://demo-oidc.s3.us-east-2.amazonaws.com/demo-x"}}


def params(tmp_path, **kw):
    p = dict(name="demo", namespace="clusters", infra_id="", oidc_bucket="", region=None,
             baseline_path=str(tmp_path / "clusters-demo.baseline.json"), report_dir=str(tmp_path), started="T0",
             destroy_cloud_resources=True, preserve_iam=False, take_over_cleanup=False, take_over_after=900,
             cluster_grace_period=600, min_age=0, request_timeout=10)
    p.update(kw)
    return p


class Reads(object):
    queries = [{"what": "HostedCluster clusters/demo", "ok": True}]


@pytest.fixture
def world(monkeypatch):
    """The HostedCluster read answers ``world["hc"]`` (None: absent); discovery answers ``world["found"]`` and records
    what it was asked in ``world["asked"]``."""
    w = {"hc": HC, "found": {"AWS::EC2::VPC": ["vpc-1"]}, "asked": None, "read": 0}

    def read_hc(reads, name, namespace):
        w["read"] += 1
        answer = {"state": "present" if w["hc"] else "absent", "nodepools": ["np-now"], "hcp_namespace": "x",
                  "release_image": None, "control_plane_operator_image": "quay.io/cpo:1"}
        if w["hc"]:
            answer["hosted_cluster"] = w["hc"]
        return answer

    def discover(clients, infra_id, **kw):
        w["asked"] = dict(kw, infra_id=infra_id, check_mode=clients.check_mode)
        return dict(w["found"]), {"vpcs": [], "observed": {}, "guest_volumes": ["vol-now"], "guest_groups": [],
                                  "shared_zones": []}
    monkeypatch.setattr(D, "build_reads", lambda module, driver: Reads())
    monkeypatch.setattr(info, "read_hosted_cluster", read_hc)
    monkeypatch.setattr(aws_runs, "discover", discover)
    return w


def test_a_fresh_baseline_from_the_hosted_cluster_and_aws(world, tmp_path):
    m = AWSModuleDouble(params(tmp_path), check_mode=True)
    out = D.run(m)
    assert out["hc_present"] is True and out["stored"] == {} and out["changed"] is False
    assert out["cluster"] == {"namespace": "clusters", "name": "demo", "uid": "u-1", "infra_id": "demo-x",
                              "region": "us-east-2", "hcp_namespace": "clusters-demo", "release_image": "quay.io/r:4.17",
                              "base_domain": "example.com", "created": "2026-01-01T00:00:00Z"}
    # the inventory reads in check mode, with the options the role gave it; its clients take the region decided
    # (the stand-in's own region is fixed)
    assert world["asked"] == {"infra_id": "demo-x", "base_domain": "example.com", "cluster_name": "demo",
                              "oidc_bucket": "demo-oidc", "region": "us-east-1", "check_mode": False}
    assert m.params["region"] == "us-east-2"
    assert out["manifest"] == {"AWS::EC2::VPC": ["vpc-1"]} and out["aws_cleanup_runs"] is True
    assert out["nodepools"] == ["np-now"] and out["guest_volumes"] == ["vol-now"]
    assert out["versions"]["release_image"] == "quay.io/r:4.17"
    assert out["versions"]["control_plane_operator_image"] == "quay.io/cpo:1"
    assert out["options"]["cleanup_effective"] is True and out["retain"] == {}
    assert out["options"]["resumed"] is False and out["options"]["infra_only"] is False
    assert out["baseline"]["recorded_at"] == "T0" and "manifest" not in out["baseline"]
    assert out["cleanup_preexisting"] is True and out["deleting"] is False and out["cli_finalizer_on"] is False


def test_the_stored_baseline_is_merged_and_its_ids_stay_tracked(world, tmp_path):
    stored = {"cluster": {"uid": "u-1", "infra_id": "demo-x"}, "nodepools": ["np-old"], "guest_volumes": ["vol-old"],
              "manifest": {"AWS::EC2::VPC": ["vpc-0"], "AWS::IAM::Role": ["r-1"]}, "recorded_at": "T-1"}
    (tmp_path / "clusters-demo.baseline.json").write_text(json.dumps(stored))
    out = D.run(AWSModuleDouble(params(tmp_path, destroy_cloud_resources=False)))
    assert out["manifest"] == {"AWS::EC2::VPC": ["vpc-0", "vpc-1"], "AWS::IAM::Role": ["r-1"]}
    assert out["nodepools"] == ["np-now", "np-old"] and out["guest_volumes"] == ["vol-now", "vol-old"]
    assert out["baseline"]["recorded_at"] == "T-1" and out["options"]["resumed"] is True
    # the annotation is set: the cleanup is effective, nothing is retained
    assert out["options"]["cleanup_effective"] is True and out["retain"] == {}


def test_without_the_cleanup_the_guest_volumes_are_retained(world, tmp_path):
    world["hc"] = dict(HC, metadata={"uid": "u-1"})
    out = D.run(AWSModuleDouble(params(tmp_path, destroy_cloud_resources=False)))
    assert out["options"]["cleanup_effective"] is False and out["retain"] == {"AWS::EC2::Volume": ["vol-now"]}


def test_a_stored_baseline_of_another_uid_is_forgotten(world, tmp_path):
    (tmp_path / "clusters-demo.baseline.json").write_text(json.dumps({"cluster": {"uid": "u-old"}, "nodepools": ["np-old"]}))
    out = D.run(AWSModuleDouble(params(tmp_path)))
    assert out["stored"] == {} and out["nodepools"] == ["np-now"]


def test_gone_with_the_stored_baseline_resumes_from_it(world, tmp_path):
    world["hc"] = None
    stored = {"cluster": {"uid": "u-1", "infra_id": "demo-x", "region": "eu-west-1"}, "nodepools": ["np-old"],
              "versions": {"control_plane_operator_image": "quay.io/cpo:0"}}
    (tmp_path / "clusters-demo.baseline.json").write_text(json.dumps(stored))
    out = D.run(AWSModuleDouble(params(tmp_path)))
    assert out["hc_present"] is False and out["options"]["infra_only"] is True
    assert out["cluster"]["infra_id"] == "demo-x" and out["cluster"]["region"] == "eu-west-1"
    # the NodePools and CPO image read now are not the gone cluster's
    assert out["nodepools"] == ["np-old"] and out["versions"]["control_plane_operator_image"] == "quay.io/cpo:0"


def test_infra_only_reads_nothing_from_kubernetes(world, tmp_path):
    out = D.run(AWSModuleDouble(params(tmp_path, name="", infra_id="demo-x",
                                       baseline_path=str(tmp_path / "clusters-demo-x.baseline.json"))))
    assert world["read"] == 0 and out["queries"] == []
    assert out["cluster"]["name"] == "demo-x" and out["cluster"]["hcp_namespace"] == "clusters-demo-x"
    assert world["asked"]["cluster_name"] is None and world["asked"]["infra_id"] == "demo-x"


@pytest.mark.parametrize("hc, kw, message", [
    (None, {}, "HostedCluster clusters/demo does not exist (a successful read answered no such object) and no "
               "baseline is stored in {dir}: give infra_id to destroy its AWS infrastructure alone. Nothing changed."),
    (dict(HC, spec=dict(HC["spec"], platform={"type": "Azure"})), {},
     "HostedCluster clusters/demo runs on platform Azure: this role destroys AWS hosted clusters only. Nothing changed."),
    (HC, dict(infra_id="demo-y"), "infra_id: demo-y is not the infra ID of HostedCluster clusters/demo (demo-x). Nothing changed."),
    (HC, dict(region="eu-west-1"), "aws_region: eu-west-1 is not the region of HostedCluster clusters/demo (us-east-2). "
                                   "Leave aws_region out to use the cluster's own, or give us-east-2. Nothing changed."),
    (HC, dict(take_over_cleanup=True, destroy_cloud_resources=False),
     'destroy_cloud_resources: false contradicts the annotation hypershift.openshift.io/cleanup-cloud-resources: "true" '
     "already on HostedCluster clusters/demo, and with take_over_cleanup the take-over would delete the guest's cloud "
     "resources on the annotation's word. Set destroy_cloud_resources=true to have them deleted, or remove the "
     "annotation first to keep them. Nothing changed."),
])
def test_refusals_before_any_aws_request_with_the_roles_messages(world, tmp_path, hc, kw, message):
    world["hc"] = hc
    m = AWSModuleDouble(params(tmp_path, **kw))
    with pytest.raises(Exited):
        D.run(m)
    assert m.failed["msg"] == message.format(dir=tmp_path) and world["asked"] is None


def test_gone_an_infra_id_other_than_the_stored_one_is_refused_naming_both(world, tmp_path):
    world["hc"] = None
    path = tmp_path / "clusters-demo.baseline.json"
    path.write_text(json.dumps({"cluster": {"uid": "u-1", "infra_id": "demo-x", "region": "eu-west-1"}}))
    m = AWSModuleDouble(params(tmp_path, infra_id="demo-x2"))
    with pytest.raises(Exited):
        D.run(m)
    assert m.failed["msg"].startswith("infra_id: demo-x2 is not the infra ID of the baseline stored in %s (demo-x)" % path)
    assert world["asked"] is None
    m = AWSModuleDouble(params(tmp_path, region="us-east-1"))  # the stored region, as the cluster's own
    with pytest.raises(Exited):
        D.run(m)
    assert m.failed["msg"].startswith("aws_region: us-east-1 is not the region of the stored baseline (eu-west-1)")


def test_a_stored_managed_policy_is_kept_and_reported_not_tracked(world, tmp_path):
    arn = "arn:aws:iam::1:policy/demo-x-team"
    stored = {"cluster": {"uid": "u-1", "infra_id": "demo-x"}, "manifest": {"AWS::IAM::ManagedPolicy": [arn]}}
    (tmp_path / "clusters-demo.baseline.json").write_text(json.dumps(stored))
    out = D.run(AWSModuleDouble(params(tmp_path)))
    assert "AWS::IAM::ManagedPolicy" not in out["manifest"]
    assert [r["id"] for r in out["protected"] if r["type"] == "AWS::IAM::ManagedPolicy"] == [arn]


def test_a_stored_file_that_is_not_a_baseline_is_refused_naming_it(world, tmp_path):
    (tmp_path / "clusters-demo.baseline.json").write_text("[1]")
    m = AWSModuleDouble(params(tmp_path))
    with pytest.raises(Exited):
        D.run(m)
    assert m.failed["msg"].startswith("hosted_cluster_stored_baseline: the stored baseline %s holds a list"
                                      % (tmp_path / "clusters-demo.baseline.json"))
    assert world["asked"] is None


def test_a_failed_hosted_cluster_read_is_unknown(monkeypatch, world, tmp_path):
    def failed(reads, name, namespace):
        raise info.ReadFailed("could not read HostedCluster clusters/demo (timed out)")
    monkeypatch.setattr(info, "read_hosted_cluster", failed)
    m = AWSModuleDouble(params(tmp_path))
    with pytest.raises(Exited):
        D.run(m)
    assert "not even whether it is there" in m.failed["msg"] and m.failed["queries"] == Reads.queries
    assert world["asked"] is None


def test_an_empty_infra_id_fails_as_the_inventory_did(world, tmp_path):
    world["hc"] = dict(HC, spec={"platform": {"type": "AWS"}})
    with pytest.raises(aws_runs.BadInput, match="^infra_id must not be empty"):
        D.run(AWSModuleDouble(params(tmp_path)))


def test_the_spec_has_both_auth_option_sets():
    spec = D.argument_spec()
    assert {"kubeconfig", "request_timeout", "baseline_path", "min_age"} <= set(spec)


def test_a_stop_after_the_identity_returns_it_for_the_stop_report(world, tmp_path):
    m = AWSModuleDouble(params(tmp_path, take_over_cleanup=True, destroy_cloud_resources=False))
    with pytest.raises(Exited):
        D.run(m)
    assert m.failed["cluster"]["infra_id"] == "demo-x" and m.failed["options"]["take_over_cleanup"] is True
    assert "versions" not in m.failed  # not decided yet at this refusal, as the role's facts were not


def test_a_failed_aws_read_is_unknown_and_returns_what_was_decided(monkeypatch, world, tmp_path):
    import botocore.exceptions

    def discover(clients, infra_id, **kw):
        raise botocore.exceptions.EndpointConnectionError(endpoint_url="http://127.0.0.1:1")
    monkeypatch.setattr(aws_runs, "discover", discover)
    m = AWSModuleDouble(params(tmp_path))
    with pytest.raises(Exited):
        D.run(m)
    assert m.failed["msg"].startswith("discovery of infra ID demo-x failed; no manifest is returned")
    assert m.failed["cluster"]["infra_id"] == "demo-x" and m.failed["versions"]["control_plane_operator_image"]


def test_an_empty_infra_id_keeps_what_was_decided(world, tmp_path):
    world["hc"] = dict(HC, spec={"platform": {"type": "AWS"}})
    with pytest.raises(aws_runs.BadInput) as e:
        D.run(AWSModuleDouble(params(tmp_path)))
    assert e.value.partial["cluster"]["name"] == "demo" and e.value.partial["nodepools"] == ["np-now"]


def test_kubernetes_core_reads_the_aws_module_as_a_k8s_module(tmp_path):
    """get_api_client asks a module for requires() and server_side_dry_run, which AnsibleAWSModule lacks."""
    m = AWSModuleDouble(params(tmp_path), check_mode=True)
    view = entry.AwsModuleAsK8s(m)
    assert view.params is m.params and view.check_mode is True and view.server_side_dry_run is False
    view.requires("kubernetes", "1.0.0", "to read")
    assert m.failed is None
    with pytest.raises(Exited):
        view.requires("kubernetes", "999.0.0", "to read")
    assert "kubernetes>=999.0.0" in m.failed["msg"]


def test_the_client_is_built_from_the_view(monkeypatch, tmp_path):
    """The real build_reads gets the view: kubernetes.core's get_api_client reads requires and server_side_dry_run."""
    seen = {}

    def get_api_client(module=None, **auth):
        seen["dry_run"] = module.server_side_dry_run
        module.requires("kubernetes", "1.0.0")
        raise RuntimeError("no server here")
    import ansible_collections.kubernetes.core.plugins.module_utils.k8s.client as core_client
    monkeypatch.setattr(core_client, "get_api_client", get_api_client)
    m = AWSModuleDouble(params(tmp_path, request_timeout=1))
    with pytest.raises(Exited):
        D.read_hosted_cluster(m)
    assert seen == {"dry_run": False}
    assert "nothing about HostedCluster clusters/demo is known" in m.failed["msg"]
    assert "AttributeError" not in m.failed["msg"]
