"""A fleet torn down as AWX's job slicing runs it: the inventory split into three slices, each slice a job of
its own, sent through its own `ansible-runner transmit | worker | process` stream, the three at the same time.

AWX gives slice k of n the hosts whose index i in the inventory has i % n == k (k from 0); each slice job
carries only its hosts. The hosts here are what the `hosted_clusters` inventory plugin would make of the seeded
HostedClusters (docs/fleet.md): named <namespace>-<name>, in the group hosted_clusters, with the role's own
variables. Every cluster must come back verified in its slice's set_stats artifacts and report, and no
cluster may appear in another slice's.
"""
import json
import os
import random
import subprocess

import pytest
from kubernetes.dynamic.exceptions import NotFoundError

from conftest import SANDBOX
from test_runner_playbooks import Stream, assert_stream_succeeded, job_envvars, node_env, write_job, WORKER_REPORTS

SLICES = 3
FLEET = 6  # two clusters per slice
TIMEOUT = 600


def slice_hosts(hosts, k, n=SLICES):
    """AWX's job slicing: slice k of n holds every n-th host from the k-th."""
    return hosts[k::n]



# six hosted clusters torn down through three streams at once: minutes on 2 cores, so out of `make test`. Where
# `make test` covers it: each playbook through one ansible-runner stream, its set_stats artifacts and report
# (test_runner_playbooks.py::test_playbook_through_the_runner_stream); the hosts the inventory plugin makes
# (integration target inventory_hosted_clusters). Three slices at once, each seeing only its hosts: only here.
# (TEARDOWN_GATES_SLOW_TESTS=1 make sandbox-tests runs it, and so does `make matrix-newest`)
pytestmark = pytest.mark.skipif(os.environ.get("TEARDOWN_GATES_SLOW_TESTS") != "1",
                                     reason="slow: set TEARDOWN_GATES_SLOW_TESTS=1 (six hosted clusters, three streams)")

def test_slicing_splits_like_awx():
    hosts = ["h%d" % i for i in range(7)]
    slices = [slice_hosts(hosts, k) for k in range(SLICES)]
    assert slices == [["h0", "h3", "h6"], ["h1", "h4"], ["h2", "h5"]]
    assert sorted(sum(slices, [])) == sorted(hosts)


@pytest.fixture(scope="module")
def slices(tmp_path_factory):
    if not os.environ.get("KUBECONFIG"):
        pytest.fail("sandbox environment missing: run through tests/run_all.sh sandbox")
    root = tmp_path_factory.mktemp("slices")
    ns = "sl%05d" % random.randrange(100000)
    hosts = {}
    for i in range(FLEET):
        name = "%s-c%d" % (ns, i)
        out = subprocess.run([SANDBOX, "seed", "hosted-cluster", "--name", name, "--namespace", ns,
                              "--knob", "aws_infra=false"], capture_output=True, text=True, timeout=300, check=False)
        assert out.returncode == 0, f"seed {name}: {out.stdout[-2000:]}{out.stderr[-2000:]}"
        seed = json.loads(out.stdout.strip().splitlines()[-1])
        hosts["%s-%s" % (seed["namespace"], seed["name"])] = {
            "hosted_cluster_name": seed["name"], "hosted_cluster_namespace": seed["namespace"],
            "ansible_connection": "local"}
    names = sorted(hosts)
    jobs = []
    for k in range(SLICES):
        mine = slice_hosts(names, k)
        controller = str(root / ("slice%d" % k) / "controller")
        inventory = {"all": {"children": {"hosted_clusters": {"hosts": {h: hosts[h] for h in mine}}}}}
        # a fleet's job template passes no cluster names (docs/fleet.md): only the run's own answers
        extravars = {"destroy_cloud_resources": "true", "preserve_iam": "false", "cluster_grace_period": 300,
                     "report_dir": WORKER_REPORTS}
        write_job(controller, extravars, job_envvars(), TIMEOUT, inventory=inventory)
        stream = Stream(controller, str(root / ("slice%d" % k) / "node"), "playbooks/destroy_hosted_cluster.yml",
                        "job", TIMEOUT, node_env())
        jobs.append((k, mine, hosts, stream))
    for _, _, _, stream in jobs:
        stream.wait()
    return jobs


@pytest.mark.parametrize("k", range(SLICES))
def test_slice_through_its_own_stream(slices, k):
    _, mine, hosts, stream = slices[k]
    events = stream.events()
    assert_stream_succeeded("slice %d" % k, stream, events)
    stats = [e for e in events if e.get("event") == "playbook_on_stats"][-1]["event_data"]
    assert sorted(stats.get("ok", {})) == sorted(mine), stats  # the slice ran its hosts and no others
    summary = stats.get("artifact_data", {}).get("hosted_cluster_teardown", {})
    wanted = sorted("%s/%s" % (hosts[h]["hosted_cluster_namespace"], hosts[h]["hosted_cluster_name"]) for h in mine)
    assert sorted(summary) == wanted, summary
    for key in wanted:
        assert summary[key]["verified"] is True, summary[key]
        assert summary[key]["aws_remaining"] == 0, summary[key]
        ns, name = key.split("/")
        report = os.path.join(stream.artifacts, "reports", "%s-%s.json" % (ns, name))
        assert os.path.exists(report), os.listdir(os.path.dirname(report)) if os.path.isdir(os.path.dirname(report)) \
            else "no reports came back through the stream"


def test_every_cluster_is_gone(slices, dyn):
    """Independently of the reports: each seeded HostedCluster is absent from the API server."""
    api = dyn.resources.get(api_version="hypershift.openshift.io/v1beta1", kind="HostedCluster")
    left = []
    for _, mine, hosts, _ in slices:
        for h in mine:
            try:
                api.get(name=hosts[h]["hosted_cluster_name"], namespace=hosts[h]["hosted_cluster_namespace"])
                left.append(h)
            except NotFoundError:
                pass
    assert not left, left
