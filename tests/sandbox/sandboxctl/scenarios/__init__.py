"""Seed scenarios: `sandbox seed NAME` calls SCENARIOS[NAME](name=, namespace=, knobs=) -> dict.

Each scenario creates real objects in the sandbox and returns one JSON-able description of what
it created: kinds, names, namespaces, UIDs, infra ID and AWS IDs. Later issues add scenarios here.
"""
import importlib

from ..procs import SandboxError

# scenario name -> module under sandboxctl.scenarios exposing seed(name, namespace, knobs)
SCENARIOS = {
    "smoke": "smoke",
    "aws-infra": "aws_infra",
    "captf": "captf",
    "releases": "releases",
    "hosted-cluster": "hosted_cluster",
    "cfn-refusals": "cfn_refusals",
    "orphans": "orphans",
}


def get(name):
    if name not in SCENARIOS:
        raise SandboxError(f"unknown scenario {name!r}; known: {', '.join(sorted(SCENARIOS))}")
    mod = importlib.import_module(f"{__name__}.{SCENARIOS[name]}")
    return mod.seed
