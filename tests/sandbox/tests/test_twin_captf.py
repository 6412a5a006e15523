"""The CAPTF twin follows the deletion rules table (seed 002) and the held-deletion page (seed 001)."""
import json
import time
import uuid

import pytest
from kubernetes.client import ApiException

API = "infrastructure.cluster.x-k8s.io/v1alpha1"
NS = "captf-twin-tests"


def seed(sandbox_cli, **knobs):
    name = "t-" + uuid.uuid4().hex[:6]
    args = ["seed", "captf", "--name", name, "--namespace", NS]
    for k, v in knobs.items():
        args += ["--knob", f"{k.replace('_', '-')}={v}"]
    r = sandbox_cli(*args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def get(dyn, d, kind=None):
    try:
        return dyn.resources.get(api_version=API, kind=kind or d["kind"]).get(
            name=d["name"], namespace=d["namespace"]).to_dict()
    except ApiException as e:
        if e.status == 404:
            return None
        raise


def cond(obj, ctype):
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == ctype), {})


def annotate(dyn, d, key, value, kind=None):
    dyn.resources.get(api_version=API, kind=kind or d["kind"]).patch(
        name=d["name"], namespace=d["namespace"], content_type="application/merge-patch+json",
        body={"metadata": {"annotations": {key: value}}})


def wait_gone(dyn, d, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if get(dyn, d) is None:
            return True
        time.sleep(0.2)
    return False


def events(core, d, reason):
    return [e for e in core.list_namespaced_event(d["namespace"]).items
            if e.involved_object.uid == d["uid"] and e.reason == reason]


def secret_exists(core, ns, name):
    try:
        core.read_namespaced_secret(name, ns)
        return True
    except ApiException as e:
        if e.status == 404:
            return False
        raise


@pytest.mark.parametrize("state,reason", [("lost", "StateLost"), ("corrupt", "StateCorrupt"),
                                          ("encrypted", "StateEncrypted"), ("inconsistent", "StateInconsistent")])
def test_unreadable_state_holds_with_reason_and_message(sandbox_cli, dyn, state, reason):
    d = seed(sandbox_cli, state=state)
    assert d["settled"], d
    obj = get(dyn, d)
    c = cond(obj, "StateReadable")
    assert (c["status"], c["reason"]) == ("False", reason)
    assert "captf.io/restore-state" in c["message"] and d["uid"] in c["message"]
    assert "terraformcluster.infrastructure.cluster.x-k8s.io" in obj["metadata"]["finalizers"]


def test_never_applied_without_state_releases_at_once(sandbox_cli, dyn):
    d = seed(sandbox_cli, state="never")
    assert d["settled"] and get(dyn, d) is None


def test_no_state_with_only_a_backup_signal_is_held(sandbox_cli, dyn):
    d = seed(sandbox_cli, state="lost", signals="none", backups=1)
    assert d["settled"]
    assert cond(get(dyn, d), "StateReadable")["reason"] == "StateLost"


def test_readable_state_destroys_and_cleans_up(sandbox_cli, dyn, core):
    d = seed(sandbox_cli, state="ok")
    assert d["settled"] and get(dyn, d) is None
    for key in ("state", "inputs", "plan"):
        assert not secret_exists(core, NS, d["secrets"][key])
    assert events(core, d, "DestroySucceeded")


def test_failing_destroy_retries_and_abandon_releases_it(sandbox_cli, dyn, core):
    d = seed(sandbox_cli, state="ok", destroy="fail")
    assert d["settled"]
    # the second attempt comes 2 s after the first (backoff): look until it is there rather than sleeping a
    # fixed 3 s, which a busy machine overran (attempt 1 only)
    deadline = time.monotonic() + 20
    obj = get(dyn, d)
    while (obj["status"].get("destroyAttempts") or 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
        obj = get(dyn, d)
    assert cond(obj, "ApplyJobSucceeded")["reason"] == "DestroyFailed"
    assert obj["status"]["destroyAttempts"] >= 2, "a failed destroy is retried"
    annotate(dyn, d, "captf.io/abandon-infrastructure", d["uid"])
    assert wait_gone(dyn, d)
    ev = events(core, d, "InfrastructureAbandoned")
    assert ev and ev[0].type == "Warning" and "last destroy failed" in ev[0].message


def test_abandon_with_wrong_uid_is_ignored_and_said(sandbox_cli, dyn):
    d = seed(sandbox_cli, state="corrupt")
    annotate(dyn, d, "captf.io/abandon-infrastructure", str(uuid.uuid4()))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        msg = cond(get(dyn, d), "StateReadable").get("message", "")
        if "does not equal" in msg:
            break
        time.sleep(0.2)
    assert "does not equal this object's uid" in msg
    assert get(dyn, d) is not None


def test_abandon_with_uid_releases_a_hold_and_cleans_up(sandbox_cli, dyn, core):
    d = seed(sandbox_cli, state="encrypted")
    annotate(dyn, d, "captf.io/abandon-infrastructure", d["uid"])
    assert wait_gone(dyn, d)
    ev = events(core, d, "InfrastructureAbandoned")
    assert ev and "state unreadable" in ev[0].message
    assert not secret_exists(core, NS, d["secrets"]["state"])


def test_restore_then_destroy(sandbox_cli, dyn, core):
    d = seed(sandbox_cli, state="lost")
    annotate(dyn, d, "captf.io/restore-state", str(d["backup_serials"][0]))
    assert wait_gone(dyn, d)
    assert events(core, d, "StateRestored") and events(core, d, "DestroySucceeded")


def test_failed_restore_is_not_retried_for_the_same_serial(sandbox_cli, dyn, core):
    d = seed(sandbox_cli, state="corrupt", restore="fail")
    annotate(dyn, d, "captf.io/restore-state", str(d["backup_serials"][0]))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "not retried" not in cond(get(dyn, d), "StateReadable").get("message", ""):
        time.sleep(0.2)
    time.sleep(2)
    assert len(events(core, d, "RestoreFailed")) == 1
    assert cond(get(dyn, d), "StateReadable")["reason"] == "StateCorrupt"


def test_cluster_waits_for_its_machines_and_abandon_does_not_release_it(sandbox_cli, dyn):
    d = seed(sandbox_cli, state="lost", dependents=1)
    assert d["settled"]
    annotate(dyn, d, "captf.io/abandon-infrastructure", d["uid"])
    time.sleep(2)
    obj = get(dyn, d)
    assert obj is not None and cond(obj, "DeletionBlocked")["reason"] == "DependentsExist"
    dep = d["dependents"][0]
    dyn.resources.get(api_version=API, kind="TerraformMachine").delete(name=dep["name"], namespace=NS)
    assert wait_gone(dyn, dep, timeout=20), "the machine's readable state destroys"
    assert wait_gone(dyn, d, timeout=20), "with the machines gone the abandon releases the cluster"


def test_paused_object_does_nothing(sandbox_cli, dyn):
    d = seed(sandbox_cli, state="ok", paused="true")
    time.sleep(2)
    obj = get(dyn, d)
    assert obj is not None and not cond(obj, "ApplyJobSucceeded")
    dyn.resources.get(api_version=API, kind=d["kind"]).patch(
        name=d["name"], namespace=NS, content_type="application/merge-patch+json", body={"spec": {"paused": False}})
    assert wait_gone(dyn, d)


def test_deletion_policy_retain_releases_like_the_abandon_annotation(sandbox_cli, dyn, core):
    d = seed(sandbox_cli, state="lost", kind="TerraformMachinePool")
    assert d["settled"]
    dyn.resources.get(api_version=API, kind=d["kind"]).patch(
        name=d["name"], namespace=NS, content_type="application/merge-patch+json",
        body={"spec": {"deletionPolicy": "Retain"}})
    assert wait_gone(dyn, d)
    ev = events(core, d, "InfrastructureAbandoned")
    assert ev and "spec.deletionPolicy is Retain" in ev[0].message
