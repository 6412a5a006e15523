"""Helpers for the least-privilege, secrets and bad-input tests: ServiceAccounts with exactly the
shipped roles, the requests a run made (from the API server's audit log and the AWS request log),
whether a set of RBAC rules allows a request, and running a playbook with everything it writes kept."""
import json
import os
import subprocess
import time
import uuid

import yaml
from kubernetes import client
from kubernetes import config as kube_config

from conftest import REPO

RBAC_DIR = os.path.join(REPO, "extensions", "rbac")
IAM_POLICY = os.path.join(REPO, "extensions", "iam", "teardown-gates-policy.json")
# what every authenticated user may read (system:discovery, system:public-info-viewer)
DISCOVERY_PREFIXES = ("/api", "/apis", "/version", "/openapi", "/healthz", "/livez", "/readyz")
MUTATING_VERBS = {"create", "update", "patch", "delete", "deletecollection"}
# a review (the permission preflight's SelfSubjectAccessReview) is a create that stores nothing, and every
# authenticated user may send it (system:basic-user)
REVIEWS = ("selfsubjectaccessreviews",)


def is_change(r):
    """An audited request that changes something: a mutating verb, reviews excepted."""
    return r["verb"] in MUTATING_VERBS and r.get("resource") not in REVIEWS


def shipped_roles(filename):
    """{ClusterRole name: rules} from one file of extensions/rbac."""
    with open(os.path.join(RBAC_DIR, filename)) as f:
        doc = yaml.safe_load(f)
    return {d["metadata"]["name"]: d["rules"] for d in doc["items"] if d["kind"] == "ClusterRole"}


def _match(values, value):
    return "*" in values or value in values


def rule_allows(rule, req):
    """Does one RBAC PolicyRule allow req = {verb, group, resource, subresource, name, path}?"""
    if req.get("path"):
        return any(req["path"] == u or (u.endswith("*") and req["path"].startswith(u[:-1]))
                   for u in rule.get("nonResourceURLs") or []) and _match(rule.get("verbs") or [], req["verb"])
    resource = req["resource"] + ("/" + req["subresource"] if req.get("subresource") else "")
    if not (_match(rule.get("verbs") or [], req["verb"]) and _match(rule.get("apiGroups") or [], req["group"])
            and _match(rule.get("resources") or [], resource)):
        return False
    names = rule.get("resourceNames") or []
    return not names or req.get("name") in names


def describe(req):
    if req.get("path"):
        return "%s %s" % (req["verb"], req["path"])
    res = req["resource"] + ("/" + req["subresource"] if req.get("subresource") else "")
    grp = req["group"] or "core"
    where = ("namespace %s" % req["namespace"]) if req.get("namespace") else "cluster-wide"
    return "%s %s.%s%s (%s)" % (req["verb"], res, grp, (" " + req["name"]) if req.get("name") else "", where)


class LogTail:
    """Lines appended to a log file after the moment this object is made."""

    def __init__(self, path):
        self.path = path
        self.start = os.path.getsize(path) if os.path.exists(path) else 0

    def lines(self, settle=1.0, having=None):
        """The lines as JSON; with HAVING (a string), only those that contain it, picked before parsing: a tail
        that spans minutes of a shared sandbox is mostly other tests' lines."""
        time.sleep(settle)  # the API server writes its audit events just after the responses
        with open(self.path, "rb") as f:
            before = b"\n"
            if self.start > 0:
                f.seek(self.start - 1)
                before = f.read(1)
            data = f.read()
        # with other writers busy, the tail may begin inside a line written before it (that line is not ours) and
        # end inside one being written now (it is read whole next time)
        if before != b"\n":
            data = data.split(b"\n", 1)[1] if b"\n" in data else b""
        if not data.endswith(b"\n"):
            data = data.rsplit(b"\n", 1)[0] if b"\n" in data else b""
        want = having.encode() if having else b""
        return [json.loads(line) for line in data.splitlines() if line.strip() and want in line]


def audit_requests(tail, username):
    """The requests one user made since the tail began: verb, group, resource, subresource, namespace, name, code."""
    out = []
    for e in tail.lines():
        if e.get("stage") != "ResponseComplete" or e["user"]["username"] != username:
            continue
        o = e.get("objectRef")
        req = {"verb": e["verb"], "code": (e.get("responseStatus") or {}).get("code"), "uri": e["requestURI"]}
        if o:
            req.update(group=o.get("apiGroup", ""), resource=o.get("resource", ""), subresource=o.get("subresource", ""),
                       namespace=o.get("namespace", ""), name=o.get("name", ""))
        else:
            req["path"] = e["requestURI"].split("?")[0]
        out.append(req)
    return out


def not_covered(requests, rules):
    """Requests (other than discovery) that none of the rules allows, described for a failure message."""
    missing = set()
    for r in requests:
        if r.get("path") and r["path"].startswith(DISCOVERY_PREFIXES):
            continue
        if r.get("resource") in REVIEWS and r["verb"] == "create":
            continue
        if not any(rule_allows(rule, r) for rule in rules):
            missing.add(describe(r))
    return sorted(missing)


class ServiceAccounts:
    """ServiceAccounts in a namespace of their own, bound to given ClusterRoles; a kubeconfig each."""

    def __init__(self, api_client, workdir):
        self.api = api_client
        self.core = client.CoreV1Api(api_client)
        self.rbac = client.RbacAuthorizationV1Api(api_client)
        self.workdir = workdir
        self.namespace = "lp-sa-" + uuid.uuid4().hex[:6]
        self.core.create_namespace({"metadata": {"name": self.namespace}})
        self.cluster_objects = []

    def username(self, name):
        return "system:serviceaccount:%s:%s" % (self.namespace, name)

    def create(self, name, roles, namespaced, cluster=()):
        """roles: {ClusterRole name: rules} created (uniquely named) and bound by RoleBinding in each of
        `namespaced` namespaces, or by ClusterRoleBinding for the names in `cluster`. Returns (kubeconfig, token)."""
        self.core.create_namespaced_service_account(self.namespace, {"metadata": {"name": name}})
        subject = [{"kind": "ServiceAccount", "name": name, "namespace": self.namespace}]
        for role, rules in roles.items():
            cr = "%s-%s-%s" % (role, self.namespace, name)
            self.rbac.create_cluster_role({"metadata": {"name": cr}, "rules": rules})
            self.cluster_objects.append(("role", cr))
            ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": cr}
            if role in cluster:
                self.rbac.create_cluster_role_binding({"metadata": {"name": cr}, "roleRef": ref, "subjects": subject})
                self.cluster_objects.append(("binding", cr))
            else:
                for ns in namespaced:
                    self.rbac.create_namespaced_role_binding(ns, {"metadata": {"name": cr}, "roleRef": ref,
                                                                  "subjects": subject})
        token = self.core.create_namespaced_service_account_token(
            name, self.namespace, {"spec": {"expirationSeconds": 3600}}).status.token
        with open(os.environ["KUBECONFIG"]) as f:
            kc = yaml.safe_load(f)
        cur = next(c for c in kc["contexts"] if c["name"] == kc["current-context"])["context"]
        cluster_entry = next(c for c in kc["clusters"] if c["name"] == cur["cluster"])
        kc.update(users=[{"name": name, "user": {"token": token}}], clusters=[cluster_entry],
                  contexts=[{"name": name, "context": {"cluster": cluster_entry["name"], "user": name}}],
                  **{"current-context": name})
        path = os.path.join(self.workdir, "kubeconfig-" + name)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            yaml.safe_dump(kc, f)
        return path, token

    def create_binding(self, name, role, rules, namespace=None):
        """One more ClusterRole for an existing ServiceAccount: a RoleBinding in namespace, or a ClusterRoleBinding."""
        cr = "%s-%s-%s" % (role, self.namespace, name)
        self.rbac.create_cluster_role({"metadata": {"name": cr}, "rules": rules})
        self.cluster_objects.append(("role", cr))
        body = {"metadata": {"name": cr}, "subjects": [{"kind": "ServiceAccount", "name": name,
                                                        "namespace": self.namespace}],
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": cr}}
        if namespace:
            self.rbac.create_namespaced_role_binding(namespace, body)
        else:
            self.rbac.create_cluster_role_binding(body)
            self.cluster_objects.append(("binding", cr))

    def cleanup(self):
        for what, name in self.cluster_objects:
            try:
                (self.rbac.delete_cluster_role if what == "role" else self.rbac.delete_cluster_role_binding)(name)
            except client.ApiException:
                pass
        try:
            self.core.delete_namespace(self.namespace)
        except client.ApiException:
            pass


def seed(*args):
    out = subprocess.run([os.path.join(REPO, "tests", "sandbox", "sandbox"), "seed", *args],
                         capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def retire_hosted_cluster(namespace, name):
    """Delete a HostedCluster a test seeded and leaves alive, without waiting: the twin then tears it down as for
    any deletion. Left alone, its Machines and AWS cluster are reconciled by CAPA every sync period (10 s on
    `make test`'s lane 1) for the rest of the run: in a run of 2026-12-03 CAPA's looks were 71 % of the AWS
    layer's 16,500 requests, with five such clusters left. Call it once the test is done with the cluster."""
    api = kube_config.new_client_from_config(os.environ["KUBECONFIG"])
    try:
        client.CustomObjectsApi(api).delete_namespaced_custom_object(
            "hypershift.openshift.io", "v1beta1", namespace, "hostedclusters", name, _request_timeout=10)
    except client.ApiException as e:
        if e.status != 404:
            raise
    finally:
        api.close()


def run_playbook(playbook, extra_vars, workdir, env_overrides=None, verbosity="-vvv", check=False, timeout=600,
                 extra_args=()):
    """Run a playbook as an operator would, keeping stdout, stderr and the Ansible log file."""
    env = dict(os.environ)
    env.update(ANSIBLE_LOG_PATH=os.path.join(workdir, "ansible.log"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_RETRY_FILES_ENABLED="0")
    env.update(env_overrides or {})
    cmd = [os.path.join(REPO, ".venv", "bin", "ansible-playbook"), playbook, "-e", json.dumps(extra_vars)]
    if verbosity:
        cmd.append(verbosity)
    if check:
        cmd.append("--check")
    cmd += list(extra_args)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=workdir, check=False)


def target_guards(kubeconfig=None, context=None):
    """The guards a run on this sandbox passes (docs/runbook-before-the-first-delete.md): the AWS account the
    sandbox's STS answers for any key, the management cluster's kube-system namespace UID, and the account ID
    typed as the confirmation (what sweep_orphans requires with sweep_delete: true)."""
    import boto3
    sts = boto3.client("sts", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                       aws_access_key_id="AKGUARD" + uuid.uuid4().hex[:13].upper(), aws_secret_access_key="guard")
    account = sts.get_caller_identity()["Account"]
    api = kube_config.new_client_from_config(config_file=kubeconfig or os.environ.get("KUBECONFIG"), context=context)
    try:
        uid = client.CoreV1Api(api).read_namespace("kube-system").metadata.uid
    finally:
        api.close()
    return {"expected_aws_account_id": account, "expected_management_cluster": uid, "confirm_account": account}
