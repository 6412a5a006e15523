"""extensions/eda stays in step with what it names: the source's documented options are the ones it reads, the
rulebook passes only options the source has and variables the diagnose_deletion role takes, the AWX template its
comments name exists, and the execution environment carries the collection's Python needs and the source's."""
import ast
import os
import re

import yaml

from ansible_collections.teardown.gates.plugins.module_utils.k8s import stuck

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EDA = os.path.join(REPO, "extensions", "eda")
SOURCE = os.path.join(EDA, "plugins", "event_source", "stuck_deletions.py")
RULEBOOK = os.path.join(EDA, "rulebooks", "stuck_deletions.yml")


def _source_tree():
    with open(SOURCE) as f:
        return ast.parse(f.read())


def test_the_source_has_the_entry_point_ansible_rulebook_calls():
    mains = [n for n in _source_tree().body if isinstance(n, ast.AsyncFunctionDef) and n.name == "main"]
    assert mains and [a.arg for a in mains[0].args.args] == ["queue", "args"]


def test_the_sources_documented_options_are_the_ones_it_reads():
    tree = _source_tree()
    doc = next(n.value.value for n in tree.body if isinstance(n, ast.Assign)
               and getattr(n.targets[0], "id", None) == "DOCUMENTATION")
    assert sorted(yaml.safe_load(doc)["options"]) == sorted(stuck.OPTIONS)


def _rulebook():
    with open(RULEBOOK) as f:
        return yaml.safe_load(f)


def test_the_rulebook_passes_only_the_sources_options():
    sources = _rulebook()[0]["sources"]
    assert len(sources) == 1
    args = sources[0]["teardown.gates.stuck_deletions"]
    assert set(args) <= set(stuck.OPTIONS), sorted(set(args) - set(stuck.OPTIONS))


def test_the_rulebook_runs_diagnose_deletion_with_variables_its_role_takes():
    with open(os.path.join(REPO, "roles", "diagnose_deletion", "meta", "argument_specs.yml")) as f:
        options = yaml.safe_load(f)["argument_specs"]["main"]["options"]
    runs = [r["action"]["run_playbook"] for r in _rulebook()[0]["rules"] if "run_playbook" in r["action"]]
    assert [r["name"] for r in runs] == ["teardown.gates.diagnose_deletion"]
    assert set(runs[0]["extra_vars"]) <= set(options), sorted(set(runs[0]["extra_vars"]) - set(options))
    assert {"api_version", "kind", "namespace", "name"} <= set(runs[0]["extra_vars"])
    # unknown is never silence: a rule says it
    assert any("unknown" in r["condition"] for r in _rulebook()[0]["rules"])


def test_the_awx_template_the_rulebook_names_exists_and_takes_its_variables():
    with open(RULEBOOK) as f:
        text = f.read()
    named = re.search(r"run_job_template:\s*\n#\s+name: (.+)", text).group(1).strip()
    with open(os.path.join(REPO, "extensions", "awx", "job_templates.yml")) as f:
        templates = {t["name"]: t for t in yaml.safe_load(f)["controller_templates"]}
    assert named in templates, (named, sorted(templates))
    survey = {q["variable"] for q in templates[named]["survey_spec"]["spec"]}
    passed = set(re.findall(r"^#\s+(\w+): \"\{\{ event\.stuck_deletion", text, re.M))
    assert passed and passed <= survey, (passed, survey)


def _lines(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def test_the_execution_environment_carries_the_collections_needs_and_the_sources():
    ee_requirements = _lines(os.path.join(REPO, "extensions", "ee", "requirements.txt"))
    assert set(_lines(os.path.join(REPO, "requirements.txt"))) <= set(ee_requirements)
    assert any(line.startswith("ansible-rulebook") for line in ee_requirements)
    with open(os.path.join(REPO, "extensions", "ee", "execution-environment.yml")) as f:
        assert yaml.safe_load(f)["dependencies"]["python"] == "requirements.txt"
    bindep = _lines(os.path.join(REPO, "bindep.txt"))
    assert any(line.startswith("openjdk-17-jre-headless ") for line in bindep)
    assert any(line.startswith("java-17-openjdk-headless ") for line in bindep)


def test_the_engines_venv_pins_what_the_ee_admits():
    pins = dict(line.split("==", 1) for line in _lines(os.path.join(REPO, "requirements-eda.txt")) if "==" in line)
    assert pins["ansible-rulebook"].startswith("1.")
    assert "drools-jpy" in pins
