# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWS permission preflight (module aws_permission_preflight): before a run's first change, which of the AWS
actions it will need does the caller lack?

1. STS GetCallerIdentity names the caller (it needs no permission). An assumed-role session is simulated as its
   role (``simulation_arn``); a root or federated caller cannot be simulated.
2. IAM SimulatePrincipalPolicy, in batches of ``BATCH`` actions (each answer paged by its Marker): ``allowed`` is
   allowed, ``implicitDeny`` and ``explicitDeny`` are missing.
3. Where the simulation is itself refused (or cannot be asked), the EC2 deletes are asked by DryRun: AWS answers
   DryRunOperation when the call would have been authorized and UnauthorizedOperation when not, and acts on nothing.
4. Whatever neither way could check is ``unverified``, never allowed.

Every request is a read or one of those permission checks, which ``aws_client`` lets through in check mode too; the
clients are made read-only (check mode) whatever the module's mode, so nothing here can change anything.
The action lists come from the kinds (``kinds/<kind>.aws_actions``)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import (
    AWS_ERRORS, error_code, error_text, module_clients)
from ansible_collections.teardown.gates.plugins.module_utils.cfn.classify import CLEAR_CHOICES
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError, fail_from
from ansible_collections.teardown.gates.plugins.module_utils.kinds import cfn, hosted_cluster, orphan_sweep

CALLER = "aws_permission_preflight"
POLICY_FILE = "extensions/iam/teardown-gates-policy.json"
BATCH = 25
KINDS = ("hosted_cluster", "cfn", "orphan_sweep")
ACTION_RE = re.compile(r"^[a-z0-9-]+:[A-Za-z0-9]+$")
# EC2 deletes that DryRun can check: action -> (boto3 operation, its parameters). The IDs are placeholders unless the
# caller gives real ones (dry_run_ids): AWS checks the caller's permission on the request as it is
PLACEHOLDER = {
    "VpcId": "vpc-0000000000000000a", "SubnetId": "subnet-0000000000000000a", "GroupId": "sg-0000000000000000a",
    "InternetGatewayId": "igw-0000000000000000a", "RouteTableId": "rtb-0000000000000000a",
    "AssociationId": "rtbassoc-0000000000000000a", "NatGatewayId": "nat-0000000000000000a",
    "AllocationId": "eipalloc-0000000000000000a", "DhcpOptionsId": "dopt-0000000000000000a",
    "VpcEndpointId": "vpce-0000000000000000a", "InstanceId": "i-0000000000000000a",
    "NetworkInterfaceId": "eni-0000000000000000a", "VolumeId": "vol-0000000000000000a",
    "ServiceId": "vpce-svc-0000000000000000a",
}
_RULE = [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": "192.0.2.0/32"}]}]
DRY_RUN = {
    "ec2:DeleteVpc": ("delete_vpc", lambda i: dict(VpcId=i["VpcId"])),
    "ec2:DeleteSubnet": ("delete_subnet", lambda i: dict(SubnetId=i["SubnetId"])),
    "ec2:DeleteSecurityGroup": ("delete_security_group", lambda i: dict(GroupId=i["GroupId"])),
    "ec2:DeleteInternetGateway": ("delete_internet_gateway", lambda i: dict(InternetGatewayId=i["InternetGatewayId"])),
    "ec2:DetachInternetGateway": ("detach_internet_gateway",
                                  lambda i: dict(InternetGatewayId=i["InternetGatewayId"], VpcId=i["VpcId"])),
    "ec2:DeleteRouteTable": ("delete_route_table", lambda i: dict(RouteTableId=i["RouteTableId"])),
    "ec2:DisassociateRouteTable": ("disassociate_route_table", lambda i: dict(AssociationId=i["AssociationId"])),
    "ec2:DeleteNatGateway": ("delete_nat_gateway", lambda i: dict(NatGatewayId=i["NatGatewayId"])),
    "ec2:ReleaseAddress": ("release_address", lambda i: dict(AllocationId=i["AllocationId"])),
    "ec2:DeleteDhcpOptions": ("delete_dhcp_options", lambda i: dict(DhcpOptionsId=i["DhcpOptionsId"])),
    "ec2:DeleteVpcEndpoints": ("delete_vpc_endpoints", lambda i: dict(VpcEndpointIds=[i["VpcEndpointId"]])),
    "ec2:DeleteVpcEndpointServiceConfigurations": ("delete_vpc_endpoint_service_configurations",
                                                   lambda i: dict(ServiceIds=[i["ServiceId"]])),
    "ec2:RejectVpcEndpointConnections": ("reject_vpc_endpoint_connections",
                                         lambda i: dict(ServiceId=i["ServiceId"], VpcEndpointIds=[i["VpcEndpointId"]])),
    "ec2:TerminateInstances": ("terminate_instances", lambda i: dict(InstanceIds=[i["InstanceId"]])),
    "ec2:DeleteVolume": ("delete_volume", lambda i: dict(VolumeId=i["VolumeId"])),
    "ec2:DeleteNetworkInterface": ("delete_network_interface",
                                   lambda i: dict(NetworkInterfaceId=i["NetworkInterfaceId"])),
    "ec2:RevokeSecurityGroupIngress": ("revoke_security_group_ingress",
                                       lambda i: dict(GroupId=i["GroupId"], IpPermissions=_RULE)),
    "ec2:RevokeSecurityGroupEgress": ("revoke_security_group_egress",
                                      lambda i: dict(GroupId=i["GroupId"], IpPermissions=_RULE)),
}


class MissingPermissions(TeardownGatesError):
    """The caller lacks permissions the run needs; nothing was changed."""


def argument_spec():
    return dict(
        kind=dict(type="str", choices=list(KINDS)),
        actions=dict(type="list", elements="str", default=[]),
        clear=dict(type="list", elements="str", default=[], choices=list(CLEAR_CHOICES)),
        disable_termination_protection=dict(type="bool", default=False),
        sweep_delete=dict(type="bool", default=True),
        dry_run_ids=dict(type="dict", default={}),
        fail_on_missing=dict(type="bool", default=True),
    )


# ---- pure parts -----------------------------------------------------------------------------------
def needed_actions(p):
    """The actions to check: the kind's (its options shape them) and ``actions``; BadInput names a bad one."""
    bad = [a for a in p.get("actions") or [] if not isinstance(a, str) or not ACTION_RE.match(a)]
    if bad:
        raise BadInput("actions: %s not of the form service:Action (such as ec2:DeleteVpc); nothing was sent"
                       % ", ".join(repr(a) for a in bad))
    unknown = sorted(set(p.get("dry_run_ids") or {}) - set(PLACEHOLDER))
    if unknown:
        raise BadInput("dry_run_ids: unknown key(s) %s (known: %s); nothing was sent"
                       % (", ".join(unknown), ", ".join(sorted(PLACEHOLDER))))
    kind = p.get("kind")
    if kind is None and not p.get("actions"):
        raise BadInput("kind or actions: give the kind of run (hosted_cluster, cfn, orphan_sweep) or the actions to "
                       "check; nothing was sent")
    found = set(p.get("actions") or [])
    if kind == "hosted_cluster":
        found.update(hosted_cluster.aws_actions())
    elif kind == "cfn":
        found.update(cfn.aws_actions(p.get("clear") or (), p.get("disable_termination_protection")))
    elif kind == "orphan_sweep":
        found.update(orphan_sweep.aws_actions(p.get("sweep_delete", True)))
    return sorted(found)


def simulation_arn(caller_arn):
    """The ARN SimulatePrincipalPolicy takes for the caller: a user's or role's ARN as it is; an assumed-role
    session's role (arn:aws:sts::A:assumed-role/R/S -> arn:aws:iam::A:role/R; a role with a path is not found
    under that ARN, and is then unverified); None for the root user or a federated user, which cannot be simulated."""
    m = re.match(r"^arn:([^:]+):sts::(\d+):assumed-role/([^/]+)/.+$", caller_arn or "")
    if m:
        return "arn:%s:iam::%s:role/%s" % m.groups()
    if re.match(r"^arn:[^:]+:iam::\d+:root$", caller_arn or "") or ":federated-user/" in (caller_arn or ""):
        return None
    return caller_arn or None


def batches(items, size=BATCH):
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)]


def from_simulation(results):
    """{action: (result, detail)} from SimulatePrincipalPolicy's EvaluationResults."""
    out = {}
    for r in results:
        decision = r.get("EvalDecision")
        out[r["EvalActionName"]] = ("allowed" if decision == "allowed" else "missing", decision)
    return out


def from_dry_run(code):
    """(result, detail) from the error code of an EC2 call sent with DryRun=True."""
    if code == "DryRunOperation":
        return "allowed", "DryRunOperation"
    if code == "UnauthorizedOperation":
        return "missing", "UnauthorizedOperation"
    return "unverified", "DryRun answered %s, not DryRunOperation or UnauthorizedOperation" % code


def summary(actions, decided, why_unverified):
    """Every action with its result, how it was found and the detail; and the lists of missing and unverified."""
    rows = []
    for a in actions:
        result, how, detail = decided.get(a, ("unverified", None, why_unverified))
        rows.append(dict(action=a, result=result, how=how, detail=detail))
    return dict(actions=rows, missing=[r["action"] for r in rows if r["result"] == "missing"],
                unverified=[r["action"] for r in rows if r["result"] == "unverified"],
                allowed=[r["action"] for r in rows if r["result"] == "allowed"])


def missing_message(caller_arn, found):
    rows = [r for r in found["actions"] if r["result"] == "missing"]
    text = ", ".join("%s (%s by %s)" % (r["action"], r["detail"], r["how"].replace("_", " ")) for r in rows)
    msg = ("the AWS identity %s lacks %d permission(s) this run needs, so nothing was changed: %s. %s grants them; "
           "attach it (or add the actions to the identity's policy) and run again"
           % (caller_arn, len(rows), text, POLICY_FILE))
    if found["unverified"]:
        msg += ". Not verified either way: %s" % ", ".join(found["unverified"])
    return msg


# ---- the requests ---------------------------------------------------------------------------------
def simulate(clients, arn, actions):
    """({action: (result, "simulation", decision)}, why the simulation stopped or None)."""
    decided = {}
    for batch in batches(actions):
        kw = dict(PolicySourceArn=arn, ActionNames=batch)
        while True:
            try:
                page = clients.call("iam", "simulate_principal_policy", **kw)
            except AWS_ERRORS as e:
                return decided, "the policy simulation of %s was refused: %s" % (arn, error_text(e))
            for action, (result, detail) in from_simulation(page.get("EvaluationResults") or []).items():
                decided[action] = (result, "simulation", detail)
            if not page.get("IsTruncated"):
                break
            kw["Marker"] = page["Marker"]
    return decided, None


def dry_run(clients, actions, ids):
    """{action: (result, "dry_run", detail)} for the EC2 actions DryRun can check."""
    given = dict(PLACEHOLDER, **(ids or {}))
    decided = {}
    for action in actions:
        if action not in DRY_RUN:
            continue
        operation, params = DRY_RUN[action]
        try:
            clients.call("ec2", operation, DryRun=True, **params(given))
            decided[action] = ("unverified", "dry_run", "DryRun answered without an error")
        except AWS_ERRORS as e:
            result, detail = from_dry_run(error_code(e))
            decided[action] = (result, "dry_run", detail)
    return decided


def check(clients, actions, ids=None):
    """The preflight's findings for ``actions``: the caller, the ARN simulated and each action's result."""
    caller = clients.call("sts", "get_caller_identity")["Arn"]
    arn = simulation_arn(caller)
    decided, why = simulate(clients, arn, actions) if arn else ({}, "%s cannot be simulated (root or federated)" % caller)
    if why:
        left = [a for a in actions if a not in decided]
        decided.update(dry_run(clients, left, ids))
    found = summary(actions, decided, why or "not in the simulation's answer")
    found.update(caller_arn=caller, simulated_arn=arn, simulation_refused=why)
    return found


def findings(module, actions, ids=None, caller=CALLER, said=None, **extra):
    """The preflight of ``actions`` as ``caller``: (the result for exit_json, the MissingPermissions naming every
    missing action or None). When STS cannot name the caller the module fails, after ``said`` (what the run had found
    before) and with ``extra``."""
    # read-only whatever the mode: reads and permission checks only (aws_client.is_permission_check)
    clients = module_clients(module, caller, concurrency=1, check_mode=True)
    try:
        found = check(clients, actions, ids)
    except AWS_ERRORS as e:
        msg = "the permission preflight could not ask AWS who the caller is; nothing was changed"
        module.fail_json_aws(e, msg="%s; %s" % (said, msg) if said else msg, api_calls=clients.calls, **extra)
    result = dict(changed=False, api_calls=clients.calls, **found)
    missing = MissingPermissions(missing_message(found["caller_arn"], found)) if found["missing"] else None
    return result, missing


def run(module):
    """aws_permission_preflight: the result for exit_json, or fail_json naming every missing permission."""
    p = module.params
    result, missing = findings(module, needed_actions(p), p["dry_run_ids"])
    if missing is not None and p["fail_on_missing"]:
        fail_from(module, missing, **result)
    return result
