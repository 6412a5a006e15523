"""etcd, kube-apiserver and kube-controller-manager, as real processes on loopback."""
import json
import os
import ssl
import time
import urllib.error
import urllib.request

from .procs import SandboxError

AUDIT_POLICY = """\
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  # one line per request, with verb, objectRef, user and userAgent; no bodies (secrets stay out)
  - level: Metadata
"""

# Controllers the tests need; names as kube-controller-manager --help lists them (1.36).
CONTROLLERS = [
    "namespace-controller",
    "garbage-collector-controller",
    "serviceaccount-controller",
    "serviceaccount-token-controller",
]


def kubeconfig_text(server, pki):
    def read(name):
        with open(pki[name]) as f:
            return f.read()

    import base64
    b64 = lambda s: base64.b64encode(s.encode()).decode()  # noqa: E731
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "sandbox", "preferences": {},
        "clusters": [{"name": "sandbox", "cluster": {"server": server,
                                                       "certificate-authority-data": b64(read("ca.crt"))}}],
        "users": [{"name": "sandbox-admin", "user": {"client-certificate-data": b64(read("admin.crt")),
                                                      "client-key-data": b64(read("admin.key"))}}],
        "contexts": [{"name": "sandbox", "context": {"cluster": "sandbox", "user": "sandbox-admin"}}],
    }, indent=2)


class ControlPlane:
    def __init__(self, state_dir, bin_dir, ports, pki, procs):
        self.state_dir = state_dir
        self.bin_dir = bin_dir
        self.ports = ports
        self.pki = pki
        self.procs = procs
        self.server = f"https://127.0.0.1:{ports['apiserver']}"
        self.kubeconfig = os.path.join(state_dir, "kubeconfig")
        self.audit_log = os.path.join(state_dir, "logs", "audit.log")

    def _bin(self, name):
        return os.path.join(self.bin_dir, name)

    def _ssl(self):
        ctx = ssl.create_default_context(cafile=self.pki["ca.crt"])
        ctx.load_cert_chain(self.pki["admin.crt"], self.pki["admin.key"])
        return ctx

    def get(self, path, timeout=3):
        with urllib.request.urlopen(self.server + path, context=self._ssl(), timeout=timeout) as r:
            return r.read().decode()

    def _wait(self, what, probe, timeout, proc_name):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if not self.procs.pid(proc_name):
                raise SandboxError(f"{proc_name} exited while starting; last lines of its log "
                                   f"({self.procs.logfile(proc_name)}):\n{self.procs.tail(proc_name)}")
            try:
                if probe():
                    return
            except Exception as e:  # noqa: BLE001 - any failure means "not ready yet"
                last = e
            time.sleep(0.3)
        raise SandboxError(f"{what} not ready after {timeout:.0f} s (last error: {last}); "
                           f"log: {self.procs.logfile(proc_name)}\n{self.procs.tail(proc_name)}")

    def start_etcd(self):
        data = os.path.join(self.state_dir, "etcd-data")
        p = self.ports
        self.procs.start("etcd", [
            self._bin("etcd"), "--name", "sandbox", "--data-dir", data,
            "--listen-client-urls", f"http://127.0.0.1:{p['etcd']}",
            "--advertise-client-urls", f"http://127.0.0.1:{p['etcd']}",
            "--listen-peer-urls", f"http://127.0.0.1:{p['etcd_peer']}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{p['etcd_peer']}",
            "--initial-cluster", f"sandbox=http://127.0.0.1:{p['etcd_peer']}",
            "--unsafe-no-fsync", "--quota-backend-bytes", str(2 * 1024 ** 3), "--log-level", "warn",
        ])

        def probe():
            with urllib.request.urlopen(f"http://127.0.0.1:{p['etcd']}/health", timeout=2) as r:
                return json.loads(r.read()).get("health") == "true"
        self._wait("etcd", probe, 30, "etcd")

    def start_apiserver(self):
        policy = os.path.join(self.state_dir, "audit-policy.yaml")
        with open(policy, "w") as f:
            f.write(AUDIT_POLICY)
        pki = self.pki
        self.procs.start("kube-apiserver", [
            self._bin("kube-apiserver"),
            "--etcd-servers", f"http://127.0.0.1:{self.ports['etcd']}",
            "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
            "--secure-port", str(self.ports["apiserver"]),
            "--tls-cert-file", pki["apiserver.crt"], "--tls-private-key-file", pki["apiserver.key"],
            "--client-ca-file", pki["ca.crt"],
            "--service-cluster-ip-range", "10.96.0.0/16",
            "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file", pki["sa.pub"],
            "--service-account-signing-key-file", pki["sa.key"],
            "--authorization-mode", "RBAC",
            "--audit-policy-file", policy, "--audit-log-path", self.audit_log,
            "--audit-log-format", "json", "--audit-log-maxsize", "200",
            "--cert-dir", os.path.join(self.state_dir, "apiserver-certs"),
            "--disable-admission-plugins", "ServiceAccount",
            "--v", "1",
        ])
        self._wait("kube-apiserver /readyz", lambda: self.get("/readyz") == "ok", 120, "kube-apiserver")

    def write_kubeconfig(self):
        with open(self.kubeconfig, "w") as f:
            f.write(kubeconfig_text(self.server, self.pki))
        os.chmod(self.kubeconfig, 0o600)

    def start_controller_manager(self):
        pki = self.pki
        self.procs.start("kube-controller-manager", [
            self._bin("kube-controller-manager"),
            "--kubeconfig", self.kubeconfig,
            "--authentication-kubeconfig", self.kubeconfig, "--authorization-kubeconfig", self.kubeconfig,
            "--controllers", ",".join(CONTROLLERS),
            "--leader-elect=false",
            "--service-account-private-key-file", pki["sa.key"],
            "--root-ca-file", pki["ca.crt"],
            "--use-service-account-credentials=false",
            "--bind-address", "127.0.0.1", "--secure-port", str(self.ports["controller_manager"]),
            "--concurrent-namespace-syncs", "5", "--concurrent-gc-syncs", "10",
            "--v", "1",
        ])
        # healthz on its own port proves it started; the namespace test proves it works
        def probe():
            ctx = ssl._create_unverified_context()  # self-signed serving cert of KCM itself
            with urllib.request.urlopen(f"https://127.0.0.1:{self.ports['controller_manager']}/healthz",
                                        context=ctx, timeout=2) as r:
                return r.read() == b"ok"
        self._wait("kube-controller-manager /healthz", probe, 60, "kube-controller-manager")

    def version(self):
        return json.loads(self.get("/version"))
