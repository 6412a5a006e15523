#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: held_deletion
short_description: Diagnose a held CAPTF deletion, restore a state backup, or abandon with the exact UID
version_added: "0.1.0"
description:
  - A CAPTF object (C(TerraformCluster), C(TerraformMachine), C(TerraformMachinePool)) whose Terraform
    state is missing or unreadable keeps its finalizer. CAPTF will not destroy against a state it cannot
    read, and will not drop the finalizer while the state may describe live resources. A failing
    destroy is retried forever. This module says why a deletion is held and ends the hold through
    CAPTF's own release paths only.
  - C(action=diagnose) reads the object, its Secrets and (for a cluster) its machines and pools, and
    reports whether the deletion is held, why, whether the object ever applied (by the four signals),
    the backups, whether dependents block, whether it is paused, and the options that would end the hold.
  - C(action=restore) sets C(captf.io/restore-state=<serial>) to a serial from C(status.stateBackups),
    only during a hold on a deleting object; CAPTF then restores and destroys.
  - C(action=abandon) sets C(captf.io/abandon-infrastructure=<uid>) (or, on a CAPTF generation whose CRD
    has C(spec.deletionPolicy), sets C(spec.deletionPolicy=Retain)). It requires O(confirm_uid) equal to
    the object's UID and refuses when the object is not deleting, is paused, is blocked by its machines
    or pools, or is not held. The module never removes a finalizer itself.
  - Every patch is a JSON patch with a C(test) on C(metadata.uid). Check mode sends no mutating request.
    A failed query is reported as unknown, never as "not held".
author:
  - teardown.gates contributors (@teardown-gates)
notes:
  - Time bound - building the client (C(/version) and discovery) takes at most 3 x O(request_timeout), every
    later request at most O(request_timeout) (connect at most 5 s), and a read is sent again only after a
    transient answer (429, 5xx, a lost connection; 3 tries at most), so against an API server that accepts and
    never answers the task fails as unknown, naming the server, after about 3 x O(request_timeout).
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.k8s_request_timeout
options:
  action:
    description:
      - C(diagnose) changes nothing. C(restore) and C(abandon) end a hold through CAPTF's annotations.
    type: str
    choices: [diagnose, restore, abandon]
    default: diagnose
  kind:
    description: The CAPTF kind.
    type: str
    choices: [TerraformCluster, TerraformMachine, TerraformMachinePool]
    default: TerraformCluster
  api_version:
    description: API version of the CAPTF kinds.
    type: str
    default: infrastructure.cluster.x-k8s.io/v1alpha1
  name:
    description: Name of the object.
    type: str
    required: true
  namespace:
    description: Namespace of the object.
    type: str
    required: true
  backup_serial:
    description:
      - With C(action=restore), the serial of the backup to restore. It must be one the object lists
        in C(status.stateBackups), complete, and not a serial whose restore already failed.
    type: int
  confirm_uid:
    description:
      - With C(action=abandon), the object's C(metadata.uid), exactly. Any other value changes nothing.
    type: str
  backup_to:
    description:
      - With C(action=abandon), save the object's state, inputs and backup Secrets to this file (mode
        0600) before abandoning, since the abandon's cleanup deletes the state Secrets and the backups
        are garbage collected with the object. An existing directory gets a file named after the
        object and its UID. Nothing is abandoned if the save fails.
    type: path
"""

EXAMPLES = r"""
- name: Why is this TerraformCluster not going away?
  teardown.gates.held_deletion:
    namespace: team-a
    name: demo
  register: hold

- name: Restore the newest usable backup, then let CAPTF destroy
  teardown.gates.held_deletion:
    namespace: team-a
    name: demo
    action: restore
    backup_serial: "{{ (hold.diagnosis.options | selectattr('action', 'equalto', 'restore') | first).backup_serial }}"
  when: hold.held and hold.hold_type == 'state'

- name: Abandon (the infrastructure keeps running, untracked), saving the state first
  teardown.gates.held_deletion:
    namespace: team-a
    name: demo
    kind: TerraformMachine
    action: abandon
    confirm_uid: 6f1c2d3e-0000-4000-8000-000000000000
    backup_to: /var/backups/captf
"""

RETURN = r"""
held:
  description: True when CAPTF holds the deletion (unreadable state, or a destroy that fails); null when unknown.
  returned: always
  type: bool
  sample: true
reason:
  description:
    - Why. A hold reason (C(StateLost), C(StateCorrupt), C(StateEncrypted), C(StateInconsistent), or a
      failing destroy's C(DestroyFailed), C(JobDeadlineExceeded), C(IdentityNotAllowed),
      C(CredentialsUnavailable), C(InputsUnavailable)), or what else the deletion is doing
      (C(Absent), C(NotDeleting), C(FinalizerGone), C(Paused), C(JobRunning), C(DependentsExist),
      C(InProgress), C(Unknown)).
  returned: always
  type: str
  sample: StateLost
hold_type:
  description: C(state) for an unreadable or lost state, C(destroy) for a failing destroy, null otherwise.
  returned: always
  type: str
  sample: state
uid:
  description: The object's UID (null when absent).
  returned: always
  type: str
action:
  description: The action taken.
  returned: always
  type: str
  sample: diagnose
diagnosis:
  description:
    - The facts the decision rests on. Keys include C(exists), C(deleting), C(deletion_timestamp), C(finalizers),
      C(paused), C(blocked_by_dependents), C(dependents), C(ever_applied) (C(value) and C(signals), which are
      C(provisioned), C(inputs_applied), C(pinned_digest), C(backups)), C(backups) (C(serial), C(secret_name),
      C(created_at), C(age_seconds), C(complete), C(restore_failed), C(usable)), C(failed_restores),
      C(state_readable), C(last_destroy), C(abandon_annotation), C(restore_annotation), C(deletion_policy),
      C(abandon_cause), C(message) and C(options) (each with C(action) and, for restore, C(backup_serial),
      for abandon, C(confirm_uid) and C(via)).
  returned: always
  type: dict
patch:
  description: The JSON patch sent (or, in check mode, that would be sent).
  returned: when action is restore or abandon and something changes
  type: list
  elements: dict
backup_file:
  description: Where the Secrets were saved (or would be, in check mode).
  returned: when backup_to is given
  type: str
saved_secrets:
  description: Names of the Secrets saved to backup_file.
  returned: when backup_to is given
  type: list
  elements: str
abandoned:
  description:
    - For an abandon, what is left running in the cloud, untracked, once CAPTF releases the object. Report it.
  returned: when action is abandon
  type: dict
query_times:
  description: UTC ISO-8601 times of the reads the result rests on.
  returned: always
  type: dict
"""

import copy
import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.teardown.gates.plugins.module_utils.common_args import request_timeout_spec
from ansible_collections.teardown.gates.plugins.module_utils import captf
from ansible_collections.teardown.gates.plugins.module_utils.k8s_client import (
    ResourceLookupError, api_client, missing_permission)
from ansible_collections.teardown.gates.plugins.module_utils.k8s_observe import ABSENT, PRESENT
from ansible_collections.teardown.gates.plugins.module_utils.k8s_reads import CheckModeWrite, KubeReads
from ansible_collections.teardown.gates.plugins.module_utils.timestamps import utc_iso
from ansible_collections.teardown.gates.plugins.module_utils.errors import fail_from

try:
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule
    from kubernetes.dynamic.exceptions import DynamicApiError
    HAS_K8S = True
    K8S_ERR = None
except ImportError as e:  # pragma: no cover - reported by the module
    HAS_K8S = False
    K8S_ERR = e


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


def validate(module):
    p = module.params
    for key in ("name", "namespace"):
        if not (p[key] or "").strip():  # required, but "" passes Ansible's check; "" would mean every namespace
            module.fail_json(msg="%s: must not be empty" % key)
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


def patch(module, reads, ops):
    p = module.params
    try:
        return reads.patch(p["api_version"], p["kind"], p["name"], ops, namespace=p["namespace"])
    except CheckModeWrite as e:  # main patches outside check mode only: reaching here is a bug, and nothing was sent
        fail_from(module, e, then="nothing was changed", patch=ops)
    except Exception as e:  # noqa: BLE001
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


def main():
    argument_spec = copy.deepcopy(AUTH_ARG_SPEC)
    argument_spec.update(
        action=dict(type="str", choices=["diagnose", "restore", "abandon"], default="diagnose"),
        kind=dict(type="str", choices=list(captf.KINDS), default="TerraformCluster"),
        api_version=dict(type="str", default=captf.API_VERSION),
        name=dict(type="str", required=True),
        namespace=dict(type="str", required=True),
        backup_serial=dict(type="int"),
        confirm_uid=dict(type="str"),
        backup_to=dict(type="path"),
        request_timeout=request_timeout_spec(),
    )
    if not HAS_K8S:
        AnsibleModule(argument_spec=argument_spec).fail_json(msg="kubernetes.core and the kubernetes Python "
                                                                 "library are required: %s" % K8S_ERR)
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argument_spec, supports_check_mode=True)
    validate(module)
    p = module.params
    try:
        client = api_client(module, request_timeout=p["request_timeout"], caller="held_deletion")
    except ResourceLookupError as e:
        fail_from(module, e, what="could not build a Kubernetes client", held="unknown" if e.unknown else None)
    reads = KubeReads(client, p["request_timeout"], check_mode=module.check_mode)
    seen = {"errors": [], "times": {}}
    obj, diag = gather(module, reads, seen)
    result = dict(changed=False, action=p["action"], held=diag["held"], reason=diag["reason"],
                  hold_type=diag.get("hold_type"), uid=diag.get("uid"), diagnosis=public(diag),
                  query_times=seen["times"])
    if p["action"] == "diagnose":
        module.exit_json(**result)

    before = {"annotations": dict((obj or {}).get("metadata", {}).get("annotations") or {}),
              "deletionPolicy": ((obj or {}).get("spec") or {}).get("deletionPolicy")}
    after = copy.deepcopy(before)
    if p["action"] == "restore":
        value = str(p["backup_serial"])
        if diag.get("deleting") and before["annotations"].get(captf.RESTORE_ANNOTATION) == value and \
                value not in diag.get("failed_restores", []):
            # a second run: CAPTF restores (or has restored) from this serial; nothing to change
            result["msg"] = "%s=%s is already set; CAPTF restores from it" % (captf.RESTORE_ANNOTATION, value)
            module.exit_json(**result)
        why = captf.check_restore(diag, p["backup_serial"])
        if why:
            module.fail_json(msg=why, **result)
        ops = captf.annotation_patch(obj, captf.RESTORE_ANNOTATION, value)
        after["annotations"][captf.RESTORE_ANNOTATION] = value
    else:
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
            ops = captf.deletion_policy_patch(obj, "Retain")
            after["deletionPolicy"] = "Retain"
        else:
            if before["annotations"].get(captf.ABANDON_ANNOTATION) == diag["uid"]:
                result["msg"] = "%s already names this object's uid; CAPTF releases it" % captf.ABANDON_ANNOTATION
                module.exit_json(**result)
            ops = captf.annotation_patch(obj, captf.ABANDON_ANNOTATION, diag["uid"])
            after["annotations"][captf.ABANDON_ANNOTATION] = diag["uid"]
    result.update(changed=True, patch=ops)
    if module._diff:
        result["diff"] = {"before": before, "after": after}
    if not module.check_mode:
        patch(module, reads, ops)
        result["query_times"]["patched"] = utc_iso()
    module.exit_json(**result)


if __name__ == "__main__":
    main()
