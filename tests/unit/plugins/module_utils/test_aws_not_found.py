# -*- coding: utf-8 -*-
"""One not-found vocabulary per AWS service (#32): aws_client.NOT_FOUND_BY_SERVICE holds every code that either of
the two old lists (aws_client.NOT_FOUND and cfn_remedies.GONE_CODES) treated as gone, and the handlers that use
amazon.aws's is_boto3_error_code with it still take those codes as gone and re-raise anything else.
A concern test of aws/client.py's list and its users in cfn/remedies.py."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.exceptions
import pytest

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws import client as aws_client
from ansible_collections.teardown.gates.plugins.module_utils.cfn import remedies as cfn_remedies

# the two lists as they stood before #32 (aws/client.py:28 and cfn/remedies.py:159 at 2294164)
OLD_NOT_FOUND = frozenset([
    "InvalidInstanceID.NotFound", "InvalidVpcID.NotFound", "InvalidSubnetID.NotFound", "InvalidGroup.NotFound",
    "InvalidGroupId.NotFound", "InvalidRouteTableID.NotFound", "InvalidInternetGatewayID.NotFound",
    "NatGatewayNotFound", "InvalidAllocationID.NotFound", "InvalidVpcEndpointId.NotFound",
    "InvalidDhcpOptionID.NotFound", "InvalidDhcpOptionsID.NotFound", "InvalidNetworkInterfaceID.NotFound",
    "InvalidAssociationID.NotFound", "Gateway.NotAttached", "NoSuchEntity", "NoSuchBucket", "NoSuchHostedZone",
    "LoadBalancerNotFound", "TargetGroupNotFound", "AccessPointNotFound", "NoSuchKey", "404",
])
OLD_GONE_CODES = frozenset(["NoSuchEntity", "NoSuchBucket", "InvalidNetworkInterfaceID.NotFound",
                            "InvalidPermission.NotFound", "InvalidGroup.NotFound", "DBClusterNotFoundFault",
                            "DBInstanceNotFound"])


def client_error(code, op="DescribeThing"):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": "not there"}}, op)


def test_the_one_list_holds_every_code_of_the_two_old_lists():
    missing = sorted((OLD_NOT_FOUND | OLD_GONE_CODES) - aws_client.NOT_FOUND)
    assert missing == []


def test_one_list_in_one_place():
    assert set(cfn_remedies.GONE_CODES) == aws_client.NOT_FOUND
    assert set(aws_client.NOT_FOUND_CODES) == aws_client.NOT_FOUND
    assert aws_client.NOT_FOUND == frozenset(
        c for codes in aws_client.NOT_FOUND_BY_SERVICE.values() for c in codes)


def test_every_code_says_why_it_means_gone():
    for service, codes in aws_client.NOT_FOUND_BY_SERVICE.items():
        for code, why in codes.items():
            assert why and why.strip(), "%s %s" % (service, code)


@pytest.mark.parametrize("code", sorted(OLD_NOT_FOUND | OLD_GONE_CODES))
def test_is_boto3_error_code_matches_every_code_of_the_list(code):
    # is_boto3_error_code takes a list, tuple or set: a frozenset would silently match nothing
    try:
        raise client_error(code)
    except is_boto3_error_code(aws_client.NOT_FOUND_CODES):
        pass


def test_is_boto3_error_code_lets_other_codes_and_errors_through():
    with pytest.raises(botocore.exceptions.ClientError):
        try:
            raise client_error("AccessDenied")
        except is_boto3_error_code(aws_client.NOT_FOUND_CODES):
            pytest.fail("AccessDenied is not gone")
    with pytest.raises(ValueError):
        try:
            raise ValueError("not an AWS answer")
        except is_boto3_error_code(aws_client.NOT_FOUND_CODES):
            pytest.fail("only a ClientError can be gone")


@pytest.mark.parametrize("code", sorted(OLD_GONE_CODES))
def test_ok_if_gone_takes_the_old_gone_codes_as_gone(code):
    def call(service, op, **kw):
        raise client_error(code)
    assert cfn_remedies._ok_if_gone(call, "iam", "detach_role_policy", RoleName="r") is None


def test_ok_if_gone_re_raises_anything_else():
    def call(service, op, **kw):
        raise client_error("DeleteConflict")
    with pytest.raises(botocore.exceptions.ClientError):
        cfn_remedies._ok_if_gone(call, "iam", "detach_role_policy", RoleName="r")


class Calls:
    def __init__(self, code):
        self.code = code

    def call(self, service, op, **kw):
        raise client_error(self.code)


def test_holders_of_a_gone_profile_or_database_are_none():
    assert cfn_remedies._profile_holders(Calls("NoSuchEntity"), "p") == []
    assert cfn_remedies._rds_holders(Calls("DBClusterNotFoundFault"), "AWS::RDS::DBCluster", "db") == []
    assert cfn_remedies._rds_holders(Calls("DBInstanceNotFound"), "AWS::RDS::DBInstance", "db") == []
    with pytest.raises(botocore.exceptions.ClientError):
        cfn_remedies._rds_holders(Calls("AccessDenied"), "AWS::RDS::DBInstance", "db")
