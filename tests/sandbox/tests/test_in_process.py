"""A teardown.gates module run inside Ansible's worker process (plugins/plugin_utils/in_process.py) answers exactly as
the same module run as a module process of its own, against the sandbox.

One small playbook (hosts localhost, connection local, ansible_python_interpreter the playbook's Python) runs
twice with -vvv: `-e teardown_gates_in_process=true` and `=false`. Each run registers every result and dumps them
to a JSON file; the two dumps must be equal once times and durations are blanked out. The -vvv output must name
the path each run took, so the comparison cannot silently compare two module-process runs.

The process environment's KUBECONFIG names a file that does not exist (and K8S_AUTH_KUBECONFIG is not set): only
the play's `environment:` gives the sandbox's kubeconfig. The kubernetes client reads KUBECONFIG when it is
imported, in the controller, so the in-process run reads the cluster only if the play's environment reaches it;
a control run without that `environment:` shows the process value alone does not.
"""
import json
import os
import re
import subprocess
import uuid

import pytest
import yaml
from kubernetes import client

from conftest import REPO

ANSIBLE_PLAYBOOK = os.path.join(REPO, ".venv", "bin", "ansible-playbook")
KEPT = "kept-in-check-mode"
MISSING_KUBECONFIG = "/nonexistent/teardown-gates-in-process/kubeconfig"
IN_PROCESS = "runs in the worker process"
MODULE_PROCESS = "a module process"
ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
DURATIONS = {"duration", "elapsed", "seconds"}
REGISTERED = ("present", "absent", "alias_warning", "gate", "gate_delete", "check_mode", "bad_input", "unknown_kind")
MODULE_TASKS = 8  # the teardown.gates tasks below


def _play(ns, out, play_environment):
    """The playbook: every registered result of a teardown.gates task, dumped to ``out``."""
    tasks = [
        {"name": "present", "teardown.gates.deletion_info": {"kind": "Namespace", "name": ns}, "register": "present"},
        {"name": "absent", "teardown.gates.deletion_info": {"kind": "Namespace", "name": ns + "-missing"},
         "register": "absent"},
        # both an option and its alias: AnsibleModule's own warning, which must reach the result either way
        {"name": "alias warning", "teardown.gates.deletion_info": {
            "kind": "Namespace", "name": ns, "validate_certs": True, "verify_ssl": True}, "register": "alias_warning"},
        {"name": "gate", "teardown.gates.wait_gate": {"timeout": 0, "gates": [{
            "name": "nothing there", "resources": [
                {"api_version": "v1", "kind": "ConfigMap", "namespace": ns, "name": "never-created"}]}]},
         "register": "gate"},
        {"name": "gate with a deletion of what is not there", "teardown.gates.wait_gate": {
            "timeout": 30,
            "delete": {"api_version": "v1", "kind": "ConfigMap", "namespace": ns, "name": "never-created-either"},
            "gates": [{"name": "gone", "resources": [
                {"api_version": "v1", "kind": "ConfigMap", "namespace": ns, "name": "never-created-either"}]}]},
         "register": "gate_delete"},
        {"name": "check mode: the deletion is not sent", "check_mode": True, "teardown.gates.wait_gate": {
            "timeout": 30,
            "delete": {"api_version": "v1", "kind": "ConfigMap", "namespace": ns, "name": KEPT},
            "gates": [{"name": "nothing there", "resources": [
                {"api_version": "v1", "kind": "ConfigMap", "namespace": ns, "name": "never-created-at-all"}]}]},
         "register": "check_mode"},
        {"name": "bad input", "teardown.gates.deletion_info": {"kind": "Namespace"}, "register": "bad_input",
         "ignore_errors": True},
        {"name": "unknown kind", "teardown.gates.deletion_info": {
            "api_version": "example.invalid/v1", "kind": "NoSuchKind", "namespace": ns, "name": "x"},
         "register": "unknown_kind", "ignore_errors": True},
        {"name": "dump", "ansible.builtin.copy": {
            "dest": out, "mode": "0600",
            "content": "{{ {%s} | to_nice_json }}" % ", ".join("'%s': %s" % (r, r) for r in REGISTERED)}},
    ]
    play = {"hosts": "localhost", "connection": "local", "gather_facts": False,
            "vars": {"ansible_python_interpreter": "{{ ansible_playbook_python }}"}, "tasks": tasks}
    if play_environment:
        play["environment"] = play_environment
    return [play]


def _run(work, label, ns, in_process, play_environment):
    """ansible-playbook -vvv with the process KUBECONFIG pointing nowhere; returns (process, results or None)."""
    out = str(work / ("%s.json" % label))
    playbook = work / ("%s.yml" % label)
    playbook.write_text(yaml.safe_dump(_play(ns, out, play_environment), sort_keys=False))
    env = {k: v for k, v in os.environ.items() if not k.startswith("K8S_AUTH_")}
    env.update(KUBECONFIG=MISSING_KUBECONFIG, ANSIBLE_NOCOLOR="1", ANSIBLE_RETRY_FILES_ENABLED="0")
    proc = subprocess.run([ANSIBLE_PLAYBOOK, str(playbook), "-vvv", "-e", "teardown_gates_in_process=%s" % in_process],
                          capture_output=True, text=True, env=env, cwd=str(work), timeout=600, check=False)
    results = None
    if os.path.exists(out):
        with open(out) as f:
            results = json.load(f)
    return proc, results


def _timeless(value):
    """``value`` with every timestamp and duration blanked: what differs between two runs by the clock alone."""
    if isinstance(value, dict):
        return dict((k, "<duration>" if k in DURATIONS and isinstance(v, (int, float)) else _timeless(v))
                    for k, v in value.items())
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    if isinstance(value, str) and ISO_TIME.match(value):
        return "<time>"
    return value


@pytest.fixture(scope="module")
def namespace(api_client):
    """A namespace of this file's own, with what kube-controller-manager adds to every namespace (its default
    ServiceAccount) already there, so both runs list the same contents."""
    import time
    core = client.CoreV1Api(api_client)
    ns = "inproc-" + uuid.uuid4().hex[:6]
    core.create_namespace({"metadata": {"name": ns}})
    deadline = time.monotonic() + 60
    while True:
        sas = [s.metadata.name for s in core.list_namespaced_service_account(ns).items]
        if "default" in sas:
            break
        assert time.monotonic() < deadline, sas
        time.sleep(0.5)
    core.create_namespaced_config_map(ns, {"metadata": {"name": KEPT}})
    yield ns
    core.delete_namespace(ns)


@pytest.fixture(scope="module")
def runs(namespace, tmp_path_factory):
    work = tmp_path_factory.mktemp("in-process")
    play_env = {"KUBECONFIG": os.environ["KUBECONFIG"]}
    return {in_process: _run(work, "in-process-%s" % in_process, namespace, in_process, play_env)
            for in_process in ("true", "false")}


def _module_lines(text):
    return [line for line in text.splitlines() if line.startswith("teardown.gates.")]


def test_each_run_took_the_path_it_was_asked_for(runs):
    for in_process, (proc, results) in runs.items():
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        assert results is not None and set(results) == set(REGISTERED)
    inside = _module_lines(runs["true"][0].stdout)
    outside = _module_lines(runs["false"][0].stdout)
    assert len(inside) == MODULE_TASKS and all(IN_PROCESS + " (module file " in line for line in inside), inside
    assert len(outside) == MODULE_TASKS and all(
        MODULE_PROCESS + ", since teardown_gates_in_process is false" in line for line in outside), outside
    assert IN_PROCESS not in runs["false"][0].stdout and MODULE_PROCESS not in runs["true"][0].stdout


def test_the_results_are_the_same_apart_from_times(runs):
    inside, outside = runs["true"][1], runs["false"][1]
    assert inside and outside
    for key in REGISTERED:
        assert _timeless(inside[key]) == _timeless(outside[key]), key
    # and the runs did read the cluster: the comparison is not between two empty answers
    assert inside["gate"]["gates"][0]["state"] == "passed"
    assert inside["gate_delete"]["deletion"]["state"] == "absent"
    assert inside["gate_delete"]["changed"] is False and inside["gate_delete"]["gates"][0]["state"] == "passed"
    assert inside["check_mode"]["deletion"]["state"] == "would_delete" and inside["check_mode"]["changed"] is True
    assert inside["check_mode"]["gates"][0]["state"] == "not_started"  # no wait on what only the deletion opens


def test_check_mode_reaches_the_module_in_process(runs, namespace, api_client):
    """--check (here the task's check_mode) travels in the module arguments: in the worker process too, the
    deletion is not sent and the object is still there after both runs."""
    for in_process in ("true", "false"):
        assert runs[in_process][1]["check_mode"]["deletion"]["state"] == "would_delete", in_process
    assert client.CoreV1Api(api_client).read_namespaced_config_map(KEPT, namespace).metadata.name == KEPT


def test_the_play_environment_reaches_the_kubernetes_client_in_process(runs, namespace, api_client):
    uid = client.CoreV1Api(api_client).read_namespace(namespace).metadata.uid
    for in_process in ("true", "false"):
        results = runs[in_process][1]
        assert results["present"]["state"] == "present", results["present"]
        assert results["present"]["object"]["name"] == namespace and results["present"]["object"]["uid"] == uid
        assert results["absent"]["state"] == "absent", results["absent"]
        assert results["alias_warning"]["state"] == "present", results["alias_warning"]


def test_a_warning_reaches_the_result_in_both_paths(runs):
    for in_process in ("true", "false"):
        warnings = runs[in_process][1]["alias_warning"].get("warnings")
        assert warnings == ["Both option validate_certs and its alias verify_ssl are set."], (in_process, warnings)


def test_a_module_failure_fails_the_same_way_in_both_paths(runs):
    for in_process in ("true", "false"):
        proc, results = runs[in_process]
        bad = results["bad_input"]
        assert bad["failed"] is True and bad["msg"] == "parameters are required together: kind, name", bad
        unknown = results["unknown_kind"]
        assert unknown["failed"] is True and "NoSuchKind" in unknown["msg"], unknown
        assert "teardown.gates." not in unknown["msg"].split(":")[0]  # the module's own message, not the wrapper's
        assert "ignoring" in proc.stdout  # ignore_errors did the work: the task itself failed
    for key in ("bad_input", "unknown_kind"):
        assert _timeless(runs["true"][1][key]) == _timeless(runs["false"][1][key]), key


@pytest.mark.parametrize("in_process, path", [("true", IN_PROCESS), ("false", MODULE_PROCESS)])
def test_without_the_play_environment_the_missing_kubeconfig_is_what_the_module_sees(namespace, tmp_path, in_process,
                                                                                       path):
    """The control: the same runs without `environment:` cannot read the cluster, so the runs above read it through
    the play's environment and not through something else the process had. Both paths fail the first task alike."""
    proc, results = _run(tmp_path, "no-play-env", namespace, in_process, None)
    assert path in proc.stdout
    assert proc.returncode != 0 and results is None  # the first task failed and stopped the play before the dump
    assert proc.stdout.count("fatal: [localhost]: FAILED!") == 1, proc.stdout[-3000:]
    assert ('"msg": "kind: could not configure the API client: Could not create API client: '
            'Invalid kube-config file. No configuration found."') in proc.stdout, proc.stdout[-3000:]
