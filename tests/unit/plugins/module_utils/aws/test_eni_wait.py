"""The merged wait: NAT gateways `deleting`, instances `shutting-down` and a load balancer's lingering ENIs
are watched through one DescribeNetworkInterfaces on their VPC; a NAT gateway or an instance whose ENI is
gone is confirmed by one batched look by ID; a slow look by ID catches an owner whose ENI outlives it; a
failed look never reads as gone."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

import botocore.exceptions

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as g
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import Clients
from ansible_collections.teardown.gates.plugins.module_utils.aws.deletes import elb_eni_description, eni_signals
from ansible_collections.teardown.gates.plugins.module_utils.aws.execute import Executor

VPC = "vpc-1"


def err(code, op):
    return botocore.exceptions.ClientError({"Error": {"Code": code, "Message": code + " (fake)"}}, op)


class Clock:
    def __init__(self):
        self.now = 0.0
        self.lock = threading.Lock()

    def __call__(self):
        return self.now

    def sleep(self, s):
        with self.lock:
            self.now += max(s, 0.01)


class FakeAWS:
    """One VPC with NAT gateways, instances and a classic ELB. Transitions follow the number of ENI looks
    answered since the resource's own delete (not time), so the counts below do not depend on thread timing:
    instances terminate ``instance_at`` looks after TerminateInstances, NAT gateways ``nat_at`` looks after
    their delete, the ELB's ENIs go ``elb_at`` looks after it. ``nat_eni_outlives``: the NAT's ENI stays
    listed after the gateway is ``deleted``."""

    def __init__(self, nats=("nat-1",), instances=("i-1", "i-2"), elb="lb-1", instance_at=2, nat_at=4, elb_at=5,
                 nat_eni_outlives=False, eni_error=None):
        self.started = {}  # name -> the ENI look count when its delete came
        self.nats = dict((n, "available") for n in nats)
        self.instances = dict((i, "running") for i in instances)
        self.elb = elb
        self.elb_deleted = False
        self.instance_at, self.nat_at, self.elb_at = instance_at, nat_at, elb_at
        self.nat_eni_outlives = nat_eni_outlives
        self.eni_error = eni_error
        self.looks = 0
        self.calls = []
        self.lock = threading.Lock()
        self.world = threading.Lock()  # a look and a delete never interleave: ``started`` is exact

    def _log(self, *what):
        with self.lock:
            self.calls.append(what)

    def names(self, action):
        return [c for c in self.calls if c[0] == action]

    # ---- the world after ``looks`` ENI looks
    def _enis(self):
        out = []
        for n, st in self.nats.items():
            if st != "deleted" or self.nat_eni_outlives:
                out.append({"NetworkInterfaceId": "eni-" + n, "VpcId": VPC, "Status": "in-use"})
        for i, st in self.instances.items():
            if st != "terminated":
                out.append({"NetworkInterfaceId": "eni-" + i, "VpcId": VPC, "Status": "in-use",
                            "Attachment": {"InstanceId": i, "DeviceIndex": 0}})
        if self.elb and not self._after(self.elb, self.elb_at):
            out += [{"NetworkInterfaceId": "eni-elb-%d" % k, "VpcId": VPC, "Description": "ELB " + self.elb}
                    for k in range(3)]
        return out

    def describe_network_interfaces(self, Filters):
        self._log("DescribeNetworkInterfaces", Filters[0]["Name"], tuple(Filters[0]["Values"]))
        if self.eni_error:
            raise err(self.eni_error, "DescribeNetworkInterfaces")
        with self.world:
            self.looks += 1
            for i, st in self.instances.items():
                if st == "shutting-down" and self._after(i, self.instance_at):
                    self.instances[i] = "terminated"
            for n, st in self.nats.items():
                if st == "deleting" and self._after(n, self.nat_at):
                    self.nats[n] = "deleted"
            return {"NetworkInterfaces": self._enis()}

    def _after(self, name, k):
        return name in self.started and self.looks - self.started[name] >= k

    def last_transition(self):
        """The ENI look that showed the last transition: what one shared stream needs, no more."""
        ks = dict([(n, self.nat_at) for n in self.nats] + [(i, self.instance_at) for i in self.instances]
                  + ([(self.elb, self.elb_at)] if self.elb else []))
        return max(self.started[n] + k for n, k in ks.items())

    def describe_nat_gateways(self, Filter):
        self._log("DescribeNatGateways", tuple(Filter[0]["Values"]))
        return {"NatGateways": [{"NatGatewayId": n, "State": self.nats[n], "VpcId": VPC}
                                for n in Filter[0]["Values"] if n in self.nats]}

    def describe_instances(self, Filters):
        self._log("DescribeInstances", tuple(Filters[0]["Values"]))
        return {"Reservations": [{"Instances": [{"InstanceId": i, "State": {"Name": self.instances[i]}, "VpcId": VPC}
                                                for i in Filters[0]["Values"] if i in self.instances]}]}

    def describe_load_balancers(self, LoadBalancerNames):
        self._log("DescribeLoadBalancers", tuple(LoadBalancerNames))
        if self.elb_deleted:
            raise err("LoadBalancerNotFound", "DescribeLoadBalancers")
        return {"LoadBalancerDescriptions": [{"LoadBalancerName": self.elb, "VPCId": VPC}]}

    def delete_nat_gateway(self, NatGatewayId):
        self._log("DeleteNatGateway", NatGatewayId)
        with self.world:
            self.started[NatGatewayId] = self.looks
            self.nats[NatGatewayId] = "deleting"

    def terminate_instances(self, InstanceIds):
        self._log("TerminateInstances", tuple(InstanceIds))
        with self.world:
            for i in InstanceIds:
                self.started[i] = self.looks
                self.instances[i] = "shutting-down"
        return {"TerminatingInstances": [{"InstanceId": i} for i in InstanceIds]}

    def delete_load_balancer(self, LoadBalancerName):
        self._log("DeleteLoadBalancer", LoadBalancerName)
        with self.world:
            self.started[LoadBalancerName] = self.looks
            self.elb_deleted = True


def observed(fake):
    """What discovery saw: each resource with its VPC, the NAT gateways with their ENI."""
    return {
        g.NAT: dict((n, {"state": "present", "VpcId": VPC, "NatGatewayId": n,
                         "NatGatewayAddresses": [{"NetworkInterfaceId": "eni-" + n}]}) for n in fake.nats),
        g.INSTANCE: dict((i, {"state": "present", "VpcId": VPC, "InstanceId": i}) for i in fake.instances),
        g.ELB: {fake.elb: {"state": "present", "VPCId": VPC}},
    }


def run(fake, clock=None, wait_timeout=300, **kw):
    clock = clock or Clock()
    manifest = {g.NAT: list(fake.nats), g.INSTANCE: list(fake.instances), g.ELB: [fake.elb]}
    ex = Executor(Clients(lambda service: fake, concurrency=4), g.plan(manifest), wait_timeout=wait_timeout,
                  sleep=clock.sleep, clock=clock, observed=observed(fake), **kw)
    return ex, ex.run()


# ---------------------------------------------------------------- what one look says (pure)
def test_a_nat_gateway_holds_while_its_eni_is_listed():
    w = [{"type": g.NAT, "id": "nat-1", "enis": {"eni-a"}}]
    assert eni_signals(w, [{"NetworkInterfaceId": "eni-a"}]) == {(g.NAT, "nat-1"): "holding"}
    assert eni_signals(w, [{"NetworkInterfaceId": "eni-b"}]) == {(g.NAT, "nat-1"): "released"}


def test_an_instance_holds_while_an_eni_is_attached_to_it():
    w = [{"type": g.INSTANCE, "id": "i-1"}]
    attached = {"NetworkInterfaceId": "eni-a", "Attachment": {"InstanceId": "i-1"}}
    left_behind = {"NetworkInterfaceId": "eni-a", "Status": "available"}  # not deleted on termination
    assert eni_signals(w, [attached]) == {(g.INSTANCE, "i-1"): "holding"}
    assert eni_signals(w, [left_behind]) == {(g.INSTANCE, "i-1"): "released"}
    assert eni_signals(w, []) == {(g.INSTANCE, "i-1"): "released"}


def test_a_load_balancer_holds_while_an_eni_carries_its_description():
    arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/net/nlb-1/50dc6c495c0c9188"
    w = [{"type": g.ELB, "id": "lb-1", "desc": elb_eni_description(g.ELB, "lb-1")},
         {"type": g.ELBV2, "id": arn, "desc": elb_eni_description(g.ELBV2, arn)}]
    enis = [{"NetworkInterfaceId": "eni-a", "Description": "ELB net/nlb-1/50dc6c495c0c9188"}]
    assert eni_signals(w, enis) == {(g.ELB, "lb-1"): "released", (g.ELBV2, arn): "holding"}


# ---------------------------------------------------------------- the executor's merged wait
def executor(fake, clock, **kw):
    manifest = {g.NAT: list(fake.nats), g.INSTANCE: list(fake.instances), g.ELB: [fake.elb] if fake.elb else []}
    ex = Executor(Clients(lambda service: fake, concurrency=4), g.plan(manifest), wait_timeout=300,
                  sleep=clock.sleep, clock=clock, observed=observed(fake), **kw)
    ex.deadline = clock() + 300
    ex.observe_all()  # discovery saw every resource: no request
    return ex


def poll_until_done(ex, clock, keys, rounds=200):
    """The waiters' loops, one after another in one thread: what each would see, in a fixed order."""
    states = dict((k, "pending") for k in keys)
    for dummy in range(rounds):
        for k in keys:
            if states[k] not in ("absent", "terminal"):
                states[k] = ex.eni_poll(k)
        if all(v in ("absent", "terminal") for v in states.values()):
            return states
        clock.sleep(0.2)
    return states


def test_one_eni_look_per_round_serves_every_waiter_and_each_owner_is_confirmed_by_id():
    fake = FakeAWS(nats=("nat-1", "nat-2"), instance_at=2, nat_at=4, elb_at=5)
    clock = Clock()
    ex = executor(fake, clock, backstop_interval=1e9)
    fake.terminate_instances(["i-1", "i-2"])
    fake.delete_nat_gateway("nat-1")
    fake.delete_nat_gateway("nat-2")
    fake.delete_load_balancer("lb-1")
    keys = [ex.eni_join(t, i, ex.eni_wait_spec(t, i, after_delete=True)) for t, i in (
        (g.INSTANCE, "i-1"), (g.INSTANCE, "i-2"), (g.NAT, "nat-1"), (g.NAT, "nat-2"), (g.ELB, "lb-1"))]
    states = poll_until_done(ex, clock, keys)
    assert states == {(g.INSTANCE, "i-1"): "terminal", (g.INSTANCE, "i-2"): "terminal", (g.NAT, "nat-1"): "terminal",
                      (g.NAT, "nat-2"): "terminal", (g.ELB, "lb-1"): "absent"}
    # five waiters, three transitions, one look stream: as many looks as the slowest transition needs, on the VPC
    looks = fake.names("DescribeNetworkInterfaces")
    assert len(looks) == 5
    assert set(c[1:] for c in looks) == {("vpc-id", (VPC,))}
    # owners released by the same look are confirmed by one batched look by ID
    assert fake.names("DescribeInstances") == [("DescribeInstances", ("i-1", "i-2"))]
    assert fake.names("DescribeNatGateways") == [("DescribeNatGateways", ("nat-1", "nat-2"))]
    # and that look is their verification
    assert ex.seen_gone == {(g.INSTANCE, "i-1"): "terminal", (g.INSTANCE, "i-2"): "terminal",
                            (g.NAT, "nat-1"): "terminal", (g.NAT, "nat-2"): "terminal"}


def test_looks_space_out_and_a_change_does_not_reset_the_schedule():
    fake = FakeAWS(nats=("nat-1",), instances=("i-1",), instance_at=1, nat_at=6, elb=None)
    clock = Clock()
    ex = executor(fake, clock, poll_interval=1.0, max_poll_interval=5.0, backstop_interval=1e9)
    fake.terminate_instances(["i-1"])
    fake.delete_nat_gateway("nat-1")
    at = []
    real = fake.describe_network_interfaces

    def timed(Filters):
        at.append(round(clock(), 1))
        return real(Filters)
    fake.describe_network_interfaces = timed
    keys = [ex.eni_join(g.INSTANCE, "i-1", ex.eni_wait_spec(g.INSTANCE, "i-1")),
            ex.eni_join(g.NAT, "nat-1", ex.eni_wait_spec(g.NAT, "nat-1"))]
    poll_until_done(ex, clock, keys)
    gaps = [round(b - a, 1) for a, b in zip(at, at[1:])]
    assert at[0] >= 1.0  # the delete's own answer was the first look
    assert all(b >= a for a, b in zip(gaps, gaps[1:])), gaps  # the instance's release at look 1 reset nothing
    assert max(gaps) <= 5.2


def test_the_executor_runs_every_wait_through_one_stream():
    fake = FakeAWS(nats=("nat-1", "nat-2"), instance_at=2, nat_at=4, elb_at=5)
    ex, (verified, states) = run(fake, backstop_interval=1e9)
    assert verified
    assert all(ex.results[(t, i)]["outcome"] == "deleted" for t, i in ex.results)
    assert set(c[1:] for c in fake.names("DescribeNetworkInterfaces")) == {("vpc-id", (VPC,))}
    # each owner is confirmed by ID once (a waiter whose thread joined late may need its own call)
    assert sorted(i for c in fake.names("DescribeInstances") for i in c[1]) == ["i-1", "i-2"]
    assert sorted(n for c in fake.names("DescribeNatGateways") for n in c[1]) == ["nat-1", "nat-2"]
    # that look by ID is their verification: the load balancer alone is looked up again
    assert fake.names("DescribeLoadBalancers") == [("DescribeLoadBalancers", ("lb-1",))]
    assert states[g.NAT] == {"nat-1": "terminal", "nat-2": "terminal"}


def test_the_confirmation_by_id_decides_not_the_eni():
    """The ENI is gone but the gateway still reads ``deleting`` by ID: it is not done until its own state
    says ``deleted``."""
    fake = FakeAWS(instances=(), elb=None, nat_at=3)
    fake.looks = 0
    real = fake.describe_network_interfaces

    def eni_gone_early(Filters):  # the ENI vanishes from the first look on, the gateway lags behind
        out = real(Filters)
        out["NetworkInterfaces"] = []
        return out
    fake.describe_network_interfaces = eni_gone_early
    clock = Clock()
    manifest = {g.NAT: ["nat-1"]}
    obs = {g.NAT: observed(fake)[g.NAT]}
    ex = Executor(Clients(lambda service: fake), g.plan(manifest), wait_timeout=300, sleep=clock.sleep, clock=clock,
                  observed=obs, backstop_interval=1e9)
    verified, dummy = ex.run()
    assert verified and ex.results[(g.NAT, "nat-1")]["outcome"] == "deleted"
    nat_looks = fake.names("DescribeNatGateways")
    assert len(nat_looks) == 3  # looks 1 and 2 by ID still said deleting; the third said deleted


def test_a_slow_look_by_id_catches_an_owner_whose_eni_outlives_it():
    fake = FakeAWS(instances=(), elb=None, nat_at=2, nat_eni_outlives=True)
    clock = Clock()
    manifest = {g.NAT: ["nat-1"]}
    ex = Executor(Clients(lambda service: fake), g.plan(manifest), wait_timeout=300, sleep=clock.sleep, clock=clock,
                  observed={g.NAT: observed(fake)[g.NAT]}, poll_interval=1.0, max_poll_interval=1.0,
                  backstop_interval=5.0)
    verified, dummy = ex.run()
    assert verified and ex.results[(g.NAT, "nat-1")]["outcome"] == "deleted"
    # the ENI still listed never reads as gone; the backstop by ID, slower than the ENI looks, found it deleted
    assert len(fake.names("DescribeNatGateways")) == 1
    assert len(fake.names("DescribeNetworkInterfaces")) >= 4


def test_a_failed_eni_look_is_never_gone():
    fake = FakeAWS(nats=("nat-1",), instances=("i-1",), eni_error="UnauthorizedOperation")
    ex, (verified, states) = run(fake, wait_timeout=20, backstop_interval=1e9)
    assert not verified
    # nothing was concluded from the failed looks: no waiter came back done, even the load balancer that is
    # itself gone (its ENIs were never seen released)
    for key in ((g.ELB, "lb-1"), (g.NAT, "nat-1"), (g.INSTANCE, "i-1")):
        res = ex.results[key]
        assert res["outcome"] == "failed" and "at wait_timeout" in res["error"], res
    assert not ex.seen_gone


def test_a_failed_look_reads_unknown_and_a_later_good_look_decides():
    fake = FakeAWS(nats=("nat-1",), instances=(), elb="lb-1", nat_at=1, elb_at=1, eni_error="UnauthorizedOperation")
    clock = Clock()
    ex = executor(fake, clock, backstop_interval=1e9)
    fake.delete_nat_gateway("nat-1")
    fake.delete_load_balancer("lb-1")
    keys = [ex.eni_join(g.NAT, "nat-1", ex.eni_wait_spec(g.NAT, "nat-1")),
            ex.eni_join(g.ELB, "lb-1", ex.eni_wait_spec(g.ELB, "lb-1", after_delete=True))]
    states = poll_until_done(ex, clock, keys, rounds=30)
    assert states == {(g.NAT, "nat-1"): "unknown", (g.ELB, "lb-1"): "unknown"}
    assert not fake.names("DescribeNatGateways")  # a failed look is no reason to call anything gone
    fake.eni_error = None
    states = poll_until_done(ex, clock, keys)
    assert states == {(g.NAT, "nat-1"): "terminal", (g.ELB, "lb-1"): "absent"}


def test_a_wait_without_its_vpc_polls_the_resource_by_id():
    fake = FakeAWS(instances=(), elb=None, nat_at=1)
    fake.nats["nat-1"] = "available"
    clock = Clock()
    ex = Executor(Clients(lambda service: fake), g.plan({g.NAT: ["nat-1"]}), wait_timeout=300, sleep=clock.sleep,
                  clock=clock, observed={g.NAT: {"nat-1": {"state": "present"}}})
    ex.observe_all()
    assert ex.eni_wait_spec(g.NAT, "nat-1") is None
    assert ex.eni_wait_spec(g.ELB, "lb-1", after_delete=True) is None
