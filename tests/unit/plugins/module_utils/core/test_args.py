# -*- coding: utf-8 -*-
"""One request_timeout argument spec (#32): every module that documents request_timeout through the
teardown.gates.k8s_request_timeout doc fragment builds it from common_args, with the fragment's type and default."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import os

import yaml

from ansible_collections.teardown.gates.plugins.doc_fragments.k8s_request_timeout import ModuleDocFragment
from ansible_collections.teardown.gates.plugins.module_utils.core.args import request_timeout_spec

PLUGINS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..", "plugins"))


def test_the_spec_is_what_the_doc_fragment_documents():
    doc = yaml.safe_load(ModuleDocFragment.DOCUMENTATION)["options"]["request_timeout"]
    spec = request_timeout_spec()
    assert (spec["type"], spec["default"]) == (doc["type"], doc["default"])


def test_a_fresh_dict_each_call_and_a_default_passed_in():
    a, b = request_timeout_spec(), request_timeout_spec()
    assert a == b and a is not b
    assert request_timeout_spec(default=30) == dict(type="float", default=30)


def test_every_module_with_the_fragment_takes_the_shared_spec():
    modules = sorted(glob.glob(os.path.join(PLUGINS, "modules", "*.py")))
    users = []
    for path in modules:
        with open(path) as f:
            text = f.read()
        if "teardown.gates.k8s_request_timeout" in text:
            users.append(os.path.basename(path))
            # directly, or through k8s_argument_spec, which builds it with
            # request_timeout_spec; in the module, or in the driver whose argument_spec() the module takes
            if "driver.argument_spec()" in text:
                with open(os.path.join(PLUGINS, "module_utils", "drivers", os.path.basename(path))) as f:
                    text = f.read()
            assert ("request_timeout=request_timeout_spec(" in text or "k8s_argument_spec(" in text
                    or "with_request_timeout(" in text), path
        assert 'request_timeout=dict(' not in text, "%s writes its own request_timeout spec" % path
    assert len(users) >= 9


def test_an_aws_module_that_reads_kubernetes_adds_the_shared_request_timeout_to_a_copy():
    from ansible_collections.teardown.gates.plugins.module_utils.core.args import with_request_timeout

    spec = {"region": dict(type="str")}
    assert with_request_timeout(spec) == {"region": dict(type="str"), "request_timeout": request_timeout_spec()}
    assert "request_timeout" not in spec


def test_the_kubernetes_spec_is_the_options_request_timeout_and_the_auth_options_once():
    from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
    from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec

    spec = k8s_argument_spec(name=dict(type="str", required=True))
    assert spec["name"] == dict(type="str", required=True)
    assert spec["request_timeout"] == request_timeout_spec()
    assert set(AUTH_ARG_SPEC) <= set(spec)
    assert k8s_argument_spec(request_timeout=30)["request_timeout"] == dict(type="float", default=30)
    assert k8s_argument_spec() is not k8s_argument_spec()


def test_the_object_spec_is_what_its_doc_fragment_documents():
    from ansible_collections.teardown.gates.plugins.doc_fragments.k8s_object import ModuleDocFragment as ObjectDoc
    from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_object_spec

    doc = yaml.safe_load(ObjectDoc.DOCUMENTATION)["options"]
    spec = k8s_object_spec()
    assert sorted(spec) == sorted(doc)
    for key, option in doc.items():
        assert spec[key]["type"] == option["type"] and spec[key].get("default") == option.get("default")


def test_the_kubernetes_and_aws_spec_keeps_the_kubeconfigs_tls_setting():
    """AnsibleAWSModule puts the module's spec over amazon.aws's: kubernetes.core's validate_certs (no default) wins
    over amazon.aws's (default true), so a kubeconfig's own TLS setting holds; both auth option sets are there."""
    from ansible_collections.amazon.aws.plugins.module_utils.modules import aws_argument_spec
    from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
    from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec

    spec = aws_argument_spec()
    assert spec["validate_certs"].get("default") is True
    spec.update(k8s_argument_spec(name=dict(type="str")))
    assert spec["validate_certs"] == AUTH_ARG_SPEC["validate_certs"] and "default" not in spec["validate_certs"]
    assert {"kubeconfig", "context", "host", "access_key", "secret_key", "profile", "region", "request_timeout",
            "name"} <= set(spec)


def test_the_hosted_cluster_spec_is_what_its_doc_fragment_documents_and_the_namespace_the_module_s():
    from ansible_collections.teardown.gates.plugins.doc_fragments.hosted_cluster import ModuleDocFragment as HostedCluster
    from ansible_collections.teardown.gates.plugins.module_utils.core.args import hosted_cluster_spec

    doc = yaml.safe_load(HostedCluster.DOCUMENTATION)["options"]["name"]
    spec = hosted_cluster_spec(namespace=dict(type="str", default="clusters"))
    assert spec["name"] == dict(type=doc["type"], required=doc["required"])
    assert spec["namespace"] == dict(type="str", default="clusters")
    assert hosted_cluster_spec(namespace={}) is not spec
