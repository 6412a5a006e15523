# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way a Kubernetes module runs its driver: ``run_k8s_module(module, driver)``.

A module's ``main()`` builds its AnsibleK8SModule (the spec from ``common_args.k8s_argument_spec``) and hands it
to ``run_k8s_module`` with its driver (``drivers/<module>.py``). The driver is any object (a Python module
here) with:

- ``CALLER``: the module's name, for the User-Agent;
- ``ATTEMPTS`` (optional): the tries of each read, ``k8s_client.READ_ATTEMPTS`` when absent (the gates and the
  one-shot readers say 1);
- ``check(module)`` (optional): input errors, before any request; it fails the module or returns;
- ``client_failed(module, err, started=None)`` (optional): what a ResourceLookupError while building the
  client means for this module (``started``: the epoch time before the client was built). It fails the module,
  or returns to go on without a client (every read is then unknown);
- ``client_crashed(module, err, started=None)`` (optional): the same for any other exception (the default
  failure names ``errors.CLIENT_FAILED``); it must fail the module (or raise);
- ``run(module, reads)``: the work, with ``reads`` the run's KubeReads; it exits or fails the module.

Building the client, the KubeReads and the failures nobody foresaw are here, once: an error the driver did
not handle becomes the module's failure through ``errors.fail_from``.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import requires

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import CLIENT_FAILED, fail_from, TeardownGatesError
from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import (
    READ_ATTEMPTS, ResourceLookupError, api_client)
from ansible_collections.teardown.gates.plugins.module_utils.k8s.reads import KubeReads


class AwsModuleAsK8s(object):
    """An AnsibleAWSModule (a module that reads Kubernetes and AWS in one process: hosted_cluster_baseline,
    teardown_verify) as kubernetes.core's get_api_client and build_reads read a module: AnsibleK8SModule's
    ``requires`` (kubernetes.core's own check) and ``server_side_dry_run`` (off: these modules only read), over the
    module's params, check mode, warnings and failures."""

    server_side_dry_run = False

    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.check_mode = module.check_mode

    def requires(self, dependency, minimum=None, reason=None):
        try:
            requires(dependency, minimum, reason=reason)
        except Exception as e:  # pylint: disable=broad-except
            self.module.fail_json(msg=str(e))

    def fail_json(self, **kwargs):
        self.module.fail_json(**kwargs)

    def warn(self, warning):
        self.module.warn(warning)


def build_reads(module, driver):
    """The run's KubeReads (check mode from the module; ``started`` before the client was built); fails the
    module when the client cannot be built, unless the driver's ``client_failed`` chooses to go on without one."""
    p = module.params
    started = time.time()
    attempts = getattr(driver, "ATTEMPTS", READ_ATTEMPTS)
    try:
        client = api_client(module, request_timeout=p["request_timeout"], caller=driver.CALLER)
    except ResourceLookupError as e:
        handler = getattr(driver, "client_failed", None)
        if handler is None:
            fail_from(module, e)
        handler(module, e, started=started)
        client = None
        unreachable = e
    except Exception as e:  # pylint: disable=broad-except
        handler = getattr(driver, "client_crashed", None)
        if handler is not None:
            handler(module, e, started=started)
        fail_from(module, e, what=CLIENT_FAILED)
    else:
        unreachable = None
    reads = KubeReads(client, p["request_timeout"], check_mode=module.check_mode, attempts=attempts,
                      unreachable=unreachable)
    reads.started = started
    return reads


def run_k8s_module(module, driver):
    """Check the input, build the client and its KubeReads, run the driver; never returns."""
    check = getattr(driver, "check", None)
    if check is not None:
        check(module)
    reads = build_reads(module, driver)
    try:
        driver.run(module, reads)
    except TeardownGatesError as e:
        fail_from(module, e, queries=reads.queries)
