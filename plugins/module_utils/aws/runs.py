# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runs of aws_infra_inventory and aws_infra_cleanup: each takes the module (AnsibleAWSModule), checks its
options (``aws_args``; a bad one raises ``BadInput``), does the work and returns the result for ``exit_json``. A
failed AWS request goes to ``fail_json_aws`` with what was not done; a failure of the collection's own goes through
``errors.fail_from``."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import time

from ansible_collections.teardown.gates.plugins.module_utils.aws import args as aws_args
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as aws_graph
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import AWS_ERRORS, module_clients
from ansible_collections.teardown.gates.plugins.module_utils.aws.execute import Executor
from ansible_collections.teardown.gates.plugins.module_utils.aws.inventory import discover
from ansible_collections.teardown.gates.plugins.module_utils.aws.orphans import TAGS_UNKNOWN_PREFIX, TIME_FIELDS, protected_rows
from ansible_collections.teardown.gates.plugins.module_utils.aws.probes import TAGGED_BY_LOOK
from ansible_collections.teardown.gates.plugins.module_utils.core.age import parse_age, young_rows
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from
from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift_hcp_owners import (
    NOT_OWNED_PREFIX,
    not_owned_rows,
)

DEFAULT_REGION = "us-east-1"


def age_spec():
    """min_age and the creation time of what has none of its own (the HostedCluster's), both modules' options."""
    return dict(min_age=dict(type="raw", default=0), cluster_created=dict(type="str", default=""))


def inventory_spec():
    spec = dict(infra_id=dict(type="str", required=True), manifest_path=dict(type="path"), **aws_args.discovery_spec())
    spec.update(age_spec())
    return spec


def min_age(p):
    """The min_age option in seconds; BadInput naming it when it is negative or not a duration."""
    try:
        return parse_age(p.get("min_age", 0))
    except ValueError as e:
        raise BadInput("min_age: %s; nothing changed" % e)


def young(manifest, observed, p, missing_is_absent=False):
    """The kept rows of what was created less than min_age ago: each resource by the creation time its read's answer
    carries (LaunchTime, CreateTime, CreatedTime, CreationTimestamp...), else by cluster_created (the HostedCluster's
    creationTimestamp: its resources were made with it or after it). No request is added."""
    return young_rows(manifest, observed, min_age(p), p.get("cluster_created") or None, TIME_FIELDS,
                      missing_is_absent=missing_is_absent)


def kept_rows(protected, aged):
    """The protect mark's rows, then min_age's for what the mark does not already keep (one row per ID)."""
    ids = set((r["type"], r["id"]) for r in protected)
    return protected + [r for r in aged if (r["type"], r["id"]) not in ids]


def cleanup_spec():
    spec = dict(manifest=dict(type="raw"), infra_id=dict(type="str"), preserve_iam=dict(type="bool", default=False),
                retain=dict(type="dict", default={}), require_owned=dict(type="dict"),
                wait_timeout=aws_args.wait_timeout_spec(), concurrency=dict(type="int", default=8),
                **aws_args.discovery_spec())
    spec.update(age_spec())
    return spec


# aws_infra_cleanup takes a manifest or an infra ID, never both
CLEANUP_RULES = dict(mutually_exclusive=[("manifest", "infra_id")], required_one_of=[("manifest", "infra_id")])


def write_if_changed(path, text, check_mode):
    """True when the file at ``path`` does not hold ``text``; outside check mode it is then replaced (atomically)."""
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if old == text:
        return False
    if not check_mode:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return True


def _discover(module, clients, infra_id, shown, then, p=None, known=None):
    """The manifest and details of ``infra_id``; a failed AWS request fails the module, naming the infra ID as
    ``shown`` and saying ``then`` (what follows from the failure). ``p``: the discovery options (base_domain,
    cluster_name, oidc_bucket), the module's own when None; ``known`` goes into the failure's result."""
    p = module.params if p is None else p
    try:
        return discover(clients, infra_id, base_domain=p["base_domain"], cluster_name=p["cluster_name"],
                        oidc_bucket=p["oidc_bucket"], region=module.region or DEFAULT_REGION)
    except AWS_ERRORS as e:
        module.fail_json_aws(e, msg="discovery of infra ID %s failed; %s" % (shown, then), api_calls=clients.calls,
                             **(known or {}))
    return None, None  # not reached: fail_json_aws exits


def infra_inventory(module, caller, p, known=None):
    """What infra ID ``p["infra_id"]`` owns (aws_infra_inventory's answer without manifest_path), read even in check
    mode: ``p`` holds infra_id, the discovery options (base_domain, cluster_name, oidc_bucket), min_age and
    cluster_created; BadInput for an empty infra ID or a bad min_age, before any request. ``caller`` names the
    module in the AWS user agent; ``known``, what the module knew before, goes into a failure's result."""
    infra_id = aws_args.infra_id(p["infra_id"])
    min_age(p)
    clients = module_clients(module, caller, concurrency=4, check_mode=False)
    manifest, details = _discover(module, clients, infra_id, infra_id, "no manifest is returned because an "
                                  "incomplete one would leave resources behind", p, known)
    # kept: tagged protected, or created less than min_age ago (judged from discovery's answers), and the private
    # zones shared with a VPC outside the cluster (discovery left them out of the manifest)
    kept = kept_rows(protected_rows(details["observed"]), young(manifest, details["observed"], p))
    kept += details["shared_zones"]
    return dict(changed=False, manifest=manifest, counts=dict((t, len(v)) for t, v in manifest.items()),
                total=sum(len(v) for v in manifest.values()), api_calls=clients.calls, vpcs=details["vpcs"],
                guest_volumes=details["guest_volumes"], guest_groups=details["guest_groups"], protected=kept)


def inventory(module):
    """aws_infra_inventory: the infra ID's manifest, written to manifest_path when that is given."""
    result = infra_inventory(module, "aws_infra_inventory", module.params)
    path = module.params["manifest_path"]
    if path:
        text = json.dumps(result["manifest"], indent=2, sort_keys=True) + "\n"
        if write_if_changed(path, text, module.check_mode):
            result["changed"] = True
        result["manifest_path"] = path
    return result


def load_manifest(value):
    """The manifest option's value: a mapping as it is, or the JSON or YAML of the file it names."""
    if not isinstance(value, str):
        return value
    path = value
    if not os.path.isfile(path):
        raise BadInput("manifest: %r is neither a mapping nor a readable file" % value)
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        try:
            import yaml
            return yaml.safe_load(text)
        except Exception as e:  # noqa: BLE001
            raise BadInput("manifest: %s is neither JSON nor YAML: %s" % (path, e))


def cleanup_options(p):
    """aws_infra_cleanup's options checked, in the order the module always checked them."""
    if p["infra_id"] is not None:
        aws_args.infra_id(p["infra_id"])
    aws_args.wait_timeout(p["wait_timeout"])
    aws_args.at_least_one("concurrency", p["concurrency"])
    min_age(p)
    require_owned(p)


def require_owned(p):
    """require_owned checked: ``(infra_id, resources)``, or ``(None, {})`` without it. Its resources must be of
    types whose look by ID answers with their tags (TAGGED_BY_LOOK): the check reads them from that look."""
    req = p.get("require_owned")
    if not req:
        return None, {}
    if not (req.get("infra_id") or "").strip():
        raise BadInput("require_owned.infra_id: required, not empty (an empty infra ID would match every cluster's "
                       "tag); nothing changed")
    infra = req["infra_id"].strip()
    try:
        resources = aws_graph.validate_manifest(req.get("resources") or {})
    except aws_graph.PlanError as e:
        raise BadInput("require_owned.resources: %s" % str(e).replace("manifest", "the mapping", 1))
    untagged = sorted(t for t, ids in resources.items() if ids and t not in TAGGED_BY_LOOK)
    if untagged:
        raise BadInput("require_owned.resources: %s: its look by ID carries no tags, so ownership cannot be read; "
                       "nothing changed" % ", ".join(untagged))
    return infra, resources


def check_mode_result(ex, plan):
    """What check mode returns: every resource planned, retained or already gone, and the ordered plan."""
    levels = ex.check_plan()
    resources = [dict(type=r["type"], id=r["id"], outcome="retained", reason=r["reason"]) for r in plan["retained"]]
    resources += [dict(type=r["type"], id=r["id"], outcome="kept", reason=r["reason"], observed=_seen(ex, r))
                  for r in plan["kept"]]
    verified = not plan["kept"]
    for r in plan["blocked"]:
        seen = _seen(ex, r)
        if seen in ("absent", "terminal"):
            resources.append(dict(type=r["type"], id=r["id"], outcome="absent", observed=seen))
            continue
        verified = False
        resources.append(dict(type=r["type"], id=r["id"], outcome="blocked", blocked_by=r["blocked_by"], observed=seen))
    for level in levels:
        for r in level:
            resources.append(dict(type=r["type"], id=r["id"], outcome="planned" if r["action"] == "delete" else (
                "absent" if r["observed"] in ("absent", "terminal") else "planned"), observed=r["observed"]))
            verified = verified and r["observed"] in ("absent", "terminal")
    return dict(changed=any(r["outcome"] == "planned" for r in resources), plan=levels, resources=resources,
                verified=verified)


def _seen(ex, r):
    return ex.prefetched.get(r["type"], {}).get(r["id"], {}).get("state", "unknown")


def kept_lists(plan):
    """The result's ``kept`` (protected, with the reason) and ``blocked`` (what waits on them, by ID)."""
    return dict(kept=plan["kept"], blocked=plan["blocked"])


def run_result(ex, plan):
    """What a run returns: each resource's outcome in the plan's order, and whether all were verified gone."""
    verified, dummy = ex.run()
    order = dict(((r["type"], r["id"]), n) for n, level in enumerate(plan["levels"]) for r in level)
    resources = sorted(ex.results.values(), key=lambda r: (order.get((r["type"], r["id"]), -1), r["type"], r["id"]))
    return dict(changed=any(r.get("outcome") == "deleted" for r in resources), plan=plan["levels"],
                resources=resources, verified=verified)


def _plan(module, manifest, protected=None):
    try:
        return aws_graph.plan(manifest, preserve_iam=module.params["preserve_iam"], retain=module.params["retain"],
                              protected=protected)
    except aws_graph.PlanError as e:
        fail_from(module, e, what="manifest")
    return None  # not reached: fail_json exits


def cleanup(module, caller="aws_infra_cleanup"):
    """aws_infra_cleanup: plan the manifest's deletes (the manifest given, or discovered from the infra ID), then
    report the plan (check mode) or run it; fails when any resource could not be deleted. ``caller`` names the
    module in the user agent (teardown_verify's look runs this too)."""
    t0 = time.monotonic()
    p = module.params
    cleanup_options(p)
    try:
        aws_graph.validate_manifest(p["retain"] or {})
    except aws_graph.PlanError as e:
        raise BadInput("retain: %s" % str(e).replace("manifest", "the mapping", 1))
    manifest = None
    if p["manifest"] is not None:
        manifest = load_manifest(p["manifest"])
        try:
            aws_graph.validate_manifest(manifest)
        except aws_graph.PlanError as e:
            fail_from(module, e, what="manifest")
    clients = module_clients(module, caller, concurrency=p["concurrency"])
    observed = None
    shared = []
    if manifest is None:
        manifest, details = _discover(module, clients, p["infra_id"].strip(), p["infra_id"], "nothing was deleted")
        observed, shared = details["observed"], details["shared_zones"]
    plan = _plan(module, manifest)
    # the first look by ID (or discovery's answers) carries each EC2 resource's tags: what is tagged protected
    # leaves the plan, with what waits on it, and the second plan reuses that look (no request is added)
    first = Executor(clients, plan, wait_timeout=p["wait_timeout"], observed=observed)
    seen = first.observe_all()
    # and its creation time, where the answer carries one: what is younger than min_age is kept the same way
    protected = kept_rows(protected_rows(seen, TAGGED_BY_LOOK), young(first.active, seen, p, missing_is_absent=True))
    # require_owned: what the look shows not tagged kubernetes.io/cluster/<infra_id>: owned is refused the same way
    # (out of the plan, with what waits on it), and fails the module below, naming the ID and why
    owned_infra, owned_ids = require_owned(p)
    if owned_infra:
        protected = kept_rows(protected, not_owned_rows(seen, owned_infra, owned_ids))
    if protected:
        plan = _plan(module, manifest, protected)
    ex = Executor(clients, plan, wait_timeout=p["wait_timeout"], observed=seen)
    result = dict(manifest=plan["manifest"], **kept_lists(plan))
    result.update(check_mode_result(ex, plan) if module.check_mode else run_result(ex, plan))
    # a look that failed left its tags unknown, and require_owned refused what is not the infra ID's: neither is
    # deleted, and each is a failure to resume from, not a kept resource
    failing = (TAGS_UNKNOWN_PREFIX, NOT_OWNED_PREFIX)
    result["kept"] = [r for r in result["kept"] if not r["reason"].startswith(failing)] + shared
    for r in result["resources"]:
        if r.get("outcome") == "kept" and r.get("reason", "").startswith(failing):
            r.update(outcome="failed", error=r.pop("reason"))
    result.update(api_calls=clients.calls, api_errors=clients.errors, elapsed=round(time.monotonic() - t0, 3),
                  refused=sum(len(r.get("refusals", [])) for r in result["resources"]))
    failed = [r for r in result["resources"] if r.get("outcome") == "failed"]
    if failed:
        detail = "; ".join("%s %s: %s" % (r["type"], r["id"], r.get("error")) for r in failed[:5])
        msg = "%d of %d resources could not be deleted: %s" % (len(failed), len(result["resources"]), detail)
        module.fail_json(msg=msg, **result)
    return result
