# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The run of aws_orphan_inventory: read the HostedClusters of each management cluster, scan the region for infra
IDs, and give each infra ID its status (``orphans.classify``). Read-only: its AWS clients refuse any change, in check
mode or not. A bad option raises ``aws_args.BadInput``; a failed AWS request fails the module through
``fail_json_aws``, with no infra ID reported, since an incomplete scan would hide what is there."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from ansible_collections.teardown.gates.plugins.module_utils.aws import orphans as o
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import AWS_ERRORS, module_clients
from ansible_collections.teardown.gates.plugins.module_utils.aws.inventory import discover
from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import HYPERSHIFT_API as HYPERSHIFT
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import (
    READ_ATTEMPTS, ResourceLookupError, api_client, resolve_resource)
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import list_objects

CALLER = "aws_orphan_inventory"
DEFAULT_REGION = "us-east-1"


def argument_spec():
    """The options but request_timeout, which the module adds from common_args (the Kubernetes modules' spec)."""
    return dict(
        management_contexts=dict(type="list", elements="str", default=[]),
        kubeconfig=dict(type="path"),
        min_age=dict(type="raw", default="24h"),
        oidc_bucket=dict(type="str"),
        infra_id_prefix=dict(type="str", default=""),
        infra_ids=dict(type="list", elements="str"),
    )


def known_contexts(kubeconfig):
    """(the kubeconfig's context names, its current context's name or None); BadInput when it cannot be read."""
    try:
        from kubernetes import config
        contexts, active = config.list_kube_config_contexts(config_file=kubeconfig)
    except Exception as e:  # noqa: BLE001 - any failure to read the kubeconfig is bad input
        raise BadInput("management_contexts: cannot read the contexts of the kubeconfig %s: %s; nothing changed"
                       % (kubeconfig or "(KUBECONFIG or ~/.kube/config)", e))
    return [c["name"] for c in contexts or []], (active or {}).get("name")


def chosen_contexts(wanted, names, active):
    """The contexts to read: ``wanted``, or the current one; BadInput when one is unknown or there is none."""
    contexts = wanted or ([active] if active else [])
    unknown = [c for c in contexts if c not in names]
    if not contexts or unknown:
        raise BadInput("management_contexts: %s (the kubeconfig has: %s); nothing changed" % (
            "unknown context %s" % ", ".join(unknown) if unknown else "no context given and none is current",
            ", ".join(names) or "none"))
    return contexts


def options(p):
    """(min_age in seconds, the contexts to read), the options checked in the order the module always checked them."""
    try:
        min_age = o.parse_age(p["min_age"])
    except ValueError as e:
        raise BadInput("min_age: %s; nothing changed" % e)
    if p["request_timeout"] <= 0:
        raise BadInput("request_timeout: must be more than 0 seconds")
    names, active = known_contexts(p["kubeconfig"])
    return min_age, chosen_contexts(p["management_contexts"], names, active)


def read_management(context, kubeconfig, request_timeout):
    """{context, ok, hosted_clusters: [{namespace, name, infra_id}], error}"""
    out = {"context": context, "ok": False, "hosted_clusters": [], "error": None}
    try:
        client = api_client(None, request_timeout=request_timeout, caller=CALLER,
                            kubeconfig=kubeconfig, context=context)
        resource = resolve_resource(client, HYPERSHIFT, "HostedCluster")
    except ResourceLookupError as e:
        out["error"] = "%s%s" % (e, "" if e.unknown else " (is this a management cluster?)")
        return out
    listed = list_objects(resource, request_timeout=request_timeout, attempts=READ_ATTEMPTS)
    if not listed["ok"]:
        out["error"] = "could not list HostedClusters: %s" % listed["query"].get("error")
        return out
    for hc in listed["items"]:
        md = hc.get("metadata") or {}
        out["hosted_clusters"].append({"namespace": md.get("namespace"), "name": md.get("name"),
                                       "infra_id": (hc.get("spec") or {}).get("infraID")})
    out["ok"] = True
    return out


def live_infra_ids(management):
    """infra ID -> the HostedClusters (``namespace/name (context c)``) that have it."""
    live = {}
    for m in management:
        for hc in m["hosted_clusters"]:
            if hc["infra_id"]:
                where = "%s/%s (context %s)" % (hc["namespace"], hc["name"], m["context"])
                live.setdefault(hc["infra_id"], []).append(where)
    return live


def wanted(iid, p):
    """Whether infra ID ``iid`` passes infra_id_prefix and infra_ids."""
    return iid.startswith(p["infra_id_prefix"] or "") and (p["infra_ids"] is None or iid in p["infra_ids"])


def look_into(clients, iid, seen, oidc_bucket, region):
    """What an infra ID no HostedCluster has owns: (the entry's manifest keys, creation times, protected ones)."""
    created, protected = list(seen["created"]), set(seen["protected"])
    manifest, details = discover(clients, iid, oidc_bucket=oidc_bucket, region=region)
    for rtype, rid in o.extra_ids(clients, seen["evidence"], manifest):
        manifest[rtype] = sorted(manifest.get(rtype, []) + [rid])
    for rtype, items in details["observed"].items():
        for rid, item in items.items():
            created.extend(o.creation_times(item))
            if o.is_protected(item.get("Tags")):
                protected.add((rtype, rid))
    tracked = set(i for ids in manifest.values() for i in ids)
    keys = dict(manifest=manifest, total=sum(len(v) for v in manifest.values()),
                not_covered=[{"type": t, "id": i} for t, i in sorted(seen["evidence"]) if i not in tracked])
    return keys, created, protected


def entries(clients, found, live, known, min_age, p, region):
    """One entry per infra ID the scan ``found`` that the options want, sorted by infra ID."""
    now = datetime.datetime.now(datetime.timezone.utc)
    out = []
    for iid in sorted(found.ids):
        if not wanted(iid, p):
            continue
        seen = found.ids[iid]
        entry = {"infra_id": iid, "evidence": [{"type": t, "id": i} for t, i in sorted(seen["evidence"])],
                 "manifest": {}, "total": 0, "not_covered": []}
        created, protected = list(seen["created"]), set(seen["protected"])
        if iid not in live:
            keys, created, protected = look_into(clients, iid, seen, p["oidc_bucket"], region)
            entry.update(keys)
        first = o.oldest(created)
        status, reason = o.classify(iid, live, known, protected, created, min_age, now, marked=bool(seen["marked"]),
                                    evidence=seen["evidence"])
        entry.update(status=status, reason=reason, oldest_created=first.isoformat() if first else None,
                     age_seconds=int((now - first).total_seconds()) if first else None,
                     protected=[{"type": t, "id": i} for t, i in sorted(protected)])
        out.append(entry)
    return out


def run(module):
    """aws_orphan_inventory: the infra IDs of the region, each with its status; the result for exit_json."""
    p = module.params
    min_age, contexts = options(p)
    management = [read_management(c, p["kubeconfig"], p["request_timeout"]) for c in contexts]
    known = all(m["ok"] for m in management)
    live = live_infra_ids(management)
    # read-only: the guard refuses any change
    clients = module_clients(module, CALLER, concurrency=4, check_mode=True)
    region = module.region or DEFAULT_REGION
    try:
        found = o.scan_region(clients, oidc_bucket=p["oidc_bucket"], region=region)
        listed = entries(clients, found, live, known, min_age, p, region)
    except AWS_ERRORS as e:
        module.fail_json_aws(e, msg="the scan of region %s failed; no infra ID is reported, since an incomplete "
                                    "scan would hide what is there" % region, api_calls=clients.calls,
                             management=management)
    return dict(changed=False, infra_ids=listed, management=management, management_known=known,
                orphans=[e["infra_id"] for e in listed if e["status"] == "orphan"],
                min_age_seconds=min_age, api_calls=clients.calls)
