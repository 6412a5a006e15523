# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run this collection's modules inside Ansible's worker process when the target is the controller.

Why: a module run starts a Python interpreter and imports kubernetes or boto3 again, about 0.3 to
0.9 CPU-s each time (docs/performance.md, "The floor"). Our playbooks run on localhost with the
playbook's own Python, so the worker that would start that interpreter can run the module itself.
Ansible forks one worker per task and host, and this file (with the module and its libraries) is
imported by the controller before it forks, so the imports are paid once per playbook run.

The module still parses its arguments, sees check mode and prints its result exactly as in a
process of its own: the same AnsibleModule code runs, with the arguments Ansible would have sent
and the task's ``environment`` applied to ``os.environ``. Whatever the module changes in the
process (environment, working directory, warnings) is put back afterwards, and the worker ends
with the task anyway.

A task runs the ordinary way (a module process) when any of these holds: the connection is not
local, the task is async or uses become, the host's ``ansible_python_interpreter`` is not the
Python running Ansible, this ansible-core lacks what the in-process run needs, the module could not
be imported here, or the variable ``teardown_gates_in_process`` is false.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import gc
import importlib
import inspect
import io
import json
import os
import sys
import traceback

from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action.normal import ActionModule as NormalAction
from ansible.utils.display import Display

try:  # ansible-core 2.19 and later; older cores run the module the ordinary way
    from ansible.module_utils.common.json import Direction, get_module_encoder
    from ansible.vars.clean import remove_internal_keys
    HAS_MODULE_JSON = True
except ImportError:
    HAS_MODULE_JSON = False

display = Display()

COLLECTION_MODULES = "ansible_collections.teardown.gates.plugins.modules."
PROFILE = "legacy"  # the serialization profile Ansible gives modules that declare none, as ours do
IMPORTED = {}
# What the modules import only when they run (kubernetes.core's module base imports the kubernetes
# client in its constructor; botocore its parts on first use): imported here once as well.
KUBERNETES_LIBRARIES = ("jsonpatch", "yaml", "kubernetes", "kubernetes.dynamic",
                        "ansible_collections.kubernetes.core.plugins.module_utils.k8s.client")
AWS_LIBRARIES = ("boto3", "botocore.session", "botocore.client", "botocore.endpoint", "botocore.parsers")


AWS_SERVICES = ("ec2", "elb", "elbv2", "s3", "route53", "iam", "sts", "cloudformation")
SHARED = {}


def share_aws_models(services=AWS_SERVICES):
    """Parse the AWS service models once, here, for every botocore session the modules create later.

    botocore parses a service's model once per session (ec2's is several megabytes of JSON, about
    0.15 s), and each module run creates its own session. Sessions that use the default data path
    get one loader instead, filled before the fork; botocore only reads the models it loads.
    """
    if SHARED:
        return
    import botocore.loaders
    import botocore.session

    shared = botocore.loaders.create_loader()
    for service in services:
        for kind in ("service-2", "endpoint-rule-set-1"):
            with contextlib.suppress(Exception):
                shared.load_service_model(service, kind)
    for name in ("endpoints", "partitions", "sdk-default-configuration"):
        with contextlib.suppress(Exception):
            shared.load_data_with_path(name)
    original = botocore.loaders.create_loader

    def create_loader(search_path_string=None):
        return shared if search_path_string is None else original(search_path_string)

    botocore.loaders.create_loader = create_loader
    botocore.session.create_loader = create_loader  # the session module holds its own reference
    SHARED["loader"] = shared


def preload(module_name, libraries=()):
    """Import one of our modules, and the libraries it imports late, now (in the controller, before
    it forks). Returns the module, or None.

    A failure (a missing library, an older ansible-core) is kept quiet here: the task then runs as
    an ordinary module process, which reports the missing library the usual way.
    """
    if module_name not in IMPORTED:
        try:
            IMPORTED[module_name] = importlib.import_module(COLLECTION_MODULES + module_name)
        except Exception:  # pylint: disable=broad-except
            IMPORTED[module_name] = None
        for library in libraries:
            try:
                importlib.import_module(library)
            except Exception:  # pylint: disable=broad-except
                pass  # the module reports a missing library itself when it runs
        if "botocore.session" in sys.modules:
            with contextlib.suppress(Exception):
                share_aws_models()
        # Move what was just imported out of the collector's sight: a worker whose collection walks those
        # objects writes to their pages and copies them (copy-on-write). With 25 forks this halves the
        # playbook tree's memory (PSS 2.0 to 1.1 GiB, docs/performance.md); the objects live until exit anyway.
        gc.freeze()
    return IMPORTED[module_name]


def core_fits(action):
    """Whether ansible-core has what ``run_in_process`` uses (module argument globals, a result parser taking
    the serialization profile); another core takes the ordinary module process instead of failing."""
    from ansible.module_utils import basic
    try:
        parser_takes_profile = "profile" in inspect.signature(action._parse_returned_data).parameters
    except (TypeError, ValueError):
        return False
    return parser_takes_profile and hasattr(basic, "_ANSIBLE_ARGS") and hasattr(basic, "_ANSIBLE_PROFILE")


def same_interpreter(path, running):
    """Whether ``path`` names the Python at ``running``: the same file once links are followed, in the same
    folder (so ``venv/bin/python`` and ``venv/bin/python3`` match, another venv on the same base does not)."""
    path, running = os.path.abspath(os.path.expanduser(path)), os.path.abspath(running)
    return os.path.dirname(path) == os.path.dirname(running) and os.path.realpath(path) == os.path.realpath(running)


@contextlib.contextmanager
def process_state(environment):
    """Apply ``environment`` to this process, and put the environment, working directory and module
    globals back afterwards."""
    from ansible.module_utils import basic
    from ansible.module_utils.common import warnings as module_warnings

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    kube_config = sys.modules.get("kubernetes.config.kube_config")
    saved_kube_default = getattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", None)
    os.environ.update(dict((str(k), str(v)) for k, v in environment.items()))
    if kube_config is not None:
        # the kubernetes client reads KUBECONFIG once, when it is imported; a play's environment
        # must win as it does for a module process
        kube_config.KUBE_CONFIG_DEFAULT_LOCATION = os.environ.get("KUBECONFIG", "~/.kube/config")
    module_warnings._global_warnings.clear()  # pylint: disable=protected-access
    module_warnings._global_deprecations.clear()  # pylint: disable=protected-access
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        with contextlib.suppress(OSError):
            os.chdir(saved_cwd)
        if kube_config is not None:
            kube_config.KUBE_CONFIG_DEFAULT_LOCATION = saved_kube_default
        basic._ANSIBLE_ARGS = None  # pylint: disable=protected-access
        module_warnings._global_warnings.clear()  # pylint: disable=protected-access
        module_warnings._global_deprecations.clear()  # pylint: disable=protected-access


class InProcessModuleAction(NormalAction):
    """The action of one of this collection's modules; see the module docstring of this file."""

    MODULE = None  # the module's short name, set by each action file

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        module = self.in_process_module(task_vars)
        if module is None:
            return super(InProcessModuleAction, self).run(tmp, task_vars)
        result = super(NormalAction, self).run(tmp, task_vars)  # ActionBase's checks, not a module run
        result.update(self.run_in_process(module, task_vars))
        return result

    def in_process_module(self, task_vars):
        """The imported module when this task may run in this process, else None (and why, at -vvv)."""
        why = None
        interpreter = self._templar.template(task_vars.get("ansible_python_interpreter"))
        if not HAS_MODULE_JSON or not core_fits(self):
            why = "this ansible-core's module plumbing is not the one this path was written for (2.19)"
        elif not boolean(self._templar.template(task_vars.get("teardown_gates_in_process", True)), strict=False):
            why = "teardown_gates_in_process is false"
        elif getattr(self._connection, "transport", None) not in ("local", "ansible.builtin.local"):
            why = "the connection is not local"
        elif self._task.async_val:
            why = "the task is async"
        elif self._play_context.become:
            why = "the task uses become"
        elif not interpreter or not same_interpreter(str(interpreter), sys.executable):
            why = "ansible_python_interpreter (%s) is not the Python running Ansible (%s)" % (interpreter, sys.executable)
        module = None if why else preload(self.MODULE)
        if why is None and module is None:
            why = "the module could not be imported here"
        if why:
            display.vvv("teardown.gates.%s: a module process, since %s" % (self.MODULE, why))
            return None
        display.vvv("teardown.gates.%s: runs in the worker process (module file %s)" % (self.MODULE, module.__file__))
        return module

    def run_in_process(self, module, task_vars):
        from ansible.module_utils import basic

        args = dict(self._task.args)
        self._update_module_args(self.MODULE, args, task_vars)
        environment = {}
        self._compute_environment_string(raw_environment_out=environment)
        encoder = get_module_encoder(PROFILE, Direction.CONTROLLER_TO_MODULE)
        out, err = io.StringIO(), io.StringIO()
        rc = 0
        with process_state(environment):
            basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": args}, cls=encoder).encode()  # pylint: disable=protected-access
            basic._ANSIBLE_PROFILE = PROFILE  # pylint: disable=protected-access
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    module.main()
                raise RuntimeError("the module returned without exit_json or fail_json")
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception as e:  # pylint: disable=broad-except
                # as a module process would: the error, and its traceback for -vvv
                return {"failed": True, "msg": "teardown.gates.%s failed: %s" % (self.MODULE, e),
                        "exception": traceback.format_exc(), "stderr": err.getvalue()}
        data = self._parse_returned_data({"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}, PROFILE)
        remove_internal_keys(data)
        return data
