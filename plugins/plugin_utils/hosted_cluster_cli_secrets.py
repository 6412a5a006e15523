# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Secrets ``hypershift create cluster`` made for a cluster (pull secret, SSH key, etcd encryption key ...),
labelled ``hypershift.openshift.io/auto-created-for-infra=<infraID>`` in the HostedCluster's namespace. ``destroy
cluster`` deletes them once the cluster is destroyed and before it removes its finalizer (HC-13 of
tests/sandbox/spec/hypershift.md); the hosted_cluster_destroy role does the same in Phase 5, and reads them again in
Phase 6. Steps of hosted_cluster_destroy_step: what to list (cli_secrets_reads), what the list found
(cli_secrets_found), what the deletes did (cli_secrets_deleted), the line that says so (cli_secrets_message) and
whether the run stops there (cli_secrets_stopped)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import AUTO_INFRA_LABEL
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import (
    as_bool, dicts, parsed_dict, plain_list, printed)

# a label value (at most 63 characters): an infra ID that is not one labels no Secret, and must not reach a selector
# where a comma or an operator would widen it
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


def selector(infra_id):
    """The label selector of the CLI's Secrets of ``infra_id``: the label equal to the infra ID, exactly (a neighbour's
    ``<infraID>-2`` does not match); empty when the infra ID cannot be a label value."""
    infra_id = printed(infra_id)
    return "%s=%s" % (AUTO_INFRA_LABEL, infra_id) if _LABEL_VALUE.match(infra_id) else ""


def cli_secrets_reads(name, namespace, infra_id):
    """The one list M(deletion_info) reads for them: the Secrets of ``namespace`` with the label of ``infra_id``. None
    (``[]``) for an infrastructure-only destroy (no HostedCluster ``name``: the CLI's ``destroy infra`` deletes no
    Secret) or an infra ID no label can carry."""
    sel = selector(infra_id)
    if len(printed(name)) == 0 or not sel:
        return []
    return [{"api_version": "v1", "kind": "Secret", "namespace": printed(namespace), "label_selector": sel}]


def _record(namespace, infra_id):
    return {"namespace": printed(namespace), "selector": selector(infra_id), "listed": False, "error": "",
            "secrets": [], "deleted": [], "absent": [], "planned": [], "failed": []}


def cli_secrets_found(listed, namespace, infra_id):
    """What Phase 5's list found, from M(deletion_info)'s result (V({}) or skipped when nothing was to be listed): the
    record the deletes and the report work from - ``namespace``, ``selector``, ``listed`` (the list answered),
    ``error`` (why not: unknown, never none), ``secrets`` (each ``name`` and ``uid``, sorted by name) and the empty
    ``deleted``, ``absent``, ``planned`` and ``failed`` the deletes fill in."""
    listed = parsed_dict(listed, "hosted_cluster_cli_secrets_found", "the result of Phase 5's deletion_info")
    record = _record(namespace, infra_id)
    answers = list(dicts(listed.get("objects") or []))
    if as_bool(listed.get("skipped", False)) or not record["selector"]:
        record["listed"] = True  # nothing to list: none of them
        return record
    answer = answers[0] if answers else {}
    if answer.get("state") not in ("absent", "present"):
        record["error"] = printed(answer.get("msg") or listed.get("msg") or "the list got no answer")
        return record
    record["listed"] = True
    record["secrets"] = sorted(({"name": printed(s.get("name")), "uid": printed(s.get("uid"))}
                                for s in dicts(answer.get("listed") or [])), key=lambda s: s["name"])
    return record


def cli_secrets_deleted(found, deleted, check_mode):
    """The record of ``cli_secrets_found`` with what the deletes did, from the looped wait_gate result (``deleted``,
    V({}) or skipped when none ran): each Secret ``deleted`` (by name: its delete accepted and the Secret read gone),
    ``absent`` (gone before its delete reached it), or ``failed`` (``name`` and ``error``: the delete refused or
    unanswered, or the Secret not read gone); in check mode every listed one is ``planned`` instead, and nothing
    was sent."""
    record = dict(parsed_dict(found, "hosted_cluster_cli_secrets_deleted", "the record of cli_secrets_found"))
    deleted = parsed_dict(deleted, "hosted_cluster_cli_secrets_deleted", "the result of Phase 5's deletes")
    secrets = [printed(s.get("name")) for s in dicts(record.get("secrets") or [])]
    if as_bool(check_mode):
        return dict(record, planned=secrets, deleted=[], absent=[], failed=[])
    done, gone, failed = [], [], []
    for r in dicts(plain_list(deleted.get("results") or [], "hosted_cluster_cli_secrets_deleted", "the deletes' results")):
        item = r.get("item") if isinstance(r.get("item"), dict) else {}
        name = printed(item.get("name"))
        deletion = r.get("deletion") if isinstance(r.get("deletion"), dict) else {}
        gates = dicts(r.get("gates") if isinstance(r.get("gates"), list) else [])
        read_gone = bool(gates) and all(g.get("state") == "passed" for g in gates)
        if deletion.get("state") not in ("deleted", "absent") or not read_gone:
            error = r.get("msg") or (deletion.get("query") or {}).get("error") or "state %s" % printed(
                deletion.get("state") or "not sent")
            failed.append({"name": name, "error": printed(error)})
        elif deletion["state"] == "deleted":
            done.append(name)
        else:
            gone.append(name)
    return dict(record, deleted=done, absent=gone, failed=failed, planned=[])


def cli_secrets_message(record):
    """Phase 5's line about the CLI's Secrets: what was (or would be) deleted, by name, what was already gone, what
    could not be deleted and why, or why they could not be listed (unknown, never none)."""
    record = parsed_dict(record, "hosted_cluster_cli_secrets_message", "the record of cli_secrets_deleted")
    sel = printed(record.get("selector"))
    where = "the Secrets labelled %s in %s" % (sel, printed(record.get("namespace")))
    if not sel:
        return "no Secret the CLI made to delete (no HostedCluster name, or an infra ID no label can carry)"
    if record.get("error"):
        return "could not list %s: %s - unknown, not none; the CLI finalizer stays on" % (where, printed(record["error"]))
    parts = []
    if record.get("planned"):
        parts.append("would delete %s: %s" % (where, ", ".join(record["planned"])))
    if record.get("deleted"):
        parts.append("deleted %s: %s" % (where, ", ".join(record["deleted"])))
    if record.get("absent"):
        parts.append("already gone: %s" % ", ".join(record["absent"]))
    if record.get("failed"):
        parts.append("could not delete %s" % "; ".join(
            "%s (%s)" % (printed(f.get("name")), printed(f.get("error"))) for f in dicts(record["failed"])))
    return "; ".join(parts) if parts else "none of %s is left: nothing to delete" % where


def cli_secrets_stopped(record):
    """Whether Phase 5 stops before the CLI finalizer comes off: the list got no answer, or a delete failed (as the
    CLI returns its error before removing its finalizer)."""
    record = parsed_dict(record, "hosted_cluster_cli_secrets_stopped", "the record of cli_secrets_deleted")
    return bool(record.get("error")) or len(record.get("failed") or []) > 0
