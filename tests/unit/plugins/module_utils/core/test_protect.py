# -*- coding: utf-8 -*-
"""core/protect.py: the protect mark, one key and one reading of its value for AWS tags and Kubernetes labels."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core import protect


def test_the_tag_as_aws_lists_it_or_as_a_mapping_is_protected_only_when_true():
    assert protect.is_protected([{"Key": "teardown.gates/protected", "Value": "TRUE"}])
    assert protect.is_protected({"teardown.gates/protected": "true", "team": "a"})
    assert not protect.is_protected([{"Key": "teardown.gates/protected", "Value": "yes"}])
    assert not protect.is_protected([{"Key": "teardown.gates/Protected", "Value": "true"}])
    assert not protect.is_protected(None) and not protect.is_protected({})


def test_a_kubernetes_object_is_protected_by_its_label_and_the_reasons_name_the_mark():
    assert protect.labelled_protected({"metadata": {"labels": {"teardown.gates/protected": "true"}}})
    assert not protect.labelled_protected({"metadata": {"annotations": {"teardown.gates/protected": "true"}}})
    assert not protect.labelled_protected({"metadata": {}}) and not protect.labelled_protected(None)
    assert protect.PROTECTED_REASON == "tagged teardown.gates/protected"
    assert protect.PROTECTED_LABEL_REASON == "labelled teardown.gates/protected"
