"""The sandbox's credentials, and a search for them in everything a run wrote."""
import base64
import os

import yaml


def sandbox_secrets():
    """The admin client key (as the kubeconfig holds it, and each line of its PEM body) and the AWS
    secret key and session token when they are distinctive enough to search for."""
    with open(os.environ["KUBECONFIG"]) as f:
        kc = yaml.safe_load(f)
    out = []
    for u in kc.get("users") or []:
        user = u.get("user") or {}
        if user.get("client-key-data"):
            out.append(user["client-key-data"])
            pem = base64.b64decode(user["client-key-data"]).decode()
            out += [line for line in pem.splitlines() if line and not line.startswith("-----") and len(line) >= 40]
        if user.get("token"):
            out.append(user["token"])
    for key in ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        value = os.environ.get(key) or ""
        if len(value) >= 12:
            out.append(value)
    return out


def assert_no_secrets(workdir, out, secrets, skip=()):
    """No secret in the run's stdout or stderr, nor in any file under workdir (the Ansible log, reports,
    progress files ...) except the kubeconfigs the test wrote and the folders in skip."""
    secrets = [s for s in secrets if s]
    assert secrets
    found = []
    for where, text in (("stdout", out.stdout), ("stderr", out.stderr)):
        found += ["%s has secret #%d" % (where, i) for i, s in enumerate(secrets) if s in text]
    skip = [str(p) for p in skip]
    scanned = 0
    for root, _, files in os.walk(str(workdir)):
        if any(root == s or root.startswith(s + os.sep) for s in skip):
            continue
        for name in files:
            if name.startswith("kubeconfig"):
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                data = f.read().decode("utf-8", "replace")
            scanned += 1
            found += ["%s has secret #%d" % (path, i) for i, s in enumerate(secrets) if s in data]
    assert scanned > 0, "nothing written to search"
    assert not found, found
