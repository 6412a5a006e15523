"""What the executor's requests cost: a waiter that brings the state it was just told costs no look,
looks space out while nothing changes (less closely once AWS has throttled the run), instances go in one TerminateInstances, and a role's delete
uses what discovery saw instead of listing again.

A concern test of aws/execute.py driving aws/deletes.py and aws/client.py's reads; each has its own test file
in aws/."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import http.server
import threading

import boto3
import botocore.config
import botocore.exceptions
from botocore.parsers import ResponseParserError

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import Clients
from ansible_collections.teardown.gates.plugins.module_utils.aws.execute import Executor


def err(code, op):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": code + " (fake)"}}, op)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, s):
        self.now += max(s, 0.01)


class FakeEC2:
    """Instances that stay ``shutting-down`` for ``polls`` looks after their termination."""

    def __init__(self, ids, polls=2, unknown=()):
        self.state = dict((i, "running") for i in ids)
        self.polls = dict((i, polls) for i in ids)
        self.unknown = set(unknown)
        self.calls = []
        self.looks_at_terminated = 0

    def describe_instances(self, Filters):
        self.calls.append(("DescribeInstances", tuple(Filters[0]["Values"])))
        if all(self.state.get(i) == "terminated" for i in Filters[0]["Values"]):
            self.looks_at_terminated += 1
        out = []
        for i in Filters[0]["Values"]:
            if i not in self.state:
                continue
            if self.state[i] == "shutting-down":
                self.polls[i] -= 1
                if self.polls[i] < 0:
                    self.state[i] = "terminated"
            out.append({"InstanceId": i, "State": {"Name": self.state[i]}})
        return {"Reservations": [{"Instances": out}]}

    def describe_nat_gateways(self, Filter):
        self.calls.append(("DescribeNatGateways", tuple(Filter[0]["Values"])))
        return {"NatGateways": [{"NatGatewayId": i, "State": "deleting"} for i in Filter[0]["Values"]]}

    def terminate_instances(self, InstanceIds):
        self.calls.append(("TerminateInstances", tuple(InstanceIds)))
        if any(i in self.unknown or i not in self.state for i in InstanceIds):
            raise err("InvalidInstanceID.NotFound", "TerminateInstances")
        for i in InstanceIds:
            self.state[i] = "shutting-down"
        return {"TerminatingInstances": [{"InstanceId": i} for i in InstanceIds]}


def executor(fake, manifest, observed=None, clock=None):
    clock = clock or Clock()
    clients = Clients(lambda service: fake, concurrency=4)
    return Executor(clients, g.plan(manifest), wait_timeout=60, sleep=clock.sleep, clock=clock,
                    poll_interval=1.0, max_poll_interval=4.0, observed=observed)


def names(calls, op):
    return [c for c in calls if c[0] == op]


def test_instances_of_a_level_go_in_one_terminate_call():
    ids = ["i-1", "i-2", "i-3"]
    fake = FakeEC2(ids)
    ex = executor(fake, {g.INSTANCE: ids})
    verified, states = ex.run()
    assert verified and set(states[g.INSTANCE].values()) == {"terminal"}
    assert names(fake.calls, "TerminateInstances") == [("TerminateInstances", tuple(ids))]
    assert all(ex.results[(g.INSTANCE, i)]["outcome"] == "deleted" for i in ids)
    # the look by ID that found an instance terminated is its verification: nothing looks again at
    # instances already known to be terminated
    assert fake.looks_at_terminated == 0


def test_a_refused_batch_leaves_each_instance_to_its_own_delete():
    fake = FakeEC2(["i-1", "i-2"], unknown=["i-9"])
    ex = executor(fake, {g.INSTANCE: ["i-1", "i-2", "i-9"]}, observed={g.INSTANCE: {
        "i-1": {"state": "present"}, "i-2": {"state": "present"}, "i-9": {"state": "present"}}})
    verified, dummy = ex.run()
    assert verified
    terminates = names(fake.calls, "TerminateInstances")
    assert terminates[0] == ("TerminateInstances", ("i-1", "i-2", "i-9"))
    assert sorted(terminates[1:]) == [("TerminateInstances", ("i-1",)), ("TerminateInstances", ("i-2",)),
                                      ("TerminateInstances", ("i-9",))]
    assert ex.results[(g.INSTANCE, "i-9")]["outcome"] == "absent"
    assert ex.results[(g.INSTANCE, "i-1")]["outcome"] == "deleted"


def test_waiters_that_bring_their_state_share_one_scheduled_look():
    fake = FakeEC2([])
    clock = Clock()
    ex = executor(fake, {g.NAT: ["nat-1", "nat-2", "nat-3"]}, clock=clock)
    for n in ("nat-1", "nat-2", "nat-3"):
        assert ex.state_of(g.NAT, n, known="pending") == "pending"
    assert names(fake.calls, "DescribeNatGateways") == []  # the delete's answer is the first look
    clock.now += 1.0
    for n in ("nat-1", "nat-2", "nat-3"):
        ex.state_of(g.NAT, n)
    looks = names(fake.calls, "DescribeNatGateways")
    assert looks == [("DescribeNatGateways", ("nat-1", "nat-2", "nat-3"))]  # one batched look for all three


def look_times(ex, clock, fake, until, throttle_at=None):
    """The times at which a lone NAT gateway waiter looked, stepping 0.2 s as wait_gone does."""
    ex.state_of(g.NAT, "nat-1", known="pending")
    times = []
    while clock.now < until:
        if throttle_at is not None and clock.now >= throttle_at:
            ex.c.throttled = 1
        before = len(fake.calls)
        ex.state_of(g.NAT, "nat-1")
        if len(fake.calls) > before:
            times.append(clock.now)
        clock.now += 0.2
    return times


def gaps_of(times):
    return [round(b - a, 1) for a, b in zip(times, times[1:])]


def test_looks_space_out_while_nothing_changes_up_to_the_calm_cap():
    fake = FakeEC2([])
    clock = Clock()
    ex = executor(fake, {g.NAT: ["nat-1"]}, clock=clock)
    gaps = gaps_of(look_times(ex, clock, fake, 40))
    # the steps of 0.2 s the waiter takes blur each gap by up to one step
    assert all(b >= a - 0.25 for a, b in zip(gaps, gaps[1:])) and gaps[0] < 2
    # AWS never throttled: the gaps stop growing at calm_poll_interval (2 s), not max_poll_interval (4 s)
    assert all(1.95 <= gap <= 2.25 for gap in gaps[-5:]) and max(gaps) <= 2.25
    assert len(gaps) < 40 / 1.5  # still fewer than a look every 1.5 s


def test_once_aws_throttles_the_looks_space_out_to_max_poll_interval():
    fake = FakeEC2([])
    clock = Clock()
    ex = executor(fake, {g.NAT: ["nat-1"]}, clock=clock)
    times = look_times(ex, clock, fake, 60, throttle_at=10.0)
    before, after = gaps_of([t for t in times if t <= 10.0]), gaps_of([t for t in times if t >= 10.0])
    assert max(before) <= 2.25
    assert all(3.95 <= gap <= 4.25 for gap in after[-3:]) and max(after) <= 4.25
    assert ex.look_cap() == 4.0


class FakeIAM:
    def __init__(self):
        self.roles = {"r-1"}
        self.calls = []
        self.client = self  # what Clients unwraps

    def __getattr__(self, name):
        def call(**kw):
            self.calls.append(name)
            if name == "delete_role":
                self.roles.discard(kw["RoleName"])
            if name == "list_roles":
                return {"Roles": [{"RoleName": r} for r in self.roles]}
            return {}
        return call


def test_role_delete_uses_what_discovery_saw():
    fake = FakeIAM()
    observed = {g.ROLE: {"r-1": {"state": "present", "RolePolicyList": [{"PolicyName": "inline"}],
                                 "AttachedManagedPolicies": [{"PolicyArn": "arn:aws:iam::1:policy/p"}]}}}
    ex = executor(fake, {g.ROLE: ["r-1"]}, observed=observed)
    verified, dummy = ex.run()
    assert verified
    assert fake.calls == ["detach_role_policy", "delete_role_policy", "delete_role", "list_roles"]


def test_role_delete_lists_when_discovery_did_not_see_it():
    fake = FakeIAM()
    ex = executor(fake, {g.ROLE: ["r-1"]}, observed={g.ROLE: {"r-1": {"state": "present"}}})
    ex.run()
    assert fake.calls[:2] == ["list_attached_role_policies", "list_role_policies"]


class GarbledAnswers(object):
    """A client whose calls first get answers botocore cannot parse (an HTML 500 page), then a real one."""

    def __init__(self, garbled):
        self.garbled, self.calls = garbled, []

    def __getattr__(self, operation):
        if operation in ("client", "meta"):
            raise AttributeError(operation)

        def call(**params):
            self.calls.append(operation)
            if len(self.calls) <= self.garbled:
                raise ResponseParserError("Unable to parse response, invalid XML received")
            return {"ok": True}
        return call


def test_a_read_answered_with_an_unparseable_page_is_sent_again(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    fake = GarbledAnswers(garbled=2)
    assert Clients(lambda service: fake).call("iam", "get_account_authorization_details") == {"ok": True}
    assert fake.calls == ["get_account_authorization_details"] * 3


def test_a_read_that_stays_unparseable_fails_after_three_tries(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    fake = GarbledAnswers(garbled=5)
    try:
        Clients(lambda service: fake).call("ec2", "describe_vpcs")
    except ResponseParserError:
        pass
    else:
        raise AssertionError("a garbled answer must not read as a result")
    assert len(fake.calls) == 3


def test_a_change_answered_with_an_unparseable_page_is_not_sent_again(monkeypatch):
    # the change may have been applied: the verification by ID finds out, a blind repeat does not
    monkeypatch.setattr("time.sleep", lambda s: None)
    fake = GarbledAnswers(garbled=1)
    try:
        Clients(lambda service: fake).call("iam", "delete_role", RoleName="r")
    except ResponseParserError:
        pass
    assert fake.calls == ["delete_role"]


class Throttler(http.server.BaseHTTPRequestHandler):
    """A local EC2 endpoint: the first request is throttled, the rest answered with no interfaces."""
    answered = []

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not Throttler.answered:
            status, body = 503, ("<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit"
                                 " exceeded.</Message></Error></Errors><RequestID>r1</RequestID></Response>")
        else:
            status, body = 200, ('<DescribeNetworkInterfacesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">'
                                 "<requestId>r2</requestId><networkInterfaceSet/></DescribeNetworkInterfacesResponse>")
        Throttler.answered.append(status)
        self.send_response(status)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def test_a_throttled_attempt_that_botocore_retried_itself_is_counted():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Throttler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ec2 = boto3.session.Session().client(
            "ec2", region_name="us-east-1", endpoint_url="http://127.0.0.1:%d" % server.server_address[1],
            aws_access_key_id="testing", aws_secret_access_key="testing",
            config=botocore.config.Config(retries={"mode": "standard", "max_attempts": 3}))
        clients = Clients(lambda service: ec2)
        assert clients.call("ec2", "describe_network_interfaces")["NetworkInterfaces"] == []
    finally:
        server.shutdown()
    assert Throttler.answered == [503, 200]  # botocore retried the throttle; the call saw only the answer
    assert clients.throttled == 1
    assert clients.calls == {"ec2": {"DescribeNetworkInterfaces": 2}}
    ex = Executor(clients, g.plan({g.NAT: ["nat-1"]}), poll_interval=1.0, max_poll_interval=5.0)
    assert ex.look_cap() == 5.0  # and the waits now space out to max_poll_interval
