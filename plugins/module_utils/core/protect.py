# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The protect mark (issue 33, item 3): what carries ``teardown.gates/protected=true`` stays out of every plan and
is listed as kept, with the reason. AWS resources and stacks carry it as a tag, Kubernetes objects as a label; the
key and the reading of its value are the same (``true`` in any case; anything else is not protected)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

PROTECTED_TAG = "teardown.gates/protected"
PROTECTED_REASON = "tagged %s" % PROTECTED_TAG
PROTECTED_LABEL_REASON = "labelled %s" % PROTECTED_TAG


def is_protected(tags):
    """True when the tags (AWS's list of Key/Value, or a mapping such as a Kubernetes object's labels) hold
    ``teardown.gates/protected=true``."""
    if isinstance(tags, dict):
        tags = [{"Key": k, "Value": v} for k, v in tags.items()]
    return any(t.get("Key") == PROTECTED_TAG and str(t.get("Value", "")).lower() == "true" for t in tags or [])


def labelled_protected(obj):
    """True when a Kubernetes object (a dict) is labelled ``teardown.gates/protected=true``."""
    return is_protected(((obj or {}).get("metadata") or {}).get("labels") or {})
