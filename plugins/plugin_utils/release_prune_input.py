# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the release_prune role says of bad input (its first phase), the Cluster line of its plan, and which kept
Releases hold its Cluster."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import as_bool, as_int, parsed_dict, plain_list

# a Kubernetes object name (DNS subdomain), as the role's input check matches release_names
OBJECT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


def selection_problem(namespace, selectors):
    """Why the selection is refused: no namespace, else not exactly one of the three ways to select (``selectors``
    is how many were given)."""
    if len(str(namespace)) == 0:
        return "release_namespace: required (the namespace of the Releases)."
    return ("release_names, release_label_selector, convoy_cluster_name: give exactly one of them (got %s)."
            % (selectors,))


def input_problem(prune_cluster, cluster_name, timeout, batch_size, names):
    """The first of: prune_cluster without convoy_cluster_name, a timeout or a batch size below 1, and else the
    release_names that are not valid object names."""
    if as_bool(prune_cluster) and not cluster_name:
        return "prune_cluster: true needs convoy_cluster_name (which Cluster to delete)."
    if as_int(timeout) <= 0:
        return "timeout: must be more than 0 seconds, got %s" % (timeout,)
    if as_int(batch_size) <= 0:
        return "release_prune_batch_size: must be 1 or more, got %s" % (batch_size,)
    names = plain_list(names, "release_prune_input_problem", "release_names (a list)")
    return "release_names: not valid object names: " + ", ".join(str(n) for n in names if not OBJECT_NAME.match(str(n)))


def cluster_line(cluster, cluster_name, prune_cluster):
    """The plan's last line when prune_cluster is on: the Cluster's state (and its pruneReleases when present), and
    that it will be deleted; "" otherwise."""
    if not as_bool(prune_cluster):
        return ""
    cluster = parsed_dict(cluster, "release_prune_cluster_line", "the Cluster of the plan (a dict)")
    state = cluster.get("state")
    prune = (", pruneReleases %s" % (cluster.get("prune_releases"),)) if state == "present" else ""
    return "Cluster %s: %s%s, will be deleted." % (cluster_name, state, prune)


def cluster_held(protected, cluster_name):
    """The names of the kept Releases (convoy_release_info's ``protected``, labelled teardown.gates/protected) of the
    Cluster ``cluster_name``, in the order listed: while one stays, prune_cluster does not delete the Cluster
    (deleting it deletes its Releases). None (nothing kept) is no Release."""
    protected = plain_list(protected if protected is not None else [], "release_prune_cluster_held",
                           "the kept Releases of the plan (a list)")
    return [r.get("name") for r in protected if isinstance(r, dict) and "cluster" in r and r["cluster"] == cluster_name]
