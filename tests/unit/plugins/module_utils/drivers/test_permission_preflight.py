# -*- coding: utf-8 -*-
"""drivers/permission_preflight (#33): one review per permission, every missing and unanswered one named with the
RBAC file, bad input before any request."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.drivers import permission_preflight as d


class Exited(Exception):
    pass


class FakeModule:
    def __init__(self, kind="release_prune", options=None, request_timeout=10):
        self.params = {"kind": kind, "options": options if options is not None else {"release_namespace": "team-a"},
                       "request_timeout": request_timeout}
        self.check_mode = True
        self.result = None

    def fail_json(self, **kw):
        self.result = dict(kw, failed=True)
        raise Exited()

    def exit_json(self, **kw):
        self.result = kw
        raise Exited()


class FakeReads:
    def __init__(self, deny=(), silent=()):
        self.deny, self.silent, self.sent = set(deny), set(silent), []

    def review_access(self, attributes, what=None):
        self.sent.append(attributes)
        key = (attributes["verb"], attributes["resource"])
        if key in self.silent:
            return {"allowed": None, "reason": "timeout", "query": {}}
        return {"allowed": key not in self.deny, "reason": "", "query": {}}


def run(module, reads):
    with pytest.raises(Exited):
        d.run(module, reads)
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
])
def test_bad_input_fails_before_any_review(module, names):
    with pytest.raises(Exited):
        d.check(module)
    assert module.result["failed"] and module.result["msg"].startswith(names)


def test_a_kind_without_a_kubernetes_side_reviews_nothing():
    reads = FakeReads()
    out = run(FakeModule(kind="cfn", options={}), reads)
    assert reads.sent == [] and out["rbac_file"] is None and "failed" not in out
