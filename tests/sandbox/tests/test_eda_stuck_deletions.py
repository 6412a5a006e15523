"""The real Event-Driven Ansible engine notices the stuck deletions and diagnoses them (issue 35).

One ``ansible-rulebook`` (from .venv-eda, made by the Makefile from requirements-eda.txt; drools-jpy on Java 17)
runs extensions/eda/rulebooks/stuck_deletions.yml against the sandbox's real API server. Its source,
teardown.gates.stuck_deletions, watches ConfigMaps and Namespaces labelled by stuck_world.py's three stuck
deletions; each must get a diagnose_deletion report, written by the rulebook's own run_playbook, within a bound,
naming the true blocker: the dead owner's finalizer, the Fail webhook with no endpoints, the unavailable APIService.
Each deletion is emitted once (nothing about them changes while the rulebook runs).

Also the source alone (its ``main``, as the engine calls it) against an API server that goes silent: an unknown
event within the stated bound, never silence."""
import asyncio
import glob
import importlib.util
import json
import os
import subprocess
import sys
import time
import uuid

import pytest

from silent_server import SilenceableProxy, SilentServer
from stuck_world import DEAD, stuck_world

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, REPO + "/.venv/collections")
from ansible_collections.teardown.gates.plugins.module_utils.core.bounds import client_bound  # noqa: E402

EDA_VENV = os.path.join(REPO, ".venv-eda")
PLUGIN = os.path.join(REPO, "extensions", "eda", "plugins", "event_source", "stuck_deletions.py")
STUCK_AFTER = 5  # seconds: the seeded deletions are older than this when the rulebook starts
REPORTS_WITHIN = 240  # seconds from the rulebook's start to the third report (three playbook runs, one after another)


def _make_eda_venv():
    """.venv-eda through the Makefile's own target (a stamp: made once, again when requirements-eda.txt changes)."""
    started = time.monotonic()
    run = subprocess.run(["make", "-s", "-C", REPO, ".venv-eda/.bootstrapped"], capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, "make .venv-eda/.bootstrapped failed:\n" + run.stdout[-3000:] + run.stderr[-3000:]
    return time.monotonic() - started


@pytest.fixture(scope="module")
def rulebook(api_client, tmp_path_factory):
    made_in = _make_eda_venv()
    version = subprocess.run([EDA_VENV + "/bin/ansible-rulebook", "--version"], capture_output=True, text=True,
                             timeout=120)
    work = tmp_path_factory.mktemp("eda")
    reports = work / "reports"
    with stuck_world(api_client) as world:
        with open(work / "vars.yml", "w") as f:
            json.dump({"watch_kinds": [{"api_version": "v1", "kind": "ConfigMap"},
                                       {"api_version": "v1", "kind": "Namespace"}],
                       "stuck_after": STUCK_AFTER, "label_selector": world["selector"],
                       "kubeconfig": os.environ["KUBECONFIG"], "report_dir": str(reports)}, f)
        with open(work / "inventory.yml", "w") as f:
            f.write("all:\n  hosts:\n    localhost:\n      ansible_connection: local\n")
        env = dict(os.environ, PATH=EDA_VENV + "/bin:" + os.environ["PATH"],
                   ANSIBLE_COLLECTIONS_PATH=REPO + "/.venv/collections", PYTHONPATH=REPO + "/.venv/collections")
        log = open(work / "rulebook.log", "w")
        started = time.monotonic()
        proc = subprocess.Popen([EDA_VENV + "/bin/ansible-rulebook", "-i", "inventory.yml",
                                 "-r", "teardown.gates.stuck_deletions", "--vars", "vars.yml", "-v"],
                                cwd=str(work), env=env, stdout=log, stderr=subprocess.STDOUT)
        found = {}
        try:
            wanted = {"dead-owner": "configmap-%s-dead-owner" % world["ns"],
                      "webhook": "configmap-%s-guarded" % world["ns"],
                      "apiservice": "namespace-%s" % world["ns_api"]}
            while time.monotonic() - started < REPORTS_WITHIN and len(found) < len(wanted) and proc.poll() is None:
                for case, stem in wanted.items():
                    files = glob.glob(str(reports / ("diagnose-%s-*.json" % stem)))
                    if files and case not in found:
                        found[case] = (time.monotonic() - started, files)
                time.sleep(1)
            # two more looks of the source (check_every 5 s): nothing changed, nothing more may come
            time.sleep(11 if len(found) == len(wanted) else 0)
            every = sorted(glob.glob(str(reports / "diagnose-*.json")))
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            log.close()
        with open(work / "rulebook.log") as f:
            text = f.read()
        cases = {}
        for case, (after, files) in found.items():
            with open(files[0]) as f:
                cases[case] = {"after": after, "report": json.load(f), "files": files}
        yield {"world": world, "version": version, "made_in": made_in, "cases": cases, "every": every,
               "log": text, "returncode": proc.returncode}


async def _stopped(task):
    """Cancel the source's task and wait for it to end, whatever it ended with (the test has its events)."""
    task.cancel()
    try:
        await task
    except (asyncio.CancelledError, Exception):
        pass


@pytest.mark.exclusive
def test_the_engine_is_the_real_ansible_rulebook(rulebook, capsys):
    version = rulebook["version"]
    assert version.returncode == 0, version.stderr
    lines = version.stdout.splitlines()
    with capsys.disabled():
        print("\n%s; %s (.venv-eda ready in %.1f s; reports after %s s)" % (lines[0].strip(), ", ".join(
            line.strip() for line in lines if "Drools_jpy" in line or "Java version" in line), rulebook["made_in"],
            ", ".join("%s %.0f" % (k, v["after"]) for k, v in sorted(rulebook["cases"].items()))))
    assert lines[0].startswith("ansible-rulebook [1."), lines
    assert any(line.strip().startswith("Drools_jpy version = ") for line in lines), lines
    # it ran the rulebook until stopped: no source error, no early exit
    assert "Source error" not in rulebook["log"], rulebook["log"][-3000:]


@pytest.mark.exclusive
def test_each_stuck_deletion_gets_a_report_naming_its_blocker(rulebook):
    cases, world = rulebook["cases"], rulebook["world"]
    assert sorted(cases) == ["apiservice", "dead-owner", "webhook"], (sorted(cases), rulebook["log"][-4000:])
    dead = cases["dead-owner"]["report"]
    assert [b["name"] for b in dead["blockers"]] == [DEAD], dead["blockers"]
    assert dead["finalizers"][0]["owner"] == "unknown owner"
    assert [m["manager"] for m in dead["finalizers"][0]["added_by"]] == ["dead-operator"]
    hook = cases["webhook"]["report"]["blockers"][0]
    assert (hook["what"], hook["name"]) == ("webhook", world["hook"]), cases["webhook"]["report"]["blockers"]
    ns = cases["apiservice"]["report"]
    assert (ns["blockers"][0]["what"], ns["blockers"][0]["name"]) == ("apiservice", world["apiservice"])
    assert ns["namespace_state"] == "unknown", ns["namespace_state"]
    for case in cases.values():
        assert case["after"] < REPORTS_WITHIN


@pytest.mark.exclusive
def test_each_deletion_is_diagnosed_once(rulebook):
    # nothing about the three changed while the rulebook ran: one event, one run, one report each
    assert len(rulebook["every"]) == 3, rulebook["every"]
    assert rulebook["log"].count("PLAY RECAP") == 3, rulebook["log"][-4000:]


def test_the_engine_refuses_bad_input_naming_the_option(tmp_path):
    """The real ansible-rulebook with a negative stuck_after: it ends, non-zero, before any request, and its log
    names the option."""
    _make_eda_venv()
    with open(tmp_path / "vars.yml", "w") as f:
        json.dump({"stuck_after": -1, "kubeconfig": os.environ["KUBECONFIG"]}, f)
    with open(tmp_path / "inventory.yml", "w") as f:
        f.write("all:\n  hosts:\n    localhost:\n      ansible_connection: local\n")
    env = dict(os.environ, PATH=EDA_VENV + "/bin:" + os.environ["PATH"],
               ANSIBLE_COLLECTIONS_PATH=REPO + "/.venv/collections", PYTHONPATH=REPO + "/.venv/collections")
    run = subprocess.run([EDA_VENV + "/bin/ansible-rulebook", "-i", "inventory.yml", "-r",
                          "teardown.gates.stuck_deletions", "--vars", "vars.yml"], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "stuck_after: must be 0 or more seconds, got -1" in run.stdout + run.stderr, run.stdout + run.stderr


def _load_source():
    spec = importlib.util.spec_from_file_location("stuck_deletions_source", PLUGIN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_silent_api_server_is_an_unknown_event_within_the_bound(tmp_path):
    source = _load_source()
    request_timeout = 1
    bound = client_bound(request_timeout) + request_timeout + 5  # the client's bound, one look, some slack

    async def first_event(kubeconfig):
        queue = asyncio.Queue()
        task = asyncio.ensure_future(source.main(queue, {
            "kubeconfig": kubeconfig, "kinds": [{"api_version": "v1", "kind": "Namespace"}],
            "request_timeout": request_timeout, "check_every": 1}))
        try:
            started = time.monotonic()
            event = await asyncio.wait_for(queue.get(), bound)
            return event, time.monotonic() - started, task.done()
        finally:
            await _stopped(task)

    with SilentServer() as server:
        event, after, ended = asyncio.run(first_event(server.write_kubeconfig(str(tmp_path / "kubeconfig"))))
        assert server.connections >= 1
    e = event["stuck_deletion"]
    assert e["state"] == "unknown" and e["object"] == {}, e
    assert "did not answer" in e["error"], e
    assert after < bound and not ended  # in time, and the source goes on (it tries again)


def test_an_api_server_that_goes_silent_mid_watch_is_unknown_and_nothing_is_emitted_twice(core, tmp_path):
    """Stuck object emitted; the API server (behind a proxy) goes silent: one unknown event within the watch's
    bound; it speaks again: the unchanged object is not emitted again, its next change is."""
    source = _load_source()
    tag = "eda" + uuid.uuid4().hex[:6]
    fin, fin2 = "eda.teardown-gates.test/held", "eda.teardown-gates.test/second"
    opts = {"kinds": [{"api_version": "v1", "kind": "ConfigMap"}], "stuck_after": 0,
            "label_selector": "teardown-gates-stuck=" + tag, "request_timeout": 2, "watch_window": 5, "check_every": 1}
    # after the silence: the open watch's read bound (watch_window + request_timeout) once its window is over, then
    # one look (check_every), and slack for a machine busy with the other lanes
    bound = 2 * opts["watch_window"] + opts["request_timeout"] + opts["check_every"] + 5
    core.create_namespace({"metadata": {"name": tag}})
    try:
        core.create_namespaced_config_map(tag, {"metadata": {"name": "held", "finalizers": [fin, fin2],
                                                             "labels": {"teardown-gates-stuck": tag}}})
        core.delete_namespaced_config_map("held", tag)
        server = core.api_client.configuration.host.split("://", 1)[1]
        with SilenceableProxy(server) as proxy:
            opts["kubeconfig"] = proxy.write_kubeconfig(os.environ["KUBECONFIG"], str(tmp_path / "kubeconfig"))

            async def scenario():
                queue = asyncio.Queue()
                task = asyncio.ensure_future(source.main(queue, opts))
                try:
                    first = await asyncio.wait_for(queue.get(), 30)
                    proxy.silence()
                    silenced = time.monotonic()
                    second = await asyncio.wait_for(queue.get(), bound)
                    unknown_after = time.monotonic() - silenced
                    proxy.speak()
                    await asyncio.sleep(opts["request_timeout"] + 3)  # a re-list through the proxy
                    # (a deleting object can lose finalizers, not gain them)
                    core.patch_namespaced_config_map("held", tag, [{"op": "remove", "path": "/metadata/finalizers/1"}])
                    third = await asyncio.wait_for(queue.get(), 30)
                    return first, second, unknown_after, third, task.done()
                finally:
                    await _stopped(task)
            first, second, unknown_after, third, ended = asyncio.run(scenario())
    finally:
        try:
            core.patch_namespaced_config_map("held", tag, {"metadata": {"finalizers": None}})
        except Exception:
            pass
        core.delete_namespace(tag)
    first, second, third = first["stuck_deletion"], second["stuck_deletion"], third["stuck_deletion"]
    assert (first["state"], first["object"]["name"], first["finalizers"]) == ("stuck", "held", [fin, fin2]), first
    assert second["state"] == "unknown" and second["object"] == {"api_version": "v1", "kind": "ConfigMap"}, second
    print("unknown %.1f s after the silence (bound %s s)" % (unknown_after, bound))
    assert unknown_after < bound, (unknown_after, bound)
    # known again: the next event is the change, not the unchanged object a second time
    assert third["state"] == "stuck" and third["finalizers"] == [fin], third
    assert third["changed"] == "finalizers %s, %s -> %s" % (fin, fin2, fin), third
    assert not ended


def test_a_kind_the_cluster_does_not_serve_ends_the_source_naming_the_option():
    source = _load_source()
    with pytest.raises(ValueError) as e:
        asyncio.run(source.main(asyncio.Queue(), {"kinds": [{"api_version": "v1", "kind": "Namespace"},
                                                            {"api_version": "v1", "kind": "Nonesuch"}]}))
    assert "kinds: v1 Nonesuch is not served by the API server" in str(e.value)


def test_bad_input_ends_the_source_naming_the_option():
    source = _load_source()
    with pytest.raises(ValueError) as e:
        asyncio.run(source.main(asyncio.Queue(), {"stuck_after": -1}))
    assert "stuck_after: must be 0 or more seconds, got -1" in str(e.value)
    # a kubeconfig that is not there is no outage to wait out: it ends the source too
    with pytest.raises(ValueError) as e:
        asyncio.run(source.main(asyncio.Queue(), {"kubeconfig": "/nonexistent/kubeconfig"}))
    assert "kubeconfig, context: could not configure the API client" in str(e.value)
