# -*- coding: utf-8 -*-
"""drivers/permission_preflight (#33): one review per permission, every missing and unanswered one named with the
RBAC file, bad input before any request; and the AWS part in the same run (one failure naming every missing permission
of both parts, a part without its kind sending nothing)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.drivers import permission_preflight as d
from ansible_collections.teardown.gates.plugins.module_utils.preflight import aws_permissions as ap

from preflight.test_aws_permissions import FakeAws, _error


class Exited(Exception):
    pass


class FakeModule:
    def __init__(self, kind="release_prune", options=None, request_timeout=10, aws_kind=None, aws=None):
        self.params = {"kind": kind, "options": options if options is not None else {"release_namespace": "team-a"},
                       "request_timeout": request_timeout, "aws_kind": aws_kind}
        self.check_mode = True
        self.result = None
        self.aws = aws  # the scripted AWS its clients answer from (FakeAws)

    def client(self, service, config=None):
        assert self.aws is not None, "no AWS client without aws_kind"
        return self.aws

    def fail_json(self, **kw):
        self.result = dict(kw, failed=True)
        raise Exited()

    def exit_json(self, **kw):
        self.result = kw
        raise Exited()

    def fail_json_aws(self, exception, **kw):
        self.result = dict(kw, failed=True, exception=str(exception))
        raise Exited()


class FakeReads:
    def __init__(self, deny=(), silent=()):
        self.deny, self.silent, self.sent = set(deny), set(silent), []

    def review_access_all(self, asked):
        out = []
        for attributes, dummy in asked:
            self.sent.append(attributes)
            key = (attributes["verb"], attributes["resource"])
            if key in self.silent:
                out.append({"allowed": None, "reason": "timeout", "query": {}})
            else:
                out.append({"allowed": key not in self.deny, "reason": "", "query": {}})
        return out


def run(module, reads):
    try:
        return d.run(module, reads)
    except Exited:
        return module.result


def test_every_permission_granted_passes_with_one_review_each():
    reads = FakeReads()
    out = run(FakeModule(), reads)
    assert "failed" not in out and out["missing"] == [] and out["changed"] is False
    assert len(reads.sent) == len(out["permissions"]) == 5  # prune_cluster and convoy_cluster_name off
    assert out["rbac_file"] == "extensions/rbac/release_prune.yml"


def test_every_missing_and_unanswered_permission_is_named_with_the_file():
    reads = FakeReads(deny={("delete", "releases"), ("list", "releaseinventories")}, silent={("watch", "releases")})
    out = run(FakeModule(), reads)
    assert out["failed"]
    assert out["missing"] == ["delete releases.core.convoy.kumodo.io in namespace team-a",
                              "list releaseinventories.core.convoy.kumodo.io in namespace team-a"]
    assert out["unknown"] == ["watch releases.core.convoy.kumodo.io in namespace team-a"]
    assert out["msg"].startswith("missing permissions: delete releases")
    assert "extensions/rbac/release_prune.yml" in out["msg"]
    assert len(reads.sent) == 5  # every review was sent, not only up to the first refusal


@pytest.mark.parametrize("module,names", [
    (FakeModule(kind="nope"), "kind: "),
    (FakeModule(options={}), "release_namespace: "),
    (FakeModule(request_timeout=0), "request_timeout: "),
    (FakeModule(kind=None), "kind or aws_kind: "),
    # the AWS part's own options come in the run's options, unchecked by the argument spec: checked here
    (FakeModule(kind=None, aws_kind="cfn", options={"clear": ["everything"]}), "options.clear: "),
    (FakeModule(kind=None, aws_kind="cfn", options={"clear": "empty_buckets"}), "options.clear: "),
    (FakeModule(kind=None, aws_kind="cfn", options={"disable_termination_protection": "maybe"}),
     "options.disable_termination_protection: "),
    (FakeModule(kind=None, aws_kind="orphan_sweep", options={"sweep_delete": [True]}), "options.sweep_delete: "),
])
def test_bad_input_fails_before_any_review(module, names):
    with pytest.raises(Exited):
        d.check(module)
    assert module.result["failed"] and module.result["msg"].startswith(names)


def test_a_kind_without_a_kubernetes_side_reviews_nothing():
    reads = FakeReads()
    out = run(FakeModule(kind="cfn", options={}), reads)
    assert reads.sent == [] and out["rbac_file"] is None and "failed" not in out


SESSION = "arn:aws:sts::123456789012:assumed-role/td/s"


def test_the_reviews_keep_the_kinds_order():
    reads = FakeReads()
    out = run(FakeModule(kind="hosted_cluster", options={"hosted_cluster_namespace": "ns", "hosted_cluster_name": "hc"}),
              reads)
    assert [(p["verb"], p["resource"]) for p in out["permissions"]] == [(a["verb"], a["resource"]) for a in reads.sent]
    assert out["aws"] == {} and out["msg"].startswith("every permission the run needs is granted")


def test_both_parts_in_one_run_and_one_failure_naming_every_missing_permission_of_both():
    actions = ap.needed_actions({"kind": "hosted_cluster"})
    fake = FakeAws(SESSION, allowed=set(actions) - {"ec2:DeleteVpc"}, page=100)
    reads = FakeReads(deny={("delete", "releases")})
    out = run(FakeModule(aws_kind="hosted_cluster", aws=fake), reads)
    assert out["failed"] and out["missing"] == ["delete releases.core.convoy.kumodo.io in namespace team-a"]
    assert out["aws"]["missing"] == ["ec2:DeleteVpc"] and out["aws"]["caller_arn"] == SESSION
    assert out["msg"].startswith("missing permission: delete releases")
    assert "extensions/rbac/release_prune.yml" in out["msg"]
    assert "ec2:DeleteVpc (implicitDeny by simulation)" in out["msg"] and ap.POLICY_FILE in out["msg"]
    assert len(reads.sent) == 5 and [op for op, dummy in fake.sent][0] == "get_caller_identity"


def test_an_aws_only_run_builds_no_kubernetes_client_and_reports_what_is_unverified(monkeypatch):
    monkeypatch.setattr(d, "build_reads", lambda *a, **kw: pytest.fail("no Kubernetes client without kind"))
    actions = ap.needed_actions({"kind": "cfn", "clear": ["empty_buckets"]})
    fake = FakeAws("arn:aws:iam::123456789012:root", allowed=set())
    out = run(FakeModule(kind=None, aws_kind="cfn", options={"clear": ["empty_buckets"]}, aws=fake), None)
    assert "failed" not in out and out["permissions"] == [] and out["kind"] is None
    assert out["aws"]["unverified"] == actions and out["aws"]["missing"] == []
    assert [op for op, dummy in fake.sent] == ["get_caller_identity"]


@pytest.mark.parametrize("options,expected", [
    ({}, {"clear": [], "disable_termination_protection": False, "sweep_delete": True}),
    ({"clear": ["nested"], "disable_termination_protection": "true", "sweep_delete": "false", "release_namespace": "a"},
     {"clear": ["nested"], "disable_termination_protection": True, "sweep_delete": False}),
])
def test_the_aws_scope_is_aws_permission_preflight_s_options_of_the_same_names_in_the_run_s_options(options, expected):
    assert d.aws_scope(options) == expected


def test_the_run_s_options_shape_the_aws_actions_as_aws_permission_preflight_s_own_options_do():
    fake = FakeAws(SESSION, allowed=set(), page=100)
    out = run(FakeModule(kind=None, aws_kind="orphan_sweep", options={"sweep_delete": False}, aws=fake), None)
    assert [a["action"] for a in out["aws"]["actions"]] == ap.needed_actions({"kind": "orphan_sweep", "sweep_delete": False})
    assert ap.needed_actions({"kind": "orphan_sweep", "sweep_delete": False}) != ap.needed_actions(
        {"kind": "orphan_sweep", "sweep_delete": True})


def test_only_the_aws_part_missing_fails_with_its_own_message():
    actions = ap.needed_actions({"kind": "orphan_sweep", "sweep_delete": True})
    fake = FakeAws(SESSION, allowed=set(actions) - {"ec2:DeleteVpc"}, page=100)
    out = run(FakeModule(kind=None, aws_kind="orphan_sweep", aws=fake), None)
    assert out["failed"] and out["msg"].startswith("the AWS identity %s lacks 1 permission(s)" % SESSION)
    assert out["aws"]["missing"] == ["ec2:DeleteVpc"] and out["missing"] == []


def test_a_review_kind_that_cannot_be_found_fails_with_the_queries_sent():
    from ansible_collections.teardown.gates.plugins.module_utils.k8s.client import ResourceLookupError

    class Unserved(FakeReads):
        queries = [{"verb": "discover"}]

        def review_access_all(self, asked):
            raise ResourceLookupError("authorization.k8s.io/v1 SelfSubjectAccessReview: no answer", unknown=True)
    out = run(FakeModule(), Unserved())
    assert out["failed"] and "SelfSubjectAccessReview" in out["msg"] and out["queries"] == [{"verb": "discover"}]


def test_when_aws_cannot_name_the_caller_the_failure_still_names_the_missing_kubernetes_permissions():
    class Silent(FakeAws):
        def __getattr__(self, name):
            if name == "get_caller_identity":
                def refuse(**kw):
                    raise _error("ExpiredToken")
                return refuse
            return FakeAws.__getattr__(self, name)
    out = run(FakeModule(aws_kind="hosted_cluster", aws=Silent(SESSION, allowed=set())),
              FakeReads(deny={("delete", "releases")}))
    assert out["failed"] and out["msg"].startswith("missing permission: delete releases")
    assert "could not ask AWS who the caller is" in out["msg"] and out["missing"]
