#!/usr/bin/env python
"""Count DELETE requests on convoy Releases and Clusters in a namespace from the API server's audit log.

usage: audit_deletes.py NAMESPACE [SINCE_LINE]   prints JSON {"lines": N, "deletes": [...]}
"""
import json
import os
import sys

ns = sys.argv[1]
since = int(sys.argv[2]) if len(sys.argv) > 2 else 0
deletes, n = [], 0
with open(os.environ["SANDBOX_AUDIT_LOG"]) as f:
    for n, line in enumerate(f, 1):
        if n <= since:
            continue
        e = json.loads(line)
        ref = e.get("objectRef") or {}
        if (e.get("stage") == "ResponseComplete" and e.get("verb") in ("delete", "deletecollection", "patch", "update", "create")
                and ref.get("namespace") == ns and ref.get("resource") in ("releases", "clusters")
                and not ref.get("subresource")):
            deletes.append({"verb": e["verb"], "resource": ref["resource"], "name": ref.get("name")})
print(json.dumps({"lines": n, "mutations": deletes}))
