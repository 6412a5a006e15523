"""The three stuck deletions of issue 35, seeded in the sandbox's real API server: a ConfigMap held by a dead owner's
finalizer, a ConfigMap whose finalizer's owner a Fail webhook with no endpoints refuses, a namespace on an unavailable
APIService. Shared by test_diagnose_deletion.py (the playbook on each) and test_eda_stuck_deletions.py (the rulebook
that notices them). While the APIService is unavailable the sandbox's namespace controller and garbage collector
cannot discover its group: the files that use it are exclusive."""
import contextlib
import time
import uuid

import pytest
from kubernetes import client

DEAD = "diagnose.teardown-gates.test/dead-operator"
GUARDED = "diagnose.teardown-gates.test/guarded"


def _wait(what, probe, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        got = probe()
        if got:
            return got
        time.sleep(0.5)
    pytest.fail("timed out waiting for " + what)


def _available(api, name):
    try:
        obj = client.ApiregistrationV1Api(api).read_api_service(name)
    except client.ApiException:
        return None
    conds = {c.type: c for c in (obj.status.conditions or [])} if obj.status else {}
    return conds.get("Available")


@contextlib.contextmanager
def stuck_world(api_client):
    """The three stuck deletions; yields their names. Each seeded object (both namespaces, both ConfigMaps) carries
    the label ``teardown-gates-stuck=<tag>`` (``world["selector"]``), so a watch can take these and nothing else."""
    core = client.CoreV1Api(api_client)
    adm = client.AdmissionregistrationV1Api(api_client)
    reg = client.ApiregistrationV1Api(api_client)
    tag = "dg" + uuid.uuid4().hex[:6]
    ns, ns_api = tag, tag + "-api"
    hook_cfg, hook = "tg-diagnose-" + tag, "refuse.%s.teardown-gates.test" % tag
    group = "%s.teardown-gates.test" % tag
    apiservice = "v1alpha1." + group
    mark = {"teardown-gates-stuck": tag}
    try:
        for n in (ns, ns_api):
            core.create_namespace({"metadata": {"name": n, "labels": mark}})
        # 1: an owner that is gone: its finalizer, written by its field manager, and nobody to remove it
        core.create_namespaced_config_map(ns, {"metadata": {"name": "dead-owner", "finalizers": [DEAD],
                                                                "labels": mark}},
                                          field_manager="dead-operator")
        core.delete_namespaced_config_map("dead-owner", ns)
        # 2: a webhook that refuses every UPDATE of one labelled ConfigMap of this namespace: its Service has no pod
        core.create_namespaced_service(ns, {"metadata": {"name": "gone-webhook"}, "spec": {
            "selector": {"app": "nothing-" + tag}, "ports": [{"port": 443, "targetPort": 8443}]}})
        core.create_namespaced_config_map(ns, {"metadata": {"name": "guarded", "finalizers": [GUARDED],
                                                            "labels": dict(mark, **{"teardown-gates-diagnose": tag})}})
        adm.create_validating_webhook_configuration({"metadata": {"name": hook_cfg}, "webhooks": [{
            "name": hook, "failurePolicy": "Fail", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 2,
            "clientConfig": {"service": {"namespace": ns, "name": "gone-webhook", "path": "/validate", "port": 443}},
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"], "resources": ["configmaps"],
                       "scope": "Namespaced"}],
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
            "objectSelector": {"matchLabels": {"teardown-gates-diagnose": tag}}}]})
        core.delete_namespaced_config_map("guarded", ns)

        # the webhook really refuses the finalizer owner's own patch (seen until the API server has loaded it)
        def refused():
            try:
                core.patch_namespaced_config_map("guarded", ns, [{"op": "test", "path": "/metadata/finalizers/0",
                                                                  "value": GUARDED}],
                                                 _request_timeout=10)
            except client.ApiException as e:
                return hook in (e.body or "") and e.status >= 500
            return False
        _wait("the webhook to refuse the owner's patch", refused)
        # 3: an aggregated API whose Service has no endpoints, and a namespace deleted while it is unavailable
        core.create_namespaced_service(ns_api, {"metadata": {"name": "gone-api"}, "spec": {
            "selector": {"app": "nothing-" + tag}, "ports": [{"port": 443, "targetPort": 8443}]}})
        reg.create_api_service({"metadata": {"name": apiservice}, "spec": {
            "group": group, "version": "v1alpha1", "groupPriorityMinimum": 100, "versionPriority": 10,
            "insecureSkipTLSVerify": True, "service": {"namespace": ns_api, "name": "gone-api", "port": 443}}})
        _wait("the APIService to be unavailable",
              lambda: getattr(_available(api_client, apiservice), "status", None) == "False")
        core.delete_namespace(ns_api)
        _wait("the namespace to be terminating",
              lambda: core.read_namespace(ns_api).status.phase == "Terminating")
        yield {"tag": tag, "ns": ns, "ns_api": ns_api, "hook": hook, "apiservice": apiservice,
               "selector": "teardown-gates-stuck=" + tag}
    finally:
        # the webhook first: it refuses the finalizer removals below
        for call in (lambda: adm.delete_validating_webhook_configuration(hook_cfg),
                     lambda: reg.delete_api_service(apiservice)):
            try:
                call()
            except client.ApiException:
                pass
        for name in ("dead-owner", "guarded"):
            try:
                core.patch_namespaced_config_map(name, ns, {"metadata": {"finalizers": None}})
            except client.ApiException:
                pass
        for n in (ns, ns_api):
            try:
                core.delete_namespace(n)
            except client.ApiException:
                pass
