"""A real headless browser for the report pages' tests: Debian's chromium, installed here when it is missing.

`ensure_chromium()` returns the browser's path, installing the package with apt-get when it is missing and we
are root (the test setup's job, so a fresh machine needs no hand step); otherwise it returns None with the
reason, and the caller SKIPS with that reason. Never passes silently.

`rendered_bars(page)` loads the report page in an iframe of a small harness page and reads, in the browser,
each bar's laid-out box (getBoundingClientRect) and each milestone line, then dumps the DOM: the geometry is what
the browser drew, not what our renderer meant to draw.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

CANDIDATES = ("chromium", "chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-dev-shm-usage", "--allow-file-access-from-files", "--virtual-time-budget=5000"]

HARNESS = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="page" src="%s" width="1200" height="3000" style="border:0"></iframe>
<pre id="measured"></pre>
<script>
document.getElementById("page").addEventListener("load", function () {
  var d = this.contentDocument, out = {bars: [], milestones: [], svg: null};
  var svg = d.getElementById("timeline");
  if (svg) { var s = svg.getBoundingClientRect(); out.svg = {x: s.left, width: s.width}; }
  d.querySelectorAll("rect.bar").forEach(function (r) {
    var b = r.getBoundingClientRect();
    out.bars.push({section: r.getAttribute("data-section"), label: r.getAttribute("data-label"),
                   open: r.getAttribute("data-open"), state: r.getAttribute("data-state"),
                   x: b.left, width: b.width, visible: b.height > 0});
  });
  d.querySelectorAll("line[data-milestone]").forEach(function (l) {
    out.milestones.push({label: l.getAttribute("data-milestone"), x: l.getBoundingClientRect().left});
  });
  document.getElementById("measured").textContent = JSON.stringify(out);
});
</script></body></html>
"""


def find_chromium():
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def ensure_chromium():
    """(path, None) or (None, why it cannot be had here)."""
    path = find_chromium()
    if path:
        return path, None
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return None, "chromium is not installed and this is not a root Debian shell: apt-get install chromium"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]
    p = subprocess.run(install, capture_output=True, text=True, env=env, timeout=900)
    if p.returncode != 0:  # a fresh image has no package lists yet
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, text=True, env=env, timeout=600)
        p = subprocess.run(install, capture_output=True, text=True, env=env, timeout=900)
    path = find_chromium()
    if path:
        return path, None
    return None, "apt-get install chromium failed: %s" % (p.stderr or p.stdout)[-400:]


def _run(browser, args, timeout=120):
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        p = subprocess.run([browser, *FLAGS, "--user-data-dir=" + profile, *args], capture_output=True, text=True,
                           timeout=timeout)
    return p


def screenshot(browser, page, png, width=1180, height=900):
    p = _run(browser, ["--window-size=%d,%d" % (width, height), "--screenshot=" + png, "file://" + page])
    assert os.path.exists(png) and os.path.getsize(png) > 0, "no screenshot: %s" % p.stderr[-2000:]
    return png


def dump_dom(browser, page):
    p = _run(browser, ["--dump-dom", "file://" + page])
    assert p.returncode == 0 and "<html" in p.stdout, "dump-dom failed: %s" % p.stderr[-2000:]
    return p.stdout


def rendered_bars(browser, page):
    """What the browser laid out: {"svg": {x, width}, "bars": [...], "milestones": [...]}, in CSS pixels."""
    harness = os.path.join(os.path.dirname(page), ".harness-%s.html" % os.path.basename(page))
    with open(harness, "w") as f:
        f.write(HARNESS % os.path.basename(page))
    try:
        dom = dump_dom(browser, harness)
    finally:
        os.unlink(harness)
    m = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert m and m.group(1).strip(), "the harness measured nothing: %s" % dom[-1500:]
    text = m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return json.loads(text)


def png_size(png):
    """(width, height) from the PNG header."""
    with open(png, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
