"""The upstream Cluster API core manager and CAPA manager, as real processes on loopback.

Built once from the Go module proxy (build_capi.sh) and cached beside the control plane, keyed by
both versions. `up` installs their CRDs from the same module zips (with the conversion webhook the
CRDs need to serve two versions), starts both managers with a kubeconfig of their own, waits for
their webhook servers, and then registers their mutating and validating webhooks with a loopback
URL and the sandbox CA, so that defaulting, validation and conversion are the upstream code's.

Versions (docs/sandbox.md says why): CAPI v1.13.4 and CAPA v2.13.0, the pair that HyperShift's
go.mod pins (openshift/hypershift@3ee9615, go.mod lines 121-122); CAPA v2.13.0's own go.mod
requires CAPI v1.13.4. HyperShift writes CAPI objects as cluster.x-k8s.io/v1beta1 and CAPA's as
infrastructure.cluster.x-k8s.io/v1beta2; CAPI v1.13 stores v1beta2 and converts.
"""
import base64
import glob
import os
import re
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import yaml

from . import pki as pki_mod
from .kube import kubeconfig_text
from .procs import SandboxError

CAPI_VERSION = os.environ.get("SANDBOX_CAPI_VERSION", "v1.13.4")
CAPA_VERSION = os.environ.get("SANDBOX_CAPA_VERSION", "v2.13.0")
CAPI_MODULE = "sigs.k8s.io/cluster-api"
CAPA_MODULE = "sigs.k8s.io/cluster-api-provider-aws/v2"
# The contract labels CAPI reads to learn which version of a provider object speaks its contract. As
# HyperShift's installer sets them (cmd/install/assets/crds/assets.go, capiResources, at 3ee9615): the
# three CAPA kinds HyperShift uses get v1beta2; the rest keep CAPA's kustomization commonLabels.
CAPA_CRD_LABELS = {"cluster.x-k8s.io/v1beta1": "v1beta1_v1beta2"}
HYPERSHIFT_CAPA_LABELS = {name: {"cluster.x-k8s.io/v1beta1": "v1beta2"} for name in (
    "awsclusters.infrastructure.cluster.x-k8s.io", "awsmachines.infrastructure.cluster.x-k8s.io",
    "awsmachinetemplates.infrastructure.cluster.x-k8s.io")}
# HyperShift's installer stores the CAPI kinds as v1beta1 (CAPICRDOverrides, same file) and serves
# v1beta2 through the conversion webhook
CAPI_STORAGE_VERSION = "v1beta1"
SANDBOX_LABEL = {"teardown-gates.sandbox/crd": "upstream"}
# CAPA's AWSMachine controller looks at a terminated instance again only after a hard-coded minute
# (awsmachine_controller.go reconcileDelete: RequeueAfter: time.Minute), or sooner when its informer resyncs
# (--sync-period, upstream default 10m). The sandbox resyncs every 10 s so that a test does not wait out that
# minute for each deleted Machine; SANDBOX_CAPA_SYNC_PERIOD=10m runs CAPA with its real timing (tests/run_all.sh
# does so for one lane).
CAPA_SYNC_PERIOD_DEFAULT = "10s"


def capa_sync_period():
    value = os.environ.get("SANDBOX_CAPA_SYNC_PERIOD") or CAPA_SYNC_PERIOD_DEFAULT
    if not re.fullmatch(r"[0-9]+(ms|s|m|h)", value):
        raise SandboxError(f"SANDBOX_CAPA_SYNC_PERIOD={value!r} is not a Go duration such as 10s or 10m")
    return value


def cache_dir(cache_root):
    return os.path.join(cache_root, f"capi-{CAPI_VERSION}-capa-{CAPA_VERSION}")


def ports(base):
    return {"capi-manager": {"webhook": base + 800, "health": base + 801, "diagnostics": base + 802},
            "capa-manager": {"webhook": base + 810, "health": base + 811, "diagnostics": base + 812}}


class Managers:
    """Build, install and run both managers for one sandbox state folder."""

    def __init__(self, state_dir, cache_root, base_port, cp, procs, aws_env):
        self.state_dir = state_dir
        self.root = cache_dir(cache_root)
        self.ports = ports(base_port)
        self.cp = cp
        self.procs = procs
        self.aws_env = aws_env
        self.pki_dir = os.path.join(state_dir, "pki")

    # ---- build -----------------------------------------------------------------------------------
    def build_argv(self, script):
        return ["bash", script, CAPI_VERSION, CAPA_VERSION, os.path.dirname(self.root)]

    def binary(self, name):
        return os.path.join(self.root, "bin", name)

    def module_version(self, name):
        """The main module that `go version -m` reads out of a built binary (proof of origin)."""
        try:
            out = subprocess.run(["go", "version", "-m", self.binary(name)], capture_output=True, text=True,
                                 timeout=20).stdout
        except (OSError, subprocess.TimeoutExpired):
            return None
        for line in out.splitlines():
            parts = line.split()
            # the built package's module is `mod` (the main module) or, in older toolchains, a `dep`
            if len(parts) >= 3 and parts[0] in ("mod", "dep") and parts[1] in (CAPI_MODULE, CAPA_MODULE):
                if (name == "capi-manager") == (parts[1] == CAPI_MODULE):
                    return f"{parts[1]}@{parts[2]}"
        return None

    # ---- certificates and kubeconfigs --------------------------------------------------------------
    def _identity(self, name):
        """A client certificate of the manager's own (so the audit log names it) and a kubeconfig."""
        crt, key = (os.path.join(self.pki_dir, f"{name}.{ext}") for ext in ("crt", "key"))
        if not (os.path.exists(crt) and os.path.exists(key)):
            pki_mod.issue_client(self.cp.pki, crt, key, name, "system:masters")
        path = os.path.join(self.state_dir, f"kubeconfig-{name}")
        with open(path, "w") as f:
            f.write(kubeconfig_text(self.cp.server, dict(self.cp.pki, **{"admin.crt": crt, "admin.key": key})))
        os.chmod(path, 0o600)
        return path

    def _cert_dir(self, name):
        """Webhook serving certificate: the sandbox's loopback server certificate, signed by its CA."""
        d = os.path.join(self.state_dir, "webhook-certs", name)
        os.makedirs(d, exist_ok=True)
        for src, dst in (("apiserver.crt", "tls.crt"), ("apiserver.key", "tls.key")):
            with open(self.cp.pki[src], "rb") as f, open(os.path.join(d, dst), "wb") as g:
                g.write(f.read())
        os.chmod(os.path.join(d, "tls.key"), 0o600)
        return d

    def ca_bundle(self):
        with open(self.cp.pki["ca.crt"], "rb") as f:
            return base64.b64encode(f.read()).decode()

    # ---- manifests ---------------------------------------------------------------------------------
    def _docs(self, name, pattern):
        files = sorted(glob.glob(os.path.join(self.root, "manifests", name, pattern)))
        if not files:
            raise SandboxError(f"no {pattern} in {self.root}/manifests/{name}: rebuild (build_capi.sh)")
        out = []
        for path in files:
            with open(path) as f:
                out += [d for d in yaml.safe_load_all(f) if d]
        return out

    def crds(self):
        """Every CRD of both modules, labelled as their kustomizations label them, with conversion."""
        out = []
        for name, extra in (("capi-manager", {}), ("capa-manager", CAPA_CRD_LABELS)):
            url = f"https://127.0.0.1:{self.ports[name]['webhook']}/convert"
            for crd in self._docs(name, "crd/bases/*.yaml"):
                md = crd["metadata"]
                labels = dict(md.get("labels") or {})
                for more in (extra, HYPERSHIFT_CAPA_LABELS.get(md["name"], {}), SANDBOX_LABEL):
                    labels.update(more)
                md["labels"] = labels
                md.pop("annotations", None)  # controller-gen's annotations only
                versions = crd["spec"]["versions"]
                if name == "capi-manager" and any(v["name"] == CAPI_STORAGE_VERSION for v in versions):
                    for v in versions:
                        v["storage"] = v["name"] == CAPI_STORAGE_VERSION
                if len(versions) > 1:
                    crd["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
                        "conversionReviewVersions": ["v1", "v1beta1"],
                        "clientConfig": {"url": url, "caBundle": self.ca_bundle()}}}
                out.append(crd)
        return out

    def webhook_configurations(self):
        """The modules' webhook manifests with a loopback URL in place of the in-cluster Service."""
        out = []
        for name in ("capi-manager", "capa-manager"):
            port = self.ports[name]["webhook"]
            for doc in self._docs(name, "webhook/manifests.yaml"):
                if doc.get("kind") not in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
                    continue
                doc["metadata"] = {"name": f"{name}-{doc['metadata']['name']}", "labels": dict(SANDBOX_LABEL)}
                for hook in doc.get("webhooks") or []:
                    path = hook["clientConfig"]["service"]["path"]
                    hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": self.ca_bundle()}
                    hook["timeoutSeconds"] = 10
                out.append(doc)
        return out

    # ---- processes ---------------------------------------------------------------------------------
    def argv(self, name):
        p = self.ports[name]
        common = [f"--kubeconfig={self._identity(name)}", "--leader-elect=false",
                  f"--webhook-port={p['webhook']}", f"--webhook-cert-dir={self._cert_dir(name)}",
                  f"--health-addr=127.0.0.1:{p['health']}",
                  f"--diagnostics-address=127.0.0.1:{p['diagnostics']}", "--insecure-diagnostics", "--v=2"]
        if name == "capa-manager":
            # no EKS or ROSA in this sandbox: their controllers would only watch empty kinds
            common += ["--feature-gates=EKS=false,MachinePool=false", f"--sync-period={capa_sync_period()}"]
        return [self.binary(name)] + common

    def env(self, name):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "KUBECONFIG"))}
        if name == "capa-manager":
            # AWS_ENDPOINT_URL reaches every aws-sdk-go-v2 client (CAPA's resolver misses IAM and
            # autoscaling); no instance metadata lookups, no proxy: nothing leaves loopback
            env.update(self.aws_env, AWS_EC2_METADATA_DISABLED="true", NO_PROXY="*", no_proxy="*")
            env.pop("HTTPS_PROXY", None)
            env.pop("HTTP_PROXY", None)
        return env

    def start(self, name):
        if not os.path.exists(self.binary(name)):
            raise SandboxError(f"{self.binary(name)} is missing: `sandbox up` builds it (build_capi.sh)")
        self.procs.start(name, self.argv(name), env=self.env(name))
        self.wait_ready(name)

    def wait_ready(self, name, timeout=90.0):
        url = f"http://127.0.0.1:{self.ports[name]['health']}/readyz"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.procs.pid(name):
                raise SandboxError(f"{name} exited while starting; the end of its log "
                                   f"({self.procs.logfile(name)}):\n{self.procs.tail(name)}")
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    if r.status == 200 and self._webhook_answers(name):
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise SandboxError(f"{name} not ready at {url} after {timeout:.0f} s:\n{self.procs.tail(name)}")

    def _webhook_answers(self, name):
        ctx = ssl.create_default_context(cafile=self.cp.pki["ca.crt"])
        try:
            urllib.request.urlopen(f"https://127.0.0.1:{self.ports[name]['webhook']}/convert", context=ctx, timeout=2)
        except urllib.error.HTTPError:
            return True  # it answered (a GET to /convert is refused): TLS and the server are up
        except OSError:
            return False
        return True
