# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The run of target_guard: check the guards (``targets.guards``), read the target only for the guards that are
set (STS GetCallerIdentity, IAM ListAccountAliases when the typed confirmation is not the account ID, the
kube-system namespace of each management cluster and the API server URL the client was configured with), and
refuse on any mismatch. Read-only whatever the mode: its AWS clients refuse any change, its KubeReads too. With no
guard set it sends no request at all."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.aws.client import AWS_ERRORS, module_clients
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError, api_client
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import PRESENT
from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import KubeReads
from ansible_collections.teardown.gates.plugins.module_utils.preflight import targets

CALLER = "target_guard"


def argument_spec():
    """The options but request_timeout, which the module adds from common_args."""
    return dict(
        expected_aws_account_id=dict(type="str", default=""),
        expected_management_cluster=dict(type="list", elements="str", default=[]),
        confirm_account=dict(type="str", default=""),
        require_confirmation=dict(type="bool", default=False),
        touches_aws=dict(type="bool", default=True),
        touches_kubernetes=dict(type="bool", default=True),
        kubeconfig=dict(type="path"),
        contexts=dict(type="list", elements="str", default=[]),
    )


def checked_guards(p):
    """The guards of the module's options (BadInput before any request)."""
    if p["request_timeout"] <= 0:
        raise targets.BadInput("request_timeout: must be more than 0 seconds; nothing was sent")
    return targets.guards(p["expected_aws_account_id"], p["expected_management_cluster"], p["confirm_account"],
                          touches_aws=p["touches_aws"], touches_kubernetes=p["touches_kubernetes"],
                          required=p["require_confirmation"])


def read_account(clients, confirm):
    """(GetCallerIdentity's Account and Arn, the account's aliases or None when not needed)."""
    answer = clients.call("sts", "get_caller_identity")
    identity = {"Account": answer.get("Account"), "Arn": answer.get("Arn"), "UserId": answer.get("UserId")}
    aliases = None
    if confirm and confirm != identity["Account"]:
        aliases = clients.call("iam", "list_account_aliases").get("AccountAliases") or []
    return identity, aliases


def configured_server(client):
    """The API server URL the client was configured with (kubeconfig or K8S_AUTH_HOST), or None."""
    node = client
    for _unused in range(4):
        host = getattr(getattr(node, "configuration", None), "host", None)
        if host:
            return host
        node = getattr(node, "client", None)
        if node is None:
            return None
    return None


def read_cluster(reads, server, context=None):
    """``{"context", "uid", "server"}`` of one management cluster; GuardRefused when kube-system cannot be read (a
    guard that cannot be checked does not hold)."""
    got = reads.get("v1", "Namespace", "kube-system", what="target guard: the management cluster's identity")
    if got["state"] != PRESENT:
        raise targets.GuardRefused(
            "expected_management_cluster: could not read the kube-system namespace%s at %s (%s): the cluster is "
            "unknown, so the guard does not hold; nothing was changed" % (
                " (context %s)" % context if context else "", server or "(unknown server)",
                got["query"].get("error") or got["state"]), unknown=True)
    return {"context": context, "uid": ((got["object"] or {}).get("metadata") or {}).get("uid"), "server": server}


def kube_reads(p, context):
    """The KubeReads of one management cluster (read-only) and its configured server URL."""
    client = api_client(None, request_timeout=p["request_timeout"], caller=CALLER, kubeconfig=p["kubeconfig"],
                        context=context)
    return KubeReads(client, p["request_timeout"], check_mode=True), configured_server(client)


def observe(module, checked):
    """What the guards that are set need, read: ``{"identity", "aliases", "clusters", "queries"}``."""
    p = module.params
    seen = {"identity": None, "aliases": None, "clusters": [], "queries": []}
    if checked["account"] or checked["confirm"]:
        clients = module_clients(module, CALLER, 1, check_mode=True)  # reads only, in check mode or not
        seen["identity"], seen["aliases"] = read_account(clients, checked["confirm"])
    if checked["clusters"]:
        for context in p["contexts"] or [None]:
            try:
                reads, server = kube_reads(p, context)
            except ResourceLookupError as e:
                raise targets.GuardRefused("expected_management_cluster: %s%s; the cluster is unknown, so the guard "
                                           "does not hold; nothing was changed" % (
                                               "context %s: " % context if context else "", e), unknown=True)
            seen["clusters"].append(read_cluster(reads, server, context))
            seen["queries"].extend(reads.queries)
    return seen


def result(checked, seen):
    """The module's result: what was checked and what was observed."""
    identity = seen["identity"] or {}
    return dict(
        changed=False,
        guarded=targets.any_set(checked),
        checked=[name for name, on in (("expected_aws_account_id", checked["account"]),
                                       ("confirm_account", checked["confirm"]),
                                       ("expected_management_cluster", checked["clusters"])) if on],
        account_id=identity.get("Account"),
        arn=identity.get("Arn"),
        account_aliases=seen["aliases"],
        clusters=seen["clusters"],
        msg=("the target is the one the guards name" if targets.any_set(checked)
             else "no target guard set: nothing was read"),
    )


def run(module):
    """The module's result, or a failure before any change (bad input, a mismatch, a target that cannot be read)."""
    checked = checked_guards(module.params)
    if not targets.any_set(checked):
        return result(checked, {"identity": None, "aliases": None, "clusters": []})
    try:
        seen = observe(module, checked)
    except AWS_ERRORS as e:
        module.fail_json_aws(e, msg="target_guard: could not read the AWS caller identity, so "
                                    "expected_aws_account_id cannot be checked; nothing was changed")
    except targets.GuardRefused as e:
        fail_from(module, e)
    found = targets.problems(checked, seen["identity"], seen["aliases"], seen["clusters"])
    if found:
        fail_from(module, targets.GuardRefused(targets.refused_message(found)), **result(checked, seen))
    return result(checked, seen)
