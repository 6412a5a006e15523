"""Benchmark: teardown.gates.aws_infra_cleanup vs a re-try-everything loop, on the same seeded infra.

For each scenario (calm; 10% of requests throttled) two identical infra IDs are seeded with the sandbox's
aws-infra seed (3 zones, 2 workers) with durations of the order AWS shows: NAT gateways `deleting` for
45 s, instances `shutting-down` for 20 s, ELB ENIs lingering 50 s after their load balancer. One is cleaned by our module (discovery from the
infra ID included, run through `ansible localhost -m`), the other by benchmarks/baseline_retry_loop.py.
Counted from $SANDBOX_AWS_LOG between marks: every AWS request (retries included), refused requests
(DependencyViolation, InvalidIPAddress.InUse, DeleteConflict, ...), and the command's wall time.
Leftovers are then counted by ID from the seed's own list.

Run with the sandbox's environment (benchmarks/run.sh does that); progress goes to stderr and the last
stdout line is the JSON list of cases. AWS_BENCH_RUNS=N (default 1) repeats each scenario N times and
reports medians; every run's figures go to benchmarks/results/aws_cleanup_runs.json.
"""
import json
import os
import statistics
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
                                 data=json.dumps(body or {}).encode() if method != "GET" else None,
                                 headers={"Content-Type": "application/json"})
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


SEED_TIMEOUT = 300  # s


def seed(name, extra_knobs=()):
    args = [SANDBOX, "seed", "aws-infra", "--name", name]
    for k in KNOBS + list(extra_knobs):
        args += ["--knob", k]
    # bounded like every other call here: a seed that stalls (an AWS layer that accepts and never answers) ends the
    # bench with TimeoutExpired instead of hanging it; a seed takes about 5 s
    out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=SEED_TIMEOUT)
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


PEER_TIMEOUT = 900  # s; a peer still running after this is a failed run, not a hung bench


def command_result(rc, stdout, stderr, parse):
    """A tool's outcome as data: its JSON result, or, when it failed or printed nothing usable, a failure
    record (rc, the end of stderr) that becomes the case's outcome instead of crashing the bench."""
    result = None
    try:
        result = parse(stdout)
    except (ValueError, IndexError):
        pass
    if rc == 0 and isinstance(result, dict):
        return result
    return {"failed": True, "rc": rc, "stderr_tail": (stderr or "")[-800:], "stdout_tail": (stdout or "")[-400:]}


def _run(args, parse):
    t0 = time.monotonic()
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=PEER_TIMEOUT, check=False)
        rc, stdout, stderr = out.returncode, out.stdout, out.stderr
    except subprocess.TimeoutExpired as e:
        rc, stdout, stderr = "timeout after %d s" % PEER_TIMEOUT, e.stdout or "", e.stderr or ""
        stdout, stderr = [x.decode() if isinstance(x, bytes) else x for x in (stdout, stderr)]
    return time.monotonic() - t0, command_result(rc, stdout, stderr, parse)


def _ansible_json(text):
    return json.loads(text[text.index("{"):])


def _last_json_line(text):
    return json.loads(text.strip().splitlines()[-1])


def run_ours(s):
    return _run([ANSIBLE, "localhost", "-m", "teardown.gates.aws_infra_cleanup", "-a", json.dumps({
        "infra_id": s["infra_id"], "base_domain": s["base_domain"], "oidc_bucket": s["oidc_bucket"],
        "wait_timeout": 300})], _ansible_json)


def run_peer(s):
    return _run([PY, os.path.join(HERE, "baseline_retry_loop.py"), "--infra-id", s["infra_id"], "--base-domain",
                 s["base_domain"], "--oidc-bucket", s["oidc_bucket"]], _last_json_line)


def run_hypershift(s):
    # HyperShift's default grace period is none (it polls until killed): bounded here as ours is (wait_timeout)
    return _run([PY, os.path.join(HERE, "hypershift_destroy_model.py"), "--infra-id", s["infra_id"],
                 "--base-domain", s["base_domain"], "--grace-period", "300"], _last_json_line)


HYPERSHIFT = ("hypershift destroy infra + iam aws (model of openshift/hypershift@3ee9615, "
              "benchmarks/hypershift_destroy_model.py)")
# HyperShift's emptyBucket deletes current objects only, so on the versioned registry bucket it never finishes
# (that outcome is kept, "vs hypershift"); the "unversioned registry" pair seeds a bucket it can empty, for ours too
UNVERSIONED = ("registry_versioned=false",)
# each side of a run: key in the run's measurements -> (how to run it, extra seed knobs, its part of the infra ID,
# short: the registry bucket's name, <infraID>-image-registry-<region>-<8 hex>, must fit S3's 63 characters)
SIDES = {
    "ours": (run_ours, (), "ours"),
    "hypershift": (run_hypershift, (), "hypershift"),
    "peer": (run_peer, (), "peer"),
    "ours_unversioned": (run_ours, UNVERSIONED, "ours-u"),
    "hypershift_unversioned": (run_hypershift, UNVERSIONED, "hs-u"),
}
# the comparisons: peer key -> (its name in the cases, case-name suffix, the key of our side it is measured against)
PEERS = {
    "hypershift": (HYPERSHIFT, "vs hypershift", "ours"),
    "hypershift_unversioned": (HYPERSHIFT, "vs hypershift, unversioned registry bucket", "ours_unversioned"),
    "peer": ("re-try-everything loop (benchmarks/baseline_retry_loop.py, 5 s passes)", None, "ours"),
}


def one_run(label, throttle):
    tag = uuid.uuid4().hex[:5]
    measured = {}
    for who, (runner, extra_knobs, short) in SIDES.items():
        s = seed("bench-%s-%s-%s" % ("t" if throttle else "c", short, tag), extra_knobs)
        if throttle:
            control("POST", "realism/faults", {"service": "*", "action": "*", "fault": "throttle", "rate": throttle})
        m = mark()
        wall, result = runner(s)
        counts = since(m)
        control("DELETE", "realism/faults")
        left = leftovers(s)
        # time inside the tool (ours: the module's elapsed; peer: the loop's own clock, both from before the
        # clients are built), and the command's wall time, which for ours includes ansible's start
        ours_side = runner is run_ours
        inside = result.get("elapsed") if ours_side else result.get("seconds")
        measured[who] = dict(counts, wall=round(wall, 2), inside=inside, left=len(left))
        if result.get("failed"):  # the figures of a failed run are not the tool's: only its outcome counts
            measured[who].update(requests=None, refused=None, inside=None, wall=None,
                                 failure={k: result[k] for k in ("rc", "stderr_tail")})
            say("%s/%s FAILED: rc=%s, stderr: %s" % (label, who, result["rc"], result["stderr_tail"][-300:]))
        per_resource = 0
        if ours_side:
            per_resource = max([len(r.get("refusals", [])) for r in result.get("resources", [])] or [0])
            measured[who]["max_refusals_per_resource"] = per_resource
            measured[who]["blockers"] = len({b["id"] for r in result.get("resources", [])
                                             for f in r.get("refusals", []) for b in f.get("blockers", [])})
            measured[who]["verified"] = result.get("verified")
            if not result.get("verified"):
                say("ours did not verify: %s" % (result.get("msg") or "")[:400])
        say("%s/%s: %d requests, %d refused, %d throttled, %.1f s in the tool, %.1f s command, %d left%s" % (
            label, who, counts["requests"], counts["refused"], counts["throttled"], inside or -1, wall, len(left),
            "" if not ours_side else ", verified=%s, max refusals per resource=%d, distinct blockers=%d" % (
                result.get("verified"), per_resource, measured[who]["blockers"])))
    return measured


def _ratio(p, o):
    return round(p / float(o), 2) if o and p is not None else None


def scenario(label, throttle, runs):
    """``runs`` runs of both sides; each figure is the median over the runs, each ratio the median of the
    per-run ratios (both sides of a run share the machine's load at that moment)."""
    rs = [one_run(label, throttle) for _ in range(runs)]
    med = statistics.median

    def fig(who, key):
        vals = [r[who][key] for r in rs if r[who][key] is not None]
        return round(med(vals), 2) if vals else None

    def outcome(who):
        failed = [r[who]["failure"] for r in rs if r[who].get("failure")]
        return "ran %d of %d" % (len(rs), len(rs)) if not failed else \
            "failed in %d of %d runs: %s" % (len(failed), len(rs), failed[-1])

    cases = []
    for who, (peer_name, vs, ours) in PEERS.items():
        cases += peer_cases(rs, who, peer_name, "%s, median of %d%s" % (label, runs, ", " + vs if vs else ""),
                            fig, outcome, ours)
    return cases, rs


def peer_cases(rs, who, peer_name, suffix, fig, outcome, ours="ours"):
    """The five cases of one scenario against one peer (`who`, a key of PEERS), measured against our side `ours`."""
    med = statistics.median

    def ratio(key):
        vals = [_ratio(r[who][key], r[ours][key]) for r in rs]
        vals = [v for v in vals if v is not None]
        return round(med(vals), 2) if vals else None
    req_ratio, ref_ratio = ratio("requests"), ratio("refused")
    inside_ratio, wall_ratio = ratio("inside"), ratio("wall")
    all_left = max(r[ours]["left"] for r in rs)
    all_verified = all(r[ours]["verified"] for r in rs)
    max_refusals = max(r[ours]["max_refusals_per_resource"] for r in rs)
    blockers = max(r[ours]["blockers"] for r in rs)
    cases = [
        {"name": "aws cleanup requests (%s)" % suffix, "unit": "AWS requests", "ours": fig(ours, "requests"),
         "peer": fig(who, "requests"), "peer_name": peer_name, "ratio": req_ratio, "target": 3,
         "met": bool(req_ratio and req_ratio >= 3 and all_left == 0)},
        {"name": "aws cleanup refused requests (%s)" % suffix, "unit": "refused requests", "ours": fig(ours, "refused"),
         "peer": fig(who, "refused"), "peer_name": peer_name, "ratio": ref_ratio,
         "target": "ours: at most 1 refusal per blocked resource (max seen %d, %d distinct blockers)" % (
             max_refusals, blockers),
         "met": max_refusals <= 1},
        {"name": "aws cleanup wall time in the tool (%s)" % suffix, "unit": "s", "ours": fig(ours, "inside"),
         "peer": fig(who, "inside"), "peer_name": peer_name, "ratio": inside_ratio, "target": 1,
         "met": bool(inside_ratio and inside_ratio >= 1)},
        {"name": "aws cleanup whole command (%s; ours includes ansible's start)" % suffix, "unit": "s",
         "ours": fig(ours, "wall"), "peer": fig(who, "wall"), "peer_name": peer_name, "ratio": wall_ratio,
         "target": 1, "met": bool(wall_ratio and wall_ratio >= 1)},
        {"name": "aws cleanup leftovers by ID (%s)" % suffix, "unit": "resources left", "ours": all_left,
         "peer": max(r[who]["left"] for r in rs), "peer_name": peer_name, "ratio": None,
         "target": "0 left and verified by ID in every run", "met": all_left == 0 and all_verified},
    ]
    for case in cases:  # a side that failed is a result: said in every case, and no ratio is claimed from it
        case.update(ours_outcome=outcome(ours), peer_outcome=outcome(who))
        if any(r[ours].get("failure") for r in rs):
            case["met"] = False
    return cases


def main():
    for var in ("SANDBOX_AWS_LOG", "SANDBOX_AWS_CONTROL", "AWS_ENDPOINT_URL"):
        if not os.environ.get(var):
            sys.exit("%s is not set: run with the sandbox's environment (benchmarks/run.sh)" % var)
    runs = int(os.environ.get("AWS_BENCH_RUNS", "1"))
    control("DELETE", "realism/faults")
    # the seed sets the layer's knobs (NAT deleting 45 s, ...) for the whole sandbox: put back what was there,
    # or every benchmark after this one (hosted cluster, fleet) would wait on a 45 s NAT gateway
    knobs_before = control("GET", "realism")["knobs"]
    try:
        calm, calm_runs = scenario("calm", 0, runs)
        throttled, throttled_runs = scenario("10% throttled", 0.1, runs)
    finally:
        control("POST", "realism/knobs", knobs_before)
        control("DELETE", "realism/faults")
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "aws_cleanup_runs.json"), "w") as f:
        json.dump({"knobs": KNOBS, "calm": calm_runs, "throttled_10pct": throttled_runs}, f, indent=2)
    print(json.dumps(calm + throttled))


if __name__ == "__main__":
    main()
