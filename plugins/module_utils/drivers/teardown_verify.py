# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The teardown_verify module's driver: two independent reads in one run - the Kubernetes objects as deletion_info
reads them (``objects``, without dependents) and the tracked AWS IDs looked up again as aws_infra_cleanup's check
mode looks them up (``aws``, aws/lookup.py) - each answered as its own module answers, and neither hiding the other.

The AWS look runs in a thread of its own while the Kubernetes client is built and the objects are read; it sends
only reads. The task fails as deletion_info fails (the API server did not answer while the client was built: every
object unknown), never for the AWS look, whose failure is its answer (``aws.failed``, ``aws.msg``): unknown, not
absent."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

from ansible_collections.teardown.gates.plugins.module_utils.aws import lookup as aws_lookup
from ansible_collections.teardown.gates.plugins.module_utils.core.args import k8s_argument_spec, k8s_objects_spec
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import fail_from, TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.drivers import deletion_info
from ansible_collections.teardown.gates.plugins.module_utils.drivers.entry import AwsModuleAsK8s, build_reads

CALLER = "teardown_verify"
ATTEMPTS = deletion_info.ATTEMPTS  # one try per read, as deletion_info


class KubeSide(object):
    """What ``entry.build_reads`` needs of a driver: the reads are deletion_info's, under this module's name."""
    CALLER = CALLER
    ATTEMPTS = ATTEMPTS
    client_failed = staticmethod(deletion_info.client_failed)


def argument_spec():
    """The module's spec: deletion_info's objects, aws_infra_cleanup's options of the look, kubernetes.core's auth
    options and request_timeout (AnsibleAWSModule adds amazon.aws's). kubernetes.core's validate_certs (no default)
    stands for both: unset, the kubeconfig's setting applies and AWS verifies, as by default."""
    return k8s_argument_spec(objects=k8s_objects_spec(), **aws_lookup.lookup_spec())


def kube_params(params):
    """deletion_info's params for the objects: no dependents, no diagnosis (no objects given: an empty list, which
    deletion_info's check refuses naming the option)."""
    return dict(params, objects=params.get("objects") or [], kind=None, name=None, dependents=False, diagnose=False)


def check(module):
    """Both reads' input errors, before any request, each naming the option (BadInput for the AWS options)."""
    deletion_info.check(module, kube_params(module.params))
    aws_lookup.check_input(module.params)


class AwsLook(threading.Thread):
    """The AWS look in its own thread; ``answer()`` waits for it."""

    def __init__(self, module):
        super(AwsLook, self).__init__(name="aws-look")
        self.daemon = True  # a module that fails on the Kubernetes side must not wait for it
        self.module = module
        self.result = None

    def run(self):
        self.result = aws_lookup.look(self.module, self.module.params)

    def answer(self):
        self.join()
        return self.result


def run(module):
    """Check the input, start the AWS look, read the objects; the result with both answers (the module fails when
    every object is unknown: the API server did not answer while the client was built)."""
    check(module)
    look = AwsLook(module)
    look.start()
    reads = build_reads(AwsModuleAsK8s(module), KubeSide)
    try:
        failed, result = deletion_info.answers(module, reads, kube_params(module.params))
    except TeardownGatesError as e:
        fail_from(module, e, queries=reads.queries)
    result["aws"] = look.answer()
    if failed:
        module.fail_json(**result)
    return result
