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
  min_age:
    description:
      - Keep out Releases created less than this long ago (C(metadata.creationTimestamp)) - seconds, or a duration
        such as V(90m), V(24h), V(1d12h). They are listed in RV(protected) with the reason, like a Release labelled
        C(teardown.gates/protected=true), and not in RV(releases). V(0), the default, keeps none for its age.
      - A negative value or one that is not a duration fails before any request, naming C(min_age).
    type: raw
    default: 0
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
extends_documentation_fragment: [teardown.gates.k8s_request_timeout, kubernetes.core.k8s_auth_options]
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
protected:
  description:
    - The Releases kept out of every plan, left out of RV(releases) so that no plan deletes or waits on them - those
      labelled C(teardown.gates/protected=true) and those created less than O(min_age) ago, each with C(name),
      C(namespace), C(uid), C(cluster) (its Cluster's name) and C(reason) (V(labelled teardown.gates/protected), or
      V(created <time>, less than min_age (<n> s\) ago)).
  returned: always
  type: list
  elements: dict
  sample: [{"name": "payments", "namespace": "team-a", "uid": "0b1c", "cluster": "prod", "reason": "labelled teardown.gates/protected"}]
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

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.drivers import convoy_release_info as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module


def main():
    module = AnsibleK8SModule(argument_spec=k8s_argument_spec(
        namespace=dict(type="str", required=True),
        names=dict(type="list", elements="str", default=[]),
        label_selector=dict(type="str"),
        cluster_name=dict(type="str"),
        diagnose=dict(type="bool", default=True),
        min_age=dict(type="raw", default=0),
        find_untracked=dict(type="bool", default=True),
        verify_objects=dict(type="list", elements="dict", default=[]),
        verify_plan=dict(type="list", elements="dict", default=[]),
    ), supports_check_mode=True)
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
