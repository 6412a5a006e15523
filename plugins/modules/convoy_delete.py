#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: convoy_delete
short_description: Request deletion of convoy Releases or Clusters by name and UID, in one call
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Sends one DELETE per object, each with a C(preconditions.uid), so an object recreated under the same
    name is left alone and reported in RV(recreated).
  - Deleting only starts convoy's own flow; this module never touches a finalizer and does not wait (use
    M(teardown.gates.wait_gate)).
  - An object already deleting is not deleted again and not counted as a change; an absent one is reported
    in RV(absent).
  - One module call for the whole list; with C(kubernetes.core.k8s) in a loop each item pays for a process
    start and API discovery.
  - Check mode sends no request at all (not even a server-side dry run) and returns what would be deleted.
  - The read before each DELETE is tried again, with backoff, after a transient failure (429, 5xx, a dropped
    connection), at most three times; a read that still fails stops the task (state unknown, nothing more sent).
notes:
  - Time bound - building the client (C(/version) and discovery) takes at most 3 x O(request_timeout) and
    every later request at most O(request_timeout). Against an API server that accepts and never answers the
    task fails, naming the server, after about 3 x O(request_timeout), having sent no DELETE.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.k8s_request_timeout
options:
  kind:
    description: Which convoy kind.
    type: str
    choices: [Release, Cluster]
    default: Release
  namespace:
    description: Namespace of the objects.
    type: str
    required: true
  objects:
    description: The objects to delete, each with C(name) and C(uid) (the UID seen when it was planned).
    type: list
    elements: dict
    required: true
seealso:
  - module: teardown.gates.convoy_release_info
  - module: teardown.gates.wait_gate
"""

EXAMPLES = r"""
- name: Delete two Releases, guarded by their UIDs
  teardown.gates.convoy_delete:
    namespace: shop
    objects:
      - {name: podinfo, uid: 5f1c0c1e-0000-4000-8000-000000000001}
      - {name: cart, uid: 5f1c0c1e-0000-4000-8000-000000000002}
"""

RETURN = r"""
deleted:
  description: Names whose deletion was requested now (or would be, in check mode).
  returned: always
  type: list
  elements: str
already_deleting:
  description: Names that already had a deletionTimestamp (nothing sent).
  returned: always
  type: list
  elements: str
absent:
  description: Names not found.
  returned: always
  type: list
  elements: str
recreated:
  description: Names whose current UID differs from the given one (left alone), with both UIDs.
  returned: always
  type: list
  elements: dict
requests:
  description: One entry per DELETE sent (name, started, status).
  returned: always
  type: list
  elements: dict
"""

import time
import traceback

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.common_args import request_timeout_spec
from ansible_collections.teardown.gates.plugins.module_utils.convoy import API_VERSION
from ansible_collections.teardown.gates.plugins.module_utils.bounds import k8s_timeout
from ansible_collections.teardown.gates.plugins.module_utils.timestamps import utc_iso
from ansible_collections.teardown.gates.plugins.module_utils.k8s_client import (
    ResourceLookupError, api_client, missing_permission)
from ansible_collections.teardown.gates.plugins.module_utils.k8s_observe import ABSENT
from ansible_collections.teardown.gates.plugins.module_utils.k8s_reads import KubeReads
from ansible_collections.teardown.gates.plugins.module_utils.errors import fail_from


def _why(e):
    """For a 403, the permission that is missing (verb, resource, namespace), so the operator can grant it."""
    hint = missing_permission(e)
    return ": " + hint if hint else ""


def main():
    spec = dict(
        kind=dict(type="str", choices=["Release", "Cluster"], default="Release"),
        namespace=dict(type="str", required=True),
        objects=dict(type="list", elements="dict", required=True),
        request_timeout=request_timeout_spec(),
    )
    spec.update(AUTH_ARG_SPEC)
    module = AnsibleK8SModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    for i, o in enumerate(p["objects"]):
        missing = [k for k in ("name", "uid") if not o.get(k)]
        if missing:
            module.fail_json(msg="objects[%d]: missing %s" % (i, ", ".join(missing)))
    try:
        from kubernetes.client.rest import ApiException
        reads = KubeReads(api_client(module=module, request_timeout=p["request_timeout"], caller="convoy_delete"),
                          p["request_timeout"], check_mode=module.check_mode)
        # the kind as the service hands it out: its DELETE below passes the service's check-mode guard
        resource = reads.resource(API_VERSION, p["kind"])
    except Exception as e:
        if isinstance(e, ResourceLookupError) and e.cause is not None:
            e = e.cause  # worded as the client words it, as before the read service
        fail_from(module, e, what="could not reach the API or find %s %s" % (API_VERSION, p["kind"]),
                  exception=traceback.format_exc())
    ns = p["namespace"]
    out = dict(deleted=[], already_deleting=[], absent=[], recreated=[], requests=[])
    for o in p["objects"]:
        name, uid = o["name"], o["uid"]
        # read first: a deleting object is not "changed" by another DELETE, and check mode must know
        obs = reads.get(API_VERSION, p["kind"], name, ns)
        e = obs["exception"]
        if obs["state"] == ABSENT and isinstance(e, ApiException):
            out["absent"].append(name)
            continue
        if e is not None and isinstance(e, ApiException):  # a refusal, or the server busy after the tries
            module.fail_json(msg="%s %s/%s: read failed (%s %s%s); state unknown, nothing more sent"
                             % (p["kind"], ns, name, e.status, e.reason, _why(e)), **out)
        if e is not None:  # no answer (a timeout, a lost connection)
            module.fail_json(msg="%s %s/%s: read failed (%s); state unknown, nothing more sent"
                             % (p["kind"], ns, name, e), **out)
        md = obs["object"].get("metadata") or {}
        if md.get("uid") != uid:
            out["recreated"].append({"name": name, "planned_uid": uid, "current_uid": md.get("uid")})
            continue
        if md.get("deletionTimestamp"):
            out["already_deleting"].append(name)
            continue
        if module.check_mode:
            out["deleted"].append(name)
            continue
        started = time.time()
        try:
            resource.delete(name=name, namespace=ns, body={"apiVersion": "v1", "kind": "DeleteOptions",
                                                           "preconditions": {"uid": uid}},
                            _request_timeout=k8s_timeout(p["request_timeout"]))
            out["deleted"].append(name)
            out["requests"].append({"name": name, "started": utc_iso(started), "status": "accepted"})
        except ApiException as e:
            out["requests"].append({"name": name, "started": utc_iso(started), "status": e.status})
            if e.status == 404:
                out["absent"].append(name)
            elif e.status == 409:
                out["recreated"].append({"name": name, "planned_uid": uid, "current_uid": None})
            else:
                msg = "%s %s/%s: DELETE failed (%s %s%s)" % (p["kind"], ns, name, e.status, e.reason, _why(e))
                module.fail_json(msg=msg, changed=bool(out["deleted"]), **out)
        except Exception as e:
            module.fail_json(msg="%s %s/%s: DELETE failed (%s); its state is unknown" % (p["kind"], ns, name, e),
                             changed=bool(out["deleted"]), **out)
    module.exit_json(changed=bool(out["deleted"]), **out)


if __name__ == "__main__":
    main()
