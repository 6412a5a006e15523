#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: hosted_cluster_info
short_description: Read what a HostedCluster teardown starts from - the HostedCluster, its NodePools, its release and operator images
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Reads a HyperShift HostedCluster, lists the NodePools of its namespace that belong to it (C(spec.clusterName)),
    and, while the HostedCluster is there, reads the release image (from the HostedCluster, else its
    HostedControlPlane) and the control-plane operator's image (the C(control-plane-operator) Deployment in the
    HCP namespace C(<namespace>-<name>)).
  - One task and one API client for what the baseline of the C(teardown.gates.hosted_cluster_destroy) role needs, and for
    a look before a teardown by hand.
  - A read that the server answers with 429 or 5xx, or that loses its connection, is tried again (up to 3 times,
    0.5 s then 1.5 s apart). A read that still fails fails the task, naming the read - it is never taken for
    absent. A 401 or 403 is not tried again.
  - Read-only; check mode runs the same reads.
notes:
  - Time bound - building the client (C(/version) and discovery) takes at most 3 x O(request_timeout) and
    every later request at most O(request_timeout), tried at most 3 times after a transient answer. Against an
    API server that accepts and never answers the task fails as unknown, naming the server, after about 3 x
    O(request_timeout).
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.hosted_cluster
  - teardown.gates.k8s_request_timeout
options:
  namespace:
    description: The HostedCluster's namespace.
    type: str
    default: clusters
seealso:
  - module: teardown.gates.deletion_info
  - module: teardown.gates.wait_gate
"""

EXAMPLES = r"""
- name: What would a teardown of clusters/demo start from?
  teardown.gates.hosted_cluster_info:
    name: demo
  register: demo

- name: Show it
  ansible.builtin.debug:
    msg: "{{ demo.state }}; infra ID {{ demo.hosted_cluster.spec.infraID | default('-') }}; NodePools {{ demo.nodepools }}"
"""

RETURN = r"""
state:
  description: V(present), or V(absent) (a successful read answered 404).
  returned: always
  type: str
hosted_cluster:
  description: The HostedCluster as read (metadata, spec, status).
  returned: when present
  type: dict
nodepools:
  description: The names of the NodePools in O(namespace) whose C(spec.clusterName) is O(name), sorted (also when the HostedCluster is gone).
  returned: always
  type: list
  elements: str
hcp_namespace:
  description: The HostedControlPlane's namespace, C(<namespace>-<name>).
  returned: always
  type: str
release_image:
  description: The HostedCluster's C(spec.release.image), else the HostedControlPlane's C(spec.releaseImage); null when neither is found.
  returned: always
  type: str
control_plane_operator_image:
  description: The first container image of the C(control-plane-operator) Deployment in the HCP namespace; null when it is not there.
  returned: always
  type: str
queries:
  description: Each read (what, verb, started, finished, ok, attempts, and status or error).
  returned: always
  type: list
  elements: dict
"""


from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.common_args import request_timeout_spec
from ansible_collections.teardown.gates.plugins.module_utils.k8s_client import ResourceLookupError, api_client
from ansible_collections.teardown.gates.plugins.module_utils.hypershift_api import HYPERSHIFT_API as HYPERSHIFT
from ansible_collections.teardown.gates.plugins.module_utils.k8s_observe import PRESENT
from ansible_collections.teardown.gates.plugins.module_utils.k8s_reads import KubeReads
from ansible_collections.teardown.gates.plugins.module_utils.errors import CLIENT_FAILED, fail_from, TeardownGatesError


class ReadFailed(TeardownGatesError):
    """A read failed after its retries: nothing about the HostedCluster is known."""

    unknown = True


def argument_spec():
    spec = dict(
        name=dict(type="str", required=True),
        namespace=dict(type="str", default="clusters"),
        request_timeout=request_timeout_spec(),
    )
    spec.update(AUTH_ARG_SPEC)
    return spec


def first_image(deployment):
    containers = (((deployment or {}).get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []
    return (containers[0] or {}).get("image") if containers else None


def checked(what, api_version, kind, read, *args):
    """``read`` (a KubeReads get or list, which records its query under ``what``); raises ReadFailed when the kind
    could not be found or the read got no answer."""
    try:
        obs = read(api_version, kind, *args, what=what)
    except ResourceLookupError as e:
        raise ReadFailed("%s %s: %s" % (api_version, kind, e))
    if not obs["query"].get("ok"):
        raise ReadFailed("could not read %s (%s)" % (what, obs["query"].get("error")))
    return obs


def read_hosted_cluster(reads, name, namespace):
    """The module's answer (without ``queries``); raises ReadFailed."""
    hcp_ns = "%s-%s" % (namespace, name)
    hc = checked("HostedCluster %s/%s" % (namespace, name), HYPERSHIFT, "HostedCluster", reads.get, name, namespace)
    nodepools = checked("NodePools in %s" % namespace, HYPERSHIFT, "NodePool", reads.list, namespace)
    answer = dict(state=hc["state"], hcp_namespace=hcp_ns, release_image=None, control_plane_operator_image=None,
                  nodepools=sorted((np.get("metadata") or {}).get("name") for np in nodepools["items"]
                                   if (np.get("spec") or {}).get("clusterName") == name))
    if hc["state"] != PRESENT:
        return answer
    obj = hc["object"]
    answer["hosted_cluster"] = obj
    answer["release_image"] = ((obj.get("spec") or {}).get("release") or {}).get("image") or None
    if not answer["release_image"]:
        try:
            hcp_served = reads.served(HYPERSHIFT, "HostedControlPlane") is not None
        except ResourceLookupError as e:
            raise ReadFailed("%s %s: %s" % (HYPERSHIFT, "HostedControlPlane", e))
        if hcp_served:  # a kind not served here has nothing of it to read
            hcp = checked("HostedControlPlane %s/%s" % (hcp_ns, name), HYPERSHIFT, "HostedControlPlane", reads.get,
                          name, hcp_ns)
            answer["release_image"] = ((hcp["object"] or {}).get("spec") or {}).get("releaseImage") or None
    cpo = checked("Deployment %s/control-plane-operator" % hcp_ns, "apps/v1", "Deployment", reads.get,
                  "control-plane-operator", hcp_ns)
    answer["control_plane_operator_image"] = first_image(cpo["object"]) if cpo["state"] == PRESENT else None
    return answer


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True)
    p = module.params
    if p["request_timeout"] <= 0:
        module.fail_json(msg="invalid input: request_timeout: must be more than 0 seconds")
    try:
        client = api_client(module, request_timeout=p["request_timeout"], caller="hosted_cluster_info")
    except ResourceLookupError as e:
        fail_from(module, e, then="nothing about HostedCluster %s/%s is known" % (p["namespace"], p["name"]))
    except Exception as e:
        fail_from(module, e, what=CLIENT_FAILED)
    reads = KubeReads(client, p["request_timeout"], check_mode=module.check_mode)
    try:
        answer = read_hosted_cluster(reads, p["name"], p["namespace"])
    except ReadFailed as e:
        fail_from(module, e, then="nothing about HostedCluster %s/%s is known, not even whether it is there"
                  % (p["namespace"], p["name"]), queries=reads.queries)
    module.exit_json(changed=False, queries=reads.queries, **answer)


if __name__ == "__main__":
    main()
