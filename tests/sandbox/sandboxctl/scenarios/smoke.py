"""smoke: a namespace, a custom resource held by a finalizer, and a tagged VPC.

The smallest scenario that exercises every part of the sandbox; the foundation's own tests use it.
"""
import uuid

from .common import aws, ensure_namespace, kube

FINALIZER = "sandbox.teardown.gates/hold"


def seed(name=None, namespace=None, knobs=None):
    name = name or "smoke-" + uuid.uuid4().hex[:6]
    namespace = namespace or "smoke"
    ns_uid = ensure_namespace(namespace)
    hc_api = kube().resources.get(api_version="hypershift.openshift.io/v1beta1", kind="HostedCluster")
    hc = hc_api.create(namespace=namespace, body={
        "apiVersion": "hypershift.openshift.io/v1beta1", "kind": "HostedCluster",
        "metadata": {"name": name, "namespace": namespace, "finalizers": [FINALIZER]},
        "spec": {"infraID": name}})
    ec2 = aws("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16", TagSpecifications=[{
        "ResourceType": "vpc", "Tags": [{"Key": f"kubernetes.io/cluster/{name}", "Value": "owned"}]}])["Vpc"]
    return {
        "scenario": "smoke", "name": name, "namespace": namespace, "infra_id": name,
        "objects": [
            {"apiVersion": "v1", "kind": "Namespace", "name": namespace, "uid": ns_uid},
            {"apiVersion": "hypershift.openshift.io/v1beta1", "kind": "HostedCluster", "name": name,
             "namespace": namespace, "uid": hc.metadata.uid, "finalizers": [FINALIZER]},
        ],
        "aws": {"AWS::EC2::VPC": [vpc["VpcId"]]},
    }
