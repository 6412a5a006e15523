# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_destroy role's verification (Phase 6, steps of hosted_cluster_destroy_step): one check per
read again (verification_checks) and the verification in one line (verification_message)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import dicts, one_dict, plain_list, printed


# the kinds that must be gone from the HCP namespace, listed one check each when the namespace is still there
MUST_GO = ("HostedControlPlane", "Machine", "AWSMachine", "MachineSet", "MachineDeployment", "Cluster", "AWSCluster",
           "NodePool", "HostedCluster")


def _namespace_checks(answer, contents, complete, retained):
    """The checks of an HCP namespace still there: each kind that must go, the other objects, the namespace."""
    ns = printed(answer["item"].get("name"))
    checks = []
    for kind in MUST_GO:
        left = [c for c in contents if c.get("kind") == kind]
        checks.append({"what": kind + " in " + ns, "state": "present" if left else ("absent" if complete else "unknown"),
                       "count": len(left), "names": [c.get("name") for c in left], "error": ""})
    others = [c for c in contents if c.get("kind") not in MUST_GO]
    checks.append({"what": "other objects in " + ns + " (pods, Services, PVCs ...)",
                   "state": ("retained" if retained else "present") if others else ("absent" if complete else "unknown"),
                   "count": len(others), "names": ["%s %s" % (c.get("kind"), c.get("name")) for c in others], "error": ""})
    return checks


def _nodepools_check(listed, name, namespace):
    """The NodePools check: deletion_info's list answer (``listed``, None when no list was read: none for an
    infrastructure-only destroy, which has no NodePools to look for, else unknown)."""
    what = "NodePools of %s in %s" % (name, namespace)
    if listed is None:
        if len(name) == 0:
            return {"what": what, "state": "absent", "count": 0, "names": [], "error": ""}
        return {"what": what, "state": "unknown", "count": 0, "names": [], "error": "the NodePools were not listed"}
    state = listed.get("state")
    left = list(listed.get("names") or []) if state == "present" else []
    return {"what": what, "state": state, "count": len(left), "names": left,
            "error": printed(listed.get("msg") or "") if state == "unknown" else ""}


def _cli_secrets_check(listed):
    """The check of the Secrets the CLI made (Phase 5 deleted them): deletion_info's list answer by their label."""
    item = listed["item"]
    what = "Secrets labelled %s in %s" % (printed(item.get("label_selector")), printed(item.get("namespace")))
    state = listed.get("state")
    left = list(listed.get("names") or []) if state == "present" else []
    return {"what": what, "state": state, "count": len(left), "names": left,
            "error": printed(listed.get("msg") or "") if state == "unknown" else ""}


def verification_checks(answers, name, namespace, namespace_retained):
    """One check per read of Phase 6 (what, state, count, names, error): the HostedCluster and the HCP namespace as
    deletion_info answered (a namespace still there kind by kind, "retained" with ``namespace_retained``), then
    the NodePools left, from the same run's list answer (the entry without a name), then, when they were read, the
    Secrets the CLI made (the Secret list, by their label)."""
    fname = "hosted_cluster_verification_checks"
    answers = plain_list(answers, fname, "the objects of deletion_info")
    checks = []
    listed = None
    secrets = []
    for r in dicts(answers):
        item = r["item"]
        if "name" not in item:  # a list: the NodePools', and the CLI's Secrets', reported last
            if item.get("kind") == "Secret":
                secrets.append(_cli_secrets_check(r))
            else:
                listed = r
            continue
        kind, state = item.get("kind"), r.get("state")
        what = "%s %s%s" % (kind, ("%s/" % item["namespace"]) if "namespace" in item else "", item.get("name"))
        if kind == "Namespace" and state == "present":
            ns_report = r.get("namespace") if isinstance(r.get("namespace"), dict) else {}
            checks.extend(_namespace_checks(r, ns_report.get("contents", []), ns_report.get("contents_complete", False),
                                            namespace_retained))
            checks.append({"what": what, "state": "retained" if namespace_retained else "present", "count": 1,
                           "names": [item.get("name")], "error": ""})
        else:
            query = r.get("query") if isinstance(r.get("query"), dict) else {}
            checks.append({"what": what + (" and everything in it" if kind == "Namespace" else ""), "state": state,
                           "count": 1 if state == "present" else 0, "names": [item.get("name")] if state == "present" else [],
                           "error": (query.get("error") or "") if state == "unknown" else ""})
    checks.append(_nodepools_check(listed, name, namespace))
    return checks + secrets


def verification_message(checks, aws_check, manifest):
    """The verification in one line: each check as WHAT: STATE (NAMES), then the AWS verdict of the read-only
    aws_infra_cleanup run (``aws_check``) on the tracked ``manifest``."""
    fname = "hosted_cluster_verification_message"
    checks = plain_list(checks, fname, "the checks of hosted_cluster_verification_checks")
    aws_check = one_dict(aws_check, fname, "the result of aws_infra_cleanup in check mode")
    if aws_check.get("verified", len(manifest) == 0):
        aws = "every tracked ID absent or terminal"
    else:
        planned = ", ".join(str(r.get("id")) for r in dicts(aws_check.get("resources", [])) if r.get("outcome") == "planned")
        aws = "NOT verified: " + str(planned or aws_check.get("msg", "query failed"))
    return "%sAWS: %s" % ("".join("%s: %s%s; " % (printed(c.get("what")), printed(c.get("state")), (
        " (%s)" % ", ".join(str(n) for n in c["names"])) if c.get("names") else "") for c in dicts(checks)), aws)
