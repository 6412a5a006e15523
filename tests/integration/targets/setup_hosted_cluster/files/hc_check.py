#!/usr/bin/env python
"""Independent checks for hosted-cluster teardown tests: plain boto3 and the sandbox's logs, never the
collection's own code (a test that reused our inventory or cleanup code could not catch its bugs).
`aws`, `mark` and `mutations` are setup_helpers' sandbox_checks.py (the one copy: this target needs that one);
the hosted-cluster commands are here. A seeded cluster's knobs are the sandbox's own command,
`sandbox knob NAME NAMESPACE KEY [VALUE]`, which also (un)pauses the CAPI objects for capi and capa.

  hc_check.py aws SEED_JSON [--preserve-iam]
  hc_check.py mark
  hc_check.py mutations AUDIT_LINE AWS_LINE [--aws-key KEY_ID] NAMESPACE...
      as sandbox_checks.py says: the seed's AWS IDs looked up by ID (absent, terminal, present, unknown,
      iam_retained); the logs' line counts; the mutating requests after those marks.
  hc_check.py hc NAME NAMESPACE
      JSON {"present": bool, "deleting": bool, "finalizers": [...]} of the HostedCluster (a failed read exits 1).
  hc_check.py layer-knob KEY [VALUE]
      read (or set) a knob of the sandbox's AWS realism layer; prints the layer's knobs as JSON.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "setup_helpers", "files"))
import sandbox_checks  # noqa: E402  pylint: disable=wrong-import-position


def hosted_cluster(name, namespace):
    from kubernetes import client as kclient, config as kconfig
    kconfig.load_kube_config()
    try:
        hc = kclient.CustomObjectsApi().get_namespaced_custom_object(
            "hypershift.openshift.io", "v1beta1", namespace, "hostedclusters", name)
    except kclient.ApiException as e:
        if e.status == 404:
            return {"present": False, "deleting": False, "finalizers": []}
        raise
    md = hc["metadata"]
    return {"present": True, "deleting": bool(md.get("deletionTimestamp")), "finalizers": md.get("finalizers") or []}


def layer_knob(key, value):
    import urllib.request
    url = os.environ["SANDBOX_AWS_CONTROL"] + "/realism"
    if value is not None:
        req = urllib.request.Request(url + "/knobs", data=json.dumps({key: float(value)}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).read()
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)["knobs"]


def main(argv):
    cmd = argv[1]
    if cmd in ("aws", "mark", "mutations"):
        sandbox_checks.main(argv)
    elif cmd == "hc":
        print(json.dumps(hosted_cluster(argv[2], argv[3])))
    elif cmd == "layer-knob":
        print(json.dumps(layer_knob(argv[2], argv[3] if len(argv) > 3 else None)))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
