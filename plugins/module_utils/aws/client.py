# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWS call layer every AWS module shares: one wrapper over amazon.aws's clients that counts
requests, refuses anything but reads in check mode (an allow-list of AWS's read verbs), names a silent
endpoint, and classifies AWS's error codes (not found, refusal, throttle).

Retries are botocore's alone (standard mode, ``bounds.AWS_MAX_ATTEMPTS``; ``bounds.aws_config``), so one
silent endpoint costs one call's bound, not a product of layers."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import threading
import time

try:
    import botocore.exceptions
    import botocore.loaders
    import jmespath
    from botocore.parsers import ResponseParserError
except ImportError:  # pragma: no cover - AnsibleAWSModule reports the missing dependency
    ResponseParserError = None

from ansible_collections.teardown.gates.plugins.module_utils.core import bounds
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

# AWS's answers that the resource named in the request does not exist, per service: the collection's one not-found
# vocabulary (cfn_remedies.GONE_CODES is this one too). A read that meets one of these reads the resource as absent,
# a delete or detach that meets one has nothing left to do. Each code with why it means gone.
NOT_FOUND_BY_SERVICE = {
    "ec2": {
        "InvalidInstanceID.NotFound": "no instance with that ID (terminated and expired, or never there)",
        "InvalidVpcID.NotFound": "no VPC with that ID",
        "InvalidSubnetID.NotFound": "no subnet with that ID",
        "InvalidGroup.NotFound": "no security group with that ID or name",
        "InvalidGroupId.NotFound": "no security group with that ID (the spelling some EC2 calls use)",
        "InvalidRouteTableID.NotFound": "no route table with that ID",
        "InvalidInternetGatewayID.NotFound": "no internet gateway with that ID",
        "NatGatewayNotFound": "no NAT gateway with that ID (a deleted one is listed as deleted for a while instead)",
        "InvalidAllocationID.NotFound": "no Elastic IP with that allocation ID (released)",
        "InvalidVpcEndpointId.NotFound": "no VPC endpoint with that ID",
        "InvalidVpcEndpointServiceId.NotFound": "no VPC endpoint service configuration with that ID (Describe*, Reject*)",
        "InvalidVpcEndpointService.NotFound": "no VPC endpoint service with that ID (the spelling of "
                                              "DeleteVpcEndpointServiceConfigurations' Unsuccessful items)",
        "InvalidDhcpOptionID.NotFound": "no DHCP options set with that ID",
        "InvalidDhcpOptionsID.NotFound": "no DHCP options set with that ID (the spelling some EC2 calls use)",
        "InvalidNetworkInterfaceID.NotFound": "no network interface with that ID (deleted with its instance or by hand)",
        "InvalidAssociationID.NotFound": "no such association (route table or address): the link is already undone",
        "Gateway.NotAttached": "the internet gateway is not attached to that VPC: the detach has nothing left to do",
        "InvalidPermission.NotFound": "no such security group rule: the revoke has nothing left to do",
        "InvalidVolume.NotFound": "no EBS volume with that ID (deleted, by us or with its instance)",
    },
    "iam": {
        "NoSuchEntity": "no role, user, policy, instance profile or OIDC provider of that name or ARN",
    },
    "s3": {
        "NoSuchBucket": "no bucket of that name",
        "NoSuchKey": "no object of that key",
        "404": "a HEAD request's answer (no body, so botocore names the code by the HTTP status): not there",
    },
    "route53": {
        "NoSuchHostedZone": "no hosted zone with that ID",
    },
    "elb": {
        "LoadBalancerNotFound": "no classic load balancer of that name (elbv2 uses the same code for its own)",
    },
    "elbv2": {
        "LoadBalancerNotFound": "no load balancer with that ARN",
        "TargetGroupNotFound": "no target group with that ARN",
    },
    "efs": {
        "AccessPointNotFound": "no EFS access point with that ID",
    },
    "rds": {
        "DBClusterNotFoundFault": "no DB cluster of that identifier",
        "DBInstanceNotFound": "no DB instance of that identifier",
    },
}
# every service's codes at once, for a caller that already knows the call was about one resource
NOT_FOUND = frozenset(code for codes in NOT_FOUND_BY_SERVICE.values() for code in codes)
# the same codes as a tuple, for amazon.aws's is_boto3_error_code (which takes a list, tuple or set, not a frozenset)
NOT_FOUND_CODES = tuple(sorted(NOT_FOUND))
REFUSALS = frozenset([
    "DependencyViolation", "InvalidIPAddress.InUse", "DeleteConflict", "HostedZoneNotEmpty", "BucketNotEmpty",
    "ResourceInUse", "InvalidNetworkInterface.InUse", "CannotDelete", "VolumeInUse",
    # DeleteVpcEndpointServiceConfigurations' Unsuccessful item while endpoints are still connected to the service
    "ExistingVpcEndpointConnections",
])
# the same codes as a tuple, for is_boto3_error_code
REFUSAL_CODES = tuple(sorted(REFUSALS))
# AuthFailure, UnauthorizedOperation, AccessDenied are not refusals: no blocker explains them and a
# retry cannot clear them, so they fail at once, by ID, with AWS's words (the state stays unknown).
# reads answered with something botocore cannot parse: botocore does not retry these (it raises before its
# retry check), so this is not a second layer over its retries for the same failure
PARSER_ATTEMPTS = 3
# answers that ask the caller to slow down (botocore retries them; the executor's waits also space out)
THROTTLE_CODES = frozenset([
    "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottled", "RequestThrottledException",
    "RequestLimitExceeded", "SlowDown", "TooManyRequestsException", "PriorRequestNotComplete",
    "EC2ThrottledException", "BandwidthLimitExceeded",
])
# Check mode sends reads only. An allow-list, not a deny-list of verbs: an operation whose name does
# not start with one of AWS's read verbs (botocore's snake_case names) is refused, so a new kind of
# call (update_termination_protection, stop_instances, set_stack_policy ...) cannot slip through.
READ_PREFIXES = ("describe_", "list_", "get_", "head_")
# The permission checks, which change nothing either and so pass in check mode: IAM's policy simulation, and an EC2
# call with DryRun=True (AWS answers DryRunOperation or UnauthorizedOperation and acts on nothing). Only these: any
# other operation, or an EC2 call without DryRun=True, is still refused.
PERMISSION_CHECKS = frozenset([("iam", "simulate_principal_policy")])


def not_found(service):
    """The codes with which ``service`` (boto3's name: ``ec2``, ``iam`` ...) answers that the resource is not there, as
    a tuple for amazon.aws's ``is_boto3_error_code``; a service this collection does not know has none (KeyError)."""
    return tuple(sorted(NOT_FOUND_BY_SERVICE[service]))


def is_read_operation(operation):
    """True when ``operation`` (botocore's snake_case name, e.g. ``describe_vpcs``) only reads."""
    return isinstance(operation, str) and operation.startswith(READ_PREFIXES)


def is_permission_check(service, operation, params):
    """True for a call that only asks whether the caller may do something: ``PERMISSION_CHECKS``, or an EC2 call whose
    ``DryRun`` parameter is True (the bool itself, not a truthy value)."""
    if (service, operation) in PERMISSION_CHECKS:
        return True
    return service == "ec2" and (params or {}).get("DryRun") is True


def error_code(exc):
    try:
        return exc.response["Error"]["Code"]
    except (AttributeError, KeyError, TypeError):
        return None


def error_text(exc):
    try:
        err = exc.response["Error"]
        return "%s: %s" % (err.get("Code"), err.get("Message"))
    except (AttributeError, KeyError, TypeError):
        return "%s: %s" % (type(exc).__name__, exc)


# what an AWS request raises (AWS answered with an error, or botocore got no usable answer): the one tuple a run
# catches to hand the failure to AnsibleAWSModule.fail_json_aws
try:
    AWS_ERRORS = (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError)
except NameError:  # pragma: no cover - botocore missing, AnsibleAWSModule reports it
    AWS_ERRORS = ()


class CheckModeViolation(TeardownGatesError):
    """A mutating AWS call was about to be sent in check mode; it was not sent."""


# botocore's words for "no answer came in time" (after all its attempts): nothing was learned, the request may or
# may not have been applied. A refused or dropped connection is not here: it fails fast on its own.
try:
    UNANSWERED = (botocore.exceptions.ConnectTimeoutError, botocore.exceptions.ReadTimeoutError)

    class Unanswered(botocore.exceptions.BotoCoreError, TeardownGatesError):
        """A service's endpoint gave no answer within its bound; the module's later calls to it are not sent.
        A BotoCoreError first (botocore and amazon.aws handle it as theirs), and one of this collection's errors."""
        fmt = "{msg}"
        unknown = True  # the request may or may not have been applied
except NameError:  # pragma: no cover - botocore missing, AnsibleAWSModule reports it
    UNANSWERED = ()
    Unanswered = Exception


def unanswered_text(service, op_name, endpoint, exc):
    return ("the AWS endpoint %s did not answer %s %s (%s) within %d s (%d attempts, connect timeout %d s and read "
            "timeout %d s each): what AWS holds is unknown, and no further request to it was sent. Check the endpoint "
            "(AWS_ENDPOINT_URL or endpoint_url), the network path and any proxy, and a VPC endpoint's security "
            "group" % (endpoint, service, op_name, exc, bounds.aws_call_bound(), bounds.AWS_MAX_ATTEMPTS,
                       bounds.AWS_CONNECT_TIMEOUT, bounds.AWS_READ_TIMEOUT))


class Clients:
    """boto3 clients shared by the executor's threads: a bound on requests in flight, a count of every HTTP
    attempt by service and action (and of the throttled ones), and a guard that no mutating call leaves in
    check mode. ``config`` (``bounds.aws_config(module)``) is passed to ``factory`` (AnsibleAWSModule.client):
    its timeouts, its one retry policy and the user agent."""

    def __init__(self, factory, concurrency=8, check_mode=False, config=None):
        self._factory = factory
        self._config = config
        self._clients = {}
        self._lock = threading.Lock()
        self.sem = threading.BoundedSemaphore(max(1, int(concurrency)))
        self.check_mode = check_mode
        self.calls = {}
        self.errors = {}
        self.throttled = 0  # attempts AWS answered with a throttling code, botocore's own retries included
        self.unanswered = {}  # endpoint URL -> why it is taken as silent (no later call to it is sent, by any service)

    def client(self, service):
        with self._lock:
            if service not in self._clients:
                c = self._factory(service, config=self._config) if self._config is not None else self._factory(service)
                inner = getattr(c, "client", c)  # RetryingBotoClientWrapper keeps the boto3 client here
                events = getattr(getattr(inner, "meta", None), "events", None)
                if events is not None:
                    events.register("before-send", functools.partial(self._count, service))
                    events.register("needs-retry", self._note_throttle)
                self._clients[service] = inner
            return self._clients[service]

    def _count(self, service, **kwargs):
        action = kwargs.get("event_name", "").split(".")[-1]
        with self._lock:
            svc = self.calls.setdefault(service, {})
            svc[action] = svc.get(action, 0) + 1
        return None

    def _note_throttle(self, response=None, **kwargs):
        """Called by botocore after every attempt; returns None so that its own retry decision stands."""
        parsed = response[1] if isinstance(response, tuple) and len(response) > 1 else None
        code = parsed.get("Error", {}).get("Code") if isinstance(parsed, dict) else None
        if code in THROTTLE_CODES:
            with self._lock:
                self.throttled += 1
        return None

    def call(self, service, operation, **params):
        method = getattr(self.client(service), operation)
        op_name = "".join(w.capitalize() for w in operation.split("_"))
        reads = is_read_operation(operation) or is_permission_check(service, operation, params)
        if self.check_mode and not reads:
            raise CheckModeViolation("check mode sends reads only (Describe, List, Get, Head, and the permission checks: "
                                     "IAM's SimulatePrincipalPolicy, EC2's DryRun): refusing %s.%s"
                                     % (service, op_name))

        def do():
            for attempt in range(PARSER_ATTEMPTS):
                try:
                    return method(**params)
                except ResponseParserError:
                    # an answer that is neither AWS's XML nor its JSON (an HTML 5xx page from a front end):
                    # botocore says a retry may succeed; a read is safe to send again, a change is left to
                    # the verification by ID
                    if not reads or attempt + 1 >= PARSER_ATTEMPTS:
                        raise
                    time.sleep(0.5 * 3 ** attempt)

        endpoint = getattr(getattr(self.client(service), "meta", None), "endpoint_url", None) or service
        gone = self.unanswered.get(endpoint)
        if gone is not None:  # this endpoint already failed to answer: the run's bound is one call's, not one per call
            raise Unanswered(msg=gone)
        try:
            with self.sem:
                return do()
        except UNANSWERED as e:
            text = unanswered_text(service, op_name, endpoint, e)
            with self._lock:
                self.unanswered.setdefault(endpoint, text)
            raise Unanswered(msg=text)
        except botocore.exceptions.ClientError as e:
            code = error_code(e)
            with self._lock:
                self.errors[code] = self.errors.get(code, 0) + 1
            raise


def pages(clients, service, operation, until=None, **params):
    """Every page of a paginated read, in order, with the tokens of botocore's own paginator for it (its
    published input and output tokens and "more results" flag). Each page is sent by ``clients.call``, so
    each is counted, bounded, guarded and, on an unparseable answer, asked again alone, which botocore's
    PageIterator (a generator over the raw client) could not give. ``until(page)`` true stops after that
    page."""
    config = paging_config(service, operation)
    kw, out, seen = dict(params), [], set()
    while True:
        page = clients.call(service, operation, **kw)
        out.append(page)
        token = next_token(config, page)
        if token is None or (until is not None and until(page)):
            return out
        key = repr(sorted(token.items()))
        if key in seen:  # as botocore's PaginationError: a loop, not more pages
            raise RuntimeError("%s.%s answered the same next token twice: %r" % (service, operation, token))
        seen.add(key)
        # as botocore's paginator does: an input token this answer left empty is dropped, not kept from before
        for name in _as_list(config["input_token"]):
            kw.pop(name, None)
        kw.update(token)


_PAGING = {}
# reads that page but have no paginator in botocore's data: their tokens, from AWS's API reference
# (Route 53 ListHostedZonesByVPC: "NextToken" in the request and the response)
UNLISTED_PAGING = {
    ("route53", "list_hosted_zones_by_vpc"): {"input_token": "NextToken", "output_token": "NextToken"},
}


def paging_config(service, operation):
    """botocore's paginator entry for ``operation`` (snake_case): input_token, output_token, more_results."""
    if service not in _PAGING:
        data = botocore.loaders.create_loader().load_service_model(service, "paginators-1")
        _PAGING[service] = dict((name.lower(), cfg) for name, cfg in data["pagination"].items())
    config = _PAGING[service].get(operation.replace("_", "")) or UNLISTED_PAGING.get((service, operation))
    if config is None:
        raise ValueError("botocore has no paginator for %s.%s" % (service, operation))
    return config


def _as_list(value):
    return value if isinstance(value, list) else [value]


def next_token(config, page):
    """The parameters for the page after ``page``, or None when it is the last (botocore's rule: its more
    results flag false, or every output token empty)."""
    more = config.get("more_results")
    if more and not jmespath.search(more, page):
        return None
    inputs, outputs = _as_list(config["input_token"]), _as_list(config["output_token"])
    values = [jmespath.search(expr, page) for expr in outputs]
    if not any(values):
        return None
    return dict((name, value) for name, value in zip(inputs, values) if value)


def page_items(page_list, key):
    """The items under ``key`` (a name, or a tuple of names) of every page, in order."""
    keys = key if isinstance(key, tuple) else (key,)
    return [item for page in page_list for k in keys for item in page.get(k) or []]


def list_all(clients, service, operation, key, **params):
    """The items under ``key`` of every page of a paginated read (``pages``), in order."""
    return page_items(pages(clients, service, operation, **params), key)


ENI = "AWS::EC2::NetworkInterface"


def chunks(seq, n):
    seq = list(seq)
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def module_clients(module, caller, concurrency, check_mode=None):
    """The one way an AWS module builds its ``Clients``: over ``module.client`` (AnsibleAWSModule's, which creates each
    boto3 client when first used and reports a failure to create one itself), with ``bounds.aws_config(caller)``'s
    timeouts, retry policy and user agent. ``check_mode`` defaults to the module's."""
    return Clients(module.client, concurrency=concurrency,
                   check_mode=module.check_mode if check_mode is None else check_mode, config=bounds.aws_config(caller))
