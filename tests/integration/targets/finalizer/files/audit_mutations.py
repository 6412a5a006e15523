#!/usr/bin/env python
"""Print how many mutating requests the audit log holds for objects named NAME (optionally
only from a user agent containing AGENT): verbs create, update, patch, delete, deletecollection."""
import json
import os
import sys

name = sys.argv[1]
agent = sys.argv[2] if len(sys.argv) > 2 else ""
count = 0
with open(os.environ["SANDBOX_AUDIT_LOG"]) as f:
    for line in f:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("verb") not in ("create", "update", "patch", "delete", "deletecollection"):
            continue
        if (ev.get("objectRef") or {}).get("name") != name:
            continue
        if agent and agent not in (ev.get("userAgent") or ""):
            continue
        count += 1
print(count)
