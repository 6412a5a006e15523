"""Benchmark: teardown.gates.aws_infra_cleanup vs a re-try-everything loop, on the same seeded infra.

For each scenario (calm; 10% of requests throttled) two identical infra IDs are seeded with the sandbox's
aws-infra seed (3 zones, 2 workers) with durations of the order AWS shows: NAT gateways `deleting` for
45 s, instances `shutting-down` for 20 s, ELB ENIs lingering 50 s after their load balancer. One is cleaned by our module (discovery from the
infra ID included, run through `ansible localhost -m`), the other by benchmarks/baseline_retry_loop.py.
Counted from $SANDBOX_AWS_LOG between marks: every AWS request (retries included), refused requests
(DependencyViolation, InvalidIPAddress.InUse, DeleteConflict, ...), and the command's wall time.
Leftovers are then counted by ID from the seed's own list.

Run with the sandbox's environment (benchmarks/run.sh does that); progress goes to stderr and the last
stdout line is the JSON list of cases.
"""
import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid

import boto3

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SANDBOX = os.path.join(REPO, "tests", "sandbox", "sandbox")
PY = os.path.join(REPO, ".venv", "bin", "python")
ANSIBLE = os.path.join(REPO, ".venv", "bin", "ansible")
REFUSALS = {"DependencyViolation", "InvalidIPAddress.InUse", "DeleteConflict", "HostedZoneNotEmpty",
            "BucketNotEmpty", "CannotDelete", "InvalidNetworkInterface.InUse"}
KNOBS = ["nat_deleting_seconds=45", "instance_shutting_down_seconds=20", "elb_eni_linger_seconds=50"]


def say(msg):
    print("[bench_aws_cleanup %s] %s" % (time.strftime("%H:%M:%S", time.gmtime()), msg), file=sys.stderr, flush=True)


def control(method, path, body=None):
    req = urllib.request.Request(os.environ["SANDBOX_AWS_CONTROL"] + "/" + path, method=method,
                                 data=json.dumps(body or {}).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def mark():
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        return sum(1 for _ in f)


def since(n):
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        rows = [json.loads(line) for line in f.readlines()[n:]]
    return {"requests": len(rows), "refused": sum(1 for r in rows if r.get("error_code") in REFUSALS),
            "throttled": sum(1 for r in rows if (r.get("injected") or "").endswith(":throttle"))}


def seed(name):
    args = [SANDBOX, "seed", "aws-infra", "--name", name]
    for k in KNOBS:
        args += ["--knob", k]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def leftovers(seeded):
    """Resources of the seed still present (or not terminal), looked up by ID."""
    ec2 = boto3.client("ec2", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
    iam = boto3.client("iam", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
    a = seeded["aws"]
    left = []
    left += [v["VpcId"] for v in ec2.describe_vpcs(Filters=[{"Name": "vpc-id", "Values": a["AWS::EC2::VPC"]}])["Vpcs"]]
    left += [s["SubnetId"] for s in ec2.describe_subnets(Filters=[{"Name": "subnet-id", "Values": a["AWS::EC2::Subnet"]}])["Subnets"]]
    left += [g["GroupId"] for g in ec2.describe_security_groups(
        Filters=[{"Name": "group-id", "Values": a["AWS::EC2::SecurityGroup"]}])["SecurityGroups"]]
    left += [e["AllocationId"] for e in ec2.describe_addresses(
        Filters=[{"Name": "allocation-id", "Values": a["AWS::EC2::EIP"]}])["Addresses"]]
    left += [d["DhcpOptionsId"] for d in ec2.describe_dhcp_options(
        Filters=[{"Name": "dhcp-options-id", "Values": a["AWS::EC2::DHCPOptions"]}])["DhcpOptions"]]
    roles = {r["RoleName"] for r in iam.list_roles()["Roles"]}
    left += [r for r in a["AWS::IAM::Role"] if r in roles]
    return left


def run_ours(s):
    args = [ANSIBLE, "localhost", "-m", "teardown.gates.aws_infra_cleanup", "-a", json.dumps({
        "infra_id": s["infra_id"], "base_domain": s["base_domain"], "oidc_bucket": s["oidc_bucket"],
        "wait_timeout": 300})]
    t0 = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    text = out.stdout
    result = json.loads(text[text.index("{"):]) if "{" in text else {}
    return wall, result


def run_peer(s):
    args = [PY, os.path.join(HERE, "baseline_retry_loop.py"), "--infra-id", s["infra_id"], "--base-domain",
            s["base_domain"], "--oidc-bucket", s["oidc_bucket"]]
    t0 = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    return wall, json.loads(out.stdout.strip().splitlines()[-1])


def scenario(label, throttle):
    tag = uuid.uuid4().hex[:5]
    measured = {}
    for who, runner in (("ours", run_ours), ("peer", run_peer)):
        s = seed("bench-%s-%s-%s" % (label, who, tag))
        if throttle:
            control("POST", "realism/faults", {"service": "*", "action": "*", "fault": "throttle", "rate": throttle})
        m = mark()
        wall, result = runner(s)
        counts = since(m)
        control("DELETE", "realism/faults")
        left = leftovers(s)
        # time inside the tool (ours: the module's elapsed; peer: the loop's own clock), and the command's
        # wall time, which for ours includes ansible's start (a few seconds)
        inside = result.get("elapsed") if who == "ours" else result.get("seconds")
        measured[who] = dict(counts, wall=round(wall, 2), inside=inside, left=len(left), result=result)
        per_resource = 0
        if who == "ours":
            per_resource = max([len(r.get("refusals", [])) for r in result.get("resources", [])] or [0])
            measured[who]["max_refusals_per_resource"] = per_resource
            measured[who]["blockers"] = len({b["id"] for r in result.get("resources", [])
                                             for f in r.get("refusals", []) for b in f.get("blockers", [])})
            measured[who]["verified"] = result.get("verified")
        say("%s/%s: %d requests, %d refused, %d throttled, %.1f s in the tool, %.1f s command, %d left%s" % (
            label, who, counts["requests"], counts["refused"], counts["throttled"], inside or -1, wall, len(left),
            "" if who == "peer" else ", verified=%s, max refusals per resource=%d, distinct blockers=%d" % (
                result.get("verified"), per_resource, measured[who]["blockers"])))
    o, p = measured["ours"], measured["peer"]
    req_ratio = round(p["requests"] / float(o["requests"]), 2) if o["requests"] else None
    ref_ratio = round(p["refused"] / float(o["refused"]), 2) if o["refused"] else None
    wall_ratio = round(p["wall"] / o["wall"], 2) if o["wall"] else None
    inside_ratio = round(p["inside"] / o["inside"], 2) if o["inside"] and p["inside"] else None
    peer_name = "re-try-everything loop (benchmarks/baseline_retry_loop.py, 5 s passes)"
    return [
        {"name": "aws_cleanup_requests_%s" % label, "unit": "requests", "ours": o["requests"], "peer": p["requests"],
         "peer_name": peer_name, "ratio": req_ratio, "target": ">= 3x fewer requests",
         "met": bool(req_ratio and req_ratio >= 3 and o["left"] == 0)},
        {"name": "aws_cleanup_refused_%s" % label, "unit": "refused requests", "ours": o["refused"], "peer": p["refused"],
         "peer_name": peer_name, "ratio": ref_ratio,
         "target": "at most one refusal per blocked resource (ours: %d distinct blockers)" % o["blockers"],
         "met": o["max_refusals_per_resource"] <= 1},
        {"name": "aws_cleanup_wall_time_%s" % label, "unit": "s (inside the tool)", "ours": o["inside"],
         "peer": p["inside"], "peer_name": peer_name, "ratio": inside_ratio, "target": "no more wall time (ratio >= 1)",
         "met": bool(inside_ratio and inside_ratio >= 1)},
        {"name": "aws_cleanup_command_time_%s" % label, "unit": "s (whole command, ours includes ansible's start)",
         "ours": o["wall"], "peer": p["wall"], "peer_name": peer_name, "ratio": wall_ratio,
         "target": "no more wall time (ratio >= 1)", "met": bool(wall_ratio and wall_ratio >= 1)},
        {"name": "aws_cleanup_leftovers_%s" % label, "unit": "resources left", "ours": o["left"], "peer": p["left"],
         "peer_name": peer_name, "ratio": None, "target": "0 left, verified by ID",
         "met": o["left"] == 0 and bool(o["verified"])},
    ]


def main():
    for var in ("SANDBOX_AWS_LOG", "SANDBOX_AWS_CONTROL", "AWS_ENDPOINT_URL"):
        if not os.environ.get(var):
            sys.exit("%s is not set: run with the sandbox's environment (benchmarks/run.sh)" % var)
    control("DELETE", "realism/faults")
    cases = scenario("calm", 0) + scenario("throttled10", 0.1)
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
