"""What the HyperShift twins share: names (tests/sandbox/spec/hypershift.md, HS-N1..N8), knobs, status writes, a runner.

Knobs for a hosted cluster live as annotations `sandbox.teardown.gates/knob-<name>` on the
HostedCluster, its NodePools and its HCP namespace (the seed writes all three). A twin reads a knob
from the object itself first, then from the object's namespace, then from $SANDBOX_KNOBS_FILE.
So clearing a knob on the HC and the HCP namespace (see scenarios/hosted_cluster.set_knob) clears
it for every controller of that cluster.
"""
import calendar
import functools
import logging
import re
import threading
import time

from kubernetes.client import ApiException

from ..scenarios.common import aws as _new_aws_client
from .base import KNOB_PREFIX, knob, set_condition

log = logging.getLogger("twin")

HS = "hypershift.openshift.io/v1beta1"
CAPI = "cluster.x-k8s.io/v1beta1"
CAPA = "infrastructure.cluster.x-k8s.io/v1beta2"

HO_FINALIZER = "hypershift.openshift.io/finalizer"
CLI_FINALIZER = "openshift.io/destroy-cluster"
OIDC_FINALIZER = "hypershift.io/aws-oidc-discovery"
CPO_FINALIZER = "hypershift.openshift.io/control-plane-operator-finalizer"
# HO's own on an AWSEndpointService (its endpoint controller deletes the VPC endpoint service configuration): HS-31
HO_ENDPOINT_FINALIZER = "hypershift.openshift.io/hypershift-operator-finalizer"
CLEANUP_ANN = "hypershift.openshift.io/cleanup-cloud-resources"
SKIP_NS_ANN = "hypershift.openshift.io/skip-delete-hosted-controlplane-namespace"
GRACE_ANN = "hypershift.openshift.io/destroy-grace-period"
NODEPOOL_ANN = "hypershift.openshift.io/nodePool"
HCP_NS_LABEL = "hypershift.openshift.io/hosted-control-plane"

CLUSTER_FINALIZER = "cluster.cluster.x-k8s.io"
MACHINE_FINALIZER = "machine.cluster.x-k8s.io"
MACHINESET_FINALIZER = "cluster.x-k8s.io/machineset"
AWSMACHINE_FINALIZER = "awsmachine.infrastructure.cluster.x-k8s.io"
AWSCLUSTER_FINALIZER = "awscluster.infrastructure.cluster.x-k8s.io"
CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name"

LB_FINALIZER = "service.kubernetes.io/load-balancer-cleanup"
PVC_FINALIZER = "kubernetes.io/pvc-protection"
# where the seed records the AWS object behind a Kubernetes object
ELB_ANN = "sandbox.teardown.gates/elb-name"
VOLUME_ANN = "sandbox.teardown.gates/volume-id"
BUCKET_ANN = "sandbox.teardown.gates/oidc-bucket"

_DUR = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


@functools.lru_cache(maxsize=None)
def aws(service):
    """One boto3 client per service and process (making one costs ~0.2 s; clients are thread-safe)."""
    return _new_aws_client(service)


def parse_duration(value, default=0.0):
    """Go duration ("90s", "1m30s", "500ms") or plain seconds -> float seconds."""
    if value in (None, ""):
        return default
    s = str(value).strip()
    try:
        return float(s)
    except ValueError:
        pass
    total, pos = 0.0, 0
    for m in _DUR.finditer(s):
        if m.start() != pos:
            return default
        n = float(m.group(1))
        total += n * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[m.group(2)]
        pos = m.end()
    return total if pos == len(s) and pos else default


def cond(obj, ctype):
    for c in ((obj.get("status") or {}).get("conditions") or []):
        if c.get("type") == ctype:
            return c
    return None


def cond_age(c):
    """Seconds since the condition's lastTransitionTime (0 when unknown)."""
    if not c or not c.get("lastTransitionTime"):
        return 0.0
    try:
        t = calendar.timegm(time.strptime(c["lastTransitionTime"][:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return 0.0
    return max(0.0, time.time() - t)


def deleting(obj):
    return bool(obj["metadata"].get("deletionTimestamp"))


def annotations(obj):
    return (obj.get("metadata") or {}).get("annotations") or {}


class HostedTwinMixin:
    """Helpers mixed into each twin of this family (on top of base.Twin)."""

    def cluster_knob(self, obj, name, default=None):
        ann = annotations(obj)
        if KNOB_PREFIX + name in ann:
            return ann[KNOB_PREFIX + name]
        ns = obj["metadata"].get("namespace")
        if ns:
            nso = self.get("v1", "Namespace", ns)
            if nso is not None and KNOB_PREFIX + name in annotations(nso):
                return annotations(nso)[KNOB_PREFIX + name]
        return knob(obj, name, default)

    def down(self, obj, controller):
        if str(self.cluster_knob(obj, controller, "") or "").lower() in ("down", "true", "stopped"):
            log.info("%s is down (knob %s=down): not reconciling %s %s/%s", controller, controller,
                     obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"])
            return True
        return False

    def requeue_s(self, obj, name="requeue", default=1.0):
        return parse_duration(self.cluster_knob(obj, name, None), default)

    def set_conditions(self, obj, conditions, status_fields=None):
        """Set conditions [(type, status, reason, message)] and plain status fields, through the
        status subresource, re-reading and retrying on conflict. Returns the object written
        (or the current one when nothing changed), None when it is gone."""
        api = self.api(obj["apiVersion"], obj["kind"])
        md = obj["metadata"]
        for _ in range(8):
            cur = self.get(obj["apiVersion"], obj["kind"], md["name"], md.get("namespace"))
            if cur is None:
                return None
            changed = False
            for c in conditions:
                changed = set_condition(cur, *c) or changed
            for k, v in (status_fields or {}).items():
                st = cur.setdefault("status", {}) or {}
                cur["status"] = st
                if st.get(k) != v:
                    st[k] = v
                    changed = True
            if not changed:
                return cur
            try:
                return api.status.replace(body=cur).to_dict()
            except ApiException as e:
                if e.status == 404:
                    return None
                if e.status != 409:
                    raise
                time.sleep(0.05)
        return None

    def patch_merge(self, obj, body):
        api = self.api(obj["apiVersion"], obj["kind"])
        try:
            api.patch(name=obj["metadata"]["name"], namespace=obj["metadata"].get("namespace"),
                      content_type="application/merge-patch+json", body=body)
            return True
        except ApiException as e:
            if e.status == 404:
                return False
            raise

    def delete_with(self, api_version, kind, name, namespace=None, grace=None, uid=None):
        body = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if grace is not None:
            body["gracePeriodSeconds"] = grace
        if uid:
            body["preconditions"] = {"uid": uid}
        try:
            self.api(api_version, kind).delete(name=name, namespace=namespace, body=body)
            return True
        except ApiException as e:
            if e.status in (404, 409):
                return False
            raise


def run_all(twins, name):
    """Run several twins in one process, each with its own loop thread."""
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s {name} %(threadName)s %(levelname)s %(message)s")
    # base.Twin.run calls basicConfig again: harmless once a handler exists
    for t in twins:
        threading.Thread(target=t.run, name=t.NAME, daemon=True).start()
    while True:
        time.sleep(3600)
