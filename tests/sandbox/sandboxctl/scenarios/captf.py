"""captf: one CAPTF object (TerraformCluster by default) with its state, inputs and backup Secrets,
deleted so that the CAPTF twin decides what its deletion does.

Knobs:
  kind=TerraformCluster|TerraformMachine|TerraformMachinePool
  state=ok|lost|corrupt|encrypted|inconsistent|never   (default lost; never = no state, never applied)
  backups=N          complete backups to create (default 2; serials newest first in status.stateBackups)
  signals=a,b        ever-applied signals to set: provisioned, inputs (captf.io/applied), digest,
                     none (default provisioned,inputs; for state=never: none). A backup is a signal too.
  inputs=present|absent                               (default present)
  destroy=ok|fail|identity|credentials|deadline       (knob for the twin, default ok)
  restore=ok|fail                                     (knob for the twin, default ok)
  dependents=N       TerraformMachines left in the cluster (TerraformCluster only; not deleted)
  paused=true        spec.paused on the object
  delete=true|false  delete the object at the end (default true)
  job-seconds=S      how long the twin's simulated Jobs run (default 1)
  wait=S             wait up to S seconds for the twin to settle on the expected outcome (default 20)
"""
import base64
import json
import time
import uuid

from kubernetes.client import ApiException

from .common import core_v1, ensure_namespace, kube

API = "infrastructure.cluster.x-k8s.io/v1alpha1"
SHORT = {"TerraformCluster": "tc", "TerraformMachine": "tm", "TerraformMachinePool": "tmp"}
KNOB = "sandbox.teardown.gates/knob-"
CLUSTER_LABEL = "cluster.x-k8s.io/cluster-name"
ENCRYPTED_PREFIX = "-----BEGIN AGE ENCRYPTED FILE-----"


def _b64(text):
    return base64.b64encode(text.encode()).decode()


def _state(serial, lineage, resources=("aws_vpc.main", "aws_subnet.a")):
    return json.dumps({"version": 4, "serial": serial, "lineage": lineage,
                       "resources": [{"type": r.split(".")[0], "name": r.split(".")[1]} for r in resources]})


def _secret(v1, ns, name, data, annotations=None, owner=None, labels=None):
    md = {"name": name, "namespace": ns, "annotations": annotations or {}, "labels": labels or {}}
    if owner:
        md["ownerReferences"] = [{"apiVersion": API, "kind": owner["kind"], "name": owner["metadata"]["name"],
                                  "uid": owner["metadata"]["uid"]}]
    v1.create_namespaced_secret(ns, {"metadata": md, "type": "Opaque", "data": data})
    return name


def _make_object(api, v1, kind, name, ns, knobs, labels, state, nbackups, signals, lineage):
    short = SHORT[kind]
    ann = {KNOB + k: knobs[k] for k in ("destroy", "restore", "job-seconds") if k in knobs}
    body = {"apiVersion": API, "kind": kind,
            "metadata": {"name": name, "namespace": ns, "labels": labels, "annotations": ann,
                         "finalizers": [kind.lower() + ".infrastructure.cluster.x-k8s.io"]},
            "spec": {"paused": knobs.get("paused") == "true"}}
    obj = api.create(namespace=ns, body=body).to_dict()
    secrets = {}
    owned = {"captf.io/owner-kind": kind, "captf.io/owner-name": name}
    if knobs.get("inputs", "present") == "present":
        ia = {}
        if "inputs" in signals:
            ia["captf.io/applied"] = "true"
        if "digest" in signals:
            ia["captf.io/pinned-digest"] = "sha256:" + uuid.uuid4().hex * 2
        secrets["inputs"] = _secret(v1, ns, f"captf-inputs-{short}-{name}", {"inputs.json": _b64('{"region": "us-east-1"}')},
                                    annotations=ia, labels=owned)
    top = 10 + nbackups
    if state != "lost" and state != "never":
        text = {"ok": _state(top, lineage), "corrupt": '{"version": 4, "serial": ' + str(top) + ', "lin',
                "encrypted": ENCRYPTED_PREFIX + "\nYWdlLWVuY3J5cHRpb24ub3JnL3Yx\n",
                "inconsistent": _state(top, "other-" + lineage)}[state]
        secrets["state"] = _secret(v1, ns, f"captf-state-{short}-{name}", {"tfstate": _b64(text)}, labels=owned)
    secrets["plan"] = _secret(v1, ns, f"captf-plan-{short}-{name}", {"key": _b64(uuid.uuid4().hex)}, labels=owned)
    backups = []
    for i in range(nbackups):  # newest first
        serial = top - 1 - i
        sname = _secret(v1, ns, f"captf-state-backup-{short}-{name}-{serial}", {"tfstate": _b64(_state(serial, lineage))},
                        owner=obj, labels=owned)
        backups.append({"serial": serial, "secretName": sname, "complete": True,
                        "createdAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600 * (i + 1)))})
    status = {"lineage": lineage, "stateBackups": backups, "conditions": []}
    if "provisioned" in signals:
        status["initialization"] = {"provisioned": True}
    obj["status"] = status
    obj = api.status.replace(body=obj).to_dict()
    return obj, secrets, backups


def _expected(kind, state, knobs, ndeps):
    """(condition type, status, reason) the twin should settle on, or None for "gone"."""
    if knobs.get("paused") == "true":
        return "paused"
    if kind == "TerraformCluster" and ndeps:
        return ("DeletionBlocked", "True", "DependentsExist")
    if state == "never":
        return None
    if state in ("lost", "corrupt", "encrypted", "inconsistent"):
        return ("StateReadable", "False", "State" + state.capitalize())
    if knobs.get("destroy", "ok") != "ok" or knobs.get("inputs") == "absent":
        return ("ApplyJobSucceeded", "False", None)
    return None


def seed(name=None, namespace=None, knobs=None):
    knobs = knobs or {}
    kind = knobs.get("kind", "TerraformCluster")
    if kind not in SHORT:
        raise ValueError(f"knob kind={kind!r}: one of {', '.join(SHORT)}")
    state = knobs.get("state", "lost")
    if state not in ("ok", "lost", "corrupt", "encrypted", "inconsistent", "never"):
        raise ValueError(f"knob state={state!r}: one of ok, lost, corrupt, encrypted, inconsistent, never")
    name = name or "captf-" + uuid.uuid4().hex[:6]
    namespace = namespace or "captf"
    ensure_namespace(namespace)
    dyn, v1 = kube(), core_v1()
    api = dyn.resources.get(api_version=API, kind=kind)
    default_signals = "none" if state == "never" else "provisioned,inputs"
    signals = {s for s in knobs.get("signals", default_signals).split(",") if s and s != "none"}
    nbackups = int(knobs.get("backups", 0 if state == "never" else 2))
    lineage = str(uuid.uuid4())
    labels = {CLUSTER_LABEL: name} if kind == "TerraformCluster" else {}
    obj, secrets, backups = _make_object(api, v1, kind, name, namespace, knobs, labels, state, nbackups, signals,
                                         lineage)
    deps = []
    for i in range(int(knobs.get("dependents", 0)) if kind == "TerraformCluster" else 0):
        mapi = dyn.resources.get(api_version=API, kind="TerraformMachine")
        dobj, _, _ = _make_object(mapi, v1, "TerraformMachine", f"{name}-m{i}", namespace, {}, {CLUSTER_LABEL: name},
                                  "ok", 1, {"provisioned", "inputs"}, str(uuid.uuid4()))
        deps.append({"apiVersion": API, "kind": "TerraformMachine", "name": dobj["metadata"]["name"],
                     "namespace": namespace, "uid": dobj["metadata"]["uid"]})
    if knobs.get("delete", "true") == "true":
        api.delete(name=name, namespace=namespace)
    expected = _expected(kind, state, knobs, len(deps)) if knobs.get("delete", "true") == "true" else "not deleted"
    settled = _wait(api, name, namespace, expected, float(knobs.get("wait", 20)))
    uid = obj["metadata"]["uid"]
    return {
        "scenario": "captf", "name": name, "namespace": namespace, "kind": kind, "uid": uid, "state": state,
        "objects": [{"apiVersion": API, "kind": kind, "name": name, "namespace": namespace, "uid": uid,
                     "finalizers": obj["metadata"].get("finalizers")}] + deps,
        "dependents": deps, "secrets": secrets, "backups": backups,
        "backup_serials": [b["serial"] for b in backups], "signals": sorted(signals),
        "expected": expected if isinstance(expected, (str, type(None))) else list(expected), "settled": settled,
    }


def _wait(api, name, ns, expected, timeout):
    if expected in ("paused", "not deleted") or timeout <= 0:
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            o = api.get(name=name, namespace=ns).to_dict()
        except ApiException as e:
            if e.status == 404:
                return expected is None
            raise
        if expected is not None:
            for c in (o.get("status") or {}).get("conditions") or []:
                if c.get("type") == expected[0] and c.get("status") == expected[1] and \
                        (expected[2] is None or c.get("reason") == expected[2]):
                    return True
        time.sleep(0.2)
    return False
