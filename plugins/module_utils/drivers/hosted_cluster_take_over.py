# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_take_over module's driver: take over a stalled HostedCluster teardown (take_over.TakeOver,
reading and writing through KubeReads, which plans only in check mode) and say what was removed and what stays."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import CheckModeWrite
from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift_hcp_owners as hcp_owners
from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import (
    ENDPOINT_FINALIZER as ENDPOINT_FINALIZER_TEXT,
    HO_ENDPOINT_FINALIZER,
)
from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift_take_over import (
    OWNER,
    TakeOver,
    Unknown,
    blocker_text,
    oidc_evidence,
)
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import utc_iso

CALLER = "hosted_cluster_take_over"


def validate(p):
    """Input errors, each naming the option; empty when the input is valid."""
    errors = []
    for opt in ("timeout", "request_timeout", "poll_interval"):
        if p[opt] <= 0:
            errors.append("%s: must be more than 0 seconds, got %s" % (opt, p[opt]))
    for opt in ("name", "namespace", "uid", "infra_id"):
        if not p[opt]:
            errors.append("%s: required, not empty" % opt)
    if p.get("take_over_after") is not None and p["take_over_after"] <= 0:
        errors.append("take_over_after: must be more than 0 seconds, got %s" % p["take_over_after"])
    owners = p.get("hcp_owners") or {}
    if p["part"] == "hcp_finalizer" and not ((owners.get("hcp") or {}).get("uid") or owners.get("endpoint_services")
                                             or owners.get("ho_endpoint_services")):
        errors.append("hcp_owners: required with part=hcp_finalizer (the evidence a first take-over returned)")
    return errors


def hcp_namespace(p):
    """The hosted control plane's namespace: O(hcp_namespace), else <namespace>-<name with dots as dashes>."""
    return p["hcp_namespace"] or "%s-%s" % (p["namespace"], p["name"].replace(".", "-"))


def taken_over(p, started):
    """The start of RV(taken_over): who, which part, why (the stalled gate), when."""
    gate = p["stalled_gate"] or {}
    reason = {"gate": gate.get("name"), "state": gate.get("state"), "last_progress": gate.get("last_progress"),
              "last_progress_what": gate.get("last_progress_what"),
              "held_by": ["%s %s/%s" % (r.get("kind"), r.get("namespace") or "", r.get("name"))
                          for r in (gate.get("remaining") or [])[:10]]} if gate else {}
    return {"owner": OWNER, "part": p["part"], "reason": reason, "started": utc_iso(started)}


def guest_resources(p):
    """The guest's cloud resources (type -> IDs): those a first take-over recorded, else the baseline's guest part."""
    recorded = (p.get("hcp_owners") or {}).get("guest_resources")
    if recorded is not None:
        return recorded
    return hcp_owners.guest_manifest(p.get("aws_manifest"), p.get("guest_volumes"), p.get("guest_groups"))


def endpoints_message(p, job):
    """The failure message when the take-over stopped at the AWSEndpointServices (HS-6) that CPO's finalizer (CPO read
    gone) or HO's own endpoint finalizer (HS-31, HO stalled) holds: the evidence, each AWSEndpointService with the AWS
    IDs left (with why, such as a configuration not tagged as this cluster's), and whether this run deletes them."""
    ho = job.hcp_owners
    parts = []
    if ho.get("endpoint_services"):
        parts.append("%s, held by %s (CPO's): its owner %s is gone - %s" % (
            hcp_owners.endpoint_services_text(ho["endpoint_services"]), ENDPOINT_FINALIZER_TEXT,
            hcp_owners.ENDPOINT_OWNER, "; ".join("%s: %s" % (e["what"], e["state"]) for e in ho.get("evidence") or [])))
    if ho.get("ho_endpoint_services"):
        parts.append("%s, held by %s (HO's): its owner %s made no progress - %s" % (
            hcp_owners.endpoint_services_text(ho["ho_endpoint_services"]), HO_ENDPOINT_FINALIZER,
            hcp_owners.HO_ENDPOINT_OWNER,
            "; ".join("%s: %s" % (e["what"], e["state"]) for e in ho.get("ho_evidence") or [])))
    left = [x for b in job.blockers if b.get("kind") == "AWSEndpointService" for x in b.get("aws_left") or []]
    if left:
        stays = {(True, False): "CPO's finalizer stays", (False, True): "HO's finalizer stays"}.get(
            (bool(ho.get("endpoint_services")), bool(ho.get("ho_endpoint_services"))), "their finalizers stay")
        then = "the AWS cleanup did not verify these gone: %s; %s on them" % ("; ".join(left), stays)
    else:
        then = ("their AWS resources are for this run to delete by ID and verify gone before the finalizers come "
                "off (a VPC endpoint service configuration only when tagged kubernetes.io/cluster/%s=owned; the "
                "hypershift-operator itself drops CPO's only 10 minutes after their deletion)" % p["infra_id"])
    return "take-over of HostedCluster %s/%s stopped at %s; %s" % (p["namespace"], p["name"], "; and ".join(parts), then)


def owners_gone_message(p, job):
    """The failure message when the HostedControlPlane is held by CPO's finalizer and CPO and HCCO are read gone:
    their evidence, the guest's resources left in AWS, and whether this run deletes them (the cleanup annotation)."""
    ho = job.hcp_owners
    guest = hcp_owners.guest_text(guest_resources(p))
    left = [x for b in job.blockers for x in b.get("guest_left") or []]
    if left:
        then = ("the AWS cleanup did not verify these gone: %s; CPO's finalizer stays on the HostedControlPlane"
                % "; ".join(left))
    elif p.get("guest_cleanup"):
        then = ("the guest's cloud resources are for this run to delete by ID and verify gone before CPO's finalizer "
                "comes off: %s" % guest)
    else:
        then = ("the guest's cloud resources are left by request (no cleanup annotation, destroy_cloud_resources "
                "false): %s; CPO's finalizer stays on the HostedControlPlane, as it guards them" % guest)
    return ("take-over of HostedCluster %s/%s stopped at HostedControlPlane %s/%s, held by %s (%s): its owners %s "
            "are gone - %s; %s" % (
                p["namespace"], p["name"], ho["hcp"].get("namespace"), ho["hcp"].get("name"), ho["finalizer"],
                "CPO's", ho["owners"], "; ".join("%s: %s" % (e["what"], e["state"]) for e in ho["evidence"]), then))


def stopped_message(p, job):
    """The failure message when objects remain after the timeout, so the finalizers that guard them stay."""
    if job.hcp_owners and (job.hcp_owners.get("endpoint_services") or job.hcp_owners.get("ho_endpoint_services")):
        return endpoints_message(p, job)
    if job.hcp_owners:
        return owners_gone_message(p, job)
    return ("take-over of HostedCluster %s/%s stopped after %.0f s: %d object(s) remain, so the "
            "finalizers that guard them stay: %s. Finalizers removed: %s" % (
                p["namespace"], p["name"], p["timeout"], len(job.blockers),
                "; ".join("%s, guarded by %s" % (blocker_text(b), b.get("guarded_by")) for b in job.blockers[:5]),
                ", ".join("%s from %s %s" % (r["finalizer"], r["object"]["kind"], r["object"]["name"])
                          for r in job.removed) or "none"))


def check(module):
    errors = validate(module.params)
    if errors:
        module.fail_json(msg="invalid input, nothing changed: " + "; ".join(errors))


def client_failed(module, err, started=None):
    fail_from(module, err, then="nothing was taken over", taken_over=dict(taken_over(module.params, started),
                                                                          verified=False),
              finalizers_removed=[], blockers=[], steps=[], planned=[], inspect_next=[], hcp_owners={})


def run(module, reads):
    p = module.params
    taken = taken_over(p, reads.started)
    hc = {"namespace": p["namespace"], "name": p["name"], "uid": p["uid"]}
    job = TakeOver(reads, hc, p["infra_id"], hcp_namespace(p), time.monotonic() + p["timeout"],
                   check_mode=module.check_mode, poll=p["poll_interval"], take_over_after=p.get("take_over_after"))
    error = None
    try:
        if p["part"] == "operator":
            verified = job.run()
        elif p["part"] == "hcp_finalizer":
            owners = p["hcp_owners"]
            # CPO's AWSEndpointServices first (HS-21: their AWS IDs verified gone), HO's (HS-31: the configuration,
            # deleted only when tagged as this cluster's, verified gone), then the HCP (the guest's)
            verified = job.release_endpoint_services(owners.get("endpoint_services"), owners.get("evidence") or [],
                                                     p["aws_cleanup"])
            verified = job.release_endpoint_services(
                owners.get("ho_endpoint_services"), owners.get("ho_evidence") or [], p["aws_cleanup"],
                finalizer=HO_ENDPOINT_FINALIZER, taken_over_from=hcp_owners.HO_ENDPOINT_OWNER) and verified
            hcp_uid = (owners.get("hcp") or {}).get("uid")  # none when it stopped at HS-6 with the HCP gone
            if hcp_uid and owners.get("guest_cleanup", True):
                ok, evidence, left = hcp_owners.guest_evidence(p["aws_cleanup"], guest_resources(p))
                verified = job.release_hcp(hcp_uid, owners.get("evidence") or [], ok, evidence, left) and verified
            elif hcp_uid:  # left by request: CPO's finalizer on the HCP guards them, and stays
                verified = job.release_hcp(hcp_uid, owners.get("evidence") or [], False, [], [
                    "the guest's cloud resources, left by request (%s)" % hcp_owners.guest_text(
                        guest_resources(p))]) and verified
        else:
            ok, how = oidc_evidence(p["aws_cleanup"], p["aws_manifest"], p["oidc_bucket"], p["infra_id"])
            verified = job.release_oidc(ok, how)
    except (Unknown, ResourceLookupError) as e:  # a kind that discovery could not find: unknown, as any read
        verified, error = False, str(e)
    except CheckModeWrite as e:  # TakeOver plans in check mode; reaching a write there is a bug, and nothing was sent
        fail_from(module, e, then="nothing was changed", taken_over=dict(taken, verified=False), finalizers_removed=[],
                  blockers=[], steps=job.steps, planned=job.planned, inspect_next=[], hcp_owners={})
    if job.hcp_owners:  # what the guest cleanup is to delete and verify, and whether this run may
        job.hcp_owners.update(guest_resources=guest_resources(p), guest_cleanup=p["guest_cleanup"])
        # what the AWS cleanup is to delete by ID: the guest's (when asked for), CPO's AWSEndpointServices' and
        # HO's (their configurations: the cleanup checks each tagged as this cluster's first, require_owned)
        job.hcp_owners["cleanup_manifest"] = hcp_owners.merge_manifests(
            guest_resources(p) if p["guest_cleanup"] else {},
            *[e.get("resources") for e in (job.hcp_owners.get("endpoint_services") or [])
              + (job.hcp_owners.get("ho_endpoint_services") or [])])
    taken.update(ended=utc_iso(), verified=verified and error is None, finalizers_removed=job.removed,
                 blockers=job.blockers, error=error)
    out = dict(changed=bool(job.removed or [s for s in job.steps if s["step"] == "delete"]) or (
        module.check_mode and bool(job.planned)), taken_over=taken, finalizers_removed=job.removed,
        blockers=job.blockers, steps=job.steps, planned=job.planned, hcp_owners=job.hcp_owners or {},
        inspect_next=["%s - while it remains, %s stays" % (blocker_text(b), b.get("guarded_by")) for b in job.blockers[:10]])
    if error:
        module.fail_json(msg="take-over of HostedCluster %s/%s stopped: %s. Finalizers removed so far: %d" % (
            p["namespace"], p["name"], error, len(job.removed)), **out)
    if job.blockers:
        module.fail_json(msg=stopped_message(p, job), **out)
    module.exit_json(**out)
