"""Paginated reads follow botocore's own paginator data for each operation (its input and output tokens and
its "more results" flag), one page per ``Clients.call``: every page is counted, guarded in check mode and
sent again alone when its answer cannot be parsed."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from botocore.parsers import ResponseParserError

from ansible_collections.teardown.gates.plugins.module_utils.aws.client import Clients, list_all, pages, \
    paging_config


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
