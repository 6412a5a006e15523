"""convoy twin: the Release and Cluster deletion flows of tests/sandbox/spec/convoy.md (rules CV-n), step by step.

Release (core.convoy.kumodo.io/v1alpha1):
  * first reconcile adds `release.core.convoy.kumodo.io/prune-workloads`;
  * Applied=True/Applied while its Cluster exists and is reachable, else Applied=False/ClusterNotReady;
  * on deletion: resolve the Cluster only when objects must be deleted or delete hooks run, and read
    its `status.reachable` (no connection). Unreachable or absent: skip hooks and object deletion
    (the objects stay, untracked). Otherwise run `spec.lifecycle.preDelete` hooks (Jobs in
    `spec.targetNamespace`; a failed `onFailure: Fail` hook blocks with the finalizer on, checked
    again every 10 s), delete each object the ReleaseInventory records (absent is fine) unless
    `spec.deletionPolicy.keepWorkloads`, run `postDelete` hooks (never blocking). Then delete the
    ReleaseInventory, then the render store entries (ConfigMaps labelled
    `convoy.kumodo.io/render-of=<release>`), then the finalizer, each step before the next; a
    failing step keeps the finalizer and retries.

Cluster:
  * finalizer `cluster.core.convoy.kumodo.io/prune-releases`; `status.reachable` from the knob;
  * on deletion with `spec.deletionPolicy.pruneReleases: true`, delete each Release in its namespace
    that references it and stay until they are gone; otherwise go at once.

Knobs (annotation `sandbox.teardown.gates/knob-<name>` on the object, or the knob file):
  Release: `hook-<hook name>` = succeed (default) | fail | hang  (what the hook's Job does)
           `hook-seconds` (default 1): how long a hook Job runs before it completes or fails
           `hook-retry-seconds` (default 10): when a failed blocking hook is run again (a new Job
           attempt), as long as its knob no longer says `fail`
           `fail-step` = objects | inventory | renders: that deletion step keeps failing
  Cluster: `reachable` = true (default) | false

Progress is observable as a real controller's is: the hook Jobs (labels below, Failed/Complete
conditions), Warning/Normal Events on the Release, the `Deleting` condition, and
`status.deletion` (done steps, hook attempts).
"""
import logging
import re
import time

from kubernetes.client import ApiException

from .base import Twin, knob, now_iso, set_condition

GROUP = "core.convoy.kumodo.io"
AV = GROUP + "/v1alpha1"
RELEASE_FINALIZER = "release.core.convoy.kumodo.io/prune-workloads"
CLUSTER_FINALIZER = "cluster.core.convoy.kumodo.io/prune-releases"
L_RELEASE = "convoy.kumodo.io/release"
L_RELEASE_UID = "convoy.kumodo.io/release-uid"
L_HOOK = "convoy.kumodo.io/hook"
L_PHASE = "convoy.kumodo.io/hook-phase"
L_RENDER = "convoy.kumodo.io/render-of"
STEPS = ["preDelete", "objects", "postDelete", "inventory", "renders"]

log = logging.getLogger("twin")


def _seconds(text, default):
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*", str(text or ""))
    if not m:
        return default
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]


def _truthy(v):
    return str(v).strip().lower() in ("1", "true", "yes", "on")


class StepFailed(Exception):
    pass


class ConvoyTwin(Twin):
    NAME = "convoy"
    WATCHES = [(AV, "Release"), (AV, "Cluster")]

    # -- Cluster ------------------------------------------------------------------------------
    def reconcile(self, obj):
        if obj["kind"] == "Cluster":
            return self.reconcile_cluster(obj)
        return self.reconcile_release(obj)

    def _releases_of(self, cluster):
        md = cluster["metadata"]
        return [r for r in self.list(AV, "Release", namespace=md["namespace"])
                if ((r.get("spec") or {}).get("clusterRef") or {}).get("name") == md["name"]]

    def _enqueue_releases(self, cluster):
        for r in self._releases_of(cluster):
            self.queue.put((AV, "Release", r["metadata"]["namespace"], r["metadata"]["name"]))

    def reconcile_cluster(self, c):
        md = c["metadata"]
        if not md.get("deletionTimestamp"):
            if self.add_finalizer(c, CLUSTER_FINALIZER):  # CV-12
                return 0.05
            reachable = _truthy(knob(c, "reachable", "true"))
            st = c.get("status") or {}
            changed = st.get("reachable") is not reachable
            c.setdefault("status", {})["reachable"] = reachable
            changed |= set_condition(c, "Ready", "True" if reachable else "False",
                                     "Reachable" if reachable else "Unreachable",
                                     "" if reachable else "the cluster does not answer")
            if changed:
                self._put_status(c)
                self._enqueue_releases(c)
            return None
        if CLUSTER_FINALIZER not in (md.get("finalizers") or []):
            return None
        prune = _truthy(((c.get("spec") or {}).get("deletionPolicy") or {}).get("pruneReleases", False))
        if prune:  # CV-14; without it the Cluster goes at once (CV-13)
            left = self._releases_of(c)
            for r in left:
                if not r["metadata"].get("deletionTimestamp"):
                    self.delete(AV, "Release", r["metadata"]["name"], r["metadata"]["namespace"])
                    self.event(c, "Normal", "PruningRelease", f"deleting Release {r['metadata']['name']}")
            if left:
                names = sorted(r["metadata"]["name"] for r in left)
                if set_condition(c, "Deleting", "True", "WaitingForReleases",
                                 f"{len(names)} Release(s) still deleting: {', '.join(names[:10])}"):
                    self.update_status(c)
                return 1
        self.remove_finalizer(c, CLUSTER_FINALIZER)
        self._enqueue_releases(c)
        return None

    # -- Release ------------------------------------------------------------------------------
    def _cluster(self, r):
        name = ((r.get("spec") or {}).get("clusterRef") or {}).get("name")
        return self.get(AV, "Cluster", name, r["metadata"]["namespace"]) if name else None

    def reconcile_release(self, r):
        md = r["metadata"]
        if not md.get("deletionTimestamp"):
            if self.add_finalizer(r, RELEASE_FINALIZER):  # CV-1
                return 0.05
            c = self._cluster(r)  # CV-9: Applied, or ClusterNotReady
            ok = bool(c) and not (c["metadata"].get("deletionTimestamp") and not _truthy(
                ((c.get("spec") or {}).get("deletionPolicy") or {}).get("pruneReleases", False))) \
                and bool((c.get("status") or {}).get("reachable"))
            if set_condition(r, "Applied", "True" if ok else "False", "Applied" if ok else "ClusterNotReady",
                             "" if ok else "cluster %s is absent or not reachable"
                             % ((r.get("spec") or {}).get("clusterRef") or {}).get("name")):
                self.update_status(r)
            return None
        if RELEASE_FINALIZER not in (md.get("finalizers") or []):
            return None
        return self._delete_release(r)

    def _state(self, r):
        st = r.setdefault("status", {}) or {}
        r["status"] = st
        d = st.setdefault("deletion", {}) or {}
        st["deletion"] = d
        d.setdefault("done", [])
        d.setdefault("hooks", [])
        return d

    def _save(self, r, step, status, reason, message):
        d = self._state(r)
        d["step"] = step
        set_condition(r, "Deleting", status, reason, message)
        self._put_status(r)

    def _put_status(self, obj):
        """Status through the subresource, keeping obj's resourceVersion current so the next write
        of this reconcile does not conflict; a real conflict raises and the loop retries."""
        res = self.api(obj["apiVersion"], obj["kind"]).status.replace(body=obj)
        obj["metadata"]["resourceVersion"] = res.metadata.resourceVersion

    def _delete_release(self, r):
        md = r["metadata"]
        spec = r.get("spec") or {}
        keep = _truthy((spec.get("deletionPolicy") or {}).get("keepWorkloads", False))
        lifecycle = spec.get("lifecycle") or {}
        d = self._state(r)
        done = d["done"]
        # Check the target cluster: only when objects must go or delete hooks run (CV-2, CV-3).
        if "cluster" not in done:
            needs = (not keep) or bool(lifecycle.get("preDelete")) or bool(lifecycle.get("postDelete"))
            if needs:
                c = self._cluster(r)
                reachable = bool(c) and bool((c.get("status") or {}).get("reachable"))
                d["clusterReachable"] = reachable
                if not reachable:
                    d["skipped"] = ["preDelete", "objects", "postDelete"]
                    done.extend(["preDelete", "objects", "postDelete"])
                    self.event(r, "Warning", "ClusterNotReady",
                               "cluster %s is %s: skipping delete hooks and object deletion; the objects "
                               "stay on the cluster" % ((spec.get("clusterRef") or {}).get("name"),
                                                        "absent" if not c else "not reachable"))
            done.append("cluster")
            self._save(r, "cluster", "True", "Deleting", "cluster checked")
        try:
            if "preDelete" not in done:  # CV-4
                wait = self._run_hooks(r, "preDelete", blocking=True)
                if wait is not None:
                    return wait
                done.append("preDelete")
                self._save(r, "preDelete", "True", "Deleting", "preDelete hooks done")
            if "objects" not in done:  # CV-6
                if not keep:
                    self._delete_objects(r)
                done.append("objects")
                self._save(r, "objects", "True", "Deleting",
                           "objects kept (keepWorkloads)" if keep else "objects deleted")
            if "postDelete" not in done:  # CV-7
                wait = self._run_hooks(r, "postDelete", blocking=False)
                if wait is not None:
                    return wait
                done.append("postDelete")
                self._save(r, "postDelete", "True", "Deleting", "postDelete hooks done")
            if "inventory" not in done:  # CV-8: inventory, renders, finalizer, each before the next
                self._step_may_fail(r, "inventory")
                self.delete(AV, "ReleaseInventory", md["name"], md["namespace"])
                done.append("inventory")
                self._save(r, "inventory", "True", "Deleting", "ReleaseInventory deleted")
            if "renders" not in done:  # CV-10: the render store is labelled ConfigMaps
                self._step_may_fail(r, "renders")
                for cm in self.list("v1", "ConfigMap", namespace=md["namespace"],
                                    label_selector=f"{L_RENDER}={md['name']}"):
                    self.delete("v1", "ConfigMap", cm["metadata"]["name"], md["namespace"])
                done.append("renders")
                self._save(r, "renders", "True", "Deleting", "render store entries deleted")
        except StepFailed as e:  # CV-8: a failed step keeps the finalizer and retries
            step, msg = e.args
            self.event(r, "Warning", "DeleteStepFailed", f"step {step} failed: {msg}; retrying")
            self._save(r, step, "True", "DeleteStepFailed", f"step {step} failed: {msg}; retrying")
            return 2
        self.remove_finalizer(r, RELEASE_FINALIZER)
        return None

    def _step_may_fail(self, r, step):
        if knob(r, "fail-step") == step:
            raise StepFailed(step, f"injected failure (knob fail-step={step})")

    def _delete_objects(self, r):
        md = r["metadata"]
        self._step_may_fail(r, "objects")
        inv = self.get(AV, "ReleaseInventory", md["name"], md["namespace"])
        for e in ((inv or {}).get("spec") or {}).get("entries") or []:
            try:
                self.delete(e["apiVersion"], e["kind"], e["name"], e.get("namespace"))
            except ApiException as ex:
                raise StepFailed("objects", f"{e['kind']} {e.get('namespace')}/{e['name']}: {ex.status} {ex.reason}")

    # -- hooks ---------------------------------------------------------------------------------
    def _job_name(self, r, phase, hook, attempt):
        base = f"{r['metadata']['name']}-{'pre' if phase == 'preDelete' else 'post'}-{hook}".lower()
        base = re.sub(r"[^a-z0-9-]", "-", base)[:55].rstrip("-")
        return f"{base}-{attempt}"

    def _run_hooks(self, r, phase, blocking):
        """Run the phase's hooks in order. Returns seconds to wait, or None when the phase is done."""
        spec = r.get("spec") or {}
        hooks = (spec.get("lifecycle") or {}).get(phase) or []
        ns = spec.get("targetNamespace") or r["metadata"]["namespace"]
        d = self._state(r)
        for hook in hooks:
            name = hook.get("name") or "hook"
            on_failure = hook.get("onFailure", "Fail")
            rec = next((h for h in d["hooks"] if h["phase"] == phase and h["name"] == name), None)
            # CV-5: a failed blocking hook runs again after hook-retry-seconds
            if rec is None or (rec["state"] == "Failed" and blocking and on_failure == "Fail"
                               and knob(r, "hook-" + name, "succeed") != "fail"
                               and time.time() - rec.get("finishedEpoch", 0) >= float(knob(r, "hook-retry-seconds", 10))):
                rec = self._start_hook(r, phase, hook, ns, rec)
                return 0.2
            if rec["state"] == "Running":
                wait = self._advance_hook(r, rec, hook)
                if wait is not None:
                    return wait
            if rec["state"] == "Failed":
                rec["onFailure"] = on_failure
                if blocking and on_failure == "Fail":
                    msg = (f"preDelete hook {name} failed (Job {rec['namespace']}/{rec['job']}, attempt "
                           f"{rec['attempt']}): {rec.get('message')}; onFailure: Fail blocks the deletion")
                    if (r["status"].get("conditions") and any(
                            c["type"] == "Deleting" and c.get("message") == msg for c in r["status"]["conditions"])):
                        return 1
                    self.event(r, "Warning", "PreDeleteHookFailed", msg)
                    self._save(r, phase, "True", "PreDeleteHookFailed", msg)
                    return 1
        return None

    def _start_hook(self, r, phase, hook, ns, rec):
        md = r["metadata"]
        name = hook.get("name") or "hook"
        attempt = (rec or {}).get("attempt", 0) + 1
        if rec and rec.get("job"):  # the failed attempt's Job makes way for the next one
            self.delete("batch/v1", "Job", rec["job"], rec["namespace"])
        tmpl = hook.get("jobTemplate") or {}
        job_name = self._job_name(r, phase, name, attempt)
        labels = dict((tmpl.get("metadata") or {}).get("labels") or {})
        labels.update({L_RELEASE: md["name"], L_RELEASE_UID: md["uid"], L_HOOK: name, L_PHASE: phase})
        body = {"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": job_name, "namespace": ns, "labels": labels,
                             "annotations": dict((tmpl.get("metadata") or {}).get("annotations") or {},
                                                 **{"convoy.kumodo.io/attempt": str(attempt)})},
                "spec": (tmpl.get("spec") or {"template": {"spec": {
                    "restartPolicy": "Never", "containers": [{"name": "hook", "image": "busybox:1.38.0"}]}}})}
        try:
            self.api("batch/v1", "Job").create(namespace=ns, body=body)
        except ApiException as e:
            if e.status != 409:
                raise
        new = {"phase": phase, "name": name, "attempt": attempt, "job": job_name, "namespace": ns,
               "state": "Running", "onFailure": hook.get("onFailure", "Fail"), "startedAt": now_iso(),
               "startedEpoch": time.time()}
        d = self._state(r)
        d["hooks"] = [h for h in d["hooks"] if not (h["phase"] == phase and h["name"] == name)] + [new]
        self.event(r, "Normal", "HookStarted", f"{phase} hook {name}: Job {ns}/{job_name} (attempt {attempt})")
        self._save(r, phase, "True", "HookRunning", f"{phase} hook {name} running (Job {ns}/{job_name})")
        return new

    def _advance_hook(self, r, rec, hook):
        """The kubelet's part: complete or fail the hook Job as its knob says (CV-11)."""
        outcome = knob(r, "hook-" + rec["name"], "succeed")
        elapsed = time.time() - rec.get("startedEpoch", 0)
        timeout = _seconds(hook.get("timeout"), 300)
        if outcome == "hang":
            if elapsed < timeout:
                return min(1.0, timeout - elapsed)
            return self._finish_hook(r, rec, hook, False, "DeadlineExceeded",
                                     f"the hook did not finish within its timeout {hook.get('timeout')}")
        hook_s = float(knob(r, "hook-seconds", 1))
        if elapsed < hook_s:
            return max(0.1, hook_s - elapsed)
        if outcome == "fail":
            return self._finish_hook(r, rec, hook, False, "BackoffLimitExceeded",
                                     "Job has reached the specified backoff limit (container exited with 1)")
        return self._finish_hook(r, rec, hook, True, "CompletionsReached", "Job completed")

    def _finish_hook(self, r, rec, hook, ok, reason, message):
        jobs = self.api("batch/v1", "Job")
        t = now_iso()[:19] + "Z"
        job = self.get("batch/v1", "Job", rec["job"], rec["namespace"])
        if job is not None:
            if ok:
                job["status"] = {"startTime": t, "completionTime": t, "succeeded": 1, "conditions": [
                    {"type": "SuccessCriteriaMet", "status": "True", "reason": reason, "message": message,
                     "lastTransitionTime": t, "lastProbeTime": t},
                    {"type": "Complete", "status": "True", "reason": reason, "message": message,
                     "lastTransitionTime": t, "lastProbeTime": t}]}
            else:
                job["status"] = {"startTime": t, "failed": 1, "conditions": [
                    {"type": "FailureTarget", "status": "True", "reason": reason, "message": message,
                     "lastTransitionTime": t, "lastProbeTime": t},
                    {"type": "Failed", "status": "True", "reason": reason, "message": message,
                     "lastTransitionTime": t, "lastProbeTime": t}]}
            jobs.status.replace(body=job)
        rec.update(state="Succeeded" if ok else "Failed", reason=reason, message=message,
                   finishedAt=now_iso(), finishedEpoch=time.time())
        cleanup = hook.get("cleanup", "OnSuccess")
        if job is not None and ((ok and cleanup in ("OnSuccess", "Always")) or (not ok and cleanup == "Always")):
            self.delete("batch/v1", "Job", rec["job"], rec["namespace"])
        self.event(r, "Normal" if ok else "Warning", "HookSucceeded" if ok else "HookFailed",
                   f"{rec['phase']} hook {rec['name']} (Job {rec['namespace']}/{rec['job']}): {message}")
        self._save(r, rec["phase"], "True", "HookFinished", f"{rec['phase']} hook {rec['name']}: {reason}")
        return 0.05


if __name__ == "__main__":
    ConvoyTwin().run()
