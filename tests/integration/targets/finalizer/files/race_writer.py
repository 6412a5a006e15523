#!/usr/bin/env python
"""A controller stand-in: for SECONDS, add its own finalizers to a ConfigMap as fast as it can,
alternately at the front (shifting every index) and at the end; print the JSON list it added."""
import json
import sys
import time

from kubernetes import config, dynamic

ns, name, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
dc = dynamic.DynamicClient(config.new_client_from_config())
cm = dc.resources.get(api_version="v1", kind="ConfigMap")
added = []
end = time.time() + seconds
i = 0
while time.time() < end:
    value = "writer.example.com/f-%d" % i
    path = "/metadata/finalizers/0" if i % 2 == 0 else "/metadata/finalizers/-"
    try:
        cm.patch(name=name, namespace=ns, body=[{"op": "add", "path": path, "value": value}],
                 content_type="application/json-patch+json")
        added.append(value)
    except Exception as e:  # pragma: no cover - reported, the test then fails on the count
        print("writer error: %s" % e, file=sys.stderr)
    i += 1
    time.sleep(0.02)
print(json.dumps(added))
