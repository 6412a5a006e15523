# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: hosted_clusters
short_description: HostedClusters of a management cluster as inventory hosts
version_added: 0.1.0
author:
  - teardown.gates contributors (@teardown-gates)
description:
  - Lists the HyperShift C(HostedCluster) objects of a management cluster and makes each one a host,
    so that a playbook such as C(teardown.gates.destroy_hosted_cluster) runs once per hosted cluster,
    in parallel with forks, or split across AWX job slices.
  - Each host gets the variables the C(teardown.gates.hosted_cluster_destroy) role reads
    (C(hosted_cluster_name), C(hosted_cluster_namespace)), plus its UID, infra ID, platform and region,
    and C(ansible_connection=local) because the work is done through APIs from the controller.
  - A failed query fails the inventory, because an empty fleet is never inferred from an error.
  - The configuration file name must end in C(hosted_clusters.yml) or C(hosted_clusters.yaml).
extends_documentation_fragment:
  - constructed
options:
  plugin:
    description: The name of this plugin; it must always be set to C(teardown.gates.hosted_clusters).
    required: true
    type: str
    choices: [teardown.gates.hosted_clusters]
  kubeconfig:
    description:
      - Path to the kubeconfig of the management cluster.
      - When not set, C(K8S_AUTH_KUBECONFIG), then the client's defaults (C(KUBECONFIG), C(~/.kube/config)) apply.
    type: path
    env:
      - name: K8S_AUTH_KUBECONFIG
  context:
    description: The kubeconfig context to use.
    type: str
    env:
      - name: K8S_AUTH_CONTEXT
  namespaces:
    description: Namespaces to list HostedClusters from; all namespaces when empty.
    type: list
    elements: str
    default: []
  label_selector:
    description: A Kubernetes label selector that HostedClusters must match, for example C(env=dev,team!=core).
    type: str
  annotations:
    description: Annotations (key and exact value) that a HostedCluster must carry to be listed.
    type: dict
    default: {}
  include_deleting:
    description: Also list HostedClusters that are already being deleted (to resume their teardown).
    type: bool
    default: true
"""

EXAMPLES = r"""
# fleet.hosted_clusters.yml: every AWS hosted cluster labelled env=dev in namespace clusters
plugin: teardown.gates.hosted_clusters
namespaces: [clusters]
label_selector: env=dev
keyed_groups:
  - key: hosted_cluster_platform
    prefix: platform

# Then, with five forks:
#   ansible-playbook -i fleet.hosted_clusters.yml teardown.gates.destroy_hosted_cluster -f 5
"""

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin, Constructable

from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift_fleet import hosted_cluster_hostvars, group_names
from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import HYPERSHIFT_API as HC_API

try:
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client  # noqa: F401  pylint: disable=unused-import
    from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError, api_client
    HAS_K8S = True
except ImportError:  # pragma: no cover - reported when the plugin is used
    HAS_K8S = False


class InventoryModule(BaseInventoryPlugin, Constructable):
    NAME = "teardown.gates.hosted_clusters"

    def verify_file(self, path):
        return super(InventoryModule, self).verify_file(path) and path.endswith(
            ("hosted_clusters.yml", "hosted_clusters.yaml"))

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache)
        self._read_config_data(path)
        if not HAS_K8S:
            raise AnsibleParserError("teardown.gates.hosted_clusters needs the kubernetes.core collection "
                                     "and the kubernetes Python package")
        try:
            client = api_client(caller="hosted_clusters", kubeconfig=self.get_option("kubeconfig"),
                                context=self.get_option("context"))
        except ResourceLookupError as e:
            raise AnsibleParserError("teardown.gates.hosted_clusters: %s" % e)
        try:
            api = client.resources.get(api_version=HC_API, kind="HostedCluster")
        except Exception as e:
            raise AnsibleParserError("cannot find HostedCluster (%s) on the management cluster: %s; "
                                     "is HyperShift installed there?" % (HC_API, e))
        items = []
        for ns in self.get_option("namespaces") or [None]:
            try:
                listing = api.get(namespace=ns, label_selector=self.get_option("label_selector"))
            except Exception as e:
                # unknown is not empty: fail rather than return a fleet that silently misses clusters
                raise AnsibleParserError("listing HostedClusters%s failed: %s" % (
                    " in namespace %s" % ns if ns else "", e))
            items.extend(i.to_dict() for i in listing.items)
        wanted = self.get_option("annotations") or {}
        strict = self.get_option("strict")
        for hc in items:
            ann = hc["metadata"].get("annotations") or {}
            if any(ann.get(k) != v for k, v in wanted.items()):
                continue
            hostvars = hosted_cluster_hostvars(hc)
            if hostvars["hosted_cluster_deleting"] and not self.get_option("include_deleting"):
                continue
            host = hostvars["inventory_name"]
            self.inventory.add_host(host)
            for group in group_names(hostvars):
                self.inventory.add_group(group)
                self.inventory.add_child(group, host)
            for key, value in hostvars.items():
                if key != "inventory_name":
                    self.inventory.set_variable(host, key, value)
            self.inventory.set_variable(host, "ansible_connection", "local")
            self._set_composite_vars(self.get_option("compose"), hostvars, host, strict=strict)
            self._add_host_to_composed_groups(self.get_option("groups"), hostvars, host, strict=strict)
            self._add_host_to_keyed_groups(self.get_option("keyed_groups"), hostvars, host, strict=strict)
