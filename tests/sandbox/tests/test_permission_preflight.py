"""permission_preflight (issue 33) on the sandbox's real API server: a token bound to read-only roles (get, list,
watch on everything) is refused, before any change, with every permission the kind's run would need to change
things named, with the RBAC file that grants them; the audit log shows that the run of that token sent reviews
(create selfsubjectaccessreviews, which change nothing) and reads only. A token that may do everything passes."""
import json
import os
import uuid

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.preflight.permissions import describe as named
from privilege import MUTATING_VERBS, LogTail, ServiceAccounts, audit_requests, describe, is_change, run_playbook

READ_ONLY = [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]}]
EVERYTHING = [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]
PLAY = """
- hosts: localhost
  gather_facts: false
  connection: local
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  tasks:
    - name: Check the permissions of the run
      teardown.gates.permission_preflight:
        kind: "{{ kind }}"
        options: "{{ run_options }}"
      register: preflight
      ignore_errors: true
    - name: Keep the answer
      ansible.builtin.copy:
        content: "{{ preflight | to_json }}"
        dest: "{{ out }}"
        mode: "0600"
"""
KINDS = {
    "release_prune": ({"release_namespace": "ppa", "convoy_cluster_name": "c", "prune_cluster": True},
                      "extensions/rbac/release_prune.yml",
                      ["delete releases.core.convoy.kumodo.io in namespace ppa",
                       "delete clusters.core.convoy.kumodo.io in namespace ppa"]),
    "held_deletion": ({"held_namespace": "ppa", "held_kind": "TerraformCluster"}, "extensions/rbac/held_deletion.yml",
                      ["patch terraformclusters.infrastructure.cluster.x-k8s.io in namespace ppa"]),
    "hosted_cluster": ({"hosted_cluster_namespace": "ppa", "hosted_cluster_name": "hc"},
                       "extensions/rbac/hosted_cluster_destroy.yml",
                       ["patch hostedclusters.hypershift.openshift.io in namespace ppa",
                        "delete hostedclusters.hypershift.openshift.io in namespace ppa"]),
}


@pytest.fixture(scope="module")
def tokens(api_client, tmp_path_factory):
    tag = uuid.uuid4().hex[:5]
    accounts = ServiceAccounts(api_client, str(tmp_path_factory.mktemp("preflight")))
    ro, dummy = accounts.create("ppro" + tag, {"pp-ro-" + tag: READ_ONLY}, [], cluster=["pp-ro-" + tag])
    rw, dummy = accounts.create("pprw" + tag, {"pp-rw-" + tag: EVERYTHING}, [], cluster=["pp-rw-" + tag])
    yield {"ro": (ro, accounts.username("ppro" + tag)), "rw": (rw, accounts.username("pprw" + tag))}
    accounts.cleanup()


def preflight(tmp_path, kubeconfig, kind, options):
    (tmp_path / "play.yml").write_text(PLAY)
    out_file = tmp_path / ("out-%s.json" % uuid.uuid4().hex[:4])
    run = run_playbook(str(tmp_path / "play.yml"), {"kind": kind, "run_options": options, "out": str(out_file)},
                       str(tmp_path), {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig}, verbosity="")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    return json.loads(out_file.read_text())


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_read_only_token_is_refused_naming_every_missing_permission(tokens, tmp_path, kind):
    options, rbac, some_missing = KINDS[kind]
    kubeconfig, user = tokens["ro"]
    tail = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    out = preflight(tmp_path, kubeconfig, kind, options)
    assert out["failed"] is True
    for text in some_missing:
        assert text in out["missing"], out["missing"]
    # every permission that is not a read is missing, every read is granted: all of them were asked
    writes = [p for p in out["permissions"] if p["verb"] not in ("get", "list", "watch")]
    assert writes and sorted(out["missing"]) == sorted(named(p) for p in writes)
    assert out["unknown"] == [] and rbac in out["msg"] and out["msg"].startswith("missing permission")
    reqs = audit_requests(tail, user)
    reviews = [r for r in reqs if r.get("resource") == "selfsubjectaccessreviews"]
    assert len(reviews) == len(out["permissions"])
    assert all(r["verb"] == "create" for r in reviews)
    assert [describe(r) for r in reqs if r["verb"] in MUTATING_VERBS and r not in reviews] == []


def test_a_token_that_may_do_everything_passes(tokens, tmp_path):
    kubeconfig, user = tokens["rw"]
    options, dummy, dummy2 = KINDS["hosted_cluster"]
    out = preflight(tmp_path, kubeconfig, "hosted_cluster", dict(options, take_over_cleanup=True))
    assert not out.get("failed"), out.get("msg")
    assert out["missing"] == [] and all(p["allowed"] for p in out["permissions"])
    assert any(p["verb"] == "delete" and p["resource"] == "hostedcontrolplanes" for p in out["permissions"])


# each playbook that changes Kubernetes objects runs the review in roles/before_first_delete, before its first change
# (the destroy after its read-only baseline, which refuses a HostedCluster that does not exist unless infra_id names
# what to destroy: the infra ID given lets the run reach the review)
PLAYBOOKS = {
    "prune_releases": ({"release_namespace": "{ns}", "release_names": ["r1"]}, "extensions/rbac/release_prune.yml",
                       "delete releases.core.convoy.kumodo.io in namespace {ns}"),
    "release_held_deletion": ({"held_namespace": "{ns}"}, "extensions/rbac/held_deletion.yml",
                              "patch terraformclusters.infrastructure.cluster.x-k8s.io in namespace {ns}"),
    "destroy_hosted_cluster": ({"hosted_cluster_name": "hc", "hosted_cluster_namespace": "{ns}",
                                "infra_id": "{ns}-x7k2p", "destroy_cloud_resources": False}, "extensions/rbac/hosted_cluster_destroy.yml",
                               "delete hostedclusters.hypershift.openshift.io in namespace {ns}"),
}


@pytest.mark.parametrize("playbook", sorted(PLAYBOOKS))
def test_each_playbook_stops_a_read_only_token_before_any_change(tokens, tmp_path, playbook):
    extra, rbac, one_missing = PLAYBOOKS[playbook]
    ns = "ppb" + uuid.uuid4().hex[:6]
    extra = json.loads(json.dumps(extra).replace("{ns}", ns))
    kubeconfig, user = tokens["ro"]
    tail = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    run = run_playbook("teardown.gates." + playbook, dict(extra, report_dir=str(tmp_path / "reports")), str(tmp_path),
                       {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig}, verbosity="")
    said = run.stdout + run.stderr
    assert run.returncode != 0, said[-3000:]
    assert "missing permission" in said and rbac in said and one_missing.replace("{ns}", ns) in said, said[-3000:]
    reqs = audit_requests(tail, user)
    assert any(r.get("resource") == "selfsubjectaccessreviews" for r in reqs), "no review reached the API server"
    assert [describe(r) for r in reqs if is_change(r)] == []
