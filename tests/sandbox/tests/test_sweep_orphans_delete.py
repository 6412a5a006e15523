"""sweep_orphans deleting, on a world of its own (the `orphans` scenario; test_sweep_orphans.py holds the reads,
check mode and bad input on another): sweep_delete removes the three orphans, verified by ID with plain boto3,
the protected and the live one stay, a re-run reports changed=0; and an infra ID whose HostedCluster appears
during the run is left alone. Apart so that a parallel run gives these minutes a worker of their own."""
import json
import os
import uuid

import boto3

from privilege import LogTail, run_playbook, seed, target_guards
from test_sweep_orphans import world, sweep, mutating, statuses, changed  # noqa: F401 (world is a fixture)


def lookup_present(world):
    """Plain boto3, by ID: which of the seeded IDs are still there (a failed lookup other than not-found raises)."""
    ec2, iam, s3 = (boto3.client(s, endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
                    for s in ("ec2", "iam", "s3"))

    def present(t, i):
        try:
            if t == "AWS::EC2::VPC":
                return bool(ec2.describe_vpcs(VpcIds=[i])["Vpcs"])
            if t == "AWS::EC2::Subnet":
                return bool(ec2.describe_subnets(SubnetIds=[i])["Subnets"])
            if t == "AWS::EC2::NatGateway":
                return any(n["State"] not in ("deleted", "deleting")
                           for n in ec2.describe_nat_gateways(NatGatewayIds=[i])["NatGateways"])
            if t == "AWS::IAM::Role":
                iam.get_role(RoleName=i)
                return True
            if t == "AWS::IAM::InstanceProfile":
                iam.get_instance_profile(InstanceProfileName=i)
                return True
            if t == "AWS::S3::Bucket":
                s3.head_bucket(Bucket=i)
                return True
        except Exception as e:  # noqa: BLE001
            code = getattr(e, "response", {}).get("Error", {}).get("Code", "")
            if "NotFound" in code or code in ("NoSuchEntity", "404", "NoSuchBucket"):
                return False
            raise
        return None  # a type this check does not look up

    return present


def test_sweep_delete_removes_the_three_verified_by_id_and_a_rerun_changes_nothing(world, tmp_path):
    guards = target_guards()  # sweep_delete requires them (docs/runbook-before-the-first-delete.md)
    out, requests, doc = sweep(world, tmp_path, min_age="0", sweep_delete=True, **guards)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert sorted(doc["summary"]["destroyed"]) == sorted(world["orphans"])
    assert doc["summary"]["failed"] == [] and doc["summary"]["verified"] is True
    for s in doc["sweeps"]:
        assert s["verified"] is True
        assert {r["verified_state"] for r in s["resources"] if r["outcome"] != "retained"} <= {"absent", "terminal"}
    present = lookup_present(world)
    for iid, ids in world["orphans"].items():
        left = [(t, i) for t, v in ids.items() for i in v if present(t, i)]
        assert left == [], (iid, left)
    kept = [(t, i) for t, v in world["protected"]["aws"].items() for i in v if present(t, i) is False]
    assert kept == [], "the protected orphan lost %s" % kept
    assert present("AWS::EC2::VPC", world["protected"]["vpc"]) is True
    # the live cluster's infrastructure: its VPC is found by its tag, untouched
    ec2 = boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
    live_vpcs = ec2.describe_vpcs(Filters=[{"Name": "tag:kubernetes.io/cluster/" + world["live"]["infra_id"],
                                            "Values": ["owned"]}])["Vpcs"]
    assert live_vpcs
    # the sweep did send deletes (the by-ID lookups above show which resources they removed)
    assert mutating(requests)
    again, requests2, doc2 = sweep(world, tmp_path, min_age="0", sweep_delete=True, **guards)
    assert again.returncode == 0, again.stdout[-3000:]
    assert changed(again) == 0
    assert mutating(requests2) == []
    assert doc2["summary"]["destroyed"] == [] and doc2["summary"]["failed"] == []
    # moto's DescribeTags still lists the tags of deleted EC2 resources (AWS too, for an instance terminated
    # within the hour): the scan looks each tagged resource up by ID, so a swept infra ID is not found again
    assert doc2["sweeps"] == [], doc2["sweeps"]
    assert not set(world["orphans"]) & set(statuses(doc2)), statuses(doc2)
    assert {world["protected"]["infra_id"]: "protected", world["live"]["infra_id"]: "live"}.items() <= statuses(doc2).items()


RECHECK_PLAY = """
- hosts: localhost
  gather_facts: false
  connection: local
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  tasks:
    - name: Found first (before the HostedCluster appeared)
      teardown.gates.aws_orphan_inventory:
        infra_ids: ["{{ infra }}"]
        min_age: 0
      register: first
    - name: Keep the entry
      ansible.builtin.set_fact:
        entry: "{{ first.infra_ids | first }}"
    - name: The HostedCluster appears, as another team's create would make it
      kubernetes.core.k8s:
        definition: "{{ lookup('ansible.builtin.file', hc_file) | from_json }}"
        wait: false
    - name: The sweep of that one orphan, as the role runs it for each
      ansible.builtin.include_role:
        name: teardown.gates.orphan_sweep
        tasks_from: sweep_one.yml
      vars:
        orphan_sweep_entry: "{{ entry }}"
        orphan_sweep_results: []
        management_contexts: []
        kubeconfig: ""
        min_age: "0"
        oidc_bucket: ""
        aws_region: ""
        preserve_iam: false
        aws_cleanup_timeout: 60
    - name: Keep what it did
      ansible.builtin.copy:
        content: "{{ {'first': entry.status, 'results': orphan_sweep_results} | to_json }}"
        dest: "{{ out }}"
        mode: "0600"
"""


def test_an_infra_id_whose_hosted_cluster_appears_during_the_run_is_left_alone(tmp_path, core):
    infra = "swr" + uuid.uuid4().hex[:5]
    made = seed("aws-infra", "--name", infra, "--knob", "zones=1", "--knob", "workers=0")
    ns = infra + "-ns"
    core.create_namespace({"metadata": {"name": ns}})
    hc = {"apiVersion": "hypershift.openshift.io/v1beta1", "kind": "HostedCluster",
          "metadata": {"name": "late", "namespace": ns},
          "spec": {"infraID": infra, "platform": {"type": "AWS", "aws": {"region": "us-east-1"}}}}
    (tmp_path / "hc.json").write_text(json.dumps(hc))
    (tmp_path / "play.yml").write_text(RECHECK_PLAY)
    key = "AKSR" + uuid.uuid4().hex[:16].upper()
    tail = LogTail(os.environ["SANDBOX_AWS_LOG"])
    out_file = tmp_path / "out.json"
    try:
        out = run_playbook(str(tmp_path / "play.yml"), {"infra": infra, "hc_file": str(tmp_path / "hc.json"), "out": str(out_file)},
                           str(tmp_path), {"AWS_ACCESS_KEY_ID": key}, verbosity="")
        requests = [r for r in tail.lines(settle=0.2) if r.get("key_id") == key]
        assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
        got = json.loads(out_file.read_text())
        assert got["first"] == "orphan"
        assert [(r["infra_id"], r["outcome"]) for r in got["results"]] == [(infra, "left_alone")]
        assert "HostedCluster %s/late" % ns in got["results"][0]["reason"]
        assert mutating(requests) == []
        present = lookup_present({})
        assert all(present(t, i) for t in ("AWS::EC2::VPC", "AWS::IAM::Role") for i in made["aws"][t])
    finally:
        core.delete_namespace(ns)
