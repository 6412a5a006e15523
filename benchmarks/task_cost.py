#!/usr/bin/env python
"""What one Ansible task costs on this machine, by kind: the floor under any playbook's overhead.

Runs ansible-playbook on localhost (the sandbox's environment loaded) with TASK_COST_N (default 10) tasks of
one kind, and once with none; the difference over N is the cost of one task, in CPU seconds (user + system of
the playbook and every process it started) and in wall seconds. Kinds:

  set_fact   a task that runs no module (templating in the controller only)
  ping       the smallest module run (fork, AnsiballZ payload, a Python process)
  k8s_info   a kubernetes.core module run (imports the kubernetes client, reads one Namespace)
  k8s_lookup the same read through the kubernetes.core.k8s lookup, which runs inside Ansible's own process
  aws_info   an amazon.aws module run (imports boto3, one DescribeVpcs)
  ours       teardown.gates.deletion_info (one Namespace read), a module process as for any module
  report     teardown.gates.teardown_report (one cluster's report: JSON, Markdown, HTML, the index), which runs
             in the controller's worker as an action plugin; no sandbox needed for it alone

TASK_COST_KINDS (comma-separated, default all) picks the kinds; the sandbox's environment is needed unless only
report is picked. TASK_COST_COLLECTIONS (default .venv/collections) is the ANSIBLE_COLLECTIONS_PATH, e.g. a copy
of another commit's collection to compare with.

docs/performance.md uses these figures for the lower bound of the hosted-cluster overhead and of the fleet.
Not part of `make bench` (it compares nothing with a peer); run it alone:
  eval "$(tests/sandbox/sandbox env)"; .venv/bin/python benchmarks/task_cost.py
Progress on stderr; the last stdout line is a JSON object {kind: {"cpu_s", "wall_s"}}.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(REPO, ".venv")
TASKS = {
    "none": None,
    "set_fact": "ansible.builtin.set_fact: {{x{i}: {i}}}",
    "ping": "ansible.builtin.ping:",
    "k8s_info": "kubernetes.core.k8s_info: {{kind: Namespace, name: default}}",
    "k8s_lookup": "ansible.builtin.set_fact: {{ns{i}: \"{{{{ lookup('kubernetes.core.k8s', kind='Namespace', "
                  "resource_name='default') }}}}\"}}",
    "aws_info": "amazon.aws.ec2_vpc_net_info: {{region: us-east-1}}",
    "ours": "teardown.gates.deletion_info: {{kind: Namespace, name: default, dependents: false}}",
    "report": "teardown.gates.teardown_report: {{report_dir: {reports}, cluster: {{namespace: bench, name: c{i}}}}}",
}
LOCAL_KINDS = {"none", "set_fact", "report"}  # kinds that send no request to the sandbox


def playbook(kind, n, reports=""):
    lines = ["- hosts: localhost", "  gather_facts: false", "  tasks:"]
    if TASKS[kind] is None:
        lines.append("    - ansible.builtin.meta: noop")
    else:
        lines += ["    - " + TASKS[kind].format(i=i, reports=reports) for i in range(n)]
    return "\n".join(lines) + "\n"


def run(path, inventory):
    collections = os.environ.get("TASK_COST_COLLECTIONS") or os.path.join(VENV, "collections")
    env = dict(os.environ, ANSIBLE_PIPELINING="1", ANSIBLE_COLLECTIONS_PATH=collections,
               PATH=os.path.join(VENV, "bin") + os.pathsep + os.environ.get("PATH", ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run([os.path.join(VENV, "bin", "ansible-playbook"), "-i", inventory, path], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main():
    kinds = ["none"] + [k for k in os.environ.get("TASK_COST_KINDS", ",".join(TASKS)).split(",") if k and k != "none"]
    unknown = sorted(set(kinds) - set(TASKS))
    if unknown:
        sys.exit("unknown kinds: %s (known: %s)" % (", ".join(unknown), ", ".join(TASKS)))
    if not set(kinds) <= LOCAL_KINDS and (not os.environ.get("KUBECONFIG") or not os.environ.get("AWS_ENDPOINT_URL")):
        sys.exit("run with the sandbox's environment: eval \"$(tests/sandbox/sandbox env)\"")
    n = int(os.environ.get("TASK_COST_N", "10"))
    work = tempfile.mkdtemp(prefix="task-cost-")
    inventory = os.path.join(work, "inventory.yml")
    with open(inventory, "w") as f:
        f.write("all:\n  hosts:\n    localhost:\n      ansible_connection: local\n"
                "      ansible_python_interpreter: %s\n" % os.path.join(VENV, "bin", "python"))
    measured = {}
    for kind in kinds:
        path = os.path.join(work, kind + ".yml")
        with open(path, "w") as f:
            f.write(playbook(kind, n, os.path.join(work, "reports")))
        measured[kind] = run(path, inventory)
        print("%-9s %d tasks: %.2f CPU-s, %.2f s wall" % (kind, 0 if kind == "none" else n, *measured[kind]),
              file=sys.stderr)
    base_cpu, base_wall = measured.pop("none")
    out = {k: {"cpu_s": round((c - base_cpu) / n, 3), "wall_s": round((w - base_wall) / n, 3)}
           for k, (c, w) in measured.items()}
    out["playbook_start"] = {"cpu_s": round(base_cpu, 3), "wall_s": round(base_wall, 3)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
