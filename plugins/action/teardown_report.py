# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""teardown.gates.teardown_report in the controller's worker: the task's arguments validated with the module's
argument spec, then the driver writes the files here, with no module process (the playbooks run with
``connection: local``, so the files were on the controller anyway). Documentation: plugins/modules/teardown_report.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError, failure_message
from ansible_collections.teardown.gates.plugins.module_utils.drivers import teardown_report as driver


def validated(args, name):
    """(the options with their defaults, None) for the task's ``args``, or (None, the message the module gives)."""
    validator = ArgumentSpecValidator(driver.argument_spec(), mutually_exclusive=driver.MUTUALLY_EXCLUSIVE,
                                      required_together=driver.REQUIRED_TOGETHER,
                                      required_one_of=driver.REQUIRED_ONE_OF)
    outcome = validator.validate(args)
    if not outcome.error_messages:
        return outcome.validated_parameters, None
    msg = outcome.errors.msg
    if isinstance(outcome.errors[0], UnsupportedError):
        msg = "Unsupported parameters for (%s) module: %s" % (name, msg)
    return None, msg


class ActionModule(ActionBase):

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        params, error = validated(self._task.args, self._task.action)
        if error:
            result.update(failed=True, msg=error)
            return result
        # a relative report_dir: where a module run wrote it, in its working directory, which ansible-core
        # sets for connection local to the playbook's folder (playbook_dir)
        cwd = (task_vars or {}).get("playbook_dir")
        try:
            result.update(driver.run(params, self._task.check_mode, cwd))
        except TeardownGatesError as e:
            result.update(e.partial or {})
            result.update(failed=True, msg=failure_message(e))
        return result
