# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_destroy role's messages (steps of hosted_cluster_destroy_step): its check-mode plans of the
gates (gates_plan_message) and of the AWS levels (aws_plan_message), and the message it stops with at a gate
(gate_stop_message)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import HO_FINALIZER
from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift_hcp_owners as hcp_owners
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import dicts, one_dict, plain_list, printed

GATE_STATES = {"timeout": "timed out"}
TAKE_OVER_HINT = (
    ".\nIf the hypershift-operator is down for good, take_over_cleanup=true (with take_over_after below "
    "cluster_grace_period) takes over its part - the NodePools' MachineSets and Machines, the CAPI Cluster, the "
    "AWSEndpointServices, the HostedControlPlane and the HCP namespace, by ID - and removes "
    "hypershift.openshift.io/finalizer only where what it guards is verified gone")


def gates_plan_message(gates, grace_period, will_delete, take_over, take_over_after):
    """The check-mode plan of Phase 3: whether the HostedCluster would be deleted, the gates in order within
    ``grace_period`` seconds, and, with ``take_over``, when a stalled gate would be taken over."""
    gates = plain_list(gates, "hosted_cluster_gates_plan_message", "the gates of hosted_cluster_gates")
    return "%sat most %s s in all for:\n%s%s" % (
        "would delete the HostedCluster, then wait " if will_delete else "would wait ", printed(grace_period),
        " -> ".join(str(g.get("name")) for g in dicts(gates)),
        ("; take_over_cleanup: a gate with no progress for %s s would be taken over from the hypershift-operator "
         "(teardown.gates.hosted_cluster_take_over), its finalizers removed only on verified absence" % (take_over_after,))
        if take_over else "")


def _where(obj):
    return "%s/%s" % (printed(obj.get("namespace") or ""), printed(obj.get("name")))


def _condition(c):
    reason = ""
    if c.get("reason"):
        reason = " (%s%s)" % (str(c["reason"]), (": " + str(c["message"])) if c.get("message") else "")
    return " %s=%s%s" % (printed(c.get("type")), printed(c.get("status")), reason)


def _finalizer_owner(f):
    if not isinstance(f, dict):
        return " " + printed(f)
    return " %s%s" % (printed(f["name"]) if "name" in f else printed(f), (" (" + str(f["owner"]) + ")") if f.get("owner") else "")


def _cpo_hint(manifest, guest_volumes, guest_groups=None):
    """For a HostedControlPlane held by CPO's finalizer: whose it is, the guest's resources it guards, and the way out."""
    guest = hcp_owners.guest_manifest(manifest if isinstance(manifest, dict) else {}, guest_volumes or [],
                                      guest_groups or [])
    return (".\nOn the HostedControlPlane, hypershift.openshift.io/finalizer is CPO's (control-plane-operator): it stays "
            "until HCCO (hosted-cluster-config-operator) has destroyed the guest's cloud resources, and these are left "
            "in AWS: %s. If CPO and HCCO are down for good, take_over_cleanup=true reads them gone (their Deployments "
            "absent or not ready, CloudResourcesDestroyed unchanged for take_over_after), deletes those resources by ID "
            "when the cleanup annotation asks for it (destroy_cloud_resources), reads each gone, and only then removes "
            "CPO's finalizer" % hcp_owners.guest_text(guest))


def gate_stop_message(gate, diagnosis, take_over, hc_present, manifest=None, guest_volumes=None, guest_groups=None):
    """Why the run stops at a gate of wait_gate: its state and duration, the first object left with its finalizers,
    the failed queries, what up to three objects say they wait for, the diagnosis of deletion_info (conditions,
    finalizer owners) and, for a timeout held by the hypershift-operator's finalizer, the take-over hint."""
    name = "hosted_cluster_gate_stop_message"
    gate = one_dict(gate, name, "a gate of wait_gate")
    diagnosis = one_dict(diagnosis, name, "the result of deletion_info (or {})")
    remaining = dicts(gate.get("remaining", []))
    state = gate.get("state")
    if state == "stalled":
        said = "stalled (no progress since " + str(gate.get("last_progress", "?")) + ")"
    else:
        said = GATE_STATES.get(state, "is unknown (a query failed; absence is not proven)")
    out = ["gate '%s' %s after %s s; %d object(s) remain" % (
        printed(gate.get("name")), said, printed(gate.get("duration", "?")), len(remaining))]
    if remaining:
        first = remaining[0]
        out.append(", first: %s %s (finalizers: %s)" % (
            printed(first.get("kind")), _where(first), ", ".join(str(f) for f in first.get("finalizers", [])) or "none"))
    out.extend("; query %s failed: %s" % (printed(s.get("kind")), printed(s.get("error", "?")))
               for s in dicts(gate.get("unknown_selectors", [])))
    out.extend("; %s %s says %s" % (printed(r.get("kind_label")), _where(r), printed(r.get("waiting_for")))
               for r in [r for r in remaining if "waiting_for" in r][:3])
    conditions = dicts(diagnosis.get("conditions"))
    if conditions:
        out.append("; its conditions:" + ",".join(_condition(c) for c in conditions))
    finalizers = diagnosis.get("finalizers") or []
    if finalizers:
        out.append("; finalizer owners:" + "".join(_finalizer_owner(f) for f in finalizers))
    held_by_ho = any(HO_FINALIZER in (r.get("finalizers", []) or []) for r in remaining)
    held_hcp = [r for r in remaining if r.get("kind") == "HostedControlPlane" and HO_FINALIZER in (r.get("finalizers") or [])]
    if state == "timeout" and not take_over and hc_present and held_hcp:
        out.append(_cpo_hint(manifest, guest_volumes, guest_groups))
    elif state == "timeout" and not take_over and hc_present and held_by_ho:
        out.append(TAKE_OVER_HINT)
    return "".join(out)


def _aws_resource(r):
    return "%s %s (%s)" % (re.sub("^AWS::", "", str(r.get("type"))), printed(r.get("id")), printed(r.get("action", "delete")))


def aws_plan_message(result):
    """The check-mode plan of Phase 4: each level of the aws_infra_cleanup plan (IAM last), each resource as
    TYPE ID (ACTION), then how many IAM resources preserve_iam retains, then what is kept (tagged
    teardown.gates/protected) and what waits on it, by ID."""
    result = one_dict(result, "hosted_cluster_aws_plan_message", "the result of aws_infra_cleanup, or {}")
    levels = list(result.get("plan", []) or [])
    retained = [r for r in dicts(result.get("resources", [])) if r.get("outcome") == "retained"]
    kept = [r for r in dicts(result.get("resources", [])) if r.get("outcome") == "kept"]
    blocked = [r for r in dicts(result.get("resources", [])) if r.get("outcome") == "blocked"]
    # what the protect tag keeps, and what waits on it: never deleted, shown by ID with why
    held = ""
    if kept:
        held += " Kept, never deleted: %s." % ", ".join("%s %s (%s)" % (
            printed(r.get("type")), printed(r.get("id")), printed(r.get("reason"))) for r in kept)
    if blocked:
        held += " Not deleted, it waits on a kept one: %s." % ", ".join(
            "%s %s" % (printed(r.get("type")), printed(r.get("id"))) for r in blocked)
    return "".join("level %d: %s. " % (n, ", ".join(_aws_resource(r) for r in dicts(level)))
                   for n, level in enumerate(levels, 1)) + "%d IAM resources retained (preserve_iam)." % len(retained) + held
