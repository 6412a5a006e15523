"""The AWX job templates stay in step with the playbooks and roles they launch."""
import os
import re

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SURVEY_TYPES = {"text": {"str", "list", "path"}, "textarea": {"str", "list"}, "password": {"str"},
                "integer": {"int"}, "float": {"float"}, "multiplechoice": {"str", "bool"}}
SECRET_WORDS = re.compile(r"(token|password|secret|api_key|access_key|kubeconfig)", re.I)


def _templates():
    with open(os.path.join(REPO, "extensions", "awx", "job_templates.yml")) as f:
        return yaml.safe_load(f)["controller_templates"]


def _role_options(playbook):
    with open(os.path.join(REPO, playbook)) as f:
        plays = yaml.safe_load(f)
    roles = [r["role"] if isinstance(r, dict) else r for p in plays for r in p.get("roles", [])]
    opts = {}
    for role in roles:
        name = role.split(".")[-1]
        with open(os.path.join(REPO, "roles", name, "meta", "argument_specs.yml")) as f:
            opts.update(yaml.safe_load(f)["argument_specs"]["main"]["options"])
    return opts


def test_every_playbook_has_a_template_and_every_template_a_playbook():
    playbooks = sorted("playbooks/" + f for f in os.listdir(os.path.join(REPO, "playbooks")) if f.endswith(".yml"))
    assert sorted(t["playbook"] for t in _templates()) == playbooks


def test_survey_variables_are_role_options_of_a_compatible_type():
    for t in _templates():
        opts = _role_options(t["playbook"])
        for q in t["survey_spec"]["spec"]:
            assert q["variable"] in opts, f"{t['name']}: {q['variable']} is not an option of the role"
            opt_type = opts[q["variable"]].get("type", "str")
            assert opt_type in SURVEY_TYPES[q["type"]], (t["name"], q["variable"], opt_type, q["type"])
            choices = opts[q["variable"]].get("choices")
            if choices and q["type"] == "multiplechoice":
                assert set(q["choices"]) <= set(choices)
        required = {k for k, v in opts.items() if v.get("required")}
        asked = {q["variable"] for q in t["survey_spec"]["spec"] if q.get("required")}
        assert required <= asked, f"{t['name']}: required options not asked as required: {required - asked}"


def test_no_secret_is_a_survey_answer_or_extra_var_and_check_mode_is_offered():
    for t in _templates():
        for q in t["survey_spec"]["spec"]:
            assert q["type"] != "password" and not SECRET_WORDS.search(q["variable"]), q
        assert not any(SECRET_WORDS.search(k) for k in (t.get("extra_vars") or {}))
        assert t["credentials"], "credentials come from credential types, attached by name"
        assert t["ask_job_type_on_launch"] is True


def _workflows():
    with open(os.path.join(REPO, "extensions", "awx", "workflows.yml")) as f:
        return yaml.safe_load(f)["controller_workflows"]


def test_every_template_has_an_approved_plan_workflow_check_then_approval_then_apply():
    # a read-only playbook (diagnose_deletion) deletes nothing: it has no plan to approve
    names = {t["name"] for t in _templates() if "diagnose_deletion" not in t["playbook"]}
    flows = _workflows()
    assert sorted(w["name"] for w in flows) == sorted(n + ", approved plan" for n in names)
    for w in flows:
        nodes = {n["identifier"]: n for n in w["simplified_workflow_nodes"]}
        assert list(nodes) == ["check", "approve", "apply"], w["name"]
        assert nodes["check"]["job_type"] == "check" and nodes["check"]["success_nodes"] == ["approve"]
        assert "approval_node" in nodes["approve"] and nodes["approve"]["success_nodes"] == ["apply"]
        assert nodes["apply"]["job_type"] == "run"
        assert nodes["check"]["unified_job_template"] == nodes["apply"]["unified_job_template"]
        assert nodes["apply"]["unified_job_template"] in names
        assert w["ask_variables_on_launch"] is True


def test_the_check_job_hands_the_digest_the_apply_job_takes():
    # the roles' set_stats (check mode) name exactly the variables the roles take as the approval
    for role in ("orphan_sweep", "hosted_cluster_destroy", "release_prune", "cfn_refusals", "held_deletion"):
        with open(os.path.join(REPO, "roles", role, "meta", "argument_specs.yml")) as f:
            opts = yaml.safe_load(f)["argument_specs"]["main"]["options"]
        assert {"approved_plan_digest", "approved_plan"} <= set(opts), role
        tasks = ""
        for name in os.listdir(os.path.join(REPO, "roles", role, "tasks")):
            with open(os.path.join(REPO, "roles", role, "tasks", name)) as f:
                tasks += f.read()
        # each role holds its run to the plan through before_first_delete's plan tasks, which offer it (set_stats)
        assert "name: teardown.gates.before_first_delete\n" in tasks and "tasks_from: plan\n" in tasks, role
    with open(os.path.join(REPO, "roles", "before_first_delete", "tasks", "plan.yml")) as f:
        shared = f.read()
    assert "approved_plan_digest: \"{{" in shared and "ansible.builtin.set_stats" in shared
