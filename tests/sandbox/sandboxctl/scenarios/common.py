"""Clients for scenarios and twins, built from the sandbox's own environment."""
import os

import boto3
from kubernetes import client, config, dynamic


def kube():
    return dynamic.DynamicClient(config.new_client_from_config(os.environ["KUBECONFIG"]))


def core_v1():
    return client.CoreV1Api(config.new_client_from_config(os.environ["KUBECONFIG"]))


def aws(service):
    return boto3.client(service, endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                        region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


def ensure_namespace(name):
    v1 = core_v1()
    try:
        ns = v1.read_namespace(name)
    except client.ApiException as e:
        if e.status != 404:
            raise
        try:
            ns = v1.create_namespace({"metadata": {"name": name}})
        except client.ApiException as e:
            if e.status != 409:
                raise
            # another seed (tests seed clusters in parallel) created it between our read and create
            ns = v1.read_namespace(name)
    return ns.metadata.uid
