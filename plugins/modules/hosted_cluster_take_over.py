#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: hosted_cluster_take_over
short_description: Finish a deleting HostedCluster's operator cleanup when the HyperShift operator is down, releasing its finalizers only on verified absence
version_added: 0.4.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - For a HostedCluster that is being deleted while the hypershift-operator (the HostedCluster and NodePool
    controllers, one process) makes no progress, does that operator's remaining part of the teardown, by ID,
    the way the operator would, and then removes exactly its finalizers.
  - "O(part=operator): requests deletion of the NodePools; per NodePool deletes its MachineDeployments and
    MachineSets and waits until none of its Machines remains (Cluster API and its infrastructure provider delete
    them), then removes C(hypershift.openshift.io/finalizer) from it; requests deletion of the CAPI Cluster named
    after the infra ID (first copying the HostedCluster's C(hypershift.openshift.io/cleanup-cloud-resources) annotation
    to the HostedControlPlane, as the operator does, so that the guest's cloud resources are removed), the
    AWSEndpointServices, the HostedControlPlane and (unless the HostedCluster's skip annotation is C(true)) the HCP
    namespace, waiting for each in turn; then removes
    C(hypershift.openshift.io/finalizer) from the HostedCluster."
  - "O(part=oidc_finalizer): removes C(hypershift.io/aws-oidc-discovery) from the HostedCluster once the AWS
    phase has verified its OIDC documents gone (O(aws_cleanup) and O(aws_manifest) are that evidence)."
  - A finalizer comes off only after a successful read shows what it guards absent, through a JSON patch that
    tests the object's UID and the value at the finalizer's index. What remains at O(timeout) is named in
    RV(blockers) with its finalizers and their owners; no finalizer that guards it is removed, and the task fails.
  - A read that fails is unknown, never absent, and fails the task. A HostedCluster that is not deleting, or whose
    UID is not O(uid), is not touched.
  - In check mode only reads are sent; RV(planned) says what would be deleted and which finalizers would come off.
notes:
  - Time bound - building the client takes at most 3 x O(request_timeout); the waits together take at most
    O(timeout), each request at most O(request_timeout), so the task ends within about
    O(timeout) + 4 x O(request_timeout). Against an API server that accepts and never answers it fails as unknown,
    naming the server, after about 3 x O(request_timeout).
  - The rules it follows are HyperShift's (C(hostedcluster_controller.go) C(delete()), C(nodepool_controller.go)
    C(delete())); docs/runbook-destroy-hosted-cluster.md has the take-over section.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.hosted_cluster
  - teardown.gates.k8s_request_timeout
options:
  namespace:
    description: The HostedCluster's namespace.
    type: str
    required: true
  uid:
    description: The HostedCluster's UID (from the baseline); a HostedCluster with another UID is not touched.
    type: str
    required: true
  infra_id:
    description: Its infra ID (the CAPI Cluster's name).
    type: str
    required: true
  hcp_namespace:
    description: The HCP namespace (C(<namespace>-<name>) by default).
    type: str
  part:
    description: Which part to take over (see the description).
    type: str
    choices: [operator, oidc_finalizer]
    default: operator
  stalled_gate:
    description:
      - What showed the operator down or stalled (a C(teardown.gates.wait_gate) gate result with state
        V(stalled)); recorded in RV(taken_over) as the reason.
    type: dict
  aws_cleanup:
    description: With O(part=oidc_finalizer), the C(resources) that C(teardown.gates.aws_infra_cleanup) returned in this run.
    type: list
    elements: dict
  aws_manifest:
    description: With O(part=oidc_finalizer), the baseline's manifest (resource type -> IDs) the AWS phase worked from.
    type: dict
  oidc_bucket:
    description: With O(part=oidc_finalizer), the bucket that holds the C(<infra_id>/) OIDC documents.
    type: str
  timeout:
    description: Seconds the waits may take together.
    type: float
    default: 600
  poll_interval:
    description: Seconds between two reads of what a wait waits for.
    type: float
    default: 2
"""

EXAMPLES = r"""
- name: Take over the HyperShift operator's cleanup of clusters/demo
  teardown.gates.hosted_cluster_take_over:
    name: demo
    namespace: clusters
    uid: "{{ baseline.uid }}"
    infra_id: demo-x7k2p
    timeout: 900
"""

RETURN = r"""
taken_over:
  description:
    - C(owner) (the hypershift-operator), C(part), C(reason) (what showed it stalled - the gate, since when no
      progress, what the last progress was), C(started), C(ended), C(verified) (nothing blocks), C(error) (a failed
      read, or null), and RV(finalizers_removed) and RV(blockers) again, so that the report takes this one dict.
  returned: always
  type: dict
finalizers_removed:
  description:
    - One entry per finalizer removed - C(object) (api_version, kind, namespace, name), C(uid), C(finalizer),
      C(owner), C(taken_over_from), C(evidence) (what was verified absent, and when) and C(at).
  returned: always
  type: list
  elements: dict
blockers:
  description:
    - What remained at O(timeout) - kind, kind_label, namespace, name, uid, finalizers (each with its owner),
      waiting_for (a C(Deleting) condition) and C(guarded_by) (the finalizer that therefore stays).
  returned: always
  type: list
  elements: dict
steps:
  description: What was done and observed, in order (at, step, detail).
  returned: always
  type: list
  elements: dict
inspect_next:
  description: Per blocker, what to look at - the object, its finalizers' owners, and the finalizer that stays.
  returned: always
  type: list
  elements: str
planned:
  description: In check mode, what would be deleted, waited for and released.
  returned: always
  type: list
  elements: str
"""

import time

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.common_args import request_timeout_spec
from ansible_collections.teardown.gates.plugins.module_utils.finalizers import apply_with_retry, build_remove_patch
from ansible_collections.teardown.gates.plugins.module_utils.k8s_client import (
    ResourceLookupError, api_client, resolve_resource)
from ansible_collections.teardown.gates.plugins.module_utils.k8s_observe import (
    delete_object, get_object, list_objects, patch_object, utc_iso)
from ansible_collections.teardown.gates.plugins.module_utils.take_over import (
    OWNER,
    TakeOver,
    Unknown,
    blocker_text,
    oidc_evidence,
)
from ansible_collections.teardown.gates.plugins.module_utils.errors import CLIENT_FAILED, fail_from


def argument_spec():
    spec = dict(
        name=dict(type="str", required=True),
        namespace=dict(type="str", required=True),
        uid=dict(type="str", required=True),
        infra_id=dict(type="str", required=True),
        hcp_namespace=dict(type="str"),
        part=dict(type="str", choices=["operator", "oidc_finalizer"], default="operator"),
        stalled_gate=dict(type="dict"),
        aws_cleanup=dict(type="list", elements="dict"),
        aws_manifest=dict(type="dict"),
        oidc_bucket=dict(type="str"),
        timeout=dict(type="float", default=600),
        request_timeout=request_timeout_spec(),
        poll_interval=dict(type="float", default=2),
    )
    spec.update(AUTH_ARG_SPEC)
    return spec


class Kube(object):
    """The reads and writes TakeOver needs, each bounded by request_timeout."""

    def __init__(self, client, request_timeout):
        self.client, self.rt, self._res = client, request_timeout, {}

    def resource(self, api_version, kind):
        key = (api_version, kind)
        if key not in self._res:
            try:
                self._res[key] = resolve_resource(self.client, api_version, kind)
            except ResourceLookupError as e:
                raise Unknown(str(e))
        return self._res[key]

    def list(self, api_version, kind, namespace=None):
        return list_objects(self.resource(api_version, kind), namespace=namespace, request_timeout=self.rt, attempts=3)

    def get(self, api_version, kind, name, namespace=None):
        return get_object(self.resource(api_version, kind), name, namespace, request_timeout=self.rt, attempts=3)

    def delete(self, api_version, kind, name, namespace, uid):
        return delete_object(self.resource(api_version, kind), name, namespace=namespace, uid=uid,
                             request_timeout=self.rt)

    def annotate(self, api_version, kind, name, namespace, uid, key, value):
        """One annotation, by a JSON patch that tests the UID first (the object's other annotations stay)."""
        res = self.resource(api_version, kind)
        r = get_object(res, name, namespace, request_timeout=self.rt, attempts=3)
        if r["state"] != "present":
            return {"state": r["state"], "error": r["query"].get("error") or "not found"}
        meta = r["object"].get("metadata") or {}
        if meta.get("uid") != uid:
            return {"state": "refused", "error": "%s %s was recreated (uid %s)" % (kind, name, meta.get("uid"))}
        ops = [{"op": "test", "path": "/metadata/uid", "value": uid}]
        if meta.get("annotations") is None:
            ops.append({"op": "add", "path": "/metadata/annotations", "value": {key: value}})
        else:
            ops.append({"op": "add", "path": "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1"),
                        "value": value})
        try:
            patch_object(res, name, ops, namespace=namespace, request_timeout=self.rt)
        except Exception as e:  # pylint: disable=broad-except
            return {"state": "refused" if getattr(e, "status", None) else "unknown",
                    "error": "%s" % (getattr(e, "reason", None) or e)}
        return {"state": "done"}

    def remove_finalizers(self, api_version, kind, name, namespace, uid, names):
        res = self.resource(api_version, kind)
        seen = {}

        def fetch():
            r = get_object(res, name, namespace, request_timeout=self.rt, attempts=3)
            if r["state"] == "unknown":
                raise Unknown("could not read %s %s: %s" % (kind, name, r["query"].get("error")))
            seen["obj"] = r["object"]
            return r["object"] or {}

        def compute(obj):
            if not obj:
                return None
            if (obj.get("metadata") or {}).get("uid") != uid:
                raise Unknown("%s %s has uid %s, not %s: it was recreated; not touched" % (
                    kind, name, (obj.get("metadata") or {}).get("uid"), uid))
            return build_remove_patch(obj, names) or None

        def send(obj, payload):
            return patch_object(res, name, payload, namespace=namespace, request_timeout=self.rt)

        try:
            dummy, after, dummy2 = apply_with_retry(fetch, compute, send)
        except Unknown as e:
            return {"state": "unknown", "error": str(e)}
        except Exception as e:  # pylint: disable=broad-except
            status = getattr(e, "status", None)
            error = "%s" % (getattr(e, "reason", None) or e)
            if status:
                return {"state": "refused", "error": error}
            # no answer: the patch may have been applied. A re-read that shows the finalizer gone from the same
            # object makes it ours, and it is recorded as removed, so the report does not lose it
            r = get_object(res, name, namespace, request_timeout=self.rt, attempts=3)
            meta = (r["object"] or {}).get("metadata") or {}
            if r["state"] == "absent":
                return {"state": "removed", "note": "the answer was lost (%s); a re-read finds the object gone" % error}
            if r["state"] == "present" and meta.get("uid") == uid and not set(names) & set(meta.get("finalizers") or []):
                return {"state": "removed", "note": "the answer was lost (%s); a re-read shows it gone" % error}
            return {"state": "unknown", "error": error}
        if after is None:
            return {"state": "absent" if not seen.get("obj") else "not_held"}
        return {"state": "removed"}


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True)
    p = module.params
    errors = []
    for opt in ("timeout", "request_timeout", "poll_interval"):
        if p[opt] <= 0:
            errors.append("%s: must be more than 0 seconds, got %s" % (opt, p[opt]))
    for opt in ("name", "namespace", "uid", "infra_id"):
        if not p[opt]:
            errors.append("%s: required, not empty" % opt)
    if errors:
        module.fail_json(msg="invalid input, nothing changed: " + "; ".join(errors))
    hcp_ns = p["hcp_namespace"] or "%s-%s" % (p["namespace"], p["name"].replace(".", "-"))
    gate = p["stalled_gate"] or {}
    reason = {"gate": gate.get("name"), "state": gate.get("state"), "last_progress": gate.get("last_progress"),
              "last_progress_what": gate.get("last_progress_what"),
              "held_by": ["%s %s/%s" % (r.get("kind"), r.get("namespace") or "", r.get("name"))
                          for r in (gate.get("remaining") or [])[:10]]} if gate else {}
    taken = {"owner": OWNER, "part": p["part"], "reason": reason, "started": utc_iso()}
    try:
        client = api_client(module, request_timeout=p["request_timeout"], caller="hosted_cluster_take_over")
    except ResourceLookupError as e:
        fail_from(module, e, then="nothing was taken over", taken_over=dict(taken, verified=False),
                  finalizers_removed=[], blockers=[], steps=[], planned=[], inspect_next=[])
    except Exception as e:
        fail_from(module, e, what=CLIENT_FAILED)

    hc = {"namespace": p["namespace"], "name": p["name"], "uid": p["uid"]}
    job = TakeOver(Kube(client, p["request_timeout"]), hc, p["infra_id"], hcp_ns,
                   time.monotonic() + p["timeout"], check_mode=module.check_mode, poll=p["poll_interval"])
    error = None
    try:
        if p["part"] == "operator":
            verified = job.run()
        else:
            ok, how = oidc_evidence(p["aws_cleanup"], p["aws_manifest"], p["oidc_bucket"], p["infra_id"])
            verified = job.release_oidc(ok, how)
    except Unknown as e:
        verified, error = False, str(e)
    taken.update(ended=utc_iso(), verified=verified and error is None, finalizers_removed=job.removed,
                 blockers=job.blockers, error=error)
    out = dict(changed=bool(job.removed or [s for s in job.steps if s["step"] == "delete"]) or (
        module.check_mode and bool(job.planned)), taken_over=taken, finalizers_removed=job.removed,
        blockers=job.blockers, steps=job.steps, planned=job.planned,
        inspect_next=["%s - while it remains, %s stays" % (blocker_text(b), b.get("guarded_by")) for b in job.blockers[:10]])
    if error:
        module.fail_json(msg="take-over of HostedCluster %s/%s stopped: %s. Finalizers removed so far: %d" % (
            p["namespace"], p["name"], error, len(job.removed)), **out)
    if job.blockers:
        module.fail_json(msg="take-over of HostedCluster %s/%s stopped after %.0f s: %d object(s) remain, so the "
                             "finalizers that guard them stay: %s. Finalizers removed: %s" % (
                                 p["namespace"], p["name"], p["timeout"], len(job.blockers),
                                 "; ".join("%s, guarded by %s" % (blocker_text(b), b.get("guarded_by"))
                                           for b in job.blockers[:5]),
                                 ", ".join("%s from %s %s" % (r["finalizer"], r["object"]["kind"], r["object"]["name"])
                                           for r in job.removed) or "none"), **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
