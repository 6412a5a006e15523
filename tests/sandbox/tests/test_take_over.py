"""take_over_cleanup: a hosted cluster whose hypershift-operator (HO and the NodePool controller) is down.

- Without the option the run stops at the NodePool gate, and its message names the option and what it
  would take over; every finalizer stays.
- With ``take_over_cleanup: true`` and a short ``take_over_after`` the same cluster is destroyed and verified:
  the real Cluster API and CAPA managers delete the Machines and terminate the instance once the take-over
  deletes the MachineSet, and the report lists each finalizer removed with its UID and evidence of absence.
  The finalizers are removed by this collection's own requests (its user agent in the audit log), each after
  the reads that show what it guards gone.
- HO down at the AWSEndpointServices (HS-31): each one's VPC endpoint service configuration, tagged as the cluster's,
  is deleted by ID and read gone before HO's endpoint finalizer comes off; one tagged for another infra ID is
  refused, named with its tags, and its finalizer stays.
- A foreign blocker (a Machine held by a finalizer nobody here owns): the take-over removes no finalizer that
  guards it, and names it. Once the blocker is lifted, a re-run finishes verified.
- CPO and HCCO down: test_take_over_cpo.py (a file of its own, so that the sandbox stage's workers run the two
  halves side by side).
"""
import json
import os
import subprocess
import sys

from conftest import REPO
from privilege import LogTail, run_playbook, seed


HO_FINALIZER = "hypershift.openshift.io/finalizer"
# HO's own on each AWSEndpointService (HS-31): with HO down the take-over deletes the configuration it guards
HO_ENDPOINT_FINALIZER = "hypershift.openshift.io/hypershift-operator-finalizer"
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
    eps = sorted(o["name"] for o in info["objects"] if o["kind"] == "AWSEndpointService")
    assert removed == [("NodePool", nodepool, HO_FINALIZER)] + [
        ("AWSEndpointService", e, HO_ENDPOINT_FINALIZER) for e in eps] + [
        ("HostedCluster", name, HO_FINALIZER), ("HostedCluster", name, OIDC_FINALIZER)], removed
    # HO's endpoint finalizer came off only on its configuration read gone by ID
    configs = info["endpoint_service_cloud"]["AWS::EC2::VPCEndpointService"]
    ep_evidence = [e["what"] for t in report["taken_over"] for r in t["finalizers_removed"]
                   if r["finalizer"] == HO_ENDPOINT_FINALIZER for e in r["evidence"]]
    assert all("AWS::EC2::VPCEndpointService %s" % c in ep_evidence for c in configs), ep_evidence
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


def test_ho_down_a_configuration_tagged_for_another_infra_id_is_refused_and_its_finalizer_stays(tmp_path, dyn, ec2):
    """HS-31 with the ID check: the take-over deletes a VPC endpoint service configuration only when it is tagged
    kubernetes.io/cluster/<infraID>=owned. One retagged for the neighbour <infraID>-2 is refused (not deleted), the run
    stops naming it and its tags, and HO's finalizer stays on its AWSEndpointService; the other one goes."""
    info = _seed_with_the_operator_down("tn")
    name, ns, hcp, infra = info["name"], info["namespace"], info["hcp_namespace"], info["infra_id"]
    configs = info["endpoint_service_cloud"]["AWS::EC2::VPCEndpointService"]
    neighbour = configs[0]
    ec2.delete_tags(Resources=[neighbour], Tags=[{"Key": "kubernetes.io/cluster/" + infra}])
    ec2.create_tags(Resources=[neighbour], Tags=[{"Key": "kubernetes.io/cluster/%s-2" % infra, "Value": "owned"}])
    args = {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "report_dir": str(tmp_path / "report"),
            "take_over_cleanup": True, "take_over_after": 10, "cluster_grace_period": 120}
    run = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    text = run.stdout + run.stderr
    assert run.returncode != 0, text[-3000:]
    assert neighbour in text and "kubernetes.io/cluster/%s-2=owned" % infra in text, text[-4000:]
    assert ec2.describe_vpc_endpoint_service_configurations(ServiceIds=[neighbour])["ServiceConfigurations"]
    held = [e for e in sorted(o["name"] for o in info["objects"] if o["kind"] == "AWSEndpointService")
            if HO_ENDPOINT_FINALIZER in (_finalizers(dyn, HS, "AWSEndpointService", e, hcp) or [])]
    assert len(held) == 1, held
    assert HO_FINALIZER in _finalizers(dyn, HS, "HostedCluster", name, ns)

    # tagged as the cluster's again, a re-run picks up where it stopped and finishes verified
    ec2.create_tags(Resources=[neighbour], Tags=[{"Key": "kubernetes.io/cluster/" + infra, "Value": "owned"}])
    ec2.delete_tags(Resources=[neighbour], Tags=[{"Key": "kubernetes.io/cluster/%s-2" % infra}])
    again = run_playbook("teardown.gates.destroy_hosted_cluster", args, str(tmp_path), verbosity="")
    assert again.returncode == 0, (again.stdout + again.stderr)[-5000:]
    assert _report(args["report_dir"], ns, name)["verified"] is True
    left = _aws_left(info, tmp_path)
    assert left["present"] == [] and left["unknown"] == [], left
