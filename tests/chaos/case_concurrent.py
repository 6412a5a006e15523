"""Chaos case `concurrent` (registered in run.py's CASES; in the default mix, four times in each 50 runs):

One playbook of playbooks/, the one the campaign's plan gives the run (run.py's plan(): the k-th concurrent
run of a campaign of seed S takes PLAYBOOKS[(S + k) % 5], so any five concurrent runs in a row cover all five;
`--cases concurrent:<playbook>` pins one). Not the run's seed modulo 5: the default mix's concurrent slots
all fall on one residue, and only sweep_orphans ever ran. Its scenario seeded small, then TWO
ansible-playbook runs of it on the same target started at the same time, each with its own report_dir and
log, both through one kubeproxy at rate 0 (no fault: it only logs every request) and no AWS fault. Invariants:

  verified     both runs end rc 0, each report says done/verified, and a direct query agrees (the
               HostedCluster 404, the Releases 404, the stacks DELETE_COMPLETE or gone, the TerraformCluster
               404, the orphans' seeded IDs gone by ID with plain boto3)
  report-true  each report claims only what its run did: nothing one report lists as done by its run
               (deleted, deletion requested, refusal cleared, restored, abandoned) is listed so by the other
               report too, unless both runs really did it: AWS accepts the same delete twice (a NAT gateway
               already deleting, the versions of a bucket two runs emptied at once), so an AWS item both
               reports claim is allowed when each run's own access key sent an accepted request of that
               kind (the AWS layer's log, by key: each run signs with a key of its own); every item of the
               seed's manifest is named in at least one of the two reports
  finalizer    no PATCH/PUT of either run removes or rewrites a finalizer except the documented removal of
               the CLI finalizer openshift.io/destroy-cluster (run.py's finalizer_writes)

What each playbook's report calls "done by this run" differs: the table PLAYBOOKS below holds, per
playbook, how to seed it, its extra vars, where its report is, and what the report claims.
"""
import collections
import glob
import json
import os
import threading
import time

import case_orphans

# what a run must have sent, accepted, for an AWS claim that both runs make: by resource type (an AWS
# cleanup's "deleted <type>") or by refusal class (clear_cfn_refusals' "cleared <class>")
DELETE_ACTIONS = {
    "AWS::EC2::Instance": {"TerminateInstances"}, "AWS::EC2::NatGateway": {"DeleteNatGateway"},
    "AWS::EC2::VPC": {"DeleteVpc"}, "AWS::EC2::Subnet": {"DeleteSubnet"}, "AWS::EC2::RouteTable": {"DeleteRouteTable"},
    "AWS::EC2::SecurityGroup": {"DeleteSecurityGroup"}, "AWS::EC2::InternetGateway": {"DeleteInternetGateway"},
    "AWS::EC2::EIP": {"ReleaseAddress"}, "AWS::EC2::VPCEndpoint": {"DeleteVpcEndpoints"},
    "AWS::EC2::VPCEndpointService": {"DeleteVpcEndpointServiceConfigurations"},
    "AWS::EC2::DHCPOptions": {"DeleteDhcpOptions"}, "AWS::EC2::Volume": {"DeleteVolume"},
    "AWS::ElasticLoadBalancing::LoadBalancer": {"DeleteLoadBalancer"},
    "AWS::ElasticLoadBalancingV2::LoadBalancer": {"DeleteLoadBalancer"},
    "AWS::ElasticLoadBalancingV2::TargetGroup": {"DeleteTargetGroup"},
    "AWS::Route53::RecordSet": {"ChangeResourceRecordSets"}, "AWS::Route53::HostedZone": {"DeleteHostedZone"},
    "AWS::S3::Bucket": {"DeleteBucket"}, "Custom::S3Prefix": {"DeleteObjects", "DeleteObject"},
    "AWS::IAM::Role": {"DeleteRole"}, "AWS::IAM::InstanceProfile": {"DeleteInstanceProfile"},
    "AWS::IAM::ManagedPolicy": {"DeletePolicy"}, "AWS::IAM::OIDCProvider": {"DeleteOpenIDConnectProvider"},
    "BucketNotEmpty": {"DeleteObjects", "DeleteObject"},
    "DeleteConflict": {"DetachRolePolicy", "DeleteRolePolicy", "RemoveRoleFromInstanceProfile", "DetachUserPolicy",
                       "DeletePolicyVersion", "DetachGroupPolicy"},
}


def _aws_sent(key_id):
    """{action: accepted requests} the AWS layer logged for one access key ID."""
    out = {}
    with open(os.environ["SANDBOX_AWS_LOG"]) as f:
        for line in f:
            if key_id in line:
                rec = json.loads(line)
                if rec.get("key_id") == key_id and 200 <= int(rec.get("status") or 0) < 300:
                    out[rec["action"]] = out.get(rec["action"], 0) + 1
    return out


def _both_sent(what_a, what_b, sent):
    """True when the claim names an AWS kind and each run's key sent an accepted request of that kind."""
    kinds = [w.split(" ")[1] for w in (what_a, what_b) if len(w.split(" ")) > 1]
    actions = set().union(*[DELETE_ACTIONS.get(k, set()) for k in kinds]) if kinds else set()
    return bool(actions) and all(any(sent[label].get(a) for a in actions) for label in ("a", "b"))


def _forwarded(workdir, method, path, body_has=None):
    """How many ``method`` requests of ``path`` this case's API proxy forwarded (no fault injected on them), of
    those whose body holds ``body_has`` when it is given."""
    count = 0
    try:
        with open(os.path.join(workdir, "kubeproxy.jsonl")) as f:
            for line in f:
                if path in line:
                    rec = json.loads(line)
                    count += (rec.get("method") == method and rec.get("path") == path and not rec.get("fault")
                              and (body_has is None or body_has in (rec.get("body") or "")))
    except OSError:
        return 0
    return count


PLAYBOOKS = ("destroy_hosted_cluster.yml", "prune_releases.yml", "clear_cfn_refusals.yml",
             "release_held_deletion.yml", "sweep_orphans.yml")


def _load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _k8s_gone(api_version, kind, name, namespace, uid=None):
    """True when a direct read (no proxy) answers 404, or finds another object of the name (another UID)."""
    from kubernetes import client, config, dynamic
    dyn = dynamic.DynamicClient(config.new_client_from_config(os.environ["KUBECONFIG"]))
    try:
        obj = dyn.resources.get(api_version=api_version, kind=kind).get(name=name, namespace=namespace)
    except client.exceptions.ApiException as e:
        if e.status == 404:
            return True
        raise
    return uid is not None and obj.metadata.uid != uid


# --- per playbook: seed, extra vars, report, verdict, claims -------------------------------------------------
# Each row: seed(name) -> (seeded, extra); report(report_dir) -> dict or None; ok(report) -> problem or "";
# claims(report) -> {item: what} done by this run; named(report) -> items it names in any state;
# manifest(seeded) -> the items the seed made; left(seeded) -> what a direct query still finds.

class HostedCluster:
    abbr = "hc"

    def seed(self, h, name, ns):
        seeded = h.seed_scenario("hosted-cluster", "--name", name, "--namespace", ns, "--knob", "nodepools=1",
                                 "--knob", "replicas=1", "--knob", "zones=1", "--knob", "nat_seconds=1",
                                 "--knob", "grace_period=1s", "--knob", "requeue=1s")
        extra = {"hosted_cluster_name": name, "hosted_cluster_namespace": ns, "cluster_grace_period": 300,
                 "aws_cleanup_timeout": 240}
        return seeded, extra

    def report(self, report_dir, seeded):
        return _load(os.path.join(report_dir, "%s-%s.json" % (seeded["namespace"], seeded["name"])))

    def ok(self, report):
        if report.get("verified") is not True:
            return "verified=%s remaining=%s" % (report.get("verified"), str(report.get("remaining"))[:300])
        return ""

    def claims(self, report):
        return {r["id"]: "deleted %s" % r.get("type") for r in (report.get("aws") or {}).get("deleted") or []}

    def named(self, report, h):
        return set(h._report_ids(report))

    def manifest(self, seeded):
        return {i for lst in seeded["aws"].values() for i in lst}

    def left(self, seeded):
        gone = _k8s_gone("hypershift.openshift.io/v1beta1", "HostedCluster", seeded["name"], seeded["namespace"],
                         seeded["uid"])
        return [] if gone else ["HostedCluster %s/%s" % (seeded["namespace"], seeded["name"])]


class Releases:
    abbr = "rl"

    def seed(self, h, name, ns):
        seeded = h.seed_scenario("releases", "--name", name, "--namespace", ns, "--count", "2",
                                 "--knob", "hooks=false")
        return seeded, {"release_namespace": ns, "release_names": seeded["releases"], "timeout": 120}

    def report(self, report_dir, seeded):
        return _load(os.path.join(report_dir, "release_prune-report.json"))

    def ok(self, report):
        ver = report.get("verification") or {}
        if report.get("outcome") != "done" or ver.get("not_deleted") or ver.get("unverified"):
            return "outcome=%s error=%s" % (report.get("outcome"), str(report.get("error"))[:300])
        return ""

    def claims(self, report):
        return {n: "deletion requested" for n in report.get("deletion_requested") or []}

    def named(self, report, h):
        plan = report.get("plan") or {}
        out = {r.get("name") for r in plan.get("releases") or []} | set(plan.get("already_absent") or [])
        out |= {r.get("name") for r in (report.get("verification") or {}).get("releases") or []}
        return out | set(report.get("deletion_requested") or [])

    def manifest(self, seeded):
        return set(seeded["releases"])

    def sent_by_both(self, item, seeded, workdir, claims=None):  # pylint: disable=unused-argument
        """True when this case's API proxy forwarded a DELETE of the Release from each run: two DELETEs of one
        object are both answered (the second finds it deleting), so two reports may each say they requested it."""
        path = "/apis/core.convoy.kumodo.io/v1alpha1/namespaces/%s/releases/%s" % (seeded["namespace"], item)
        return _forwarded(workdir, "DELETE", path) >= 2

    def left(self, seeded):
        return ["Release %s/%s" % (seeded["namespace"], n) for n in seeded["releases"]
                if not _k8s_gone("core.convoy.kumodo.io/v1alpha1", "Release", n, seeded["namespace"])]


class CfnRefusals:
    abbr = "cf"

    def seed(self, h, name, ns):
        seeded = h.seed_scenario("cfn-refusals", "--name", name, "--knob", "classes=bucket,iam")
        arns = [s["arn"] for s in seeded["stacks"].values()]
        return seeded, {"cfn_stacks": arns, "cfn_clear": ["empty_buckets", "detach_iam"], "cfn_wait_timeout": 240,
                        "cfn_poll_interval": 0.5}

    def report(self, report_dir, seeded):
        return _load(os.path.join(report_dir, "cfn_refusals-report.json"))

    def ok(self, report):
        bad = [(s.get("stack"), s.get("status"), s.get("error")) for s in report.get("stacks") or []
               if s.get("status") not in ("DELETE_COMPLETE", "NOT_FOUND") or s.get("error")]
        return ("stacks not deleted: %s" % str(bad)[:400]) if bad or not report.get("stacks") else ""

    def claims(self, report):
        # a refusal this run cleared (bucket emptied, role detached), by physical ID
        return {r.get("physical_id"): "cleared %s (%s)" % (r.get("class"), s.get("stack"))
                for s in report.get("stacks") or [] for r in s.get("refusals") or [] if r.get("action") == "cleared"}

    def named(self, report, h):
        out = set()
        for s in report.get("stacks") or []:
            out |= {s.get("stack"), s.get("stack_id")}
            out |= {r.get("physical_id") for r in (s.get("refusals") or []) + (s.get("retained") or [])}
        return out

    def manifest(self, seeded):
        # the stacks by ARN; a refusal's resource is named only by a run that met it (the other may find
        # the stack already DELETE_COMPLETE), so the refusals count when the stack itself is not DELETE_COMPLETE
        return {s["arn"] for s in seeded["stacks"].values()}

    def left(self, seeded):
        import boto3
        cfn = boto3.client("cloudformation")
        out = []
        for st in seeded["stacks"].values():
            try:
                status = cfn.describe_stacks(StackName=st["arn"])["Stacks"][0]["StackStatus"]
            except Exception as e:  # noqa: BLE001 - "does not exist" is gone; anything else is not known
                status = "gone" if "does not exist" in str(e) else "unknown (%s)" % e
            if status not in ("DELETE_COMPLETE", "gone"):
                out.append("stack %s %s" % (st["name"], status))
        return out


class HeldDeletion:
    abbr = "hd"

    def seed(self, h, name, ns):
        seeded = h.seed_scenario("captf", "--name", name, "--namespace", ns, "--knob", "state=lost")
        return seeded, {"held_namespace": ns, "held_kind": "TerraformCluster", "held_name": name,
                        "prefer_restore": True, "timeout": 180}

    def report(self, report_dir, seeded):
        files = sorted(glob.glob(os.path.join(report_dir, "held-deletion-*.json")))
        # no file: the run found nothing held and did nothing (the role writes one only then); it claims nothing
        return _load(files[-1]) if files else {"no_report": True}

    def ok(self, report):
        if report.get("still_held"):
            return "still held: %s" % [(x.get("name"), x.get("reason")) for x in report["still_held"]]
        return ""

    def claims(self, report):
        out = {n: "restored" for n in report.get("restored") or []}
        out.update({a.get("name"): "abandoned" for a in report.get("abandoned") or []})
        return out

    def named(self, report, h):
        return {p.get("name") for p in report.get("plan") or []} | set(report.get("restored") or [])

    # the owner's annotation each claim stands for (tests/chaos is not the collection: its names are restated here)
    CLAIM_ANNOTATIONS = {"restored": "captf.io/restore-state", "abandoned": "captf.io/abandon-infrastructure"}

    def sent_by_both(self, item, seeded, workdir, claims=("restored", "restored")):
        """True when this case's API proxy forwarded each run's annotation PATCH (``claims``: run a's and run b's):
        two runs that read the held object before either wrote both send it (seed 14039: two restore-state
        PATCHes 0.11 s apart), and each report is then true for its run."""
        path = "/apis/infrastructure.cluster.x-k8s.io/v1alpha1/namespaces/%s/terraformclusters/%s" % (
            seeded["namespace"], item)
        needed = collections.Counter(self.CLAIM_ANNOTATIONS[c] for c in claims)
        return all(_forwarded(workdir, "PATCH", path, body_has=annotation) >= n for annotation, n in needed.items())

    def manifest(self, seeded):
        return {seeded["name"]}

    def left(self, seeded):
        gone = _k8s_gone("infrastructure.cluster.x-k8s.io/v1alpha1", "TerraformCluster", seeded["name"],
                         seeded["namespace"], seeded["uid"])
        return [] if gone else ["TerraformCluster %s/%s" % (seeded["namespace"], seeded["name"])]


class SweepOrphans:
    abbr = "so"

    def seed(self, h, name, ns):
        seeded = h.seed_scenario("orphans", "--name", name, "--namespace", ns)
        return seeded, {"infra_id_prefix": seeded["prefix"], "oidc_bucket": seeded["oidc_bucket"], "min_age": "0",
                        "sweep_delete": True, "aws_cleanup_timeout": 240, **case_orphans.guards()}

    def report(self, report_dir, seeded):
        return case_orphans._report(report_dir) or None

    def ok(self, report):
        s = report.get("summary") or {}
        if not s.get("verified") or s.get("failed") or s.get("unknown"):
            return "summary %s" % str(s)[:400]
        return ""

    def claims(self, report):
        return {r.get("id"): "deleted %s of %s" % (r.get("type"), s.get("infra_id"))
                for s in report.get("sweeps") or [] for r in s.get("resources") or [] if r.get("outcome") == "deleted"}

    def named(self, report, h):
        return {r.get("id") for s in report.get("sweeps") or [] for r in s.get("resources") or []}

    def manifest(self, seeded):
        return {i for ids in seeded["orphans"].values() for t, lst in ids.items() if t != "AWS::Route53::RecordSet"
                for i in lst}

    def left(self, seeded):
        out = ["%s %s" % x for ids in seeded["orphans"].values() for x in case_orphans._present(ids)]
        if not case_orphans._present(seeded["protected"]["aws"]):
            out.append("the protected orphan's resources are gone (it must be kept)")
        return out

    def kept(self, report, seeded):
        keep = {seeded["protected"]["infra_id"], seeded["live"]["infra_id"]}
        return [s["infra_id"] for s in report.get("sweeps") or [] if s.get("infra_id") in keep]


ROWS = {"destroy_hosted_cluster.yml": HostedCluster(), "prune_releases.yml": Releases(),
        "clear_cfn_refusals.yml": CfnRefusals(), "release_held_deletion.yml": HeldDeletion(),
        "sweep_orphans.yml": SweepOrphans()}


def playbook_of(run):
    """The playbook of this run: the one the campaign's plan set in run["playbook"] (run.py's one_run)."""
    name_pb = run.get("playbook")
    if name_pb not in PLAYBOOKS:
        raise ValueError(f"concurrent run {run.get('seed')}: playbook {name_pb!r} is not one of {PLAYBOOKS}"
                         " (the plan sets it: run.py's plan())")
    return name_pb


def case(run, rng, ctx, h):
    """``h`` is run.py (its proxy, seed and playbook helpers)."""
    workdir = ctx.workdir
    name_pb = playbook_of(run)
    row = ROWS[name_pb]
    name = f"cn{row.abbr}{run['seed']}{run['tag']}"
    ns = f"chaos-{name}"
    seeded, extra = row.seed(h, name, ns)
    proxy = h.KubeProxy(workdir, run["seed"], 0, ctx.port)
    violations = []
    results = {}
    try:
        env = dict(ctx.env, KUBECONFIG=proxy.kubeconfig, K8S_AUTH_KUBECONFIG=proxy.kubeconfig)
        start = threading.Barrier(2)

        keys = {label: f"{ctx.key_id}{label.upper()}" for label in ("a", "b")}

        def one(label):
            report_dir = os.path.join(workdir, label)
            start.wait()
            t0 = time.monotonic()
            rc = h.playbook(name_pb, dict(extra, report_dir=report_dir), dict(env, AWS_ACCESS_KEY_ID=keys[label]),
                            os.path.join(workdir, label + ".log"), 1200)
            results[label] = {"rc": rc, "seconds": round(time.monotonic() - t0, 1), "report_dir": report_dir}

        threads = [threading.Thread(target=one, args=(label,), name="concurrent-" + label) for label in ("a", "b")]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for _ in threads:
            h.add_fault(run, "concurrent-run")
        reports = {}
        for label in ("a", "b"):
            res = results.get(label) or {"rc": "no result"}
            rep = row.report(res.get("report_dir", os.path.join(workdir, label)), seeded)
            reports[label] = rep or {}
            claims = row.claims(reports[label]) if rep else {}
            res.update(claims=sorted(claims), log=os.path.join(workdir, label + ".log"))
            if res["rc"] != 0 or rep is None:
                violations.append({"invariant": "verified", "what": f"run {label}: rc={res['rc']}, report "
                                   f"{'missing' if rep is None else 'written'} (log {res['log']})"})
            elif row.ok(rep):
                violations.append({"invariant": "verified", "what": f"run {label}: {row.ok(rep)}"})
            if hasattr(row, "kept"):
                for iid in row.kept(reports[label], seeded):
                    violations.append({"invariant": "verified", "what": f"run {label} swept {iid}, which must be kept"})
        run["concurrent"] = results
        left = row.left(seeded)
        if left:
            violations.append({"invariant": "verified", "what": f"a direct query after both runs finds: {left[:10]}"})
        claims = {label: row.claims(reports[label]) for label in ("a", "b")}
        sent = {label: _aws_sent(keys[label]) for label in ("a", "b")}
        both = sorted(set(claims["a"]) & set(claims["b"]))
        run["claimed_by_both"] = both
        for item in both:
            if _both_sent(claims["a"][item], claims["b"][item], sent):
                continue  # AWS accepted the same delete from each run: each report is true for its run
            if hasattr(row, "sent_by_both") and row.sent_by_both(item, seeded, workdir,
                                                                (claims["a"][item], claims["b"][item])):
                continue  # the API server was sent each run's request
            violations.append({"invariant": "report-true", "what": f"{item}: both reports claim it as done by their "
                               f"run (a: {claims['a'][item]}; b: {claims['b'][item]}), and not both runs sent it"})
        named = row.named(reports["a"], h) | row.named(reports["b"], h)
        for item in sorted(row.manifest(seeded) - named):
            violations.append({"invariant": "report-true", "what": f"{item} of the seed's manifest is named in "
                               "neither report"})
        for w in h.finalizer_writes(proxy.entries(), allowed_removals={h.CLI_FINALIZER}):
            violations.append({"invariant": "finalizer", "what": f"{w['method']} {w['path']}: {w['body']}"})
        run["requests"] = len(proxy.entries())
    finally:
        proxy.stop()
    return violations
