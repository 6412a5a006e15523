"""sandbox up|down|status|env|seed|restart: the embedded environment every test runs against."""
import argparse
import importlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

from . import crds, pki as pki_mod
from .capi import CAPA_VERSION, CAPI_VERSION, Managers
from .kube import ControlPlane
from .procs import Procs, SandboxError, port_free, wait_port_free

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(SANDBOX_DIR))
K8S_VERSION = os.environ.get("SANDBOX_K8S_VERSION", "v1.36.3")
STATE = os.environ.get("SANDBOX_HOME", os.path.join(REPO, ".sandbox"))
CACHE = os.environ.get("TEARDOWN_GATES_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "teardown-gates"))
VENV = os.path.join(REPO, ".venv")
# below the ephemeral range (32768+), so that no outgoing connection can hold one of our ports
_BASE = int(os.environ.get("SANDBOX_PORT_BASE", "21000"))
PORTS = {"etcd": _BASE + 379, "etcd_peer": _BASE + 380, "apiserver": _BASE + 443,
         "controller_manager": _BASE + 257, "aws": _BASE + 566}
# Order of start; down stops in reverse. The upstream managers (capi.py) follow the AWS layer that
# CAPA talks to; twins (python modules under sandboxctl.twins) come last.
CORE = ["etcd", "kube-apiserver", "kube-controller-manager", "aws-layer"]
MANAGERS = ["capi-manager", "capa-manager"]
TWINS = [  # one line per twin: ("hypershift", "sandboxctl.twins.hypershift"), ...
    ("captf", "sandboxctl.twins.captf"),
    ("convoy", "sandboxctl.twins.convoy"),
    ("hypershift", "sandboxctl.twins.hypershift"),
]


def say(msg):
    print(f"[sandbox {time.strftime('%H:%M:%S', time.gmtime())}] {msg}", file=sys.stderr, flush=True)


def bin_dir():
    return os.path.join(CACHE, "k8s", K8S_VERSION, "bin")


def env_vars():
    py = os.path.join(VENV, "bin", "python")
    site = subprocess.run([py, "-c", "import ansible_collections,os;print(os.path.dirname(ansible_collections.__path__[0]))"],
                          capture_output=True, text=True).stdout.strip() if os.path.exists(py) else ""
    coll = os.path.join(VENV, "collections")
    return {
        "KUBECONFIG": os.path.join(STATE, "kubeconfig"),
        "K8S_AUTH_KUBECONFIG": os.path.join(STATE, "kubeconfig"),
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{PORTS['aws']}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "ANSIBLE_COLLECTIONS_PATH": ":".join(p for p in (coll, site) if p),
        "ANSIBLE_PYTHON_INTERPRETER": py,
        "PATH": os.path.join(VENV, "bin") + ":" + os.environ.get("PATH", ""),
        "SANDBOX_AUDIT_LOG": os.path.join(STATE, "logs", "audit.log"),
        "SANDBOX_AWS_LOG": os.path.join(STATE, "logs", "aws-requests.jsonl"),
        "SANDBOX_AWS_CONTROL": f"http://127.0.0.1:{PORTS['aws']}/_sandbox",
        "SANDBOX_HOME": STATE,
    }


def control_plane(procs):
    return ControlPlane(STATE, bin_dir(), PORTS, pki_mod.ensure_pki(os.path.join(STATE, "pki")), procs)


def managers(procs, cp=None):
    return Managers(STATE, CACHE, _BASE, cp or control_plane(procs), procs,
                    {k: v for k, v in env_vars().items() if k.startswith("AWS_")})


def build():
    if shutil.which("go") is None and not os.path.exists(os.path.join(bin_dir(), "kube-apiserver")):
        raise SandboxError("Go is not on PATH and the control plane is not cached in "
                           f"{bin_dir()}: install Go 1.26 or newer so that `up` can build it")
    _build("the control plane", ["bash", os.path.join(SANDBOX_DIR, "build_control_plane.sh"), K8S_VERSION,
                                 os.path.join(CACHE, "k8s")])
    _build(f"the CAPI {CAPI_VERSION} and CAPA {CAPA_VERSION} managers",
           Managers(STATE, CACHE, _BASE, None, None, {}).build_argv(os.path.join(SANDBOX_DIR, "build_capi.sh")))


def _build(what, argv):
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    done = threading.Event()

    def heartbeat():
        while not done.wait(30):
            say(f"still building {what} ({time.monotonic() - t0:.0f} s so far)")
    threading.Thread(target=heartbeat, daemon=True).start()
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("[build") or "build_control_plane:" in line or "build_capi:" in line:
            print(line.rstrip(), file=sys.stderr, flush=True)
    rc = proc.wait()
    done.set()
    if rc != 0:
        raise SandboxError(f"building {what} failed:\n" + "".join(lines[-15:]))


def preflight(procs):
    for name, port in PORTS.items():
        owner = {"etcd": "etcd", "etcd_peer": "etcd", "apiserver": "kube-apiserver",
                 "controller_manager": "kube-controller-manager", "aws": "aws-layer"}[name]
        # a component stopped a moment ago may still hold its port for a few seconds (see wait_port_free)
        if not procs.pid(owner) and not wait_port_free(port, timeout=10.0):
            raise SandboxError(f"port {port} (for {name}) is taken by another process; free it or set "
                               f"SANDBOX_PORT_BASE to move every sandbox port (now {_BASE})")
    for owner, named in Managers(STATE, CACHE, _BASE, None, None, {}).ports.items():
        for what, port in named.items():
            if not procs.pid(owner) and not wait_port_free(port, timeout=10.0):
                raise SandboxError(f"port {port} ({owner}'s {what}) is taken by another process; free it or set "
                                   f"SANDBOX_PORT_BASE to move every sandbox port (now {_BASE})")


def _api_client(cp):
    from kubernetes import config
    return config.new_client_from_config(cp.kubeconfig)


def apply_crds(cp, procs):
    """The twins' hand-written CRDs and the upstream CAPI and CAPA CRDs (capi.py)."""
    from kubernetes import client
    ext = client.ApiextensionsV1Api(_api_client(cp))
    bodies = crds.all_crds() + managers(procs, cp).crds()
    for body in bodies:
        name = body["metadata"]["name"]
        try:
            cur = ext.read_custom_resource_definition(name)
            body["metadata"]["resourceVersion"] = cur.metadata.resource_version
            ext.replace_custom_resource_definition(name, body)
        except client.ApiException as e:
            if e.status != 404:
                raise
            ext.create_custom_resource_definition(body)
    deadline = time.monotonic() + 60
    pending = {b["metadata"]["name"] for b in bodies}
    while pending and time.monotonic() < deadline:
        for name in list(pending):
            conds = ext.read_custom_resource_definition(name).status.conditions or []
            if any(c.type == "Established" and c.status == "True" for c in conds):
                pending.discard(name)
        time.sleep(0.3)
    if pending:
        raise SandboxError(f"CRDs not established after 60 s: {sorted(pending)}")


def start_managers(procs, cp, only=None):
    """Both upstream managers, then their webhooks (registered only once a manager serves them)."""
    m = managers(procs, cp)
    for name in MANAGERS:
        if only is None or name == only:
            m.start(name)
    if only is None:
        register_webhooks(cp, m)
        ensure_capa_identity(cp)


def register_webhooks(cp, m):
    from kubernetes import client
    adm = client.AdmissionregistrationV1Api(_api_client(cp))
    for body in m.webhook_configurations():
        kind, name = body["kind"], body["metadata"]["name"]
        read, create, replace = ((adm.read_mutating_webhook_configuration, adm.create_mutating_webhook_configuration,
                                  adm.replace_mutating_webhook_configuration) if kind.startswith("Mutating") else
                                 (adm.read_validating_webhook_configuration, adm.create_validating_webhook_configuration,
                                  adm.replace_validating_webhook_configuration))
        try:
            body["metadata"]["resourceVersion"] = read(name).metadata.resource_version
            replace(name, body)
        except client.ApiException as e:
            if e.status != 404:
                raise
            create(body)


def ensure_capa_identity(cp):
    """CAPA resolves an AWSCluster's credentials through the AWSClusterControllerIdentity `default`
    (its own environment's credentials, here the AWS layer's dummy keys), open to every namespace."""
    from kubernetes import client
    api = client.CustomObjectsApi(_api_client(cp))
    body = {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "AWSClusterControllerIdentity",
            "metadata": {"name": "default"}, "spec": {"allowedNamespaces": {}}}
    try:
        api.create_cluster_custom_object("infrastructure.cluster.x-k8s.io", "v1beta2",
                                         "awsclustercontrolleridentities", body)
    except client.ApiException as e:
        if e.status != 409:
            raise


def start_aws(procs):
    env = dict(os.environ, PYTHONPATH=SANDBOX_DIR, **{k: v for k, v in env_vars().items() if k.startswith("AWS_")})
    os.makedirs(os.path.join(STATE, "aws"), exist_ok=True)
    procs.start("aws-layer", [os.path.join(VENV, "bin", "python"), "-m", "sandboxctl.awslayer",
                              "--port", str(PORTS["aws"]), "--log", env_vars()["SANDBOX_AWS_LOG"],
                              "--state", os.path.join(STATE, "aws")], env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not procs.pid("aws-layer"):
            raise SandboxError("the AWS layer exited while starting:\n" + procs.tail("aws-layer"))
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{PORTS['aws']}/_sandbox/health", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise SandboxError("the AWS layer did not answer in 60 s:\n" + procs.tail("aws-layer"))


def start_twins(procs, only=None):
    env = dict(os.environ, PYTHONPATH=SANDBOX_DIR, **env_vars())
    for name, module in TWINS:
        if only is None or name == only:
            procs.start("twin-" + name, [os.path.join(VENV, "bin", "python"), "-m", module], env=env)


def cmd_restart(args):
    """A crash and a restart of one component (test equipment for the chaos campaign).

    kube-apiserver: killed (SIGKILL, or SIGTERM with --graceful), down for --down-seconds, started again
    with the same flags and ports, and ready (/readyz) before this returns. twin-NAME: the same for
    one controller twin; it re-lists and carries on, as a restarted controller does.
    """
    procs = Procs(STATE)
    comp = {"apiserver": "kube-apiserver"}.get(args.component, args.component)
    twins = {"twin-" + n: n for n, _ in TWINS}
    if comp != "kube-apiserver" and comp not in twins and comp not in MANAGERS:
        raise SandboxError(f"restart: {args.component!r} is not one of kube-apiserver (apiserver), "
                           f"{', '.join(MANAGERS + sorted(twins))}")
    if not procs.pid(comp):
        raise SandboxError(f"restart: {comp} is not running (sandbox up first)")
    t0 = time.monotonic()
    procs.stop(comp, grace=10.0 if args.graceful else 0.0)
    if args.down_seconds:
        time.sleep(args.down_seconds)
    if comp == "kube-apiserver":
        if not wait_port_free(PORTS["apiserver"]):
            raise SandboxError(f"restart: port {PORTS['apiserver']} is still taken 30 s after kube-apiserver was stopped")
        control_plane(procs).start_apiserver()
    elif comp in MANAGERS:
        start_managers(procs, control_plane(procs), only=comp)
    else:
        start_twins(procs, only=twins[comp])
    say(f"restarted {comp} ({'SIGTERM' if args.graceful else 'SIGKILL'}) in {time.monotonic() - t0:.1f} s")
    return 0


def cmd_up(args):
    if not os.path.exists(os.path.join(VENV, "bin", "python")):
        raise SandboxError(f"no virtualenv at {VENV}: run `make bootstrap` first")
    os.makedirs(STATE, exist_ok=True)
    procs = Procs(STATE)
    preflight(procs)
    t0 = time.monotonic()
    build()
    cp = control_plane(procs)
    started_before = set(procs.names())
    try:
        for step, fn in (("etcd", cp.start_etcd), ("kube-apiserver", cp.start_apiserver),
                         ("kubeconfig", cp.write_kubeconfig), ("kube-controller-manager", cp.start_controller_manager),
                         ("CRDs", lambda: apply_crds(cp, procs)), ("AWS layer (moto)", lambda: start_aws(procs)),
                         (f"CAPI {CAPI_VERSION} and CAPA {CAPA_VERSION} managers", lambda: start_managers(procs, cp)),
                         ("controller twins", lambda: start_twins(procs))):
            s = time.monotonic()
            say(f"starting {step}")
            fn()
            say(f"{step} ready in {time.monotonic() - s:.1f} s")
    except BaseException:
        # leave nothing half-started by this invocation
        for name in reversed(procs.names()):
            if name not in started_before:
                procs.stop(name)
        raise
    with open(os.path.join(STATE, "env.sh"), "w") as f:
        f.write(render_env())
    v = cp.version()
    say(f"sandbox up in {time.monotonic() - t0:.1f} s: Kubernetes {v.get('gitVersion')} at {cp.server}, "
        f"AWS at {env_vars()['AWS_ENDPOINT_URL']}; next: eval \"$(tests/sandbox/sandbox env)\"")
    return 0


def cmd_down(args):
    procs = Procs(STATE) if os.path.isdir(STATE) else None
    if procs is None:
        say("nothing to stop")
        return 0
    order = ["twin-" + n for n, _ in TWINS] + list(reversed(MANAGERS)) + list(reversed(CORE))
    names = procs.names()
    for name in [n for n in names if n not in order] + [n for n in order if n in names]:
        cpu = procs.cpu_seconds(name)
        procs.stop(name)
        say(f"stopped {name}" + (f" (it used {cpu:.0f} CPU-s)" if cpu is not None else ""))
    if args.purge:
        shutil.rmtree(STATE, ignore_errors=True)
        say(f"removed {STATE}")
    return 0


def cmd_status(args):
    procs = Procs(STATE) if os.path.isdir(STATE) else None
    rows = []
    ports = {"etcd": PORTS["etcd"], "kube-apiserver": PORTS["apiserver"],
             "kube-controller-manager": PORTS["controller_manager"], "aws-layer": PORTS["aws"]}
    names = CORE + MANAGERS + ["twin-" + n for n, _ in TWINS]
    mgrs = managers(procs) if procs else None
    for name in MANAGERS:
        ports[name] = mgrs.ports[name]["webhook"] if mgrs else None
    up = True
    for name in names:
        pid = procs.pid(name) if procs else None
        up = up and pid is not None
        row = {"component": name, "pid": pid, "port": ports.get(name), "running": pid is not None,
               "log": procs.logfile(name) if procs else None}
        if name in MANAGERS and mgrs:
            # the upstream module the binary was built from, as `go version -m` reads it
            row["module"] = mgrs.module_version(name)
            row["binary"] = mgrs.binary(name)
        rows.append(row)
    out = {"state_dir": STATE, "kubernetes_version": K8S_VERSION, "binaries": bin_dir(), "components": rows}
    if procs and procs.pid("kube-apiserver"):
        try:
            out["apiserver"] = control_plane(procs).version().get("gitVersion")
        except Exception as e:  # noqa: BLE001
            out["apiserver"] = f"not answering: {e}"
            up = False
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for r in rows:
            print(f"{r['component']:<26} {'running' if r['running'] else 'stopped':<8} "
                  f"pid={r['pid'] or '-':<8} port={r['port'] or '-'}" + (f"  {r['module']}" if r.get("module") else ""))
        if str(out.get("apiserver", "")).startswith("not answering"):
            print(f"kube-apiserver runs but is {out['apiserver']}")
        print(f"state: {STATE}  binaries: {bin_dir()}")
        if args.logs and procs:
            for r in rows:
                if not r["running"] and os.path.exists(r["log"]):
                    print(f"--- the end of {r['component']}'s log ({r['log']}):\n{procs.tail(r['component'], 10)}", end="")
    return 0 if up else 3


def render_env():
    return "".join(f"export {k}={json.dumps(v)}\n" for k, v in env_vars().items())


def cmd_env(args):
    sys.stdout.write(render_env())
    return 0


def cmd_seed(args):
    from . import scenarios
    knobs = {}
    for kv in args.knob or []:
        if "=" not in kv:
            raise SandboxError(f"--knob {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        knobs[k] = v
    if args.count is not None:
        knobs["count"] = str(args.count)
    scenario = scenarios.get(args.scenario)
    os.environ.update(env_vars())
    result = scenario(name=args.name, namespace=args.namespace, knobs=knobs)
    print(json.dumps(result, sort_keys=True))
    return 0


def cmd_knob(args):
    from .scenarios import hosted_cluster
    os.environ.update(env_vars())
    hosted_cluster.set_knob(args.name, args.namespace, args.key, args.value)
    print(json.dumps({"knob": args.key, "value": args.value, "name": args.name, "namespace": args.namespace}))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="sandbox", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("up", help="build (once, cached) and start the control plane, the AWS layer and the twins")
    d = sub.add_parser("down", help="stop every sandbox process")
    d.add_argument("--purge", action="store_true", help="also delete the state folder (etcd data, logs)")
    s = sub.add_parser("status", help="what runs where")
    s.add_argument("--json", action="store_true")
    s.add_argument("--logs", action="store_true", help="also the end of each stopped component's log")
    sub.add_parser("env", help="print export lines for the sandbox")
    rs = sub.add_parser("restart", help="kill one component and start it again with the same flags (chaos)")
    rs.add_argument("component", help="apiserver (kube-apiserver), capi-manager, capa-manager or twin-NAME")
    rs.add_argument("--graceful", action="store_true", help="SIGTERM instead of SIGKILL")
    rs.add_argument("--down-seconds", type=float, default=0.0, help="stay down this long before the start")
    sd = sub.add_parser("seed", help="create a scenario; the last line printed is its JSON description")
    sd.add_argument("scenario")
    sd.add_argument("--name", default=None)
    sd.add_argument("--namespace", default=None)
    sd.add_argument("--knob", action="append", metavar="K=V")
    sd.add_argument("--count", type=int, default=None, help="how many (the knob `count`)")
    k = sub.add_parser("knob", help="set (or without VALUE clear) a knob of a seeded hosted cluster where the twins "
                       "read it, capi/capa included (the pause of its CAPI objects)")
    k.add_argument("name")
    k.add_argument("namespace")
    k.add_argument("key")
    k.add_argument("value", nargs="?", default=None)
    args = ap.parse_args(argv)
    try:
        return {"up": cmd_up, "down": cmd_down, "status": cmd_status, "env": cmd_env, "seed": cmd_seed,
                "restart": cmd_restart, "knob": cmd_knob}[args.cmd](args)
    except SandboxError as e:
        print(f"sandbox {args.cmd}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
