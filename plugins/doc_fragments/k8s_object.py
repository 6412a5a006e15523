# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Where one Kubernetes object lives, for a module that names one (deletion_info, finalizer); its spec is
    # common_args.k8s_object_spec(). The object's kind and name stay in each module: required or not differs.
    DOCUMENTATION = r"""
options:
  api_version:
    description: API version of the object, for example C(v1) or C(hypershift.openshift.io/v1beta1).
    type: str
    default: v1
  namespace:
    description:
      - Namespace of the object. Required for a namespaced kind; ignored for a cluster-scoped one.
    type: str
"""
