# Test equipment for tests/chaos/interrupt.py (not collection content): writes one JSON line per task
# start to $TASK_MARKS_FILE (flushed at once, so a SIGKILL right after still leaves it on disk), and at
# the end of the play the set_stats data, so the harness can read what a playbook handed to AWX.
from __future__ import annotations

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: task_marks
type: aggregate
short_description: task starts and set_stats data as JSON lines, for the interruption campaign
description:
  - Appends one JSON line per task start, and the custom stats at the end, to the file named by TASK_MARKS_FILE.
requirements:
  - enabled in ANSIBLE_CALLBACKS_ENABLED
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "task_marks"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._path = os.environ.get("TASK_MARKS_FILE")
        self._count = 0

    def _write(self, record):
        if not self._path:
            return
        with open(self._path, "a") as f:
            f.write(json.dumps(record, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._count += 1
        self._write({"event": "task", "n": self._count, "name": task.get_name(), "action": task.action,
                     "t": time.time()})

    def v2_playbook_on_handler_task_start(self, task):
        self.v2_playbook_on_task_start(task, False)

    def v2_playbook_on_stats(self, stats):
        self._write({"event": "stats", "custom": getattr(stats, "custom", {}), "t": time.time()})
