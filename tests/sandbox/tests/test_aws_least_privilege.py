"""The IAM policy in extensions/iam/ covers every AWS action the modules call: statically (every boto3
operation in plugins/ maps to an action in the policy) and as observed (every request of real runs of
aws_infra_inventory, aws_orphan_inventory, aws_infra_cleanup and cloudformation_teardown, picked out of SANDBOX_AWS_LOG by
the run's own access key ID). The same runs, at -vvv with the AWS keys passed as module options, are
searched for the secret key and session token."""
import glob
import json
import os
import re
import uuid
from fnmatch import fnmatch

import botocore.session
import pytest

from conftest import REPO
from privilege import IAM_POLICY, LogTail, run_playbook, seed
from secrets_scan import assert_no_secrets

# signing name / client name -> IAM service prefix
PREFIX = {"elb": "elasticloadbalancing", "elbv2": "elasticloadbalancing"}
# S3 operations whose IAM action has another name (AWS's "Actions, resources, and condition keys for Amazon S3")
S3_ACTIONS = {
    "ListBuckets": ["s3:ListAllMyBuckets"],
    "ListObjectVersions": ["s3:ListBucketVersions"],
    "ListObjects": ["s3:ListBucket"],
    "ListObjectsV2": ["s3:ListBucket"],
    "HeadBucket": ["s3:ListBucket"],
    # the request log does not say whether a key carried a VersionId: both may be needed
    "DeleteObjects": ["s3:DeleteObject", "s3:DeleteObjectVersion"],
}
CALL = re.compile(r'"(ec2|elb|elbv2|iam|route53|s3|cloudformation|rds|sts|resourcegroupstaggingapi)",\s*"([a-z_0-9]+)"')


def iam_actions(service, operation):
    """The IAM actions one API operation (CamelCase, as the request log names it) needs."""
    if service == "s3" and operation in S3_ACTIONS:
        return S3_ACTIONS[operation]
    return ["%s:%s" % (PREFIX.get(service, service), operation)]


def policy_actions():
    with open(IAM_POLICY) as f:
        doc = json.load(f)
    out = set()
    for st in doc["Statement"]:
        assert st["Effect"] == "Allow"
        out.update([st["Action"]] if isinstance(st["Action"], str) else st["Action"])
    return out


# actions no policy needs to grant: https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html
# ("No permissions are required to perform this operation"); the permission preflight calls it
NO_PERMISSION_NEEDED = {"sts:GetCallerIdentity"}


def allowed(action, actions):
    if action in NO_PERMISSION_NEEDED:
        return True
    return any(fnmatch(action.lower(), a.lower()) for a in actions)


def test_every_operation_in_the_code_is_in_the_policy():
    session = botocore.session.get_session()
    mapping = {}
    calls = set()
    for path in glob.glob(os.path.join(REPO, "plugins", "module_utils", "**", "*.py"), recursive=True) + \
            glob.glob(os.path.join(REPO, "plugins", "modules", "*.py")):
        with open(path) as f:
            calls.update(CALL.findall(f.read()))
    assert len(calls) > 40  # the scan finds the calls (a refactor that hides them must update CALL)
    missing = []
    actions = policy_actions()
    for service, op in sorted(calls):
        if service not in mapping:
            model = session.get_service_model(service)
            mapping[service] = {botocore.xform_name(n): n for n in model.operation_names}
        api = mapping[service].get(op)
        assert api, "%s has no operation %s" % (service, op)
        missing += [a for a in iam_actions(service, api) if not allowed(a, actions)]
    assert not missing, "not in %s: %s" % (IAM_POLICY, sorted(set(missing)))


INFRA_PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  connection: local
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    group/teardown.gates.all:
      access_key: "{{ lookup('env', 'LP_KEY_ID') }}"
      secret_key: "{{ lookup('env', 'LP_SECRET') }}"
      session_token: "{{ lookup('env', 'LP_TOKEN') }}"
  tasks:
    - name: Record what the infra ID owns
      teardown.gates.aws_infra_inventory:
        infra_id: "{{ infra_id }}"
        base_domain: sandbox.example.com
        oidc_bucket: sandbox-oidc
        manifest_path: "{{ workdir }}/manifest.json"
    - name: Find the region's infra IDs that no HostedCluster owns (the sweep_orphans scan)
      teardown.gates.aws_orphan_inventory:
        infra_id_prefix: "{{ infra_id }}"
        oidc_bucket: sandbox-oidc
        min_age: 0
      register: orphans
    - name: The seeded infra ID is an orphan
      ansible.builtin.assert:
        that: orphans.orphans == [infra_id]
    - name: Delete it in dependency order and verify absence by ID
      teardown.gates.aws_infra_cleanup:
        manifest: "{{ workdir }}/manifest.json"
        wait_timeout: 120
      register: clean
    - name: Keep the result for the tests
      ansible.builtin.copy:
        content: "{{ clean | to_json }}"
        dest: "{{ workdir }}/clean.json"
        mode: "0600"
    - name: Delete each stack, clearing every refusal class (the ENI the seed made outside the sg stack named)
      teardown.gates.cloudformation_teardown:
        stack_name: "{{ item }}"
        clear: [empty_buckets, detach_iam, disable_deletion_protection, release_dependencies, nested]
        disable_termination_protection: true
        release_outside_stack: "{{ outside_stack }}"
        wait_timeout: 120
        poll_interval: 0.5
      loop: "{{ stacks }}"
"""


@pytest.fixture(scope="module")
def aws_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("aws-lp")
    infra = "lpa-" + uuid.uuid4().hex[:6]
    infra_seed = seed("aws-infra", "--name", infra, "--knob", "zones=1", "--knob", "workers=1")
    cfn = seed("cfn-refusals", "--name", "lpc-" + uuid.uuid4().hex[:4],
               "--knob", "classes=bucket,iam,sg,rds,protected", "--knob", "cfn_step_seconds=0.1")
    stacks = sorted(v["name"] for v in cfn["stacks"].values())
    (work / "play.yml").write_text(INFRA_PLAYBOOK)
    creds = {"LP_KEY_ID": "AKID" + uuid.uuid4().hex[:16].upper(), "LP_SECRET": "lpsecret" + uuid.uuid4().hex,
             "LP_TOKEN": "lptoken" + uuid.uuid4().hex}
    env = dict(creds, AWS_ACCESS_KEY_ID=creds["LP_KEY_ID"], AWS_SECRET_ACCESS_KEY=creds["LP_SECRET"],
               AWS_SESSION_TOKEN=creds["LP_TOKEN"])
    tail = LogTail(os.environ["SANDBOX_AWS_LOG"])
    # the seed's ENI in the sg stack's group is not the stack's: the remedy releases it only when named (#55)
    outside = [cfn["outside"]["sg"]["network_interface"]]
    out = run_playbook(str(work / "play.yml"), {"infra_id": infra, "workdir": str(work), "stacks": stacks,
                                                "outside_stack": outside}, str(work), env)
    lines = [r for r in tail.lines(settle=0.2) if r.get("key_id") == creds["LP_KEY_ID"]]
    return {"out": out, "work": work, "log": lines, "creds": creds, "seed": infra_seed}


def test_every_action_of_a_run_is_in_the_policy(aws_run):
    out = aws_run["out"]
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    seen = {(r["service"], r["action"]) for r in aws_run["log"]}
    services = {s for s, _ in seen}
    assert {"ec2", "iam", "s3", "route53", "elasticloadbalancing", "cloudformation", "rds"} <= services, services
    actions = policy_actions()
    missing = sorted({a for s, op in seen for a in iam_actions(s, op) if not allowed(a, actions)})
    assert not missing, "requests seen in %s but not allowed by %s: %s" % (
        os.environ["SANDBOX_AWS_LOG"], IAM_POLICY, missing)


def test_the_cleanup_deletes_the_data_volume_and_only_verifies_the_root_volume(aws_run):
    """The worker's volumes, found through its block device mappings, are in the cleanup's result by ID: the root
    volume (DeleteOnTermination) gone with its instance and never sent a DeleteVolume, the detached data volume
    deleted by the run; both verified absent or terminal by a look by ID."""
    assert aws_run["out"].returncode == 0, aws_run["out"].stdout[-3000:]
    clean = json.loads((aws_run["work"] / "clean.json").read_text())
    vols = aws_run["seed"]["details"]["volumes"]
    root = [v for v, d in vols.items() if d["delete_on_termination"]]
    data = [v for v, d in vols.items() if not d["delete_on_termination"]]
    assert len(root) == 1 and len(data) == 1, vols
    got = {r["id"]: r for r in clean["resources"] if r["type"] == "AWS::EC2::Volume"}
    assert sorted(got) == sorted(vols), clean["resources"]
    assert got[root[0]]["outcome"] == "absent" and got[data[0]]["outcome"] == "deleted", got
    assert all(r["verified_state"] in ("absent", "terminal") for r in got.values()), got
    assert clean["verified"] is True
    deletes = [r for r in aws_run["log"] if r["action"] == "DeleteVolume"]
    assert len(deletes) == 1, deletes  # the data volume only: the root volume is AWS's to delete


def test_no_aws_credential_in_what_the_run_wrote(aws_run):
    c = aws_run["creds"]
    assert_no_secrets(aws_run["work"], aws_run["out"], [c["LP_SECRET"], c["LP_TOKEN"]])
