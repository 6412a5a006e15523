#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: wait_gate
short_description: Wait, by watch, until Kubernetes objects are gone, have a condition, or hold only named finalizers
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Waits for each gate of O(gates), in the order given. A gate spans one or more selectors (kinds,
    namespaces, a name or a label selector) and holds when its O(gates[].until) is met.
  - V(absent) is matched by UID - the objects seen by the first successful list are the ones that must
    go; an object created later, even with the same name, is reported in RV(gates[].new_objects) and
    never taken for the old one. Only a successful list or a DELETED watch event proves absence.
  - Built on watches (with C(resourceVersion) and bookmarks), not on sleeps between polls; after a dropped
    watch it re-lists once and watches again.
  - A failed or timed-out query makes the state V(unknown). The module keeps trying until the timeout
    and then fails with state V(unknown) - it never passes on an unknown state. At the deadline one
    verifying list per selector tells V(timeout) (the server answered, objects remain) from V(unknown).
  - On failure the result carries the partial timeline and, for each remaining object, what to inspect
    next (see M(teardown.gates.deletion_info)).
  - The module sends only reads, unless O(delete) names an object to delete; check mode waits the same way
    and does not send that deletion.
  - A module cannot print while it runs; for progress on long waits enable the C(teardown.gates.gate_progress)
    callback, which prints the open gate and what is left every few seconds (see the collection docs).
options:
  gates:
    description: The gates, waited for in this order; the module stops at the first that does not pass.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: The gate's label in the output (unique).
        type: str
        required: true
      resources:
        description: Selectors; one gate may span several kinds.
        type: list
        elements: dict
        required: true
        suboptions:
          api_version:
            description: API version, for example C(cluster.x-k8s.io/v1beta1).
            type: str
            required: true
          kind:
            description: Kind.
            type: str
            required: true
          namespace:
            description: Namespace (omit for cluster-scoped kinds, or to select across all namespaces).
            type: str
          name:
            description: One object's name. Exactly one of O(gates[].resources[].name) and O(gates[].resources[].label_selector).
            type: str
          label_selector:
            description: A label selector, for example C(cluster.x-k8s.io/cluster-name=demo).
            type: str
      until:
        description:
          - V(absent) - every object the first list found is gone (by UID).
          - V(condition) - every matched object (at least one) has O(gates[].condition).
          - V(finalizers_only) - every matched object holds only O(gates[].finalizers) (gone counts too).
        type: str
        choices: [absent, condition, finalizers_only]
        default: absent
      condition:
        description: The condition for O(gates[].until=condition).
        type: dict
        suboptions:
          type:
            description: Condition type.
            type: str
          status:
            description: Condition status.
            type: str
            default: "True"
          reason:
            description: Condition reason (any when omitted).
            type: str
      finalizers:
        description: The finalizers allowed to remain for O(gates[].until=finalizers_only).
        type: list
        elements: str
      timeout:
        description: Seconds this gate may take (also bounded by O(timeout)).
        type: float
  timeout:
    description: Seconds all gates together may take. V(0) checks once without waiting.
    type: float
    default: 300
  stall_after:
    description:
      - End a gate as V(stalled) when its objects have shown no progress by their owners for this many seconds.
      - Progress is an object gone, newly terminating or new, a changed finalizer list, or a changed condition
        (type, status, reason or message). A status write that changes none of these is not progress.
      - A gate with a selector whose last query failed never stalls (no event may only mean no answer); it
        waits, and ends V(timeout) or V(unknown) as usual.
      - Omitted, gates never stall. C(teardown.gates.destroy_hosted_cluster) sets it from C(take_over_after)
        when C(take_over_cleanup) is on.
    type: float
  delete:
    description:
      - An object to delete once the first gate is watched (every selector of it has listed successfully),
        so that the timeline starts before the deletion and nothing its controllers do is missed, in one task.
      - A 404 means there was nothing to delete and is not an error. With O(delete.uid), a newer object of the
        same name is not deleted (the API server refuses it) and the module fails.
      - A refused deletion (403, 409) or one that got no answer fails the module before any gate is judged;
        RV(deletion) says which. When the first gate cannot be listed before the deadline, the deletion is not
        sent (V(not_sent)) and the module fails.
      - In check mode nothing is deleted. When the object is there, the module reports V(would_delete) and
        C(changed), and does not wait (the gates would wait for a deletion that is not sent; they are reported
        V(not_started)). When it is already gone, the gates are waited for as usual.
    type: dict
    suboptions:
      api_version:
        description: API version of the object.
        type: str
        required: true
      kind:
        description: Kind of the object.
        type: str
        required: true
      namespace:
        description: Namespace of the object (required for namespaced kinds).
        type: str
      name:
        description: Name of the object.
        type: str
        required: true
      uid:
        description: Delete only the object with this UID (a precondition the API server checks).
        type: str
      propagation_policy:
        description: The deletion's propagation policy (the server's default for the kind when omitted).
        type: str
        choices: [Foreground, Background, Orphan]
  progress_file:
    description:
      - Write the open gate's state (name, elapsed, remaining objects) as JSON to this file while waiting.
      - When omitted and the environment variable E(TEARDOWN_GATES_PROGRESS_DIR) is set (the
        C(teardown.gates.gate_progress) callback sets it), a file in that directory is used.
    type: path
notes:
  - Time bound - building the client takes at most 3 x O(request_timeout); the gates then take at most
    O(timeout), and the final list per selector at most O(request_timeout) each. Against an API server that
    accepts and never answers the task fails as unknown, naming the server, after about 3 x
    O(request_timeout); one that goes silent during the wait ends at O(timeout) with the gate unknown.
  - Times are UTC ISO-8601 with milliseconds.
seealso:
  - module: teardown.gates.deletion_info
  - module: teardown.gates.finalizer
  - module: kubernetes.core.k8s
extends_documentation_fragment: [teardown.gates.k8s_request_timeout, kubernetes.core.k8s_auth_options]
"""

EXAMPLES = r"""
- name: Wait until the workers are gone, then the CAPI Cluster
  teardown.gates.wait_gate:
    timeout: 1800
    gates:
      - name: workers gone
        resources:
          - {api_version: hypershift.openshift.io/v1beta1, kind: NodePool, namespace: clusters, label_selector: "hypershift.openshift.io/cluster=demo"}
          - {api_version: cluster.x-k8s.io/v1beta1, kind: Machine, namespace: clusters-demo, label_selector: "cluster.x-k8s.io/cluster-name=demo"}
      - name: CAPI cluster gone
        resources:
          - {api_version: cluster.x-k8s.io/v1beta1, kind: Cluster, namespace: clusters-demo, name: demo-infra}

- name: Delete the HostedCluster once its NodePools are watched, then wait until only the CLI finalizer is left
  teardown.gates.wait_gate:
    timeout: 600
    delete: {api_version: hypershift.openshift.io/v1beta1, kind: HostedCluster, namespace: clusters, name: demo}
    gates:
      - name: NodePools gone
        resources:
          - {api_version: hypershift.openshift.io/v1beta1, kind: NodePool, namespace: clusters, label_selector: "hypershift.openshift.io/cluster=demo"}
      - name: HO done
        until: finalizers_only
        finalizers: [openshift.io/destroy-cluster]
        resources:
          - {api_version: hypershift.openshift.io/v1beta1, kind: HostedCluster, namespace: clusters, name: demo}

- name: Wait like the destroy CLI - until only its finalizer is left on the HostedCluster
  teardown.gates.wait_gate:
    timeout: 600
    gates:
      - name: HO done
        until: finalizers_only
        finalizers: [openshift.io/destroy-cluster]
        resources:
          - {api_version: hypershift.openshift.io/v1beta1, kind: HostedCluster, namespace: clusters, name: demo}

- name: Wait for a condition
  teardown.gates.wait_gate:
    gates:
      - name: CVO scaled down
        until: condition
        condition: {type: CVOScaledDown, status: "True"}
        resources:
          - {api_version: hypershift.openshift.io/v1beta1, kind: HostedControlPlane, namespace: clusters-demo, name: demo}
"""

RETURN = r"""
deletion:
  description:
    - With O(delete), what became of it - C(api_version), C(kind), C(namespace), C(name), C(what) (the object in
      words), C(state) (V(deleted) (also a 404 to a retry whose earlier attempt went unanswered, since that attempt
      most likely deleted it), V(absent) (a 404 at once, nothing to delete), V(would_delete) in check mode,
      V(refused), V(unknown) (no answer, so it may or may not have been applied), or V(not_sent) (the first gate
      was not listed in time)), and C(query) (verb, started, finished, ok, error).
  returned: when O(delete) is given
  type: dict
gates:
  description: One entry per gate, in the order given.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The gate's name.
      type: str
    until:
      description: The gate's kind of wait.
      type: str
    state:
      description:
        - V(passed), V(timeout) (objects remain), V(stalled) (objects remain and showed no progress for
          O(stall_after) seconds), V(unknown) (the last query failed, or the API server did not answer at all), or
          V(not_started) (an earlier gate failed, or the client could not be configured).
      type: str
    last_progress:
      description: When the gate last saw progress (see O(stall_after)); its opening when it saw none.
      type: str
    last_progress_what:
      description: What that progress was, for example C(NodePool demo-a changed (terminating)) or C(gate opened).
      type: str
    started:
      description: When the gate opened.
      type: str
    ended:
      description: When it passed or gave up.
      type: str
    passed_at:
      description: When it passed (null otherwise).
      type: str
    duration:
      description: Seconds from started to ended.
      type: float
    first_observed_terminating:
      description: Earliest first observation of a C(deletionTimestamp) among the tracked objects.
      type: str
    first_observed_absent:
      description: For a passed V(absent) gate, when the last tracked object was first observed absent.
      type: str
    objects:
      description:
        - The tracked objects (from the first list) with kind, name, namespace, uid, finalizers, conditions,
          deletion_timestamp, deletion_grace_period_seconds, grace_deadline (pods), first_observed,
          first_observed_terminating, first_observed_absent and absence_proven_by.
      type: list
      elements: dict
    remaining:
      description:
        - The objects that hold the gate (empty when passed). On failure each has C(inspect_next) hints,
          C(kind_label) (the kind with its API group, for example C(Machine.cluster.x-k8s.io)) and, when the
          object says what its deletion waits for in a C(Deleting=True) condition (Cluster API), C(waiting_for)
          (for example C(Deleting=True WaitingForInfrastructureDeletion - Waiting for AWSMachine to be deleted),
          written with a colon after the reason).
      type: list
      elements: dict
    new_objects:
      description: Objects that appeared after the first list (C(recreates_uid) when one has a tracked object's name).
      type: list
      elements: dict
    queries:
      description: Counts of lists, watch events and failed queries.
      type: dict
    unknown_selectors:
      description: Selectors whose last query failed, with the error.
      type: list
      elements: dict
    timeline:
      description: What was observed, in order (at, event, kind, name, uid, detail).
      type: list
      elements: dict
  sample:
    - name: workers gone
      state: passed
      started: "2026-01-01T10:00:00.000Z"
      passed_at: "2026-01-01T10:02:11.402Z"
      duration: 131.402
"""

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.drivers import wait_gate as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module

SELECTOR_SPEC = dict(
    api_version=dict(type="str", required=True),
    kind=dict(type="str", required=True),
    namespace=dict(type="str"),
    name=dict(type="str"),
    label_selector=dict(type="str"),
)
GATE_SPEC = dict(
    name=dict(type="str", required=True),
    resources=dict(type="list", elements="dict", required=True, options=SELECTOR_SPEC),
    until=dict(type="str", choices=["absent", "condition", "finalizers_only"], default="absent"),
    condition=dict(type="dict", options=dict(type=dict(type="str"), status=dict(type="str", default="True"),
                                             reason=dict(type="str"))),
    finalizers=dict(type="list", elements="str"),
    timeout=dict(type="float"),
)


def argument_spec():
    return k8s_argument_spec(
        gates=dict(type="list", elements="dict", required=True, options=GATE_SPEC),
        timeout=dict(type="float", default=300),
        stall_after=dict(type="float"),
        progress_file=dict(type="path"),
        delete=dict(type="dict", options=dict(
            api_version=dict(type="str", required=True),
            kind=dict(type="str", required=True),
            namespace=dict(type="str"),
            name=dict(type="str", required=True),
            uid=dict(type="str"),
            propagation_policy=dict(type="str", choices=["Foreground", "Background", "Orphan"]),
        )),
    )


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True)
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
