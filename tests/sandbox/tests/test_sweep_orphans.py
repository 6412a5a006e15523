"""sweep_orphans end to end on the sandbox, against the `orphans` scenario (three orphaned infra IDs, one
protected orphan, one live hosted cluster, every infra ID starting with the seed's prefix):

* with the default min_age (24 h) all of them are seconds old: nothing is an orphan, nothing is touched;
* check mode with min_age 0 lists exactly the three and sends no mutating request: none to AWS (by its key), and
  only get/list/watch to the API server from a ServiceAccount of its own that may do everything (this is
  sweep_orphans' row of test_check_mode_reads_only.py, which checks the other four playbooks the same way);
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

import pytest
import yaml

from privilege import (LogTail, ServiceAccounts, audit_requests, describe, retire_hosted_cluster, run_playbook, seed,
                       target_guards)

MUTATING = ("Delete", "Terminate", "Detach", "Disassociate", "Release", "Revoke", "Remove", "Change", "Put",
            "Create", "Attach", "Associate", "Modify", "Run", "Allocate", "Authorize", "Replace", "Stop", "Update")


@pytest.fixture(scope="module")
def world():
    name = "sw" + uuid.uuid4().hex[:5]
    made = seed("orphans", "--name", name, "--namespace", name)
    yield made
    retire_hosted_cluster(*made["live"]["hosted_cluster"].split("/"))


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


# a role that allows everything, so that what the run sends is decided by the run alone
EVERYTHING = [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
              {"nonResourceURLs": ["*"], "verbs": ["get"]}]


def test_check_mode_lists_exactly_the_three_and_changes_nothing(world, tmp_path, api_client):
    accounts = ServiceAccounts(api_client, str(tmp_path))
    try:
        role = "teardown-gates-check-" + uuid.uuid4().hex[:6]
        kubeconfig, dummy = accounts.create("checker", {role: EVERYTHING}, [], cluster=[role])
        audit = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
        out, requests, doc = sweep(world, tmp_path, check=True, min_age="0",
                                   env={"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig})
        k8s = audit_requests(audit, accounts.username("checker"))
    finally:
        accounts.cleanup()
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert k8s, "the run's own ServiceAccount sent nothing to the API server"
    writes = sorted({describe(r) for r in k8s if r["verb"] not in ("get", "list", "watch")})
    assert not writes, "check mode sent to the API server: %s" % writes
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
    # sweep_delete requires the guards (test_target_guards.py), and a context that cannot be read makes the
    # management-cluster guard refuse first, naming it; the report-only run shows what the inventory makes of it
    guards = target_guards()
    out, requests, doc = sweep(world, tmp_path, min_age="0", sweep_delete=True, kubeconfig=str(path),
                               management_contexts=[current, "dead"], env={"KUBECONFIG": str(path)}, **guards)
    assert out.returncode != 0
    assert "expected_management_cluster: context dead: " in out.stdout, out.stdout[-3000:]
    assert doc is None and mutating(requests) == []
    out, requests, doc = sweep(world, tmp_path, min_age="0", kubeconfig=str(path),
                               management_contexts=[current, "dead"], env={"KUBECONFIG": str(path)})
    assert out.returncode != 0
    assert "nothing was swept" in out.stdout, out.stdout[-3000:]
    assert doc["management_known"] is False and doc["sweeps"] == []
    assert doc["summary"]["verified"] is False  # nothing was verified: every infra ID is unknown
    want = {i: ("live" if s == "live" else "unknown") for i, s in expected(world).items()}
    assert statuses(doc) == want
    assert mutating(requests) == []
