# -*- coding: utf-8 -*-
# diagnosis.FINALIZER_OWNERS and the sandbox's twins name the same finalizers (FACTS.md and the seed): every
# finalizer a twin puts on an object has an owner and a "waits for", and the OIDC cleanup is its own finalizer,
# hypershift.io/aws-oidc-discovery, which HO drops before its own. Read from the twins' source, not imported:
# the twins are test equipment and the collection never knows them.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

import pytest

from ansible_collections.teardown.gates.plugins.module_utils import diagnosis

TWINS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "sandbox", "sandboxctl", "twins")


def _twin_finalizers(name):
    """String constants named *_FINALIZER in a twin module."""
    with open(os.path.join(TWINS, name)) as f:
        tree = ast.parse(f.read())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id.endswith("_FINALIZER"):
                    out[t.id] = node.value.value
    return out


FINALIZERS = dict(_twin_finalizers("hostedcommon.py"), **{"convoy." + k: v for k, v in _twin_finalizers("convoy.py").items()})


def test_the_twins_define_the_finalizers_this_test_reads():
    assert {"HO_FINALIZER", "CLI_FINALIZER", "OIDC_FINALIZER", "CPO_FINALIZER", "convoy.RELEASE_FINALIZER"} <= set(FINALIZERS)


@pytest.mark.parametrize("const", sorted(FINALIZERS))
def test_every_twin_finalizer_has_an_owner_and_what_it_waits_for(const):
    owner = diagnosis.finalizer_owner(FINALIZERS[const])
    assert owner["owner"] != "unknown" and owner["waits_for"], (const, owner)


def test_the_oidc_cleanup_has_its_own_finalizer_and_ho_waits_for_it():
    assert FINALIZERS["OIDC_FINALIZER"] == "hypershift.io/aws-oidc-discovery"
    assert "OIDC" in diagnosis.finalizer_owner(FINALIZERS["OIDC_FINALIZER"])["owner"]
    assert FINALIZERS["OIDC_FINALIZER"] in diagnosis.finalizer_owner(FINALIZERS["HO_FINALIZER"])["waits_for"]
