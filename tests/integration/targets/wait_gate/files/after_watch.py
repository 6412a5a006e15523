#!/usr/bin/env python
"""Run a shell command once the audit log shows a watch on NAMESPACE/NAME (the module under test
has listed and is watching), so a background change never races the module's first list.
usage: after_watch.py NAMESPACE NAME|label=SELECTOR SHELL_COMMAND"""
import json
import os
import subprocess
import sys
import time

ns, target, command = sys.argv[1], sys.argv[2], sys.argv[3]
needle = ("labelSelector=" + target[len("label="):].replace("=", "%3D")) if target.startswith("label=") \
    else "fieldSelector=metadata.name%3D" + target
log = os.environ["SANDBOX_AUDIT_LOG"]
start = os.path.getsize(log)
end = time.time() + 30
seen = False
while time.time() < end and not seen:
    with open(log) as f:
        f.seek(start)
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if ev.get("verb") == "watch" and (ev.get("objectRef") or {}).get("namespace") == ns \
                    and needle in ev.get("requestURI", ""):
                seen = True
                break
    time.sleep(0.1)
time.sleep(0.3)
print("watch seen" if seen else "no watch seen in 30 s; running anyway")
sys.exit(subprocess.call(command, shell=True))
