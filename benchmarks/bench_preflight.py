#!/usr/bin/env python
"""What "before the first delete" costs a teardown on the happy path: its requests and wall time, as a share of
the whole run (issue 33).

For each playbook with a preflight, a world is seeded (the sandbox's own seeds, as test_check_mode_reads_only.py
seeds them) and the playbook runs for real, as an operator would, with the target guards set that the playbook
accepts and credentials of its own:
  Kubernetes  a ServiceAccount bound to a ClusterRole that may do everything, through a kubeconfig of its own
              (its requests are the audit log's events of that user)
  AWS         an IAM user of the sandbox's IAM with extensions/iam/teardown-gates-policy.json inline (so the
              simulation answers for it, as for a real identity with the shipped policy), its own access key
              (its requests are the AWS layer's log lines of that key)
Playbooks: destroy_hosted_cluster (a seeded HostedCluster with its AWS infrastructure, destroy_cloud_resources:
the guards, 13 access reviews, the AWS preflight), prune_releases (2 Releases, prune_cluster: the management
cluster guard, the access reviews) and clear_cfn_refusals (3 refusing stacks, 3 remedies: the account guard, the AWS
preflight). BENCH_PREFLIGHT_PLAYBOOKS chooses (comma-separated, default all three).

The preflight part is the tasks that run teardown.gates.target_guard and permission_preflight (the Kubernetes and
AWS permissions in one run; an older checkout ran aws_permission_preflight beside it) (roles/before_first_delete),
timed by benchmarks/callback_plugins/bench_task_times.py;
its requests are those whose user agent names one of those modules (the collection's user agent carries the
sending module). The whole run is the playbook's wall time and every request of the run's user and key.

The comparison is honest only one way: the whole run against its own preflight part, measured in the same run.
`ratio` is whole / preflight (how many times the run's cost its preflight is; higher means the preflight weighs
less), `ours` is the preflight's figure and `peer` the whole run's. There is no target: the preflight is not
optional, so its cost is reported, not judged (target null, met true). The destroy's whole run is dominated by
the controllers' own waits; prune_releases and clear_cfn_refusals are short runs, where the share is largest.

Runs with the sandbox's environment (benchmarks/run.sh); progress on stderr; the last stdout line is the JSON list
of cases; the details (per task seconds, requests by kind) go beside each case.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

import boto3
from kubernetes import client, config

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "sandbox", "tests"))
from privilege import IAM_POLICY, LogTail, ServiceAccounts, retire_hosted_cluster, seed, target_guards  # noqa: E402

PLAYBOOK = os.path.join(REPO, ".venv", "bin", "ansible-playbook")
PREFLIGHT_MODULES = ("target_guard", "permission_preflight", "aws_permission_preflight")
EVERYTHING = [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]


def say(msg):
    print("[bench_preflight %s] %s" % (time.strftime("%H:%M:%S", time.gmtime()), msg), file=sys.stderr, flush=True)


def _hosted_cluster(tag, guards):
    seed("hosted-cluster", "--name", tag, "--namespace", tag, "--knob", "cleanup_cloud_resources=true")
    return {"hosted_cluster_name": tag, "hosted_cluster_namespace": tag, "destroy_cloud_resources": True,
            "expected_aws_account_id": guards["expected_aws_account_id"],
            "expected_management_cluster": guards["expected_management_cluster"]}


def _releases(tag, guards):
    seed("releases", "--name", tag, "--namespace", tag, "--count", "2")
    return {"release_namespace": tag, "convoy_cluster_name": tag + "-cluster", "prune_cluster": True,
            "expected_management_cluster": guards["expected_management_cluster"]}


def _cfn(tag, guards):
    seed("cfn-refusals", "--name", tag, "--knob", "classes=bucket,iam,sg")
    return {"cfn_stack_prefix": tag + "-", "cfn_select_statuses": "CREATE_COMPLETE,DELETE_FAILED",
            "cfn_clear": "empty_buckets,detach_iam,release_dependencies",
            "expected_aws_account_id": guards["expected_aws_account_id"]}


WORLDS = {"destroy_hosted_cluster": _hosted_cluster, "prune_releases": _releases, "clear_cfn_refusals": _cfn}


def is_preflight(agent):
    return any("(%s)" % m in (agent or "") for m in PREFLIGHT_MODULES)


def iam_user(tag):
    """An IAM user of the sandbox with the shipped policy and a key: (key, secret)."""
    iam = boto3.client("iam", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                       aws_access_key_id="AKBENCH" + uuid.uuid4().hex[:13].upper(), aws_secret_access_key="bench")
    name = "bench-pf-" + tag
    iam.create_user(UserName=name)
    with open(IAM_POLICY) as f:
        iam.put_user_policy(UserName=name, PolicyName="teardown-gates", PolicyDocument=f.read())
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"]


def run_one(playbook, accounts, guards):
    tag = "bp" + uuid.uuid4().hex[:6]
    say("%s: seeding %s" % (playbook, tag))
    work = tempfile.mkdtemp(prefix="bench-pf-")
    extra = dict(WORLDS[playbook](tag, guards), report_dir=os.path.join(work, "reports"))
    kubeconfig, dummy = accounts.create(tag, {"bench-pf-" + tag: EVERYTHING}, [], cluster=["bench-pf-" + tag])
    user = accounts.username(tag)
    key, secret = iam_user(tag)
    times = os.path.join(work, "tasks.jsonl")
    env = dict(os.environ, KUBECONFIG=kubeconfig, K8S_AUTH_KUBECONFIG=kubeconfig, AWS_ACCESS_KEY_ID=key,
               AWS_SECRET_ACCESS_KEY=secret, ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, "callback_plugins"),
               ANSIBLE_CALLBACKS_ENABLED="bench_task_times", BENCH_TASK_TIMES=times)
    audit, aws = LogTail(os.environ["SANDBOX_AUDIT_LOG"]), LogTail(os.environ["SANDBOX_AWS_LOG"])
    say("%s: running" % playbook)
    t0 = time.time()
    proc = subprocess.run([PLAYBOOK, "teardown.gates." + playbook, "-e", json.dumps(extra)], capture_output=True,
                          text=True, env=env, cwd=work)
    wall = time.time() - t0
    if playbook == "destroy_hosted_cluster":
        retire_hosted_cluster(tag, tag)  # gone already on success; on a failure the twins stop reconciling it
    if proc.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (playbook, proc.stdout[-4000:]))
    k8s = [e for e in audit.lines(settle=1.0, having=user)
           if e.get("stage") == "ResponseComplete" and e["user"]["username"] == user]
    calls = [r for r in aws.lines(settle=0) if r.get("key_id") == key]
    tasks = [json.loads(line) for line in open(times)]
    ran = [t for t in tasks if t["status"] != "skipped" and t["start"]]
    pre = [t for t in ran if t["action"].rsplit(".", 1)[-1] in PREFLIGHT_MODULES]
    if not pre:
        raise RuntimeError("%s: no preflight task ran: %s" % (playbook, [t["name"] for t in ran]))
    r = {"wall": wall, "tasks_run": len(ran),
         "preflight_tasks": [{"name": t["name"], "seconds": round(t["end"] - t["start"], 3)} for t in pre],
         "preflight_wall": sum(t["end"] - t["start"] for t in pre),
         "k8s_all": len(k8s), "k8s_preflight": sum(1 for e in k8s if is_preflight(e.get("userAgent"))),
         "aws_all": len(calls), "aws_preflight": sum(1 for c in calls if is_preflight(c.get("user_agent"))),
         "aws_preflight_actions": sorted({c["action"] for c in calls if is_preflight(c.get("user_agent"))})}
    if r["k8s_preflight"] + r["aws_preflight"] == 0:
        raise RuntimeError("%s: the logs show no preflight request" % playbook)
    return r


def main():
    config.load_kube_config()
    wanted = [p for p in os.environ.get("BENCH_PREFLIGHT_PLAYBOOKS", ",".join(WORLDS)).split(",") if p]
    accounts = ServiceAccounts(client.ApiClient(), tempfile.mkdtemp(prefix="bench-pf-sa-"))
    guards = target_guards()
    cases = []
    try:
        for pb in wanted:
            r = run_one(pb, accounts, guards)
            pre_req = r["k8s_preflight"] + r["aws_preflight"]
            all_req = r["k8s_all"] + r["aws_all"]
            say("%s: wall %.1f s, preflight %.2f s (%.1f %%) in %d tasks of %d; requests: preflight %d "
                "(Kubernetes %d, AWS %d) of %d (Kubernetes %d, AWS %d) = %.1f %%"
                % (pb, r["wall"], r["preflight_wall"], 100 * r["preflight_wall"] / r["wall"], len(r["preflight_tasks"]),
                   r["tasks_run"], pre_req, r["k8s_preflight"], r["aws_preflight"], all_req, r["k8s_all"], r["aws_all"],
                   100.0 * pre_req / all_req))
            detail = {"tasks": r["preflight_tasks"], "tasks_run": r["tasks_run"],
                      "requests": {"kubernetes": [r["k8s_preflight"], r["k8s_all"]], "aws": [r["aws_preflight"], r["aws_all"]]},
                      "aws_preflight_actions": r["aws_preflight_actions"]}
            cases += [
                dict({"name": "preflight_wall_%s" % pb, "unit": "s (preflight tasks)", "ours": round(r["preflight_wall"], 2),
                      "peer": round(r["wall"], 1), "peer_name": "the whole run's wall time",
                      "ratio": round(r["wall"] / r["preflight_wall"], 1), "target": None, "met": True}, **detail),
                {"name": "preflight_requests_%s" % pb, "unit": "requests (K8s+AWS)", "ours": pre_req, "peer": all_req,
                 "peer_name": "the whole run's requests (its user and key)",
                 "ratio": round(all_req / float(pre_req), 1), "target": None, "met": True},
            ]
    finally:
        accounts.cleanup()
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
