# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # validate_certs of a module that talks to the Kubernetes API server and to AWS in one run
    # (hosted_cluster_baseline, permission_preflight, teardown_verify). Its spec is kubernetes.core's (no default),
    # which replaces amazon.aws's. A module lists this fragment before kubernetes.core's and amazon.aws's: Ansible
    # merges fragments in order and keeps the first text of an option, and both of those document validate_certs too.
    DOCUMENTATION = r"""
options:
  validate_certs:
    description:
      - Whether the TLS certificates of the Kubernetes API server and of the AWS endpoints are verified
        (kubernetes.core's option).
      - Unset, the kubeconfig's TLS setting holds for the API server, and the AWS clients verify.
    type: bool
    default: null
    aliases: [verify_ssl]
"""
