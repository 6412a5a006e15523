# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""teardown_report's driver: store a baseline, or build one cluster's report and write it (JSON, Markdown,
HTML, each 0600 by a rename; the earlier JSON archived) with the folder's index, or write another kind's report
the role assembled (``kind``, ``report``). It sends no Kubernetes request, so it runs without a client and
without a module: ``run(params, check_mode, cwd)`` returns the result, or raises ``ReportError`` (``partial``:
what was built). Two thin adapters call it with the same argument spec (``argument_spec()`` and the constraints
here): the action plugin plugins/action/teardown_report.py, in the controller's worker, and the module's main()."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import fcntl
import json
import os
import re
import tempfile

from ansible_collections.teardown.gates.plugins.module_utils.report import render as rpt
from ansible_collections.teardown.gates.plugins.module_utils.report import html as report_html
from ansible_collections.teardown.gates.plugins.module_utils.report import timeline
from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
from ansible_collections.teardown.gates.plugins.module_utils.core.timestamps import utc_iso
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

# <namespace>-<name>.json, not an archived (.<UTC time>.json) or baseline (.baseline.json) one
_ARCHIVED = re.compile(r"\.(\d{8}T\d{6}\.\d{3}Z(-\d+)?|baseline)\.json$")


def argument_spec():
    """The options of teardown.gates.teardown_report, for the module and the action plugin alike."""
    return dict(
        report_dir=dict(type="path", required=True),
        cluster=dict(type="dict"),
        options=dict(type="dict", default={}),
        gates=dict(type="list", elements="dict", default=[]),
        aws_resources=dict(type="list", elements="dict", default=[]),
        aws_cleanup_ran=dict(type="bool"),
        aws_lookup_ran=dict(type="bool"),
        aws_manifest=dict(type="dict", default={}),
        verification=dict(type="dict", default={}),
        milestones=dict(type="dict", default={}),
        hcp_conditions=dict(type="dict", default={}),
        namespace_retained=dict(type="bool", default=False),
        cli_secrets=dict(type="dict", default={}, no_log=False),  # the Secrets' names and namespace, not their data
        retained=dict(type="list", elements="dict", default=[]),
        stopped=dict(type="dict"),
        taken_over=dict(type="list", elements="dict", default=[]),
        versions=dict(type="dict", default={}),
        plan=dict(type="raw"),
        baseline=dict(type="dict"),
        kind=dict(type="str"),
        report=dict(type="dict"),
        basename=dict(type="str"),
        formats=dict(type="list", elements="str", choices=["json", "md", "html"], default=["json", "md", "html"]),
        rendered=dict(type="dict", default={}),
    )


# a hosted cluster's report (cluster) or another kind's (kind, report, basename)
REQUIRED_ONE_OF = [("cluster", "kind")]
MUTUALLY_EXCLUSIVE = [("cluster", "kind"), ("baseline", "kind")]
REQUIRED_TOGETHER = [("kind", "report", "basename")]


class ReportError(TeardownGatesError):
    """The report cannot be written: bad input (before any write), or a write that failed. ``partial`` holds
    the result keys built before it (the report and its summary, or the files' paths)."""


def _on_disk(cwd, path):
    """Where ``path`` is on disk: a relative one under ``cwd`` (the module's working directory, which the
    action plugin passes), an absolute one or any with ``cwd`` None as it is."""
    return os.path.join(cwd or "", path)


def _lib_versions():
    """python-<library> -> its version, or "not importable". The installed distribution's version is read from its
    metadata, without importing it: the action plugin runs in the controller's worker, where importing kubernetes
    and boto3 would cost about 0.4 CPU-s per report; the import is the fallback."""
    out = {}
    for mod in ("kubernetes", "boto3", "botocore"):
        try:
            from importlib.metadata import version  # pylint: disable=import-outside-toplevel
            out["python-" + mod] = version(mod)
            continue
        except Exception:  # pylint: disable=broad-except
            pass
        try:
            out["python-" + mod] = __import__(mod).__version__
        except Exception:  # pylint: disable=broad-except
            out["python-" + mod] = "not importable"
    return out


def _atomic_write(path, text):
    """Write ``text`` to ``path`` (mode 0600) by a rename, so a reader never sees half a file; the folder is
    created (0700) when missing, as on a first run."""
    d = os.path.dirname(path)
    if not os.path.isdir(d):
        os.makedirs(d, 0o700)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o600)
        os.rename(tmp, path)
    except Exception:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _archive_time(path):
    """The earlier report's own finish time when it has one, else the file's modification time."""
    try:
        with open(path) as f:
            earlier = json.load(f)
        t = rpt.parse_iso(((earlier.get("milestones") or {}).get("finished")))
        if t is not None:
            return t
    except (OSError, ValueError, AttributeError):
        pass
    return datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc)


def write_index(report_dir):
    """Renew index.html from every cluster report in report_dir. A lock keeps the hosts of a fleet run from
    writing it at once: each reads the folder after its own report is written, so the last one sees them all."""
    with open(os.path.join(report_dir, ".index.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            found = []
            for fname in sorted(os.listdir(report_dir)):
                if not fname.endswith(".json") or fname.startswith(".") or _ARCHIVED.search(fname):
                    continue
                try:
                    with open(os.path.join(report_dir, fname)) as f:
                        doc = json.load(f)
                except (OSError, ValueError):
                    continue
                if isinstance(doc, dict) and doc.get("schema") == rpt.SCHEMA and "gates" in doc and "cluster" in doc:
                    found.append((fname[:-5] + ".html", doc))
            path = os.path.join(report_dir, "index.html")
            _atomic_write(path, report_html.render_index(found))
            return path
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def store_baseline(p, check_mode, cwd=None):
    path = os.path.join(p["report_dir"], rpt.base_name(p["cluster"]["namespace"], p["cluster"]["name"]) + ".baseline.json")
    if not check_mode:
        try:
            _atomic_write(_on_disk(cwd, path), json.dumps(p["baseline"], indent=2, sort_keys=True) + "\n")
        except OSError as e:
            raise ReportError("could not store the baseline as %s: %s" % (path, e))
    return dict(changed=False, baseline_path=path)


def input_error(p):
    """The first input error (as the module words it), or None."""
    for key in ("namespace", "name"):
        if not p["cluster"].get(key):
            return "cluster.%s is required: the report files are named <namespace>-<name>" % key
    if not p["report_dir"].strip():
        return "report_dir must not be empty"
    return None


def build(p, check_mode):
    """The report of the module's options (``finished`` now unless given, the library versions added)."""
    milestones = dict(p["milestones"])
    milestones.setdefault("finished", utc_iso())
    versions = dict(_lib_versions(), **p["versions"])
    return rpt.build_report(p["cluster"], p["options"], gates=p["gates"], aws_resources=p["aws_resources"],
                            verification=p["verification"], milestones=milestones,
                            hcp_conditions=p["hcp_conditions"], namespace_retained=p["namespace_retained"],
                            retained=p["retained"], stopped=p["stopped"], versions=versions,
                            check_mode=check_mode, plan=p["plan"], aws_cleanup_ran=p["aws_cleanup_ran"],
                            aws_lookup_ran=p["aws_lookup_ran"], taken_over=p["taken_over"],
                            manifest=p["aws_manifest"], cli_secrets=p["cli_secrets"])


def archive_path(base, json_path):
    """Where the earlier ``json_path`` goes: <base>.<its finish time>.json, with -<n> when that is taken."""
    archived = "%s.%s.json" % (base, rpt.archive_stamp(_archive_time(json_path)))
    n = 1
    while os.path.exists(archived):
        archived = "%s.%s-%d.json" % (base, rpt.archive_stamp(_archive_time(json_path)), n)
        n += 1
    return archived


def run(p, check_mode, cwd=None):
    """The result of one teardown_report task with the validated options ``p`` (a baseline stored, a cluster's
    report or a kind's written; nothing written when ``check_mode``), or ``ReportError``. A relative
    ``report_dir`` is under ``cwd`` (None: the process's working directory); the paths returned are as given."""
    if p["kind"] is not None:
        return write_kind_report(p, check_mode, cwd)
    error = input_error(p)
    if error:
        raise ReportError(error)
    if p["baseline"] is not None:
        return store_baseline(p, check_mode, cwd)
    report = build(p, check_mode)
    base = os.path.join(p["report_dir"], rpt.base_name(p["cluster"]["namespace"], p["cluster"]["name"]))
    json_path, md_path, html_path = base + ".json", base + ".md", base + ".html"
    index_path = os.path.join(p["report_dir"], "index.html")
    archived = None
    if not check_mode:
        disk = _on_disk(cwd, base)
        try:
            if os.path.exists(disk + ".json"):
                earlier = archive_path(disk, disk + ".json")
                os.rename(disk + ".json", earlier)
                archived = base + earlier[len(disk):]
            text = json.dumps(report, indent=2, sort_keys=True) + "\n"
            _atomic_write(disk + ".json", text)
            stored = json.loads(text)  # both renderings are read from the JSON as written, nothing else
            _atomic_write(disk + ".md", rpt.render_markdown(stored, timeline.render_mermaid(timeline.chart(stored))))
            _atomic_write(disk + ".html", report_html.render_html(stored))
            write_index(_on_disk(cwd, p["report_dir"]))
        except OSError as e:
            raise ReportError("could not write the report under %s: %s" % (p["report_dir"], e),
                              partial=dict(report=report, summary=rpt.summary(report)))
    return dict(changed=False, report=report, summary=rpt.summary(report), json_path=json_path,
                markdown_path=md_path, html_path=html_path, index_path=index_path, archived=archived,
                outcome=rpt.outcome(report, md_path, html_path))


# ------------------------------------------------------------------------------------ any kind's report files
FORMATS = ("json", "md", "html")


def kind_error(p):
    """The first error in a kind report's options (as the module words it), or None."""
    try:
        registry.by_name(p["kind"])
    except registry.UnknownKind as e:
        return str(e)
    if not p["basename"].strip() or "/" in p["basename"]:
        return "basename must be a file name without a folder, not %r" % p["basename"]
    if not p["report_dir"].strip():
        return "report_dir must not be empty"
    unasked = sorted(set(p["rendered"]) - set(p["formats"]))
    if unasked:
        return "rendered gives %s, which formats does not ask for" % ", ".join(unasked)
    drawn_here = [f for f in p["formats"] if f in ("md", "html") and f not in p["rendered"]]
    if drawn_here:
        try:
            registry.page_kind(p["kind"])
        except registry.UnknownKind as e:
            return "%s: give its %s in rendered" % (e, " and ".join(drawn_here))
    return None


def kind_texts(report, kind, formats, rendered):
    """format -> text for one kind's report. JSON as the to_nice_json filter writes it (with its newline); the
    Markdown and HTML drawn by the code behind the report_markdown and report_html filters, from the report as
    the JSON holds it, so the three files cannot differ; a format in ``rendered`` is taken as given."""
    text = json.dumps(report, indent=4, sort_keys=True, separators=(",", ": "), default=str) + "\n"
    stored = json.loads(text)
    draw = {"json": lambda: text,
            "md": lambda: report_html.render_markdown(stored, kind),
            "html": lambda: report_html.render_html(stored, kind)}
    return [(f, rendered[f] if f in rendered else draw[f]()) for f in formats]


def write_kind_report(p, check_mode, cwd=None):
    """Write one kind's report as <report_dir>/<basename>.<format> for each format, in one task: each file 0600
    by a rename, the folder created 0700 when missing; nothing in check mode (a role that writes its report in
    check mode runs this task with check_mode: false)."""
    error = kind_error(p)
    if error:
        raise ReportError(error)
    formats = list(dict.fromkeys(p["formats"]))  # each once, in the order asked
    files = dict((f, os.path.join(p["report_dir"], "%s.%s" % (p["basename"], f))) for f in formats)
    if not check_mode:
        try:
            for fmt, text in kind_texts(p["report"], p["kind"], formats, p["rendered"]):
                _atomic_write(_on_disk(cwd, files[fmt]), text)
        except OSError as e:
            raise ReportError("could not write the %s report under %s: %s" % (p["kind"], p["report_dir"], e),
                              partial=dict(files=files))
    # writing a report is bookkeeping, not a change to what the role is about
    return dict(changed=False, files=files)
