# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_info module's driver: a HostedCluster, its NodePools, release image and control-plane
operator image, read through KubeReads (a read that fails after its retries leaves nothing known)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from, TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import HYPERSHIFT_API as HYPERSHIFT
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import PRESENT

CALLER = "hosted_cluster_info"


class ReadFailed(TeardownGatesError):
    """A read failed after its retries: nothing about the HostedCluster is known."""

    unknown = True


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


def check(module):
    if module.params["request_timeout"] <= 0:
        module.fail_json(msg="invalid input: request_timeout: must be more than 0 seconds")


def client_failed(module, err, started=None):
    p = module.params
    fail_from(module, err, then="nothing about HostedCluster %s/%s is known" % (p["namespace"], p["name"]))


def run(module, reads):
    p = module.params
    try:
        answer = read_hosted_cluster(reads, p["name"], p["namespace"])
    except ReadFailed as e:
        fail_from(module, e, then="nothing about HostedCluster %s/%s is known, not even whether it is there"
                  % (p["namespace"], p["name"]), queries=reads.queries)
    module.exit_json(changed=False, queries=reads.queries, **answer)
