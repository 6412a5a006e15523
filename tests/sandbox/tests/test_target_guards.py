"""Before the first delete: the target guards (issue 33, docs/runbook-before-the-first-delete.md), on the sandbox.

A wrong expected_aws_account_id or expected_management_cluster refuses destroy_hosted_cluster and sweep_orphans
(with sweep_delete) before any change: from the AWS request log (by the run's own access key) and the API server's
audit log (by the run's own ServiceAccount, which may do everything, so that only the guard stops a write) not one
mutating request was sent, and the target is still there. The right guards let the run go on. The refusals name the
option, what was expected and what was observed; the guard's own reads carry our user agent."""
import os
import uuid

import pytest
from kubernetes import client

from privilege import (LogTail, is_change, ServiceAccounts, audit_requests, describe, retire_hosted_cluster,
                       run_playbook, seed, target_guards)

EVERYTHING = [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
              {"nonResourceURLs": ["*"], "verbs": ["get"]}]
AWS_READS = ("Describe", "List", "Get", "Head")
WRONG_ACCOUNT = "000000000000"
WRONG_UID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def world(api_client, tmp_path_factory):
    tag = "tg" + uuid.uuid4().hex[:5]
    seed("hosted-cluster", "--name", tag, "--namespace", tag)
    infra = seed("aws-infra", "--name", tag + "-orphan", "--knob", "zones=1", "--knob", "workers=0")
    accounts = ServiceAccounts(api_client, str(tmp_path_factory.mktemp("guards")))
    kubeconfig, _token = accounts.create("guarded", {"tg-everything-" + tag: EVERYTHING}, [],
                                         cluster=["tg-everything-" + tag])
    yield {"tag": tag, "infra": infra, "api": api_client, "kubeconfig": kubeconfig, "accounts": accounts,
           "guards": target_guards(kubeconfig)}
    accounts.cleanup()
    retire_hosted_cluster(tag, tag)


def run(world, tmp_path, playbook, extra, check=False):
    key = "AKTG" + uuid.uuid4().hex[:16].upper()
    env = {"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": "guard" + uuid.uuid4().hex,
           "KUBECONFIG": world["kubeconfig"], "K8S_AUTH_KUBECONFIG": world["kubeconfig"]}
    aws_tail, kube_tail = LogTail(os.environ["SANDBOX_AWS_LOG"]), LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    user_agents = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    out = run_playbook("teardown.gates." + playbook, dict(extra, report_dir=str(tmp_path / "report")),
                       str(tmp_path), env, verbosity="", check=check)
    aws = [r for r in aws_tail.lines(settle=0.2) if r.get("key_id") == key]
    kube = audit_requests(kube_tail, world["accounts"].username("guarded"))
    agents = {e.get("userAgent", "") for e in user_agents.lines(settle=0)
              if e.get("user", {}).get("username") == world["accounts"].username("guarded")
              and (e.get("objectRef") or {}).get("name") == "kube-system"}
    return out, aws, kube, agents


def writes(aws, kube):
    return (sorted({"%s:%s" % (r["service"], r["action"]) for r in aws if not r["action"].startswith(AWS_READS)}),
            sorted({describe(r) for r in kube if is_change(r)}))


def destroy_vars(world, **guards):
    return dict({"hosted_cluster_name": world["tag"], "hosted_cluster_namespace": world["tag"]}, **guards)


def sweep_vars(world, **guards):
    return dict({"infra_id_prefix": world["tag"] + "-orphan", "min_age": "0", "sweep_delete": True}, **guards)


def hosted_cluster_untouched(world):
    hc = client.CustomObjectsApi(world["api"]).get_namespaced_custom_object(
        "hypershift.openshift.io", "v1beta1", world["tag"], "hostedclusters", world["tag"])
    return hc["metadata"].get("deletionTimestamp") is None


def test_a_wrong_account_refuses_the_destroy_before_any_change(world, tmp_path):
    out, aws, kube, _agents = run(world, tmp_path, "destroy_hosted_cluster.yml",
                                  destroy_vars(world, expected_aws_account_id=WRONG_ACCOUNT))
    assert out.returncode != 0
    text = out.stdout
    assert "expected_aws_account_id: expected %s, but the credentials are those of account %s" % (
        WRONG_ACCOUNT, world["guards"]["expected_aws_account_id"]) in text, text[-3000:]
    assert writes(aws, kube) == ([], [])
    # the guard read the caller identity, and nothing after it was sent to AWS
    assert [r["action"] for r in aws] == ["GetCallerIdentity"]
    assert hosted_cluster_untouched(world)


def test_a_wrong_management_cluster_refuses_the_destroy_before_any_change(world, tmp_path):
    out, aws, kube, agents = run(world, tmp_path, "destroy_hosted_cluster.yml",
                                 destroy_vars(world, expected_management_cluster=WRONG_UID))
    assert out.returncode != 0
    assert "expected_management_cluster: expected %s, but the management cluster is kube-system UID %s" % (
        WRONG_UID, world["guards"]["expected_management_cluster"]) in out.stdout, out.stdout[-3000:]
    assert writes(aws, kube) == ([], [])
    assert aws == []  # only the cluster guard was set: no AWS request at all
    assert any("(target_guard)" in a and a.startswith("teardown.gates/") for a in agents), agents
    assert hosted_cluster_untouched(world)


def test_the_right_guards_let_the_destroy_go_on(world, tmp_path):
    # check mode: past the guard the plan reads the HostedCluster and its AWS infrastructure, and changes nothing
    out, aws, kube, _agents = run(world, tmp_path, "destroy_hosted_cluster.yml",
                                  destroy_vars(world, **world["guards"]), check=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    actions = [r["action"] for r in aws]
    assert actions[0] == "GetCallerIdentity" and len(actions) > 1
    assert any(r["verb"] == "get" and r.get("name") == "kube-system" for r in kube)
    assert any(r.get("resource") == "hostedclusters" for r in kube)


@pytest.mark.parametrize("wrong", ["account", "cluster", "confirmation"])
def test_a_wrong_target_refuses_the_sweep_before_any_change(world, tmp_path, wrong):
    guards = dict(world["guards"])
    if wrong == "account":
        guards.update(expected_aws_account_id=WRONG_ACCOUNT)
        names = "expected_aws_account_id: expected %s" % WRONG_ACCOUNT
    elif wrong == "cluster":
        guards.update(expected_management_cluster=WRONG_UID)
        names = "expected_management_cluster: expected %s" % WRONG_UID
    else:
        guards.update(confirm_account="not-this-account")
        names = "confirm_account: typed 'not-this-account'"
    out, aws, kube, _agents = run(world, tmp_path, "sweep_orphans.yml", sweep_vars(world, **guards))
    assert out.returncode != 0
    assert names in out.stdout, out.stdout[-3000:]
    assert writes(aws, kube) == ([], [])
    # refused before the region was scanned: only the guard's reads reached AWS
    assert {r["action"] for r in aws} <= {"GetCallerIdentity", "ListAccountAliases"}, aws


def test_the_sweep_without_its_guards_is_refused_before_any_request(world, tmp_path):
    out, aws, kube, _agents = run(world, tmp_path, "sweep_orphans.yml", sweep_vars(world))
    assert out.returncode != 0
    for option in ("expected_aws_account_id: required with sweep_delete: true",
                   "expected_management_cluster: required with sweep_delete: true",
                   "confirm_account: required with sweep_delete: true"):
        assert option in out.stdout, out.stdout[-3000:]
    assert aws == [] and writes(aws, kube) == ([], [])
