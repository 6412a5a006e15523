"""Bad input, table-driven, over every module and role: wrong types, missing or conflicting options,
names that do not exist, wrong UIDs. Modules run in this process (their arguments in, their JSON out,
against the live sandbox: the same code path as under Ansible, without a process per case); roles run
in one ansible-playbook. Each case fails with a message that names the option (or, for a
read-only question about something that does not exist, answers without failing), and the whole
table sends no mutating request: none in the API server's audit log from the run's ServiceAccount
(bound to cluster-admin, so nothing but the modules' own checks stops a write), none in the AWS
request log from the run's access key."""
import importlib
import io
import json
import os
import uuid
from contextlib import redirect_stdout

import pytest
import yaml
from ansible.module_utils import basic
from kubernetes import client

from privilege import LogTail, is_change, ServiceAccounts, audit_requests, describe, run_playbook

WRONG_UID = "00000000-0000-4000-8000-000000000000"
TC_API = "infrastructure.cluster.x-k8s.io/v1alpha1"

# (case id, module or "role:<name>", arguments, what the message must name; None = must not fail)
CASES = [
    # finalizer
    ("finalizer-type", "finalizer", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                     "finalizer": ["example.com/keep"], "retries": "many"}, "retries"),
    ("finalizer-missing", "finalizer", {"kind": "ConfigMap", "namespace": "{ns}", "finalizer": ["example.com/keep"]},
     "name"),
    ("finalizer-choice", "finalizer", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                       "finalizer": ["example.com/keep"], "state": "gone"}, "state"),
    ("finalizer-annotations-absent", "finalizer", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                                   "finalizer": ["example.com/keep"],
                                                   "annotations": {"example.com/a": "1"}}, "annotations"),
    ("finalizer-annotation-value", "finalizer", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                                 "finalizer": ["example.com/keep"], "state": "present",
                                                 "annotations": {"example.com/a": True}}, "annotations"),
    ("finalizer-empty-list", "finalizer", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                           "finalizer": []}, "finalizer"),
    ("finalizer-bad-name", "finalizer", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                         "finalizer": ["not a finalizer!"]}, "finalizer"),
    ("finalizer-wrong-uid", "finalizer", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                          "finalizer": ["example.com/keep"], "only_if_deleting": False,
                                          "expected_uid": WRONG_UID}, "expected_uid"),
    ("finalizer-unknown-kind", "finalizer", {"kind": "NoSuchKind", "name": "held", "namespace": "{ns}",
                                             "finalizer": ["example.com/keep"], "state": "present"}, "NoSuchKind"),
    ("finalizer-spec-scope", "finalizer", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                           "finalizer": ["kubernetes"], "scope": "spec"}, "scope"),
    # wait_gate
    ("wait_gate-missing", "wait_gate", {"timeout": 5}, "gates"),
    ("wait_gate-choice", "wait_gate", {"timeout": 5, "gates": [{"name": "g", "until": "later", "resources": [
        {"api_version": "v1", "kind": "ConfigMap", "namespace": "{ns}", "name": "held"}]}]}, "until"),
    ("wait_gate-condition-missing", "wait_gate", {"timeout": 5, "gates": [{"name": "g", "until": "condition",
                                                                           "resources": [
        {"api_version": "v1", "kind": "ConfigMap", "namespace": "{ns}", "name": "held"}]}]}, "condition"),
    ("wait_gate-no-resources", "wait_gate", {"timeout": 5, "gates": [{"name": "g", "resources": []}]}, "resources"),
    ("wait_gate-timeout", "wait_gate", {"timeout": -1, "gates": [{"name": "g", "resources": [
        {"api_version": "v1", "kind": "ConfigMap", "namespace": "{ns}", "name": "held"}]}]}, "timeout"),
    # deletion_info
    ("deletion_info-missing", "deletion_info", {"name": "held", "namespace": "{ns}"}, "kind"),
    ("deletion_info-type", "deletion_info", {"kind": "ConfigMap", "name": "held", "namespace": "{ns}",
                                             "request_timeout": "soon"}, "request_timeout"),
    ("deletion_info-absent", "deletion_info", {"kind": "ConfigMap", "name": "no-such-object", "namespace": "{ns}"},
     None),
    # held_deletion
    ("held_deletion-abandon-no-uid", "held_deletion", {"action": "abandon", "name": "tc", "namespace": "{ns}"},
     "confirm_uid"),
    ("held_deletion-restore-no-serial", "held_deletion", {"action": "restore", "name": "tc", "namespace": "{ns}"},
     "backup_serial"),
    ("held_deletion-wrong-uid", "held_deletion", {"action": "abandon", "name": "tc", "namespace": "{ns}",
                                                  "confirm_uid": WRONG_UID}, "confirm_uid"),
    ("held_deletion-kind", "held_deletion", {"kind": "Cluster", "name": "tc", "namespace": "{ns}"}, "kind"),
    ("held_deletion-missing", "held_deletion", {"name": "tc"}, "namespace"),
    ("held_deletion-age", "held_deletion", {"name": "tc", "namespace": "{ns}", "min_age": -5}, "min_age"),
    # convoy_release_info
    ("convoy_release_info-missing", "convoy_release_info", {"names": ["a"]}, "namespace"),
    ("convoy_release_info-type", "convoy_release_info", {"namespace": "{ns}", "names": ["a"],
                                                         "request_timeout": "soon"}, "request_timeout"),
    ("convoy_release_info-age", "convoy_release_info", {"namespace": "{ns}", "names": ["a"], "min_age": "banana"},
     "min_age"),
    # convoy_delete
    ("convoy_delete-no-uid", "convoy_delete", {"namespace": "{ns}", "objects": [{"name": "r"}]}, "uid"),
    ("convoy_delete-kind", "convoy_delete", {"namespace": "{ns}", "kind": "Deployment",
                                             "objects": [{"name": "r", "uid": WRONG_UID}]}, "kind"),
    # aws_infra_inventory
    ("aws_infra_inventory-missing", "aws_infra_inventory", {"base_domain": "example.com"}, "infra_id"),
    ("aws_infra_inventory-blank", "aws_infra_inventory", {"infra_id": "  "}, "infra_id"),
    ("aws_infra_inventory-age", "aws_infra_inventory", {"infra_id": "bi-none", "min_age": "banana"}, "min_age"),
    # hosted_cluster_baseline (the hosted-cluster destroy's Phase 1 in one run)
    ("hosted_cluster_baseline-missing", "hosted_cluster_baseline", {"name": "nothere", "namespace": "{ns}"}, "baseline_path"),
    ("hosted_cluster_baseline-timeout", "hosted_cluster_baseline", {"name": "nothere", "namespace": "{ns}",
                                                                    "baseline_path": "/nonexistent/b.json",
                                                                    "request_timeout": 0}, "request_timeout"),
    ("hosted_cluster_baseline-absent", "hosted_cluster_baseline", {"name": "nothere", "namespace": "{ns}",
                                                                   "baseline_path": "/nonexistent/b.json"}, "give infra_id"),
    ("hosted_cluster_baseline-age", "hosted_cluster_baseline", {"infra_id": "bi-none", "baseline_path": "/nonexistent/b.json",
                                                                "min_age": "banana"}, "min_age"),
    ("aws_infra_cleanup-age", "aws_infra_cleanup", {"manifest": {"AWS::EC2::VPC": ["vpc-1"]}, "min_age": -5}, "min_age"),
    # teardown_verify
    ("teardown_verify-age", "teardown_verify", {"objects": [{"kind": "ConfigMap", "name": "held", "namespace": "{ns}"}],
                                                "manifest": {"AWS::EC2::VPC": ["vpc-1"]}, "min_age": -5}, "min_age"),
    ("teardown_verify-kind", "teardown_verify", {"objects": [{"name": "held", "namespace": "{ns}"}], "manifest": {}},
     "kind"),
    ("teardown_verify-missing", "teardown_verify", {"manifest": {}}, "objects"),
    # aws_infra_cleanup
    ("aws_infra_cleanup-both", "aws_infra_cleanup", {"manifest": {"AWS::EC2::VPC": ["vpc-1"]}, "infra_id": "x"},
     "manifest"),
    ("aws_infra_cleanup-neither", "aws_infra_cleanup", {"preserve_iam": True}, "manifest"),
    ("aws_infra_cleanup-unknown-type", "aws_infra_cleanup", {"manifest": {"AWS::EC2::Banana": ["b-1"]}}, "manifest"),
    ("aws_infra_cleanup-no-file", "aws_infra_cleanup", {"manifest": "/nonexistent/manifest.json"}, "manifest"),
    ("aws_infra_cleanup-concurrency", "aws_infra_cleanup", {"manifest": {"AWS::EC2::VPC": ["vpc-1"]},
                                                            "concurrency": 0}, "concurrency"),
    ("aws_infra_cleanup-wait", "aws_infra_cleanup", {"manifest": {"AWS::EC2::VPC": ["vpc-1"]},
                                                     "wait_timeout": -5}, "wait_timeout"),
    ("aws_infra_cleanup-type", "aws_infra_cleanup", {"manifest": {"AWS::EC2::VPC": ["vpc-1"]},
                                                     "preserve_iam": "perhaps"}, "preserve_iam"),
    ("aws_infra_cleanup-retain-type", "aws_infra_cleanup", {"manifest": {"AWS::EC2::VPC": ["vpc-1"]},
                                                            "retain": {"AWS::EC2::Banana": ["b-1"]}}, "retain"),
    # cloudformation_teardown
    ("aws_orphan_inventory-negative-age", "aws_orphan_inventory", {"min_age": "-3h"}, "min_age"),
    ("aws_orphan_inventory-unparseable-age", "aws_orphan_inventory", {"min_age": "soon"}, "min_age"),
    ("aws_orphan_inventory-unknown-context", "aws_orphan_inventory", {"management_contexts": ["no-such-context"]},
     "management_contexts"),
    ("cloudformation_teardown-missing", "cloudformation_teardown", {"clear": ["empty_buckets"]}, "stack_name"),
    ("cloudformation_teardown-choice", "cloudformation_teardown", {"stack_name": "s", "clear": ["everything"]},
     "clear"),
    ("cloudformation_teardown-poll", "cloudformation_teardown", {"stack_name": "s", "poll_interval": 0}, "poll_interval"),
    ("cloudformation_teardown-wait", "cloudformation_teardown", {"stack_name": "s", "wait_timeout": 0},
     "wait_timeout"),
    # consent to release holders outside the stack (#55): a list of IDs, nothing else
    ("cloudformation_teardown-outside", "cloudformation_teardown", {"stack_name": "s", "clear": ["release_dependencies"],
                                                                    "release_outside_stack": [{"id": "eni-1"}]},
     "release_outside_stack"),
    # permission_preflight (its Kubernetes part, its AWS part)
    ("permission_preflight-neither", "permission_preflight", {}, "kind or aws_kind"),
    ("permission_preflight-namespace", "permission_preflight", {"kind": "release_prune", "options": {}},
     "release_namespace"),
    ("permission_preflight-aws-choice", "permission_preflight",
     {"aws_kind": "cfn", "options": {"clear": ["everything"]}}, "options.clear"),
    # aws_permission_preflight
    ("aws_permission_preflight-neither", "aws_permission_preflight", {}, "kind or actions"),
    ("aws_permission_preflight-action", "aws_permission_preflight", {"actions": ["DeleteVpc"]}, "actions"),
    ("aws_permission_preflight-ids", "aws_permission_preflight", {"kind": "hosted_cluster",
                                                                  "dry_run_ids": {"Vpc": "vpc-1"}}, "dry_run_ids"),
    # teardown_report
    ("teardown_report-missing", "teardown_report", {"cluster": {"name": "c"}}, "report_dir"),
    ("teardown_report-type", "teardown_report", {"report_dir": "/tmp", "cluster": "c"}, "cluster"),
    # target_guard (docs/runbook-before-the-first-delete.md)
    ("target_guard-account", "target_guard", {"expected_aws_account_id": "12345678901"}, "expected_aws_account_id"),
    ("target_guard-cluster", "target_guard", {"expected_management_cluster": ["mgmt-east"]},
     "expected_management_cluster"),
    ("target_guard-confirm", "target_guard", {"require_confirmation": True, "expected_aws_account_id": "123456789012",
                                              "expected_management_cluster": [WRONG_UID], "confirm_account": " "},
     "confirm_account"),
    ("target_guard-no-aws", "target_guard", {"touches_aws": False, "expected_aws_account_id": "123456789012"},
     "expected_aws_account_id"),
    # roles (meta/argument_specs.yml and the roles' own checks)
    ("role-hosted_cluster_destroy-missing", "role:hosted_cluster_destroy", {"hosted_cluster_namespace": "{ns}"},
     "hosted_cluster_name"),
    ("role-hosted_cluster_destroy-type", "role:hosted_cluster_destroy", {
        "hosted_cluster_name": "hc", "hosted_cluster_namespace": "{ns}", "cluster_grace_period": "soon"},
     "cluster_grace_period"),
    ("role-hosted_cluster_destroy-absent", "role:hosted_cluster_destroy", {
        "hosted_cluster_name": "no-such-cluster", "hosted_cluster_namespace": "{ns}", "destroy_cloud_resources": False},
     "no-such-cluster"),
    ("role-cfn_refusals-conflict", "role:cfn_refusals", {"cfn_stacks": ["s"], "cfn_stack_prefix": "p"}, "cfn_stacks"),
    ("role-cfn_refusals-choice", "role:cfn_refusals", {"cfn_stacks": ["s"], "cfn_clear": ["everything"]},
     "cfn_clear"),
    ("role-cfn_refusals-type", "role:cfn_refusals", {"cfn_stacks": ["s"], "cfn_wait_timeout": "soon"},
     "cfn_wait_timeout"),
    ("role-cfn_refusals-outside", "role:cfn_refusals", {"cfn_stacks": ["s"], "cfn_release_outside_stack": {"eni": 1}},
     "cfn_release_outside_stack"),
    ("role-release_prune-missing", "role:release_prune", {"release_names": ["a"]}, "release_namespace"),
    ("role-release_prune-type", "role:release_prune", {"release_namespace": "{ns}", "release_names": ["a"],
                                                       "timeout": "soon"}, "timeout"),
    ("role-release_prune-conflict", "role:release_prune", {"release_namespace": "{ns}", "release_names": ["a"],
                                                           "convoy_cluster_name": "c"}, "convoy_cluster_name"),
    ("role-release_prune-batch", "role:release_prune", {"release_namespace": "{ns}", "release_names": ["a"],
                                                        "release_prune_batch_size": "ten"}, "release_prune_batch_size"),
    ("role-orphan_sweep-age", "role:orphan_sweep", {"min_age": "-1", "infra_id_prefix": "bi-none-"}, "min_age"),
    ("role-orphan_sweep-type", "role:orphan_sweep", {"sweep_delete": "maybe"}, "sweep_delete"),
    ("role-orphan_sweep-context", "role:orphan_sweep", {"management_contexts": ["no-such-context"]},
     "management_contexts"),
    ("role-orphan_sweep-confirm", "role:orphan_sweep", {
        "sweep_delete": True, "infra_id_prefix": "bi-none-", "expected_aws_account_id": "123456789012",
        "expected_management_cluster": WRONG_UID, "confirm_account": ""}, "confirm_account"),
    ("role-orphan_sweep-account", "role:orphan_sweep", {
        "sweep_delete": True, "infra_id_prefix": "bi-none-", "expected_aws_account_id": "1234-5678-9012",
        "expected_management_cluster": WRONG_UID, "confirm_account": "1234-5678-9012"}, "expected_aws_account_id"),
    ("role-hosted_cluster_destroy-account", "role:hosted_cluster_destroy", {
        "hosted_cluster_name": "hc", "hosted_cluster_namespace": "{ns}", "expected_aws_account_id": "12345"},
     "expected_aws_account_id"),
    ("role-held_deletion-account", "role:held_deletion", {"held_namespace": "{ns}",
                                                          "expected_aws_account_id": "123456789012"},
     "expected_aws_account_id"),
    ("role-held_deletion-missing", "role:held_deletion", {"held_name": "tc"}, "held_namespace"),
    ("role-held_deletion-choice", "role:held_deletion", {"held_namespace": "{ns}", "held_kind": "Machine"},
     "held_kind"),
    ("role-held_deletion-type", "role:held_deletion", {"held_namespace": "{ns}", "prefer_restore": "maybe"},
     "prefer_restore"),
    # approved_plan_digest (#33): not 64 hexadecimal characters, refused before any request
    ("role-hosted_cluster_destroy-digest", "role:hosted_cluster_destroy", {
        "hosted_cluster_name": "hc", "hosted_cluster_namespace": "{ns}", "approved_plan_digest": "abc"}, "approved_plan_digest"),
    ("role-release_prune-digest", "role:release_prune", {"release_namespace": "{ns}", "release_names": ["a"],
                                                         "approved_plan_digest": "abc"}, "approved_plan_digest"),
    ("role-cfn_refusals-digest", "role:cfn_refusals", {"cfn_stacks": ["s"], "approved_plan_digest": "z" * 64}, "approved_plan_digest"),
    ("role-orphan_sweep-digest", "role:orphan_sweep", {"infra_id_prefix": "bi-none-", "approved_plan_digest": "abc"},
     "approved_plan_digest"),
    ("role-held_deletion-digest", "role:held_deletion", {"held_namespace": "{ns}", "approved_plan_digest": "abc"},
     "approved_plan_digest"),
    # min_age (#33): negative or not a duration, refused before any request
    ("role-release_prune-age", "role:release_prune", {"release_namespace": "{ns}", "release_names": ["a"],
                                                      "min_age": "banana"}, "min_age"),
    ("role-cfn_refusals-age", "role:cfn_refusals", {"cfn_stacks": ["s"], "min_age": -5}, "min_age"),
    ("role-held_deletion-age", "role:held_deletion", {"held_namespace": "{ns}", "min_age": "banana"}, "min_age"),
    ("role-hosted_cluster_destroy-age", "role:hosted_cluster_destroy", {
        "hosted_cluster_name": "hc", "hosted_cluster_namespace": "{ns}", "min_age": -5}, "min_age"),
    ("deletion_info-bad-api-version", "deletion_info", {"api_version": "apps/v1/extra", "kind": "Deployment",
                                                        "name": "d", "namespace": "{ns}", "diagnose": True}, "api_version"),
    ("role-diagnose_deletion-missing-name", "role:diagnose_deletion", {"kind": "ConfigMap", "namespace": "{ns}"},
     "name"),
    ("role-diagnose_deletion-bad-api-version", "role:diagnose_deletion", {
        "api_version": "Apps/V1", "kind": "Deployment", "namespace": "{ns}", "name": "d"}, "api_version"),
    ("role-diagnose_deletion-unknown-kind", "role:diagnose_deletion", {
        "kind": "NoSuchKind", "namespace": "{ns}", "name": "held"}, "kind"),
]


def _fill(value, ns):
    if isinstance(value, str):
        return value.replace("{ns}", ns)
    if isinstance(value, list):
        return [_fill(v, ns) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, ns) for k, v in value.items()}
    return value


def run_module(name, args):
    """Run one module in this process, as Ansible would run it (its arguments, its JSON on stdout)."""
    basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": args}).encode()
    basic._ANSIBLE_PROFILE = "legacy"
    mod = importlib.import_module("ansible_collections.teardown.gates.plugins.modules." + name)
    buf = io.StringIO()
    with redirect_stdout(buf):
        try:
            mod.main()
        except SystemExit:
            pass
    out = json.loads(buf.getvalue())
    return {"failed": bool(out.get("failed")), "msg": out.get("msg", ""), "changed": out.get("changed", False)}


def _role_playbook(ns, results_path, cases):
    tasks = []
    for cid, target, args, _ in cases:
        var = "case_" + cid.replace("-", "_")
        step = {"name": cid, "ansible.builtin.include_role": {"name": "teardown.gates." + target[5:]},
                "vars": _fill(args, ns)}
        tasks.append({"name": "case " + cid, "block": [step, {"name": "Passed", "ansible.builtin.set_fact": {
            var: {"failed": False, "changed": False, "msg": ""}}}],
            "rescue": [{"name": "Failed", "ansible.builtin.set_fact": {var: {
                "failed": True, "msg": "{{ ansible_failed_result.msg | default('') }}",
                "changed": "{{ ansible_failed_result.changed | default(false) }}"}}}]})
    tasks.append({"name": "Keep the results", "ansible.builtin.copy": {
        "dest": results_path, "mode": "0600",
        "content": "{{ {%s} | to_json }}" % ", ".join(
            "'%s': case_%s" % (c[0], c[0].replace("-", "_")) for c in cases)}})
    return [{"hosts": "localhost", "gather_facts": False, "connection": "local",
             "vars": {"ansible_python_interpreter": "{{ ansible_playbook_python }}"}, "tasks": tasks}]


@pytest.fixture(scope="module")
def table(api_client, dyn, tmp_path_factory):
    work = tmp_path_factory.mktemp("bad-input")
    core = client.CoreV1Api(api_client)
    ns = "bi-" + uuid.uuid4().hex[:6]
    core.create_namespace({"metadata": {"name": ns}})
    core.create_namespaced_config_map(ns, {"metadata": {"name": "held", "finalizers": ["example.com/keep"]}})
    dyn.resources.get(api_version=TC_API, kind="TerraformCluster").create(namespace=ns, body={
        "apiVersion": TC_API, "kind": "TerraformCluster", "metadata": {"name": "tc"}, "spec": {}})
    accounts = ServiceAccounts(api_client, str(work))
    saved_env = dict(os.environ)
    got = {}
    try:
        kubeconfig, _ = accounts.create("admin", {"teardown-gates-bad-input": [
            {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}, [], cluster=["teardown-gates-bad-input"])
        key_id = "AKID" + uuid.uuid4().hex[:16].upper()
        env = {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig, "AWS_ACCESS_KEY_ID": key_id}
        audit, aws = LogTail(os.environ["SANDBOX_AUDIT_LOG"]), LogTail(os.environ["SANDBOX_AWS_LOG"])
        os.environ.update(env)
        for cid, target, args, _ in CASES:
            if not target.startswith("role:"):
                got[cid] = run_module(target, _fill(args, ns))
        os.environ.clear()
        os.environ.update(saved_env)
        roles = [c for c in CASES if c[1].startswith("role:")]
        results = str(work / "results.json")
        (work / "play.yml").write_text(yaml.safe_dump(_role_playbook(ns, results, roles), sort_keys=False))
        out = run_playbook(str(work / "play.yml"), {}, str(work), env, verbosity="")
        assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
        with open(results) as f:
            got.update(json.load(f))
        reqs = audit_requests(audit, accounts.username("admin"))
        aws_lines = [r for r in aws.lines(settle=0) if r.get("key_id") == key_id]
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        accounts.cleanup()
    yield {"cases": got, "k8s": reqs, "aws": aws_lines, "ns": ns}
    core.patch_namespaced_config_map("held", ns, {"metadata": {"finalizers": None}})


@pytest.mark.parametrize("cid,target,expect", [(c[0], c[1], c[3]) for c in CASES], ids=[c[0] for c in CASES])
def test_case(table, cid, target, expect):
    r = table["cases"][cid]
    if expect is None:
        assert not r["failed"], r
        assert r["changed"] in (False, "False", "false"), r
    else:
        assert r["failed"], "%s did not fail: %s" % (cid, r)
        assert expect in r["msg"], "%s: the message does not name %r: %s" % (cid, expect, r["msg"])


def test_no_mutating_request(table):
    assert table["k8s"], "the run's ServiceAccount made no request at all: the audit log was not read right"
    writes = [describe(r) for r in table["k8s"] if is_change(r)]
    assert writes == []
    prefixes = ("Delete", "Terminate", "Detach", "Disassociate", "Release", "Revoke", "Remove", "Change", "Put",
                "Create", "Attach", "Associate", "Modify", "Update")
    assert [r["action"] for r in table["aws"] if r["action"].startswith(prefixes)] == []
