# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: gate_progress
type: aggregate
short_description: Show every few seconds which wait_gate gate is open and what is left
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - A module cannot print while it runs. This callback sets E(TEARDOWN_GATES_PROGRESS_DIR) for the
    modules it starts, M(teardown.gates.wait_gate) writes its state there, and while a task runs the
    callback prints one line per open gate every O(interval) seconds - the gate, how long it has been
    open, and the objects that still hold it (with their finalizers).
  - Works for modules that run on the controller (the usual case for Kubernetes modules, on C(localhost)
    or delegated to it), with or without C(async).
  - Runs alongside any stdout callback.
requirements:
  - enable in ansible.cfg (C(callbacks_enabled = teardown.gates.gate_progress)) or with E(ANSIBLE_CALLBACKS_ENABLED)
options:
  interval:
    description: Seconds between progress lines.
    type: float
    default: 5
    env:
      - name: TEARDOWN_GATES_PROGRESS_INTERVAL
    ini:
      - section: teardown_gates
        key: progress_interval
"""

import glob
import json
import os
import shutil
import tempfile
import threading

from ansible.plugins.callback import CallbackBase


def _alive(pid):
    if not pid:
        return False
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError):
        return False
    return True


def format_progress(snap):
    """One line for a progress snapshot written by wait_gate (see module_utils/k8s/gate_progress.py)."""
    left = snap.get("remaining") or []
    what = []
    for r in left[:5]:
        ns = (r.get("namespace") + "/") if r.get("namespace") else ""
        fins = ",".join(r.get("finalizers") or [])
        kind = "%s.%s" % (r.get("kind"), r["group"]) if r.get("group") else r.get("kind")
        what.append("%s %s%s%s%s%s" % (kind, ns, r.get("name"), " (terminating)" if r.get("terminating") else "",
                                       " [%s]" % fins if fins else "",
                                       " - %s" % r["waiting_for"] if r.get("waiting_for") else ""))
    more = " +%d more" % (snap.get("remaining_count", 0) - 5) if snap.get("remaining_count", 0) > 5 else ""
    if not snap.get("listed"):
        status = "waiting for the first successful list"
    elif snap.get("unknown"):
        status = "state UNKNOWN (queries failing); %d held before" % snap.get("remaining_count", 0)
    else:
        status = "%d left: %s%s" % (snap.get("remaining_count", 0), "; ".join(what) or "-", more)
    return "gate %d/%d '%s' (%s) open %.0fs - %s" % (
        snap.get("index", 0), snap.get("of", 0), snap.get("gate"), snap.get("until"), snap.get("elapsed", 0), status)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "teardown.gates.gate_progress"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super(CallbackModule, self).__init__(display=display)
        self._own_dir = None
        if not os.environ.get("TEARDOWN_GATES_PROGRESS_DIR"):
            self._own_dir = tempfile.mkdtemp(prefix="teardown-gates-progress-")
            os.environ["TEARDOWN_GATES_PROGRESS_DIR"] = self._own_dir  # inherited by local module runs
        self.dir = os.environ["TEARDOWN_GATES_PROGRESS_DIR"]
        self._stop = threading.Event()
        self._thread = None

    def set_options(self, task_keys=None, var_options=None, direct=None):
        super(CallbackModule, self).set_options(task_keys=task_keys, var_options=var_options, direct=direct)
        self.interval = float(self.get_option("interval"))
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="gate-progress")
            self._thread.daemon = True
            self._thread.start()

    def poll_once(self):
        """Print one line per progress file; drop the files of finished waits. Returns the lines."""
        lines = []
        for path in sorted(glob.glob(os.path.join(self.dir, "wait_gate-*.json"))):
            try:
                with open(path) as f:
                    snap = json.load(f)
            except (IOError, OSError, ValueError):
                continue
            if snap.get("done") or not _alive(snap.get("pid")):  # finished, or killed mid-wait
                try:
                    os.unlink(path)
                except OSError:
                    pass
                continue
            lines.append(format_progress(snap))
        for line in lines:
            self._display.display("[gate_progress] " + line)
        return lines

    def _loop(self):
        while not self._stop.wait(self.interval):
            self.poll_once()

    def v2_playbook_on_stats(self, stats):
        self._stop.set()
        if self._own_dir:
            shutil.rmtree(self._own_dir, ignore_errors=True)
