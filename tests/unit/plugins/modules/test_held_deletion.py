from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import stat

import pytest
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import NotFoundError

from ansible.module_utils.testing import patch_module_args
from ansible_collections.teardown.gates.plugins.module_utils.drivers import entry
from ansible_collections.teardown.gates.plugins.modules import held_deletion
from module_exit_double import Exit, Fail, no_exit  # noqa: F401  pylint: disable=unused-import

UID = "11111111-2222-4333-8444-555555555555"
FIN = "terraformcluster.infrastructure.cluster.x-k8s.io"


class Obj(dict):
    def to_dict(self):
        return dict(self)


class Listing:
    def __init__(self, items):
        self.items = [Obj(i) for i in items]

    def to_dict(self):
        return {"items": [dict(i) for i in self.items], "metadata": {"resourceVersion": "1"}}


def not_found():
    return NotFoundError(ApiException(status=404, reason="Not Found"))


class Resource:
    namespaced = True

    def __init__(self, kind, store, calls):
        self.kind, self.store, self.calls = kind, store, calls

    def get(self, name=None, namespace=None, label_selector=None, _request_timeout=None):
        assert _request_timeout, "every read is bounded"
        self.calls.append(("get", self.kind, name))
        if name is None:
            return Listing([o for o in self.store.values() if o["kind"] == self.kind])
        if name not in self.store or self.store[name]["kind"] != self.kind:
            raise not_found()
        return Obj(self.store[name])

    def patch(self, **kw):
        self.calls.append(("patch", self.kind, kw.get("name")))
        return Obj(self.store[kw["name"]])


class Client:
    def __init__(self, store):
        self.store, self.calls = store, []

    def resource(self, kind, api_version):
        return Resource(kind, self.store, self.calls)


def held_cluster(**status):
    st = {"conditions": [{"type": "StateReadable", "status": "False", "reason": "StateLost", "message": "held"}],
          "stateBackups": [{"serial": 11, "secretName": "captf-state-backup-tc-demo-11"}]}
    st.update(status)
    return {"kind": "TerraformCluster", "metadata": {"name": "demo", "namespace": "ns", "uid": UID,
                                                     "deletionTimestamp": "2026-01-01T00:00:00Z",
                                                     "finalizers": [FIN], "annotations": {}},
            "spec": {}, "status": st}


def secret(name, **ann):
    return {"kind": "Secret", "metadata": {"name": name, "namespace": "ns", "uid": "s-" + name,
                                           "resourceVersion": "7", "annotations": ann},
            "type": "Opaque", "data": {"tfstate": "e30="}}


def run(monkeypatch, args, store=None, check_mode=False):
    client = Client(store if store is not None else {})

    def get_client(module, **kw):
        if store is None:
            raise AssertionError("the module reached the API before validating its input")
        return client
    monkeypatch.setattr(entry, "api_client", get_client)
    args = dict(args, _ansible_check_mode=check_mode)
    with patch_module_args(args):
        with pytest.raises((Exit, Fail)) as e:
            held_deletion.main()
    return e.type is Exit, e.value.args[0], client


@pytest.mark.parametrize("args,fragment", [
    ({"action": "abandon"}, "confirm_uid is required"),
    ({"action": "restore"}, "backup_serial is required"),
    ({"backup_serial": 3}, "backup_serial applies to action=restore only"),
    ({"action": "restore", "backup_serial": 3, "confirm_uid": UID}, "confirm_uid and backup_to apply to action=abandon"),
    ({"action": "abandon", "confirm_uid": UID, "backup_to": "/nonexistent/dir/x.json"}, "does not exist or is not writable"),
])
def test_bad_input_fails_before_any_request(monkeypatch, args, fragment):
    ok, res, dummy = run(monkeypatch, dict({"name": "demo", "namespace": "ns"}, **args))
    assert not ok and fragment in res["msg"]


def test_check_mode_abandon_sends_no_patch_and_writes_no_file(monkeypatch, tmp_path):
    store = {"demo": held_cluster(), "captf-state-tc-demo": secret("captf-state-tc-demo")}
    ok, res, client = run(monkeypatch, {"name": "demo", "namespace": "ns", "action": "abandon", "confirm_uid": UID,
                                        "backup_to": str(tmp_path)}, store, check_mode=True)
    assert ok and res["changed"]
    assert not [c for c in client.calls if c[0] == "patch"]
    assert os.listdir(str(tmp_path)) == []
    assert res["patch"][0] == {"op": "test", "path": "/metadata/uid", "value": UID}


def test_abandon_saves_state_0600_then_patches_once(monkeypatch, tmp_path):
    store = {"demo": held_cluster(), "captf-state-tc-demo": secret("captf-state-tc-demo"),
             "captf-state-backup-tc-demo-11": secret("captf-state-backup-tc-demo-11"),
             "unrelated": secret("unrelated")}
    ok, res, client = run(monkeypatch, {"name": "demo", "namespace": "ns", "action": "abandon", "confirm_uid": UID,
                                        "backup_to": str(tmp_path)}, store)
    assert ok and res["changed"]
    assert [c for c in client.calls if c[0] == "patch"] == [("patch", "TerraformCluster", "demo")]
    path = res["backup_file"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    doc = json.load(open(path))
    assert [s["metadata"]["name"] for s in doc["secrets"]] == ["captf-state-backup-tc-demo-11", "captf-state-tc-demo"]
    assert "uid" not in doc["secrets"][0]["metadata"] and "resourceVersion" not in doc["secrets"][0]["metadata"]
    assert "tfstate" not in json.dumps(res), "Secret data never goes into the result"


def test_second_abandon_is_unchanged(monkeypatch):
    obj = held_cluster()
    obj["metadata"]["annotations"] = {"captf.io/abandon-infrastructure": UID}
    ok, res, client = run(monkeypatch, {"name": "demo", "namespace": "ns", "action": "abandon", "confirm_uid": UID},
                          {"demo": obj})
    assert ok and not res["changed"] and not [c for c in client.calls if c[0] == "patch"]


def test_wrong_uid_refused_without_patch(monkeypatch):
    ok, res, client = run(monkeypatch, {"name": "demo", "namespace": "ns", "action": "abandon",
                                        "confirm_uid": UID.replace("1", "2")}, {"demo": held_cluster()})
    assert not ok and "does not equal" in res["msg"] and not [c for c in client.calls if c[0] == "patch"]


def test_failed_read_is_unknown_not_not_held(monkeypatch):
    class Broken(Client):
        def resource(self, kind, api_version):
            r = Resource(kind, self.store, self.calls)

            def boom(**kw):
                raise ApiException(status=500, reason="etcdserver: request timed out")
            r.get = boom
            return r
    monkeypatch.setattr(entry, "api_client", lambda m, **kw: Broken({}))
    with patch_module_args({"name": "demo", "namespace": "ns"}):
        with pytest.raises(Fail) as e:
            held_deletion.main()
    res = e.value.args[0]
    assert res["held"] is None and res["reason"] == "Unknown" and "500" in res["msg"]
