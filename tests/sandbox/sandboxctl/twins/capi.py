"""Cluster API twins (the CAPI manager: Cluster and Machine controllers) and CAPA's AWSMachine and
AWSCluster controllers, as FACTS.md ("Cluster API and CAPA") describes them.

Cluster deletion: delete MachineDeployments, MachineSets and Machines of the cluster; requeue while
any remain (condition `Deleting`=True, reason WaitingForWorkersDeletion, message naming them); then
delete the `spec.controlPlaneRef` object and wait (WaitingForControlPlaneDeletion); then the
`spec.infrastructureRef` object and wait (WaitingForInfrastructureDeletion); a read error other than
NotFound stops the pass (retried); then drop `cluster.cluster.x-k8s.io`. MachineSets are owned by
their MachineDeployment and Machines by their MachineSet, so the real garbage collector cascades.
Machine deletion: delete the AWSMachine, wait (Deleting=True/WaitingForInfrastructureDeletion), drop
`machine.cluster.x-k8s.io`. AWSMachine: terminate the EC2 instance, wait for `terminated`, drop
`awsmachine.infrastructure.cluster.x-k8s.io`. AWSCluster (externally managed in HyperShift): drop
its finalizer.

Knobs (annotation `sandbox.teardown.gates/knob-<name>` on the object or its namespace):
capi=down (the CAPI manager: Cluster and Machine controllers), capa=down, requeue (duration, 1 s;
5 s for real).
"""
import logging

from botocore.exceptions import ClientError

from .base import Twin
from .hostedcommon import (aws, AWSCLUSTER_FINALIZER, AWSMACHINE_FINALIZER, CAPA, CAPI, CLUSTER_FINALIZER,
                           CLUSTER_NAME_LABEL, MACHINE_FINALIZER, HostedTwinMixin, deleting, run_all)

log = logging.getLogger("twin")


def _names(objs):
    return ", ".join(sorted(o["metadata"]["name"] for o in objs))


class ClusterController(HostedTwinMixin, Twin):
    NAME = "capi-cluster-controller"
    WATCHES = [(CAPI, "Cluster")]

    def reconcile(self, cl):
        if self.down(cl, "capi"):
            return 5
        md = cl["metadata"]
        if not deleting(cl):
            self.add_finalizer(cl, CLUSTER_FINALIZER)
            return None
        if CLUSTER_FINALIZER not in (md.get("finalizers") or []):
            return None
        rq = self.requeue_s(cl)
        ns, name = md["namespace"], md["name"]
        sel = f"{CLUSTER_NAME_LABEL}={name}"
        workers = {kind: self.list(CAPI, kind, namespace=ns, label_selector=sel)
                   for kind in ("MachineDeployment", "MachineSet", "Machine")}
        for kind, objs in workers.items():
            for o in objs:
                if not deleting(o):
                    self.delete(CAPI, kind, o["metadata"]["name"], ns)
        if any(workers.values()):
            msg = "\n".join(f"* {kind}s: {_names(objs)}" for kind, objs in workers.items() if objs)
            self._deleting(cl, "WaitingForWorkersDeletion", msg)
            return rq
        for field, reason in (("controlPlaneRef", "WaitingForControlPlaneDeletion"),
                              ("infrastructureRef", "WaitingForInfrastructureDeletion")):
            ref = (cl.get("spec") or {}).get(field)
            if not ref:
                continue
            rns = ref.get("namespace") or ns
            obj = self.get(ref["apiVersion"], ref["kind"], ref["name"], rns)  # non-404 errors raise: pass stops
            if obj is not None:
                if not deleting(obj):
                    self.delete(ref["apiVersion"], ref["kind"], ref["name"], rns)
                    log.info("Cluster %s/%s: requested deletion of %s %s", ns, name, ref["kind"], ref["name"])
                self._deleting(cl, reason, f"* {ref['kind']} {rns}/{ref['name']}: deleting")
                return rq
        self._deleting(cl, "DeletionCompleted", "")
        cur = self.get(CAPI, "Cluster", name, ns)
        if cur is not None and self.remove_finalizer(cur, CLUSTER_FINALIZER):
            log.info("Cluster %s/%s finalized", ns, name)
            return None
        return 0.2

    def _deleting(self, cl, reason, message):
        self.set_conditions(cl, [("Deleting", "True", reason, message)], {"phase": "Deleting"})


class MachineController(HostedTwinMixin, Twin):
    NAME = "capi-machine-controller"
    WATCHES = [(CAPI, "Machine")]

    def reconcile(self, m):
        if self.down(m, "capi"):
            return 5
        md = m["metadata"]
        if not deleting(m):
            self.add_finalizer(m, MACHINE_FINALIZER)
            return None
        if MACHINE_FINALIZER not in (md.get("finalizers") or []):
            return None
        ref = (m.get("spec") or {}).get("infrastructureRef")
        if ref:
            rns = ref.get("namespace") or md["namespace"]
            infra = self.get(ref["apiVersion"], ref["kind"], ref["name"], rns)
            if infra is not None:
                if not deleting(infra):
                    self.delete(ref["apiVersion"], ref["kind"], ref["name"], rns)
                self.set_conditions(m, [("Deleting", "True", "WaitingForInfrastructureDeletion",
                                         f"* {ref['kind']}: deletion in progress")], {"phase": "Deleting"})
                return self.requeue_s(m)
        self.set_conditions(m, [("Deleting", "True", "DeletionCompleted", "")], {"phase": "Deleting"})
        cur = self.get(CAPI, "Machine", md["name"], md["namespace"])
        if cur is not None and self.remove_finalizer(cur, MACHINE_FINALIZER):
            return None
        return 0.2


class AWSMachineController(HostedTwinMixin, Twin):
    NAME = "capa-awsmachine-controller"
    WATCHES = [(CAPA, "AWSMachine")]

    def reconcile(self, am):
        if self.down(am, "capa"):
            return 5
        md = am["metadata"]
        if not deleting(am):
            self.add_finalizer(am, AWSMACHINE_FINALIZER)
            return None
        if AWSMACHINE_FINALIZER not in (md.get("finalizers") or []):
            return None
        iid = (am.get("spec") or {}).get("instanceID")
        state = "terminated"
        if iid:
            ec2 = aws("ec2")
            try:
                res = ec2.describe_instances(InstanceIds=[iid])["Reservations"]
                state = res[0]["Instances"][0]["State"]["Name"] if res else "terminated"
            except ClientError as e:
                if e.response["Error"]["Code"] != "InvalidInstanceID.NotFound":
                    self.set_conditions(am, [("InstanceReady", "False", "DeletingFailed", str(e))])
                    raise
            if state not in ("terminated", "shutting-down"):
                ec2.terminate_instances(InstanceIds=[iid])
                self.event(am, "Normal", "SuccessfulTerminate", f"Terminated instance {iid}")
                state = "shutting-down"
            if state != "terminated":
                self.set_conditions(am, [("InstanceReady", "False", "Deleting",
                                          f"instance {iid} is {state}")], {"instanceState": state})
                return self.requeue_s(am)
        self.set_conditions(am, [("InstanceReady", "False", "Deleted", f"instance {iid} is terminated")],
                            {"instanceState": "terminated"})
        cur = self.get(CAPA, "AWSMachine", md["name"], md["namespace"])
        if cur is not None and self.remove_finalizer(cur, AWSMACHINE_FINALIZER):
            return None
        return 0.2


class AWSClusterController(HostedTwinMixin, Twin):
    NAME = "capa-awscluster-controller"
    WATCHES = [(CAPA, "AWSCluster")]

    def reconcile(self, ac):
        if self.down(ac, "capa"):
            return 5
        if not deleting(ac):
            self.add_finalizer(ac, AWSCLUSTER_FINALIZER)
            return None
        # HyperShift's AWSCluster is externally managed: CAPA owns no network to delete
        self.remove_finalizer(ac, AWSCLUSTER_FINALIZER)
        return None


TWINS = [ClusterController, MachineController, AWSMachineController, AWSClusterController]

if __name__ == "__main__":
    run_all([cls() for cls in TWINS], "capi")
