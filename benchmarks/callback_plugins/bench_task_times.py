# -*- coding: utf-8 -*-
# Benchmark equipment (not collection content): one JSON line per finished task to $BENCH_TASK_TIMES.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: bench_task_times
type: aggregate
short_description: Write each task's start, end and module to a JSON-lines file (benchmarks only)
description:
  - For benchmarks/bench_hosted_cluster.py. Enabled with E(ANSIBLE_CALLBACKS_ENABLED=bench_task_times) and
    E(ANSIBLE_CALLBACK_PLUGINS) pointing here; writes to E(BENCH_TASK_TIMES).
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_task_times"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self._path = os.environ.get("BENCH_TASK_TIMES")
        self._started = {}

    def _start(self, task):
        self._started[task._uuid] = (time.time(), task.get_name(), task.action)

    v2_playbook_on_task_start = lambda self, task, is_conditional: self._start(task)  # noqa: E731
    v2_playbook_on_handler_task_start = lambda self, task: self._start(task)  # noqa: E731

    def _end(self, result, status):
        if not self._path:
            return
        start, name, action = self._started.get(result._task._uuid, (None, result._task.get_name(), result._task.action))
        with open(self._path, "a") as f:
            f.write(json.dumps({"name": name, "action": action, "status": status, "start": start, "end": time.time(),
                                "host": result._host.get_name()}) + "\n")

    def v2_runner_on_ok(self, result):
        self._end(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._end(result, "failed")

    def v2_runner_on_skipped(self, result):
        self._end(result, "skipped")
