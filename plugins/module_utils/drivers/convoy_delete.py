# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The convoy_delete module's driver: DELETE planned Releases or Clusters, each only when a read finds the same
object (its UID) not yet deleting; the read and the DELETE go through KubeReads and its check-mode guard."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time
import traceback

from ansible_collections.teardown.gates.plugins.module_utils.core.bounds import k8s_timeout
from ansible_collections.teardown.gates.plugins.module_utils.owners.convoy import API_VERSION
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError, missing_permission
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import ABSENT
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import utc_iso

CALLER = "convoy_delete"


def _why(e):
    """For a 403, the permission that is missing (verb, resource, namespace), so the operator can grant it."""
    hint = missing_permission(e)
    return ": " + hint if hint else ""


def input_error(objects):
    """The first object without its name or uid, as the module words it; None when all have both."""
    for i, o in enumerate(objects):
        missing = [k for k in ("name", "uid") if not o.get(k)]
        if missing:
            return "objects[%d]: missing %s" % (i, ", ".join(missing))
    return None


def check(module):
    error = input_error(module.params["objects"])
    if error:
        module.fail_json(msg=error)


def unreachable(module, err, started=None):
    """The API could not be reached or the kind found: one failure, worded as the client words it."""
    if isinstance(err, ResourceLookupError) and err.cause is not None:
        err = err.cause  # worded as the client words it, as before the read service
    fail_from(module, err, what="could not reach the API or find %s %s" % (API_VERSION, module.params["kind"]),
              exception=traceback.format_exc())


client_failed = client_crashed = unreachable


def run(module, reads):
    p = module.params
    try:
        from kubernetes.client.rest import ApiException
        # the kind as the service hands it out: its DELETE below passes the service's check-mode guard
        resource = reads.resource(API_VERSION, p["kind"])
    except Exception as e:  # pylint: disable=broad-except
        unreachable(module, e)
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
