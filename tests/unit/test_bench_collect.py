"""benchmarks/collect.py writes issue 10's schema exactly: extra fields go to the details file, a case
missing a field is reported and not met."""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLLECT = os.path.join(REPO, "benchmarks", "collect.py")
FIELDS = ["name", "unit", "ours", "peer", "peer_name", "ratio", "target", "met"]


def collect(tmp_path, lines):
    out = tmp_path / "latest.json"
    proc = subprocess.run([sys.executable, COLLECT, str(out)], input="\n".join(json.dumps(x) for x in lines),
                          capture_output=True, text=True, check=False)
    details = json.loads((tmp_path / "latest-details.json").read_text())
    return proc, json.loads(out.read_text()), details


def case(name, **kw):
    c = {"name": name, "unit": "s", "ours": 1.0, "peer": 4.0, "peer_name": "peer", "ratio": 4.0, "target": 3,
         "met": True}
    c.update(kw)
    return c


def test_schema_is_exact_and_extras_go_to_details(tmp_path):
    proc, doc, details = collect(tmp_path, [[case("a", trials=5)], [case("b", met=False), case("c")]])
    assert proc.returncode == 0, proc.stdout
    assert sorted(doc) == ["cases", "machine"]
    assert [c["name"] for c in doc["cases"]] == ["a", "b", "c"]
    assert all(sorted(c) == sorted(FIELDS) for c in doc["cases"])
    assert details == {"a": {"trials": 5}}
    assert [c["met"] for c in doc["cases"]] == [True, False, True]
    assert doc["machine"]["cpus"] == os.cpu_count()
    table = proc.stdout.splitlines()
    assert table[0].split()[:8] == ["case", "unit", "ours", "peer", "ratio", "target", "met", "peer_name"]
    assert table[2].split()[-2:] == ["NO", "peer"]


def test_a_case_missing_a_field_fails_the_run(tmp_path):
    broken = case("d")
    del broken["peer"]
    proc, doc, dummy = collect(tmp_path, [[broken]])
    assert proc.returncode == 1
    assert "missing peer" in proc.stdout
    assert doc["cases"][0]["met"] is False and doc["cases"][0]["peer"] is None


def test_a_report_only_case_prints_no_verdict(tmp_path):
    proc, doc, dummy = collect(tmp_path, [[case("e", target=None, met=None), case("f", target="text", met=False)]])
    assert proc.returncode == 0, proc.stdout
    rows = proc.stdout.splitlines()[1:3]
    assert rows[0].split()[-2:] == ["-", "peer"]   # no target: neither yes nor NO
    assert rows[1].split()[-2:] == ["NO", "peer"]  # a sentence target still has a verdict
