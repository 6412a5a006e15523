# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # What holds for every AWS request of every module (module_utils/core/bounds.py, aws/client.py), said once.
    # No options: a module lists it for its notes.
    DOCUMENTATION = r"""
options: {}
notes:
  - Time bound, AWS - each request has a connect timeout of 5 s and a read timeout of 15 s; botocore alone retries
    (standard mode, 4 attempts in all), so one call ends within 87 seconds. An endpoint that has not answered within
    that gets no further request - what it holds is unknown, never absent - and the task fails naming the endpoint.
  - Each AWS request carries the user agent C(teardown.gates/<version> (<module>)), which CloudTrail shows as its
    userAgent.
"""
