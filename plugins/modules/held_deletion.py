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
  min_age:
    description:
      - Keep the object when it was created less than this long ago (its C(metadata.creationTimestamp)) - seconds, or a
        duration such as V(90m), V(24h), V(1d12h); RV(young) gives the reason. V(0), the default, is off.
      - A negative value or one that is not a duration fails before any request, naming C(min_age).
    type: raw
    default: 0
extends_documentation_fragment: [teardown.gates.k8s_request_timeout, kubernetes.core.k8s_auth_options]
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
young:
  description:
    - The reason the object is kept for its age (V(created <time>, less than min_age (<n> s\) ago)) when it was
      created less than O(min_age) ago, else an empty string. Such an object is never restored nor abandoned,
      O(action=restore) and O(action=abandon) fail before any change.
  returned: always, except when the object could not be read
  type: str
  sample: ""
protected:
  description:
    - True when the object is labelled C(teardown.gates/protected=true) (read with the object, no other request); such
      an object is never restored nor abandoned, O(action=restore) and O(action=abandon) fail before any change.
  returned: always, except when the object could not be read
  type: bool
  sample: false
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

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.owners import captf
from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.drivers import held_deletion as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module


def main():
    argument_spec = k8s_argument_spec(
        action=dict(type="str", choices=["diagnose", "restore", "abandon"], default="diagnose"),
        kind=dict(type="str", choices=list(captf.KINDS), default="TerraformCluster"),
        api_version=dict(type="str", default=captf.API_VERSION),
        name=dict(type="str", required=True),
        namespace=dict(type="str", required=True),
        backup_serial=dict(type="int"),
        confirm_uid=dict(type="str"),
        backup_to=dict(type="path"),
        min_age=dict(type="raw", default=0),
    )
    module = AnsibleK8SModule(argument_spec=argument_spec, supports_check_mode=True)
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
