"""diagnose_deletion against three deletions stuck in the sandbox's real API server, each on a different blocker:

- a ConfigMap held by the finalizer of an owner that is gone (written by the field manager "dead-operator"):
  the report names the finalizer as "unknown owner" and the manager that wrote it;
- a ConfigMap whose finalizer's owner would be refused: a ValidatingWebhookConfiguration with failurePolicy Fail
  points at a Service with no endpoints (scoped to this test's namespace and label only); the report names the
  webhook and its Service (and the API server really refuses the owner's patch);
- a namespace stuck on an aggregated APIService that is not Available: the report names the APIService, and the
  namespace's state is "unknown", not "empty".

Every run goes through a ServiceAccount bound to exactly extensions/rbac/diagnose_deletion.yml; the audit log shows
that each request it sent (check mode or not) is a get or a list with our user agent, and that the shipped role
covers them. The file is exclusive: while the APIService is unavailable the sandbox's namespace controller and
garbage collector cannot discover its group, which would slow every other test's namespace deletion."""
import glob
import json
import os
import sys

import pytest

from privilege import LogTail, ServiceAccounts, audit_requests, not_covered, run_playbook, shipped_roles
from stuck_world import DEAD, GUARDED, stuck_world

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, REPO + "/.venv/collections")
from ansible_collections.teardown.gates.plugins.module_utils.core.bounds import VERSION  # noqa: E402

pytestmark = pytest.mark.exclusive

AGENT = "teardown.gates/%s (deletion_info)" % VERSION


@pytest.fixture(scope="module")
def world(api_client):
    with stuck_world(api_client) as w:
        yield w


@pytest.fixture(scope="module")
def runs(world, api_client, tmp_path_factory):
    """The playbook on each stuck deletion (and once in check mode), as a ServiceAccount bound to the shipped role."""
    work = tmp_path_factory.mktemp("diagnose")
    accounts = ServiceAccounts(api_client, str(work))
    roles = shipped_roles("diagnose_deletion.yml")
    try:
        kubeconfig, dummy = accounts.create("diagnoser", roles, [], cluster=list(roles))
        audit = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
        cases = {
            "dead-owner": {"kind": "ConfigMap", "namespace": world["ns"], "name": "dead-owner"},
            "webhook": {"kind": "ConfigMap", "namespace": world["ns"], "name": "guarded"},
            "apiservice": {"kind": "Namespace", "name": world["ns_api"]},
            "check-mode": {"kind": "ConfigMap", "namespace": world["ns"], "name": "guarded"},
        }
        out = {}
        for case, target in cases.items():
            reports = str(work / case)
            run = run_playbook("teardown.gates.diagnose_deletion", dict(target, report_dir=reports), str(work),
                               {"KUBECONFIG": kubeconfig, "K8S_AUTH_KUBECONFIG": kubeconfig}, verbosity="",
                               check=case == "check-mode", timeout=300)
            assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
            files = sorted(glob.glob(os.path.join(reports, "diagnose-*")))
            assert [f.rsplit(".", 1)[1] for f in files] == ["html", "json", "md"], files
            with open(files[1]) as f:
                report = json.load(f)
            with open(files[0]) as f:
                page = f.read()
            out[case] = {"report": report, "page": page}
        events = [e for e in audit.lines() if e.get("stage") == "ResponseComplete"
                  and e["user"]["username"] == accounts.username("diagnoser")]
        yield {"cases": out, "events": events, "requests": audit_requests_from(events), "roles": roles}
    finally:
        accounts.cleanup()


def audit_requests_from(events):
    """audit_requests' shape, from events already read."""
    class Tail:
        def lines(self):
            return events
    return audit_requests(Tail(), events[0]["user"]["username"]) if events else []


def _blockers(report, what):
    return [b for b in report["blockers"] if b["what"] == what]


def test_a_dead_owners_finalizer_names_the_manager_that_wrote_it(runs):
    report = runs["cases"]["dead-owner"]["report"]
    assert report["state"] == "present" and report["deleting"] is True, report
    assert [b["name"] for b in report["blockers"]] == [DEAD], report["blockers"]
    fin = report["finalizers"][0]
    assert fin["owner"] == "unknown owner", fin
    assert [m["manager"] for m in fin["added_by"]] == ["dead-operator"], fin
    assert "dead-operator" in report["blockers"][0]["detail"]
    # the webhook is scoped to the other ConfigMap's label: not named here
    assert report["webhooks"] == [], report["webhooks"]


def test_a_webhook_with_no_endpoints_is_named_first(runs, world):
    report = runs["cases"]["webhook"]["report"]
    first = report["blockers"][0]
    assert (first["what"], first["name"]) == ("webhook", world["hook"]), report["blockers"]
    assert report["webhooks"] == [{"configuration": "ValidatingWebhookConfiguration tg-diagnose-" + world["tag"],
                                   "webhook": world["hook"], "service": world["ns"] + "/gone-webhook",
                                   "endpoints": "none ready"}], report["webhooks"]
    # its own finalizer is still listed, with an unknown owner
    assert [b["name"] for b in _blockers(report, "finalizer")] == [GUARDED]
    assert world["hook"] in runs["cases"]["webhook"]["page"]


def test_a_namespace_on_an_unavailable_apiservice_is_unknown_not_empty(runs, world):
    report = runs["cases"]["apiservice"]["report"]
    assert report["state"] == "present" and report["deleting"] is True, report
    assert report["namespace_state"] == "unknown", report["namespace_state"]
    assert [a["name"] for a in report["apiservices"]] == [world["apiservice"]], report["apiservices"]
    assert report["blockers"][0]["what"] == "apiservice" and report["blockers"][0]["name"] == world["apiservice"]
    assert 'id="namespace-state">unknown<' in runs["cases"]["apiservice"]["page"]


def test_check_mode_gives_the_same_diagnosis(runs):
    plain, check = runs["cases"]["webhook"]["report"], runs["cases"]["check-mode"]["report"]
    assert check["check_mode"] is True and plain["check_mode"] is False
    assert check["blockers"] == plain["blockers"]


def test_it_reads_only_with_our_agent_and_the_shipped_role_covers_it(runs):
    events = runs["events"]
    assert events, "no request of the diagnosing ServiceAccount in the audit log"
    verbs = sorted({e["verb"] for e in events})
    assert set(verbs) <= {"get", "list"}, verbs
    agents = sorted({e.get("userAgent", "") for e in events})
    assert agents == [AGENT], agents
    denied = sorted({e["requestURI"] for e in events if (e.get("responseStatus") or {}).get("code") == 403})
    assert not denied, denied
    rules = [r for rs in runs["roles"].values() for r in rs]
    assert not_covered(runs["requests"], rules) == []
