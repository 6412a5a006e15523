"""Least privilege: each playbook runs with a ServiceAccount bound to exactly the ClusterRoles shipped in
extensions/rbac/, and every request it makes (re-derived from the API server's audit log) is allowed by
them; without one of those permissions the run fails with a 403 that names verb, resource and namespace.
The same runs (-vvv, with a report folder) are then searched for the credentials they used."""
import copy
import os

import pytest

from privilege import ServiceAccounts, LogTail, audit_requests, describe, not_covered, run_playbook, seed, \
    shipped_roles, target_guards
from secrets_scan import assert_no_secrets, sandbox_secrets


@pytest.fixture()
def accounts(api_client, tmp_path):
    sa = ServiceAccounts(api_client, str(tmp_path))
    yield sa
    sa.cleanup()


def _check_run(out, tail, accounts, name, roles):
    reqs = audit_requests(tail, accounts.username(name))
    denied = sorted({describe(r) for r in reqs if r["code"] == 403})
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert not denied, "the shipped roles do not allow: %s" % denied
    rules = [rule for rs in roles.values() for rule in rs]
    assert not_covered(reqs, rules) == []
    return reqs


def test_prune_releases_with_the_shipped_roles(accounts, tmp_path):
    ns = "lpr-" + os.urandom(3).hex()
    seed("releases", "--name", ns, "--namespace", ns, "--count", "3", "--knob", "hook_seconds=0.3")
    roles = shipped_roles("release_prune.yml")
    kubeconfig, token = accounts.create("pruner", {"teardown-gates-release-prune": roles[
        "teardown-gates-release-prune"]}, [ns])
    # the verify role is bound where the Releases deploy, not in the Releases' namespace
    accounts.create_binding("pruner", "teardown-gates-release-prune-verify",
                            roles["teardown-gates-release-prune-verify"], namespace=ns + "-target")
    report = tmp_path / "report"
    tail = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    out = run_playbook("teardown.gates.prune_releases",
                       {"release_namespace": ns, "convoy_cluster_name": ns + "-cluster", "prune_cluster": True,
                        "report_dir": str(report), "timeout": 120}, str(tmp_path),
                       {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig})
    reqs = _check_run(out, tail, accounts, "pruner", roles)
    # the run did its job under these roles: the Releases and the Cluster were deleted
    deleted = {r["resource"] for r in reqs if r["verb"] == "delete"}
    assert deleted == {"releases", "clusters"}
    assert (report / "release_prune-report.json").exists()
    assert_no_secrets(tmp_path, out, sandbox_secrets() + [token])


def test_release_held_deletion_with_the_shipped_roles(accounts, dyn, tmp_path):
    ns = "lph-" + os.urandom(3).hex()
    enc = seed("captf", "--name", "enc", "--namespace", ns, "--knob", "state=encrypted", "--knob", "backups=0")
    uid = next(o["uid"] for o in enc["objects"] if o["kind"] == "TerraformCluster")
    roles = shipped_roles("held_deletion.yml")
    kubeconfig, token = accounts.create("releaser", roles, [ns], cluster=["teardown-gates-held-deletion-crds"])
    saved, report = tmp_path / "saved", tmp_path / "report"
    saved.mkdir()
    tail = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    out = run_playbook("teardown.gates.release_held_deletion",
                       {"held_namespace": ns, "abandon_uid": uid, "backup_dir": str(saved),
                        "report_dir": str(report), "timeout": 120}, str(tmp_path),
                       {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig})
    reqs = _check_run(out, tail, accounts, "releaser", roles)
    # the abandon (a patch; a restore is the same verb on the same resource) went through under the shipped roles
    assert {r["name"] for r in reqs if r["verb"] == "patch"} == {"enc"}
    assert list(saved.iterdir()), "the Secrets were not saved before the abandon"
    # the abandon is said loudly, naming the object and what keeps running (the release_held_deletion target did)
    assert "ABANDONED" in out.stdout and "%s/enc (uid %s) abandoned" % (ns, uid) in out.stdout, out.stdout[-3000:]
    assert_no_secrets(tmp_path, out, sandbox_secrets() + [token], skip=[saved])


# Out of `make test` (slow): about 2 minutes of the twins' gates. Where `make test` covers it: the shipped file
# grants each permission the destroy declares (tests/unit/plugins/module_utils/preflight/test_permissions.py), and
# the destroy reviews them against a real token before any change, naming this file
# (test_permission_preflight.py::test_each_playbook_stops_a_read_only_token_before_any_change). That every request of
# a whole destroy is allowed by the shipped roles is proven only here.
@pytest.mark.skipif(os.environ.get("TEARDOWN_GATES_SLOW_TESTS") != "1",
                    reason="about 2 minutes (the twins' gates): TEARDOWN_GATES_SLOW_TESTS=1 runs it")
def test_destroy_hosted_cluster_with_the_shipped_roles(accounts, tmp_path):
    ns = "lpd-" + os.urandom(3).hex()
    name = "hc" + os.urandom(2).hex()
    seeded = seed("hosted-cluster", "--name", name, "--namespace", ns)
    hcp = "%s-%s" % (ns, name)
    roles = shipped_roles("hosted_cluster_destroy.yml")
    kubeconfig, token = accounts.create("destroyer", {"teardown-gates-hosted-cluster-destroy": roles[
        "teardown-gates-hosted-cluster-destroy"]}, [ns])
    accounts.create_binding("destroyer", "teardown-gates-hosted-cluster-destroy-hcp",
                            roles["teardown-gates-hosted-cluster-destroy-hcp"], namespace=hcp)
    accounts.create_binding("destroyer", "teardown-gates-namespace-watcher", roles["teardown-gates-namespace-watcher"])
    report = tmp_path / "report"
    tail = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    out = run_playbook("teardown.gates.destroy_hosted_cluster",
                       {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "report_dir": str(report),
                        "cluster_grace_period": 240}, str(tmp_path),
                       {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig})
    reqs = _check_run(out, tail, accounts, "destroyer", roles)
    # the HostedCluster, and the Secrets the CLI made for its infra ID (HC-13), by name; not the neighbour's
    deleted = {(r["resource"], r.get("name")) for r in reqs if r["verb"] == "delete"}
    assert deleted == {("hostedclusters", name)} | {("secrets", s) for s in seeded["cli_secrets"]["names"]}
    assert_no_secrets(tmp_path, out, sandbox_secrets() + [token])


def test_sweep_orphans_with_the_shipped_roles(accounts, tmp_path):
    prefix = "lpo-" + os.urandom(3).hex()
    seed("aws-infra", "--name", prefix + "-a", "--knob", "zones=1", "--knob", "workers=0")
    roles = shipped_roles("orphan_sweep.yml")
    kubeconfig, token = accounts.create("sweeper", roles, [], cluster=["teardown-gates-orphan-sweep"])
    report = tmp_path / "report"
    guards = target_guards()  # sweep_delete requires them; read with the sandbox's admin, before the tail
    tail = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    out = run_playbook("teardown.gates.sweep_orphans",
                       dict({"infra_id_prefix": prefix, "min_age": "0", "sweep_delete": True, "report_dir": str(report)},
                            **guards),
                       str(tmp_path), {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig})
    reqs = _check_run(out, tail, accounts, "sweeper", roles)
    # the target guard read kube-system, the HostedClusters were listed (all namespaces) and nothing on the
    # management cluster was changed
    assert {(r.get("resource"), r["verb"]) for r in reqs if r.get("resource")} == {("hostedclusters", "list"),
                                                                                  ("namespaces", "get")}
    assert "destroyed %s-a" % prefix in out.stdout, out.stdout[-3000:]
    assert_no_secrets(tmp_path, out, sandbox_secrets() + [token])


def _without(roles, role, group, resource, verb):
    out = copy.deepcopy(roles)
    rules = []
    for rule in out[role]:
        if group in rule["apiGroups"] and resource in rule["resources"] and verb in rule["verbs"]:
            if len(rule["resources"]) > 1:
                rules.append(dict(rule, resources=[r for r in rule["resources"] if r != resource]))
            rule = dict(rule, resources=[resource], verbs=[v for v in rule["verbs"] if v != verb])
        if rule["verbs"]:
            rules.append(rule)
    out[role] = rules
    return out


@pytest.mark.parametrize("verb,resource", [("delete", "releases"), ("list", "releaseinventories")])
def test_prune_releases_without_a_permission_names_it(accounts, tmp_path, verb, resource):
    ns = "lpn-" + os.urandom(3).hex()
    seed("releases", "--name", ns, "--namespace", ns, "--count", "1", "--knob", "hooks=false")
    roles = _without(shipped_roles("release_prune.yml"), "teardown-gates-release-prune", "core.convoy.kumodo.io",
                     resource, verb)
    kubeconfig, _ = accounts.create("short", roles, [ns, ns + "-target"])
    out = run_playbook("teardown.gates.prune_releases", {"release_namespace": ns, "release_names": [ns + "-00"],
                                                         "timeout": 60},
                       str(tmp_path), {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig}, verbosity="")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    # the permission preflight stops the run before its first change (roles/before_first_delete), naming what is
    # missing: verb, resource (with its group) and namespace, and the RBAC file that grants it
    assert "missing permission" in text and "extensions/rbac/release_prune.yml" in text, text[-3000:]
    expected = "%s %s.core.convoy.kumodo.io in namespace %s" % (verb, resource, ns)
    assert expected in text, text[-3000:]
