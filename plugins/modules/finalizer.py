#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: finalizer
short_description: Add or remove finalizers on a Kubernetes object without racing its controllers
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Adds (O(state=present)) or removes (O(state=absent)) one or more finalizers on any object.
  - Removal is a JSON patch that first tests C(metadata.uid) and the exact value at each index it
    removes; a finalizer another controller adds at the same moment is kept. Never a merge patch
    of the whole list.
  - When a test fails or the server answers a conflict, the module re-reads the object and
    recomputes, at most O(retries) times.
  - By default a finalizer is removed only from an object that is being deleted (O(only_if_deleting)).
  - O(scope=spec) changes a Namespace's C(spec.finalizers) through C(PUT /api/v1/namespaces/{name}/finalize).
  - The API refuses new finalizers on an object that is being deleted; the module reports that with
    O(state=present) as a failure whose RV(refused) is C(object_deleting), before sending anything.
  - O(annotations) are set in the same request as the finalizers O(state=present) adds (one JSON patch, under the
    same test of C(metadata.uid)); an annotation already at its value is no change.
  - On an object that is being deleted, the finalizer is refused as above, but the annotations still wanted are
    sent alone first; the module then fails with RV(refused=object_deleting) and C(changed=true).
  - Check mode sends no mutating request; C(--diff) shows the finalizers (and O(annotations)) before and after.
options:
  state:
    description: Whether the finalizers must be on the object (V(present)) or off it (V(absent)).
    type: str
    choices: [present, absent]
    default: absent
  finalizer:
    description:
      - One finalizer or a list of them; each must be a qualified name (C([prefix/]name)).
    type: list
    elements: str
    required: true
    aliases: [finalizers]
  kind:
    description: Kind of the object.
    type: str
    required: true
  name:
    description: Name of the object.
    type: str
    required: true
  only_if_deleting:
    description:
      - Refuse to remove a finalizer from an object that is not being deleted (no C(deletionTimestamp)).
      - Defaults to V(true) for O(state=absent). Set V(false) to remove a finalizer from a live object.
    type: bool
  expected_uid:
    description:
      - Refuse to touch the object when its C(metadata.uid) differs (the object was recreated).
    type: str
  scope:
    description:
      - V(metadata) works on C(metadata.finalizers) of any kind.
      - V(spec) works on a Namespace's C(spec.finalizers) (for example C(kubernetes)) through the
        C(/finalize) subresource; O(kind) must be C(Namespace) and O(api_version) C(v1).
    type: str
    choices: [metadata, spec]
    default: metadata
  retries:
    description: How many times to read, compute and send when the object changes under the module.
    type: int
    default: 5
  annotations:
    description:
      - Annotations (key and string value) to set on the object in the same request as the added finalizers.
      - Only with O(state=present) and O(scope=metadata). An annotation is never removed.
      - A key that already has another value is tested at that value before it is replaced (another writer's change
        makes the module read again); a missing C(metadata.annotations) is created only after a test of the
        resourceVersion.
    type: dict
notes:
  - Time bound - building the client (C(/version) and discovery) takes at most 3 x O(request_timeout), every
    later request at most O(request_timeout) (connect at most 5 s), and a read is sent again only after a
    transient answer (429, 5xx, a lost connection; 3 tries at most), so against an API server that accepts and
    never answers the task fails as unknown, naming the server, after about 3 x O(request_timeout).
  - A failed read is never taken for an absent object; the module fails instead.
  - Never strip a finalizer to go faster; remove one only when its owner cannot (see the collection docs).
seealso:
  - module: teardown.gates.wait_gate
  - module: teardown.gates.deletion_info
extends_documentation_fragment: [teardown.gates.k8s_object, teardown.gates.k8s_request_timeout, kubernetes.core.k8s_auth_options]
"""

EXAMPLES = r"""
# The CLI's destroy finalizer on one HostedCluster, in the order of a destroy: module_defaults names the object once
- name: Hold and release the demo HostedCluster's destroy finalizer
  module_defaults:
    teardown.gates.finalizer:
      api_version: hypershift.openshift.io/v1beta1
      kind: HostedCluster
      namespace: clusters
      name: demo
      finalizer: openshift.io/destroy-cluster
  block:
    - name: Add our own finalizer before deleting (a deleting object refuses it)
      teardown.gates.finalizer:
        state: present
      register: add_fin
      failed_when: add_fin is failed and add_fin.refused | default('') != 'object_deleting'

    - name: Hold the HostedCluster and ask HyperShift to delete the guest's cloud resources, in one request
      teardown.gates.finalizer:
        state: present
        expected_uid: "{{ hc_uid }}"
        annotations:
          hypershift.openshift.io/cleanup-cloud-resources: "true"
      register: retained
      # a deleting HostedCluster still gets the annotation; only the finalizer is refused
      failed_when: retained is failed and retained.refused | default('') != 'object_deleting'

    - name: Drop the CLI's destroy finalizer once its work is done (the HostedCluster is deleting)
      teardown.gates.finalizer:
        expected_uid: "{{ hc_uid }}"

- name: Release a namespace's spec finalizer (only when it is terminating)
  teardown.gates.finalizer:
    kind: Namespace
    name: clusters-demo
    scope: spec
    finalizer: kubernetes
"""

RETURN = r"""
object_state:
  description: What the read found - V(present) or V(absent).
  returned: always
  type: str
  sample: present
uid:
  description: The object's C(metadata.uid).
  returned: when the object exists
  type: str
resource_version:
  description: The object's C(metadata.resourceVersion) after the change (or as read).
  returned: when the object exists
  type: str
deletion_timestamp:
  description: The object's C(metadata.deletionTimestamp), null when it is not being deleted.
  returned: when the object exists
  type: str
finalizers_before:
  description: The finalizers (of O(scope)) as read before the change.
  returned: always
  type: list
  elements: str
finalizers_after:
  description: The finalizers after the change (the predicted list in check mode).
  returned: always
  type: list
  elements: str
annotations_before:
  description: The value of each key of O(annotations) as read (null when it was not set).
  returned: when O(annotations) is given and the object exists
  type: dict
  sample: {"hypershift.openshift.io/cleanup-cloud-resources": null}
annotations_after:
  description: The value of each key of O(annotations) after the change (the predicted values in check mode).
  returned: when O(annotations) is given and the object exists
  type: dict
  sample: {"hypershift.openshift.io/cleanup-cloud-resources": "true"}
attempts:
  description: Read-compute-send rounds used (more than 1 after a conflict with another writer).
  returned: always
  type: int
refused:
  description:
    - Why the module refused, when it did - V(object_deleting) (adding to a deleting object),
      V(not_deleting) (removing from a live object), V(uid_mismatch), V(absent).
  returned: on those failures
  type: str
query:
  description: The read the result rests on (verb, started, finished, ok, error) in UTC ISO-8601.
  returned: always
  type: dict
"""

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec, k8s_object_spec
from ansible_collections.teardown.gates.plugins.module_utils.drivers import finalizer as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module


def argument_spec():
    return k8s_argument_spec(
        state=dict(type="str", choices=["present", "absent"], default="absent"),
        finalizer=dict(type="list", elements="str", required=True, aliases=["finalizers"]),
        kind=dict(type="str", required=True),
        name=dict(type="str", required=True),
        only_if_deleting=dict(type="bool"),
        expected_uid=dict(type="str"),
        scope=dict(type="str", choices=["metadata", "spec"], default="metadata"),
        retries=dict(type="int", default=5),
        annotations=dict(type="dict"),
        **k8s_object_spec()
    )


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True)
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
