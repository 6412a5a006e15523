# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Argument specs that more than one module shares, each beside the doc fragment that documents it, so that a
module's argument_spec and its DOCUMENTATION (which ansible-test validate-modules compares) come from one place."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

# the default of request_timeout in seconds, as plugins/doc_fragments/k8s_request_timeout.py documents it
REQUEST_TIMEOUT_DEFAULT = 10


def request_timeout_spec(default=REQUEST_TIMEOUT_DEFAULT):
    """The spec of ``request_timeout`` (documented by the ``teardown.gates.k8s_request_timeout`` doc fragment), a
    fresh dict each call. A module whose DOCUMENTATION states another default passes it as ``default``."""
    return dict(type="float", default=default)


def with_request_timeout(spec):
    """``spec`` and ``request_timeout``: the spec of an AWS module (amazon.aws adds its own options) that also reads
    Kubernetes, bounded as the Kubernetes modules' reads are; a fresh dict."""
    return dict(spec, request_timeout=request_timeout_spec())


def k8s_argument_spec(request_timeout=REQUEST_TIMEOUT_DEFAULT, **options):
    """A Kubernetes module's whole argument spec: its own ``options``, ``request_timeout`` (the
    ``teardown.gates.k8s_request_timeout`` doc fragment) and kubernetes.core's auth options (the
    ``kubernetes.core.k8s_auth_options`` doc fragment: kubeconfig, context, host, api_key, ...), a fresh dict each
    call. ``request_timeout`` is the default a module's DOCUMENTATION states, when it is not the fragment's."""
    from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

    spec = dict(options)
    spec["request_timeout"] = request_timeout_spec(request_timeout)
    spec.update(AUTH_ARG_SPEC)
    return spec


def hosted_cluster_spec(namespace):
    """The spec of ``name`` (documented by the ``teardown.gates.hosted_cluster`` doc fragment) and of ``namespace``,
    given by the module (it has a default in one module and is required in another), a fresh dict each call."""
    return dict(name=dict(type="str", required=True), namespace=namespace)


def k8s_object_spec():
    """The spec of ``api_version`` and ``namespace`` (documented by the ``teardown.gates.k8s_object`` doc
    fragment) for a module that names one object, a fresh dict each call."""
    return dict(api_version=dict(type="str", default="v1"), namespace=dict(type="str"))


def k8s_objects_spec(**extra):
    """The spec of ``objects`` (deletion_info's, teardown_verify's): the objects to read, each by its name or listed
    by kind, a fresh dict each call; ``extra`` adds to the option's own keys (``required=True``)."""
    spec = dict(type="list", elements="dict", options=dict(
        api_version=dict(type="str", default="v1"),
        kind=dict(type="str"),
        name=dict(type="str"),
        namespace=dict(type="str"),
        label_selector=dict(type="str"),
        match=dict(type="dict"),
    ))
    spec.update(extra)
    return spec
