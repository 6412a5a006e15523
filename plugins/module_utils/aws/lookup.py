# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The read-only look again at every tracked AWS ID (teardown_verify): aws_infra_cleanup's check-mode run
(``runs.cleanup``) on the manifest, so every ID is looked up by ID and only reads reach AWS (the clients' check-mode
guard). Its answer is what that run returns; a failure (a look that failed, a client that could not be made) is
returned as the look's answer too - ``failed``, ``msg`` and whatever the run had found - instead of ending the
module, so the other reads of the same run keep their answers. A failed look is unknown, never absent."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback

from ansible_collections.amazon.aws.plugins.module_utils.botocore import (
    boto3_conn, get_aws_connection_info, get_aws_region)
from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as aws_graph
from ansible_collections.teardown.gates.plugins.module_utils.aws import runs as aws_runs
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

# the options of the look: aws_infra_cleanup's, as it documents them
LOOKUP_OPTIONS = ("manifest", "preserve_iam", "retain", "min_age", "cluster_created")
NOTHING_TRACKED = "no AWS ID is tracked: nothing to look up"


def lookup_spec():
    """The look's options (aws_infra_cleanup's specs, ``manifest`` required), a fresh dict each call."""
    cleanup = aws_runs.cleanup_spec()
    spec = dict((k, cleanup[k]) for k in LOOKUP_OPTIONS)
    spec["manifest"] = dict(spec["manifest"], required=True)
    return spec


def lookup_params(params):
    """aws_infra_cleanup's whole params for the look: the module's, with cleanup's defaults for what the look does
    not take (no infra ID, no discovery; its wait_timeout and concurrency)."""
    out = dict(params)
    for key, spec in aws_runs.cleanup_spec().items():
        out.setdefault(key, spec.get("default"))
    out["infra_id"] = None
    return out


def check_input(params):
    """The look's options checked before any request, as aws_infra_cleanup checks them; BadInput names the
    option."""
    p = lookup_params(params)
    aws_runs.cleanup_options(p)
    try:
        aws_graph.validate_manifest(p["retain"] or {})
    except aws_graph.PlanError as e:
        raise BadInput("retain: %s" % str(e).replace("manifest", "the mapping", 1))
    if isinstance(p["manifest"], str):
        aws_runs.load_manifest(p["manifest"])


class LookupFailed(TeardownGatesError):
    """The look ended the way aws_infra_cleanup fails: ``msg`` and the keys it returned with it."""

    def __init__(self, msg, result):
        super(LookupFailed, self).__init__(msg)
        self.result = result


class ReadOnlyRun(object):
    """The module as ``runs.cleanup`` sees it for the look: the look's params, check mode always, the AWS clients
    made by amazon.aws's helpers from those params, and a failure raised as LookupFailed instead of ending the
    module. ``module`` (the real one) receives the warnings."""

    def __init__(self, module, params, name="teardown_verify"):
        self.params = params
        self.check_mode = True
        self.module = module
        self.name = name

    @property
    def region(self):
        return get_aws_region(self)

    def client(self, service, retry_decorator=None, **extra_params):
        """A boto3 client as AnsibleAWSModule.client makes it (retries are the Clients layer's)."""
        region, endpoint_url, connect = get_aws_connection_info(self)
        if not region:
            self.fail_json(msg="region: %s needs a region and none was found (the region option, AWS_REGION or "
                           "AWS_DEFAULT_REGION, or the profile's)" % self.name)
        kw_args = dict(region=region, endpoint=endpoint_url, **connect)
        kw_args.update(extra_params)
        return boto3_conn(self, conn_type="client", resource=service, **kw_args)

    def fail_json(self, msg=None, **kwargs):
        raise LookupFailed(msg, kwargs)

    def fail_json_aws(self, exception, msg=None, **kwargs):
        raise LookupFailed("%s: %s" % (msg or "AWS request failed", exception), kwargs)

    def warn(self, warning):
        self.module.warn(warning)

    def deprecate(self, *args, **kwargs):
        self.module.deprecate(*args, **kwargs)


def look(module, params):
    """The look's answer for the module's ``params``: aws_infra_cleanup's check-mode result; ``failed`` and ``msg``
    (with what it had found) when it failed; ``skipped`` when the manifest tracks nothing."""
    p = lookup_params(params)
    manifest = p["manifest"]
    if isinstance(manifest, dict) and len(manifest) == 0:
        return dict(changed=False, skipped=True, msg=NOTHING_TRACKED)
    try:
        run = ReadOnlyRun(module, p)
        return aws_runs.cleanup(run, caller=run.name)
    except LookupFailed as e:
        return dict(e.result, changed=False, failed=True, msg=str(e))
    except BadInput as e:
        return dict(changed=False, failed=True, msg=str(e))
    except Exception as e:  # pylint: disable=broad-except
        # not foreseen: the look's answer is unknown, and says why
        return dict(changed=False, failed=True, msg="the AWS look failed: %s" % e, exception=traceback.format_exc())
