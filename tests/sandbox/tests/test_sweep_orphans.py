"""sweep_orphans end to end on the sandbox, against the `orphans` scenario (three orphaned infra IDs, one
protected orphan, one live hosted cluster, every infra ID starting with the seed's prefix):

* with the default min_age (24 h) all of them are seconds old: nothing is an orphan, nothing is touched;
* check mode with min_age 0 lists exactly the three and sends no mutating AWS request;
* bad input (unknown context, bad min_age, sweep_delete with check mode) fails naming the option, before any
  mutating request (and, for what Phase 0 checks, before any AWS request at all);
* a management context that cannot be read makes every infra ID unknown and sweeps nothing;
* sweep_delete removes the three, verified by ID with plain boto3; the protected and the live one stay;
  a re-run reports changed=0.

Every run signs its AWS requests with an access key ID of its own, so its requests are picked out of
SANDBOX_AWS_LOG by that key, whatever the twins do meanwhile."""
import json
import os
import re
import uuid

import boto3
import pytest
import yaml

from privilege import LogTail, run_playbook, seed

MUTATING = ("Delete", "Terminate", "Detach", "Disassociate", "Release", "Revoke", "Remove", "Change", "Put",
            "Create", "Attach", "Associate", "Modify", "Run", "Allocate", "Authorize", "Replace", "Stop", "Update")


@pytest.fixture(scope="module")
def world():
    name = "sw" + uuid.uuid4().hex[:5]
    return seed("orphans", "--name", name, "--namespace", name)


def sweep(world, tmp_path, check=False, **extra):
    key = "AKSW" + uuid.uuid4().hex[:16].upper()
    env = {"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": "sweep" + uuid.uuid4().hex}
    env.update(extra.pop("env", {}))
    report = tmp_path / ("report-" + uuid.uuid4().hex[:4])
    vars_ = {"infra_id_prefix": world["prefix"], "oidc_bucket": world["oidc_bucket"], "report_dir": str(report)}
    vars_.update(extra)
    tail = LogTail(os.environ["SANDBOX_AWS_LOG"])
    out = run_playbook("teardown.gates.sweep_orphans", vars_, str(tmp_path), env, verbosity="", check=check)
    requests = [r for r in tail.lines(settle=0.2) if r.get("key_id") == key]
    reports = sorted(report.glob("orphan-sweep-*.json")) if report.exists() else []
    doc = json.loads(reports[-1].read_text()) if reports else None
    return out, requests, doc


def mutating(requests):
    return sorted({"%s:%s" % (r["service"], r["action"]) for r in requests if r["action"].startswith(MUTATING)})


def statuses(doc):
    return {e["infra_id"]: e["status"] for e in doc["infra_ids"]}


def changed(out):
    m = re.search(r"changed=(\d+)", out.stdout)
    assert m, out.stdout[-2000:]
    return int(m.group(1))


def expected(world):
    return {**{i: "orphan" for i in world["orphans"]}, world["protected"]["infra_id"]: "protected",
            world["live"]["infra_id"]: "live"}


def test_default_min_age_finds_all_of_them_young(world, tmp_path):
    out, requests, doc = sweep(world, tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    want = dict(expected(world), **{i: "young" for i in world["orphans"]})
    assert statuses(doc) == want
    assert doc["summary"]["orphans"] == [] and doc["sweeps"] == []
    assert requests and mutating(requests) == []
    assert changed(out) == 0


def test_check_mode_lists_exactly_the_three_and_changes_nothing(world, tmp_path):
    out, requests, doc = sweep(world, tmp_path, check=True, min_age="0")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert statuses(doc) == expected(world)
    assert sorted(doc["summary"]["orphans"]) == sorted(world["orphans"])
    assert requests, "the run's requests were not found in the AWS log"
    assert mutating(requests) == []
    planned = {s["infra_id"]: s for s in doc["sweeps"]}
    assert sorted(planned) == sorted(world["orphans"])
    for iid, ids in world["orphans"].items():
        assert planned[iid]["outcome"] == "planned" and planned[iid]["plan"]
        # the plan covers every ID the seed made (the public *.apps record aside: an orphan's cluster name is unknown)
        in_plan = {r["id"] for level in planned[iid]["plan"] for r in level}
        seeded = {i for t, v in ids.items() if t != "AWS::Route53::RecordSet" for i in v}
        assert seeded - in_plan == set(), iid
    entry = next(e for e in doc["infra_ids"] if e["infra_id"] == world["protected"]["infra_id"])
    assert {"type": "AWS::EC2::VPC", "id": world["protected"]["vpc"]} in entry["protected"]


@pytest.mark.parametrize("extra, check, names", [
    ({"management_contexts": ["no-such-context"]}, False, "management_contexts: unknown context no-such-context"),
    ({"min_age": "-1"}, False, "min_age:"),
    ({"min_age": "soon"}, False, "min_age:"),
    ({"sweep_delete": True, "min_age": "0"}, True, "sweep_delete:"),
])
def test_bad_input_fails_naming_the_option(world, tmp_path, extra, check, names):
    out, requests, dummy = sweep(world, tmp_path, check=check, **extra)
    assert out.returncode != 0
    assert names in out.stdout + out.stderr, (out.stdout + out.stderr)[-3000:]
    assert requests == []  # refused before the module that reads AWS, or by it before any request


def test_an_unreadable_management_cluster_sweeps_nothing(world, tmp_path):
    with open(os.environ["KUBECONFIG"]) as f:
        kc = yaml.safe_load(f)
    current = kc["current-context"]
    kc["clusters"].append({"name": "dead", "cluster": {"server": "https://127.0.0.1:9", "insecure-skip-tls-verify": True}})
    kc["contexts"].append({"name": "dead", "context": {"cluster": "dead", "user": kc["contexts"][0]["context"]["user"]}})
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(kc))
    out, requests, doc = sweep(world, tmp_path, min_age="0", sweep_delete=True, kubeconfig=str(path),
                               management_contexts=[current, "dead"], env={"KUBECONFIG": str(path)})
    assert out.returncode != 0
    assert "nothing was swept" in out.stdout, out.stdout[-3000:]
    assert doc["management_known"] is False and doc["sweeps"] == []
    assert doc["summary"]["verified"] is False  # nothing was verified: every infra ID is unknown
    want = {i: ("live" if s == "live" else "unknown") for i, s in expected(world).items()}
    assert statuses(doc) == want
    assert mutating(requests) == []


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
    out, requests, doc = sweep(world, tmp_path, min_age="0", sweep_delete=True)
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
    again, requests2, doc2 = sweep(world, tmp_path, min_age="0", sweep_delete=True)
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
