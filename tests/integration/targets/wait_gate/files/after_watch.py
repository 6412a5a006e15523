#!/usr/bin/env python
"""Run a shell command once the audit log shows a watch on NAMESPACE/NAME (the module under test
has listed and is watching), so a background change never races the module's first list.
usage: after_watch.py NAMESPACE NAME|label=SELECTOR SHELL_COMMAND

A watch counts while it is open: its ResponseStarted line is logged and its ResponseComplete line
(written when the watching client goes) is not. The log is read from a little before this script
started, since the module under test may start watching before this script runs (this script
starts in an async job); a watch of an earlier task is already complete, so it does not count."""
import json
import os
import subprocess
import sys
import time

LOOKBACK = 1 << 20  # bytes of log before this script's start: several seconds of this target's requests

ns, target, command = sys.argv[1], sys.argv[2], sys.argv[3]
needle = ("labelSelector=" + target[len("label="):].replace("=", "%3D")) if target.startswith("label=") \
    else "fieldSelector=metadata.name%3D" + target
log = os.environ["SANDBOX_AUDIT_LOG"]
pos = max(0, os.path.getsize(log) - LOOKBACK)
partial = pos > 0  # the first line read may be cut: skip it
open_watches = set()
end = time.time() + 30
seen = False
while time.time() < end and not seen:
    with open(log) as f:
        f.seek(pos)
        while True:
            line = f.readline()
            if not line.endswith("\n"):
                break  # not written completely yet: read it again next time
            pos = f.tell()
            if partial:
                partial = False
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if ev.get("verb") == "watch" and (ev.get("objectRef") or {}).get("namespace") == ns \
                    and needle in ev.get("requestURI", ""):
                if ev.get("stage") == "ResponseStarted":
                    open_watches.add(ev.get("auditID"))
                else:
                    open_watches.discard(ev.get("auditID"))
    seen = bool(open_watches)
    if not seen:
        time.sleep(0.1)
time.sleep(0.3)
print("watch seen" if seen else "no watch seen in 30 s; running anyway")
sys.exit(subprocess.call(command, shell=True))
