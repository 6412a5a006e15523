"""Fixtures for tests that run against the live sandbox (started by tests/run_all.sh)."""
import os
import subprocess
import time

import boto3
import pytest
from kubernetes import client, config, dynamic

# tests that take minutes each: out of `make test`, in with TEARDOWN_GATES_SLOW_TESTS=1 (docs/development.md)
SLOW = pytest.mark.skipif(os.environ.get("TEARDOWN_GATES_SLOW_TESTS") != "1",
                          reason="takes minutes: set TEARDOWN_GATES_SLOW_TESTS=1 to run it")


def pytest_configure(config):
    config.addinivalue_line("markers", "exclusive: the test changes or judges state the whole sandbox shares; "
                                       "tests/run_all.sh runs these alone, after the parallel run of the others")


# The files in the order tests/run_all.sh's pytest-xdist workers take them (--no-loadscope-reorder): the longest
# first (wall s of the files in a make test run, 2026-12-04), so that the long ones start first and the workers end
# together. xdist's own order (the files with the most tests first) started the longest files last, and one worker
# ran on alone for minutes. Files not named here follow in name order.
# test_installed_collection.py and test_real_capi.py lost their destroys to test_runner_playbooks.py's destroy row
# (about 100 s and 1 s left): the first takes test_real_capi.py's old place, the second follows unnamed.
LONGEST_FIRST = [
    "test_take_over_cpo.py", "test_bounded.py", "test_sweep_orphans_delete.py", "test_take_over.py",
    "test_check_mode_reads_only.py", "test_sweep_orphans.py", "test_least_privilege.py", "test_approved_plan.py",
    "test_twin_hypershift_held.py", "test_target_guards.py", "test_runner_playbooks.py", "test_twin_hypershift.py",
    "test_installed_collection.py", "test_bad_environment.py", "test_bad_input.py", "test_aws_least_privilege.py",
]


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    # a stable sort: a file's tests stay together and in their order
    items.sort(key=lambda item: (rank.get(item.path.name, len(rank)), item.path.name))


REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SANDBOX = os.path.join(REPO, "tests", "sandbox", "sandbox")

# The meta-test of issue 36 (tests/coverage/check_real_runs.py): when tests/run_all.sh records the real runs of the
# modules and playbooks (TEARDOWN_GATES_REAL_RUNS_DIR), the ansible-playbook, ansible and ansible-runner processes
# these tests start, all with this process's environment, load the recorder. An ad-hoc `ansible` loads it only with
# ANSIBLE_LOAD_CALLBACK_PLUGINS=1, as test_bounded.py sets.
REAL_RUNS_CALLBACKS = os.path.join(REPO, "tests", "coverage", "callback_plugins")
if os.environ.get("TEARDOWN_GATES_REAL_RUNS_DIR"):
    _callback_paths = [p for p in os.environ.get("ANSIBLE_CALLBACK_PLUGINS", "").split(os.pathsep) if p]
    if REAL_RUNS_CALLBACKS not in _callback_paths:
        os.environ["ANSIBLE_CALLBACK_PLUGINS"] = os.pathsep.join([REAL_RUNS_CALLBACKS] + _callback_paths)


# What each test costs in CPU (its own process's and the finished ansible-playbook, seed and CLI processes it
# waited for), one JSON line per test in TEARDOWN_GATES_TEST_CPU_LOG when set (tests/run_all.sh prints the
# costliest): on a shared 2-core machine wall times mostly measure the other lanes. A module fixture's seeding
# counts towards the file's first test, as in --durations.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = os.environ.get("TEARDOWN_GATES_TEST_CPU_LOG")
    if not path:
        yield
        return
    import json
    import resource

    def cpu():
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    c0, t0 = cpu(), time.monotonic()
    yield
    with open(path, "a") as f:
        f.write(json.dumps({"test": item.nodeid, "cpu_s": round(cpu() - c0, 1),
                            "wall_s": round(time.monotonic() - t0, 1)}) + "\n")


def _require_env():
    if not os.environ.get("KUBECONFIG") or not os.environ.get("SANDBOX_AWS_LOG"):
        pytest.fail("sandbox environment missing: run through `make sandbox-tests` or "
                    "eval \"$(tests/sandbox/sandbox env)\" first")


@pytest.fixture(scope="session")
def api_client():
    _require_env()
    return config.new_client_from_config(os.environ["KUBECONFIG"])


@pytest.fixture(scope="session")
def core(api_client):
    return client.CoreV1Api(api_client)


@pytest.fixture(scope="session")
def dyn(api_client):
    return dynamic.DynamicClient(api_client)


@pytest.fixture(scope="session")
def ec2():
    _require_env()
    return boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")


@pytest.fixture()
def sandbox_cli():
    def run(*args, env=None, timeout=300):
        return subprocess.run([SANDBOX, *args], capture_output=True, text=True, env=env, timeout=timeout)
    return run


def _sandbox_status():
    """`sandbox status --logs`: rc 0 when every component runs and the API server answers; otherwise the text
    names what is stopped, with the end of its log."""
    p = subprocess.run([SANDBOX, "status", "--logs"], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


@pytest.fixture(scope="module", autouse=True)
def sandbox_left_whole(request):
    """After each test file: is the sandbox still whole? A file that leaves a component stopped (the chaos
    tests restart the API server and the twins) would fail every later file for a reason that is not theirs.
    Name the file, start what stopped, and fail this file's teardown with what was found."""
    yield
    if not os.environ.get("KUBECONFIG") or not os.environ.get("SANDBOX_HOME"):
        return
    rc, text = _sandbox_status()
    if rc != 0 and " stopped " not in text:
        time.sleep(3)  # every process runs and /version was slow (3 s timeout): a busy machine, not a broken sandbox
        rc, text = _sandbox_status()
    if rc == 0:
        return
    up = subprocess.run([SANDBOX, "up"], capture_output=True, text=True, timeout=300)
    pytest.fail(f"the sandbox was not whole after {request.node.name}:\n{text}"
                f"(sandbox up to repair it: rc {up.returncode} {up.stderr[-300:]})", pytrace=False)
