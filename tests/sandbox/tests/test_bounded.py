"""Every module against an endpoint that accepts connections and never answers ends, as unknown and failed.

A partitioned API server, a load balancer with dead backends, a VPC endpoint whose security group drops packets:
the connect succeeds, then nothing comes back. Each module runs as Ansible runs it (``ansible localhost -m``),
with a kubeconfig, or AWS_ENDPOINT_URL, pointing at ``silent_server.SilentServer``. Each must fail with a
message that names the endpoint and says the state is unknown, and end within its documented bound. The
ceiling asserted (3 x the bound, plus Ansible's own start) only catches a hang; no tight timing is asserted.
These tests need no sandbox.
"""
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import SLOW

from silent_server import SilentServer

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ANSIBLE = os.path.join(os.path.dirname(sys.executable), "ansible")
START = 60  # Ansible's own start on a busy machine, outside any module's bound

sys.path.insert(0, REPO + "/.venv/collections")
from ansible_collections.teardown.gates.plugins.module_utils.core import bounds  # noqa: E402


RT = 2  # request_timeout given to the modules that take it
CLIENT = bounds.client_bound(RT)
HELD_CLIENT = bounds.client_bound(10)  # held_deletion has no request_timeout: the default, 10 s
AWS_CALL = bounds.aws_call_bound()
CM = {"api_version": "v1", "kind": "ConfigMap", "namespace": "default", "name": "x"}

# (module, arguments, the bound its documentation states, words the failure must say)
K8S_CASES = [
    ("finalizer", {"kind": "ConfigMap", "name": "x", "namespace": "default", "finalizer": ["example.com/a"],
                   "request_timeout": RT}, CLIENT, "unknown"),
    ("wait_gate", {"timeout": 30, "request_timeout": RT, "gates": [{"name": "g", "resources": [CM]}]},
     CLIENT, "absence is not proven"),
    ("deletion_info", {"kind": "Namespace", "name": "x", "request_timeout": RT}, CLIENT, "unknown"),
    ("hosted_cluster_info", {"name": "x", "namespace": "clusters", "request_timeout": RT}, CLIENT, "known"),
    ("convoy_release_info", {"namespace": "x", "names": ["a"], "request_timeout": RT}, CLIENT, "unknown"),
    ("convoy_delete", {"namespace": "x", "objects": [{"name": "r", "uid": "00000000-0000-4000-8000-000000000000"}],
                       "request_timeout": RT}, CLIENT, "unknown"),
    ("held_deletion", {"name": "tc", "namespace": "x"}, HELD_CLIENT, "unknown"),
    ("hosted_cluster_take_over", {"name": "x", "namespace": "clusters", "uid": "00000000-0000-4000-8000-000000000000",
                                  "infra_id": "x-1", "timeout": 30, "request_timeout": RT}, CLIENT, "nothing was taken over"),
]
AWS_CASES = [
    ("aws_infra_inventory", {"infra_id": "abc"}, AWS_CALL, "no manifest is returned"),
    ("aws_infra_cleanup", {"manifest": {"AWS::EC2::VPC": ["vpc-0123456789abcdef0"]}, "wait_timeout": 60},
     AWS_CALL, "unknown"),
    ("cloudformation_teardown", {"stack_name": "s", "wait_timeout": 60}, AWS_CALL, "UNKNOWN"),
]


def run_module(tmp_path, server, module, args):
    kc = str(tmp_path / "kubeconfig")
    server.write_kubeconfig(kc)
    env = dict(os.environ, K8S_AUTH_KUBECONFIG=kc, KUBECONFIG=kc, ANSIBLE_COLLECTIONS_PATH=REPO + "/.venv/collections",
               AWS_ENDPOINT_URL="http://" + server.url, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
               AWS_REGION="us-east-1", AWS_DEFAULT_REGION="us-east-1", ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
               ANSIBLE_STDOUT_CALLBACK="json")
    env.pop("K8S_AUTH_HOST", None)
    started = time.monotonic()
    p = subprocess.run([ANSIBLE, "localhost", "-m", "teardown.gates." + module, "-a", json.dumps(args)],
                       capture_output=True, text=True, env=env, timeout=900, stdin=subprocess.DEVNULL)
    took = time.monotonic() - started
    out = json.loads(p.stdout[p.stdout.index("{"):])
    result = out["plays"][0]["tasks"][0]["hosts"]["localhost"]
    return result, took


@pytest.mark.parametrize("module,args,bound,words", K8S_CASES, ids=[c[0] for c in K8S_CASES])
def test_silent_api_server_is_unknown_within_the_bound(tmp_path, module, args, bound, words):
    with SilentServer() as server:
        result, took = run_module(tmp_path, server, module, args)
        assert server.connections >= 1  # it did reach the silent server
    assert result.get("failed") is True, result
    msg = result["msg"]
    assert "127.0.0.1:%d" % server.port in msg and "did not answer within" in msg, msg
    assert words in msg or words in json.dumps(result), msg
    assert took < 3 * bound + START, "%s took %.0f s, its bound is %.0f s" % (module, took, bound)


# Out of `make test` (SLOW): a minute or more each, the AWS bound being 87 s. Where `make test` covers it: each AWS
# playbook's first request against a silent endpoint, unknown within that bound and before any change
# (test_destroy_hosted_cluster_against_a_silent_aws_endpoint_... and
# test_clear_cfn_refusals_against_a_silent_aws_endpoint_... below); one bound per silent endpoint, not one per call
# (tests/unit/plugins/module_utils/core/test_bounds.py).
@SLOW
@pytest.mark.parametrize("module,args,bound,words", AWS_CASES, ids=[c[0] for c in AWS_CASES])
def test_silent_aws_endpoint_is_unknown_within_the_bound(tmp_path, module, args, bound, words):
    with SilentServer() as server:
        result, took = run_module(tmp_path, server, module, args)
        assert server.connections >= 1
    assert result.get("failed") is True, result
    text = json.dumps(result)
    assert "127.0.0.1:%d" % server.port in text, result["msg"]
    assert words in text, result["msg"]
    assert took < 3 * bound + START, "%s took %.0f s, its bound is %.0f s" % (module, took, bound)


def run_playbook(tmp_path, env, *extra):
    started = time.monotonic()
    p = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"),
                        "teardown.gates.destroy_hosted_cluster", "-e", "report_dir=%s" % (tmp_path / "reports"), *extra],
                       capture_output=True, text=True, env=env, timeout=1800, stdin=subprocess.DEVNULL, cwd=str(tmp_path))
    return p, time.monotonic() - started


def test_destroy_hosted_cluster_against_a_silent_api_server_stops_before_the_first_delete_naming_it(tmp_path):
    # its first Kubernetes request is the baseline's read of the HostedCluster (read-only; the permission preflight of
    # roles/before_first_delete comes after it, in one run with the AWS permissions), before the first delete
    with SilentServer() as server:
        kc = str(tmp_path / "kubeconfig")
        server.write_kubeconfig(kc)
        env = dict(os.environ, K8S_AUTH_KUBECONFIG=kc, KUBECONFIG=kc, ANSIBLE_COLLECTIONS_PATH=REPO + "/.venv/collections")
        p, took = run_playbook(tmp_path, env, "-e", "hosted_cluster_name=demo")
    out = p.stdout
    assert p.returncode != 0
    assert "stopped at Phase 1 | Record the AWS inventory of infra ID of HostedCluster clusters/demo" in out, out[-3000:]
    assert "127.0.0.1:%d" % server.port in out, out[-3000:]
    assert "phases that never ran: 2 retain, 3 delete and gates, 4 AWS infrastructure and IAM" in out, out[-3000:]
    bound = bounds.client_bound(10)  # hosted_cluster_baseline runs with the default request_timeout
    assert took < 3 * bound + 2 * START, "the playbook took %.0f s; its first read's bound is %.0f s" % (took, bound)


def test_destroy_hosted_cluster_against_a_silent_aws_endpoint_stops_before_the_first_delete_saying_only_what_it_saw(
        tmp_path):
    # an infrastructure-only destroy (the HostedCluster already gone): its first AWS request is the baseline's
    # inventory (read-only; the permission preflight comes after it, since the inventory says whether the run
    # deletes anything in AWS), so the silence stops the run in Phase 1, before any change
    with SilentServer() as server:
        env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=REPO + "/.venv/collections", AWS_ENDPOINT_URL="http://" + server.url,
                   AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_REGION="us-east-1",
                   AWS_DEFAULT_REGION="us-east-1")
        p, took = run_playbook(tmp_path, env, "-e", "infra_id=demo-x7k2p", "-e", "hosted_cluster_name=")
    out = p.stdout
    assert p.returncode != 0
    assert "stopped at Phase 1 | Record the AWS inventory of infra ID demo-x7k2p" in out, out[-3000:]
    assert "127.0.0.1:%d" % server.port in out and "what AWS holds is unknown" in out, out[-3000:]
    # the message names what never ran (every phase that changes anything), and no count or namespace that no read
    # gave
    assert "phases that never ran: 2 retain, 3 delete and gates, 4 AWS infrastructure and IAM" in out, out[-3000:]
    assert "namespace deleted" not in out and "remaining 0" not in out
    bound = bounds.aws_call_bound()
    assert took < 3 * bound + 2 * START, "the playbook took %.0f s; one AWS call's bound is %.0f s" % (took, bound)


def test_clear_cfn_refusals_against_a_silent_aws_endpoint_stops_before_the_first_delete_naming_it(tmp_path):
    # its first AWS call is the permission preflight's GetCallerIdentity (roles/before_first_delete; no Kubernetes
    # request, the playbook reviews no Kubernetes permission)
    with SilentServer() as server:
        env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=REPO + "/.venv/collections", AWS_ENDPOINT_URL="http://" + server.url,
                   AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_REGION="us-east-1",
                   AWS_DEFAULT_REGION="us-east-1")
        started = time.monotonic()
        p = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"),
                            "teardown.gates.clear_cfn_refusals", "-e", json.dumps({"cfn_stack_prefix": "silent-"})],
                           capture_output=True, text=True, env=env, timeout=1800, stdin=subprocess.DEVNULL,
                           cwd=str(tmp_path))
        took = time.monotonic() - started
    out = p.stdout
    assert p.returncode != 0
    assert "Check every Kubernetes and AWS permission" in out and "127.0.0.1:%d" % server.port in out, out[-3000:]
    assert "nothing was changed" in out and "DeleteStack" not in out and "Listing the CloudFormation stacks" not in out
    bound = bounds.aws_call_bound()
    assert took < 3 * bound + 2 * START, "the playbook took %.0f s; one AWS call's bound is %.0f s" % (took, bound)


# Out of `make test` (SLOW). Where `make test` covers it: botocore's standard retry mode as the one retry layer
# (test_bounds.py::test_aws_config_has_timeouts_one_retry_policy_and_our_user_agent) and the discovery's bound
# (test_bounds.py::test_a_silent_endpoint_costs_one_call_bound_not_one_per_call).
@SLOW
def test_a_slow_failing_aws_endpoint_ends_within_the_bound_with_botocore_s_attempts_only(tmp_path):
    # seconds per request, then a 503: botocore's standard mode is the one layer that retries it (4 attempts)
    with SilentServer(delay=2) as server:
        result, took = run_module(tmp_path, server, "aws_infra_inventory", {"infra_id": "abc"})
        connections = server.connections
    assert result.get("failed") is True and "no manifest is returned" in result["msg"], result
    assert "503" in result["msg"], result["msg"]
    # each discovery step that ran sent at most AWS_MAX_ATTEMPTS requests: no AWSRetry or parser loop on top
    steps = 7  # aws_inventory.discover's parallel steps
    assert connections <= steps * bounds.AWS_MAX_ATTEMPTS, connections
    assert took < 3 * bounds.aws_call_bound() + START
