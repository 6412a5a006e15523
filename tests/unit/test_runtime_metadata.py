"""meta/runtime.yml's action group `all` lists exactly the collection's modules, so that
module_defaults: {group/teardown.gates.all: ...} reaches every one of them (and names no module that is gone)."""
import pathlib

import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_action_group_all_lists_every_module():
    runtime = yaml.safe_load((REPO / "meta" / "runtime.yml").read_text())
    listed = runtime["action_groups"]["all"]
    modules = sorted(p.stem for p in (REPO / "plugins" / "modules").glob("*.py") if p.stem != "__init__")
    assert modules, "no modules found"
    assert len(listed) == len(set(listed)), "a module is listed twice: %s" % listed
    assert sorted(listed) == modules
