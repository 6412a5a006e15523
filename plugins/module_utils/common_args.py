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
