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
  - O(objects) reads several objects in one run (one client, one discovery), for example a verification
    that several objects are gone; each gets the same answer as a single read, in RV(objects).
notes:
  - Time bound - building the client (C(/version) and discovery) takes at most 3 x O(request_timeout) and
    every later request at most O(request_timeout). Against an API server that accepts and never answers the
    task fails as unknown, naming the server, after about 3 x O(request_timeout); a single read that times out
    is an unknown answer, not a failure.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.k8s_request_timeout
options:
  api_version:
    description: API version of the object.
    type: str
    default: v1
  kind:
    description: Kind of the object. Required unless O(objects) is given.
    type: str
  name:
    description: Name of the object. Required with O(kind).
    type: str
  namespace:
    description: Namespace of the object (required for namespaced kinds).
    type: str
  objects:
    description:
      - Several objects to read instead of one (mutually exclusive with O(kind) and O(name)); the answers
        are in RV(objects), in the same order.
      - O(dependents) and O(request_timeout) apply to each.
    type: list
    elements: dict
    suboptions:
      api_version:
        description: API version of the object.
        type: str
        default: v1
      kind:
        description: Kind of the object.
        type: str
        required: true
      name:
        description: Name of the object.
        type: str
        required: true
      namespace:
        description: Namespace of the object (required for namespaced kinds).
        type: str
  dependents:
    description:
      - Look for dependents (objects whose C(ownerReferences) name this object's UID) by listing every
        listable kind in the object's namespace (or every cluster-scoped kind for a cluster-scoped object).
      - Set V(false) to skip these lists on large clusters.
    type: bool
    default: true
seealso:
  - module: teardown.gates.wait_gate
  - module: teardown.gates.finalizer
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

- name: Are the HostedCluster and its control-plane namespace gone? (one run, two reads)
  teardown.gates.deletion_info:
    dependents: false
    objects:
      - {api_version: hypershift.openshift.io/v1beta1, kind: HostedCluster, namespace: clusters, name: demo}
      - {kind: Namespace, name: clusters-demo}
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
objects:
  description:
    - With O(objects), one answer per object, in the order given. Each holds RV(state), RV(query), RV(deleting),
      RV(finalizers), RV(conditions), RV(inspect_next) and, as for a single read, RV(object), RV(owners),
      RV(dependents), RV(dependents_complete) and RV(namespace) when they apply, plus C(item) (the object asked for).
    - The top-level RV(state) is then the worst of them (V(unknown), else V(present), else V(absent)).
  returned: when O(objects) is given
  type: list
  elements: dict
"""


from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.common_args import request_timeout_spec
from ansible_collections.teardown.gates.plugins.module_utils.diagnosis import finalizer_owner, inspect_next
from ansible_collections.teardown.gates.plugins.module_utils.k8s_client import (
    ResourceLookupError, api_client, resolve_resource)
from ansible_collections.teardown.gates.plugins.module_utils.k8s_observe import (
    PRESENT, UNKNOWN, get_object, list_contents, object_summary)
from ansible_collections.teardown.gates.plugins.module_utils.errors import CLIENT_FAILED, fail_from, TeardownGatesError

NS_CONTENT_CONDITIONS = ("NamespaceContentRemaining", "NamespaceFinalizersRemaining")


def argument_spec():
    spec = dict(
        api_version=dict(type="str", default="v1"),
        kind=dict(type="str"),
        name=dict(type="str"),
        namespace=dict(type="str"),
        objects=dict(type="list", elements="dict", options=dict(
            api_version=dict(type="str", default="v1"),
            kind=dict(type="str", required=True),
            name=dict(type="str", required=True),
            namespace=dict(type="str"),
        )),
        dependents=dict(type="bool", default=True),
        request_timeout=request_timeout_spec(),
    )
    spec.update(AUTH_ARG_SPEC)
    return spec


def namespace_report(ns_obj, contents):
    """Compare a Namespace's conditions with its listed contents; say which to believe."""
    summary = object_summary(ns_obj)
    conds = summary["conditions"]
    by_type = dict((c.get("type"), c) for c in conds)
    content_conds = [by_type[t] for t in NS_CONTENT_CONDITIONS if t in by_type]
    conditions_say_empty = None
    if content_conds:
        conditions_say_empty = all(c.get("status") == "False" for c in content_conds)
    items = contents["items"]
    listing_says_empty = (not items) if contents["ok"] else None
    if not contents["ok"]:
        believe, note = "unknown", ("some lists failed (%s): the contents are incomplete; do not conclude the "
                                    "namespace is empty" % "; ".join(contents["errors"][:3]))
    elif conditions_say_empty and items:
        believe, note = "listing", ("the conditions report no remaining content but %d object(s) are listed: "
                                    "believe the listing" % len(items))
    else:
        believe, note = "listing", "the listing is the direct observation; conditions only summarise it"
    disc = by_type.get("NamespaceDeletionDiscoveryFailure")
    if disc and disc.get("status") == "True":
        note += "; NamespaceDeletionDiscoveryFailure is True: the namespace controller cannot list some kinds"
    return {
        "phase": (ns_obj.get("status") or {}).get("phase"),
        "conditions": conds,
        "spec_finalizers": list((ns_obj.get("spec") or {}).get("finalizers") or []),
        "contents": items,
        "contents_count": len(items),
        "contents_complete": contents["ok"],
        "contents_query": contents["query"],
        "conditions_say_empty": conditions_say_empty,
        "listing_says_empty": listing_says_empty,
        "believe": believe,
        "note": note,
    }


class InputError(TeardownGatesError):
    """Bad input for one object (kind not served, namespace missing): the task fails."""


def read_one(client, p, request_timeout, dependents):
    """The answer for one object (``p``: api_version, kind, name, namespace) as a result dict.

    ``client`` is the API client, or a ResourceLookupError raised while building it. Raises
    InputError for what the caller must fix.
    """
    where = "%s %s%s" % (p["kind"], (p["namespace"] + "/") if p["namespace"] else "", p["name"])
    try:
        if isinstance(client, ResourceLookupError):
            raise client
        resource = resolve_resource(client, p["api_version"], p["kind"])
    except ResourceLookupError as e:
        if e.unknown:  # the server did not answer discovery: report unknown, like a failed read
            return dict(msg="%s: %s; its state is unknown, not absent" % (where, e), state=UNKNOWN,
                        deleting=False, finalizers=[], conditions=[], query={"ok": False, "error": str(e)},
                        inspect_next=inspect_next(None, state=UNKNOWN))
        raise InputError("kind: %s" % e)
    if resource.namespaced and not p["namespace"]:
        raise InputError("namespace: required, %s %s is namespaced" % (p["api_version"], p["kind"]))

    obs = get_object(resource, p["name"], p["namespace"], request_timeout=request_timeout)
    result = dict(state=obs["state"], query=obs["query"], deleting=False, finalizers=[],
                  conditions=[], inspect_next=inspect_next(obs["object"], state=obs["state"]))
    if obs["state"] != PRESENT:
        if obs["state"] == UNKNOWN:
            result["msg"] = "could not read %s (%s): its state is unknown, not absent" % (where, obs["query"].get("error"))
        return result

    obj = obs["object"]
    summary = object_summary(obj)
    summary["api_version"] = summary["api_version"] or p["api_version"]
    summary["kind"] = summary["kind"] or p["kind"]
    meta = obj.get("metadata") or {}
    result.update(
        deleting=bool(meta.get("deletionTimestamp")),
        object=dict((k, v) for k, v in summary.items() if k not in ("finalizers", "conditions")),
        finalizers=[finalizer_owner(f) for f in summary["finalizers"]],
        conditions=summary["conditions"],
        owners=[dict((k, r.get(k)) for k in ("apiVersion", "kind", "name", "uid", "blockOwnerDeletion", "controller"))
                for r in meta.get("ownerReferences") or []],
    )
    hints = inspect_next(obj, state=PRESENT)

    contents = None
    if p["kind"] == "Namespace" and p["api_version"] == "v1":
        contents = list_contents(client.client, namespace=p["name"], request_timeout=request_timeout)
        result["namespace"] = namespace_report(obj, contents)
        left = [c for c in contents["items"] if c.get("finalizers") or c.get("deletion_timestamp")]
        if left:
            hints.insert(0, "Objects left in the namespace with finalizers or still terminating: %s" % ", ".join(
                "%s %s (%s)" % (c["kind"], c["name"], ", ".join(c["finalizers"]) or "terminating") for c in left[:10]))
        if not contents["ok"]:
            hints.insert(0, inspect_next(None, state=UNKNOWN)[0])
    if dependents:
        scope = p["namespace"] if resource.namespaced else None
        pool = list_contents(client.client, namespace=scope, request_timeout=request_timeout)
        deps = [c for c in pool["items"] if meta.get("uid") in (c.get("owner_uids") or [])]
        result["dependents"] = [dict((k, v) for k, v in d.items() if k != "owner_uids") for d in deps]
        result["dependents_complete"] = pool["ok"]
        if deps and result["deleting"]:
            hints.append("Dependents remain (%d): %s; the garbage collector or their owners delete them first "
                         "with foreground deletion." % (len(deps), ", ".join("%s %s" % (d["kind"], d["name"]) for d in deps[:10])))
    result["inspect_next"] = hints
    return result


def worst_state(states):
    for s in (UNKNOWN, PRESENT):
        if s in states:
            return s
    return states[0] if states else UNKNOWN


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True,
                              required_one_of=[("kind", "objects")], required_together=[("kind", "name")],
                              mutually_exclusive=[("kind", "objects"), ("name", "objects")])
    p = module.params
    if p["request_timeout"] <= 0:
        module.fail_json(msg="invalid input: request_timeout: must be more than 0 seconds")
    wanted = p["objects"] if p["objects"] is not None else [
        dict(api_version=p["api_version"], kind=p["kind"], name=p["name"], namespace=p["namespace"])]
    if not wanted:
        module.fail_json(msg="invalid input: objects: give at least one object")
    try:
        client = api_client(module, request_timeout=p["request_timeout"], caller="deletion_info")
    except ResourceLookupError as e:
        if not e.unknown:
            fail_from(module, e, what="kind")
        client = e  # every read is then unknown, never absent
    except Exception as e:
        fail_from(module, e, what=CLIENT_FAILED)
    answers = []
    for n, item in enumerate(wanted):
        try:
            answers.append(read_one(client, item, p["request_timeout"], p["dependents"]))
        except InputError as e:
            fail_from(module, e, what=("objects[%d]" % n) if p["objects"] is not None else None)
    # The API server did not answer within the client's bound: every answer is unknown, and the task fails
    # (a read that could not be sent is not an answer); a single read that timed out stays an unknown answer.
    finish = module.fail_json if isinstance(client, ResourceLookupError) else module.exit_json
    if p["objects"] is None:
        finish(changed=False, **answers[0])
    for item, answer in zip(wanted, answers):
        answer["item"] = dict((k, v) for k, v in item.items() if v is not None)
    extra = {"msg": "%s" % client} if isinstance(client, ResourceLookupError) else {}
    extra["inspect_next"] = [h for a in answers for h in a["inspect_next"]][:10]
    finish(changed=False, state=worst_state([a["state"] for a in answers]), objects=answers, **extra)


if __name__ == "__main__":
    main()
