# -*- coding: utf-8 -*-
# Copyright (c) teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""CAPTF deletion rules as pure functions: what holds a deletion, what ends it, what is safe.

No API calls here. The held_deletion module reads the objects and hands them to these functions,
so the rules are unit tested without a cluster. Source: the CAPTF deletion chapter (rules table)
and its "Held deletions" page, as tests/sandbox/spec/captf.md restates them (TF-n) with the exact names.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import time

# UNKNOWN stands in for a value a query could not read (None is a value read as absent)
from ansible_collections.teardown.gates.plugins.module_utils.core.states import UNKNOWN

API_VERSION = "infrastructure.cluster.x-k8s.io/v1alpha1"
GROUP = "infrastructure.cluster.x-k8s.io"
KINDS = ("TerraformCluster", "TerraformMachine", "TerraformMachinePool")
PLURALS = {"TerraformCluster": "terraformclusters", "TerraformMachine": "terraformmachines",
           "TerraformMachinePool": "terraformmachinepools"}
SHORT = {"TerraformCluster": "tc", "TerraformMachine": "tm", "TerraformMachinePool": "tmp"}
ABANDON_ANNOTATION = "captf.io/abandon-infrastructure"
RESTORE_ANNOTATION = "captf.io/restore-state"
APPLIED_ANNOTATION = "captf.io/applied"
DIGEST_ANNOTATION = "captf.io/pinned-digest"
CLUSTER_LABEL = "cluster.x-k8s.io/cluster-name"
PAUSED_ANNOTATION = "cluster.x-k8s.io/paused"
BACKUP_PREFIX = "captf-state-backup-"
STATE_HOLD_REASONS = ("StateLost", "StateCorrupt", "StateEncrypted", "StateInconsistent")
# ApplyJobSucceeded=False reasons of a destroy that failed or cannot start: retried forever, and the
# abandon annotation releases them (with the cause the controller writes in its event).
DESTROY_FAILURE_CAUSES = {
    "DestroyFailed": "last destroy failed",
    "JobDeadlineExceeded": "last destroy failed",
    "IdentityNotAllowed": "IdentityNotAllowed",
    "CredentialsUnavailable": "credentials unavailable",
    "InputsUnavailable": "inputs gone",
}


def finalizer_for(kind):
    return kind.lower() + "." + GROUP


def secret_names(kind, name):
    short = SHORT[kind]
    return {"state": "captf-state-%s-%s" % (short, name), "inputs": "captf-inputs-%s-%s" % (short, name),
            "plan": "captf-plan-%s-%s" % (short, name),
            "backup_prefix": "%s%s-%s-" % (BACKUP_PREFIX, short, name)}


def condition(obj, ctype):
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def parse_time(value):
    """Epoch seconds of an RFC 3339 time (second precision is enough here), or None."""
    if not value:
        return None
    text = str(value).replace("Z", "").split(".", maxsplit=1)[0].split("+", maxsplit=1)[0]
    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def ever_applied(obj, inputs, backup_secrets):
    """The four signals. inputs: the inputs Secret, None (absent) or UNKNOWN; backup_secrets: a list
    of Secret names or UNKNOWN. value is True when any signal holds, False only when every signal is
    known to be absent, None (unknown) otherwise."""
    status = (obj or {}).get("status") or {}
    signals = {"provisioned": bool((status.get("initialization") or {}).get("provisioned"))}
    if inputs is UNKNOWN:
        signals["inputs_applied"] = None
        signals["pinned_digest"] = None
    else:
        ann = ((inputs or {}).get("metadata") or {}).get("annotations") or {}
        signals["inputs_applied"] = ann.get(APPLIED_ANNOTATION) == "true"
        signals["pinned_digest"] = bool(ann.get(DIGEST_ANNOTATION))
    signals["backups"] = None if backup_secrets is UNKNOWN else bool(backup_secrets)
    if any(v is True for v in signals.values()):
        value = True
    elif any(v is None for v in signals.values()):
        value = None
    else:
        value = False
    return {"value": value, "signals": signals}


def list_backups(obj, now=None):
    """status.stateBackups as the operator needs them: serial, Secret, age; newest first (as listed)."""
    now = time.time() if now is None else now
    failed = set(str(s) for s in ((obj or {}).get("status") or {}).get("failedRestores") or [])
    out = []
    for b in ((obj or {}).get("status") or {}).get("stateBackups") or []:
        created = b.get("createdAt") or b.get("created")
        t = parse_time(created)
        serial = b.get("serial")
        complete = b.get("complete", True) is not False
        out.append({"serial": serial, "secret_name": b.get("secretName"), "created_at": created,
                    "age_seconds": int(now - t) if t is not None else None, "complete": complete,
                    "restore_failed": str(serial) in failed,
                    "usable": complete and str(serial) not in failed})
    return out


def is_paused(obj, cluster=None):
    spec = (obj or {}).get("spec") or {}
    ann = ((obj or {}).get("metadata") or {}).get("annotations") or {}
    return bool(spec.get("paused")) or PAUSED_ANNOTATION in ann or \
        bool(((cluster or {}).get("spec") or {}).get("paused"))


def crd_has_deletion_policy(crd, version="v1alpha1"):
    """True when the CRD's schema for `version` has spec.deletionPolicy (the newer CAPTF generation)."""
    for v in ((crd or {}).get("spec") or {}).get("versions") or []:
        if v.get("name") != version:
            continue
        schema = (v.get("schema") or {}).get("openAPIV3Schema") or {}
        spec = (schema.get("properties") or {}).get("spec") or {}
        return "deletionPolicy" in (spec.get("properties") or {})
    return False


def diagnose(obj, kind, name, namespace, dependents=None, inputs=None, backup_secrets=None,
             deletion_policy_supported=False, cluster=None, now=None):
    """Why a CAPTF deletion does not finish, and what would end it.

    obj: the object (None when absent). dependents: list of "Kind/name" or UNKNOWN. Returns a dict:
    held (bool; None when unknown), reason, hold_type (state|destroy|None), message, and the facts
    the decision rests on.
    """
    out = {"exists": obj is not None, "kind": kind, "name": name, "namespace": namespace,
           "api_version": API_VERSION, "finalizer": finalizer_for(kind)}
    if obj is None:
        out.update(held=False, reason="Absent", hold_type=None, message="the object is gone", options=[])
        return out
    md = obj.get("metadata") or {}
    status = obj.get("status") or {}
    ann = md.get("annotations") or {}
    uid = md.get("uid")
    deleting = bool(md.get("deletionTimestamp"))
    fins = md.get("finalizers") or []
    backups = list_backups(obj, now)
    sr = condition(obj, "StateReadable")
    aj = condition(obj, "ApplyJobSucceeded")
    db = condition(obj, "DeletionBlocked")
    if kind == "TerraformCluster":
        if dependents is UNKNOWN:
            blocked = True if (db and db.get("status") == "True") else None
            dep_list = None
        else:
            dep_list = sorted(dependents or [])
            blocked = bool(dep_list) or bool(db and db.get("status") == "True")
    else:
        blocked, dep_list = False, []
    abandon_value = ann.get(ABANDON_ANNOTATION)
    out.update({
        "uid": uid, "deleting": deleting, "deletion_timestamp": md.get("deletionTimestamp"),
        "finalizers": fins, "finalizer_present": finalizer_for(kind) in fins,
        "paused": is_paused(obj, cluster), "blocked_by_dependents": blocked, "dependents": dep_list,
        "ever_applied": ever_applied(obj, inputs if inputs is not None else None,
                                     backup_secrets if backup_secrets is not None else []),
        "backups": backups, "failed_restores": [str(s) for s in status.get("failedRestores") or []],
        "state_readable": sr, "last_destroy": aj, "deletion_blocked": db,
        "destroy_attempts": status.get("destroyAttempts"), "active_job": status.get("activeJob"),
        "abandon_annotation": {"value": abandon_value, "matches_uid": abandon_value == uid if abandon_value else None},
        "restore_annotation": ann.get(RESTORE_ANNOTATION),
        "deletion_policy": {"supported": deletion_policy_supported,
                            "value": (obj.get("spec") or {}).get("deletionPolicy")},
    })
    held, reason, hold_type, message = False, None, None, ""
    if not deleting:
        reason, message = "NotDeleting", "the object is not being deleted: nothing is held"
    elif not out["finalizer_present"]:
        reason, message = "FinalizerGone", "the CAPTF finalizer is already off; other finalizers: %s" % (fins or "none")
    elif out["paused"]:
        reason, message = "Paused", "the object or its Cluster is paused: CAPTF neither destroys nor releases it"
    elif status.get("activeJob") and status["activeJob"].get("type") == "destroy" and aj and \
            aj.get("status") == "False" and aj.get("reason") in DESTROY_FAILURE_CAUSES:
        # a failing destroy being retried: still held; an abandon takes effect once this try ends
        held, reason, hold_type = True, aj["reason"], "destroy"
        message = (aj.get("message") or "") + " (a retry is running now)"
    elif status.get("activeJob"):
        reason = "JobRunning"
        message = "a %s Job is running; the deletion waits for it" % (status["activeJob"].get("type") or "")
    elif blocked:
        reason = "DependentsExist"
        message = "machines or pools remain: %s (the abandon annotation does not release this)" % (
            ", ".join(dep_list) if dep_list else (db or {}).get("message") or "unknown")
    elif blocked is None:
        reason, message = "Unknown", "the dependents of the cluster could not be listed"
        held = None
    elif sr and sr.get("status") == "False" and sr.get("reason") in STATE_HOLD_REASONS:
        held, reason, hold_type, message = True, sr["reason"], "state", sr.get("message") or ""
    elif aj and aj.get("status") == "False" and aj.get("reason") in DESTROY_FAILURE_CAUSES:
        held, reason, hold_type, message = True, aj["reason"], "destroy", aj.get("message") or ""
    else:
        reason = "InProgress"
        message = "CAPTF has not held this deletion (yet): it is destroying or about to decide"
    out.update(held=held, reason=reason, hold_type=hold_type, message=message)
    out["abandon_cause"] = ("state unreadable" if hold_type == "state"
                            else DESTROY_FAILURE_CAUSES.get(reason) if hold_type == "destroy" else None)
    out["options"] = options(out)
    return out


def options(diag):
    """What would end the hold, in the order to prefer: restores (newest usable first), then abandon."""
    if not diag.get("held"):
        return []
    opts = []
    if diag["hold_type"] == "state":
        for b in diag["backups"]:
            if b["usable"]:
                opts.append({"action": "restore", "backup_serial": b["serial"],
                             "effect": "restore Job from serial %s, then the normal destroy" % b["serial"]})
    if diag["hold_type"] == "destroy":
        opts.append({"action": "fix", "effect": "fix what the destroy reports (%s); the retry then succeeds"
                     % diag["reason"]})
    via = ("spec.deletionPolicy: Retain" if diag["deletion_policy"]["supported"]
           else "%s=%s" % (ABANDON_ANNOTATION, diag["uid"]))
    opts.append({"action": "abandon", "confirm_uid": diag["uid"], "via": via,
                 "effect": "finalizer off without a destroy (%s): the infrastructure keeps running, "
                           "untracked; the state Secrets are deleted and the backups go with the object"
                           % diag["abandon_cause"]})
    return opts


def _who(diag):
    return "%s %s/%s" % (diag["kind"], diag["namespace"], diag["name"])


def check_restore(diag, serial):
    """None when restoring `serial` is allowed, else the reason it is refused."""
    if not diag.get("exists"):
        return "%s is absent: nothing to restore" % _who(diag)
    if not diag["deleting"]:
        return ("%s is not being deleted: CAPTF runs a restore through this annotation only during a hold on "
                "a deleting object (use the State Restore runbook for a live object)" % _who(diag))
    if diag["paused"]:
        return "%s is paused: CAPTF would not act on the annotation; unpause first" % _who(diag)
    if diag["hold_type"] != "state":
        return ("%s is not held on its state (reason %s): with readable state CAPTF ignores %s and the destroy "
                "goes ahead" % (_who(diag), diag["reason"], RESTORE_ANNOTATION))
    known = [str(b["serial"]) for b in diag["backups"]]
    match = [b for b in diag["backups"] if str(b["serial"]) == str(serial)]
    if not match:
        return ("backup_serial %s is not one of %s's backups (status.stateBackups: %s)"
                % (serial, _who(diag), ", ".join(known) or "none"))
    if not match[0]["complete"]:
        return "backup_serial %s of %s is not a complete backup" % (serial, _who(diag))
    if match[0]["restore_failed"]:
        return ("the restore of serial %s already failed on %s, and CAPTF never retries a serial: pick another "
                "backup (usable: %s) or abandon" % (serial, _who(diag),
                                                    ", ".join(str(b["serial"]) for b in diag["backups"]
                                                              if b["usable"]) or "none"))
    return None


def check_abandon(diag, confirm_uid):
    """None when abandoning is allowed, else the reason it is refused."""
    if not diag.get("exists"):
        return "%s is absent: nothing to abandon" % _who(diag)
    if confirm_uid != diag["uid"]:
        return ("confirm_uid %s does not equal the uid of %s (%s): the object was recreated or this is not the "
                "object you meant; nothing changed" % (confirm_uid, _who(diag), diag["uid"]))
    if not diag["deleting"]:
        return "%s is not being deleted: CAPTF honours the abandon annotation on deleting objects only" % _who(diag)
    if diag["paused"]:
        return "%s is paused: a paused object neither destroys nor releases; unpause first" % _who(diag)
    if diag["blocked_by_dependents"] is None:
        return "could not list the machines and pools of %s: cannot tell whether they block" % _who(diag)
    if diag["blocked_by_dependents"]:
        return ("%s waits for its machines or pools (%s): abandon does not release DependentsExist; delete them "
                "first" % (_who(diag), ", ".join(diag["dependents"] or []) or "see DeletionBlocked"))
    if not diag["held"]:
        return ("%s is not held (reason %s): the abandon annotation releases only an unreadable state or a "
                "failing destroy" % (_who(diag), diag["reason"]))
    return None


def deletion_policy_patch(obj, value="Retain"):
    md = obj.get("metadata") or {}
    ops = [{"op": "test", "path": "/metadata/uid", "value": md.get("uid")}]
    if obj.get("spec") is None:
        ops.append({"op": "add", "path": "/spec", "value": {"deletionPolicy": value}})
    else:
        ops.append({"op": "add", "path": "/spec/deletionPolicy", "value": value})
    return ops


def portable_secret(secret):
    """A Secret manifest that can be re-applied: no uid, resourceVersion, owners or managed fields."""
    md = secret.get("metadata") or {}
    keep = dict((k, md[k]) for k in ("name", "namespace", "labels", "annotations") if md.get(k))
    return {"apiVersion": "v1", "kind": "Secret", "metadata": keep, "type": secret.get("type") or "Opaque",
            "data": secret.get("data") or {}}
