"""take_over_cleanup: a hosted cluster whose hypershift-operator (HO and the NodePool controller) is down.

- Without the option the run stops at the NodePool gate, and its message names the option and what it
  would take over; every finalizer stays.
- With ``take_over_cleanup: true`` and a short ``take_over_after`` the same cluster is destroyed and verified:
  the real Cluster API and CAPA managers delete the Machines and terminate the instance once the take-over
  deletes the MachineSet, and the report lists each finalizer removed with its UID and evidence of absence.
  The finalizers are removed by this collection's own requests (its user agent in the audit log), each after
  the reads that show what it guards gone.
- A foreign blocker (a Machine held by a finalizer nobody here owns): the take-over removes no finalizer that
  guards it, and names it. Once the blocker is lifted, a re-run finishes verified.
- CPO and HCCO down (the cleanup annotation on): destroy_cloud_resources=false with take_over_cleanup is refused
  before any change (it contradicts the annotation); without the option the run stops at the HostedControlPlane,
  naming CPO, HCCO and the guest's cloud resources left; the take-over module alone in check mode reads them
  gone and sends no write; with the option the guest's resources are deleted and verified gone by ID, CPO's
  finalizer comes off with that evidence (listed in taken_over), the run finishes verified, and a re-run changes
  nothing.
"""
import json
import os
import subprocess
import sys

from conftest import REPO
from privilege import LogTail, run_playbook, seed


HO_FINALIZER = "hypershift.openshift.io/finalizer"
OIDC_FINALIZER = "hypershift.io/aws-oidc-discovery"
FOREIGN = "example.com/foreign-hold"
HS = "hypershift.openshift.io/v1beta1"


def _report(path, ns, name):
    with open(os.path.join(path, "%s-%s.json" % (ns, name))) as f:  # the newest; earlier ones are archived
        return json.load(f)


def _finalizers(dyn, api_version, kind, name, namespace):
    from kubernetes.dynamic.exceptions import NotFoundError
    try:
        obj = dyn.resources.get(api_version=api_version, kind=kind).get(name=name, namespace=namespace)
    except NotFoundError:
        return None
    return list(obj.metadata.finalizers or [])


def _aws_left(info, tmp_path):
    """What the seed made in AWS, each ID looked up directly (hc_check.py aws): {present, unknown, ...}."""
    seed_file = tmp_path / "seed.json"
    seed_file.write_text(json.dumps(info))
    check = os.path.join(REPO, "tests", "integration", "targets", "setup_hosted_cluster", "files", "hc_check.py")
    return json.loads(subprocess.run([sys.executable, check, "aws", str(seed_file)], capture_output=True, text=True,
                                     timeout=120, check=True).stdout)


def _seed_with_the_operator_down(prefix):
    return seed("hosted-cluster", "--name", prefix + os.urandom(2).hex(), "--namespace", "take-over",
                "--knob", "aws_infra=false", "--knob", "replicas=1", "--knob", "ho=down", "--knob", "nodepool=down")


def test_the_operator_down_stops_without_the_option_and_finishes_verified_with_it(tmp_path, dyn):
    info = _seed_with_the_operator_down("to")
    name, ns, hcp = info["name"], info["namespace"], info["hcp_namespace"]
    nodepool = [o["name"] for o in info["objects"] if o["kind"] == "NodePool"][0]
    args = {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "report_dir": str(tmp_path / "report"),
            "cluster_grace_period": 20}
    first = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    text = first.stdout + first.stderr
    assert first.returncode != 0, text[-3000:]
    assert "take_over_cleanup=true" in text and "NodePools and Machines gone" in text, text[-3000:]
    assert "phases that never ran: 4 AWS infrastructure and IAM, 5 release the CLI finalizer, 6 verify" in text, text[-3000:]
    assert HO_FINALIZER in _finalizers(dyn, HS, "NodePool", nodepool, ns)
    assert HO_FINALIZER in _finalizers(dyn, HS, "HostedCluster", name, ns)

    audit = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    args.update(take_over_cleanup=True, take_over_after=10, cluster_grace_period=240)
    second = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    assert second.returncode == 0, (second.stdout + second.stderr)[-5000:]
    report = _report(args["report_dir"], ns, name)
    assert report["verified"] is True
    assert _finalizers(dyn, HS, "HostedCluster", name, ns) is None
    removed = [(r["object"]["kind"], r["object"]["name"], r["finalizer"])
               for t in report["taken_over"] for r in t["finalizers_removed"]]
    assert removed == [("NodePool", nodepool, HO_FINALIZER), ("HostedCluster", name, HO_FINALIZER),
                       ("HostedCluster", name, OIDC_FINALIZER)], removed
    for t in report["taken_over"]:
        for r in t["finalizers_removed"]:
            assert r["uid"] and r["at"] and r["evidence"], r
            assert all(e["verified_absent_at"] for e in r["evidence"]), r
    first_take = report["taken_over"][0]
    assert first_take["reason"]["gate"] == "NodePools and Machines gone" and first_take["reason"]["state"] == "stalled"
    # nothing the seed made in AWS is left, the guest's volume, load balancer and registry bucket included:
    # the take-over copied the cleanup annotation to the HostedControlPlane, so HCCO removed them
    left = _aws_left(info, tmp_path)
    assert left["present"] == [] and left["unknown"] == [], left
    md = open(os.path.join(args["report_dir"], "%s-%s.md" % (ns, name))).read()
    assert "## Taken over (take_over_cleanup)" in md and nodepool in md

    reqs = audit.lines()

    def calls(resource, verb, user_agent_has=None):
        return [r for r in reqs if (r.get("objectRef") or {}).get("resource") == resource and r.get("verb") == verb
                and (user_agent_has is None or user_agent_has in r.get("userAgent", ""))]
    # the finalizers came off through our own JSON patches, sent by the take-over module (another test's take-over
    # may run beside this one: its clusters share the namespace, not the names)
    ours = calls("nodepools", "patch", "hosted_cluster_take_over") + calls("hostedclusters", "patch",
                                                                            "hosted_cluster_take_over")
    ours = [r for r in ours if r["objectRef"].get("namespace") == ns and r["objectRef"]["name"] in (nodepool, name)]
    assert {r["objectRef"]["name"] for r in ours} == {nodepool, name}, [r.get("userAgent") for r in ours]
    assert all(r["userAgent"].startswith("teardown.gates/") for r in ours)
    # the Machine went the real way: the take-over deleted the MachineSet; Cluster API deleted the Machine and
    # CAPA let it go once the instance was terminated
    machines = {m["machine"] for m in info["machines"]}
    assert calls("machinesets", "delete", "hosted_cluster_take_over")
    assert not calls("machines", "delete", "teardown.gates/")
    deleted = {r["objectRef"]["name"] for r in calls("machines", "delete") if r["objectRef"].get("namespace") == hcp}
    assert deleted == machines, deleted
    released = {r["objectRef"]["name"] for r in calls("awsmachines", "patch") + calls("awsmachines", "update")
                if r.get("user", {}).get("username") == "capa-manager"}
    assert released >= machines, released


def test_a_foreign_blocker_keeps_the_finalizers_that_guard_it_and_is_named(tmp_path, dyn):
    info = _seed_with_the_operator_down("tb")
    name, ns, hcp = info["name"], info["namespace"], info["hcp_namespace"]
    nodepool = [o["name"] for o in info["objects"] if o["kind"] == "NodePool"][0]
    machine = info["machines"][0]["machine"]
    machines = dyn.resources.get(api_version="cluster.x-k8s.io/v1beta1", kind="Machine")
    machines.patch(name=machine, namespace=hcp, content_type="application/json-patch+json",
                   body=[{"op": "add", "path": "/metadata/finalizers/-", "value": FOREIGN}])
    args = {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "report_dir": str(tmp_path / "report"),
            "take_over_cleanup": True, "take_over_after": 10, "cluster_grace_period": 45}
    first = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    text = first.stdout + first.stderr
    assert first.returncode != 0, text[-3000:]
    assert machine in text and FOREIGN in text, text[-4000:]
    # nothing that the held Machine is guarded by came off: the NodePool's finalizer, the HostedCluster's
    assert HO_FINALIZER in _finalizers(dyn, HS, "NodePool", nodepool, ns)
    assert HO_FINALIZER in _finalizers(dyn, HS, "HostedCluster", name, ns)
    report = _report(args["report_dir"], ns, name)
    assert report["verified"] is False
    assert [r for t in report["taken_over"] for r in t["finalizers_removed"]] == []
    assert machine in json.dumps(report["taken_over"][0]["blockers"])

    # the blocker's owner lets go: the re-run takes over again and finishes
    current = _finalizers(dyn, "cluster.x-k8s.io/v1beta1", "Machine", machine, hcp) or []
    if FOREIGN in current:
        i = current.index(FOREIGN)
        machines.patch(name=machine, namespace=hcp, content_type="application/json-patch+json",
                       body=[{"op": "test", "path": "/metadata/finalizers/%d" % i, "value": FOREIGN},
                             {"op": "remove", "path": "/metadata/finalizers/%d" % i}])
    args["cluster_grace_period"] = 240
    second = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    assert second.returncode == 0, (second.stdout + second.stderr)[-5000:]
    assert _report(args["report_dir"], ns, name)["verified"] is True
    assert _finalizers(dyn, HS, "HostedCluster", name, ns) is None


CPO_DOWN_KNOBS = ("aws_infra=false", "replicas=1", "cpo=down", "hcco=down", "cleanup_cloud_resources=true",
                  # the hypershift-operator runs here: HS-6 lets it drop CPO's AWSEndpointService finalizer itself
                  # this long after their deletion (10 minutes for real)
                  "endpoint_timeout=5s")


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
    second = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    assert second.returncode == 0, (second.stdout + second.stderr)[-5000:]
    report = _report(args["report_dir"], ns, name)
    assert report["verified"] is True
    released = [r for t in report["taken_over"] for r in t["finalizers_removed"]
                if r["object"]["kind"] == "HostedControlPlane"]
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
    only_endpoints = dict(info, aws={}, guest_cloud={}, management_cloud={}, oidc={})
    assert sorted(_aws_left(only_endpoints, tmp_path)["present"]) == sorted(
        "%s %s" % (t, i) for t, ids in info["endpoint_cloud"].items() for i in ids)

    run = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    assert run.returncode == 0, (run.stdout + run.stderr)[-5000:]
    report = _report(args["report_dir"], ns, name)
    assert report["verified"] is True
    released = [r for t in report["taken_over"] for r in t["finalizers_removed"]
                if r["object"]["kind"] == "AWSEndpointService"]
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
