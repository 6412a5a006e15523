#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: convoy_release_info
short_description: What deleting convoy Releases will do, why a deleting one has not gone, and what stayed
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Reads convoy Releases (C(core.convoy.kumodo.io/v1alpha1)) of one namespace, selected by name, label
    selector or the Cluster they target, and for each returns what its deletion will do - the objects its
    ReleaseInventory records, its delete hooks, C(spec.deletionPolicy.keepWorkloads) - and the Cluster check
    convoy will make (it reads C(status.reachable) only when it must delete objects or run hooks).
  - Warns, per Release, when deleting it now would leave its workloads running and untracked (Cluster not
    reachable, absent, or unknown).
  - For a Release that is being deleted, says why it has not gone from what is observable - a preDelete
    hook Job that failed with C(onFailure=Fail), a deletion step that keeps failing (condition C(Deleting)
    reason C(DeleteStepFailed), Warning events) - and the owner's ways out. Hook Jobs are looked up in the
    Release's C(spec.targetNamespace) on the cluster this module talks to (the in-cluster target).
  - With O(verify_objects), checks each given object's presence (by listing, so a failed query is
    V(unknown), never V(absent)).
  - Sends only reads; runs the same in check mode. A read that meets a transient failure (429, 5xx, a dropped
    connection) is tried again with backoff, at most three times (RV(retried)); one that still fails is
    V(unknown), never V(absent).
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.k8s_request_timeout
options:
  namespace:
    description: The namespace of the Releases (and of the Clusters they reference).
    type: str
    required: true
  names:
    description: Only these Releases. Names not found are returned in RV(absent_names).
    type: list
    elements: str
    default: []
  label_selector:
    description: Only Releases matching this label selector.
    type: str
  cluster_name:
    description: Only Releases whose C(spec.clusterRef.name) is this Cluster.
    type: str
  diagnose:
    description: For deleting Releases, read their hook Jobs and Warning events to say why they have not gone.
    type: bool
    default: true
  find_untracked:
    description:
      - Also list objects on the target labelled C(convoy.kumodo.io/release=<name>), of the kinds the
        inventory records, that the inventory does not record (dropped by a sync with C(prune.orphaned=false));
        convoy does not delete them.
    type: bool
    default: true
  verify_objects:
    description: Objects whose presence to check (keys C(apiVersion), C(kind), C(namespace), C(name)).
    type: list
    elements: dict
    default: []
  verify_plan:
    description:
      - The RV(releases) of an earlier run (the plan, read before the deletion). The module then checks that
        each planned Release and its ReleaseInventory are absent and that each recorded object is absent, and
        returns in RV(verification) what stayed, by name, and why (V(keepWorkloads), V(target_not_reachable),
        V(not_in_inventory), V(release_still_present), V(not_deleted)).
    type: list
    elements: dict
    default: []
notes:
  - Time bound - building the client (C(/version) and discovery) takes at most 3 x O(request_timeout) and
    every later request at most O(request_timeout). Against an API server that accepts and never answers the
    task fails as unknown, naming the server, after about 3 x O(request_timeout).
  - Times are UTC ISO-8601 with milliseconds.
seealso:
  - module: teardown.gates.wait_gate
  - module: kubernetes.core.k8s
"""

EXAMPLES = r"""
- name: Record what the Releases of cluster dev-local manage before deleting them
  teardown.gates.convoy_release_info:
    namespace: default
    cluster_name: dev-local
  register: plan

- name: Say why a deleting Release has not gone
  teardown.gates.convoy_release_info:
    namespace: default
    names: [podinfo]
  register: why

- name: Verify recorded objects are gone
  teardown.gates.convoy_release_info:
    namespace: default
    names: []
    label_selector: "none=none"
    verify_objects:
      - {apiVersion: apps/v1, kind: Deployment, namespace: podinfo, name: podinfo}
"""

RETURN = r"""
releases:
  description: One entry per selected Release (see the module_utils C(convoy.summarize_release) for every key).
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The Release's name.
      type: str
    state:
      description: V(present), V(absent) or V(unknown).
      type: str
    uid:
      description: Its UID.
      type: str
    deleting:
      description: Whether it has a deletionTimestamp.
      type: bool
    cluster_check:
      description: V(reachable), V(unreachable), V(absent), V(unknown), or V(not_needed) (keepWorkloads and no hooks).
      type: str
    keep_workloads:
      description: C(spec.deletionPolicy.keepWorkloads).
      type: bool
    inventory:
      description: The ReleaseInventory's state and recorded entries.
      type: dict
    orphan_warning:
      description: Why deleting it now leaves workloads running and untracked (null when it does not).
      type: str
    orphans:
      description: The recorded objects that would stay untracked.
      type: list
    untracked:
      description: Objects labelled as the Release's that its inventory does not record.
      type: list
    blocked_by:
      description: Failed preDelete hook Jobs whose onFailure is Fail.
      type: list
    diagnosis:
      description: Why a deleting Release has not gone.
      type: list
      elements: str
    ways_out:
      description: What its owner can do.
      type: list
      elements: str
absent_names:
  description: Names asked for in O(names) that no Release has.
  returned: always
  type: list
  elements: str
clusters:
  description: The namespace's Clusters (name, uid, state, reachable, prune_releases, deleting, finalizers).
  returned: always
  type: list
  elements: dict
objects:
  description: O(verify_objects) with C(state) (V(present), V(absent), V(unknown)) and C(error).
  returned: always
  type: list
  elements: dict
verification:
  description:
    - With O(verify_plan) - C(releases) and C(inventories) (name, state), C(stayed) (objects still present, each
      with C(release) and C(why)), C(unverified) (objects whose query failed), C(not_deleted) (present with no
      reason to be - convoy should have deleted them).
  returned: when O(verify_plan) is given
  type: dict
unknown:
  description: Queries that failed (what, error), after the tries a transient failure gets.
  returned: always
  type: list
  elements: dict
retried:
  description:
    - Reads that answered only after a transient failure (429, 5xx, a dropped connection) - C(what) and
      C(retries). A read is tried at most three times, with backoff; one that still fails is in RV(unknown).
  returned: always
  type: list
  elements: dict
query_times:
  description: When the reads started and finished.
  returned: always
  type: dict
"""

import json
import time

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.common_args import request_timeout_spec
from ansible_collections.teardown.gates.plugins.module_utils.timestamps import utc_iso
from ansible_collections.teardown.gates.plugins.module_utils.k8s_client import (
    ResourceLookupError, api_client, missing_permission)
from ansible_collections.teardown.gates.plugins.module_utils.k8s_reads import KubeReads
from ansible_collections.teardown.gates.plugins.module_utils.convoy import (
    ABSENT,
    API_VERSION,
    LABEL_RELEASE,
    LABEL_RELEASE_UID,
    PRESENT,
    UNKNOWN,
    cluster_name,
    prune_releases,
    summarize_release,
    target_namespace,
    what_stayed,
)
from ansible_collections.teardown.gates.plugins.module_utils.errors import CLIENT_FAILED, fail_from


def short_error(e):
    """An API error as `status reason: message`, without the response headers."""
    status = getattr(e, "status", None)
    if status is None:
        return str(e)
    err = "%s %s" % (status, getattr(e, "reason", "") or "")
    if missing_permission(e):
        err += ": " + missing_permission(e)
    try:
        err += ": " + json.loads(e.body).get("message", "")
    except Exception:
        pass
    return err


def new_record():
    """What the reads leave to report besides their answers: the ones that failed (``unknown``) and the ones
    that answered only after a retry (``retried``), each named as the result words it."""
    return {"unknown": [], "retried": []}


def _answer(record, what, read):
    """``read()`` (a KubeReads list or find), noted in ``record``; a kind that could not be found is unknown."""
    try:
        obs = read()
    except ResourceLookupError as e:
        obs = {"state": UNKNOWN, "query": {}, "exception": e.cause if e.cause is not None else e}
    if obs["state"] == UNKNOWN:
        obs["error"] = short_error(obs["exception"])
        record["unknown"].append({"what": what, "error": obs["error"]})
    elif obs["query"].get("attempts", 1) > 1:
        record["retried"].append({"what": what, "retries": obs["query"]["attempts"] - 1})
    return obs


def list_of(reads, record, api_version, kind, namespace=None, label_selector=None, field_selector=None):
    """``{"state": present|unknown, "items", "error"}``; a failed list is unknown, whatever failed."""
    what = "list %s %s in %s%s" % (api_version, kind, namespace or "all namespaces",
                                   " (%s)" % (label_selector or field_selector) if label_selector or field_selector else "")
    obs = _answer(record, what, lambda: reads.list(api_version, kind, namespace, label_selector=label_selector,
                                                   field_selector=field_selector))
    if obs["state"] == UNKNOWN:
        return {"state": UNKNOWN, "items": None, "error": obs["error"]}
    return {"state": PRESENT, "items": obs["items"]}


def presence(reads, record, api_version, kind, name, namespace=None):
    """Presence by listing with a field selector: an empty successful list proves absence."""
    what = "list %s %s in %s (metadata.name=%s)" % (api_version, kind, namespace or "all namespaces", name)
    obs = _answer(record, what, lambda: reads.find(api_version, kind, name, namespace))
    if obs["state"] == UNKNOWN:
        return {"state": UNKNOWN, "object": None, "error": obs["error"]}
    return {"state": obs["state"], "object": obs["object"], "error": None}


def main():
    spec = dict(
        namespace=dict(type="str", required=True),
        names=dict(type="list", elements="str", default=[]),
        label_selector=dict(type="str"),
        cluster_name=dict(type="str"),
        diagnose=dict(type="bool", default=True),
        find_untracked=dict(type="bool", default=True),
        verify_objects=dict(type="list", elements="dict", default=[]),
        verify_plan=dict(type="list", elements="dict", default=[]),
        request_timeout=request_timeout_spec(),
    )
    spec.update(AUTH_ARG_SPEC)
    module = AnsibleK8SModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    if p["request_timeout"] <= 0:
        module.fail_json(msg="request_timeout: must be more than 0 seconds")
    for i, o in enumerate(p["verify_objects"]):
        missing = [k for k in ("apiVersion", "kind", "name") if not o.get(k)]
        if missing:
            module.fail_json(msg="verify_objects[%d]: missing %s" % (i, ", ".join(missing)))
    started = time.time()
    try:
        reads = KubeReads(api_client(module=module, request_timeout=p["request_timeout"], caller="convoy_release_info"),
                          p["request_timeout"], check_mode=module.check_mode)
    except ResourceLookupError as e:
        fail_from(module, e, what="could not create the API client (state unknown, nothing is taken as absent)")
    except Exception as e:
        fail_from(module, e, what=CLIENT_FAILED)
    ns = p["namespace"]
    record = new_record()

    objects = []
    for o in p["verify_objects"]:
        obs = presence(reads, record, o["apiVersion"], o["kind"], o["name"], o.get("namespace"))
        objects.append(dict(o, state=obs["state"], error=obs.get("error")))

    want_releases = bool(p["names"] or p["label_selector"] or p["cluster_name"]) or not (
        p["verify_objects"] or p["verify_plan"])
    releases, absent_names, clusters = [], [], []
    if want_releases:
        listing = list_of(reads, record, API_VERSION, "Release", ns, label_selector=p["label_selector"])
        if listing["state"] == UNKNOWN:
            module.fail_json(msg="could not list the Releases in %s (state unknown, nothing is taken as absent): %s"
                             % (ns, listing["error"]), unknown=record["unknown"], retried=record["retried"], query_times=dict(
                                 started=utc_iso(started), finished=utc_iso()))
        items = listing["items"]
        if p["names"]:
            by_name = dict((r["metadata"]["name"], r) for r in items)
            absent_names = [n for n in p["names"] if n not in by_name]
            items = [by_name[n] for n in p["names"] if n in by_name]
        if p["cluster_name"]:
            items = [r for r in items if cluster_name(r) == p["cluster_name"]]
        cl = list_of(reads, record, API_VERSION, "Cluster", ns)
        inv = list_of(reads, record, API_VERSION, "ReleaseInventory", ns)
        cl_by = dict((c["metadata"]["name"], c) for c in cl["items"] or [])
        inv_by = dict((i["metadata"]["name"], i) for i in inv["items"] or [])
        for c in cl["items"] or []:
            md = c["metadata"]
            clusters.append({"name": md["name"], "uid": md.get("uid"), "state": PRESENT,
                             "reachable": (c.get("status") or {}).get("reachable"),
                             "prune_releases": prune_releases(c), "deleting": bool(md.get("deletionTimestamp")),
                             "finalizers": md.get("finalizers") or []})
        if p["cluster_name"] and cl["state"] == PRESENT and p["cluster_name"] not in cl_by:
            clusters.append({"name": p["cluster_name"], "state": ABSENT})

        def obs_from(listing, by, name):
            if listing["state"] == UNKNOWN:
                return {"state": UNKNOWN, "object": None, "error": listing["error"]}
            return {"state": PRESENT, "object": by[name], "error": None} if name in by else \
                {"state": ABSENT, "object": None, "error": None}

        for r in items:
            md = r["metadata"]
            jobs = events = None
            if p["diagnose"] and md.get("deletionTimestamp"):
                jobs = list_of(reads, record, "batch/v1", "Job", target_namespace(r),
                               label_selector="%s=%s" % (LABEL_RELEASE_UID, md["uid"]))["items"]
                events = list_of(reads, record, "v1", "Event", ns,
                                 field_selector="involvedObject.uid=%s" % md["uid"])["items"]
            s = summarize_release(md["name"], ns, {"state": PRESENT, "object": r},
                                  obs_from(cl, cl_by, cluster_name(r)), obs_from(inv, inv_by, md["name"]), jobs, events)
            s["selector"] = {"api_version": API_VERSION, "kind": "Release", "namespace": ns, "name": md["name"]}
            s["untracked"] = []
            if p["find_untracked"] and s["inventory"]["entries"]:
                recorded = set((e["apiVersion"], e["kind"], e.get("namespace"), e["name"]) for e in s["inventory"]["entries"])
                for av, kind in sorted(set((e["apiVersion"], e["kind"]) for e in s["inventory"]["entries"])):
                    for tns in sorted(set(e.get("namespace") for e in s["inventory"]["entries"] if e["kind"] == kind)):
                        found = list_of(reads, record, av, kind, tns, label_selector="%s=%s" % (LABEL_RELEASE, md["name"]))
                        for o in found["items"] or []:
                            key = (av, kind, o["metadata"].get("namespace"), o["metadata"]["name"])
                            if key not in recorded:
                                s["untracked"].append({"apiVersion": av, "kind": kind, "namespace": key[2],
                                                       "name": key[3]})
            releases.append(s)

    result = {}
    if p["verify_plan"]:
        result["verification"] = verify(reads, record, p["verify_plan"])
    module.exit_json(changed=False, releases=releases, absent_names=absent_names, clusters=clusters,
                     objects=objects, unknown=record["unknown"], retried=record["retried"],
                     query_times=dict(started=utc_iso(started), finished=utc_iso()), **result)


def verify(reads, record, plan):
    """Each planned Release, its inventory and its recorded (and untracked) objects: present, absent or unknown."""
    rel_states, inv_states, obj_states = {}, {}, {}
    for r in plan:
        if r.get("state") != PRESENT:
            continue
        ns = r.get("namespace")
        rel = presence(reads, record, API_VERSION, "Release", r["name"], ns)
        if rel["state"] == PRESENT and rel["object"]["metadata"].get("uid") != r.get("uid"):
            rel = {"state": ABSENT, "object": None, "error": None, "recreated_uid": rel["object"]["metadata"].get("uid")}
        rel_states[r["name"]] = rel["state"]
        inv_states[r["name"]] = presence(reads, record, API_VERSION, "ReleaseInventory", r["name"], ns)["state"]
        for e in list((r.get("inventory") or {}).get("entries") or []) + list(r.get("untracked") or []):
            key = (e["apiVersion"], e["kind"], e.get("namespace"), e["name"])
            if key not in obj_states:
                obj_states[key] = presence(reads, record, e["apiVersion"], e["kind"], e["name"],
                                           e.get("namespace"))["state"]
    out = what_stayed(plan, obj_states, rel_states)
    out["releases"] = [{"name": n, "state": s} for n, s in sorted(rel_states.items())]
    out["inventories"] = [{"name": n, "state": s} for n, s in sorted(inv_states.items())]
    return out


if __name__ == "__main__":
    main()
