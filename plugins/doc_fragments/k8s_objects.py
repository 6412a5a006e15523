# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The Kubernetes objects a read-only module reads in one run (deletion_info, teardown_verify); its spec is
    # core/args.k8s_objects_spec(). What else each module does with them stays in its own description.
    DOCUMENTATION = r"""
options:
  objects:
    description:
      - The Kubernetes objects to read in one run (one client, one discovery); the answers are in RV(objects), in
        the same order, each the answer a single read gives.
      - An entry without O(objects[].name) lists the objects of its kind left in its namespace (every one, for a
        cluster-scoped kind) in one LIST bounded by O(request_timeout) - its answer is V(absent) when the list
        answered and nothing is left, V(present) with their names when something is, V(unknown) when the list
        got no answer (never V(absent)).
    type: list
    elements: dict
    suboptions:
      api_version:
        description: API version of the object.
        type: str
        default: v1
      kind:
        description: Kind of the object (an entry without it fails before any request).
        type: str
      name:
        description:
          - Name of the object.
          - Leave it out to list the objects of O(objects[].kind) in O(objects[].namespace) instead.
        type: str
      namespace:
        description: Namespace of the object (required for namespaced kinds, also to list them).
        type: str
      label_selector:
        description: Only for an entry without a name - list only the objects with these labels (C(key=value,...)).
        type: str
      match:
        description:
          - Only for an entry without a name - keep only the listed objects whose fields equal these values; each key
            is a dotted field path (such as C(spec.clusterName)), each value compared as a string.
          - The list itself is the same LIST; the objects it drops are not reported.
        type: dict
"""
