"""Credentials passed to the Kubernetes modules as options (a bearer token in api_key, a whole kubeconfig
as a dict with the admin's client key) never appear in what a -vvv run writes: stdout, stderr, the
Ansible log, a report. (The playbook runs of test_least_privilege and test_aws_least_privilege are
searched the same way for the token in their kubeconfig and for the AWS keys.)"""
import base64
import os
import uuid

import yaml
from kubernetes import client

from privilege import ServiceAccounts, run_playbook
from secrets_scan import assert_no_secrets, sandbox_secrets

PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  connection: local
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  tasks:
    - name: Why is this object not gone, with a bearer token as api_key
      teardown.gates.deletion_info:
        host: "{{ server }}"
        api_key: "{{ lookup('file', workdir + '/token') }}"
        ca_cert: "{{ workdir }}/ca.crt"
        kind: ConfigMap
        name: held
        namespace: "{{ ns }}"
      register: info
    - name: Wait for the same object with a whole kubeconfig (client key inside) as a dict
      teardown.gates.wait_gate:
        kubeconfig: "{{ lookup('file', admin_kubeconfig) | from_yaml }}"
        timeout: 5
        gates:
          - name: only the test finalizer left
            until: finalizers_only
            finalizers: [example.com/keep]
            resources:
              - {api_version: v1, kind: ConfigMap, namespace: "{{ ns }}", name: held}
      register: gate
    - name: A refused query with the same token (unknown, and its error must not echo the token)
      teardown.gates.deletion_info:
        host: "{{ server }}"
        api_key: "{{ lookup('file', workdir + '/token') }}"
        ca_cert: "{{ workdir }}/ca.crt"
        kind: Secret
        name: anything
        namespace: kube-system
      register: denied
      ignore_errors: true
    - name: Keep every result as a report
      ansible.builtin.copy:
        dest: "{{ workdir }}/report/results.json"
        content: "{{ {'info': info, 'gate': gate, 'denied': denied} | to_nice_json }}"
        mode: "0600"
"""


def test_credentials_given_as_options_stay_out_of_every_output(api_client, tmp_path):
    core = client.CoreV1Api(api_client)
    ns = "sec-" + uuid.uuid4().hex[:6]
    core.create_namespace({"metadata": {"name": ns}})
    core.create_namespaced_config_map(ns, {"metadata": {"name": "held", "finalizers": ["example.com/keep"]}})
    accounts = ServiceAccounts(api_client, str(tmp_path))
    try:
        _, token = accounts.create("reader", {"teardown-gates-secrets-reader": [
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]}, [ns])
        with open(os.environ["KUBECONFIG"]) as f:
            kc = yaml.safe_load(f)
        (tmp_path / "token").write_text(token)
        (tmp_path / "ca.crt").write_bytes(base64.b64decode(kc["clusters"][0]["cluster"]["certificate-authority-data"]))
        (tmp_path / "report").mkdir()
        (tmp_path / "play.yml").write_text(PLAYBOOK)
        out = run_playbook(str(tmp_path / "play.yml"), {
            "server": kc["clusters"][0]["cluster"]["server"], "ns": ns, "workdir": str(tmp_path),
            "admin_kubeconfig": os.environ["KUBECONFIG"]}, str(tmp_path))
        assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
        # the credentials were used: the token read the object, the kubeconfig watched it, the token was refused
        assert "example.com/keep" in (tmp_path / "report" / "results.json").read_text()
        assert "missing permission: get secrets in namespace kube-system" in (tmp_path / "report" / "results.json").read_text()
        # the token file the test wrote is not output: search everything else
        (tmp_path / "token").unlink()
        assert_no_secrets(tmp_path, out, sandbox_secrets() + [token])
    finally:
        accounts.cleanup()
        core.patch_namespaced_config_map("held", ns, {"metadata": {"finalizers": None}})
