#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: permission_preflight
short_description: Before the first change, ask the API server whether every permission a teardown needs is granted
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Sends one C(SelfSubjectAccessReview) for each Kubernetes permission the run of O(kind) needs (each kind declares
    them as data - verb, API group, resource, and the namespace from the run's O(options)).
  - Fails when any is not granted, naming every missing permission (not only the first) and every review that went
    unanswered (unknown, never taken as granted), with the file of C(extensions/rbac/) that grants them.
  - A review changes nothing (the API server does not store it); it is sent in check mode too.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - teardown.gates.k8s_request_timeout
options:
  kind:
    description: The teardown kind whose run is checked (C(hosted_cluster), C(release_prune), C(held_deletion), C(orphan_sweep), C(cfn)).
    type: str
    required: true
  options:
    description:
      - The run's options that say where it works, such as C(release_namespace), C(hosted_cluster_namespace) and
        C(hosted_cluster_name), C(held_namespace) and C(held_kind), and the switches that add permissions
        (C(prune_cluster), C(take_over_cleanup), C(sweep_delete)).
      - A namespace option a permission needs and that is empty fails before any request, naming it.
    type: dict
    default: {}
notes:
  - Time bound - each review is bounded by O(request_timeout) and tried at most three times.
  - Cost - one review per permission (up to 14, for C(hosted_cluster)), sent one after another.
seealso:
  - module: teardown.gates.target_guard
"""

EXAMPLES = r"""
- name: Check every permission the prune needs before deleting anything
  teardown.gates.permission_preflight:
    kind: release_prune
    options:
      release_namespace: team-a
      convoy_cluster_name: dev
      prune_cluster: true
"""

RETURN = r"""
permissions:
  description: Each permission reviewed, with C(allowed) (true, false, or null when no answer came) and the reason.
  returned: always
  type: list
  elements: dict
missing:
  description: The permissions not granted, as C(verb resource.group in namespace ns).
  returned: always
  type: list
  elements: str
  sample: ["delete releases.core.convoy.kumodo.io in namespace team-a"]
unknown:
  description: The permissions whose review went unanswered.
  returned: always
  type: list
  elements: str
rbac_file:
  description: The file of extensions/rbac/ that grants the kind's permissions (null for a kind with no Kubernetes side).
  returned: always
  type: str
"""

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.drivers import permission_preflight as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module


def main():
    module = AnsibleK8SModule(argument_spec=k8s_argument_spec(kind=dict(type="str", required=True),
                                                              options=dict(type="dict", default={})),
                              supports_check_mode=True)
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
