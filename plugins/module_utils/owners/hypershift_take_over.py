# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Take over the HyperShift operator's part of one HostedCluster's teardown, by ID, and release its
finalizers only on verified absence.

The HostedCluster controller (HO) and the NodePool controller run in one process, the
hypershift-operator Deployment: when it is down, both are. Their delete path, as HyperShift's
source has it (hostedcluster_controller.go ``delete()``, nodepool_controller.go ``delete()``;
the rules HS-4 to HS-11 and HS-15 of tests/sandbox/spec/hypershift.md):

1. request deletion of every NodePool of the HostedCluster (HS-4);
2. per NodePool, delete its MachineDeployments and MachineSets (annotated
   ``hypershift.openshift.io/nodePool: <ns>/<name>``) and wait until none of its Machines remains;
   then its finalizer ``hypershift.openshift.io/finalizer`` comes off (HS-15);
3. copy the cleanup annotation (``hypershift.openshift.io/cleanup-cloud-resources: "true"``) from the
   HostedCluster to the HostedControlPlane, so that CPO and HCCO remove the guest's cloud resources (HS-3);
   request deletion of the CAPI Cluster named after the infra ID and wait for its absence (HS-5);
4. delete the AWSEndpointServices of the HCP namespace and wait while any remain (HS-6); one held by HO's own
   ``hypershift.openshift.io/hypershift-operator-finalizer`` for ``take_over_after`` seconds is HO's endpoint
   controller's part (HS-31): its VPC endpoint service configuration, checked tagged as this cluster's, is
   deleted by ID and verified gone before that finalizer comes off (``release_endpoint_services``);
5. delete the HostedControlPlane if it is still there and wait (HS-7);
6. unless the skip annotation is "true", delete the HCP namespace and wait (HS-9);
7. then the HostedCluster's ``hypershift.openshift.io/finalizer`` comes off (HS-11).

The OIDC documents (HS-8, finalizer ``hypershift.io/aws-oidc-discovery``) are in S3: the AWS
phase deletes them and verifies them gone by ID, and only that verification releases the OIDC
finalizer (``release_oidc``).

Each wait is a poll of successful reads within one deadline. A finalizer comes off only when a
successful read shows what it guards absent, by a JSON patch that tests the UID and the value at
its index (finalizers.build_remove_patch). A step whose objects remain at the deadline stops the
take-over: they are named as blockers with their finalizers' owners, and no finalizer that guards
them comes off. A read that fails is unknown, never absent.

``TakeOver(kube, ...)`` does the work; ``kube`` is the narrow interface to the API server
(``list``, ``get``, ``delete``, ``annotate``, ``remove_finalizers``), so the logic is testable without one;
the module passes k8s_reads' ``KubeReads``, whose check-mode guard refuses the writes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.teardown.gates.plugins.module_utils.k8s.diagnosis import (
    deleting_condition,
    finalizer_owner,
    kind_label,
    object_text,
    status_conditions,
)
from ansible_collections.teardown.gates.plugins.module_utils.aws.graph import PREFIX
from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import (
    CAPI_API as CAPI, CLEANUP_ANN, ENDPOINT_FINALIZER, HO_ENDPOINT_FINALIZER, HO_FINALIZER, HYPERSHIFT_API as HS,
    NODEPOOL_ANN, OIDC_FINALIZER, SKIP_NS_ANN)
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import utc_iso
from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift_hcp_owners as hcp_owners
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

OWNER = "hypershift-operator (HostedCluster and NodePool controllers)"
WORKER_KINDS = ("MachineDeployment", "MachineSet", "Machine")
PREFIX_TYPE = PREFIX  # the OIDC documents' prefix, as the inventory names it


class Unknown(TeardownGatesError):
    """A read failed: what it was to show is unknown, and the take-over stops there."""

    unknown = True


def _meta(obj):
    return (obj or {}).get("metadata") or {}


def _ref(obj, api_version=None):
    m = _meta(obj)
    out = {"kind": obj.get("kind"), "api_version": obj.get("apiVersion") or api_version, "name": m.get("name"),
           "uid": m.get("uid")}
    if m.get("namespace"):
        out["namespace"] = m.get("namespace")
    return out


def describe_blocker(obj, api_version=None):
    """What holds a step: the object, its finalizers with their owners, and what it says it waits for."""
    out = _ref(obj, api_version)
    out["kind_label"] = kind_label(out["api_version"], out["kind"])
    out["deleting"] = bool(_meta(obj).get("deletionTimestamp"))
    out["finalizers"] = [finalizer_owner(f, out["api_version"], out["kind"]) for f in _meta(obj).get("finalizers") or []]
    if obj.get("kind") == "Namespace":
        out["spec_finalizers"] = list((obj.get("spec") or {}).get("finalizers") or [])
    why = deleting_condition(status_conditions(obj))
    if why:
        out["waiting_for"] = why
    return out


def blocker_text(b):
    return object_text(b.get("kind_label") or b.get("kind"), b.get("namespace"), b.get("name"), b.get("uid"),
                       ["%s (%s)" % (f["name"], f["owner"]) for f in b.get("finalizers") or []], b.get("waiting_for"))


class TakeOver(object):
    """One HostedCluster's take-over. ``hc`` is ``{"namespace", "name", "uid"}``; ``deadline`` a time.monotonic()."""

    def __init__(self, kube, hc, infra_id, hcp_namespace, deadline, check_mode=False, poll=2.0,
                 clock=time.monotonic, sleep=time.sleep, take_over_after=None, wall=time.time):
        self.kube, self.hc, self.infra_id, self.hcp_ns = kube, hc, infra_id, hcp_namespace
        # take_over_after: how long the HCP's cleanup must show no progress before its owners count as gone
        # (None: never); hcp_owners: that evidence, once read (the HCP stays, CPO's finalizer on it)
        self.take_over_after, self.wall, self.hcp_owners = take_over_after, wall, None
        self.deadline, self.check_mode, self.poll, self.clock, self.sleep = deadline, check_mode, poll, clock, sleep
        self.steps = []
        self.removed = []
        self.blockers = []
        self.planned = []

    # -- bookkeeping ------------------------------------------------------------------------------
    def _step(self, step, detail, **extra):
        entry = {"at": utc_iso(), "step": step, "detail": detail}
        entry.update(extra)
        self.steps.append(entry)

    def _list(self, api_version, kind, namespace=None):
        r = self.kube.list(api_version, kind, namespace)
        if not r["ok"]:
            raise Unknown("listing %s in %s failed (%s): its state is unknown" % (
                kind_label(api_version, kind), namespace or "the cluster", r["query"].get("error")))
        return r["items"]

    def _get(self, api_version, kind, name, namespace=None):
        r = self.kube.get(api_version, kind, name, namespace)
        if r["state"] == "unknown":
            raise Unknown("reading %s %s%s failed (%s): its state is unknown" % (
                kind_label(api_version, kind), (namespace + "/") if namespace else "", name, r["query"].get("error")))
        return r["object"]

    def _delete(self, api_version, obj, why):
        """Request deletion of ``obj`` (UID precondition) unless it is already deleting."""
        m = _meta(obj)
        if m.get("deletionTimestamp"):
            return
        what = "%s %s%s" % (kind_label(api_version, obj.get("kind")), (m["namespace"] + "/") if m.get("namespace")
                            else "", m.get("name"))
        if self.check_mode:
            self.planned.append("would delete %s (%s)" % (what, why))
            return
        r = self.kube.delete(api_version, obj.get("kind"), m.get("name"), m.get("namespace"), m.get("uid"))
        if r["state"] in ("deleted", "absent"):
            self._step("delete", "requested deletion of %s (%s)" % (what, why), object=_ref(obj, api_version),
                       answer=r["state"])
            return
        raise Unknown("the deletion of %s was %s (%s)" % (what, r["state"], r["query"].get("error")))

    def _wait(self, what, probe, stop=None):
        """Poll ``probe()`` -> list of holding objects (empty: absent, by a successful read) until the deadline,
        or until ``stop()`` says waiting is pointless. Returns ``(holders, verified_at)``: holders empty and
        verified_at set when absence was read."""
        while True:
            holders = probe()
            if not holders:
                at = utc_iso()
                self._step("verified", "%s: absent (a successful read at %s found none)" % (what, at))
                return [], at
            if stop is not None and stop():
                return holders, None
            if self.check_mode:  # nothing was deleted, so nothing is waited for: the plan says what would be
                self.planned.append("would wait until %s are gone (%d now)" % (what, len(holders)))
                return [], "not verified (check mode)"
            if self.clock() >= self.deadline:
                return holders, None
            self.sleep(min(self.poll, max(0.0, self.deadline - self.clock())))

    def _release(self, api_version, kind, name, namespace, uid, finalizer, evidence, taken_over_from=OWNER):
        """Remove one owner finalizer from one object, with the UID and the list value tested."""
        what = "%s %s%s" % (kind_label(api_version, kind), (namespace + "/") if namespace else "", name)
        if self.check_mode:
            self.planned.append("would remove %s from %s, after verifying absent: %s" % (
                finalizer, what, "; ".join(e["what"] for e in evidence)))
            return None
        r = self.kube.remove_finalizers(api_version, kind, name, namespace, uid, [finalizer])
        if r["state"] == "unknown":
            raise Unknown("removing %s from %s got no answer (%s)" % (finalizer, what, r.get("error")))
        if r["state"] == "refused":
            raise Unknown("removing %s from %s was refused: %s" % (finalizer, what, r.get("error")))
        if r["state"] in ("absent", "not_held"):
            self._step("release", "%s: %s already gone (%s)" % (what, finalizer, r["state"]))
            return None
        entry = {"object": {"api_version": api_version, "kind": kind, "namespace": namespace, "name": name},
                 "uid": uid, "finalizer": finalizer, "owner": finalizer_owner(finalizer, api_version, kind)["owner"],
                 "taken_over_from": taken_over_from, "evidence": evidence, "at": utc_iso()}
        if r.get("note"):
            entry["note"] = r["note"]
        self.removed.append(entry)
        self._step("release", "removed %s from %s (uid %s)" % (finalizer, what, uid))
        return entry

    # -- the operator's delete path ---------------------------------------------------------------
    def nodepools(self):
        return [np for np in self._list(HS, "NodePool", self.hc["namespace"])
                if (np.get("spec") or {}).get("clusterName") == self.hc["name"]]

    def _workers_of(self, key):
        out = []
        for kind in WORKER_KINDS:
            out += [o for o in self._list(CAPI, kind, self.hcp_ns)
                    if ((_meta(o).get("annotations") or {}).get(NODEPOOL_ANN)) == key]
        return out

    def take_over_nodepools(self):
        """Steps 1 and 2. Returns True when every NodePool's workers are verified gone."""
        pools = self.nodepools()
        for np in pools:
            self._delete(HS, np, "HS-4: the HostedCluster is deleting")
        all_clear = True
        for np in pools:
            m = _meta(np)
            key = "%s/%s" % (m["namespace"], m["name"])
            first = self._workers_of(key)
            for o in first:
                if o.get("kind") != "Machine":
                    self._delete(CAPI, o, "HS-15: NodePool %s is deleting" % key)
            holders, at = self._wait("the MachineDeployments, MachineSets and Machines of NodePool %s" % key,
                                     lambda k=key: self._workers_of(k))
            if holders:
                all_clear = False
                self.blockers += [dict(describe_blocker(h, CAPI), guarded_by="%s on NodePool %s" % (HO_FINALIZER, key))
                                  for h in holders]
                continue
            if HO_FINALIZER in (m.get("finalizers") or []):
                evidence = [{"what": "%s %s/%s" % (o.get("kind"), self.hcp_ns, _meta(o).get("name")),
                             "uid": _meta(o).get("uid"), "verified_absent_at": at} for o in first]
                evidence.append({"what": "every MachineDeployment, MachineSet and Machine annotated %s=%s in %s"
                                 % (NODEPOOL_ANN, key, self.hcp_ns), "verified_absent_at": at})
                self._release(HS, "NodePool", m["name"], m["namespace"], m["uid"], HO_FINALIZER, evidence)
        return all_clear

    def _one(self, api_version, kind, name, namespace):
        def probe():
            obj = self._get(api_version, kind, name, namespace)
            return [obj] if obj else []
        return probe

    def _all(self, api_version, kind, namespace):
        def probe():
            return self._list(api_version, kind, namespace)
        return probe

    def propagate_cleanup(self, hc_obj):
        """HS-3: the HostedCluster's cleanup annotation, when "true", onto the HostedControlPlane (never cleared)."""
        if (_meta(hc_obj).get("annotations") or {}).get(CLEANUP_ANN) != "true":
            return
        hcp = self._get(HS, "HostedControlPlane", self.hc["name"], self.hcp_ns)
        if hcp is None or (_meta(hcp).get("annotations") or {}).get(CLEANUP_ANN) == "true":
            return
        what = "HostedControlPlane %s/%s" % (self.hcp_ns, self.hc["name"])
        if self.check_mode:
            self.planned.append("would set %s: \"true\" on %s (HS-3)" % (CLEANUP_ANN, what))
            return
        r = self.kube.annotate(HS, "HostedControlPlane", self.hc["name"], self.hcp_ns, _meta(hcp).get("uid"),
                               CLEANUP_ANN, "true")
        if r["state"] != "done":
            raise Unknown("setting %s on %s failed (%s)" % (CLEANUP_ANN, what, r.get("error")))
        self._step("annotate", "set %s: \"true\" on %s, as the HostedCluster asks (HS-3)" % (CLEANUP_ANN, what))

    def take_over_hosted_cluster(self, hc_obj):
        """Steps 3 to 7. Returns True when the HostedCluster's operator finalizer is released (or was gone)."""
        ann = _meta(hc_obj).get("annotations") or {}
        self.propagate_cleanup(hc_obj)
        steps = [("CAPI Cluster %s/%s" % (self.hcp_ns, self.infra_id), CAPI, "Cluster", self.infra_id, "HS-5"),
                 ("the AWSEndpointServices of %s" % self.hcp_ns, HS, "AWSEndpointService", None, "HS-6"),
                 ("HostedControlPlane %s/%s" % (self.hcp_ns, self.hc["name"]), HS, "HostedControlPlane",
                  self.hc["name"], "HS-7")]
        if ann.get(SKIP_NS_ANN) != "true":
            steps.append(("namespace %s" % self.hcp_ns, "v1", "Namespace", self.hcp_ns, "HS-9"))
        evidence = []
        for what, api_version, kind, name, rule in steps:
            namespace = None if kind == "Namespace" else self.hcp_ns
            probe = self._all(api_version, kind, namespace) if name is None else self._one(api_version, kind, name, namespace)
            for obj in probe():
                self._delete(api_version, obj, "%s: the HostedCluster is deleting" % rule)
            stop = {"HS-5": self._hcp_owners_gone, "HS-6": self._endpoints_held_by_gone_owners,
                    "HS-7": self._hcp_owners_gone}.get(rule)
            holders, at = self._wait(what, probe, stop)
            if holders and self.hcp_owners:
                if self.hcp_owners.get("endpoint_services") or self.hcp_owners.get("ho_endpoint_services"):
                    self.blockers += [self._endpoint_blocker(e) for e in self.hcp_owners.get("endpoint_services") or []]
                    self.blockers += [self._endpoint_blocker(e, finalizer=HO_ENDPOINT_FINALIZER)
                                      for e in self.hcp_owners.get("ho_endpoint_services") or []]
                else:
                    self.blockers.append(self._hcp_blocker())
                return False
            if holders:
                self.blockers += [dict(describe_blocker(h, api_version),
                                       guarded_by="%s on HostedCluster %s/%s" % (HO_FINALIZER, self.hc["namespace"],
                                                                                 self.hc["name"])) for h in holders]
                return False
            evidence.append({"what": what, "verified_absent_at": at})
        pools = self.nodepools()
        if pools:
            self.blockers += [dict(describe_blocker(np, HS), guarded_by="%s on HostedCluster %s/%s" % (
                HO_FINALIZER, self.hc["namespace"], self.hc["name"])) for np in pools]
            return False
        evidence.append({"what": "every NodePool of HostedCluster %s/%s" % (self.hc["namespace"], self.hc["name"]),
                         "verified_absent_at": utc_iso()})
        if HO_FINALIZER in (_meta(hc_obj).get("finalizers") or []):
            self._release(HS, "HostedCluster", self.hc["name"], self.hc["namespace"], self.hc["uid"], HO_FINALIZER,
                          evidence)
        return True

    def _hcp(self):
        return self._get(HS, "HostedControlPlane", self.hc["name"], self.hcp_ns)

    def _hcp_owners_gone(self):
        """Whether CPO and HCCO are read gone and the HCP's cleanup stalled (hypershift_hcp_owners.owners_gone);
        the evidence goes to ``hcp_owners``. Reads only."""
        if self.take_over_after is None:
            return False
        hcp = self._hcp()
        if hcp is None:
            return False
        evidence = hcp_owners.owners_gone(hcp, self._list("apps/v1", "Deployment", self.hcp_ns), self.wall(),
                                          self.take_over_after, HO_FINALIZER)
        if evidence is None:
            return False
        self.hcp_owners = {"hcp": _ref(hcp, HS), "finalizer": HO_FINALIZER, "owners": hcp_owners.OWNERS,
                           "evidence": evidence}
        self._step("verified", "HostedControlPlane %s/%s: its owners are gone - %s" % (
            self.hcp_ns, self.hc["name"], "; ".join("%s: %s" % (e["what"], e["state"]) for e in evidence)))
        return True

    def _endpoints_held_by_gone_owners(self):
        """HS-6 with an owner of the AWSEndpointServices' finalizers read gone. CPO's (HS-21,
        hypershift_hcp_owners.endpoint_owner_gone: its Deployment down, each deleting AWSEndpointService held by its
        finalizer for ``take_over_after`` seconds): those go to ``hcp_owners["endpoint_services"]`` with the AWS IDs
        their status names. HO's (HS-31, ho_endpoint_owner_gone: held by HO's endpoint finalizer that long, the
        hypershift-operator already read stalled): those go to ``hcp_owners["ho_endpoint_services"]`` with the VPC
        endpoint service configuration their status names, and ``require_owned`` asks the AWS cleanup to delete it
        only when it is tagged as this infra ID's. Either part alone stops here; nobody else would release them (HO
        drops CPO's only after 10 minutes, and nobody drops HO's). Reads only."""
        if self.take_over_after is None:
            return False
        eps = self._list(HS, "AWSEndpointService", self.hcp_ns)
        cpo_wait = hcp_owners.held_endpoint_services(eps, ENDPOINT_FINALIZER)
        ho_held, ho_evidence = hcp_owners.ho_endpoint_owner_gone(eps, self.wall(), self.take_over_after,
                                                                 HO_ENDPOINT_FINALIZER)
        if not cpo_wait and ho_held is None:
            return False
        held, evidence = None, None
        if cpo_wait:
            held, evidence = hcp_owners.endpoint_owner_gone(eps, self._list("apps/v1", "Deployment", self.hcp_ns),
                                                            self.wall(), self.take_over_after, ENDPOINT_FINALIZER)
        if held is None and ho_held is None:
            return False
        hcp = self._hcp()  # gone by now as a rule (CAPI deletes it before the Cluster goes): recorded when not
        self.hcp_owners = {"hcp": _ref(hcp, HS) if hcp else {}, "endpoint_services": held or []}
        if held is not None:
            self.hcp_owners.update(finalizer=ENDPOINT_FINALIZER, owners=hcp_owners.ENDPOINT_OWNER, evidence=evidence)
            self._step("verified", "%s: deleting, held by %s (CPO's), CPO gone - %s" % (
                "the AWSEndpointServices of %s" % self.hcp_ns, ENDPOINT_FINALIZER,
                "; ".join("%s: %s" % (e["what"], e["state"]) for e in evidence)))
        else:  # HO's part alone: the message names HO's finalizer and evidence
            self.hcp_owners.update(finalizer=HO_ENDPOINT_FINALIZER, owners=hcp_owners.HO_ENDPOINT_OWNER,
                                   evidence=ho_evidence)
        if ho_held is not None:
            self.hcp_owners.update(ho_endpoint_services=ho_held, ho_finalizer=HO_ENDPOINT_FINALIZER,
                                   ho_owner=hcp_owners.HO_ENDPOINT_OWNER, ho_evidence=ho_evidence,
                                   require_owned={"infra_id": self.infra_id, "resources": hcp_owners.merge_manifests(
                                       *[e["resources"] for e in ho_held])})
            self._step("verified", "%s: deleting, held by %s (HO's), the hypershift-operator stalled - %s" % (
                "the AWSEndpointServices of %s" % self.hcp_ns, HO_ENDPOINT_FINALIZER,
                "; ".join("%s: %s" % (e["what"], e["state"]) for e in ho_evidence)))
        if self.check_mode:
            for fin, entries, tail in ((ENDPOINT_FINALIZER, held or [], ""), (
                    HO_ENDPOINT_FINALIZER, ho_held or [],
                    " (only when tagged kubernetes.io/cluster/%s=owned)" % self.infra_id)):
                for e in entries:
                    self.planned.append("would delete by ID%s and verify absent %s, then remove %s from "
                                        "AWSEndpointService %s/%s" % (tail, hcp_owners.guest_text(e["resources"]),
                                                                      fin, e["namespace"], e["name"]))
        return True

    def _endpoint_blocker(self, e, left=None, finalizer=ENDPOINT_FINALIZER):
        whose = "HO's" if finalizer == HO_ENDPOINT_FINALIZER else "CPO's"
        out = {"kind": "AWSEndpointService", "api_version": HS, "kind_label": kind_label(HS, "AWSEndpointService"),
               "namespace": e.get("namespace"), "name": e.get("name"), "uid": e.get("uid"), "deleting": True,
               "finalizers": [finalizer_owner(finalizer, HS, "AWSEndpointService")],
               "aws_resources": e.get("resources") or {},
               "guarded_by": "%s on AWSEndpointService %s/%s (%s: it stays until %s are verified gone)" % (
                   finalizer, e.get("namespace"), e.get("name"), whose, hcp_owners.guest_text(e.get("resources")))}
        if left is not None:  # the cleanup's reason goes into what the stop message and inspect_next quote
            out["aws_left"] = left
            out["guarded_by"] = out["guarded_by"][:-1] + "; not verified gone: %s)" % "; ".join(left)
        return out

    def release_endpoint_services(self, endpoint_services, owners_evidence, cleanup_resources,
                                  finalizer=ENDPOINT_FINALIZER, taken_over_from=hcp_owners.ENDPOINT_OWNER):
        """Remove ``finalizer`` (CPO's by default; HO's endpoint finalizer for HO's part) from each recorded
        AWSEndpointService (its UID tested) once every AWS ID recorded with it came back from the AWS cleanup verified
        gone; ``owners_evidence``: what showed its owner gone. An ID the cleanup refused (HO's configuration not
        tagged as this cluster's) or could not read is left, and the finalizer with it. Returns True when none is left
        held."""
        all_clear = True
        for e in endpoint_services or []:
            what = "AWSEndpointService %s/%s" % (e["namespace"], e["name"])
            obj = self._get(HS, "AWSEndpointService", e["name"], e["namespace"])
            if obj is None or finalizer not in (_meta(obj).get("finalizers") or []):
                self._step("verified", "%s: gone, or %s already off" % (what, finalizer))
                continue
            if _meta(obj).get("uid") != e.get("uid"):
                raise Unknown("%s has uid %s, not %s: it was recreated; nothing released" % (
                    what, _meta(obj).get("uid"), e.get("uid")))
            ok, evidence, left = hcp_owners.guest_evidence(cleanup_resources, e.get("resources"))
            if not ok:
                all_clear = False
                self.blockers.append(self._endpoint_blocker(e, left, finalizer))
                continue
            owner = [dict(x, verified_absent_at=x.get("read_at")) for x in owners_evidence or []]
            self._release(HS, "AWSEndpointService", e["name"], e["namespace"], e["uid"], finalizer,
                          owner + evidence, taken_over_from=taken_over_from)
        return all_clear

    def _hcp_blocker(self):
        ref = self.hcp_owners["hcp"]
        return dict(ref, kind_label=kind_label(HS, "HostedControlPlane"), deleting=True,
                    finalizers=[finalizer_owner(HO_FINALIZER, HS, "HostedControlPlane")],
                    owners_gone=self.hcp_owners["evidence"],
                    guarded_by="%s on HostedControlPlane %s/%s (CPO's: it stays until the guest's cloud resources "
                               "are verified gone)" % (HO_FINALIZER, ref.get("namespace"), ref.get("name")))

    def release_hcp(self, hcp_uid, owners_evidence, guest_verified, guest_evidence, left):
        """Remove CPO's finalizer from the HostedControlPlane (UID ``hcp_uid``) once the guest's cloud resources
        are verified gone by ID; ``owners_evidence``: what showed CPO and HCCO gone."""
        hcp = self._hcp()
        if hcp is None or HO_FINALIZER not in (_meta(hcp).get("finalizers") or []):
            self._step("verified", "HostedControlPlane %s/%s: gone, or CPO's finalizer already off" % (
                self.hcp_ns, self.hc["name"]))
            return True
        if _meta(hcp).get("uid") != hcp_uid:
            raise Unknown("HostedControlPlane %s/%s has uid %s, not %s: it was recreated; nothing released" % (
                self.hcp_ns, self.hc["name"], _meta(hcp).get("uid"), hcp_uid))
        if not guest_verified:
            self.hcp_owners = {"hcp": _ref(hcp, HS), "finalizer": HO_FINALIZER, "owners": hcp_owners.OWNERS,
                               "evidence": owners_evidence}
            self.blockers.append(dict(self._hcp_blocker(), guest_left=left))
            return False
        evidence = [dict(e, verified_absent_at=e.get("read_at")) for e in owners_evidence or []] + list(guest_evidence)
        self._release(HS, "HostedControlPlane", self.hc["name"], self.hcp_ns, hcp_uid, HO_FINALIZER, evidence,
                      taken_over_from=hcp_owners.OWNERS)
        return True

    def hosted_cluster(self):
        obj = self._get(HS, "HostedCluster", self.hc["name"], self.hc["namespace"])
        if obj is not None and _meta(obj).get("uid") != self.hc["uid"]:
            raise Unknown("HostedCluster %s/%s has uid %s, not %s: it was recreated; nothing taken over" % (
                self.hc["namespace"], self.hc["name"], _meta(obj).get("uid"), self.hc["uid"]))
        return obj

    def run(self):
        """The whole delete path. Returns True when nothing blocks (the operator finalizers are released)."""
        hc_obj = self.hosted_cluster()
        if hc_obj is None:
            self._step("verified", "HostedCluster %s/%s is gone: nothing to take over" % (
                self.hc["namespace"], self.hc["name"]))
            return True
        if not _meta(hc_obj).get("deletionTimestamp") and not self.check_mode:
            raise Unknown("HostedCluster %s/%s is not deleting: a take-over only finishes a deletion that was "
                          "requested" % (self.hc["namespace"], self.hc["name"]))
        pools_clear = self.take_over_nodepools()
        done = self.take_over_hosted_cluster(hc_obj)
        return pools_clear and done and not self.blockers

    def release_oidc(self, verified_absent, how):
        """Remove the OIDC finalizer once the AWS phase verified the OIDC documents gone."""
        hc_obj = self.hosted_cluster()
        if hc_obj is None or OIDC_FINALIZER not in (_meta(hc_obj).get("finalizers") or []):
            return True
        if not verified_absent:
            self.blockers.append({"kind": "S3 prefix", "name": how, "finalizers": [finalizer_owner(OIDC_FINALIZER)],
                                  "guarded_by": "%s on HostedCluster %s/%s" % (OIDC_FINALIZER, self.hc["namespace"],
                                                                               self.hc["name"])})
            return False
        self._release(HS, "HostedCluster", self.hc["name"], self.hc["namespace"], self.hc["uid"], OIDC_FINALIZER,
                      [{"what": how, "verified_absent_at": utc_iso()}])
        return True


def oidc_evidence(cleanup_resources, manifest, bucket, infra_id):
    """Whether the AWS phase verified ``s3://bucket/infra_id/`` empty, and how, from its results.

    ``cleanup_resources``: aws_infra_cleanup's ``resources``; ``manifest``: the baseline's (type -> IDs). A prefix
    the inventory listed and found empty was read absent; one it held must come back from the cleanup with
    ``verified_state: absent``. Without a bucket nothing can be read: not verified."""
    if not bucket:
        return False, "no OIDC bucket is known (oidc_bucket, spec.issuerURL): the OIDC documents cannot be read"
    prefix_id = "%s/%s/" % (bucket, infra_id)
    if prefix_id not in ((manifest or {}).get(PREFIX_TYPE) or []):
        return True, "s3://%s: the inventory's listing found no OIDC document" % prefix_id
    done = [r for r in cleanup_resources or [] if r.get("type") == PREFIX_TYPE and r.get("id") == prefix_id]
    if done and done[0].get("verified_state") == "absent":
        return True, "s3://%s: the AWS cleanup deleted the OIDC documents and read them gone" % prefix_id
    return False, "s3://%s: the AWS cleanup did not verify the OIDC documents gone (%s)" % (
        prefix_id, (done[0].get("outcome") if done else "not in its results"))
