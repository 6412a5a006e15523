"""CAPTF twin: the deletion path of TerraformCluster / TerraformMachine / TerraformMachinePool.

Follows tests/sandbox/spec/captf.md (rules TF-n; the rules table of the CAPTF deletion chapter, seed
002) in its order, first match decides the pass:

1. the object (or its CAPI Cluster) is paused: nothing;
2. a Job of the object is running: wait for it;
3. a TerraformCluster with machines or pools left: DeletionBlocked=True/DependentsExist;
4. no state and never applied: the finalizer comes off at once;
   (here the abandon annotation is checked, before the restore and destroy decisions)
5. no state after applying: held, StateReadable=False/StateLost;
6. state that cannot be read: held, StateCorrupt / StateEncrypted / StateInconsistent;
   a restore-state annotation naming a complete backup starts a restore Job (never retried for the
   same serial after a failure), after which the normal destroy follows;
7. readable state: a destroy Job (simulated: it "runs" for knob job-seconds);
8. the destroy succeeded: cleanup, finalizer off;
9. the destroy failed or cannot start: retried with backoff, forever.

Jobs are simulated in `status.activeJob` ({type, serial, startedAt, durationSeconds}); there is no
kubelet in the sandbox. Secrets (one namespace with the object):

    captf-state-<short>-<name>                 the Terraform state (data key `tfstate`)
    captf-inputs-<short>-<name>                the durable inputs (annotations captf.io/applied,
                                               captf.io/pinned-digest)
    captf-plan-<short>-<name>                  the plan key
    captf-state-backup-<short>-<name>-<serial> a backup, owned by the object (GC'd with it)
    Lease captf-lock-<short>-<name>            the state lock

where <short> is tc, tm or tmp. Knobs (annotation sandbox.teardown.gates/knob-<name>):
destroy=ok|fail|identity|credentials|deadline, restore=ok|fail, job-seconds (default 1;
read on each pass, so lowering it ends a running Job),
backoff-max (default 8), hold-requeue (default 60). `spec.deletionPolicy: Retain` (the newer CAPTF
generation's replacement for the abandon annotation) releases like the annotation.
"""
import base64
import json
import logging
import time

from kubernetes.client import ApiException

from .base import Twin, knob, now_iso, set_condition

log = logging.getLogger("twin")

API = "infrastructure.cluster.x-k8s.io/v1alpha1"
KINDS = ("TerraformCluster", "TerraformMachine", "TerraformMachinePool")
SHORT = {"TerraformCluster": "tc", "TerraformMachine": "tm", "TerraformMachinePool": "tmp"}
FINALIZER = {k: k.lower() + ".infrastructure.cluster.x-k8s.io" for k in KINDS}
ABANDON = "captf.io/abandon-infrastructure"
RESTORE = "captf.io/restore-state"
APPLIED = "captf.io/applied"
DIGEST = "captf.io/pinned-digest"
CLUSTER_LABEL = "cluster.x-k8s.io/cluster-name"
PAUSED_ANNOTATION = "cluster.x-k8s.io/paused"
HOLD_REASONS = ("StateLost", "StateCorrupt", "StateEncrypted", "StateInconsistent")
# ApplyJobSucceeded reasons after which the abandon annotation releases (and its cause in the event)
DESTROY_FAILURES = {"DestroyFailed": "last destroy failed", "JobDeadlineExceeded": "last destroy failed",
                    "IdentityNotAllowed": "IdentityNotAllowed", "CredentialsUnavailable": "credentials unavailable",
                    "InputsUnavailable": "inputs gone"}
OUTCOMES = {"fail": ("DestroyFailed", "terraform destroy exited 1: Error: deleting resources: simulated failure"),
            "identity": ("IdentityNotAllowed", "the identity is not allowed in this namespace"),
            "credentials": ("CredentialsUnavailable", "credentials Secret cannot be read"),
            "deadline": ("JobDeadlineExceeded", "the destroy Job exceeded its activeDeadlineSeconds")}
ENCRYPTED_PREFIX = "-----BEGIN AGE ENCRYPTED FILE-----"


def names(obj):
    short, name = SHORT[obj["kind"]], obj["metadata"]["name"]
    return {"state": f"captf-state-{short}-{name}", "inputs": f"captf-inputs-{short}-{name}",
            "plan": f"captf-plan-{short}-{name}", "lock": f"captf-lock-{short}-{name}",
            "backup_prefix": f"captf-state-backup-{short}-{name}-"}


def read_state(secret, lineage):
    """(reason, detail): reason None when the state reads, "NoState" when there is none."""
    if secret is None:
        return "NoState", "no state Secret"
    raw = (secret.get("data") or {}).get("tfstate")
    if not raw:
        return "NoState", "the state Secret has no tfstate key"
    try:
        text = base64.b64decode(raw).decode()
    except (ValueError, UnicodeDecodeError):
        return "StateCorrupt", "the state is not valid base64/UTF-8"
    if text.startswith(ENCRYPTED_PREFIX):
        return "StateEncrypted", "the state is encrypted with a key the controller does not hold"
    try:
        doc = json.loads(text)
    except ValueError as e:
        return "StateCorrupt", f"the state does not parse: {e}"
    if not isinstance(doc, dict) or "serial" not in doc:
        return "StateCorrupt", "the state has no serial"
    if lineage and doc.get("lineage") != lineage:
        return "StateInconsistent", f"state lineage {doc.get('lineage')!r} differs from the recorded {lineage!r}"
    return None, f"serial {doc.get('serial')}"


class CaptfTwin(Twin):
    NAME = "captf"
    WATCHES = [(API, k) for k in KINDS]

    def __init__(self):
        super().__init__()
        self.next_destroy = {}  # uid -> monotonic time of the next attempt (backoff)

    # -- reads ----------------------------------------------------------------------------------
    def secret(self, ns, name):
        return self.get("v1", "Secret", name, ns)

    def paused(self, obj):
        if (obj.get("spec") or {}).get("paused"):
            return True
        md = obj["metadata"]
        if PAUSED_ANNOTATION in (md.get("annotations") or {}):
            return True
        cluster = (md.get("labels") or {}).get(CLUSTER_LABEL)
        if cluster:
            try:
                c = self.get("cluster.x-k8s.io/v1beta1", "Cluster", cluster, md["namespace"])
            except ApiException:
                c = None
            if c and (c.get("spec") or {}).get("paused"):
                return True
        return False

    def dependents(self, obj):
        md = obj["metadata"]
        cluster = (md.get("labels") or {}).get(CLUSTER_LABEL) or md["name"]
        out = []
        for kind in ("TerraformMachine", "TerraformMachinePool"):
            for o in self.list(API, kind, md["namespace"], label_selector=f"{CLUSTER_LABEL}={cluster}"):
                out.append(f"{kind}/{o['metadata']['name']}")
        return out

    def backups(self, obj):
        pref = names(obj)["backup_prefix"]
        return [s for s in self.list("v1", "Secret", obj["metadata"]["namespace"])
                if s["metadata"]["name"].startswith(pref)]

    def ever_applied(self, obj, inputs):
        st = obj.get("status") or {}
        if (st.get("initialization") or {}).get("provisioned"):
            return True
        ann = ((inputs or {}).get("metadata") or {}).get("annotations") or {}  # TF-5
        if ann.get(APPLIED) == "true" or ann.get(DIGEST):
            return True
        return bool(self.backups(obj))

    # -- writes ---------------------------------------------------------------------------------
    def cleanup(self, obj):  # TF-11, TF-13: state, inputs, plan, lock; backups go with the object
        ns, n = obj["metadata"]["namespace"], names(obj)
        for key in ("state", "inputs", "plan"):
            self.delete("v1", "Secret", n[key], ns)
        self.delete("coordination.k8s.io/v1", "Lease", n["lock"], ns)

    def release(self, obj, why):
        self.cleanup(obj)
        if self.remove_finalizer(obj, FINALIZER[obj["kind"]]):
            log.info("%s %s/%s: finalizer removed (%s)", obj["kind"], obj["metadata"]["namespace"],
                     obj["metadata"]["name"], why)

    def start_job(self, obj, jtype, serial=None):
        secs = float(knob(obj, "job-seconds", 1))
        obj["status"]["activeJob"] = {"type": jtype, "serial": serial, "startedAt": now_iso(),
                                      "startedEpoch": time.time(), "durationSeconds": secs}
        self.update_status(obj)
        self.event(obj, "Normal", "JobStarted", f"{jtype} Job started" + (f" for serial {serial}" if serial else ""))
        return secs

    # -- the rules ------------------------------------------------------------------------------
    def reconcile(self, obj):
        md = obj["metadata"]
        obj.setdefault("status", {})
        obj["status"] = obj["status"] or {}
        fin = FINALIZER[obj["kind"]]
        if not md.get("deletionTimestamp"):
            if not self.paused(obj):
                self.add_finalizer(obj, fin)
            return None
        if fin not in (md.get("finalizers") or []):
            return None
        # 1. paused: nothing (the watch brings us back when that changes) (TF-1)
        if self.paused(obj):
            return 30
        # 2. a Job is running (TF-2; Jobs are simulated: TF-16)
        job = obj["status"].get("activeJob")
        if job:
            # the knob is read again on each pass (TF-16): a test holds a Job running, then lets it end
            secs = float(knob(obj, "job-seconds", job.get("durationSeconds", 0)))
            left = job.get("startedEpoch", 0) + secs - time.time()
            if left > 0:
                return left
            return self.finish_job(obj, job)
        # 3. a cluster with machines or pools left (TF-3)
        if obj["kind"] == "TerraformCluster":
            deps = self.dependents(obj)
            if deps:
                if set_condition(obj, "DeletionBlocked", "True", "DependentsExist",
                                 "waiting for " + ", ".join(sorted(deps)) + " to be deleted"):
                    self.update_status(obj)
                return 5
            if set_condition(obj, "DeletionBlocked", "False", "NoDependents", ""):
                self.update_status(obj)
        ns, n = md["namespace"], names(obj)
        state_secret = self.secret(ns, n["state"])
        inputs = self.secret(ns, n["inputs"])
        reason, detail = read_state(state_secret, obj["status"].get("lineage"))  # TF-17
        # 4. no state, never applied (TF-4)
        if reason == "NoState" and not self.ever_applied(obj, inputs):
            self.release(obj, "no state and never applied")
            return None
        if reason == "NoState":
            reason = "StateLost"
            detail = "the object applied before but its state Secret is gone"
        # the abandon annotation comes before the restore and destroy decisions (TF-8, TF-10)
        ann = (md.get("annotations") or {})
        abandon = ann.get(ABANDON)
        cause = None
        if reason in HOLD_REASONS:
            cause = "state unreadable"
        else:
            c = next((c for c in obj["status"].get("conditions") or [] if c.get("type") == "ApplyJobSucceeded"), None)
            if c and c.get("status") == "False" and c.get("reason") in DESTROY_FAILURES:
                cause = DESTROY_FAILURES[c["reason"]]
        # a newer CAPTF generation: spec.deletionPolicy Retain instead of the annotation (TF-15)
        retain = (obj.get("spec") or {}).get("deletionPolicy") == "Retain"
        if (abandon == md["uid"] or retain) and cause:
            return self.abandon(obj, cause, "spec.deletionPolicy is Retain" if retain and abandon != md["uid"]
                                else f"{ABANDON} names this object's uid")
        if reason in HOLD_REASONS:  # TF-6 hold; TF-9 restore
            serial = ann.get(RESTORE)
            backups = obj["status"].get("stateBackups") or []
            usable = {str(b.get("serial")): b for b in backups if b.get("complete", True)}
            failed = [str(s) for s in obj["status"].get("failedRestores") or []]
            if serial and serial in usable and serial not in failed:
                return self.start_job(obj, "restore", serial)
            msg = (f"{reason}: {detail}. Deletion held. To leave the hold: restore a backup with the annotation "
                   f"{RESTORE}=<serial> (backups: {', '.join(usable) or 'none'}), or abandon with "
                   f"{ABANDON}={md['uid']} (the infrastructure keeps running, untracked).")
            if serial and serial not in usable:
                msg += f" {RESTORE}={serial} names no complete backup and is ignored."
            elif serial and serial in failed:
                msg += f" The restore of serial {serial} failed and is not retried."
            if abandon and abandon != md["uid"]:
                msg += f" {ABANDON}={abandon} does not equal this object's uid and is ignored."
            if set_condition(obj, "StateReadable", "False", reason, msg):
                self.update_status(obj)
            return float(knob(obj, "hold-requeue", 60))
        if set_condition(obj, "StateReadable", "True", "StateRead", detail):
            self.update_status(obj)
        # 7/9. destroy, with backoff after failures (TF-7, TF-12, TF-14)
        wait = self.next_destroy.get(md["uid"], 0) - time.monotonic()
        if wait > 0:
            return wait
        if inputs is None and obj["kind"] == "TerraformMachine":
            return self.destroy_failed(obj, "InputsUnavailable", "the durable inputs Secret is gone; the destroy cannot render")
        return self.start_job(obj, "destroy")

    def destroy_failed(self, obj, reason, message):
        st = obj["status"]
        st["destroyAttempts"] = int(st.get("destroyAttempts") or 0) + 1
        back = min(2 ** st["destroyAttempts"], float(knob(obj, "backoff-max", 8)))  # TF-18
        self.next_destroy[obj["metadata"]["uid"]] = time.monotonic() + back
        set_condition(obj, "ApplyJobSucceeded", "False", reason, f"{message} (attempt {st['destroyAttempts']}, "
                                                                f"retrying in {back:.0f} s)")
        self.update_status(obj)
        self.event(obj, "Warning", reason, message)
        return back

    def finish_job(self, obj, job):
        st = obj["status"]
        st["activeJob"] = None
        if job["type"] == "restore":
            serial = str(job.get("serial"))
            if knob(obj, "restore", "ok") == "fail":
                st["failedRestores"] = (st.get("failedRestores") or []) + [serial]
                set_condition(obj, "StateRestored", "False", "RestoreFailed", f"restore of serial {serial} failed")
                self.update_status(obj)
                self.event(obj, "Warning", "RestoreFailed", f"restore of serial {serial} failed; not retried")
                return 0.1
            ns, n = obj["metadata"]["namespace"], names(obj)
            b = next((b for b in st.get("stateBackups") or [] if str(b.get("serial")) == serial), {})
            bsec = self.secret(ns, b.get("secretName") or n["backup_prefix"] + serial)
            data = (bsec or {}).get("data") or {}
            body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": n["state"], "namespace": ns},
                    "type": "Opaque", "data": {"tfstate": data.get("tfstate", "")}}
            api = self.api("v1", "Secret")
            try:
                api.replace(name=n["state"], namespace=ns, body=body)
            except ApiException as e:
                if e.status != 404:
                    raise
                api.create(namespace=ns, body=body)
            try:
                st["lineage"] = json.loads(base64.b64decode(data.get("tfstate", "")).decode()).get("lineage")
            except ValueError:
                pass
            set_condition(obj, "StateRestored", "True", "Restored", f"state restored from serial {serial}")
            self.update_status(obj)
            self.event(obj, "Normal", "StateRestored", f"state restored from backup serial {serial}")
            return 0.1
        outcome = knob(obj, "destroy", "ok")
        if outcome in OUTCOMES:
            return self.destroy_failed(obj, *OUTCOMES[outcome])
        set_condition(obj, "ApplyJobSucceeded", "True", "DestroySucceeded", "terraform destroy succeeded")  # TF-13
        self.update_status(obj)
        self.event(obj, "Normal", "DestroySucceeded", "terraform destroy succeeded")
        self.release(obj, "destroy succeeded")
        return None

    def abandon(self, obj, cause, how):  # TF-11
        fin = FINALIZER[obj["kind"]]
        self.event(obj, "Warning", "InfrastructureAbandoned",
                   f"Removed finalizer {fin} without a destroy ({cause}): {how}. "
                   "Whatever the module created keeps running and is no longer managed; the state backups go "
                   "with the object.")
        self.release(obj, f"abandoned: {cause}")
        return None


if __name__ == "__main__":
    CaptfTwin().run()
