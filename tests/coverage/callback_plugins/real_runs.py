# Test equipment (not collection content): records which teardown.gates modules and which playbooks ran for
# real, so that tests/coverage/check_real_runs.py can fail `make test` when one never did (issue 36).
#
# Loaded without being enabled (an aggregate callback without CALLBACK_NEEDS_ENABLED) wherever its folder is in
# the callback plugin path: ANSIBLE_CALLBACK_PLUGINS (the sandbox tests, molecule) or callback_plugins in an
# ansible.cfg (ansible-test's tests/integration/integration.cfg). It does nothing unless its `dir` option is set.
#
# One JSON line per event, in DIR/real-runs-<pid>.jsonl: one file per process, so runs at the same time never
# interleave their lines. Only public ansible-core names are used: the Task's action, resolved_action and
# check_mode at task start, the Play's get_path() and check_mode at play start, ansible.context.CLIARGS for
# --check, and of a TaskResult its public methods (is_changed) and, on ansible-core 2.19 and later, its public
# `task` (the task as it ran, check_mode templated). On 2.16 to 2.18 a TaskResult has no public task, so a result
# belongs to the task that started last (true of the linear strategy, which runs each task on every host before
# the next task starts).
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import resource
import time

from ansible import context
from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: real_runs
type: aggregate
short_description: record the real runs of teardown.gates modules and of playbooks, as JSON lines
description:
  - Test equipment of teardown.gates, not collection content.
  - Appends one JSON line per finished task of a C(teardown.gates) module (its resolved action, whether it ran in
    check mode, ok, changed, failed, skipped or unreachable) and one line per playbook and per play start (the
    playbook file, whether the run is in check mode) to C(real-runs-<pid>.jsonl) in the folder O(dir), and at
    the end of a run its CPU seconds (the process and its finished children) and wall seconds.
  - Loads without being enabled; does nothing when O(dir) is not set.
options:
  dir:
    description: The folder of the record files; nothing is recorded when it is not set.
    type: path
    env:
      - name: TEARDOWN_GATES_REAL_RUNS_DIR
    ini:
      - section: callback_real_runs
        key: dir
"""

PREFIX = "teardown.gates."


def _bool_or_none(value):
    """check_mode as a bool, or None when it is not known here (a template not yet rendered)."""
    return value if isinstance(value, bool) else None


def _run_check():
    return bool(context.CLIARGS.get("check", False))


def _file_of(obj):
    """The file an object of a playbook was loaded from (get_path() is 'FILE:LINE'), or None."""
    try:
        path = obj.get_path()
    except Exception:  # pylint: disable=broad-except
        return None
    if not path:
        return None
    return path.rsplit(":", 1)[0] if ":" in path else path


def _action_of(task):
    """The task's resolved FQCN, without asking ansible-core to resolve a templated action (it would warn)."""
    action = task.action
    if not isinstance(action, str) or "{{" in action or "{%" in action:
        return None
    return task.resolved_action or action


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "real_runs"

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self._records = False  # not looked up yet
        self._started = None  # what the task that started last is: action, name, check mode, file
        self._play_path = None
        self._t0 = time.time()

    def _records_dir(self):
        if self._records is False:
            try:
                self._records = self.get_option("dir")
            except KeyError:  # options not set by the caller
                self.set_options()
                self._records = self.get_option("dir")
        return self._records

    def _write(self, record):
        folder = self._records_dir()
        if not folder:
            return
        record.update(pid=os.getpid(), t=round(time.time(), 3))
        if not os.path.isdir(folder):
            os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "real-runs-%d.jsonl" % os.getpid())
        with open(path, "a") as f:
            f.write(json.dumps(record, sort_keys=True, default=str) + "\n")

    # ---- playbooks and plays
    def v2_playbook_on_start(self, playbook):
        files = []
        for play in playbook.get_plays():
            path = _file_of(play)
            if path and path not in files:
                files.append(path)
        args = context.CLIARGS.get("args") or ()
        self._write({"event": "playbook", "files": files, "args": [args] if isinstance(args, str) else list(args),
                     "check": _run_check()})

    def v2_playbook_on_play_start(self, play):
        self._play_path = _file_of(play)
        check = _bool_or_none(play.check_mode)
        self._write({"event": "play", "file": self._play_path, "name": play.get_name(),
                     "check": _run_check() if check is None else check, "run_check": _run_check()})

    def v2_playbook_on_stats(self, stats):
        # what the run cost: this process's CPU and that of the forks and module processes it waited for (so
        # that a slow `make test` can be traced to the playbook runs that spend its CPU)
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        self._write({"event": "cost", "cpu_s": round(own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime, 1),
                     "wall_s": round(time.time() - self._t0, 1), "cwd": os.getcwd(), "check": _run_check()})

    # ---- tasks: what each started, then how it ended
    def _describe(self, task):
        action = _action_of(task)
        return {"action": action, "name": task.get_name(), "check": _bool_or_none(task.check_mode),
                "ours": bool(action and action.startswith(PREFIX))}

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._started = self._describe(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._started = self._describe(task)

    def _finished(self, result, status, **extra):
        started = self._started
        ran = getattr(result, "task", None)  # public from ansible-core 2.19: the task as it ran
        if ran is not None:
            info = self._describe(ran)
            if info["check"] is None and started is not None:
                info["check"] = started["check"]
            if info["action"] is None and started is not None:
                info["action"], info["ours"] = started["action"], started["ours"]
        else:
            info = dict(started) if started is not None else None
        if not info or not info["ours"]:
            return
        record = {"event": "task", "action": info["action"], "task": result.task_name or info["name"],
                  "check": info["check"], "run_check": _run_check(), "status": status, "file": self._play_path}
        host = getattr(result, "host", None)  # public from 2.19
        if host is not None:
            record["host"] = host.get_name()
        record.update(extra)
        self._write(record)

    def v2_runner_on_ok(self, result):
        self._finished(result, "changed" if result.is_changed() else "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._finished(result, "failed", ignore_errors=bool(ignore_errors))

    def v2_runner_on_skipped(self, result):
        self._finished(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._finished(result, "unreachable")
