#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: target_guard
short_description: Refuse a run whose AWS account or management cluster is not the one the operator named
version_added: 0.1.0
description:
  - Compares the AWS account of the credentials (STS C(GetCallerIdentity)) with O(expected_aws_account_id), and
    each management cluster the run reads (the UID of its C(kube-system) namespace, and the API server URL the
    client was configured with) with O(expected_management_cluster). Any mismatch fails the task, naming the
    option, what was expected and what was observed; the playbooks run it before their first mutating request.
  - O(confirm_account) is a typed confirmation, as an AWX survey asks it. It must equal the account ID, or one of
    the account's aliases (IAM C(ListAccountAliases), read only when the typed text is not the account ID).
  - It only reads, in check mode or not. With no guard and no confirmation set it sends no request at all.
  - A guard whose target cannot be read (the API server does not answer, kube-system cannot be read) does not hold;
    the task fails, saying the target is unknown.
author:
  - teardown.gates developers (@teardown-gates)
options:
  expected_aws_account_id:
    description:
      - The 12-digit AWS account the run is meant for; empty checks no account.
      - A value that is not 12 digits fails before any request.
    type: str
    default: ""
  expected_management_cluster:
    description:
      - The management cluster(s) the run is meant for, each as the UID of its C(kube-system) namespace
        (C(kubectl get namespace kube-system -o jsonpath='{.metadata.uid}')) or as its API server URL
        (C(https://host[:port]), compared without case in the scheme and host and without the default port or a
        trailing C(/)).
      - Each cluster the run reads (each of O(contexts)) must be one of them. Empty entries are left out; an empty
        list checks no cluster.
      - The UID survives a new address, a load balancer or a renamed context, and a rebuilt cluster gets a new
        one, so it is the stronger guard.
    type: list
    elements: str
    default: []
  confirm_account:
    description:
      - The account ID, or one of its aliases, typed by the operator to confirm the account the run deletes in.
    type: str
    default: ""
  require_confirmation:
    description:
      - Require O(expected_aws_account_id), O(expected_management_cluster) and O(confirm_account) (the orphan
        sweep's deletes). A missing one fails before any request, naming it.
    type: bool
    default: false
  touches_aws:
    description:
      - Whether the run sends AWS requests. When false, O(expected_aws_account_id) and O(confirm_account) are
        refused (they could never be checked).
    type: bool
    default: true
  touches_kubernetes:
    description:
      - Whether the run sends Kubernetes requests. When false, O(expected_management_cluster) is refused.
    type: bool
    default: true
  kubeconfig:
    description: The kubeconfig file; defaults to E(KUBECONFIG) (and the E(K8S_AUTH_*) variables), then C(~/.kube/config).
    type: path
  contexts:
    description:
      - The kubeconfig contexts of the management clusters the run reads; empty takes the current one.
    type: list
    elements: str
    default: []
notes:
  - Time bound, Kubernetes - each read is bounded by O(request_timeout), as in every Kubernetes module.
  - IAM - C(sts:GetCallerIdentity) needs no permission; C(iam:ListAccountAliases) is in
    C(extensions/iam/teardown-gates-policy.json).
extends_documentation_fragment: [teardown.gates.aws_bounds, teardown.gates.k8s_request_timeout, amazon.aws.common.modules, amazon.aws.region.modules,
  amazon.aws.boto3]
"""

EXAMPLES = r"""
- name: Refuse the run unless it is pointed at the account and the management cluster meant
  teardown.gates.target_guard:
    expected_aws_account_id: "123456789012"
    expected_management_cluster: 6f1c2a9e-3b1d-4f7e-9c55-0a1b2c3d4e5f

- name: The orphan sweep's deletes - both guards and the typed confirmation
  teardown.gates.target_guard:
    expected_aws_account_id: "123456789012"
    expected_management_cluster: https://api.mgmt-east.example.com:6443
    confirm_account: my-account-alias
    require_confirmation: true
    contexts: [mgmt-east]
"""

RETURN = r"""
guarded:
  description: Whether any guard or confirmation was set (false - nothing was read).
  returned: always
  type: bool
checked:
  description: The options that were checked.
  returned: always
  type: list
  elements: str
  sample: [expected_aws_account_id, expected_management_cluster]
account_id:
  description: The account of the credentials, from STS GetCallerIdentity (null when not read).
  returned: always
  type: str
  sample: "123456789012"
arn:
  description: The caller's ARN, from STS GetCallerIdentity (null when not read).
  returned: always
  type: str
account_aliases:
  description: The account's aliases, when the typed confirmation was not the account ID (null when not read).
  returned: always
  type: list
  elements: str
clusters:
  description: Each management cluster read - its context, kube-system UID and configured API server URL.
  returned: always
  type: list
  elements: dict
  sample: [{context: null, uid: 6f1c2a9e-3b1d-4f7e-9c55-0a1b2c3d4e5f, server: "https://127.0.0.1:6443"}]
"""

from ansible_collections.amazon.aws.plugins.module_utils.modules import AnsibleAWSModule
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import checked
from ansible_collections.teardown.gates.plugins.module_utils.core.args import with_request_timeout
from ansible_collections.teardown.gates.plugins.module_utils.preflight import guard_run


def main():
    module = AnsibleAWSModule(argument_spec=with_request_timeout(guard_run.argument_spec()), supports_check_mode=True)
    module.exit_json(**checked(module, guard_run.run, module))


if __name__ == "__main__":
    main()
