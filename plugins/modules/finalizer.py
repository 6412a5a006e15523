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
  - Check mode sends no mutating request; C(--diff) shows the finalizers before and after.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.k8s_request_timeout
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
  api_version:
    description: API version of the object, for example C(v1) or C(hypershift.openshift.io/v1beta1).
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
    description: Namespace of the object (ignored for cluster-scoped kinds).
    type: str
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
"""

EXAMPLES = r"""
- name: Drop the CLI's destroy finalizer once its work is done (the HostedCluster is deleting)
  teardown.gates.finalizer:
    api_version: hypershift.openshift.io/v1beta1
    kind: HostedCluster
    namespace: clusters
    name: demo
    finalizer: openshift.io/destroy-cluster
    expected_uid: "{{ hc_uid }}"

- name: Add our own finalizer before deleting (a deleting object refuses it)
  teardown.gates.finalizer:
    api_version: hypershift.openshift.io/v1beta1
    kind: HostedCluster
    namespace: clusters
    name: demo
    finalizer: openshift.io/destroy-cluster
    state: present
  register: add_fin
  failed_when: add_fin is failed and add_fin.refused | default('') != 'object_deleting'

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

import traceback

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.common_args import request_timeout_spec
from ansible_collections.teardown.gates.plugins.module_utils.finalizers import (
    apply_with_retry,
    build_patch,
    desired_finalizers,
    is_deleting_refusal,
    namespace_finalize_body,
    validate_finalizer_name,
)
from ansible_collections.teardown.gates.plugins.module_utils.bounds import k8s_timeout
from ansible_collections.teardown.gates.plugins.module_utils.k8s_client import (
    ResourceLookupError, api_client, resolve_resource)
from ansible_collections.teardown.gates.plugins.module_utils.k8s_observe import ABSENT, UNKNOWN, get_object, patch_object
from ansible_collections.teardown.gates.plugins.module_utils.errors import CLIENT_FAILED, fail_from, TeardownGatesError


class Refused(TeardownGatesError):
    def __init__(self, reason, msg):
        super(Refused, self).__init__(msg)
        self.reason = reason


class QueryFailed(TeardownGatesError):
    unknown = True  # the object could not be read: its state is unknown

    def __init__(self, obs):
        super(QueryFailed, self).__init__(obs["query"].get("error"))
        self.obs = obs


def argument_spec():
    spec = dict(
        state=dict(type="str", choices=["present", "absent"], default="absent"),
        finalizer=dict(type="list", elements="str", required=True, aliases=["finalizers"]),
        api_version=dict(type="str", default="v1"),
        kind=dict(type="str", required=True),
        name=dict(type="str", required=True),
        namespace=dict(type="str"),
        only_if_deleting=dict(type="bool"),
        expected_uid=dict(type="str"),
        scope=dict(type="str", choices=["metadata", "spec"], default="metadata"),
        retries=dict(type="int", default=5),
        request_timeout=request_timeout_spec(),
    )
    spec.update(AUTH_ARG_SPEC)
    return spec


def validate(params):
    """Input errors, each naming the option; empty when the input is valid."""
    errors = []
    if not params["finalizer"]:
        errors.append("finalizer: give at least one finalizer")
    for f in params["finalizer"] or []:
        why = validate_finalizer_name(f)
        if why:
            errors.append("finalizer: %s" % why)
    if params["retries"] < 1:
        errors.append("retries: must be 1 or more, got %d" % params["retries"])
    if params["request_timeout"] <= 0:
        errors.append("request_timeout: must be more than 0 seconds")
    if params["scope"] == "spec" and (params["kind"] != "Namespace" or params["api_version"] != "v1"):
        errors.append("scope: spec is only for kind Namespace, api_version v1 (its spec.finalizers)")
    if params["only_if_deleting"] and params["state"] == "present":
        errors.append("only_if_deleting: applies to state=absent only")
    return errors


def current_list(obj, scope):
    if scope == "spec":
        return list((obj.get("spec") or {}).get("finalizers") or [])
    return list((obj.get("metadata") or {}).get("finalizers") or [])


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True)
    p = module.params
    errors = validate(p)
    if errors:
        module.fail_json(msg="invalid input: " + "; ".join(errors))
    names = p["finalizer"]
    state = p["state"]
    scope = p["scope"]
    only_if_deleting = p["only_if_deleting"]
    if only_if_deleting is None:
        only_if_deleting = state == "absent"
    where = "%s %s%s" % (p["kind"], (p["namespace"] + "/") if p["namespace"] else "", p["name"])

    try:
        client = api_client(module, request_timeout=p["request_timeout"], caller="finalizer")
        resource = resolve_resource(client, p["api_version"], p["kind"])
    except ResourceLookupError as e:
        if e.unknown:
            fail_from(module, e, what=where, then="its state is unknown, nothing was changed", object_state=UNKNOWN)
        fail_from(module, e, what="kind")
    except Exception as e:
        fail_from(module, e, what=CLIENT_FAILED)
    if resource.namespaced and not p["namespace"]:
        module.fail_json(msg="namespace: required, %s %s is namespaced" % (p["api_version"], p["kind"]))

    result = dict(changed=False, attempts=0)
    last = {}

    def fetch():
        obs = get_object(resource, p["name"], p["namespace"], request_timeout=p["request_timeout"])
        last["obs"] = obs
        if obs["state"] == UNKNOWN:
            raise QueryFailed(obs)
        return obs["object"]

    def compute(obj):
        if obj is None:
            return None
        meta = obj.get("metadata") or {}
        current = current_list(obj, scope)
        if p["expected_uid"] and meta.get("uid") != p["expected_uid"]:
            raise Refused("uid_mismatch", "expected_uid: %s has uid %s, not the expected %s: it was recreated; "
                          "refusing to touch it" % (where, meta.get("uid"), p["expected_uid"]))
        wanted = desired_finalizers(current, names, state)
        if wanted == current:
            return None
        if state == "absent" and only_if_deleting and not meta.get("deletionTimestamp"):
            raise Refused("not_deleting", "%s is not being deleted (no deletionTimestamp): refusing to remove %s "
                          "(only_if_deleting is true; set it to false to remove a finalizer from a live object)"
                          % (where, ", ".join(f for f in names if f in current)))
        if state == "present" and meta.get("deletionTimestamp"):
            raise Refused("object_deleting", "%s is being deleted (deletionTimestamp %s): the API refuses new "
                          "finalizers on a deleting object; %s not added"
                          % (where, meta.get("deletionTimestamp"), ", ".join(f for f in names if f not in current)))
        if scope == "spec":
            return namespace_finalize_body(obj, names, state)
        return build_patch(obj, names, state)

    def send(obj, payload):
        result["attempts"] += 1
        if module.check_mode:
            return None
        if scope == "spec":
            path = "/api/v1/namespaces/%s/finalize" % p["name"]
            return client.client.request("put", path, body=payload,
                                         _request_timeout=k8s_timeout(p["request_timeout"])).to_dict()
        return patch_object(resource, p["name"], payload, namespace=p["namespace"], request_timeout=p["request_timeout"])

    try:
        before, after, rounds = apply_with_retry(fetch, compute, send, attempts=p["retries"])
    except QueryFailed as e:
        # str(e) is the query's error (QueryFailed's message)
        fail_from(module, e, what="could not read %s" % where, then="its state is unknown, nothing was changed",
                  object_state=UNKNOWN, query=e.obs["query"], **result)
    except Refused as e:
        obj = (last.get("obs") or {}).get("object") or {}
        meta = obj.get("metadata") or {}
        fail_from(module, e, refused=e.reason, object_state="present", uid=meta.get("uid"),
                  resource_version=meta.get("resourceVersion"), deletion_timestamp=meta.get("deletionTimestamp"),
                  finalizers_before=current_list(obj, scope), finalizers_after=current_list(obj, scope),
                  query=last["obs"]["query"], **result)
    except Exception as e:
        if is_deleting_refusal(e):
            module.fail_json(msg="%s is being deleted: the API refused the new finalizer (%s)" % (where, e),
                             refused="object_deleting", **result)
        module.fail_json(msg="could not change the finalizers of %s: %s" % (where, getattr(e, "body", None) or e),
                         exception=traceback.format_exc(), query=(last.get("obs") or {}).get("query"), **result)

    result["query"] = last["obs"]["query"]
    result["attempts"] = max(result["attempts"], 1)
    if before is None:
        if state == "present":
            module.fail_json(msg="%s does not exist (a successful read answered 404): cannot add a finalizer" % where,
                             refused="absent", object_state=ABSENT, finalizers_before=[], finalizers_after=[], **result)
        module.exit_json(object_state=ABSENT, finalizers_before=[], finalizers_after=[],
                         msg="%s is absent: no finalizer to remove" % where, **result)

    fin_before = current_list(before, scope)
    if after is None and compute(before) is not None:  # check mode: predict
        fin_after = desired_finalizers(fin_before, names, state)
        src = before
    elif after is None:
        fin_after = fin_before
        src = before
    else:
        fin_after = current_list(after, scope)
        src = after
    meta = src.get("metadata") or {}
    result.update(
        object_state="present",
        changed=fin_after != fin_before,
        uid=meta.get("uid"),
        resource_version=meta.get("resourceVersion"),
        deletion_timestamp=meta.get("deletionTimestamp"),
        finalizers_before=fin_before,
        finalizers_after=fin_after,
    )
    if module._diff:
        key = "spec.finalizers" if scope == "spec" else "metadata.finalizers"
        result["diff"] = {"before": {key: fin_before}, "after": {key: fin_after},
                          "before_header": where, "after_header": where}
    module.exit_json(**result)


if __name__ == "__main__":
    main()
