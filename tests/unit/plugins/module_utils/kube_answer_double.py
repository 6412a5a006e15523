# -*- coding: utf-8 -*-
"""What the Kubernetes client raises for an HTTP answer (its ApiException: status, reason, body), or, without a
status, for no answer, in the Kubernetes reads' unit tests. A test module takes it with
``from kube_answer_double import Answer`` (tests/unit/plugins/module_utils is on the path: pytest puts the first
folder up without an __init__.py there)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type


class Answer(Exception):
    """An HTTP answer the client raises: ``text`` is its reason, ``status`` its HTTP status (None: no answer)."""

    def __init__(self, text, status=None, body=None):
        super(Answer, self).__init__(text)
        self.status = status
        self.reason = text
        self.body = body
