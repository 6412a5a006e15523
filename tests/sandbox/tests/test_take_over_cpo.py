"""take_over_cleanup when the HostedControlPlane's owners are gone (helpers: test_take_over.py).

- CPO and HCCO down (the cleanup annotation on): destroy_cloud_resources=false with take_over_cleanup is refused
  before any change (it contradicts the annotation); without the option the run stops at the HostedControlPlane,
  naming CPO, HCCO and the guest's cloud resources left; the take-over module alone in check mode reads them
  gone and sends no write; with the option the guest's resources are deleted and verified gone by ID, CPO's
  finalizer comes off with that evidence (listed in taken_over), the run finishes verified, and a re-run changes
  nothing.
- CPO down at HS-6: an AWSEndpointService still held by CPO's finalizer has its VPC endpoint, security group and
  records (the IDs in its status) deleted and verified absent by ID before the finalizer comes off.
"""
import json
import os
import subprocess

from conftest import REPO
from privilege import LogTail, run_playbook, seed
from test_take_over import HO_FINALIZER, HS, _aws_left, _finalizers, _report


CPO_DOWN_KNOBS = ("aws_infra=false", "replicas=1", "cpo=down", "hcco=down", "cleanup_cloud_resources=true",
                  # the hypershift-operator runs here: HS-6 lets it drop CPO's AWSEndpointService finalizer itself
                  # this long after their deletion (10 minutes for real)
                  "endpoint_timeout=5s")


def _verified_run(args, tmp_path, kind):
    """The destroy run with args: it passes and verifies; the report, and the finalizers taken over from kind."""
    run = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    assert run.returncode == 0, (run.stdout + run.stderr)[-5000:]
    report = _report(args["report_dir"], args["hosted_cluster_namespace"], args["hosted_cluster_name"])
    assert report["verified"] is True
    return report, [r for t in report["taken_over"] for r in t["finalizers_removed"] if r["object"]["kind"] == kind]


def _take_over_check_mode(info, tmp_path):
    """The take-over module alone, in check mode, as an operator would try it first: reads only."""
    args = {"name": info["name"], "namespace": info["namespace"], "uid": info["uid"], "infra_id": info["infra_id"],
            "take_over_after": 10, "timeout": 20}
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_STDOUT_CALLBACK="json")
    out = subprocess.run([os.path.join(REPO, ".venv", "bin", "ansible"), "localhost", "--check", "-m",
                          "teardown.gates.hosted_cluster_take_over", "-a", json.dumps(args)],
                         capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=180, check=False)
    return json.loads(out.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]


def test_cpo_and_hcco_down_stop_naming_them_and_the_guest_s_resources_then_the_take_over_finishes_verified(tmp_path, dyn):
    info = seed("hosted-cluster", "--name", "tc" + os.urandom(2).hex(), "--namespace", "take-over",
                *[a for k in CPO_DOWN_KNOBS for a in ("--knob", k)])
    name, ns, hcp = info["name"], info["namespace"], info["hcp_namespace"]
    guest_ids = [i for ids in info["guest_cloud"].values() for i in ids]
    # the router ELB's own group (HS-30) is among them: the take-over deletes it after the ELB, as the cloud provider
    assert info["guest_cloud"]["AWS::EC2::SecurityGroup"], info["guest_cloud"]
    args = {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "report_dir": str(tmp_path / "report"),
            "cluster_grace_period": 25}
    # a scope that contradicts the annotation already set is refused before any change, naming the option
    refused = run_playbook("teardown.gates.destroy_hosted_cluster", dict(
        args, take_over_cleanup=True, take_over_after=10, destroy_cloud_resources=False), str(tmp_path), verbosity="")
    assert refused.returncode != 0 and "destroy_cloud_resources: false contradicts" in refused.stdout, refused.stdout[-3000:]
    assert "openshift.io/destroy-cluster" not in _finalizers(dyn, HS, "HostedCluster", name, ns)  # Phase 2 never ran
    first = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    text = first.stdout + first.stderr
    assert first.returncode != 0, text[-3000:]
    assert "CPO's (control-plane-operator)" in text and "HCCO (hosted-cluster-config-operator)" in text, text[-3000:]
    assert all(i in text for i in guest_ids), (guest_ids, text[-3000:])
    assert HO_FINALIZER in _finalizers(dyn, HS, "HostedControlPlane", name, hcp)

    # the take-over in check mode: it reads CPO and HCCO gone and sends no write
    audit = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    planned = _take_over_check_mode(info, tmp_path)
    assert planned["hcp_owners"]["evidence"], planned
    writes = [r for r in audit.lines() if r.get("verb") in ("create", "update", "patch", "delete", "deletecollection")
              and "hosted_cluster_take_over" in r.get("userAgent", "")]
    assert writes == [], writes
    assert HO_FINALIZER in _finalizers(dyn, HS, "HostedControlPlane", name, hcp)

    args.update(take_over_cleanup=True, take_over_after=10, cluster_grace_period=120)
    report, released = _verified_run(args, tmp_path, "HostedControlPlane")
    assert [(r["object"]["name"], r["finalizer"]) for r in released] == [(name, HO_FINALIZER)], report["taken_over"]
    evidence = [e["what"] for e in released[0]["evidence"]]
    assert any("CPO Deployment" in w for w in evidence) and any("HCCO Deployment" in w for w in evidence)
    assert all(any(i in w for w in evidence) for i in guest_ids), evidence  # each guest resource, verified by ID
    left = _aws_left(info, tmp_path)
    assert left["present"] == [] and left["unknown"] == [], left

    # a re-run changes nothing
    third = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    assert third.returncode == 0, (third.stdout + third.stderr)[-3000:]
    assert "changed=0" in third.stdout, third.stdout[-2000:]


ENDPOINT_FINALIZER = "hypershift.openshift.io/control-plane-operator-finalizer"
# CPO and HCCO down, and the hypershift-operator's own release of CPO's AWSEndpointService finalizer (HS-6) far off:
# only the take-over can free them within the run
CPO_DOWN_AT_ENDPOINTS_KNOBS = ("aws_infra=false", "replicas=1", "cpo=down", "hcco=down", "cleanup_cloud_resources=true",
                               "endpoint_timeout=10m")


def test_cpo_down_its_endpoint_services_aws_ids_are_deleted_and_verified_by_id_before_its_finalizer_comes_off(
        tmp_path, dyn, core):
    info = seed("hosted-cluster", "--name", "te" + os.urandom(2).hex(), "--namespace", "take-over",
                *[a for k in CPO_DOWN_AT_ENDPOINTS_KNOBS for a in ("--knob", k)])
    name, ns, hcp = info["name"], info["namespace"], info["hcp_namespace"]
    eps = sorted(o["name"] for o in info["objects"] if o["kind"] == "AWSEndpointService")
    assert eps and all(ENDPOINT_FINALIZER in _finalizers(dyn, HS, "AWSEndpointService", e, hcp) for e in eps)
    args = {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "report_dir": str(tmp_path / "report"),
            "take_over_cleanup": True, "take_over_after": 10, "cluster_grace_period": 120}

    # check mode first: reads only, whatever it would take over
    audit = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    planned = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="", check=True)
    writes = [r for r in audit.lines() if r.get("verb") in ("create", "update", "patch", "delete", "deletecollection")
              and r.get("userAgent", "").startswith("teardown.gates/")
              and (r.get("objectRef") or {}).get("resource") != "selfsubjectaccessreviews"]  # the preflight asks only
    assert writes == [], (writes, planned.stdout[-2000:])
    assert all(ENDPOINT_FINALIZER in _finalizers(dyn, HS, "AWSEndpointService", e, hcp) for e in eps)
    # CPO's part only: the endpoint service configurations are HO's (HS-31), up here, and gone by the end
    only_endpoints = dict(info, aws={}, guest_cloud={}, management_cloud={}, oidc={}, endpoint_service_cloud={})
    assert sorted(_aws_left(only_endpoints, tmp_path)["present"]) == sorted(
        "%s %s" % (t, i) for t, ids in info["endpoint_cloud"].items() for i in ids)

    report, released = _verified_run(args, tmp_path, "AWSEndpointService")
    assert sorted((r["object"]["name"], r["finalizer"]) for r in released) == [(e, ENDPOINT_FINALIZER) for e in eps]
    for r in released:  # CPO read gone, and each AWS ID its status named read absent by ID
        whats = [e["what"] for e in r["evidence"]]
        assert any(w.startswith("CPO Deployment") for w in whats), whats
        assert all(e["verified_absent_at"] for e in r["evidence"]), r
    evidence = [e["what"] for r in released for e in r["evidence"]]
    cloud = info["endpoint_cloud"]
    assert all("%s %s" % (t, i) in evidence for t in ("AWS::EC2::VPCEndpoint", "AWS::EC2::SecurityGroup")
               for i in cloud[t]), evidence
    assert len([w for w in evidence if w.startswith("AWS::Route53::RecordSet ")]) == len(
        cloud["AWS::Route53::RecordSet"]), evidence
    # the hypershift-operator did not drop them itself (its 10-minute timeout): nothing of HS-6's own release
    reasons = {e.reason for e in core.list_namespaced_event(ns, field_selector="involvedObject.uid=%s" % info["uid"]).items}
    assert "AWSEndpointServiceFinalizerRemoved" not in reasons, reasons
    # the VPC endpoints, groups and records, each looked up directly by ID, and everything else the seed made
    left = _aws_left(info, tmp_path)
    assert left["present"] == [] and left["unknown"] == [], left

    again = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
    assert "changed=0" in again.stdout, again.stdout[-2000:]
