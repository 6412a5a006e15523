# -*- coding: utf-8 -*-
"""drivers/hosted_cluster_info.py: the reading rules against a KubeReads stand-in (no client)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.drivers import hosted_cluster_info as I
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError


def test_read_failed_is_unknown_and_derives_from_the_one_base():
    assert issubclass(I.ReadFailed, TeardownGatesError) and I.ReadFailed("x").unknown


def test_the_first_container_image():
    dep = {"spec": {"template": {"spec": {"containers": [{"image": "quay.io/cpo:1"}, {"image": "other"}]}}}}
    assert I.first_image(dep) == "quay.io/cpo:1" and I.first_image(None) is None


def test_a_read_with_no_answer_is_read_failed():
    def read(*args, **kwargs):
        return {"state": "unknown", "query": {"ok": False, "error": "timed out"}}
    with pytest.raises(I.ReadFailed) as e:
        I.checked("HostedCluster clusters/a", "v1", "HostedCluster", read, "a")
    assert "timed out" in str(e.value)
