# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_destroy role's baseline (its Phase 1), as pure functions that the hosted_cluster_baseline
module runs (and the role's filter step aws_cleanup_runs, plugin_utils/hosted_cluster_baseline.py): what the HostedCluster says
now, merged with the baseline an earlier run stored, with the precedence of each value (the operator's option, then
the HostedCluster, then the stored baseline, then the environment); the refusals before any change; the AWS manifest
merged so that every ID ever recorded stays tracked. A wrong input raises ``BaselineError`` with the
message the role shows; the filter turns it into an AnsibleFilterError."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.core.values import as_bool, json_or_value, printed

CLEANUP_ANNOTATION = "hypershift.openshift.io/cleanup-cloud-resources"
SKIP_NS_ANNOTATION = "hypershift.openshift.io/skip-delete-hosted-controlplane-namespace"
CLI_FINALIZER = "openshift.io/destroy-cluster"
# the OIDC bucket of an issuer URL served from S3: https://<bucket>.s3.<region>.amazonaws.com/... or s3-<region>
_ISSUER_BUCKET = re.compile(r"^https://([^./]+)\.s3[.-]")
_MISSING = object()


class BaselineError(TeardownGatesError):
    """An input the baseline cannot be made from; the message names it. Nothing changed."""


def _at(value, *keys):
    """value[k1][k2]... or _MISSING when a step is missing or not a mapping."""
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return _MISSING
        value = value[key]
    return value


def _first_set(*values):
    """The first value that is set and not empty (as default(x, true) chains read), else the last one given."""
    for value in values[:-1]:
        if value is not _MISSING and value:
            return value
    return values[-1]


def _or(value, fallback):
    """value, or fallback when value is missing (as default(x) reads: an empty value is kept)."""
    return fallback if value is _MISSING else value


def one_dict(value, name, what):
    """A mapping input, or BaselineError naming ``name`` and ``what`` it expects."""
    if not isinstance(value, dict):
        raise BaselineError("%s: expects %s, got %s" % (name, what, type(value).__name__))
    return value


def parsed_dict(value, name, what):
    """A mapping input, or the JSON object it holds as text; {} for None or blank text. Anything else raises
    BaselineError naming ``name`` and ``what`` it expects."""
    value = json_or_value(value, lambda e: BaselineError(
        "%s: expects %s, got text that is not JSON (%s)" % (name, what, e)))
    if value is None:
        return {}
    return one_dict(value, name, what)


def issuer_bucket(issuer_url):
    """The S3 bucket an OIDC issuer URL is served from, or ''."""
    found = _ISSUER_BUCKET.search(printed(issuer_url))
    return found.group(1) if found else ""


def identity(hc, stored, present, aws_region="", oidc_bucket="", infra_id="", env_region=""):
    """What the baseline records of the cluster, each value by its precedence:

    - uid, release_image: the HostedCluster's, else the stored one, else None;
    - infra_id, base_domain: the HostedCluster's, else the stored one, else the infra_id option (base_domain: '');
    - region: the aws_region option, else the HostedCluster's, else the stored one, else env_region
      (AWS_DEFAULT_REGION);
    - oidc_bucket: the oidc_bucket option, else the bucket of the HostedCluster's issuer URL, else the stored one;
    - cleanup_preexisting, skip_namespace_delete: whether the HostedCluster's annotation is 'true' when it is
      present, else what the stored baseline says (False when it says nothing);
    - created: the HostedCluster's creationTimestamp, else the stored one, else '' (min_age judges by it what has
      no creation time of its own).

    stored may be the stored baseline or its JSON text (ansible-core 2.16 may hand it on as text)."""
    fname = "hosted_cluster_baseline"
    hc = parsed_dict(hc, fname, "the HostedCluster (hosted_cluster_destroy_hc)")
    stored = parsed_dict(stored, fname, "the stored baseline (hosted_cluster_destroy_stored) as its first argument")
    annotations = _at(hc, "metadata", "annotations")
    annotations = annotations if isinstance(annotations, dict) and annotations else {}
    bucket = issuer_bucket(_or(_at(hc, "spec", "issuerURL"), ""))
    if as_bool(present):
        cleanup = annotations.get(CLEANUP_ANNOTATION, "") == "true"
        skip_ns = annotations.get(SKIP_NS_ANNOTATION, "") == "true"
    else:
        cleanup = _or(_at(stored, "annotations", "cleanup_preexisting"), False)
        skip_ns = _or(_at(stored, "annotations", "skip_namespace_delete"), False)
    return {
        "uid": _or(_at(hc, "metadata", "uid"), _or(_at(stored, "cluster", "uid"), None)),
        "infra_id": _first_set(_at(hc, "spec", "infraID"), _at(stored, "cluster", "infra_id"), infra_id),
        "region": printed(aws_region) if printed(aws_region) else _first_set(
            _at(hc, "spec", "platform", "aws", "region"), _at(stored, "cluster", "region"), env_region),
        "release_image": _or(_at(hc, "spec", "release", "image"), _or(_at(stored, "cluster", "release_image"), None)),
        "base_domain": _first_set(_at(hc, "spec", "dns", "baseDomain"), _or(_at(stored, "cluster", "base_domain"), "")),
        "oidc_bucket": printed(oidc_bucket) if printed(oidc_bucket) else (
            bucket if bucket else _or(_at(stored, "oidc_bucket"), "")),
        "cleanup_preexisting": cleanup,
        "skip_namespace_delete": skip_ns,
        "created": _first_set(_at(hc, "metadata", "creationTimestamp"), _at(stored, "cluster", "created"), ""),
    }


def merged_manifest(stored_manifest, found_manifest):
    """The AWS manifest of the stored baseline merged with the one found now, as combine(list_merge='append_rp')
    does: a kind in both keeps the stored IDs not found now, then the IDs found now; any other value found now
    replaces the stored one. A kind only stored stays, so an ID detached or untagged since is still tracked."""
    stored_manifest = parsed_dict(stored_manifest, "hosted_cluster_manifest", "the stored manifest")
    found_manifest = one_dict(found_manifest, "hosted_cluster_manifest", "the manifest of aws_infra_inventory")
    merged = dict(stored_manifest)
    for kind, found in found_manifest.items():
        before = merged.get(kind, _MISSING)
        if isinstance(before, list) and isinstance(found, list):
            merged[kind] = [i for i in before if i not in found] + list(found)
        else:
            merged[kind] = found
        # a dict in both is replaced, not merged: combine is not recursive here
    return merged


def aws_cleanup_runs(manifest):
    """Whether the destroy runs its AWS cleanup (Phase 4's aws_infra_cleanup), and so whether it checks the AWS
    permissions of that cleanup before its first change: whenever the baseline's manifest (found now, merged with the
    stored one) names an AWS resource. Neither destroy_cloud_resources nor a cleanup annotation set earlier decides
    it: they ask HyperShift to delete the guest's load balancers and storage, and keep the guest's volumes in this
    run's cleanup or not (the retain), but the cluster's own infrastructure is deleted by ID either way."""
    manifest = one_dict(manifest, "hosted_cluster_aws_cleanup_runs", "the baseline's AWS manifest")
    return any(bool(ids) for ids in manifest.values())


# what teardown_report stores as the baseline (the role's Phase 1), key by key: the type each must have
BASELINE_TYPES = {"cluster": dict, "options": dict, "annotations": dict, "nodepools": list, "oidc_bucket": str,
                  "versions": dict, "recorded_at": str, "manifest": dict, "guest_groups": list}
BASELINE_HINT = (". Nothing changed. It is the file an earlier run of this role stored through teardown_report: repair it, "
                 "or move it aside to begin again from what the HostedCluster and AWS show now (IDs that only it "
                 "recorded are then no longer tracked)")


def _type_name(value):
    return "a mapping" if isinstance(value, dict) else "a list" if isinstance(value, list) else (
        "text" if isinstance(value, str) else type(value).__name__)


def stored_baseline(stored, path):
    """The baseline stored at ``path`` by an earlier run, as a dict; {} when nothing is stored (``stored`` None,
    empty or blank). ``stored`` is the file's JSON text, or the mapping it holds: ansible-core before 2.19 turns
    a template result that looks like a dict back into one, so the same text may arrive either way. Text that is
    not JSON, JSON that is not an object, and a known key of the wrong type are refused, naming ``path``."""
    fname = "hosted_cluster_stored_baseline"
    where = "%s: the stored baseline %s" % (fname, printed(path))
    stored = json_or_value(stored, lambda e: BaselineError("%s is not JSON (%s)%s" % (where, e, BASELINE_HINT)))
    if stored is None:
        return {}
    if not isinstance(stored, dict):
        raise BaselineError("%s holds %s, not a JSON object%s" % (where, _type_name(stored), BASELINE_HINT))
    for key, kind in sorted(BASELINE_TYPES.items()):
        if key in stored and not isinstance(stored[key], kind):
            raise BaselineError("%s has %s as %s, expected %s%s" % (
                where, _type_name(stored[key]), key, _type_name(kind()), BASELINE_HINT))
    wrong = sorted(str(k) for k, ids in stored.get("manifest", {}).items() if not isinstance(ids, list))
    if wrong:
        raise BaselineError("%s has IDs that are not a list in its manifest, for %s%s" % (
            where, ", ".join(wrong), BASELINE_HINT))
    return stored


def file_text(path):
    """The text of the file at ``path`` (relative to the working directory, as slurp read it, or absolute), trailing
    whitespace stripped; '' when it is missing or cannot be read, as the role's read with errors ignored left it.
    Bytes that are not UTF-8 are escaped (surrogateescape), so such a file is refused as not JSON, naming it."""
    try:
        with open(printed(path), "rb") as handle:
            return handle.read().decode("utf-8", "surrogateescape").rstrip()
    except OSError:
        return ""


# the refusals of Phase 1, before any change: the messages the role's asserts gave
def absent_refusal(present, stored, infra_id, namespace, name, report_dir):
    """The refusal of a HostedCluster that does not exist when nothing else names what to destroy, or None."""
    if present or stored or printed(infra_id):
        return None
    return ("HostedCluster %s/%s does not exist (a successful read answered no such object) and no baseline is stored "
            "in %s: give infra_id to destroy its AWS infrastructure alone. Nothing changed." % (namespace, name, report_dir))


def platform_refusal(present, hc, namespace, name):
    """The refusal of a HostedCluster on another platform than AWS, or None."""
    platform = _or(_at(hc, "spec", "platform", "type"), "AWS")
    if not present or platform == "AWS":
        return None
    return ("HostedCluster %s/%s runs on platform %s: this role destroys AWS hosted clusters only. Nothing changed."
            % (namespace, name, printed(platform)))


def infra_id_refusal(present, hc, infra_id, namespace, name):
    """The refusal of an infra_id that is not the HostedCluster's, or None."""
    theirs = _at(hc, "spec", "infraID")
    if not present or not printed(infra_id) or infra_id == _or(theirs, ""):
        return None
    return "infra_id: %s is not the infra ID of HostedCluster %s/%s (%s). Nothing changed." % (
        infra_id, namespace, name, printed(_or(theirs, "none")))


def region_refusal(present, hc, stored, aws_region, namespace, name):
    """The refusal of an aws_region that is not the cluster's own, or None: the HostedCluster's
    ``spec.platform.aws.region`` when it is present, else the stored baseline's. A region that silently won over the
    cluster's would inventory, delete and verify in the wrong place, and report an empty region as verified."""
    given = printed(aws_region)
    if present:
        theirs, source = _at(hc, "spec", "platform", "aws", "region"), "HostedCluster %s/%s" % (namespace, name)
    else:
        theirs, source = _at(stored, "cluster", "region"), "the stored baseline"
    if not given or theirs is _MISSING or not theirs or theirs == given:
        return None
    return ("aws_region: %s is not the region of %s (%s). Leave aws_region out to use the cluster's own, or give %s. "
            "Nothing changed." % (given, source, printed(theirs), printed(theirs)))


def stored_infra_id_refusal(present, stored, infra_id, path):
    """The refusal of an infra_id that is not the one of the baseline stored at ``path``, when the HostedCluster is
    gone, or None: the stored baseline would otherwise win over the option without a word."""
    theirs = _at(stored, "cluster", "infra_id")
    if present or not printed(infra_id) or theirs is _MISSING or not theirs or theirs == infra_id:
        return None
    return ("infra_id: %s is not the infra ID of the baseline stored in %s (%s). Give %s, or move the stored baseline "
            "aside to destroy %s alone. Nothing changed." % (
                infra_id, printed(path), printed(theirs), printed(theirs), infra_id))


# a type an earlier version of this collection tracked that HyperShift never makes: customer managed policies
# (`create iam aws` writes inline policies and attaches AWS-managed ones, openshift/hypershift@3ee9615
# cmd/infra/aws/iam.go:1100-1135, :1239-1260); a stored baseline's IDs of it are kept, never deleted
NOT_HYPERSHIFTS = {"AWS::IAM::ManagedPolicy": "a customer managed policy: HyperShift makes none (its policies are "
                                              "inline), so it is not the cluster's; kept"}


def upstream_manifest(stored_manifest):
    """(the stored manifest without the types HyperShift never makes, the kept rows {type, id, reason} of their
    IDs), so that a baseline stored by an earlier version deletes nothing that was not the cluster's."""
    stored_manifest = parsed_dict(stored_manifest, "hosted_cluster_manifest", "the stored manifest")
    kept = [{"type": t, "id": i, "reason": NOT_HYPERSHIFTS[t]} for t in sorted(stored_manifest)
            if t in NOT_HYPERSHIFTS for i in stored_manifest[t] or []]
    return dict((t, ids) for t, ids in stored_manifest.items() if t not in NOT_HYPERSHIFTS), kept


def take_over_refusal(take_over_cleanup, destroy_cloud_resources, cleanup_preexisting, namespace, name):
    """The refusal of take_over_cleanup when destroy_cloud_resources=false contradicts the cleanup annotation already
    set, or None: the take-over would delete what destroy_cloud_resources=false says to keep."""
    if not take_over_cleanup or destroy_cloud_resources or not cleanup_preexisting:
        return None
    return ('destroy_cloud_resources: false contradicts the annotation %s: "true" already on HostedCluster %s/%s, and '
            "with take_over_cleanup the take-over would delete the guest's cloud resources on the annotation's word. "
            "Set destroy_cloud_resources=true to have them deleted, or remove the annotation first to keep them. "
            "Nothing changed." % (CLEANUP_ANNOTATION, namespace, name))


def same_cluster_stored(stored, hc, present):
    """The stored baseline, or {} when it is of an earlier HostedCluster of the same name (another UID)."""
    uid = _or(_at(stored, "cluster", "uid"), "")
    if present and uid not in ("", _or(_at(hc, "metadata", "uid"), _MISSING)):
        return {}
    return stored


def cluster_state(hc):
    """What the HostedCluster's metadata says of the run so far: ``deleting`` (its deletionTimestamp when set, else
    False, as the role's fact held it) and ``cli_finalizer_on`` (the CLI's finalizer is on it)."""
    stamp = _at(hc, "metadata", "deletionTimestamp")
    finalizers = _at(hc, "metadata", "finalizers")
    return {"deleting": stamp if stamp is not _MISSING and stamp else False,
            "cli_finalizer_on": CLI_FINALIZER in (finalizers if isinstance(finalizers, list) else [])}


def unique_sorted(*lists):
    """The items of ``lists`` once each, sorted (the role's ``unique | sort``)."""
    seen = []
    for items in lists:
        for item in items or []:
            if item not in seen:
                seen.append(item)
    return sorted(seen)


def versions(cluster, read, stored, ansible_core):
    """The versions record: ansible-core's, the release image (the baseline's, else the one read, else 'not
    recorded'), the control-plane operator's image (read, else stored, else 'not found')."""
    return {"ansible_core": ansible_core,
            "release_image": cluster.get("release_image") or read.get("release_image") or "not recorded",
            "control_plane_operator_image": read.get("control_plane_operator_image") or _or(
                _at(stored, "versions", "control_plane_operator_image"), "not found")}


def retained(cleanup_effective, guest_volumes):
    """The guest's persistent volumes kept when the guest's storage is not to be deleted: HyperShift deletes it only
    with the cleanup annotation; without it they are kept as they are, and reported retained by request."""
    if cleanup_effective or not guest_volumes:
        return {}
    return {"AWS::EC2::Volume": list(guest_volumes)}
