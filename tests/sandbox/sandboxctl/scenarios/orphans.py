"""orphans: what earlier teardowns leave behind in a region, next to what must stay.

Three orphaned infra IDs (`<name>-o1` .. `-o3`: the aws-infra scenario's infrastructure, with no
HostedCluster), one live hosted cluster (`<name>-live`: the hosted-cluster scenario, its HostedCluster
in `namespace` has that spec.infraID) and one protected orphan (`<name>-p1`: aws-infra again, its VPC
tagged `teardown.gates/protected=true`). Every infra ID starts with `<name>-`, so a sweep limited to
that prefix sees these five and nothing another test left.

Everything is created now, so every creation time is seconds old: a sweep with the default min_age
(24 h) finds all of them young; tests pass min_age=0 to sweep them. (moto stamps creation times
itself and the realism layer does not rewrite them; backdating would be a fiction.)

Knobs: zones=1 workers=0 (passed to aws-infra for the orphans), oidc_bucket=sandbox-oidc, orphans=3 (how
many orphaned infra IDs; one is enough where only the run's shape is checked, as through the runner stream),
iam_only=false (true: IAM left without its infrastructure, `iam_only` in the output: `<name>-l1`, a component
role that still trusts its deleted OIDC provider, as `create iam aws` wrote it, which upstream's own mark shows
leaked (rossoctl#930's case); and names that only read like infra IDs, `<name>-u1-node-pool`, another team's
role trusting EC2, and a profile `<name>-u2-worker` holding a role of another name (hypershift#8964's uncertain
class)).
The last line printed is JSON: the infra IDs by role and each orphan's IDs by CloudFormation type.
"""
import uuid

from . import aws_infra, hosted_cluster
from .common import aws

PROTECTED = {"Key": "teardown.gates/protected", "Value": "true"}


def leftover_iam(name, oidc_bucket):
    """IAM without infrastructure: {"leaked": {infra ID: {type: [IDs]}}, "uncertain": [infra IDs]} (knob iam_only)."""
    iam = aws("iam")
    account = aws("sts").get_caller_identity()["Account"]
    region = "us-east-1"
    leaked = f"{name}-l1"
    provider = f"arn:aws:iam::{account}:oidc-provider/{oidc_bucket}.s3.{region}.amazonaws.com/{leaked}"
    role = f"{leaked}-node-pool"
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=aws_infra.oidc_trust(provider))
    iam.create_role(RoleName=f"{name}-u1-node-pool", AssumeRolePolicyDocument=aws_infra.TRUST)
    iam.create_role(RoleName=f"{name}-web", AssumeRolePolicyDocument=aws_infra.TRUST)
    iam.create_instance_profile(InstanceProfileName=f"{name}-u2-worker")
    iam.add_role_to_instance_profile(InstanceProfileName=f"{name}-u2-worker", RoleName=f"{name}-web")
    return {"leaked": {leaked: {"AWS::IAM::Role": [role]}}, "uncertain": [f"{name}-u1", f"{name}-u2"]}


def seed(name=None, namespace=None, knobs=None):
    knobs = dict(knobs or {})
    name = name or "orph-" + uuid.uuid4().hex[:5]
    namespace = namespace or "clusters"
    fwd = {"zones": knobs.get("zones", "1"), "workers": knobs.get("workers", "0"),
           "oidc_bucket": knobs.get("oidc_bucket", "sandbox-oidc")}
    orphans = {}
    for n in range(1, int(knobs.get("orphans", 3)) + 1):
        res = aws_infra.seed(name=f"{name}-o{n}", knobs=fwd)
        orphans[res["infra_id"]] = {t: ids for t, ids in res["aws"].items() if ids}
    protected = aws_infra.seed(name=f"{name}-p1", knobs=fwd)
    vpc = protected["aws"]["AWS::EC2::VPC"][0]
    aws("ec2").create_tags(Resources=[vpc], Tags=[PROTECTED])
    live = hosted_cluster.seed(name=f"{name}-hc", namespace=namespace,
                               knobs={"infra_id": f"{name}-live", "aws_infra": "false", "replicas": "1"})
    iam_only = leftover_iam(name, fwd["oidc_bucket"]) if knobs.get("iam_only") == "true" else {}
    return {"scenario": "orphans", "name": name, "namespace": namespace, "prefix": f"{name}-", "iam_only": iam_only,
            "oidc_bucket": fwd["oidc_bucket"], "orphans": orphans,
            "protected": {"infra_id": protected["infra_id"], "vpc": vpc,
                          "aws": {t: ids for t, ids in protected["aws"].items() if ids}},
            "live": {"infra_id": f"{name}-live", "hosted_cluster": f"{namespace}/{name}-hc",
                     "uid": live["uid"], "oidc_bucket": live.get("oidc_bucket")}}
