# -*- coding: utf-8 -*-
"""aws_runs (#32): the runs of aws_infra_inventory and aws_infra_cleanup against a fake module and a fake EC2: the
option checks and their messages, the manifest file, the result's keys, check mode, and the failure messages."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import botocore.exceptions
import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws import runs as aws_runs
from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import CheckModeViolation

from aws_module_double import AWSModuleDouble as FakeModule, Exited


class FakeEC2:
    """Subnets that can be deleted; every read answers by ID."""

    def __init__(self, subnets=("subnet-1",), refuse=False, protected=(), vpcs=()):
        self.subnets = set(subnets)
        self.refuse = refuse
        self.calls = []
        self.protected = set(protected)  # tagged teardown.gates/protected=true
        self.vpcs = set(vpcs)

    def _tags(self, rid):
        return [{"Key": "Name", "Value": rid}] + (
            [{"Key": "teardown.gates/protected", "Value": "True"}] if rid in self.protected else [])

    def describe_subnets(self, Filters):
        self.calls.append("DescribeSubnets")
        return {"Subnets": [{"SubnetId": s, "Tags": self._tags(s)} for s in Filters[0]["Values"] if s in self.subnets]}

    def describe_vpcs(self, Filters):
        self.calls.append("DescribeVpcs")
        return {"Vpcs": [{"VpcId": v, "Tags": self._tags(v)} for v in Filters[0]["Values"] if v in self.vpcs]}

    def describe_nat_gateways(self, Filter):
        return {"NatGateways": []}

    def describe_instances(self, Filters):
        return {"Reservations": []}

    def describe_network_interfaces(self, Filters):
        return {"NetworkInterfaces": []}

    def delete_subnet(self, SubnetId):
        self.calls.append("DeleteSubnet")
        if self.refuse:
            raise botocore.exceptions.ClientError({"Error": {"Code": "UnauthorizedOperation", "Message": "no"}},
                                                  "DeleteSubnet")
        self.subnets.discard(SubnetId)


def cleanup_params(**kw):
    p = dict(manifest=None, infra_id=None, base_domain=None, cluster_name=None, oidc_bucket=None,
             preserve_iam=False, retain={}, wait_timeout=900, concurrency=8)
    p.update(kw)
    return p


def test_specs_hold_every_option():
    assert sorted(aws_runs.inventory_spec()) == ["base_domain", "cluster_created", "cluster_name", "infra_id",
                                                 "manifest_path", "min_age", "oidc_bucket"]
    assert sorted(aws_runs.cleanup_spec()) == ["base_domain", "cluster_created", "cluster_name", "concurrency",
                                               "infra_id", "manifest", "min_age", "oidc_bucket", "preserve_iam",
                                               "require_owned", "retain", "wait_timeout"]
    assert aws_runs.cleanup_spec()["wait_timeout"] == dict(type="int", default=900)


def test_load_manifest_takes_a_mapping_json_or_yaml(tmp_path):
    m = {g.SUBNET: ["subnet-1"]}
    assert aws_runs.load_manifest(m) is m
    (tmp_path / "m.json").write_text(json.dumps(m))
    assert aws_runs.load_manifest(str(tmp_path / "m.json")) == m
    (tmp_path / "m.yml").write_text("AWS::EC2::Subnet:\n  - subnet-1\n")
    assert aws_runs.load_manifest(str(tmp_path / "m.yml")) == m


def test_load_manifest_names_what_is_wrong(tmp_path):
    with pytest.raises(BadInput) as e:
        aws_runs.load_manifest("/nonexistent/m.json")
    assert str(e.value) == "manifest: '/nonexistent/m.json' is neither a mapping nor a readable file"
    (tmp_path / "bad").write_text("a: [b\n")
    with pytest.raises(BadInput) as e:
        aws_runs.load_manifest(str(tmp_path / "bad"))
    assert str(e.value).startswith("manifest: %s is neither JSON nor YAML: " % (tmp_path / "bad"))


@pytest.mark.parametrize("kw, message", [
    (dict(infra_id=" "), "infra_id must not be empty: an empty infra ID would match every cluster's tag"),
    (dict(infra_id=" ", wait_timeout=0), "infra_id must not be empty: an empty infra ID would match every cluster's tag"),
    (dict(wait_timeout=0, concurrency=0), "wait_timeout must be at least 1 second, got 0"),
    (dict(concurrency=0), "concurrency must be at least 1, got 0"),
    (dict(min_age="banana"), "min_age: 'banana' is not a duration (seconds, or e.g. 24h, 90m, 1d12h); nothing changed"),
    (dict(min_age=-5), "min_age: -5 is negative; nothing changed"),
])
def test_cleanup_options_in_the_order_the_module_checked_them(kw, message):
    with pytest.raises(BadInput) as e:
        aws_runs.cleanup_options(cleanup_params(**kw))
    assert str(e.value) == message


def test_write_if_changed(tmp_path):
    path = str(tmp_path / "m.json")
    assert aws_runs.write_if_changed(path, "x\n", check_mode=True) is True
    assert not (tmp_path / "m.json").exists()
    assert aws_runs.write_if_changed(path, "x\n", check_mode=False) is True
    assert aws_runs.write_if_changed(path, "x\n", check_mode=False) is False
    assert (tmp_path / "m.json").read_text() == "x\n"


def _discovered(monkeypatch, manifest, shared_zones=()):
    seen = {}

    def discover(clients, infra_id, **kw):
        seen.update(kw, infra_id=infra_id, check_mode=clients.check_mode)
        return dict(manifest), {"vpcs": ["vpc-1"], "observed": {}, "guest_volumes": [], "guest_groups": ["sg-elb"],
                                "shared_zones": list(shared_zones)}
    monkeypatch.setattr(aws_runs, "discover", discover)
    return seen


def test_inventory_returns_the_manifest_and_writes_it(monkeypatch, tmp_path):
    seen = _discovered(monkeypatch, {g.VPC: ["vpc-1"], g.SUBNET: ["subnet-1", "subnet-2"]})
    path = str(tmp_path / "m.json")
    m = FakeModule(dict(infra_id=" demo ", base_domain="example.com", cluster_name=None, oidc_bucket=None,
                        manifest_path=path), check_mode=True)
    out = aws_runs.inventory(m)
    assert seen == dict(infra_id="demo", base_domain="example.com", cluster_name=None, oidc_bucket=None,
                        region="us-east-1", check_mode=False)
    assert out["counts"] == {g.VPC: 1, g.SUBNET: 2} and out["total"] == 3 and out["vpcs"] == ["vpc-1"]
    assert out["changed"] is True and out["manifest_path"] == path and not (tmp_path / "m.json").exists()
    m.check_mode = False
    assert aws_runs.inventory(m)["changed"] is True
    assert json.loads((tmp_path / "m.json").read_text()) == out["manifest"]
    assert aws_runs.inventory(m)["changed"] is False


def test_inventory_without_a_path_changes_nothing(monkeypatch):
    _discovered(monkeypatch, {})
    out = aws_runs.inventory(FakeModule(dict(infra_id="demo", base_domain=None, cluster_name=None, oidc_bucket=None,
                                             manifest_path=None)))
    assert out == dict(changed=False, manifest={}, counts={}, total=0, api_calls={}, vpcs=["vpc-1"], guest_volumes=[],
                       guest_groups=["sg-elb"], protected=[])


def test_inventory_reports_a_shared_zone_as_kept_and_leaves_it_out_of_the_manifest(monkeypatch):
    row = {"type": g.ZONE, "id": "Z9", "reason": "a private zone also associated with us-east-1/vpc-9, ..."}
    _discovered(monkeypatch, {g.VPC: ["vpc-1"]}, [row])
    out = aws_runs.inventory(FakeModule(dict(infra_id="demo", base_domain=None, cluster_name=None, oidc_bucket=None,
                                             manifest_path=None)))
    assert out["protected"] == [row] and g.ZONE not in out["manifest"]


def _aws_failure(monkeypatch):
    def discover(clients, infra_id, **kw):
        raise botocore.exceptions.ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, "DescribeVpcs")
    monkeypatch.setattr(aws_runs, "discover", discover)


def test_inventory_fails_on_a_failed_request_with_no_manifest(monkeypatch):
    _aws_failure(monkeypatch)
    m = FakeModule(dict(infra_id=" demo ", base_domain=None, cluster_name=None, oidc_bucket=None, manifest_path=None))
    with pytest.raises(Exited):
        aws_runs.inventory(m)
    assert m.failed["msg"].startswith("discovery of infra ID demo failed; no manifest is returned because an "
                                      "incomplete one would leave resources behind: ")
    assert m.failed["aws"] and m.failed["api_calls"] == {}


def test_cleanup_discovery_failure_says_nothing_was_deleted(monkeypatch):
    _aws_failure(monkeypatch)
    m = FakeModule(cleanup_params(infra_id=" demo "))
    with pytest.raises(Exited):
        aws_runs.cleanup(m)
    assert m.failed["msg"].startswith("discovery of infra ID  demo  failed; nothing was deleted: ")


def test_cleanup_bad_manifest_fails_naming_it():
    m = FakeModule(cleanup_params(manifest={"AWS::EC2::Banana": ["b-1"]}))
    with pytest.raises(Exited):
        aws_runs.cleanup(m)
    assert m.failed["msg"].startswith("manifest: ")
    assert "exception" not in m.failed


def test_cleanup_bad_retain_fails_naming_it_before_any_request():
    from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
    fake = FakeEC2(subnets=("subnet-1",))
    m = FakeModule(cleanup_params(manifest={g.SUBNET: ["subnet-1"]}, retain={"AWS::EC2::Banana": ["b-1"]}), client=fake)
    with pytest.raises(BadInput, match=r"^retain: .*AWS::EC2::Banana"):
        aws_runs.cleanup(m)
    assert fake.calls == []


def test_cleanup_check_mode_plans_and_sends_no_delete():
    fake = FakeEC2(subnets=("subnet-1",))
    m = FakeModule(cleanup_params(manifest={g.SUBNET: ["subnet-1", "subnet-gone"]}), check_mode=True, client=fake)
    out = aws_runs.cleanup(m)
    assert "DeleteSubnet" not in fake.calls
    outcomes = dict((r["id"], (r["outcome"], r["observed"])) for r in out["resources"])
    assert outcomes == {"subnet-1": ("planned", "present"), "subnet-gone": ("absent", "absent")}
    assert out["changed"] is True and out["verified"] is False and out["refused"] == 0
    assert set(out) == {"manifest", "changed", "plan", "resources", "verified", "api_calls", "api_errors", "elapsed",
                        "refused", "kept", "blocked"}
    assert out["kept"] == [] and out["blocked"] == []


def test_cleanup_deletes_and_verifies():
    fake = FakeEC2(subnets=("subnet-1",))
    out = aws_runs.cleanup(FakeModule(cleanup_params(manifest={g.SUBNET: ["subnet-1"]}), client=fake))
    assert fake.calls.count("DeleteSubnet") == 1 and not fake.subnets
    (res,) = out["resources"]
    assert (res["outcome"], res["verified_state"]) == ("deleted", "absent")
    assert out["changed"] is True and out["verified"] is True and out["plan"] == g.plan({g.SUBNET: ["subnet-1"]})["levels"]


def test_cleanup_fails_naming_the_resources_it_could_not_delete():
    m = FakeModule(cleanup_params(manifest={g.SUBNET: ["subnet-1"]}), client=FakeEC2(refuse=True))
    with pytest.raises(Exited):
        aws_runs.cleanup(m)
    assert m.failed["msg"].startswith("1 of 1 resources could not be deleted: AWS::EC2::Subnet subnet-1: "
                                      "UnauthorizedOperation: no")
    assert m.failed["verified"] is False and m.failed["resources"][0]["outcome"] == "failed"


def test_a_mutating_call_in_check_mode_is_refused_by_the_clients():
    m = FakeModule(cleanup_params(manifest={g.SUBNET: ["subnet-1"]}), check_mode=True, client=FakeEC2())
    clients = aws_runs.module_clients(m, "aws_infra_cleanup", concurrency=1)
    with pytest.raises(CheckModeViolation):
        clients.call("ec2", "delete_subnet", SubnetId="subnet-1")


def test_cleanup_keeps_a_protected_subnet_and_its_vpc_and_is_not_verified():
    """The protect tag read from the look by ID the run makes anyway: no request is added, nothing kept is deleted."""
    plain = FakeEC2(subnets=("subnet-1", "subnet-p"))
    aws_runs.cleanup(FakeModule(cleanup_params(manifest={g.SUBNET: ["subnet-1", "subnet-p"]}), check_mode=True,
                                client=plain))
    fake = FakeEC2(subnets=("subnet-1", "subnet-p"), protected=("subnet-p",), vpcs=("vpc-1",))
    manifest = {g.SUBNET: ["subnet-1", "subnet-p"], g.VPC: ["vpc-1"]}
    check = aws_runs.cleanup(FakeModule(cleanup_params(manifest=manifest), check_mode=True, client=fake))
    assert fake.calls.count("DescribeSubnets") == plain.calls.count("DescribeSubnets") == 1
    assert fake.calls.count("DescribeVpcs") == 1 and "DeleteSubnet" not in fake.calls
    rows = dict((r["id"], r) for r in check["resources"])
    assert (rows["subnet-p"]["outcome"], rows["subnet-p"]["reason"]) == ("kept", "tagged teardown.gates/protected")
    assert (rows["vpc-1"]["outcome"], rows["vpc-1"]["blocked_by"]) == ("blocked", [g.SUBNET + " subnet-p"])
    assert rows["subnet-1"]["outcome"] == "planned" and check["verified"] is False
    assert check["kept"] == [{"type": g.SUBNET, "id": "subnet-p", "reason": "tagged teardown.gates/protected"}]
    assert check["blocked"] == [{"type": g.VPC, "id": "vpc-1", "blocked_by": [g.SUBNET + " subnet-p"]}]

    out = aws_runs.cleanup(FakeModule(cleanup_params(manifest=manifest), client=fake))
    assert fake.subnets == {"subnet-p"} and fake.calls.count("DeleteSubnet") == 1
    rows = dict((r["id"], r) for r in out["resources"])
    assert rows["subnet-1"]["outcome"] == "deleted" and rows["subnet-p"]["outcome"] == "kept"
    assert rows["vpc-1"]["outcome"] == "blocked" and rows["vpc-1"]["verified_state"] == "present"
    assert out["verified"] is False and out["changed"] is True


def test_cleanup_treats_a_blocked_resource_found_gone_as_absent():
    fake = FakeEC2(subnets=("subnet-p",), protected=("subnet-p",))  # the VPC is gone already
    out = aws_runs.cleanup(FakeModule(cleanup_params(manifest={g.SUBNET: ["subnet-p"], g.VPC: ["vpc-1"]}), client=fake))
    rows = dict((r["id"], r["outcome"]) for r in out["resources"])
    assert rows == {"subnet-p": "kept", "vpc-1": "absent"} and out["verified"] is False


def test_cleanup_does_not_delete_what_it_could_not_look_up_its_tags_unknown():
    class Failing(FakeEC2):
        def describe_subnets(self, Filters):
            self.calls.append("DescribeSubnets")
            raise botocore.exceptions.ClientError({"Error": {"Code": "InternalError", "Message": "boom"}}, "DescribeSubnets")
    fake = Failing(subnets=("subnet-1",), vpcs=("vpc-1",))
    m = FakeModule(cleanup_params(manifest={g.SUBNET: ["subnet-1"], g.VPC: ["vpc-1"]}), client=fake)
    with pytest.raises(Exited):
        aws_runs.cleanup(m)
    out = m.failed
    assert "DeleteSubnet" not in fake.calls
    rows = dict((r["id"], r) for r in out["resources"])
    assert rows["subnet-1"]["outcome"] == "failed" and rows["subnet-1"]["error"].startswith(
        "its tags are unknown (its look by ID failed: ")
    assert rows["vpc-1"]["outcome"] == "blocked" and out["kept"] == [] and out["verified"] is False
    assert "could not be deleted" in out["msg"] and "subnet-1" in out["msg"]


def _ago(**kw):
    import datetime
    return datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(**kw)


class AgedEC2(FakeEC2):
    """Instances with their LaunchTime (a subnet's answer carries no creation time)."""

    def __init__(self, instances, **kw):
        FakeEC2.__init__(self, **kw)
        self.instances = dict(instances)

    def describe_instances(self, Filters):
        return {"Reservations": [{"Instances": [
            {"InstanceId": i, "LaunchTime": t, "State": {"Name": "running"}, "Tags": self._tags(i)}
            for i, t in self.instances.items() if i in Filters[0]["Values"]]}]}


def test_cleanup_keeps_an_instance_younger_than_min_age_and_what_waits_on_it():
    """Its LaunchTime from the look by ID the run makes anyway; the subnet, with no time of its own, is judged by the
    cluster's creation time (two days ago: old enough)."""
    fake = AgedEC2({"i-new": _ago(minutes=5), "i-old": _ago(days=3)}, subnets=("subnet-1",), vpcs=("vpc-1",))
    manifest = {g.INSTANCE: ["i-new", "i-old"], g.SUBNET: ["subnet-1"], g.VPC: ["vpc-1"]}
    params = cleanup_params(manifest=manifest, min_age="1h", cluster_created=_ago(days=2).isoformat())
    check = aws_runs.cleanup(FakeModule(params, check_mode=True, client=fake))
    [kept] = check["kept"]
    assert (kept["type"], kept["id"]) == (g.INSTANCE, "i-new") and kept["reason"].endswith(
        "less than min_age (3600 s) ago") and kept["reason"].startswith("created ")
    rows = dict((r["id"], r) for r in check["resources"])
    assert rows["i-old"]["outcome"] == "planned" and rows["i-new"]["outcome"] == "kept"
    assert rows["subnet-1"]["outcome"] == "blocked" and rows["subnet-1"]["blocked_by"] == [g.INSTANCE + " i-new"]
    assert check["verified"] is False
    # min_age 0 (the default) is off: every ID is planned
    off = aws_runs.cleanup(FakeModule(cleanup_params(manifest=manifest), check_mode=True, client=fake))
    assert off["kept"] == [] and off["blocked"] == []


def test_cleanup_judges_what_has_no_creation_time_by_the_cluster_s():
    fake = FakeEC2(subnets=("subnet-1",), vpcs=("vpc-1",))
    manifest = {g.SUBNET: ["subnet-1"], g.VPC: ["vpc-1"]}
    young = aws_runs.cleanup(FakeModule(cleanup_params(manifest=manifest, min_age="1h",
                                                       cluster_created=_ago(minutes=10).isoformat()),
                                        check_mode=True, client=fake))
    assert sorted(r["id"] for r in young["kept"]) == ["subnet-1", "vpc-1"]
    old = aws_runs.cleanup(FakeModule(cleanup_params(manifest=manifest, min_age="1h",
                                                     cluster_created=_ago(days=2).isoformat()),
                                      check_mode=True, client=fake))
    assert old["kept"] == [] and old["blocked"] == []


def test_inventory_lists_young_resources_with_the_protected_ones_once(monkeypatch):
    protected = [{"Key": "teardown.gates/protected", "Value": "true"}]
    observed = {g.INSTANCE: {"i-new": {"state": "present", "LaunchTime": _ago(minutes=5), "Tags": protected},
                             "i-young": {"state": "present", "LaunchTime": _ago(minutes=5)},
                             "i-old": {"state": "present", "LaunchTime": _ago(days=3)}}}

    def discover(clients, infra_id, **kw):
        return {g.INSTANCE: ["i-new", "i-old", "i-young"], g.SUBNET: ["subnet-1"]}, {
            "vpcs": [], "observed": observed, "guest_volumes": [], "guest_groups": [], "shared_zones": []}
    monkeypatch.setattr(aws_runs, "discover", discover)
    params = dict(infra_id="demo", base_domain=None, cluster_name=None, oidc_bucket=None, manifest_path=None,
                  min_age="1h", cluster_created=_ago(days=2).isoformat())
    rows = aws_runs.inventory(FakeModule(params))["protected"]
    assert [(r["id"], r["reason"].split(",")[0]) for r in rows] == [
        ("i-new", "tagged teardown.gates/protected"), ("i-young", "created %s" % rows[1]["reason"][8:28])]
    assert rows[1]["reason"].endswith("less than min_age (3600 s) ago")


INFRA = "demo-x1"
SVC = "vpce-svc-0123456789abcdef0"


class EndpointServiceEC2(FakeEC2):
    """One VPC endpoint service configuration, tagged as given (HO's, HS-31), that can be deleted."""

    def __init__(self, tags, fail_read=False):
        FakeEC2.__init__(self)
        self.services = {SVC: tags}
        self.fail_read = fail_read

    def describe_vpc_endpoint_service_configurations(self, ServiceIds):
        self.calls.append("DescribeVpcEndpointServiceConfigurations")
        if self.fail_read:
            raise botocore.exceptions.ClientError({"Error": {"Code": "InternalError", "Message": "boom"}},
                                                  "DescribeVpcEndpointServiceConfigurations")
        return {"ServiceConfigurations": [{"ServiceId": i, "ServiceState": "Available", "Tags": self.services[i]}
                                          for i in ServiceIds if i in self.services]}

    def describe_vpc_endpoint_connections(self, Filters, **kw):
        return {"VpcEndpointConnections": []}

    def delete_vpc_endpoint_service_configurations(self, ServiceIds):
        self.calls.append("DeleteVpcEndpointServiceConfigurations")
        for i in ServiceIds:
            self.services.pop(i, None)
        return {"Unsuccessful": []}


def _owned_cleanup(fake, check_mode=False):
    manifest = {g.ENDPOINT_SERVICE: [SVC]}
    m = FakeModule(cleanup_params(manifest=manifest, require_owned={"infra_id": INFRA, "resources": manifest}),
                   check_mode=check_mode, client=fake)
    try:
        return m, aws_runs.cleanup(m)
    except Exited:
        return m, None


def test_require_owned_deletes_a_configuration_tagged_as_the_cluster_s_and_verifies_it_gone():
    fake = EndpointServiceEC2([{"Key": "kubernetes.io/cluster/" + INFRA, "Value": "owned"}])
    m, out = _owned_cleanup(fake)
    (res,) = out["resources"]
    assert (res["outcome"], res["verified_state"]) == ("deleted", "absent") and out["verified"] is True
    assert fake.calls.count("DeleteVpcEndpointServiceConfigurations") == 1 and not fake.services
    # a re-run: already gone, nothing to refuse or delete
    m, again = _owned_cleanup(fake)
    assert again["resources"][0]["outcome"] == "absent" and again["verified"] is True


@pytest.mark.parametrize("tags, why", [
    ([{"Key": "kubernetes.io/cluster/%s-2" % INFRA, "Value": "owned"}],
     "tagged kubernetes.io/cluster/%s-2=owned, not kubernetes.io/cluster/%s=owned" % (INFRA, INFRA)),
    ([{"Key": "Name", "Value": "x"}], "untagged"),
    ([{"Key": "kubernetes.io/cluster/" + INFRA, "Value": "shared"}], "kubernetes.io/cluster/%s=shared" % INFRA),
])
def test_require_owned_refuses_a_configuration_not_tagged_as_the_cluster_s_naming_the_id_and_why(tags, why):
    fake = EndpointServiceEC2(tags)
    m, out = _owned_cleanup(fake)
    assert out is None and "DeleteVpcEndpointServiceConfigurations" not in fake.calls and SVC in fake.services
    (res,) = m.failed["resources"]
    assert res["outcome"] == "failed" and why in res["error"] and res["error"].startswith("refused")
    assert SVC in m.failed["msg"] and why in m.failed["msg"] and m.failed["verified"] is False
    assert m.failed["kept"] == []  # a refusal is a failure to resolve, not a kept resource
    # check mode reads the same and sends nothing
    fake = EndpointServiceEC2(tags)
    m, out = _owned_cleanup(fake, check_mode=True)
    assert "DeleteVpcEndpointServiceConfigurations" not in fake.calls and SVC in fake.services


def test_require_owned_takes_a_failed_read_as_unknown_never_absent():
    fake = EndpointServiceEC2([{"Key": "kubernetes.io/cluster/" + INFRA, "Value": "owned"}], fail_read=True)
    m, out = _owned_cleanup(fake)
    assert out is None and "DeleteVpcEndpointServiceConfigurations" not in fake.calls
    (res,) = m.failed["resources"]
    assert res["outcome"] == "failed" and res["error"].startswith("its tags are unknown")


def test_require_owned_input_is_checked_before_any_request():
    for req, message in (({"resources": {g.ENDPOINT_SERVICE: [SVC]}}, "require_owned.infra_id: required"),
                         ({"infra_id": INFRA, "resources": {g.BUCKET: ["b"]}}, "its look by ID carries no tags"),
                         ({"infra_id": INFRA, "resources": {"AWS::Nope": ["x"]}}, "require_owned.resources")):
        with pytest.raises(BadInput, match=message.replace(".", r"\.")):
            aws_runs.cleanup_options(cleanup_params(min_age=0, require_owned=req))
