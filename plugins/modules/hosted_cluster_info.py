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
options:
  namespace:
    description: The HostedCluster's namespace.
    type: str
    default: clusters
seealso:
  - module: teardown.gates.deletion_info
  - module: teardown.gates.wait_gate
extends_documentation_fragment: [teardown.gates.hosted_cluster, teardown.gates.k8s_request_timeout, kubernetes.core.k8s_auth_options]
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


from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.core.args import hosted_cluster_spec, k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_info as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module


def argument_spec():
    return k8s_argument_spec(**hosted_cluster_spec(namespace=dict(type="str", default="clusters")))


def main():
    module = AnsibleK8SModule(argument_spec=argument_spec(), supports_check_mode=True)
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
