"""The foundation's promises, checked against the running sandbox."""
import json
import os
import subprocess
import time
import uuid

import pytest
from kubernetes import client

from conftest import REPO

K8S_VERSION = os.environ.get("SANDBOX_K8S_VERSION", "v1.36.3")


def test_apiserver_serves_pinned_release(api_client):
    info = client.VersionApi(api_client).get_code()
    assert info.git_version == K8S_VERSION


def test_namespace_controller_removes_deleted_namespace(core):
    name = "ns-" + uuid.uuid4().hex[:8]
    core.create_namespace({"metadata": {"name": name}})
    core.create_namespaced_config_map(name, {"metadata": {"name": "content"}, "data": {"a": "b"}})
    core.delete_namespace(name)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            core.read_namespace(name)
        except client.ApiException as e:
            assert e.status == 404
            return
        time.sleep(0.5)
    pytest.fail(f"namespace {name} still present 30 s after delete: is the namespace controller running?")


def test_garbage_collector_deletes_dependents(core):
    owner = core.create_namespaced_config_map("default", {"metadata": {"name": "gc-owner-" + uuid.uuid4().hex[:6]}})
    dep_name = "gc-dep-" + uuid.uuid4().hex[:6]
    core.create_namespaced_config_map("default", {"metadata": {"name": dep_name, "ownerReferences": [{
        "apiVersion": "v1", "kind": "ConfigMap", "name": owner.metadata.name, "uid": owner.metadata.uid}]}})
    core.delete_namespaced_config_map(owner.metadata.name, "default")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            core.read_namespaced_config_map(dep_name, "default")
        except client.ApiException as e:
            assert e.status == 404
            return
        time.sleep(0.5)
    pytest.fail("dependent ConfigMap not collected within 30 s: is the garbage collector running?")


def test_custom_resource_finalizer_holds_deletion(dyn):
    api = dyn.resources.get(api_version="hypershift.openshift.io/v1beta1", kind="NodePool")
    name = "np-" + uuid.uuid4().hex[:6]
    api.create(namespace="default", body={"apiVersion": "hypershift.openshift.io/v1beta1", "kind": "NodePool",
                                           "metadata": {"name": name, "finalizers": ["example.com/hold"]},
                                           "spec": {"clusterName": "x", "replicas": 1}})
    api.delete(name=name, namespace="default")
    time.sleep(1)
    held = api.get(name=name, namespace="default")
    assert held.metadata.deletionTimestamp, "a finalizer must keep the object with a deletionTimestamp"
    api.patch(name=name, namespace="default", content_type="application/json-patch+json",
              body=[{"op": "test", "path": "/metadata/finalizers/0", "value": "example.com/hold"},
                    {"op": "remove", "path": "/metadata/finalizers/0"}])
    with pytest.raises(Exception) as exc:
        for _ in range(50):
            api.get(name=name, namespace="default")
            time.sleep(0.1)
    assert getattr(exc.value, "status", None) == 404


def test_strategic_merge_patch_on_custom_resource_is_refused(api_client, dyn):
    api = dyn.resources.get(api_version="hypershift.openshift.io/v1beta1", kind="NodePool")
    name = "smp-" + uuid.uuid4().hex[:6]
    api.create(namespace="default", body={"apiVersion": "hypershift.openshift.io/v1beta1", "kind": "NodePool",
                                           "metadata": {"name": name}, "spec": {"clusterName": "x"}})
    with pytest.raises(Exception) as exc:
        api.patch(name=name, namespace="default", content_type="application/strategic-merge-patch+json",
                  body={"metadata": {"finalizers": []}})
    assert getattr(exc.value, "status", None) == 415
    api.delete(name=name, namespace="default")


def test_rbac_is_enforced_and_service_account_tokens_are_minted(core, api_client):
    ns = "default"
    sa = "probe-" + uuid.uuid4().hex[:6]
    core.create_namespaced_service_account(ns, {"metadata": {"name": sa}})
    tr = core.create_namespaced_service_account_token(sa, ns, {"spec": {"expirationSeconds": 600}})
    cfg = client.Configuration()
    cfg.host = api_client.configuration.host
    cfg.ssl_ca_cert = api_client.configuration.ssl_ca_cert
    cfg.api_key = {"authorization": "Bearer " + tr.status.token}
    limited = client.CoreV1Api(client.ApiClient(cfg))
    with pytest.raises(client.ApiException) as exc:
        limited.list_namespace()
    assert exc.value.status == 403
    assert f"system:serviceaccount:{ns}:{sa}" in exc.value.body


def test_audit_log_records_verb_resource_user_agent(core):
    marker = "ns-audit-" + uuid.uuid4().hex[:6]
    core.create_namespace({"metadata": {"name": marker}})
    core.delete_namespace(marker)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with open(os.environ["SANDBOX_AUDIT_LOG"]) as f:
            hits = [json.loads(line) for line in f if marker in line]
        creates = [h for h in hits if h.get("verb") == "create" and h.get("objectRef", {}).get("resource") == "namespaces"]
        if creates:
            ev = creates[0]
            assert ev["user"]["username"] == "sandbox-admin"
            assert ev.get("userAgent")
            return
        time.sleep(0.5)
    pytest.fail("no audit event for the namespace create")


def test_boto3_reaches_moto_and_is_logged(ec2):
    before = os.path.getsize(os.environ["SANDBOX_AWS_LOG"]) if os.path.exists(os.environ["SANDBOX_AWS_LOG"]) else 0
    ec2.describe_vpcs()
    with pytest.raises(Exception) as exc:
        ec2.delete_vpc(VpcId="vpc-0000000000doesnotexist")
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        f.seek(before)
        recs = [json.loads(line) for line in f]
    assert {"service": "ec2", "action": "DescribeVpcs", "status": 200} in [
        {k: r[k] for k in ("service", "action", "status")} for r in recs]
    refused = [r for r in recs if r["action"] == "DeleteVpc"]
    assert refused and refused[0]["status"] >= 400 and refused[0]["error_code"], refused
    assert "NotFound" in str(exc.value) or "InvalidVpcID" in str(exc.value)


def test_seed_prints_json_description_last(sandbox_cli):
    out = sandbox_cli("seed", "smoke", "--name", "smk-" + uuid.uuid4().hex[:5], "--namespace", "smoke-seed")
    assert out.returncode == 0, out.stderr
    desc = json.loads(out.stdout.strip().splitlines()[-1])
    assert desc["namespace"] == "smoke-seed"
    kinds = {o["kind"] for o in desc["objects"]}
    assert {"Namespace", "HostedCluster"} <= kinds
    assert all(o["uid"] for o in desc["objects"])
    assert desc["aws"]["AWS::EC2::VPC"][0].startswith("vpc-")


def test_ansible_doc_lists_the_collection():
    mod_dir = os.path.join(REPO, "plugins", "modules")
    modules = sorted(f[:-3] for f in (os.listdir(mod_dir) if os.path.isdir(mod_dir) else [])
                     if f.endswith(".py") and not f.startswith("_"))
    out = subprocess.run(["ansible-doc", "-l", "teardown.gates", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout or "{}")
    assert sorted(n.split(".")[-1] for n in listed) == modules
