# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The bound of a whole AWS teardown (aws_args.wait_timeout_spec).
    DOCUMENTATION = r"""
options:
  wait_timeout:
    description:
      - Seconds the whole teardown may take, the waits on what blocks it and its remedies included.
      - What is still blocked then is reported as failed, with what blocks it; a re-run resumes.
    type: int
    default: 900
"""
