"""Every request says who sends it: the API server's audit log (its userAgent) and the AWS layer's log (its
user_agent field, as CloudTrail's userAgent) attribute each call of a module to teardown.gates and the module."""
import json
import os
import subprocess
import sys
import uuid

from privilege import LogTail

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, REPO + "/.venv/collections")
from ansible_collections.teardown.gates.plugins.module_utils.core.bounds import VERSION  # noqa: E402

ANSIBLE = os.path.join(os.path.dirname(sys.executable), "ansible")


def run_module(module, args):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=REPO + "/.venv/collections")
    p = subprocess.run([ANSIBLE, "localhost", "-m", "teardown.gates." + module, "-a", json.dumps(args)],
                       capture_output=True, text=True, env=env, timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-1000:]


def test_the_audit_log_attributes_each_kubernetes_call_to_the_module():
    ns = "ua-" + uuid.uuid4().hex[:6]
    audit = LogTail(os.environ["SANDBOX_AUDIT_LOG"])
    run_module("deletion_info", {"kind": "Namespace", "name": ns})
    agents = [e.get("userAgent", "") for e in audit.lines() if ns in e.get("requestURI", "")]
    assert agents, "no request for %s in the audit log" % ns
    assert set(agents) == {"teardown.gates/%s (deletion_info)" % VERSION}, agents


def test_the_aws_log_attributes_each_call_to_the_module():
    infra_id = "ua-" + uuid.uuid4().hex[:6]
    log = LogTail(os.environ["SANDBOX_AWS_LOG"])
    run_module("aws_infra_inventory", {"infra_id": infra_id})
    records = log.lines(settle=0)
    ours = [r for r in records if "(aws_infra_inventory)" in r.get("user_agent", "")]
    assert ours, "no request of aws_infra_inventory in the AWS log"
    assert all(("teardown.gates/%s (aws_infra_inventory)" % VERSION) in r["user_agent"] for r in ours)
    assert set(r["service"] for r in ours) >= {"ec2", "iam", "s3"}


def test_the_orphan_scan_names_itself_to_aws():
    log = LogTail(os.environ["SANDBOX_AWS_LOG"])
    run_module("aws_orphan_inventory", {"infra_id_prefix": "ua-" + uuid.uuid4().hex[:6], "min_age": 0})
    records = log.lines(settle=0)
    ours = [r for r in records if "(aws_orphan_inventory)" in r.get("user_agent", "")]
    assert ours, "no request of aws_orphan_inventory in the AWS log"
    assert all(("teardown.gates/%s (aws_orphan_inventory)" % VERSION) in r["user_agent"] for r in ours)
    # the scan covers the region: EC2 tags, IAM, Route 53 and S3
    assert set(r["service"] for r in ours) >= {"ec2", "iam", "route53", "s3"}
