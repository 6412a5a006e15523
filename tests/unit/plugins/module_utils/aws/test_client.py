# -*- coding: utf-8 -*-
"""aws/client.py: aws_client's helpers for the AWS modules (#32): one way to build the Clients (module_clients), one
not-found list per service usable with amazon.aws's is_boto3_error_code (not_found), the errors a run hands to
fail_json_aws, and the paginated reads (pages, list_all)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.config
import botocore.exceptions
import pytest
from botocore.parsers import ResponseParserError

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws import client as aws_client
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import (
    AWS_ERRORS, NOT_FOUND, NOT_FOUND_BY_SERVICE, NOT_FOUND_CODES, REFUSAL_CODES, REFUSALS, Clients, Unanswered, list_all,
    module_clients, not_found, pages, paging_config)


class FakeModule:
    def __init__(self, check_mode):
        self.check_mode = check_mode
        self.made = []

    def client(self, service, config=None):
        self.made.append((service, config))
        return object()


def test_module_clients_builds_over_the_module_client_with_the_bounds_config():
    m = FakeModule(check_mode=True)
    clients = module_clients(m, "aws_infra_cleanup", concurrency=3)
    assert clients.check_mode is True
    assert m.made == []  # no client before the first call
    clients.client("ec2")
    (service, config), = m.made
    assert service == "ec2" and isinstance(config, botocore.config.Config)
    assert "aws_infra_cleanup" in config.user_agent_extra


def test_module_clients_check_mode_can_be_given():
    assert module_clients(FakeModule(check_mode=False), "x", concurrency=1, check_mode=True).check_mode is True
    assert module_clients(FakeModule(check_mode=True), "x", concurrency=1, check_mode=False).check_mode is False
    assert module_clients(FakeModule(check_mode=False), "x", concurrency=1).check_mode is False


def test_not_found_per_service_is_part_of_the_one_list():
    for service in NOT_FOUND_BY_SERVICE:
        codes = not_found(service)
        assert isinstance(codes, tuple) and set(codes) <= NOT_FOUND and set(codes) <= set(NOT_FOUND_CODES)
    assert "NoSuchEntity" in not_found("iam") and "NoSuchEntity" not in not_found("ec2")
    with pytest.raises(KeyError):
        not_found("no-such-service")


def test_refusal_codes_are_the_refusals_as_a_tuple():
    assert isinstance(REFUSAL_CODES, tuple) and set(REFUSAL_CODES) == REFUSALS
    assert not set(REFUSAL_CODES) & NOT_FOUND


def _raised(code):
    try:
        raise botocore.exceptions.ClientError({"Error": {"Code": code, "Message": "m"}}, "Op")
    except is_boto3_error_code(not_found("ec2")):
        return "gone"
    except is_boto3_error_code(REFUSAL_CODES):  # pylint: disable=duplicate-except
        return "refused"
    except AWS_ERRORS:
        return "other"


@pytest.mark.parametrize("code, what", [
    ("InvalidSubnetID.NotFound", "gone"), ("DependencyViolation", "refused"), ("UnauthorizedOperation", "other"),
    ("NoSuchEntity", "other"),  # IAM's not-found is not EC2's
])
def test_is_boto3_error_code_takes_the_tuples(code, what):
    assert _raised(code) == what


def test_aws_errors_catch_a_silent_endpoint_too():
    assert issubclass(Unanswered, AWS_ERRORS)
    assert aws_client.AWS_ERRORS == (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError)


# ---- paginated reads (moved from test_aws_pages.py): botocore's own paginator data for each operation (its
# input and output tokens and its "more results" flag), one page per Clients.call: every page is counted, guarded
# in check mode and sent again alone when its answer cannot be parsed

class Paged:
    """One operation's pages, keyed by the request's token parameters (a tuple of (name, value))."""

    def __init__(self, operation, answers, garble=()):
        self.operation, self.answers, self.garble = operation, answers, set(garble)
        self.sent = []

    def __getattr__(self, operation):
        if operation != self.operation:
            raise AttributeError(operation)

        def call(**params):
            tokens = tuple(sorted((k, v) for k, v in params.items() if k not in ("Filters", "Filter", "Bucket",
                                                                                 "HostedZoneId", "Scope", "StackName")))
            self.sent.append(tokens)
            if tokens in self.garble:
                self.garble.discard(tokens)
                raise ResponseParserError("Unable to parse response, invalid XML received")
            return self.answers[tokens]
        return call


def clients(fake, check_mode=False):
    return Clients(lambda service: fake, check_mode=check_mode)


def test_ec2_pages_follow_next_token_until_it_is_absent():
    fake = Paged("describe_vpcs", {
        (): {"Vpcs": [{"VpcId": "vpc-1"}], "NextToken": "t1"},
        (("NextToken", "t1"),): {"Vpcs": [{"VpcId": "vpc-2"}], "NextToken": "t2"},
        (("NextToken", "t2"),): {"Vpcs": [{"VpcId": "vpc-3"}]},
    })
    got = list_all(clients(fake), "ec2", "describe_vpcs", "Vpcs", Filters=[{"Name": "tag-key", "Values": ["k"]}])
    assert [v["VpcId"] for v in got] == ["vpc-1", "vpc-2", "vpc-3"]
    assert fake.sent == [(), (("NextToken", "t1"),), (("NextToken", "t2"),)]


def test_iam_stops_when_is_truncated_is_false_even_with_a_marker():
    # IAM's flag decides (more_results), as botocore's paginator reads it; a stale Marker is not a next page
    fake = Paged("list_roles", {
        (): {"Roles": [{"RoleName": "a"}], "IsTruncated": True, "Marker": "m1"},
        (("Marker", "m1"),): {"Roles": [{"RoleName": "b"}], "IsTruncated": False, "Marker": "m2"},
    })
    assert [r["RoleName"] for r in list_all(clients(fake), "iam", "list_roles", "Roles")] == ["a", "b"]
    assert len(fake.sent) == 2


def test_route53_records_page_with_all_three_tokens():
    fake = Paged("list_resource_record_sets", {
        (): {"ResourceRecordSets": [{"Name": "a."}], "IsTruncated": True, "NextRecordName": "b.",
             "NextRecordType": "A", "NextRecordIdentifier": "w1"},
        (("StartRecordIdentifier", "w1"), ("StartRecordName", "b."), ("StartRecordType", "A")): {
            "ResourceRecordSets": [{"Name": "b."}], "IsTruncated": False},
    })
    got = list_all(clients(fake), "route53", "list_resource_record_sets", "ResourceRecordSets", HostedZoneId="Z")
    assert [r["Name"] for r in got] == ["a.", "b."]


def test_s3_versions_and_delete_markers_come_from_every_page():
    fake = Paged("list_object_versions", {
        (): {"Versions": [{"Key": "k", "VersionId": "1"}], "IsTruncated": True, "NextKeyMarker": "k",
             "NextVersionIdMarker": "1"},
        (("KeyMarker", "k"), ("VersionIdMarker", "1")): {"DeleteMarkers": [{"Key": "k", "VersionId": "2"}],
                                                         "IsTruncated": False},
    })
    got = list_all(clients(fake), "s3", "list_object_versions", ("Versions", "DeleteMarkers"), Bucket="b")
    assert [v["VersionId"] for v in got] == ["1", "2"]


def test_until_stops_after_the_page_it_accepts():
    fake = Paged("describe_stack_events", {
        (): {"StackEvents": [{"EventId": "new"}], "NextToken": "t1"},
        (("NextToken", "t1"),): {"StackEvents": [{"EventId": "seen"}], "NextToken": "t2"},
    })
    got = pages(clients(fake), "cloudformation", "describe_stack_events", StackName="s",
                until=lambda page: any(e["EventId"] == "seen" for e in page["StackEvents"]))
    assert len(got) == 2 and len(fake.sent) == 2  # the page after t2 is never asked for


def test_a_token_answered_twice_is_an_error_not_an_endless_listing():
    fake = Paged("describe_subnets", {
        (): {"Subnets": [], "NextToken": "same"},
        (("NextToken", "same"),): {"Subnets": [], "NextToken": "same"},
    })
    with pytest.raises(RuntimeError, match="same next token twice"):
        list_all(clients(fake), "ec2", "describe_subnets", "Subnets")
    assert len(fake.sent) == 2


def test_an_unparseable_page_is_asked_again_alone(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    fake = Paged("describe_vpcs", {
        (): {"Vpcs": [{"VpcId": "vpc-1"}], "NextToken": "t1"},
        (("NextToken", "t1"),): {"Vpcs": [{"VpcId": "vpc-2"}]},
    }, garble=[(("NextToken", "t1"),)])
    got = list_all(clients(fake), "ec2", "describe_vpcs", "Vpcs")
    assert [v["VpcId"] for v in got] == ["vpc-1", "vpc-2"]
    assert fake.sent == [(), (("NextToken", "t1"),), (("NextToken", "t1"),)]


def test_pages_are_counted_per_attempt_and_allowed_in_check_mode():
    fake = Paged("list_hosted_zones", {
        (): {"HostedZones": [{"Id": "Z1"}], "IsTruncated": True, "NextMarker": "Z2"},
        (("Marker", "Z2"),): {"HostedZones": [{"Id": "Z2"}], "IsTruncated": False},
    })
    c = clients(fake, check_mode=True)
    assert len(list_all(c, "route53", "list_hosted_zones", "HostedZones")) == 2


def test_the_tokens_are_botocores_and_an_unlisted_read_names_its_source():
    assert paging_config("iam", "get_account_authorization_details")["more_results"] == "IsTruncated"
    assert paging_config("elbv2", "describe_load_balancers")["output_token"] == "NextMarker"
    # no paginator in botocore's data: the tokens from AWS's API reference
    assert paging_config("route53", "list_hosted_zones_by_vpc")["input_token"] == "NextToken"
    with pytest.raises(ValueError, match="no paginator"):
        paging_config("iam", "list_open_id_connect_providers")


def test_a_token_the_next_answer_leaves_empty_is_not_sent_again():
    fake = Paged("list_resource_record_sets", {
        (): {"ResourceRecordSets": [{"Name": "a."}], "IsTruncated": True, "NextRecordName": "b.",
             "NextRecordType": "A", "NextRecordIdentifier": "w1"},
        (("StartRecordIdentifier", "w1"), ("StartRecordName", "b."), ("StartRecordType", "A")): {
            "ResourceRecordSets": [{"Name": "b."}], "IsTruncated": True, "NextRecordName": "c.", "NextRecordType": "A"},
        (("StartRecordName", "c."), ("StartRecordType", "A")): {"ResourceRecordSets": [{"Name": "c."}], "IsTruncated": False},
    })
    got = list_all(clients(fake), "route53", "list_resource_record_sets", "ResourceRecordSets", HostedZoneId="Z")
    assert [r["Name"] for r in got] == ["a.", "b.", "c."]
