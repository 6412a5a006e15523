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
extends_documentation_fragment: [teardown.gates.k8s_request_timeout, kubernetes.core.k8s_auth_options]
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

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.drivers import convoy_delete as driver
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import run_k8s_module


def main():
    module = AnsibleK8SModule(argument_spec=k8s_argument_spec(
        kind=dict(type="str", choices=["Release", "Cluster"], default="Release"),
        namespace=dict(type="str", required=True),
        objects=dict(type="list", elements="dict", required=True),
    ), supports_check_mode=True)
    run_k8s_module(module, driver)


if __name__ == "__main__":
    main()
