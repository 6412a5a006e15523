# -*- coding: utf-8 -*-
"""A stand-in for AnsibleAWSModule in the AWS runs' unit tests: its params, check mode and region, the client it
hands out (or none), and fail_json / fail_json_aws recorded in ``failed`` and raised as ``Exited``."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type


class Exited(Exception):
    pass


class AWSModuleDouble:
    def __init__(self, params, check_mode=False, client=None):
        self.params = params
        self.check_mode = check_mode
        self.region = "us-east-1"
        self._client = client
        self.failed = None

    def client(self, service, config=None):
        if self._client is None:
            raise AssertionError("no AWS client is made in these tests")
        return self._client

    def fail_json(self, **kwargs):
        self.failed = kwargs
        raise Exited()

    def fail_json_aws(self, exception, msg=None, **kwargs):
        self.failed = dict(kwargs, msg="%s: %s" % (msg, exception), aws=True)
        raise Exited()
