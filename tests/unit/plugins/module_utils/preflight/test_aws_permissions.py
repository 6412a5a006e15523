# -*- coding: utf-8 -*-
"""The AWS permission preflight (#33): which actions a kind declares (each one in the shipped IAM policy), the ARN the
simulation takes for a caller, the reading of the simulation's and DryRun's answers, and the whole check against a
scripted AWS (a fake below the Clients, which still apply the check-mode guard): nothing unchecked is ever allowed."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
from fnmatch import fnmatch

import re

import botocore
import botocore.exceptions
import botocore.session
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import orphans
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import Clients
from ansible_collections.teardown.gates.plugins.module_utils.cfn.classify import CLEAR_CHOICES
from ansible_collections.teardown.gates.plugins.module_utils.kinds import cfn, hosted_cluster, orphan_sweep
from ansible_collections.teardown.gates.plugins.module_utils.preflight import aws_permissions as ap

REPO = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..")
POLICY = os.path.join(REPO, ap.POLICY_FILE)


def policy_actions(sids=None):
    """The actions the shipped policy grants (in the statements ``sids`` only, when given)."""
    with open(POLICY) as f:
        doc = json.load(f)
    out = set()
    for st in doc["Statement"]:
        if sids is None or st.get("Sid") in sids:
            out.update([st["Action"]] if isinstance(st["Action"], str) else st["Action"])
    return out


def every_declared_action():
    return set(hosted_cluster.aws_actions()) | set(orphan_sweep.aws_actions(True)) | set(
        cfn.aws_actions(CLEAR_CHOICES, True))


def test_every_declared_action_is_in_the_shipped_policy():
    granted = policy_actions()
    missing = sorted(a for a in every_declared_action() if not any(fnmatch(a.lower(), g.lower()) for g in granted))
    assert not missing, "declared by a kind but not granted by %s: %s" % (ap.POLICY_FILE, missing)
    assert "iam:SimulatePrincipalPolicy" in granted  # the preflight's own check


def test_the_declarations_hold_the_deletes_and_are_shaped_by_the_options():
    assert "ec2:DeleteVpc" in hosted_cluster.aws_actions() and "ec2:DescribeVpcs" in hosted_cluster.aws_actions()
    assert "ec2:DeleteVpc" not in orphan_sweep.aws_actions(sweep_delete=False)
    assert "ec2:DeleteVpc" in orphan_sweep.aws_actions(sweep_delete=True)
    assert "ec2:DescribeTags" in orphan_sweep.aws_actions(sweep_delete=False)
    assert "s3:DeleteObjectVersion" not in cfn.aws_actions()
    assert "s3:DeleteObjectVersion" in cfn.aws_actions(["empty_buckets"])
    assert "cloudformation:UpdateTerminationProtection" in cfn.aws_actions(disable_termination_protection=True)
    assert set(cfn.AWS_REMEDY_ACTIONS) == set(CLEAR_CHOICES) | {"disable_termination_protection"}


# The destroy's AWS cleanup is what the hosted_cluster kind declares: every request its code sends must be declared,
# or the preflight passes a caller who then fails between two deletes. Its calls are written three ways: ("svc", "op"),
# an EC2 probe's describe (_ec2_probe("op", ...)) and an IAM listing (_iam_list(ex, "op", ...)); the revokes name
# their direction in a format (revoke_security_group_%s)
CLEANUP_CODE = ("blockers", "deletes", "execute", "inventory", "probes")
CALL = re.compile(r'"(ec2|elbv2|elb|iam|route53|s3)",\s*"([a-z0-9_]+)"|_ec2_probe\(\s*"([a-z0-9_]+)"'
                  r'|_iam_list\(\s*ex,\s*"([a-z0-9_]+)"|"(revoke_security_group)_%s"')
IAM_PREFIX = {"elb": "elasticloadbalancing", "elbv2": "elasticloadbalancing"}
# S3 operations whose IAM action has another name (AWS's "Actions, resources, and condition keys for Amazon S3")
S3_ACTIONS = {"ListBuckets": "s3:ListAllMyBuckets", "ListObjectVersions": "s3:ListBucketVersions",
              "ListObjectsV2": "s3:ListBucket", "DeleteObjects": "s3:DeleteObject"}


def cleanup_calls():
    """{(client, operation)} the cleanup's code sends, read from its source."""
    calls = set()
    for name in CLEANUP_CODE:
        with open(os.path.join(REPO, "plugins", "module_utils", "aws", name + ".py")) as f:
            for svc, op, ec2_op, iam_op, revoke in CALL.findall(f.read()):
                if svc:
                    calls.add((svc, op))
                elif ec2_op:
                    calls.add(("ec2", ec2_op))
                elif iam_op:
                    calls.add(("iam", iam_op))
                else:
                    calls.update([("ec2", revoke + "_ingress"), ("ec2", revoke + "_egress")])
    return calls


def iam_action(session, service, operation):
    api = dict((botocore.xform_name(n), n) for n in session.get_service_model(service).operation_names)[operation]
    if service == "s3" and api in S3_ACTIONS:
        return S3_ACTIONS[api]
    return "%s:%s" % (IAM_PREFIX.get(service, service), api)


def test_the_hosted_cluster_kind_declares_every_action_its_cleanup_sends():
    session = botocore.session.get_session()
    calls = cleanup_calls()
    sent = set(iam_action(session, svc, op) for svc, op in calls)
    # the scan finds the calls (a refactor that hides them must update CALL), the volumes' among them
    assert len(calls) > 50 and {"ec2:DeleteVolume", "ec2:DescribeVolumes", "ec2:RevokeSecurityGroupEgress"} <= sent
    missing = sorted(sent - set(hosted_cluster.aws_actions()))
    assert not missing, "sent by the cleanup but not declared by kinds/hosted_cluster.py: %s" % missing


class Recorder(object):
    """A client wrapper that answers every call with nothing found and records it."""

    def __init__(self, answers):
        self.answers, self.sent = answers, set()

    def call(self, service, operation, **kw):
        self.sent.add((service, operation))
        answer = self.answers.get((service, operation), {})
        return answer(**kw) if callable(answer) else answer


def test_the_orphan_sweep_kind_declares_every_action_its_scan_sends():
    # one resource of each EC2 type DescribeTags can name, so that each is looked up by ID (volumes among them)
    tags = {"Tags": [{"Key": "kubernetes.io/cluster/inf-a", "Value": "owned", "ResourceType": kind, "ResourceId": kind}
                     for kind in orphans.EC2_TYPES]}
    c = Recorder({("ec2", "describe_tags"): lambda Filters: tags if Filters[0]["Name"] == "value" else {},
                  ("route53", "list_hosted_zones"): {"HostedZones": [{"Id": "/hostedzone/Z1", "Config": {"PrivateZone": True}}]},
                  ("s3", "list_buckets"): {"Buckets": [{"Name": "inf-a-image-registry-us-east-1-x"}]}})
    orphans.scan_region(c, oidc_bucket="oidc")
    session = botocore.session.get_session()
    sent = set(iam_action(session, svc, op) for svc, op in c.sent)
    assert {"ec2:DescribeVolumes", "ec2:DescribeInstances", "route53:ListTagsForResource", "s3:GetBucketTagging"} <= sent
    missing = sorted(sent - set(orphan_sweep.aws_actions(sweep_delete=False)))
    assert not missing, "sent by the orphan scan but not declared by kinds/orphan_sweep.py: %s" % missing


def test_the_cleanup_statements_grant_what_the_hosted_cluster_kind_declares():
    # extensions/iam/README.md: InventoryAndVerify and InfraCleanup are what a sweep that deletes attaches
    granted = policy_actions(("InventoryAndVerify", "InfraCleanup"))
    missing = sorted(a for a in hosted_cluster.aws_actions() if a not in granted)
    assert not missing, "declared by kinds/hosted_cluster.py, not in InventoryAndVerify or InfraCleanup: %s" % missing


def test_the_cfn_kind_declares_every_call_its_iam_ec2_and_rds_remedies_send():
    """Each remedy's finder and releaser against answers that hold one of every kind of holder (all consented)."""
    from ansible_collections.teardown.gates.plugins.module_utils.cfn import remedies
    one = {"PolicyRoles": [{"RoleName": "r"}], "PolicyUsers": [{"UserName": "u"}], "PolicyGroups": [{"GroupName": "g"}],
           "Versions": [{"VersionId": "v2"}], "AttachedPolicies": [{"PolicyArn": "arn:p"}], "PolicyNames": ["i"],
           "InstanceProfiles": [{"InstanceProfileName": "ip"}], "Groups": [{"GroupName": "g"}],
           "InstanceProfile": {"Roles": [{"RoleName": "r"}]},
           "DBClusters": [{"DeletionProtection": True}], "DBInstances": [{"DeletionProtection": True}],
           "SecurityGroups": [{"GroupId": "sg-o", "IpPermissions": [
               {"IpProtocol": "tcp", "UserIdGroupPairs": [{"GroupId": "sg-1"}]}], "IpPermissionsEgress": [
               {"IpProtocol": "tcp", "UserIdGroupPairs": [{"GroupId": "sg-1"}]}]}],
           "NetworkInterfaces": [{"NetworkInterfaceId": "eni-a", "Status": "available", "Groups": [{"GroupId": "sg-1"}]},
                                 {"NetworkInterfaceId": "eni-b", "Status": "in-use", "Attachment": {"InstanceId": "i"},
                                  "Groups": [{"GroupId": "sg-1"}]}]}

    class HoldsOneOfEach(Recorder):
        def call(self, service, operation, **kw):
            self.sent.add((service, operation))
            return one
    c = HoldsOneOfEach({})
    for (remedy, rtype) in remedies.REMEDIES:
        if remedy == "empty_buckets":
            continue  # aws/deletes' empty_bucket, declared with the s3 actions above
        held = remedies.find_holders(c, remedy, rtype, "sg-1" if "EC2" in rtype else "x", set())
        if rtype == "AWS::EC2::Subnet":
            held = [h for h in held if not h["attached"]]  # an attached one is Unclear, never released
        remedies.release(c, remedy, rtype, "sg-1" if "EC2" in rtype else "x", held, [h["id"] for h in held])
    session = botocore.session.get_session()
    sent = set(iam_action(session, svc, op) for svc, op in c.sent)
    assert {"iam:DetachGroupPolicy", "iam:DeletePolicyVersion", "ec2:ModifyNetworkInterfaceAttribute",
            "rds:ModifyDBInstance"} <= sent
    missing = sorted(sent - set(cfn.aws_actions(CLEAR_CHOICES)))
    assert not missing, "sent by the cfn remedies but not declared by kinds/cfn.py: %s" % missing


def test_the_cloudformation_statement_grants_what_the_cfn_kind_declares():
    # extensions/iam/README.md: CloudFormationTeardown alone is what clear_cfn_refusals attaches
    granted = policy_actions(("CloudFormationTeardown",))
    missing = sorted(a for a in cfn.aws_actions(CLEAR_CHOICES, True) if a not in granted)
    assert not missing, "declared by kinds/cfn.py, not in CloudFormationTeardown: %s" % missing


def params(**kw):
    p = dict(kind=None, actions=[], clear=[], disable_termination_protection=False, sweep_delete=True,
             dry_run_ids={}, fail_on_missing=True)
    p.update(kw)
    return p


def test_needed_actions():
    assert ap.needed_actions(params(kind="hosted_cluster")) == list(hosted_cluster.aws_actions())
    assert ap.needed_actions(params(actions=["ec2:DeleteVpc"])) == ["ec2:DeleteVpc"]
    for bad, option in ((params(), "kind or actions"), (params(actions=["DeleteVpc"]), "actions"),
                        (params(kind="cfn", dry_run_ids={"Vpc": "x"}), "dry_run_ids")):
        with pytest.raises(BadInput, match=option):
            ap.needed_actions(bad)


@pytest.mark.parametrize("caller,arn", [
    ("arn:aws:iam::123456789012:user/ci/deployer", "arn:aws:iam::123456789012:user/ci/deployer"),
    ("arn:aws:sts::123456789012:assumed-role/teardown/session-1", "arn:aws:iam::123456789012:role/teardown"),
    ("arn:aws-us-gov:sts::123456789012:assumed-role/r/s", "arn:aws-us-gov:iam::123456789012:role/r"),
    ("arn:aws:iam::123456789012:role/teardown", "arn:aws:iam::123456789012:role/teardown"),
    ("arn:aws:iam::123456789012:root", None),
    ("arn:aws:sts::123456789012:federated-user/bob", None),
])
def test_simulation_arn(caller, arn):
    assert ap.simulation_arn(caller) == arn


def test_answers_read_as_results():
    got = ap.from_simulation([{"EvalActionName": "a:A", "EvalDecision": "allowed"},
                              {"EvalActionName": "a:B", "EvalDecision": "implicitDeny"},
                              {"EvalActionName": "a:C", "EvalDecision": "explicitDeny"}])
    assert got == {"a:A": ("allowed", "allowed"), "a:B": ("missing", "implicitDeny"),
                   "a:C": ("missing", "explicitDeny")}
    assert ap.from_dry_run("DryRunOperation")[0] == "allowed"
    assert ap.from_dry_run("UnauthorizedOperation")[0] == "missing"
    assert ap.from_dry_run("InvalidVpcID.NotFound")[0] == "unverified"
    assert ap.batches(range(60), 25) == [list(range(25)), list(range(25, 50)), list(range(50, 60))]


def test_the_dry_run_table_covers_every_ec2_delete_a_kind_declares():
    deletes = {a for a in every_declared_action() if a.startswith("ec2:") and not a.startswith("ec2:Describe")}
    assert deletes - set(ap.DRY_RUN) == {"ec2:ModifyNetworkInterfaceAttribute"}


def _error(code, status=403):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": code},
                                            "ResponseMetadata": {"HTTPStatusCode": status}}, "op")


class FakeAws:
    """Answers as the scripted AWS would; records every (operation, params) sent."""

    def __init__(self, caller, allowed=None, simulation_error=None, page=2):
        self.caller, self.allowed, self.simulation_error, self.page = caller, allowed, simulation_error, page
        self.sent = []

    def __getattr__(self, name):
        if name.startswith("_") or name in ("client", "meta"):
            raise AttributeError(name)

        def send(**kw):
            self.sent.append((name, kw))
            if name == "get_caller_identity":
                return {"Arn": self.caller}
            if name == "simulate_principal_policy":
                if self.simulation_error:
                    raise _error(self.simulation_error)
                start = int(kw.get("Marker") or 0)
                names = kw["ActionNames"][start:start + self.page]
                more = start + self.page < len(kw["ActionNames"])
                out = {"EvaluationResults": [{"EvalActionName": a, "EvalDecision": "allowed" if a in self.allowed
                                              else "implicitDeny"} for a in names], "IsTruncated": more}
                if more:
                    out["Marker"] = str(start + self.page)
                return out
            assert kw.get("DryRun") is True, name
            action = "ec2:" + "".join(w.capitalize() for w in name.split("_"))
            raise _error("DryRunOperation" if action in self.allowed else "UnauthorizedOperation",
                         412 if action in self.allowed else 403)
        return send


def clients_over(fake):
    return Clients(lambda service: fake, check_mode=True)


def test_the_simulation_names_every_missing_action_over_batches_and_pages():
    actions = ["ec2:DeleteSubnet", "ec2:DeleteVpc", "iam:DeleteRole", "s3:DeleteBucket"]
    fake = FakeAws("arn:aws:sts::123456789012:assumed-role/td/s", allowed={"ec2:DeleteSubnet", "s3:DeleteBucket"})
    found = ap.check(clients_over(fake), actions)
    assert found["missing"] == ["ec2:DeleteVpc", "iam:DeleteRole"]
    assert found["allowed"] == ["ec2:DeleteSubnet", "s3:DeleteBucket"] and found["unverified"] == []
    assert found["simulated_arn"] == "arn:aws:iam::123456789012:role/td"
    sims = [kw for op, kw in fake.sent if op == "simulate_principal_policy"]
    assert len(sims) == 2 and sims[1]["Marker"] == "2"  # one batch, paged by its Marker
    msg = ap.missing_message(found["caller_arn"], found)
    assert "ec2:DeleteVpc (implicitDeny by simulation)" in msg and "iam:DeleteRole" in msg and ap.POLICY_FILE in msg


def test_a_refused_simulation_falls_back_to_dry_run_and_leaves_the_rest_unverified():
    actions = ["ec2:DeleteSubnet", "ec2:DeleteVpc", "ec2:DescribeVpcs", "iam:DeleteRole"]
    fake = FakeAws("arn:aws:iam::123456789012:user/u", allowed={"ec2:DeleteSubnet"}, simulation_error="AccessDenied")
    found = ap.check(clients_over(fake), actions, ids={"VpcId": "vpc-real"})
    assert found["missing"] == ["ec2:DeleteVpc"]
    assert found["allowed"] == ["ec2:DeleteSubnet"]
    assert found["unverified"] == ["ec2:DescribeVpcs", "iam:DeleteRole"]  # never taken as allowed
    assert "AccessDenied" in found["simulation_refused"]
    assert ("delete_vpc", {"DryRun": True, "VpcId": "vpc-real"}) in fake.sent


def test_a_root_caller_is_not_simulated_and_nothing_is_claimed_for_it():
    fake = FakeAws("arn:aws:iam::123456789012:root", allowed=set())
    found = ap.check(clients_over(fake), ["iam:DeleteRole"])
    assert found["unverified"] == ["iam:DeleteRole"] and found["simulated_arn"] is None
    assert [op for op, dummy in fake.sent] == ["get_caller_identity"]
