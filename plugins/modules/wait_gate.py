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
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.k8s_request_timeout
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

import os

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.common_args import request_timeout_spec
from ansible_collections.teardown.gates.plugins.module_utils.diagnosis import deleting_condition, inspect_next, kind_label, \
    object_text
from ansible_collections.teardown.gates.plugins.module_utils.gates import (
    NOT_STARTED,
    STALLED,
    UNKNOWN,
    run_gates,
    validate_gates,
)
from ansible_collections.teardown.gates.plugins.module_utils.gate_progress import ProgressFile
from ansible_collections.teardown.gates.plugins.module_utils.k8s_client import (
    ResourceLookupError, api_client, resolve_resource)
from ansible_collections.teardown.gates.plugins.module_utils.k8s_observe import delete_object, get_object
from ansible_collections.teardown.gates.plugins.module_utils.errors import CLIENT_FAILED, fail_from, TeardownGatesError

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
    spec = dict(
        gates=dict(type="list", elements="dict", required=True, options=GATE_SPEC),
        timeout=dict(type="float", default=300),
        request_timeout=request_timeout_spec(),
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
    spec.update(AUTH_ARG_SPEC)
    return spec


def clean_selector(sel):
    return dict((k, v) for k, v in sel.items() if v is not None)


def describe(rec):
    return object_text(kind_label(rec.get("api_version"), rec.get("kind")), rec.get("namespace"), rec.get("name"),
                       rec.get("uid"), (rec.get("finalizers") or []) + ["spec:" + f for f in rec.get("spec_finalizers") or []],
                       deleting_condition(rec.get("conditions")))


class DeleteFailed(TeardownGatesError):
    """The object of ``delete`` could not be deleted (refused, or no answer): no gate is judged."""


def prepare_delete(module, client, not_evaluated):
    """For O(delete): ``(deletion, send)`` - the result dict it fills, and the callable the first gate calls
    once it is watched (None without O(delete)). Bad input fails here, before anything is sent."""
    spec = module.params["delete"]
    if not spec:
        return {}, None
    deletion = dict((k, spec.get(k)) for k in ("api_version", "kind", "namespace", "name"))
    try:
        res = resolve_resource(client, spec["api_version"], spec["kind"])
    except ResourceLookupError as e:
        fail_from(module, e, what="delete", gates=not_evaluated(UNKNOWN if e.unknown else NOT_STARTED))
    if res.namespaced and not spec.get("namespace"):
        module.fail_json(msg="delete: namespace is required, since %s is namespaced" % spec["kind"],
                         gates=not_evaluated(NOT_STARTED))
    what = "%s %s%s" % (spec["kind"], (spec["namespace"] + "/") if res.namespaced else "", spec["name"])
    deletion["what"] = what

    if module.check_mode:
        # nothing is deleted: say what would be, and wait only when there is nothing to delete anyway
        obs = get_object(res, spec["name"], spec.get("namespace"), request_timeout=module.params["request_timeout"])
        if obs["state"] == UNKNOWN:
            module.fail_json(msg="could not read %s (%s); its state is unknown" % (what, obs["query"].get("error")),
                             deletion=dict(deletion, state=UNKNOWN, query=obs["query"]), gates=not_evaluated(NOT_STARTED))
        if obs["state"] == "present":
            deletion.update(state="would_delete", query=obs["query"])
            module.exit_json(changed=True, deletion=deletion, gates=not_evaluated(NOT_STARTED),
                             msg="check mode: would delete %s once the first gate is watched, then wait on %d gate(s)"
                                 % (what, len(module.params["gates"])))
        deletion.update(state="absent", query=obs["query"])
        return deletion, None

    def send():
        answer = delete_object(res, spec["name"], namespace=spec.get("namespace"), uid=spec.get("uid"),
                               propagation_policy=spec.get("propagation_policy"),
                               request_timeout=module.params["request_timeout"])
        deletion.update(answer)
        if answer["state"] == "refused":
            raise DeleteFailed("could not delete %s: %s; nothing was waited for" % (what, answer["query"].get("error")))
        if answer["state"] == UNKNOWN:
            raise DeleteFailed("the deletion of %s got no answer (%s): it may or may not have been applied; "
                               "run again" % (what, answer["query"].get("error")))

    return deletion, send


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True)
    p = module.params
    gates = []
    for g in p["gates"]:
        g = dict(g)
        g["resources"] = [clean_selector(s) for s in g.get("resources") or []]
        gates.append(g)
    errors = validate_gates(gates, p["timeout"])
    if p["request_timeout"] <= 0:
        errors.append("request_timeout: must be more than 0 seconds")
    if p["stall_after"] is not None and p["stall_after"] <= 0:
        errors.append("stall_after: must be more than 0 seconds, got %s" % p["stall_after"])
    if errors:
        module.fail_json(msg="invalid input: " + "; ".join(errors))

    def not_evaluated(state):
        # Every gate still gets a row, so a failed connection reads as "unknown", never as no answer.
        return [{"name": g["name"], "until": g.get("until") or "absent", "state": state} for g in gates]

    try:
        client = api_client(module, request_timeout=p["request_timeout"], caller="wait_gate")
    except ResourceLookupError as e:
        fail_from(module, e, then="absence is not proven", state=UNKNOWN if e.unknown else None,
                  gates=not_evaluated(UNKNOWN if e.unknown else NOT_STARTED),
                  inspect_next=inspect_next(None, state=UNKNOWN) if e.unknown else [])
    except Exception as e:
        fail_from(module, e, what=CLIENT_FAILED)

    resources = []
    for g in gates:
        row = []
        for sel in g["resources"]:
            try:
                res = resolve_resource(client, sel["api_version"], sel["kind"])
            except ResourceLookupError as e:
                fail_from(module, e, what="gate %r" % g["name"], state=UNKNOWN if e.unknown else None,
                          gates=not_evaluated(UNKNOWN if e.unknown else NOT_STARTED))
            if not res.namespaced and sel.get("namespace"):
                module.fail_json(msg="gate %r: namespace given for cluster-scoped kind %s" % (g["name"], sel["kind"]))
            row.append(res)
        resources.append(row)

    deletion, send_delete = prepare_delete(module, client, not_evaluated)

    progress = None
    path = p["progress_file"]
    if not path and os.environ.get("TEARDOWN_GATES_PROGRESS_DIR"):
        path = os.path.join(os.environ["TEARDOWN_GATES_PROGRESS_DIR"], "wait_gate-%d.json" % os.getpid())
    if path:
        progress = ProgressFile(path, len(gates))
    try:
        results, failed = run_gates(gates, resources, p["timeout"], request_timeout=p["request_timeout"],
                                    progress=progress, on_watching=send_delete, stall_after=p["stall_after"])
    except DeleteFailed as e:
        fail_from(module, e, changed=False, deletion=deletion, gates=not_evaluated(NOT_STARTED))
    extra = {"deletion": deletion} if deletion else {}
    changed = deletion.get("state") == "deleted"
    if deletion and "state" not in deletion:
        deletion["state"] = "not_sent"
    if failed is None:
        module.exit_json(changed=changed, gates=results, **extra)

    res = results[failed]
    for rec in res.get("remaining") or []:
        rec["inspect_next"] = inspect_next(rec, state="present")
        rec["kind_label"] = kind_label(rec.get("api_version"), rec.get("kind"))
        why = deleting_condition(rec.get("conditions"))
        if why:
            rec["waiting_for"] = why
    hints = []
    if res["state"] == UNKNOWN:
        hints = inspect_next(None, state="unknown")
        errs = "; ".join("%s %s: %s" % (s.get("kind"), s.get("name") or s.get("label_selector"), s.get("error"))
                         for s in res.get("unknown_selectors") or [])
        msg = ("gate %r: state unknown after %.1f s - the last query failed (%s); absence is not proven"
               % (res["name"], res["duration"], errs))
    else:
        left = res.get("remaining") or []
        how = "timeout" if res["state"] != STALLED else "stalled (no progress since %s: %s)" % (
            res.get("last_progress"), res.get("last_progress_what"))
        msg = "gate %r: %s after %.1f s; %d object(s) hold it: %s" % (
            res["name"], how, res["duration"], len(left), "; ".join(describe(r) for r in left[:10]))
        for rec in left:
            for h in rec["inspect_next"]:
                if h not in hints:
                    hints.append(h)
    if hints:
        msg += ". Inspect next: " + " | ".join(hints[:3])
    if deletion.get("state") == "not_sent":
        msg = "%s was not deleted: the first gate could not be listed in time; %s" % (deletion["what"], msg)
    module.fail_json(msg=msg, changed=changed, gates=results, failed_gate=res["name"], inspect_next=hints, **extra)


if __name__ == "__main__":
    main()
