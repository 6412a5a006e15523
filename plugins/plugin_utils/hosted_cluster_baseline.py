# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster_destroy role's baseline steps as filters (hosted_cluster_destroy_step): the code is
module_utils/kinds/hosted_cluster_baseline.py's, which the hosted_cluster_baseline module runs too; here its
BaselineError becomes the AnsibleFilterError a filter raises, with the same message."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import functools
import os

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.text.converters import to_bytes, to_text
from ansible_collections.teardown.gates.plugins.module_utils.kinds import hosted_cluster_baseline as pure
# issuer_bucket: a name its callers have always taken from here
from ansible_collections.teardown.gates.plugins.module_utils.kinds.hosted_cluster_baseline import (  # noqa: F401  pylint: disable=unused-import
    issuer_bucket)
from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import printed


def _filter(func):
    """``func`` with its BaselineError raised as an AnsibleFilterError (the same message)."""
    @functools.wraps(func)
    def call(*args):
        try:
            return func(*args)
        except pure.BaselineError as e:
            raise AnsibleFilterError(str(e))
    return call


identity = _filter(pure.identity)
merged_manifest = _filter(pure.merged_manifest)
aws_cleanup_runs = _filter(pure.aws_cleanup_runs)
stored_baseline = _filter(pure.stored_baseline)


def stored_read(read, path):
    """The baseline an earlier run stored at ``path``, as ``stored_baseline`` checks it, from where Phase 1 read it: the
    ``slurp`` result ``read`` (its base64 content) for a path relative to the working directory; for an absolute
    path (the play runs on the controller) the file itself, read in process as the ``file`` lookup with
    errors='ignore' read it (a file that is missing or cannot be read is ''). The text goes to ``stored_baseline`` as it is
    read, never through a var, so no core turns it into a mapping first."""
    read = read if isinstance(read, dict) else {}
    if "content" in read:
        text = to_text(base64.b64decode(to_bytes(read["content"], errors="surrogate_or_strict")),
                       errors="surrogate_or_strict")
    elif os.path.isabs(printed(path)):
        text = pure.file_text(path)
    else:
        text = ""
    return stored_baseline(text, path)
