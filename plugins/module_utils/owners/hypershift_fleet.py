# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fleet of hosted clusters as inventory: host names, host variables and groups (pure logic)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_GROUP_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def safe_group(name):
    """Ansible group names: letters, digits and underscores only."""
    return _GROUP_UNSAFE.sub("_", name)


def hosted_cluster_hostvars(hc):
    """Host variables for one HostedCluster dict, named as the hosted_cluster_destroy role reads them.

    The host name is the HCP namespace's own name, `<namespace>-<name>`, which operators already know.
    """
    md = hc.get("metadata") or {}
    spec = hc.get("spec") or {}
    platform = spec.get("platform") or {}
    ptype = (platform.get("type") or ("AWS" if "aws" in platform else "")).lower()
    region = (platform.get("aws") or {}).get("region") or ""
    return {
        "inventory_name": "%s-%s" % (md.get("namespace"), md.get("name")),
        "hosted_cluster_name": md.get("name"),
        "hosted_cluster_namespace": md.get("namespace"),
        "hosted_cluster_uid": md.get("uid"),
        "hosted_cluster_deleting": bool(md.get("deletionTimestamp")),
        "hosted_cluster_platform": ptype,
        "infra_id": spec.get("infraID") or "",
        "aws_region": region,
        "hosted_cluster_labels": md.get("labels") or {},
    }


def group_names(hostvars):
    """Every host is in `hosted_clusters`, `namespace_<ns>`, `platform_<type>`, and `deleting` when it is."""
    groups = ["hosted_clusters", "namespace_" + safe_group(hostvars["hosted_cluster_namespace"] or "")]
    if hostvars["hosted_cluster_platform"]:
        groups.append("platform_" + safe_group(hostvars["hosted_cluster_platform"]))
    if hostvars["hosted_cluster_deleting"]:
        groups.append("deleting")
    return groups
