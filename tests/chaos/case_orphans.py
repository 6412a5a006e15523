"""Chaos case `orphans` (registered in run.py's CASES; not in the default mix, `--cases orphans` runs it):

`seed orphans` (three orphaned infra IDs, a protected one, a live hosted cluster), then
playbooks/sweep_orphans.yml with sweep_delete through the fault-injecting proxy, with AWS faults on the
run's key; then the faults stop and the same sweep runs again. Invariants:

  finalizer   no PATCH/PUT of ours touches a finalizer (the sweep writes nothing on the management cluster)
  absent      no infra ID the faulty run reported destroyed (verified by ID) is found again by the re-run
  tracked     every ID the seed made for the three orphans is in a sweep's resources (faulty or re-run)
  kept        the protected orphan and the live cluster are never swept, and none of their IDs is deleted
  verified    the fault-free re-run succeeds and every orphan's seeded IDs are gone (plain boto3, by ID)

A faulty run may stop (an unreadable management cluster sweeps nothing; a cleanup cut short fails): that
is allowed, claiming what it did not observe is not.
"""
import json
import os


def _report(report_dir):
    if not os.path.isdir(report_dir):
        return {}
    names = sorted(n for n in os.listdir(report_dir) if n.startswith("orphan-sweep-") and n.endswith(".json"))
    return json.load(open(os.path.join(report_dir, names[-1]))) if names else {}


def guards():
    """What sweep_delete requires (docs/runbook-before-the-first-delete.md), read without faults: the account the
    sandbox's STS answers, the management cluster's kube-system UID (the sandbox's own kubeconfig, not the proxy's:
    the proxy forwards to the same API server), and the account ID as the typed confirmation."""
    import boto3
    from kubernetes import client, config
    sts = boto3.client("sts", endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                       region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
    account = sts.get_caller_identity()["Account"]
    api = config.new_client_from_config(config_file=os.environ["KUBECONFIG"])
    try:
        uid = client.CoreV1Api(api).read_namespace("kube-system").metadata.uid
    finally:
        api.close()
    return {"expected_aws_account_id": account, "expected_management_cluster": uid, "confirm_account": account}


def _present(seed_ids):
    """The seeded IDs still there, looked up by ID with plain boto3 (VPCs, subnets, roles, buckets)."""
    import boto3
    env = {"endpoint_url": os.environ["AWS_ENDPOINT_URL"], "region_name": os.environ.get("AWS_DEFAULT_REGION", "us-east-1")}
    ec2, iam, s3 = boto3.client("ec2", **env), boto3.client("iam", **env), boto3.client("s3", **env)
    left = []
    for t, ids in seed_ids.items():
        for i in ids:
            try:
                if t == "AWS::EC2::VPC" and ec2.describe_vpcs(VpcIds=[i])["Vpcs"]:
                    left.append((t, i))
                elif t == "AWS::EC2::Subnet" and ec2.describe_subnets(SubnetIds=[i])["Subnets"]:
                    left.append((t, i))
                elif t == "AWS::IAM::Role":
                    iam.get_role(RoleName=i)
                    left.append((t, i))
                elif t == "AWS::S3::Bucket":
                    s3.head_bucket(Bucket=i)
                    left.append((t, i))
            except Exception as e:  # noqa: BLE001
                code = getattr(e, "response", {}).get("Error", {}).get("Code", "")
                if not ("NotFound" in code or code in ("NoSuchEntity", "404", "NoSuchBucket")):
                    left.append((t, "%s (lookup failed: %s)" % (i, code or e)))
    return left


def case(run, rng, ctx, h):
    """``h`` is run.py (its proxy, fault and playbook helpers)."""
    workdir, rate = ctx.workdir, ctx.rate
    name = f"co{run['seed']}{run['tag']}"
    seeded = h.seed_scenario("orphans", "--name", name, "--namespace", f"chaos-{name}")
    orphans = seeded["orphans"]
    keep = {seeded["protected"]["infra_id"], seeded["live"]["infra_id"]}
    kept_ids = {i for lst in seeded["protected"]["aws"].values() for i in lst}
    proxy = h.KubeProxy(workdir, run["seed"], rate / 2, ctx.port)
    violations = []
    extra = {"infra_id_prefix": seeded["prefix"], "oidc_bucket": seeded["oidc_bucket"], "min_age": "0",
             "sweep_delete": True, "aws_cleanup_timeout": 180, **guards()}
    try:
        env = dict(ctx.env, KUBECONFIG=proxy.kubeconfig, K8S_AUTH_KUBECONFIG=proxy.kubeconfig)
        run["aws_rules"] = ctx.aws.start(rng, rate / 4, run["seed"])
        try:
            rc1 = h.playbook("sweep_orphans.yml", dict(extra, report_dir=os.path.join(workdir, "faulty")), env,
                             os.path.join(workdir, "faulty.log"), 900)
        finally:
            hits = ctx.aws.hits()
            ctx.aws.stop()
        h.count_aws_faults(run, hits)
        h.count_proxy_faults(run, proxy.entries())
        first = _report(os.path.join(workdir, "faulty"))
        run["faulty_rc"] = rc1
        run["faulty_summary"] = first.get("summary")
        proxy.set_rate(0)
        rc2 = h.playbook("sweep_orphans.yml", dict(extra, report_dir=os.path.join(workdir, "rerun")), env,
                         os.path.join(workdir, "rerun.log"), 900)
        second = _report(os.path.join(workdir, "rerun"))
        run["rerun_rc"] = rc2
        run["rerun_summary"] = second.get("summary")
        destroyed_first = {s["infra_id"] for s in first.get("sweeps") or [] if s.get("outcome") == "destroyed"}
        redeleted = {s["infra_id"] for s in second.get("sweeps") or []
                     if any(r.get("outcome") == "deleted" for r in s.get("resources") or [])}
        for iid in sorted(destroyed_first & redeleted):
            violations.append({"invariant": "absent", "what": f"infra ID {iid}: the faulty run reported it destroyed "
                               "and verified, the re-run found resources of it and deleted them"})
        for doc, tag in ((first, "faulty"), (second, "re-run")):
            for s in doc.get("sweeps") or []:
                if s["infra_id"] in keep:
                    violations.append({"invariant": "kept", "what": f"the {tag} run swept {s['infra_id']}"})
                for r in s.get("resources") or []:
                    if r.get("id") in kept_ids and r.get("outcome") == "deleted":
                        violations.append({"invariant": "kept", "what": f"the {tag} run deleted {r['type']} {r['id']} "
                                           "of the protected orphan"})
        seen = {r.get("id") for doc in (first, second) for s in doc.get("sweeps") or [] for r in s.get("resources") or []}
        for iid, ids in orphans.items():
            for t, lst in ids.items():
                for i in lst:
                    if t != "AWS::Route53::RecordSet" and i not in seen:
                        violations.append({"invariant": "tracked", "what": f"{t} {i} of orphan {iid} is in no sweep's "
                                           "resources"})
        left = [x for ids in orphans.values() for x in _present(ids)]
        if rc2 != 0 or left or not (second.get("summary") or {}).get("verified", False):
            violations.append({"invariant": "verified", "what": f"fault-free re-run rc={rc2}, left by ID: {left[:10]}, "
                               f"summary {str(second.get('summary'))[:300]}"})
        if _present(seeded["protected"]["aws"]) == []:
            violations.append({"invariant": "kept", "what": "the protected orphan's resources are gone"})
        for w in h.finalizer_writes(proxy.entries()):
            violations.append({"invariant": "finalizer", "what": f"{w['method']} {w['path']}: {w['body']}"})
    finally:
        proxy.stop()
    return violations
