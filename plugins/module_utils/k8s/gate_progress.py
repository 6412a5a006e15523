# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an open gate looks like from outside the module: wait_gate writes it to a JSON file while it waits,
and the ``teardown.gates.gate_progress`` callback prints it (a module cannot print while it runs)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import time

from ansible_collections.teardown.gates.plugins.module_utils.k8s.diagnosis import deleting_condition, kind_label
from ansible_collections.teardown.gates.plugins.module_utils.k8s.gates import PASSED
from ansible_collections.teardown.gates.plugins.module_utils.k8s.observe import utc_iso


class ProgressFile(object):
    """Write the open gate's state to a JSON file, atomically, at most every ``min_interval`` s.

    A module cannot print while it runs; the ``teardown.gates.gate_progress`` callback (or any
    reader) shows this file's content every few seconds. Call it as
    ``progress(index, gate_state, final_state=None)``.
    """

    def __init__(self, path, total, min_interval=0.5):
        self.path = path
        self.total = total
        self.min_interval = min_interval
        self._last = 0.0
        self.passed = []

    def snapshot(self, index, st, final_state=None):
        left = st.remaining() if all(s["listed"] for s in st.sel) else []
        return {
            "pid": os.getpid(), "updated": utc_iso(), "gate": st.gate.get("name"), "index": index + 1,
            "of": self.total, "until": st.until, "opened": utc_iso(st.started),
            "elapsed": round(time.time() - st.started, 1), "state": final_state or "open",
            "listed": all(s["listed"] for s in st.sel), "unknown": bool(st.unknown_selectors()),
            "remaining_count": len(left), "passed_gates": list(self.passed),
            "remaining": [{"kind": r.get("kind"), "group": kind_label(r.get("api_version"), "").lstrip("."),
                           "namespace": r.get("namespace"), "name": r.get("name"),
                           "finalizers": r.get("finalizers") or [],
                           "terminating": bool(r.get("deletion_timestamp")),
                           "waiting_for": deleting_condition(r.get("conditions"))} for r in left[:20]],
            "done": final_state is not None and (final_state != PASSED or index + 1 == self.total),
        }

    def __call__(self, index, st, final_state=None):
        now = time.monotonic()
        if final_state is None and now - self._last < self.min_interval:
            return
        self._last = now
        if final_state == PASSED:
            self.passed.append(st.gate.get("name"))
        tmp = "%s.%d.tmp" % (self.path, os.getpid())
        try:
            with open(tmp, "w") as f:
                json.dump(self.snapshot(index, st, final_state), f)
            os.rename(tmp, self.path)
        except (IOError, OSError):
            pass  # progress is a courtesy; never fail a wait over it
