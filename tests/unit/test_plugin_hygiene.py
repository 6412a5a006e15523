"""The collection's plugins use only ansible-core's public API, and run the way Ansible runs them.

No file under plugins/ may import ansible.plugins.action.normal (the base of a private in-process module
runner), import or read an underscored name of ansible-core (basic._ANSIBLE_ARGS,
ansible.module_utils._text, ...), or call gc.freeze(). Plugin base classes' underscored methods are allowed
only where ansible-core's developer guide tells plugin authors to call them (DOCUMENTED_BASE_METHODS).
"""
import ast
import importlib
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PLUGIN_FILES = sorted((REPO / "plugins").rglob("*.py"))

# https://docs.ansible.com/ansible/latest/dev_guide/developing_inventory.html (_read_config_data, the
# Constructable helpers) and developing_plugins.html#callback-plugins (self._display)
DOCUMENTED_BASE_METHODS = {
    "_read_config_data", "_set_composite_vars", "_add_host_to_composed_groups", "_add_host_to_keyed_groups",
    "_display",
}


def _private(dotted):
    return any(part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
               for part in dotted.split("."))


def violations(source, filename="<src>"):
    """What in SOURCE breaks the rules: a list of 'line: why' strings."""
    tree = ast.parse(source, filename)
    found = []
    ansible_names = {}  # local name -> the ansible-core module or class it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "ansible" or alias.name.startswith("ansible."):
                    if _private(alias.name) or alias.name == "ansible.plugins.action.normal":
                        found.append("%d: import %s" % (node.lineno, alias.name))
                    if alias.asname:
                        ansible_names[alias.asname] = alias.name
                    else:
                        ansible_names["ansible"] = "ansible"
        elif isinstance(node, ast.ImportFrom) and node.module and \
                (node.module == "ansible" or node.module.startswith("ansible.")):
            if _private(node.module) or node.module.startswith("ansible.plugins.action.normal"):
                found.append("%d: from %s import" % (node.lineno, node.module))
            for alias in node.names:
                if node.module + "." + alias.name == "ansible.plugins.action.normal":
                    found.append("%d: from %s import %s" % (node.lineno, node.module, alias.name))
                elif _private(alias.name):
                    found.append("%d: from %s import %s" % (node.lineno, node.module, alias.name))
                ansible_names[alias.asname or alias.name] = node.module + "." + alias.name
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "freeze" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "gc":
            found.append("%d: gc.freeze()" % node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in ansible_names and _private(node.attr):
            found.append("%d: %s.%s" % (node.lineno, node.value.id, node.attr))
    found += _inherited_private(tree, ansible_names)
    return found


def _inherited_private(tree, ansible_names):
    """self._x in a class whose ansible-core base defines _x, unless the developer guide documents it."""
    found = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        bases = []
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in ansible_names:
                module, name = ansible_names[base.id].rsplit(".", 1)
                try:
                    bases.append(getattr(importlib.import_module(module), name))
                except (ImportError, AttributeError):
                    found.append("%d: base %s cannot be resolved" % (cls.lineno, ansible_names[base.id]))
        if not bases:
            continue
        for node in ast.walk(cls):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                    and _private(node.attr) and node.attr not in DOCUMENTED_BASE_METHODS \
                    and any(hasattr(b, node.attr) for b in bases):
                found.append("%d: self.%s (ansible-core's)" % (node.lineno, node.attr))
    return found


def test_there_are_plugin_files():
    assert len(PLUGIN_FILES) > 10


@pytest.mark.parametrize("path", PLUGIN_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_plugin_uses_only_public_ansible_core(path):
    assert violations(path.read_text(), str(path)) == []


ACTION_PLUGINS = sorted((REPO / "plugins" / "action").glob("*.py"))


def runs_a_module(source):
    """Why an action plugin's SOURCE runs a module (in its process or sent to the host), or None: it imports
    AnsibleModule or a module of plugins/modules/, or calls _execute_module."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and (
                node.module == "ansible.module_utils.basic" or ".plugins.modules" in node.module):
            return "from %s import" % node.module
        if isinstance(node, ast.Import) and any(".plugins.modules" in a.name for a in node.names):
            return "import of a module"
        if isinstance(node, ast.Attribute) and node.attr == "_execute_module":
            return "_execute_module"
    return None


def test_no_action_plugins_run_modules_in_process():
    # modules run the way Ansible runs modules: no action plugin stands in front of a module; an action plugin
    # does its own work in the controller (teardown_report writes files) and has its documented module
    assert [p.name for p in ACTION_PLUGINS] == ["teardown_report.py"]
    for path in ACTION_PLUGINS:
        assert runs_a_module(path.read_text()) is None, path
        assert (REPO / "plugins" / "modules" / path.name).is_file(), path


@pytest.mark.parametrize("source", [
    "from ansible.module_utils.basic import AnsibleModule\n",
    "from ansible_collections.teardown.gates.plugins.modules import teardown_report\n",
    "import ansible_collections.teardown.gates.plugins.modules.finalizer\n",
    "class A:\n    def run(self):\n        return self._execute_module(module_name='x')\n",
])
def test_the_action_plugin_check_catches_a_module_run(source):
    assert runs_a_module(source)


@pytest.mark.parametrize("source, expected", [
    ("from ansible.plugins.action.normal import ActionModule\n", "from ansible.plugins.action.normal import"),
    ("from ansible.plugins.action import normal\n", "from ansible.plugins.action import normal"),
    ("import ansible.plugins.action.normal\n", "import ansible.plugins.action.normal"),
    ("from ansible.module_utils._text import to_text\n", "from ansible.module_utils._text import"),
    ("from ansible.module_utils import basic\nx = basic._ANSIBLE_ARGS\n", "basic._ANSIBLE_ARGS"),
    ("from ansible.vars.clean import _x\n", "import _x"),
    ("import gc\ngc.freeze()\n", "gc.freeze()"),
    ("from ansible.plugins.callback import CallbackBase\nclass C(CallbackBase):\n"
     "    def f(self):\n        return self._dump_results({})\n", "self._dump_results"),
])
def test_the_check_catches(source, expected):
    assert any(expected in v for v in violations(source)), violations(source)


def test_the_check_allows_public_api_and_own_private_names():
    source = ("from ansible.module_utils.basic import AnsibleModule\n"
              "from ansible.plugins.inventory import BaseInventoryPlugin\n"
              "class I(BaseInventoryPlugin):\n"
              "    def parse(self, inventory, loader, path, cache=True):\n"
              "        self._read_config_data(path)\n        self._mine = 1\n"
              "import gc\ngc.collect()\n")
    assert violations(source) == []
