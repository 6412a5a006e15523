# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The held_deletion module's driver: diagnose a CAPTF object held in deletion, and restore it from a state
backup or abandon it (after saving its Secrets), by one JSON patch through KubeReads (sent outside check mode
only; the service's guard refuses it in check mode)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import os

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.teardown.gates.plugins.module_utils.owners import captf
from ansible_collections.teardown.gates.plugins.module_utils.core.age import min_age_problem, parse_age, too_young
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from
from ansible_collections.teardown.gates.plugins.module_utils.core.protect import PROTECTED_LABEL_REASON, labelled_protected
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError, missing_permission
from ansible_collections.teardown.gates.plugins.module_utils.k8s.finalizers import is_conflict, set_annotation_patch
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import ABSENT, PRESENT
from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import CheckModeWrite
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import utc_iso

try:
    from kubernetes.dynamic.exceptions import DynamicApiError
except ImportError:  # the module reports the missing library before any of this runs
    DynamicApiError = ()

CALLER = "held_deletion"


def read(seen, label, reads, api_version, kind, name=None, namespace=None, label_selector=None):
    """One read in captf's three outcomes: a GET of ``name`` gives the object, None (absent, by a 404) or
    captf.UNKNOWN; a LIST (no ``name``) gives the items, [] when the kind is not served (404), or captf.UNKNOWN.
    A failure is recorded in ``seen["errors"]``, the time of each read in ``seen["times"]``."""
    seen["times"][label] = utc_iso()
    try:
        if name is not None:
            r = reads.get(api_version, kind, name, namespace)
        else:
            r = reads.list(api_version, kind, namespace, label_selector=label_selector)
    except ResourceLookupError as e:  # discovery failed: unknown
        seen["errors"].append("%s: %s" % (label, _err(e.cause if e.cause is not None else e)))
        return captf.UNKNOWN
    if r["state"] == PRESENT:
        return r["object"] if name is not None else r["items"]
    if name is not None and r["state"] == ABSENT:
        return None
    if name is None and r["query"].get("status") == 404:
        return []
    seen["errors"].append("%s: %s" % (label, r["query"].get("error")))
    return captf.UNKNOWN


def _err(e):
    if isinstance(e, DynamicApiError):
        hint = missing_permission(e)  # a 403 names the permission to grant
        return "%s %s%s" % (getattr(e, "status", ""), getattr(e, "reason", "") or to_native(e),
                            (": " + hint) if hint else "")
    return to_native(e)


def check(module):
    p = module.params
    for key in ("name", "namespace"):
        if not (p[key] or "").strip():  # required, but "" passes Ansible's check; "" would mean every namespace
            module.fail_json(msg="%s: must not be empty" % key)
    if min_age_problem(p.get("min_age", 0)):
        module.fail_json(msg=min_age_problem(p.get("min_age", 0)))
    if p["action"] == "restore" and p["backup_serial"] is None:
        module.fail_json(msg="backup_serial is required with action=restore: name one of status.stateBackups")
    if p["action"] == "abandon" and not p["confirm_uid"]:
        module.fail_json(msg="confirm_uid is required with action=abandon: pass the object's metadata.uid, exactly")
    if p["action"] != "restore" and p["backup_serial"] is not None:
        module.fail_json(msg="backup_serial applies to action=restore only (action is %s)" % p["action"])
    if p["action"] != "abandon" and (p["confirm_uid"] or p["backup_to"]):
        module.fail_json(msg="confirm_uid and backup_to apply to action=abandon only (action is %s)" % p["action"])
    if p["backup_to"]:
        parent = p["backup_to"] if os.path.isdir(p["backup_to"]) else os.path.dirname(p["backup_to"]) or "."
        if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
            module.fail_json(msg="backup_to %s: the folder %s does not exist or is not writable" % (p["backup_to"], parent))


def gather(module, reads, seen):
    p = module.params
    kind, name, ns, av = p["kind"], p["name"], p["namespace"], p["api_version"]
    obj = read(seen, "object", reads, av, kind, name, ns)
    if obj is captf.UNKNOWN:
        module.fail_json(msg="could not read %s %s/%s: %s. Unknown is not 'not held': nothing changed"
                         % (kind, ns, name, "; ".join(seen["errors"])), held=None, reason="Unknown", hold_type=None,
                         uid=None, action=p["action"], diagnosis={"exists": None}, query_times=seen["times"])
    if obj is None:
        return None, captf.diagnose(None, kind, name, ns)
    names = captf.secret_names(kind, name)
    inputs = read(seen, "inputs", reads, "v1", "Secret", names["inputs"], ns)
    secrets = read(seen, "secrets", reads, "v1", "Secret", namespace=ns)
    backup_secrets = captf.UNKNOWN if secrets is captf.UNKNOWN else [
        s["metadata"]["name"] for s in secrets if s["metadata"]["name"].startswith(names["backup_prefix"])]
    dependents = []
    if kind == "TerraformCluster":
        cluster_name = ((obj["metadata"].get("labels") or {}).get(captf.CLUSTER_LABEL)) or name
        for dkind in ("TerraformMachine", "TerraformMachinePool"):
            items = read(seen, "dependents_" + dkind, reads, av, dkind, namespace=ns,
                         label_selector="%s=%s" % (captf.CLUSTER_LABEL, cluster_name))
            if items is captf.UNKNOWN:
                dependents = captf.UNKNOWN
                break
            dependents += ["%s/%s" % (dkind, i["metadata"]["name"]) for i in items]
    cluster = None
    cl = (obj["metadata"].get("labels") or {}).get(captf.CLUSTER_LABEL)
    if cl:
        c = read(seen, "capi_cluster", reads, "cluster.x-k8s.io/v1beta1", "Cluster", cl, ns)
        cluster = None if c is captf.UNKNOWN else c
    crd = read(seen, "crd", reads, "apiextensions.k8s.io/v1", "CustomResourceDefinition",
               "%s.%s" % (captf.PLURALS[kind], captf.GROUP))
    policy = None if crd is captf.UNKNOWN else captf.crd_has_deletion_policy(crd, av.split("/")[-1])
    diag = captf.diagnose(obj, kind, name, ns, dependents=dependents, inputs=inputs,
                          backup_secrets=backup_secrets, deletion_policy_supported=policy, cluster=cluster)
    diag["secrets"] = None if secrets is captf.UNKNOWN else [
        s for s in secrets if s["metadata"]["name"] in (names["state"], names["inputs"], names["plan"])
        or s["metadata"]["name"].startswith(names["backup_prefix"])]
    if seen["errors"]:
        diag["unknown"] = list(seen["errors"])
    return obj, diag


def patch(module, reads, ops, lost_race_ok=False):
    """Send ``ops``; True when sent. With ``lost_race_ok``, a lost race (a failed ``test``, 409: the object changed
    since it was read) returns False for the caller to read and plan again; any other failure fails the module."""
    p = module.params
    try:
        reads.patch(p["api_version"], p["kind"], p["name"], ops, namespace=p["namespace"])
        return True
    except CheckModeWrite as e:  # main patches outside check mode only: reaching here is a bug, and nothing was sent
        fail_from(module, e, then="nothing was changed", patch=ops)
    except Exception as e:  # noqa: BLE001
        if lost_race_ok and is_conflict(e):
            return False
        module.fail_json(msg="patching %s %s/%s failed: %s (a failed uid test means the object was recreated); "
                         "re-run to diagnose" % (p["kind"], p["namespace"], p["name"], _err(e)), patch=ops)


def save_secrets(module, diag, uid):
    p = module.params
    if diag.get("secrets") is None:
        module.fail_json(msg="backup_to: the Secrets of %s %s/%s could not be listed (%s); nothing abandoned"
                         % (p["kind"], p["namespace"], p["name"], "; ".join(diag.get("unknown") or [])))
    path = p["backup_to"]
    if os.path.isdir(path):
        path = os.path.join(path, "%s-%s-%s-%s.json" % (p["kind"], p["namespace"], p["name"], uid))
    doc = {"object": {"apiVersion": p["api_version"], "kind": p["kind"], "namespace": p["namespace"],
                      "name": p["name"], "uid": uid},
           "secrets": sorted((captf.portable_secret(s) for s in diag["secrets"]),
                             key=lambda s: s["metadata"]["name"])}
    names = [s["metadata"]["name"] for s in doc["secrets"]]
    if os.path.exists(path):
        try:
            with open(path) as f:
                if json.load(f).get("secrets") == doc["secrets"]:
                    return path, names, False
        except (OSError, ValueError):
            pass
    if module.check_mode:
        return path, names, True
    doc["saved_at"] = utc_iso()
    tmp = path + ".tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=2, sort_keys=True)
        os.rename(tmp, path)
    except OSError as e:
        module.fail_json(msg="backup_to %s: %s; nothing abandoned" % (path, to_native(e)))
    return path, names, True


def public(diag):
    d = copy.deepcopy(diag)
    d.pop("secrets", None)  # Secret data never goes into the result
    return d


def client_failed(module, err, started=None):
    fail_from(module, err, what="could not build a Kubernetes client", held="unknown" if err.unknown else None)


def client_crashed(module, err, started=None):
    raise err  # not foreseen: the traceback, as the module always gave it


def plan_restore(module, obj, diag, before, after, result):
    """The patch of action=restore (``after`` updated); exits when it is already set, fails when refused."""
    p = module.params
    value = str(p["backup_serial"])
    if diag.get("deleting") and before["annotations"].get(captf.RESTORE_ANNOTATION) == value and \
            value not in diag.get("failed_restores", []):
        # a second run: CAPTF restores (or has restored) from this serial; nothing to change
        result["msg"] = "%s=%s is already set; CAPTF restores from it" % (captf.RESTORE_ANNOTATION, value)
        module.exit_json(**result)
    why = captf.check_restore(diag, p["backup_serial"])
    if why:
        module.fail_json(msg=why, **result)
    after["annotations"][captf.RESTORE_ANNOTATION] = value
    return set_annotation_patch(obj, captf.RESTORE_ANNOTATION, value)


def plan_abandon(module, obj, diag, before, after, result):
    """The patch of action=abandon (``after`` updated), after saving the Secrets when asked; exits when it is
    already done, fails when refused."""
    p = module.params
    already = diag.get("exists") and diag.get("deleting") and p["confirm_uid"] == diag["uid"] and (
        before["annotations"].get(captf.ABANDON_ANNOTATION) == diag["uid"] or before["deletionPolicy"] == "Retain")
    why = None if already else captf.check_abandon(diag, p["confirm_uid"])
    if why:
        module.fail_json(msg=why, **result)
    if diag["deletion_policy"]["supported"] is None:
        module.warn("the CRD could not be read: cannot tell whether this CAPTF generation has "
                    "spec.deletionPolicy; using the %s annotation" % captf.ABANDON_ANNOTATION)
    result["abandoned"] = {
        "kind": p["kind"], "namespace": p["namespace"], "name": p["name"], "uid": diag["uid"],
        "cause": diag["abandon_cause"],
        "warning": "no destroy runs: whatever this object's Terraform module created keeps running in the "
                   "cloud and is no longer tracked; clean it up through the cloud provider",
        "state_secrets_deleted_by_cleanup": True, "backups_garbage_collected_with_object": True}
    if p["backup_to"]:
        path, names, wrote = save_secrets(module, diag, diag["uid"])
        result.update(backup_file=path, saved_secrets=names)
        result["changed"] = result["changed"] or wrote
    if diag["deletion_policy"]["supported"]:
        if before["deletionPolicy"] == "Retain":
            module.exit_json(**result)
        after["deletionPolicy"] = "Retain"
        return captf.deletion_policy_patch(obj, "Retain")
    if before["annotations"].get(captf.ABANDON_ANNOTATION) == diag["uid"]:
        result["msg"] = "%s already names this object's uid; CAPTF releases it" % captf.ABANDON_ANNOTATION
        module.exit_json(**result)
    after["annotations"][captf.ABANDON_ANNOTATION] = diag["uid"]
    return set_annotation_patch(obj, captf.ABANDON_ANNOTATION, diag["uid"])


def young(obj, min_age):
    """The kept reason when the object read was created less than ``min_age`` ago (its metadata.creationTimestamp),
    else "" (none read: nothing to keep)."""
    if not obj:
        return ""
    return too_young(((obj or {}).get("metadata") or {}).get("creationTimestamp"), parse_age(min_age))


# reads and plans of one run at most: a lost race (the object changed between the read and the PATCH) reads it again
PATCH_ATTEMPTS = 3


def run(module, reads):
    """Diagnose, then restore or abandon. A lost race reads and plans again: a second run that finds the annotation
    it would set already set (another run's, a moment ago) then exits unchanged, as a re-run does."""
    for attempt in range(1, PATCH_ATTEMPTS + 1):
        read_plan_patch(module, reads, lost_race_ok=attempt < PATCH_ATTEMPTS)


def read_plan_patch(module, reads, lost_race_ok):
    """One read, plan and PATCH; exits the module, or returns after a lost race when ``lost_race_ok``."""
    p = module.params
    seen = {"errors": [], "times": {}}
    obj, diag = gather(module, reads, seen)
    result = dict(changed=False, action=p["action"], held=diag["held"], reason=diag["reason"],
                  hold_type=diag.get("hold_type"), uid=diag.get("uid"), diagnosis=public(diag),
                  query_times=seen["times"], protected=labelled_protected(obj), young=young(obj, p.get("min_age", 0)))
    if p["action"] == "diagnose":
        module.exit_json(**result)
    if result["protected"]:
        module.fail_json(msg="%s %s/%s is %s: it is neither restored nor abandoned; nothing changed (remove the label "
                         "first if it is to go)" % (p["kind"], p["namespace"], p["name"], PROTECTED_LABEL_REASON), **result)
    if result["young"]:
        module.fail_json(msg="%s %s/%s was %s: it is neither restored nor abandoned; nothing changed (lower min_age "
                         "if it is to go)" % (p["kind"], p["namespace"], p["name"], result["young"]), **result)

    before = {"annotations": dict((obj or {}).get("metadata", {}).get("annotations") or {}),
              "deletionPolicy": ((obj or {}).get("spec") or {}).get("deletionPolicy")}
    after = copy.deepcopy(before)
    plan = plan_restore if p["action"] == "restore" else plan_abandon
    ops = plan(module, obj, diag, before, after, result)
    result.update(changed=True, patch=ops)
    if module._diff:
        result["diff"] = {"before": before, "after": after}
    if not module.check_mode:
        if not patch(module, reads, ops, lost_race_ok):
            return
        result["query_times"]["patched"] = utc_iso()
    module.exit_json(**result)
