#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: deletion_info
short_description: Why is this Kubernetes object not gone - finalizers, owners, dependents, conditions, what to inspect next
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Reads one object and reports whether it is V(present), V(absent) or V(unknown) (the read failed -
    never taken for absent), whether it is being deleted, its deletion and grace times, its finalizers
    and who owns each, its conditions, the objects whose C(ownerReferences) name it, and
    RV(inspect_next) - the runbook's "what to inspect next" rules for its kind, as data.
  - For a Namespace it also lists the objects actually left in it (every listable kind) next to its
    conditions; conditions can say "no content" while pods remain, so both are reported and C(namespace.believe)
    says which to trust.
  - Read-only; check mode runs the same reads.
  - A read that fails (including discovery) is reported as RV(state=unknown) without failing the task;
    test RV(state) before concluding anything. An unknown kind (served by no API) fails.
  - O(objects) reads several objects in one run instead of one (mutually exclusive with O(kind) and O(name)), for
    example a verification that several objects are gone; O(dependents) and O(request_timeout) apply to each.
notes:
  - Time bound - building the client (C(/version) and discovery) takes at most 3 x O(request_timeout) and
    every later request at most O(request_timeout). Against an API server that accepts and never answers the
    task fails as unknown, naming the server, after about 3 x O(request_timeout); a single read that times out
    is an unknown answer, not a failure.
options:
  kind:
    description: Kind of the object. Required unless O(objects) is given.
    type: str
  name:
    description: Name of the object. Required with O(kind).
    type: str
  dependents:
    description:
      - Look for dependents (objects whose C(ownerReferences) name this object's UID) by listing every
        listable kind in the object's namespace (or every cluster-scoped kind for a cluster-scoped object).
      - Set V(false) to skip these lists on large clusters.
    type: bool
    default: true
  diagnose:
    description:
      - Also read what blocks the deletion from outside the object and report it in RV(diagnosis) - each
        finalizer's owner or, when the kind registry does not know it, the managers that last wrote the object
        (C(metadata.managedFields)); the C(blockOwnerDeletion) dependents of a foreground deletion; the
        Validating/MutatingWebhookConfigurations whose failure policy is C(Fail) that apply to an UPDATE of the object
        and whose Service has no ready endpoint (EndpointSlices); for a Namespace the APIServices that are not
        Available (then its state is V(unknown), never V(empty)); the controller Deployments the kind registry names
        for it, and whether they are ready; the owners' own ways out.
      - Implies O(dependents). Reads only (get and list), in check mode or not.
    type: bool
    default: false
seealso:
  - module: teardown.gates.wait_gate
  - module: teardown.gates.finalizer
extends_documentation_fragment: [teardown.gates.k8s_object, teardown.gates.k8s_objects, teardown.gates.k8s_request_timeout,
  kubernetes.core.k8s_auth_options]
"""

EXAMPLES = r"""
- name: Why is the HCP still there?
  teardown.gates.deletion_info:
    api_version: hypershift.openshift.io/v1beta1
    kind: HostedControlPlane
    namespace: clusters-demo
    name: demo
  register: why

- name: Show what to inspect next
  ansible.builtin.debug:
    var: why.inspect_next

- name: What is really left in a terminating namespace?
  teardown.gates.deletion_info:
    kind: Namespace
    name: clusters-demo
  register: ns

- name: Why won't this ConfigMap delete? (finalizer owners, webhooks, controllers, ways out)
  teardown.gates.deletion_info:
    kind: ConfigMap
    namespace: demo
    name: stuck
    diagnose: true
  register: why_stuck

- name: Are the HostedCluster and its control-plane namespace gone? (one run, two reads)
  teardown.gates.deletion_info:
    dependents: false
    objects:
      - {api_version: hypershift.openshift.io/v1beta1, kind: HostedCluster, namespace: clusters, name: demo}
      - {kind: Namespace, name: clusters-demo}
  register: gone

- name: Are the HostedCluster, its namespace and its NodePools gone? (one run, three reads)
  teardown.gates.deletion_info:
    dependents: false
    objects:
      - {api_version: hypershift.openshift.io/v1beta1, kind: HostedCluster, namespace: clusters, name: demo}
      - {kind: Namespace, name: clusters-demo}
      - api_version: hypershift.openshift.io/v1beta1
        kind: NodePool
        namespace: clusters
        match: {spec.clusterName: demo}
  register: gone
"""

RETURN = r"""
state:
  description: V(present), V(absent) (a successful read answered 404) or V(unknown) (the read failed).
  returned: always
  type: str
query:
  description: The read this rests on (verb, started, finished, ok, error), UTC ISO-8601 with milliseconds.
  returned: always
  type: dict
deleting:
  description: Whether the object has a C(deletionTimestamp).
  returned: always
  type: bool
object:
  description:
    - api_version, kind, name, namespace, uid, resource_version, deletion_timestamp,
      deletion_grace_period_seconds, and for pods termination_grace_period_seconds and grace_deadline.
  returned: when present
  type: dict
finalizers:
  description: Each finalizer with its known owner and what that owner waits for.
  returned: always
  type: list
  elements: dict
  sample: [{"name": "cluster.cluster.x-k8s.io", "owner": "CAPI manager (Cluster)", "waits_for": "..."}]
conditions:
  description: The object's status conditions (type, status, reason, message, lastTransitionTime).
  returned: always
  type: list
  elements: dict
owners:
  description: The object's ownerReferences (kind, name, uid, blockOwnerDeletion).
  returned: when present
  type: list
  elements: dict
dependents:
  description: Objects whose ownerReferences name this object's UID.
  returned: when O(dependents=true) and the object is present
  type: list
  elements: dict
dependents_complete:
  description: False when a list failed, so RV(dependents) may be incomplete (unknown, not empty).
  returned: when O(dependents=true) and the object is present
  type: bool
namespace:
  description:
    - For a Namespace - C(phase), C(conditions), C(spec_finalizers), C(contents) (the objects listed in it,
      with their finalizers and deletion timestamps), C(contents_complete), C(conditions_say_empty),
      C(listing_says_empty), and C(believe) (C(listing) or C(unknown)) with C(note).
  returned: for a Namespace that is present
  type: dict
inspect_next:
  description: What to inspect next (hints, most specific first); never "remove the finalizer".
  returned: always
  type: list
  elements: str
diagnosis:
  description:
    - With O(diagnose=true) and the object present - C(blockers) (each C(what), C(name), C(detail), most direct
      first; a read that failed is a blocker C(unread), unknown, not absent), C(finalizers) (name, owner or
      C(unknown owner) with C(added_by) and C(last_written_by), the managers from managedFields), C(owners),
      C(foreground) (C(foreground), C(blocking_dependents)), C(webhooks) (configuration, webhook, service,
      endpoints), C(apiservices) (name, service, status, reason, message), C(namespace_state) (V(empty),
      V(not_empty) or V(unknown), for a Namespace), C(controllers) (namespace, name, what, state), C(unread) and
      C(ways_out).
  returned: when O(diagnose=true) and the object is present
  type: dict
objects:
  description:
    - With O(objects), one answer per object, in the order given. Each holds RV(state), RV(query), RV(deleting),
      RV(finalizers), RV(conditions), RV(inspect_next) and, as for a single read, RV(object), RV(owners),
      RV(dependents), RV(dependents_complete) and RV(namespace) when they apply, plus C(item) (the object asked for).
    - The answer to an entry without a name (a list) holds RV(state), RV(query), RV(deleting) (whether any listed
      object is being deleted), RV(inspect_next), C(item), C(count), C(names) (sorted) and C(listed) (each C(name),
      C(namespace), C(uid), C(deleting), C(deletion_timestamp) and C(finalizers) as RV(finalizers) gives them);
      C(msg) says why when it is V(unknown).
    - The top-level RV(state) is then the worst of them (V(unknown), else V(present), else V(absent)).
  returned: when O(objects) is given
  type: list
  elements: dict
"""


from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.core.args import (
    k8s_argument_spec, k8s_object_spec, k8s_objects_spec)
from ansible_collections.teardown.gates.plugins.module_utils.drivers import deletion_info as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module


def argument_spec():
    return k8s_argument_spec(
        kind=dict(type="str"),
        name=dict(type="str"),
        objects=k8s_objects_spec(),
        dependents=dict(type="bool", default=True),
        diagnose=dict(type="bool", default=False),
        **k8s_object_spec()
    )


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True,
                              required_one_of=[("kind", "objects")], required_together=[("kind", "name")],
                              mutually_exclusive=[("kind", "objects"), ("name", "objects")])
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
