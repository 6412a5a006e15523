# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_baseline module's run: the whole Phase 1 read of the hosted_cluster_destroy role in one
process. It reads the HostedCluster with hosted_cluster_info's reads, reads the baseline an earlier run stored,
decides the identity and the options (kinds/hosted_cluster_baseline.py), refuses what the role refuses before any
change, records the AWS inventory of the infra ID it decided with aws_infra_inventory's run, and merges the two.
Read-only, and it reads in check mode too. A read that fails fails the run as unknown, never as absent."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible.module_utils.ansible_release import __version__ as ANSIBLE_CORE_VERSION

from ansible_collections.teardown.gates.plugins.module_utils.aws import runs as aws_runs
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.core.age import parse_age
from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from
from ansible_collections.teardown.gates.plugins.module_utils.core.values import as_bool
from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_info as info
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import AwsModuleAsK8s, build_reads
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import PRESENT
from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster_baseline as base

CALLER = "hosted_cluster_baseline"


def argument_spec():
    # over amazon.aws's options (AnsibleAWSModule adds them): kubernetes.core's validate_certs (no default) replaces
    # amazon.aws's, so a kubeconfig's own TLS setting holds; botocore verifies certificates when it is not set
    return k8s_argument_spec(
        name=dict(type="str", default=""),
        namespace=dict(type="str", default="clusters"),
        infra_id=dict(type="str", default=""),
        oidc_bucket=dict(type="str", default=""),
        baseline_path=dict(type="str", required=True),
        report_dir=dict(type="str", default=""),
        started=dict(type="str", default=""),
        destroy_cloud_resources=dict(type="bool", default=True),
        preserve_iam=dict(type="bool", default=False),
        take_over_cleanup=dict(type="bool", default=False),
        take_over_after=dict(type="int", default=900),
        cluster_grace_period=dict(type="int", default=600),
        min_age=dict(type="raw", default=0),
    )


class _Reads(object):
    """What drivers.entry.build_reads needs of a driver: the caller's name and what a client failure means."""

    CALLER = CALLER

    @staticmethod
    def client_failed(module, err, started=None):
        info.client_failed(module, err, started=started)


def read_hosted_cluster(module):
    """hosted_cluster_info's answer for the name given (nothing read, and absent, without a name), and the reads'
    queries. A read that fails fails the module: nothing about the HostedCluster is known."""
    p = module.params
    if not p["name"]:
        return {"state": "absent", "nodepools": []}, []
    info.check(module)
    reads = build_reads(AwsModuleAsK8s(module), _Reads)
    try:
        return info.read_hosted_cluster(reads, p["name"], p["namespace"]), reads.queries
    except info.ReadFailed as e:
        fail_from(module, e, then="nothing about HostedCluster %s/%s is known, not even whether it is there"
                  % (p["namespace"], p["name"]), queries=reads.queries)
    return None, None  # not reached: fail_json exits


def refuse(module, message, **extra):
    """Fail with ``message`` (a refusal before any change) when there is one."""
    if message:
        module.fail_json(msg=message, **extra)


def options_record(p, cluster, cleanup_preexisting, skip_ns, present, stored, deleting):
    """The options as the run uses them (the role's hosted_cluster_destroy_options)."""
    try:
        min_age = parse_age(p["min_age"])
    except ValueError as e:
        raise BadInput("min_age: %s; nothing changed" % e)
    return {
        "destroy_cloud_resources": p["destroy_cloud_resources"],
        "cleanup_annotation_preexisting": bool(cleanup_preexisting),
        "cleanup_effective": p["destroy_cloud_resources"] or bool(cleanup_preexisting),
        "skip_namespace_delete": bool(skip_ns),
        "preserve_iam": p["preserve_iam"],
        "min_age": min_age,
        "cluster_grace_period": p["cluster_grace_period"],
        "take_over_cleanup": p["take_over_cleanup"],
        "take_over_after": p["take_over_after"],
        "aws_region": cluster["region"],
        "infra_only": not present,
        # as the role's ``deleting | bool`` read the fact (the deletionTimestamp as text is not a true flag)
        "resumed": bool(stored) or as_bool(deleting),
    }


def run(module):
    """The baseline: the module's result, or a refusal (fail_json) before any change."""
    p = module.params
    ns, name = p["namespace"], p["name"]
    shown = name or p["infra_id"]  # the reports are named after the infra ID for an infrastructure-only destroy
    read, queries = read_hosted_cluster(module)
    present = read["state"] == PRESENT
    hc = read.get("hosted_cluster") or {}
    try:
        stored = base.stored_baseline(base.file_text(p["baseline_path"]), p["baseline_path"])
    except base.BaselineError as e:
        fail_from(module, e, queries=queries)
    refuse(module, base.absent_refusal(present, stored, p["infra_id"], ns, name, p["report_dir"]), queries=queries)
    refuse(module, base.platform_refusal(present, hc, ns, name), queries=queries)
    refuse(module, base.infra_id_refusal(present, hc, p["infra_id"], ns, name), queries=queries)
    refuse(module, base.stored_infra_id_refusal(present, stored, p["infra_id"], p["baseline_path"]), queries=queries)
    refuse(module, base.region_refusal(present, hc, stored, p["region"] or "", ns, name), queries=queries)
    stored = base.same_cluster_stored(stored, hc, present)
    found = base.identity(hc, stored, present, p["region"] or "", p["oidc_bucket"], p["infra_id"],
                          os.environ.get("AWS_DEFAULT_REGION", ""))
    cluster = dict(namespace=ns, name=shown, uid=found["uid"], infra_id=found["infra_id"], region=found["region"],
                   hcp_namespace="%s-%s" % (ns, shown), release_image=found["release_image"],
                   base_domain=found["base_domain"], created=found["created"])
    state = base.cluster_state(hc)
    options = options_record(p, cluster, found["cleanup_preexisting"], found["skip_namespace_delete"], present, stored,
                             state["deleting"])
    # what a stop from here on returns, so that the role's stop report names the cluster, as when these were facts
    known = dict(queries=queries, hc_present=present, cluster=cluster, options=options, oidc_bucket=found["oidc_bucket"],
                 cleanup_preexisting=found["cleanup_preexisting"], skip_namespace_delete=found["skip_namespace_delete"],
                 deleting=state["deleting"], cli_finalizer_on=state["cli_finalizer_on"])
    refuse(module, base.take_over_refusal(p["take_over_cleanup"], p["destroy_cloud_resources"],
                                          found["cleanup_preexisting"], ns, name), **known)
    now = read if present else {}
    known.update(nodepools=base.unique_sorted(now.get("nodepools"), stored.get("nodepools")),
                 versions=base.versions(cluster, now, stored, ANSIBLE_CORE_VERSION))
    if cluster["region"]:
        module.params["region"] = cluster["region"]  # the AWS clients' region (else amazon.aws's: env, profile)
    try:
        inventory = aws_runs.infra_inventory(module, CALLER, dict(
            infra_id=cluster["infra_id"], oidc_bucket=found["oidc_bucket"] or None,
            base_domain=cluster["base_domain"] or None, cluster_name=name or None, min_age=p["min_age"],
            cluster_created=cluster["created"]), known)
    except BadInput as e:
        raise BadInput(str(e), partial=known)
    nodepools, versions = known["nodepools"], known["versions"]
    guest_volumes = base.unique_sorted(stored.get("guest_volumes"), inventory["guest_volumes"])
    guest_groups = base.unique_sorted(stored.get("guest_groups"), inventory["guest_groups"])
    stored_manifest, not_hypershifts = base.upstream_manifest(stored.get("manifest", {}))
    manifest = base.merged_manifest(stored_manifest, inventory["manifest"])
    annotations = dict(cleanup_preexisting=bool(found["cleanup_preexisting"]),
                       skip_namespace_delete=bool(found["skip_namespace_delete"]))
    baseline = dict(cluster=cluster, options=options, annotations=annotations, nodepools=nodepools,
                    guest_volumes=guest_volumes, guest_groups=guest_groups, oidc_bucket=found["oidc_bucket"],
                    versions=versions, recorded_at=stored.get("recorded_at", p["started"]))
    return dict(changed=False, hc_present=present, hosted_cluster=hc, stored=stored, cluster=cluster, options=options,
                cleanup_preexisting=found["cleanup_preexisting"], skip_namespace_delete=found["skip_namespace_delete"],
                oidc_bucket=found["oidc_bucket"], deleting=state["deleting"], cli_finalizer_on=state["cli_finalizer_on"],
                nodepools=nodepools, versions=versions, guest_volumes=guest_volumes, guest_groups=guest_groups,
                manifest=manifest, baseline=baseline, retain=base.retained(options["cleanup_effective"], guest_volumes),
                aws_cleanup_runs=base.aws_cleanup_runs(manifest), protected=inventory["protected"] + not_hypershifts,
                counts=inventory["counts"], total=inventory["total"], api_calls=inventory["api_calls"], queries=queries)
