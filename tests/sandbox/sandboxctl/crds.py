"""Small CustomResourceDefinitions for the kinds that only twins serve (HyperShift, convoy, CAPTF).

Written here, not vendored (their modules cannot be had here): the real group/version/kind/plural, a
status subresource, and the fields we read typed; everything else is kept
(x-kubernetes-preserve-unknown-fields) so that the twins can carry what their real counterparts
carry. The Cluster API and CAPA kinds are not here: their CRDs come from the upstream module zips
(capi.py).
"""

_STR = {"type": "string"}
_BOOL = {"type": "boolean"}
_INT = {"type": "integer"}
_REF = {"type": "object", "properties": {"apiVersion": _STR, "kind": _STR, "name": _STR, "namespace": _STR},
        "x-kubernetes-preserve-unknown-fields": True}
_CONDITIONS = {"type": "array", "items": {"type": "object", "properties": {
    "type": _STR, "status": _STR, "reason": _STR, "message": _STR, "lastTransitionTime": _STR,
    "observedGeneration": _INT}, "x-kubernetes-preserve-unknown-fields": True}}

# (group, version, kind, plural, namespaced, spec fields, status fields)
KINDS = [
    ("hypershift.openshift.io", "v1beta1", "HostedCluster", "hostedclusters", True,
     {"infraID": _STR, "platform": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
     {"conditions": _CONDITIONS}),
    ("hypershift.openshift.io", "v1beta1", "NodePool", "nodepools", True,
     {"clusterName": _STR, "replicas": _INT}, {"conditions": _CONDITIONS}),
    ("hypershift.openshift.io", "v1beta1", "HostedControlPlane", "hostedcontrolplanes", True,
     {"infraID": _STR}, {"conditions": _CONDITIONS}),
    ("hypershift.openshift.io", "v1beta1", "AWSEndpointService", "awsendpointservices", True,
     {"networkLoadBalancerName": _STR}, {"conditions": _CONDITIONS, "endpointServiceName": _STR}),
    ("core.convoy.kumodo.io", "v1alpha1", "Release", "releases", True,
     {"clusterRef": _REF, "deletionPolicy": {"type": "object", "properties": {"keepWorkloads": _BOOL}},
      "lifecycle": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
     {"conditions": _CONDITIONS}),
    ("core.convoy.kumodo.io", "v1alpha1", "Cluster", "clusters", True,
     {"deletionPolicy": {"type": "object", "properties": {"pruneReleases": _BOOL}}},
     {"conditions": _CONDITIONS, "reachable": _BOOL}),
    ("core.convoy.kumodo.io", "v1alpha1", "ReleaseInventory", "releaseinventories", True,
     {"entries": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}},
     {"conditions": _CONDITIONS}),
    ("infrastructure.cluster.x-k8s.io", "v1alpha1", "TerraformCluster", "terraformclusters", True,
     {"paused": _BOOL}, {"conditions": _CONDITIONS,
                         "stateBackups": {"type": "array", "items": {"type": "object",
                                                                      "x-kubernetes-preserve-unknown-fields": True}}}),
    ("infrastructure.cluster.x-k8s.io", "v1alpha1", "TerraformMachine", "terraformmachines", True,
     {"paused": _BOOL}, {"conditions": _CONDITIONS}),
    ("infrastructure.cluster.x-k8s.io", "v1alpha1", "TerraformMachinePool", "terraformmachinepools", True,
     {"paused": _BOOL}, {"conditions": _CONDITIONS}),
]


# The HostedControlPlane is a Cluster's controlPlaneRef: CAPI reads this label to learn which of its
# versions speaks which contract; HyperShift's installer sets it so (cmd/install/assets/crds/assets.go,
# capiResources, openshift/hypershift@3ee9615)
CONTRACT_LABELS = {"hostedcontrolplanes.hypershift.openshift.io": {"cluster.x-k8s.io/v1beta1": "v1beta1"}}


def _crd(group, version, kind, plural, namespaced, spec, status):
    def obj(props):
        return {"type": "object", "properties": props, "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}", "labels": dict(CONTRACT_LABELS.get(f"{plural}.{group}", {}),
                                                                **{"teardown-gates.sandbox/crd": "true"})},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": kind + "List"},
            "scope": "Namespaced" if namespaced else "Cluster",
            "versions": [{
                "name": version, "served": True, "storage": True,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": obj(spec), "status": obj(status)}}},
            }],
        },
    }


def all_crds():
    return [_crd(*k) for k in KINDS]
