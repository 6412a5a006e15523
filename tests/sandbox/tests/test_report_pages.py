"""The report pages in a real headless browser (Debian's chromium), and the fleet page of a real fleet run.

The page is rendered from the stored JSON reports in tests/unit/plugins/module_utils/fixtures, opened in
chromium, screenshotted, and measured in the browser: one bar per gate, each bar's laid-out width proportional
to its gate's duration (from the JSON's started and passed_at) within 2 %, the milestone lines where the
milestones are, and a stopped run's open gate drawn open with what held it.

Without chromium (and no root to install it) these tests are SKIPPED with the reason, never passed.
TEARDOWN_GATES_SCREENSHOTS=docs/images keeps the screenshots there (how docs/images/report-*.png are made).
"""
import json
import os
import re
import shutil
import subprocess
import uuid

import pytest

import browser
from conftest import REPO, SANDBOX, SLOW

from ansible_collections.teardown.gates.plugins.module_utils.report import html as report_html
from ansible_collections.teardown.gates.plugins.module_utils.report import timeline

FIXTURES = os.path.join(REPO, "tests", "unit", "plugins", "module_utils", "fixtures")


@pytest.fixture(scope="module")
def chromium():
    path, why = browser.ensure_chromium()
    if not path:
        pytest.skip("no headless browser here: " + why)
    return path


@pytest.fixture
def shots(tmp_path):
    """Where the screenshots go: TEARDOWN_GATES_SCREENSHOTS (relative to the repo) or the test's tmp folder."""
    d = os.environ.get("TEARDOWN_GATES_SCREENSHOTS")
    if d:
        d = os.path.join(REPO, d)
        os.makedirs(d, exist_ok=True)
        return d
    return str(tmp_path)


def _page(tmp_path, name):
    with open(os.path.join(FIXTURES, name)) as f:
        report = json.load(f)
    path = os.path.join(str(tmp_path), name.replace(".json", ".html"))
    with open(path, "w") as f:
        f.write(report_html.render_html(report))
    return report, path


def _epoch(v):
    return timeline.epoch(v)


def test_verified_page_one_bar_per_gate_widths_proportional(chromium, tmp_path, shots):
    report, page = _page(tmp_path, "report-verified.json")
    png = browser.screenshot(chromium, page, os.path.join(shots, "report-verified.png"), height=660)
    assert browser.png_size(png) == (1180, 660)
    drawn = browser.rendered_bars(chromium, page)
    gates = [b for b in drawn["bars"] if b["section"] == "Gates"]
    assert [b["label"] for b in gates] == [g["name"] for g in report["gates"]], drawn
    assert all(b["visible"] for b in gates)
    # pixels per second, from the longest gate; every gate's width agrees within 2 %
    durations = [_epoch(g["passed_at"]) - _epoch(g["started"]) for g in report["gates"]]
    ref = max(range(len(gates)), key=lambda i: durations[i])
    px_per_s = gates[ref]["width"] / durations[ref]
    for b, d in zip(gates, durations):
        assert b["width"] == pytest.approx(d * px_per_s, rel=0.02), (b, d)
    # and the bars stand where their gates started, on the same scale
    t0 = min(_epoch(g["started"]) for g in report["gates"])
    x0 = gates[0]["x"]
    for b, g in zip(gates, report["gates"]):
        assert b["x"] - x0 == pytest.approx((_epoch(g["started"]) - t0) * px_per_s, abs=0.5), b
    lines = dict((m["label"], m["x"]) for m in drawn["milestones"])
    assert set(lines) >= {"command finished", "verified"}
    verify = next(b for b in drawn["bars"] if b["label"] == "verify by independent queries")
    assert lines["command finished"] == pytest.approx(verify["x"], abs=1.0)
    assert [b["label"] for b in drawn["bars"] if b["section"] == "AWS"] == ["NatGateway", "Subnet", "VPC", "Role"]


def test_stopped_page_shows_the_open_gate_and_what_held_it(chromium, tmp_path, shots):
    report, page = _page(tmp_path, "report-stopped.json")
    browser.screenshot(chromium, page, os.path.join(shots, "report-stopped.png"), height=520)
    drawn = browser.rendered_bars(chromium, page)
    opened = [b for b in drawn["bars"] if b["open"] == "true" and b["section"] == "Gates"]
    assert [b["label"] for b in opened] == ["HostedControlPlane gone"], drawn
    assert opened[0]["width"] > 0 and opened[0]["state"] == "timeout"
    # the gates never reached have no bar
    started = [g["name"] for g in report["gates"] if g["started"]]
    assert [b["label"] for b in drawn["bars"] if b["section"] == "Gates"] == started
    dom = browser.dump_dom(chromium, page)
    assert re.search(r"held by HostedControlPlane clusters-demo-213650/demo-213650 \(finalizers: "
                     r"hypershift.openshift.io/finalizer\)", dom)
    assert "OPEN 60.0 s" in dom
    assert "Stopped: what held it" in dom


def test_fleet_index_page_worst_first_in_the_browser(chromium, tmp_path, shots):
    """The index of the stored reports (one verified, one stopped) as chromium shows it: the stopped one first."""
    found = []
    for name in ("report-verified.json", "report-stopped.json"):
        with open(os.path.join(FIXTURES, name)) as f:
            doc = json.load(f)
        found.append(("%s-%s.html" % (doc["cluster"]["namespace"], doc["cluster"]["name"]), doc))
    index = os.path.join(str(tmp_path), "index.html")
    with open(index, "w") as f:
        f.write(report_html.render_index(found))
    dom = browser.dump_dom(chromium, index)
    assert re.findall(r'<a href="([^"]+)">', dom) == ["clusters-stuck-213650.html", "clusters-demo-213650.html"]
    assert "2 clusters, 1 not verified" in dom
    png = browser.screenshot(chromium, index, os.path.join(str(tmp_path), "index.png"), height=200)
    assert browser.png_size(png) == (1180, 200)


# ------------------------------------------------------------------------------------ the fleet page, for real
def _run(argv, timeout=900, env=None):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


# Out of `make test` (SLOW): two teardowns, one of them held for its whole grace period. Where `make test` covers
# it: the index page written by a real run (molecule hosted_cluster, verify.yml), worst first in chromium
# (test_fleet_index_page_worst_first_in_the_browser above), the ranking (tests/unit/plugins/module_utils/report/
# test_html.py), the inventory plugin's hosts (integration target inventory_hosted_clusters).
@SLOW
def test_a_fleet_run_writes_one_index_page_worst_first(chromium, tmp_path, shots):
    """Two hosted clusters through the inventory plugin in one run, one of them stopped at a gate (its CAPI
    controller down, so its Machines never go): the index lists the stopped one first, and links both pages."""
    ns = "fleetpage-" + uuid.uuid4().hex[:5]
    for name, knobs in (("ok", ["--knob", "aws_infra=false"]),
                        ("stuck", ["--knob", "aws_infra=false", "--knob", "capi=down"])):
        p = _run([SANDBOX, "seed", "hosted-cluster", "--name", name, "--namespace", ns, *knobs], timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
    inv = tmp_path / "fleet.hosted_clusters.yml"
    inv.write_text("plugin: teardown.gates.hosted_clusters\nnamespaces: [%s]\n" % ns)
    reports = tmp_path / "reports"
    env = dict(os.environ, ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED="true")
    p = _run([shutil.which("ansible-playbook") or os.path.join(REPO, ".venv", "bin", "ansible-playbook"),
              "-i", str(inv), os.path.join(REPO, "playbooks", "destroy_hosted_cluster.yml"), "-f", "2",
              "-e", "report_dir=%s" % reports, "-e", "cluster_grace_period=180"], env=env)  # CAPA looks again a minute later
    out = p.stdout + p.stderr
    index = reports / "index.html"
    assert index.exists(), out[-4000:]
    page = index.read_text()
    hrefs = re.findall(r'<a href="([^"]+)">', page)
    assert hrefs == ["%s-stuck.html" % ns, "%s-ok.html" % ns], (hrefs, out[-3000:])
    for h in hrefs:
        assert (reports / h).exists()
    dom = browser.dump_dom(chromium, str(index))
    assert len(re.findall(r"<tr data-rank=", dom)) == 2
    assert "2 clusters, 1 not verified" in dom
    browser.screenshot(chromium, str(index), os.path.join(shots, "report-fleet.png"), height=260)
