#!/usr/bin/env python
"""Write a kubeconfig for a ServiceAccount that may read Releases and Clusters in NAMESPACE but not
ReleaseInventories, so that one query of the plan fails (403). Prints the kubeconfig's path.

usage: limited_kubeconfig.py NAMESPACE OUT_PATH
"""
import os
import sys

import yaml
from kubernetes import client, config

ns, out = sys.argv[1], sys.argv[2]
api = config.new_client_from_config(os.environ["KUBECONFIG"])
core, rbac = client.CoreV1Api(api), client.RbacAuthorizationV1Api(api)
name = "release-reader"
for fn, body in (
        (core.create_namespaced_service_account, {"metadata": {"name": name}}),
        (rbac.create_namespaced_role, {"metadata": {"name": name}, "rules": [
            {"apiGroups": ["core.convoy.kumodo.io"], "resources": ["releases", "clusters"],
             "verbs": ["get", "list", "watch", "delete"]}]}),
        (rbac.create_namespaced_role_binding, {"metadata": {"name": name},
                                               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
                                               "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}]})):
    try:
        fn(ns, body)
    except client.ApiException as e:
        if e.status != 409:
            raise
token = core.create_namespaced_service_account_token(name, ns, {"spec": {"expirationSeconds": 3600}}).status.token
with open(os.environ["KUBECONFIG"]) as f:
    kc = yaml.safe_load(f)
cur = next(c for c in kc["contexts"] if c["name"] == kc["current-context"])["context"]
cluster = next(c for c in kc["clusters"] if c["name"] == cur["cluster"])
kc["users"] = [{"name": name, "user": {"token": token}}]
kc["contexts"] = [{"name": name, "context": {"cluster": cluster["name"], "user": name, "namespace": ns}}]
kc["clusters"] = [cluster]
kc["current-context"] = name
with open(out, "w") as f:
    yaml.safe_dump(kc, f)
print(out)
