# -*- coding: utf-8 -*-
"""drivers/hosted_cluster_take_over.py: the take-over's input rules and words as plain functions (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_take_over as T


def params(**kw):
    p = dict(name="hc.one", namespace="clusters", uid="u", infra_id="i", hcp_namespace=None, part="operator",
             stalled_gate=None, timeout=600, request_timeout=10.0, poll_interval=2)
    p.update(kw)
    return p


def test_the_input_rules_name_the_option():
    assert T.validate(params()) == []
    assert T.validate(params(timeout=0, infra_id="")) == ["timeout: must be more than 0 seconds, got 0",
                                                          "infra_id: required, not empty"]


def test_the_hcp_namespace_is_derived_as_hypershift_does():
    assert T.hcp_namespace(params()) == "clusters-hc-one"
    assert T.hcp_namespace(params(hcp_namespace="x")) == "x"


def test_taken_over_names_the_stalled_gate_and_what_held_it():
    gate = {"name": "g", "state": "stalled", "remaining": [{"kind": "NodePool", "namespace": "clusters", "name": "np"}]}
    t = T.taken_over(params(stalled_gate=gate), 0)
    assert t["reason"]["held_by"] == ["NodePool clusters/np"] and t["started"].startswith("1970-01-01T00:00:00")
    assert T.taken_over(params(), 0)["reason"] == {}


class _Job(object):
    def __init__(self, blockers=()):
        self.hcp_owners = {"hcp": {"namespace": "clusters-hc-one", "name": "hc.one", "uid": "hcp-uid"},
                           "finalizer": "hypershift.openshift.io/finalizer", "owners": "CPO and HCCO",
                           "evidence": [{"what": "CPO Deployment clusters-hc-one/control-plane-operator",
                                         "state": "absent", "read_at": "t"}]}
        self.blockers, self.removed = list(blockers), []


def test_the_stop_at_the_hcp_names_cpo_hcco_their_evidence_and_the_guest_s_resources_left():
    manifest = {"AWS::EC2::Volume": ["vol-1", "vol-worker"], "AWS::S3::Bucket": ["i-image-registry-x"],
                "AWS::EC2::VPC": ["vpc-1"]}
    guest = {"aws_manifest": manifest, "guest_volumes": ["vol-1"]}
    assert T.guest_resources(guest) == {"AWS::EC2::Volume": ["vol-1"], "AWS::S3::Bucket": ["i-image-registry-x"]}
    assert T.guest_resources(dict(guest, hcp_owners={"guest_resources": {}})) == {}
    # the load balancers' own groups, as the inventory marked them, with the rest; the infra's group stays out
    grouped = dict(guest, guest_groups=["sg-elb"])
    grouped["aws_manifest"] = dict(manifest, **{"AWS::EC2::SecurityGroup": ["sg-elb", "sg-worker"]})
    assert T.guest_resources(grouped)["AWS::EC2::SecurityGroup"] == ["sg-elb"]
    assert "AWS::EC2::SecurityGroup: sg-elb" in T.stopped_message(params(guest_cleanup=False, **grouped), _Job())
    msg = T.stopped_message(params(guest_cleanup=False, **guest), _Job())
    assert "HostedControlPlane clusters-hc-one/hc.one" in msg and "CPO's" in msg and "CPO and HCCO" in msg
    assert "control-plane-operator: absent" in msg
    assert "left by request" in msg and "vol-1" in msg and "i-image-registry-x" in msg and "vol-worker" not in msg
    msg = T.stopped_message(params(guest_cleanup=True, **guest), _Job())
    assert "for this run to delete by ID" in msg
    msg = T.stopped_message(params(guest_cleanup=True, **guest),
                            _Job([{"guest_left": ["AWS::EC2::Volume vol-1 (failed)"]}]))
    assert "did not verify these gone: AWS::EC2::Volume vol-1 (failed)" in msg


def test_the_hcp_release_needs_the_first_take_over_s_evidence_and_take_over_after_above_zero():
    assert T.validate(params(part="hcp_finalizer")) == [
        "hcp_owners: required with part=hcp_finalizer (the evidence a first take-over returned)"]
    assert T.validate(params(part="hcp_finalizer", hcp_owners={"hcp": {"uid": "u"}})) == []
    assert T.validate(params(take_over_after=0)) == ["take_over_after: must be more than 0 seconds, got 0"]


def test_the_stop_at_hs_6_names_the_endpoint_services_and_the_aws_ids_cpo_would_delete():
    eps = [{"namespace": "clusters-hc-one", "name": "private-router", "uid": "ep-uid",
            "resources": {"AWS::EC2::VPCEndpoint": ["vpce-1"], "AWS::Route53::RecordSet": ["Z1/x./CNAME"]}}]
    job = _Job()
    job.hcp_owners["endpoint_services"] = eps
    msg = T.stopped_message(params(guest_cleanup=True, aws_manifest={}, guest_volumes=[]), job)
    assert "AWSEndpointService clusters-hc-one/private-router" in msg and "vpce-1" in msg and "Z1/x./CNAME" in msg
    assert "their AWS resources are for this run to delete by ID" in msg
    job = _Job([{"kind": "AWSEndpointService", "aws_left": ["AWS::EC2::VPCEndpoint vpce-1 (failed)"]}])
    job.hcp_owners["endpoint_services"] = eps
    msg = T.stopped_message(params(guest_cleanup=True, aws_manifest={}, guest_volumes=[]), job)
    assert "did not verify these gone: AWS::EC2::VPCEndpoint vpce-1 (failed); CPO's finalizer stays on them" in msg


def test_the_stop_at_hs_6_names_ho_s_configuration_the_tag_it_must_carry_and_why_one_was_refused():
    ho = [{"namespace": "clusters-hc-one", "name": "private-router", "uid": "ep-uid",
           "service_name": "com.amazonaws.vpce.us-east-1.vpce-svc-1",
           "resources": {"AWS::EC2::VPCEndpointService": ["vpce-svc-1"]}}]
    evidence = [{"what": "AWSEndpointService clusters-hc-one/private-router", "read_at": "t",
                 "state": "deleting since t0, 600 s or more, still held by hypershift.openshift.io/"
                          "hypershift-operator-finalizer (HO's, retried every 5 s)"}]
    job = _Job()
    job.hcp_owners.update(endpoint_services=[], ho_endpoint_services=ho, ho_evidence=evidence)
    msg = T.stopped_message(params(guest_cleanup=False, aws_manifest={}, guest_volumes=[]), job)
    assert "held by hypershift.openshift.io/hypershift-operator-finalizer (HO's)" in msg and "vpce-svc-1" in msg
    assert "CPO's" not in msg.split(";")[0] and "tagged kubernetes.io/cluster/i=owned" in msg
    job = _Job([{"kind": "AWSEndpointService", "aws_left": [
        "AWS::EC2::VPCEndpointService vpce-svc-1 (failed: refused: tagged kubernetes.io/cluster/i-2=owned)"]}])
    job.hcp_owners.update(endpoint_services=[], ho_endpoint_services=ho, ho_evidence=evidence)
    msg = T.stopped_message(params(guest_cleanup=False, aws_manifest={}, guest_volumes=[]), job)
    assert "vpce-svc-1 (failed: refused: tagged kubernetes.io/cluster/i-2=owned); HO's finalizer stays on them" in msg
    # the release part accepts HO's record alone
    assert T.validate(params(part="hcp_finalizer", hcp_owners={"ho_endpoint_services": ho})) == []
