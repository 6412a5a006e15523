# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a read saw, in the one vocabulary every kind uses: present, absent, or unknown. Unknown is a read that did
not answer (a timeout, a refused connection, a 5xx, a 403): the object may be there or not, so it is never taken
for absent. k8s/observe.py returns these as an observation's ``state``; owners/captf.py hands UNKNOWN on in place
of a value it could not read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

PRESENT = "present"
ABSENT = "absent"
UNKNOWN = "unknown"
