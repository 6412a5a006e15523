"""The realism layer: what AWS does that moto does not (tests/sandbox/spec/aws-layer.md, rules AWS-n).

Sits in front of moto (awslayer.Layer calls ``before`` and ``after`` around every request) and adds
  * refusals, answered with AWS's own error code, HTTP status and body shape per protocol:
    DependencyViolation (subnet, security group, internet-gateway detach with the "mapped public
    address(es)" message, route table, VPC), CannotDelete (a VPC's default group),
    InvalidIPAddress.InUse (an EIP still associated, e.g. held by a NAT gateway not yet deleted),
    DeleteConflict (a managed policy still attached), BucketNotEmpty (versions and delete markers
    count), InvalidNetworkInterface.InUse (an ELB's ENI), InvalidChangeBatch (a Route 53 record to
    delete that is not there);
  * state machines: NAT gateway available -> deleting -> deleted (ENI and EIP held until deleted),
    instance shutting-down -> terminated (held while the instance carries the tag
    sandbox.teardown.gates/hold-shutting-down=true), ELB ENIs that linger after their load balancer,
    EBS volume available -> deleting -> gone (DeleteVolume, and the DeleteOnTermination volumes of a
    terminated instance; moto itself refuses DeleteVolume of an attached volume with VolumeInUse);
  * fault rules: Throttling / RequestLimitExceeded / SlowDown, 500 InternalError, dropped connection,
    by service and action, as a rate or a count; a rule may be scoped to one access key ID
    ("key_id": only requests signed with it are drawn for, so that concurrent chaos runs each get their
    own faults) and may carry a "seed" (its hits are drawn from its own generator seeded with it, so
    that a run's fault stream replays from its seed).
  * an account-wide EC2 request budget, token buckets per action (realism_budget.py), off until set;
  * identities' IAM policies (realism_iam.py, mixed in): an IAM user's key is refused what its policies do not
    allow, as each service refuses it; EC2 DryRun and iam:SimulatePrincipalPolicy are answered from the same
    evaluator; keys moto's IAM did not issue keep every permission;
  * CloudFormation deletion as on AWS (DELETE_FAILED, events, DELETE_SKIPPED, RetainResources ...):
    realism_cfn.py, mixed in; DeleteRole and DeleteDBInstance refusals share its rules.
  * VPC endpoint services (realism_vpce.py, mixed in): the describe's tag filters, endpoint connections and their
    rejection, ExistingVpcEndpointConnections, ResourceInUse for an NLB an endpoint service still uses.

State transitions are applied lazily, at the start of each request (nothing can observe them in
between), under one lock.

Control API (the layer serves it under /_sandbox/):
  GET    /_sandbox/realism            knobs, fault rules (with hits), pending transitions
  POST   /_sandbox/realism/knobs      {"nat_deleting_seconds": 3, ...} -> merged knobs
  POST   /_sandbox/realism/faults     {"service", "action", "fault", "rate"|"count", ["key_id"], ["seed"]}
                                      -> {"id", ...}
  DELETE /_sandbox/realism/faults     remove every rule (or one: {"id": N}; or one key's: {"key_id": K})
  POST   /_sandbox/realism/reset      default knobs, no rules, no budget
  POST   /_sandbox/realism/budget     {"scale", "members"} -> the EC2 budget (realism_budget.py); GET shows
                                      it with hits per member, DELETE turns it off
  POST   /_sandbox/realism/budget/members  {"add": [key IDs], "remove": [key IDs]}
"""
import json
import os
import random
import threading
import time
import uuid

from .realism_budget import Budget
from .realism_cfn import CfnDeletion
from .realism_iam import IamPolicies
from .realism_vpce import EndpointServices

DEFAULT_KNOBS = {
    "nat_deleting_seconds": 3.0,         # NAT gateway: deleting -> deleted
    "instance_shutting_down_seconds": 2.0,  # instance: shutting-down -> terminated
    "elb_eni_linger_seconds": 2.0,       # ELB ENIs stay this long after their load balancer
    "volume_deleting_seconds": 2.0,      # EBS volume: deleting -> gone
    "cfn_step_seconds": 0.3,             # CloudFormation: pause between deletion waves
    "cfn_retain_resources": 1.0,         # 0: DeleteStack ignores RetainResources/FORCE_DELETE_STACK
}
FAULTS = ("throttle", "internal", "drop")
HOLD_TAG = "sandbox.teardown.gates/hold-shutting-down"
# protocols whose security group rules carry ports (by name and by number), and "-1" (all traffic)
_PORTED_PROTOCOLS = {"tcp", "udp", "icmp", "icmpv6", "6", "17", "1", "58", "-1"}
ACCOUNT = "123456789012"

_EC2_XML = ('<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>{code}</Code>'
            '<Message>{msg}</Message></Error></Errors><RequestID>{rid}</RequestID></Response>')
_QUERY_XML = ('<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="{ns}"><Error><Type>{kind}</Type>'
              '<Code>{code}</Code><Message>{msg}</Message></Error><RequestId>{rid}</RequestId></ErrorResponse>')
_S3_XML = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{msg}</Message>'
           '{extra}<RequestId>{rid}</RequestId></Error>')
_NS = {"iam": "https://iam.amazonaws.com/doc/2010-05-08/",
       "route53": "https://route53.amazonaws.com/doc/2013-04-01/",
       "elasticloadbalancing": "http://elasticloadbalancing.amazonaws.com/doc/2012-06-01/",
       "sts": "https://sts.amazonaws.com/doc/2011-06-15/",
       "cloudformation": "http://cloudformation.amazonaws.com/doc/2010-05-15/",
       "rds": "http://rds.amazonaws.com/doc/2014-10-31/"}
_REASONS = {400: "Bad Request", 403: "Forbidden", 412: "Precondition Failed", 404: "Not Found", 409: "Conflict", 500: "Internal Server Error", 503: "Service Unavailable"}


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def error(req, status, code, msg, injected, extra=""):
    """An AWS error answer in the shape the request's protocol uses (botocore parses it as AWS's). AWS-15"""
    rid = str(uuid.uuid4())
    svc = req.service
    headers = [("x-amzn-RequestId", rid)]
    if req.environ.get("HTTP_X_AMZ_TARGET"):
        payload = json.dumps({"__type": code, "message": msg}).encode()
        headers.append(("Content-Type", "application/x-amz-json-1.1"))
    elif svc == "ec2":
        payload = _EC2_XML.format(code=_esc(code), msg=_esc(msg), rid=rid).encode()
        headers.append(("Content-Type", "text/xml"))
    elif svc == "s3":
        payload = _S3_XML.format(code=_esc(code), msg=_esc(msg), rid=rid, extra=extra).encode()
        headers.append(("Content-Type", "application/xml"))
    else:
        payload = _QUERY_XML.format(ns=_NS.get(svc, ""), kind="Receiver" if status >= 500 else "Sender",
                                    code=_esc(code), msg=_esc(msg), rid=rid).encode()
        headers.append(("Content-Type", "text/xml"))
    headers.append(("Content-Length", str(len(payload))))
    return (f"{status} {_REASONS.get(status, 'Error')}", headers, payload, code, injected)


def _throttle(req):  # AWS-16
    if req.environ.get("HTTP_X_AMZ_TARGET"):
        return 400, "ThrottlingException", "Rate exceeded"
    if req.service == "ec2":
        return 503, "RequestLimitExceeded", "Request limit exceeded."
    if req.service == "s3":
        return 503, "SlowDown", "Please reduce your request rate."
    return 400, "Throttling", "Rate exceeded"


def _internal(req):  # AWS-17
    if req.service in ("ec2", "s3"):
        return 500, "InternalError", "An internal error has occurred"
    return 500, "InternalFailure", "An internal error has occurred"


class _DeletingVolume:
    """Marks a moto volume that DescribeVolumes lists as ``deleting`` (AWS-30)."""


_DELETING_CLASSES = {}


def _deleting_class(cls):
    """moto's Volume derives its state from its attachment; a subclass answers ``deleting`` instead."""
    if cls not in _DELETING_CLASSES:
        _DELETING_CLASSES[cls] = type("Deleting" + cls.__name__, (_DeletingVolume, cls),
                                      {"status": property(lambda self: "deleting")})
    return _DELETING_CLASSES[cls]


def _ids(params, prefix):
    """Values of a query list parameter: Prefix.1, Prefix.2, ... (or Prefix.member.N)."""
    out = []
    for k, v in params.items():
        if k == prefix or k.startswith(prefix + ".") and k[len(prefix) + 1:].replace("member.", "").isdigit():
            out.extend(v if isinstance(v, list) else [v])
    return out


class Realism(CfnDeletion, IamPolicies, EndpointServices):
    def __init__(self, state_dir):
        self.state_dir = state_dir
        self.lock = threading.RLock()
        self.layer = None
        self.knobs = dict(DEFAULT_KNOBS)
        self.faults = []
        self.budget = None          # realism_budget.Budget when set (not kept across a restart)
        self._rule_rngs = {}        # rule id -> random.Random(rule's seed)
        self._next_id = 1
        self.nat_deleting = {}      # (region, nat id) -> deadline
        self.shutting_down = {}     # (region, instance id) -> deadline
        self.elb_enis = {}          # (region, lb name) -> [eni ids]
        self.lingering = {}         # (region, eni id) -> deadline
        self.volume_deleting = {}   # (region, volume id) -> deadline
        self._cfn_init()            # CloudFormation deletions (realism_cfn.py)
        self._load()

    # ---- persistence of knobs and rules (survive a layer restart) --------------------------
    def _path(self):
        return os.path.join(self.state_dir, "realism.json")

    def _load(self):
        try:
            with open(self._path()) as f:
                saved = json.load(f)
            self.knobs.update(saved.get("knobs", {}))
            self.faults = saved.get("faults", [])
            self._next_id = 1 + max([r["id"] for r in self.faults] or [0])
        except (OSError, ValueError):
            pass

    def _save(self):
        try:
            os.makedirs(self.state_dir, exist_ok=True)
            with open(self._path(), "w") as f:
                json.dump({"knobs": self.knobs, "faults": self.faults}, f)
        except OSError:
            pass

    def attach(self, layer):
        self.layer = layer

    # ---- moto backends -----------------------------------------------------------------------
    @staticmethod
    def _backend(service, region):
        from moto.backends import get_backend
        if service in ("iam", "route53", "s3"):
            b = get_backend(service)[ACCOUNT]
            return b["aws"] if service != "s3" else b["aws"]
        return get_backend(service)[ACCOUNT][region or "us-east-1"]

    def ec2(self, region):
        return self._backend("ec2", region)

    # ---- control endpoint --------------------------------------------------------------------
    def control(self, method, path, body):
        with self.lock:
            sub = path[len("/_sandbox/"):].strip("/")
            if sub == "realism" and method == "GET":
                return self.describe()
            if sub == "realism/knobs" and method == "POST":
                bad = [k for k in body if k not in DEFAULT_KNOBS]
                if bad:
                    return {"error": f"unknown knob(s) {bad}; known: {sorted(DEFAULT_KNOBS)}"}
                try:
                    self.knobs.update({k: float(v) for k, v in body.items()})
                except (TypeError, ValueError) as e:
                    return {"error": f"knob values must be numbers of seconds: {e}"}
                self._save()
                return {"knobs": self.knobs}
            if sub == "realism/faults" and method == "POST":
                return self.add_fault(body)
            if sub == "realism/faults" and method == "GET":
                return {"faults": self.faults}
            if sub == "realism/faults" and method == "DELETE":
                if "id" in body:
                    self.faults = [r for r in self.faults if r["id"] != body["id"]]
                elif "key_id" in body:
                    self.faults = [r for r in self.faults if r.get("key_id") != body["key_id"]]
                else:
                    self.faults = []
                self._save()
                return {"faults": self.faults}
            if sub.startswith("realism/budget"):
                return self._budget_control(method, sub, body)
            if sub == "realism/reset" and method == "POST":
                self.knobs = dict(DEFAULT_KNOBS)
                self.faults = []
                self.budget = None
                self._save()
                return self.describe()
            return {"error": f"no control path {method} {path}"}

    def _budget_control(self, method, sub, body):
        if sub == "realism/budget" and method == "POST":
            try:
                self.budget = Budget(body.get("scale", 1.0), body.get("members") or ())
            except (TypeError, ValueError) as e:
                return {"error": f"budget: {e}"}
        elif sub == "realism/budget/members" and method == "POST" and self.budget is not None:
            self.budget.members.update(body.get("add") or ())
            self.budget.members.difference_update(body.get("remove") or ())
        elif sub == "realism/budget" and method == "DELETE":
            self.budget = None
            return {"budget": None}
        elif method != "GET":
            return {"error": f"no budget path {method} {sub} (is a budget set?)"}
        return {"budget": self.budget.describe() if self.budget else None}

    def describe(self):
        now = time.time()
        return {"knobs": self.knobs, "faults": self.faults, "budget": self.budget.describe() if self.budget else None,
                "pending": {"nat_deleting": {k[1]: round(v - now, 2) for k, v in self.nat_deleting.items()},
                            "shutting_down": {k[1]: round(v - now, 2) for k, v in self.shutting_down.items()},
                            "lingering_enis": {k[1]: round(v - now, 2) for k, v in self.lingering.items()},
                            "cfn_deleting": sorted(self.cfn_ops)}}

    def add_fault(self, body):
        rule = {"service": body.get("service", "*"), "action": body.get("action", "*"),
                "fault": body.get("fault", "throttle")}
        if rule["fault"] not in FAULTS:
            return {"error": f"fault must be one of {FAULTS}, not {rule['fault']!r}"}
        if "count" in body:
            rule["count"] = int(body["count"])
        elif "rate" in body:
            rule["rate"] = float(body["rate"])
            if not 0 < rule["rate"] <= 1:
                return {"error": "rate must be in (0, 1]"}
        else:
            return {"error": "give a rate (0..1] or a count"}
        if body.get("key_id"):
            rule["key_id"] = str(body["key_id"])
        if body.get("seed") is not None:
            rule["seed"] = int(body["seed"])
        rule["id"] = self._next_id
        rule["hits"] = 0
        self._next_id += 1
        self.faults.append(rule)
        self._save()
        return rule

    # ---- the seam ----------------------------------------------------------------------------
    def before(self, req):
        with self.lock:
            answer = self._fault(req)
            if answer is not None:
                return answer
            if self.budget is not None and req.service == "ec2" and not self.budget.take(req.region, req.action,
                                                                                         req.key_id):  # AWS-22
                status, code, msg = _throttle(req)
                return error(req, status, code, msg, "budget")
        # the caller's permissions before any other rule, as AWS authorizes a request before acting on it; outside
        # self.lock, since the lookup takes moto's lock (and the layer calls atomic() with moto's lock held)
        answer = self._iam_gate(req)
        if answer is not None:
            return answer
        with self.lock:
            try:
                self._tick()
                handler = getattr(self, f"_before_{req.service}", None)
                return handler(req) if handler else None
            except Exception as e:  # noqa: BLE001 - a realism bug must not take moto down
                print(f"realism: before {req.service}.{req.action}: {e!r}", flush=True)
                return None

    def _iam_gate(self, req):  # AWS-25 to AWS-28 (realism_iam.py)
        try:
            answer = self.authorize(req, error)
            if answer is None and req.service == "iam" and req.action == "SimulatePrincipalPolicy":
                answer = self.simulate_principal_policy(req, error)
            return answer
        except Exception as e:  # noqa: BLE001 - a realism bug must not take moto down
            print(f"realism: authorize {req.service}.{req.action}: {e!r}", flush=True)
            return None

    def after(self, req, status, body):
        with self.lock:
            try:
                handler = getattr(self, f"_after_{req.service}", None)
                if handler:
                    handler(req, status, body)
            except Exception as e:  # noqa: BLE001
                print(f"realism: after {req.service}.{req.action}: {e!r}", flush=True)

    def _draw(self, rule):
        """A rule's next draw: from its own seeded generator when it has a seed (kept by rule ID)."""
        if "seed" not in rule:
            return random.random()
        rng = self._rule_rngs.get(rule["id"])
        if rng is None:
            rng = self._rule_rngs[rule["id"]] = random.Random(rule["seed"])
        return rng.random()

    def _fault(self, req):  # AWS-18
        for rule in self.faults:
            if rule["service"] not in ("*", req.service) or rule["action"] not in ("*", req.action):
                continue
            if rule.get("key_id") and rule["key_id"] != req.key_id:
                continue
            if "count" in rule:
                if rule["count"] <= 0:
                    continue
                rule["count"] -= 1
            elif self._draw(rule) >= rule["rate"]:
                continue
            rule["hits"] += 1
            if rule["fault"] == "throttle":
                status, code, msg = _throttle(req)
            elif rule["fault"] == "internal":
                status, code, msg = _internal(req)
            else:
                return ("DROP", [], b"", "ConnectionDropped", f"fault:{rule['id']}:drop")
            return error(req, status, code, msg, f"fault:{rule['id']}:{rule['fault']}")
        return None

    # ---- state machines ----------------------------------------------------------------------
    def _tick(self):  # lazily, at the start of each request (the state machines' note in the spec)
        now = time.time()
        for key, deadline in list(self.nat_deleting.items()):
            if now >= deadline:
                del self.nat_deleting[key]
                self._nat_deleted(*key)
        for (region, iid), deadline in list(self.shutting_down.items()):
            if now >= deadline and not self._held(region, iid):
                del self.shutting_down[(region, iid)]
                inst = self._instance(region, iid)
                if inst is not None:  # AWS-14
                    inst._state.name, inst._state.code = "terminated", 48
                    # the primary ENI (and any marked delete-on-termination) goes with the instance
                    for idx, nic in list(getattr(inst, "nics", {}).items()):
                        if idx == 0 or nic.delete_on_termination:
                            self.ec2(region).enis.pop(nic.id, None)
        for (region, vid), deadline in list(self.volume_deleting.items()):  # AWS-30
            if now >= deadline:
                del self.volume_deleting[(region, vid)]
                self.ec2(region).volumes.pop(vid, None)
        for (region, eni_id), deadline in list(self.lingering.items()):
            if now >= deadline:
                del self.lingering[(region, eni_id)]
                self.ec2(region).enis.pop(eni_id, None)
        self._cfn_tick()

    def _nat_deleted(self, region, nat_id):  # AWS-13: ENI and EIP are held until here
        ec2 = self.ec2(region)
        nat = ec2.nat_gateways.get(nat_id)
        if nat is None:
            return
        nat.state = "deleted"
        eni = getattr(nat, "_eni", None)
        if eni is not None:
            for addr in ec2.addresses:
                if addr.eni is eni:
                    addr.eni, addr.association_id = None, None
            ec2.enis.pop(eni.id, None)

    def _held(self, region, iid):
        """A test's hold: an instance tagged HOLD_TAG=true stays shutting-down until the tag goes
        (an instance whose shutdown hangs, as AWS's lifecycle page allows)."""
        tags = getattr(self.ec2(region), "tags", {}).get(iid) or {}
        return str(tags.get(HOLD_TAG, "")).lower() == "true"

    def _instance(self, region, iid):
        for inst in self.ec2(region).all_instances():
            if inst.id == iid:
                return inst
        return None

    # ---- EC2 ---------------------------------------------------------------------------------
    def _before_ec2(self, req):
        p, a, ec2 = req.params, req.action, self.ec2(req.region)
        refuse = lambda code, msg: error(req, 400, code, msg, "refusal")  # noqa: E731
        if a == "DeleteSubnet":  # AWS-1
            sid = p.get("SubnetId")
            if sid and self._subnet_exists(ec2, sid):
                held = self.subnet_dependents(ec2, sid)
                if held:
                    return refuse("DependencyViolation", f"The subnet '{sid}' has dependencies and cannot be deleted.")
        elif a == "DeleteSecurityGroup":  # AWS-2
            gid = p.get("GroupId")
            group = ec2.get_security_group_from_id(gid) if gid else None
            if group is not None:
                if group.name == "default":
                    return refuse("CannotDelete", f'the specified group: "{gid}" name: "default" cannot be deleted by a user')
                if self.group_dependents(ec2, gid):
                    return refuse("DependencyViolation", f"resource {gid} has a dependent object")
        elif a == "DetachInternetGateway":  # AWS-3
            vpc_id = p.get("VpcId")
            igw = ec2.internet_gateways.get(p.get("InternetGatewayId"))
            if igw is not None and igw.vpc is not None and igw.vpc.id == vpc_id and self.mapped_addresses(ec2, vpc_id):
                return refuse("DependencyViolation",
                              f"Network {vpc_id} has some mapped public address(es). Please unmap those public "
                              "address(es) before detaching the gateway.")
        elif a == "DeleteRouteTable":  # AWS-4
            rt = ec2.route_tables.get(p.get("RouteTableId"))
            if rt is not None and rt.main_association_id is not None:
                return refuse("DependencyViolation", f"The routeTable '{rt.id}' has dependencies and cannot be deleted.")
        elif a == "DeleteVpc":  # AWS-5; the DHCP option set stays: AWS-6
            vpc_id = p.get("VpcId")
            if vpc_id in ec2.vpcs and self.vpc_dependents(ec2, vpc_id):
                return refuse("DependencyViolation", f"The vpc '{vpc_id}' has dependencies and cannot be deleted.")
            vpc = ec2.vpcs.get(vpc_id)
            if vpc is not None and getattr(vpc, "dhcp_options", None) is not None:
                # moto deletes the VPC's DHCP option set with it; AWS leaves it, unassociated
                vpc.dhcp_options.vpc = None
                vpc.dhcp_options = None
        elif a == "ReleaseAddress":  # AWS-7
            alloc = p.get("AllocationId")
            for addr in ec2.addresses:
                if alloc and addr.allocation_id == alloc and (addr.eni is not None or addr.instance is not None):
                    return refuse("InvalidIPAddress.InUse", f"Address {addr.public_ip} is in use.")
        elif a == "DeleteNetworkInterface":  # AWS-8
            eni_id = p.get("NetworkInterfaceId")
            if any(eni_id in ids for ids in self.elb_enis.values()) or (req.region, eni_id) in self.lingering:
                return refuse("InvalidNetworkInterface.InUse", f"Network interface '{eni_id}' is currently in use.")
        elif a in ("AuthorizeSecurityGroupIngress", "AuthorizeSecurityGroupEgress"):
            self._all_ports_rules(req)
        elif a == "DeleteNatGateway":
            nat = ec2.nat_gateways.get(p.get("NatGatewayId"))
            req.prior = nat.state if nat is not None else None
        elif a == "TerminateInstances":
            req.prior = {}
            req.prior_volumes = {}
            for iid in _ids(p, "InstanceId"):
                inst = self._instance(req.region, iid)
                if inst is not None:
                    req.prior[iid] = inst._state.name
                    for bdt in list(getattr(inst, "block_device_mapping", {}).values()):  # AWS-31
                        vol = ec2.volumes.get(bdt.volume_id)
                        if vol is not None and bdt.delete_on_termination:
                            req.prior_volumes[vol.id] = vol
        elif a == "DeleteVolume":  # AWS-30: moto refuses an attached one (VolumeInUse) and pops the others at once
            vol = ec2.volumes.get(p.get("VolumeId"))
            req.prior_volumes = {vol.id: vol} if vol is not None and vol.attachment is None else {}
        elif a == "DescribeVpcEndpointServiceConfigurations":  # AWS-32: moto ignores Filters
            return self.describe_service_configurations(req)
        return None

    def _volumes_deleting(self, req, now):
        """AWS-30/31: the volumes moto has just removed stay listed as ``deleting`` for a while."""
        ec2 = self.ec2(req.region)
        for vid, vol in (getattr(req, "prior_volumes", None) or {}).items():
            if vid in ec2.volumes and ec2.volumes[vid] is not vol:
                continue
            vol.attachment = None
            if not isinstance(vol, _DeletingVolume):
                vol.__class__ = _deleting_class(vol.__class__)
            ec2.volumes[vid] = vol
            self.volume_deleting.setdefault((req.region, vid), now + self.knobs["volume_deleting_seconds"])

    def _after_ec2(self, req, status, body):
        if status >= 300:
            return
        now = time.time()
        if req.action == "DeleteNatGateway":  # AWS-13
            nid = req.params.get("NatGatewayId")
            prior = getattr(req, "prior", None)
            nat = self.ec2(req.region).nat_gateways.get(nid)
            if nat is None:
                return
            if prior in ("available", "pending", "failed"):
                nat.state = "deleting"
                self.nat_deleting[(req.region, nid)] = now + self.knobs["nat_deleting_seconds"]
            elif prior == "deleting":
                nat.state = "deleting"
            if self.knobs["nat_deleting_seconds"] <= 0:
                self._tick()
        elif req.action == "TerminateInstances":  # AWS-14
            for iid, prior in (getattr(req, "prior", None) or {}).items():
                inst = self._instance(req.region, iid)
                if inst is None or prior == "terminated":
                    continue
                inst._state.name, inst._state.code = "shutting-down", 32
                if prior != "shutting-down":
                    self.shutting_down[(req.region, iid)] = now + self.knobs["instance_shutting_down_seconds"]
            self._volumes_deleting(req, now)
            if self.knobs["instance_shutting_down_seconds"] <= 0:
                self._tick()
        elif req.action == "DeleteVolume":  # AWS-30
            self._volumes_deleting(req, now)
            if self.knobs["volume_deleting_seconds"] <= 0:
                self._tick()

    @staticmethod
    def _all_ports_rules(req):  # AWS-21
        """A rule for a protocol other than TCP, UDP, ICMP or ICMPv6 carries no ports: AWS allows every
        port for it ("Security group rules", VPC User Guide), and CAPA sends one (IP-in-IP, protocol
        4, for Calico). moto 5.2.5 answers 500 (int(None)) to it: hand moto the -1 ports AWS means."""
        p = req.params
        changed = False
        for key, proto in list(p.items()):
            if not (key.startswith("IpPermissions.") and key.endswith(".IpProtocol")):
                continue
            prefix = key[: -len("IpProtocol")]
            if str(proto).lower() not in _PORTED_PROTOCOLS and prefix + "FromPort" not in p:
                p[prefix + "FromPort"], p[prefix + "ToPort"] = "-1", "-1"
                changed = True
        if changed:
            from urllib.parse import urlencode
            req.new_body = urlencode(p, doseq=True).encode()

    @staticmethod
    def _subnet_exists(ec2, sid):
        return any(sid in subnets for subnets in ec2.subnets.values())

    def subnet_dependents(self, ec2, sid):
        out = [e.id for e in ec2.enis.values() if e.subnet is not None and e.subnet.id == sid]
        out += [i.id for i in ec2.all_instances() if i.subnet_id == sid and i._state.name != "terminated"]
        out += [n.id for n in ec2.nat_gateways.values() if n.subnet_id == sid and n.state != "deleted"]
        return out

    def group_dependents(self, ec2, gid):
        out = [e.id for e in ec2.enis.values() if gid in [g.id for g in e._group_set]]
        out += [i.id for i in ec2.all_instances() if i._state.name != "terminated"
                and gid in [getattr(g, "id", g) for g in i.security_groups]]
        for groups in ec2.groups.values():
            for g in groups.values():
                if g.id == gid:
                    continue
                for rule in list(g.ingress_rules) + list(g.egress_rules):
                    srcs = rule.source_group if isinstance(rule.source_group, list) else [rule.source_group]
                    if any((s or {}).get("GroupId") == gid for s in srcs):
                        out.append(g.id)
        return out

    def mapped_addresses(self, ec2, vpc_id):
        out = [n.id for n in ec2.nat_gateways.values()
               if n.vpc_id == vpc_id and n.state != "deleted" and getattr(n, "connectivity_type", "public") != "private"]
        for addr in ec2.addresses:
            eni = addr.eni
            inst = addr.instance
            if eni is not None and eni.subnet is not None and eni.subnet.vpc_id == vpc_id:
                out.append(addr.allocation_id)
            elif inst is not None and getattr(inst, "vpc_id", None) == vpc_id:
                out.append(addr.allocation_id)
        return out

    def vpc_dependents(self, ec2, vpc_id):
        out = [s.id for subnets in ec2.subnets.values() for s in subnets.values() if s.vpc_id == vpc_id]
        out += [i.id for i in ec2.internet_gateways.values() if i.vpc is not None and i.vpc.id == vpc_id]
        out += [g.id for g in ec2.groups.get(vpc_id, {}).values() if g.name != "default"]
        out += [r.id for r in ec2.route_tables.values() if r.vpc_id == vpc_id and r.main_association_id is None]
        out += [e.id for e in ec2.vpc_end_points.values() if e.vpc_id == vpc_id and getattr(e, "state", "") != "deleted"]
        out += [e.id for e in ec2.enis.values() if e.subnet is not None and e.subnet.vpc_id == vpc_id]
        return out

    # ---- ELB: an NLB an endpoint service uses cannot be deleted (AWS-35) -------------------------
    def _before_elasticloadbalancing(self, req):
        if req.action == "DeleteLoadBalancer" and req.params.get("Version") == "2015-12-01":
            arn = req.params.get("LoadBalancerArn", "")
            if self.nlb_endpoint_services(req.region, arn):
                return error(req, 400, "ResourceInUse", f"Load balancer '{arn}' cannot be deleted because it is "
                             "currently associated with another service", "refusal")
        return None

    # ---- ELB: load balancers own ENIs that outlive them a little (AWS-12) ---------------------
    def _after_elasticloadbalancing(self, req, status, body):
        if status >= 300:
            return
        p, key_region = req.params, req.region
        v2 = p.get("Version") == "2015-12-01"
        if req.action == "CreateLoadBalancer":
            if v2:
                import re
                m = re.search(rb"<LoadBalancerArn>([^<]+)</LoadBalancerArn>", body)
                if not m:
                    return
                key, desc = m.group(1).decode(), "ELB " + m.group(1).decode().split(":loadbalancer/")[-1]
            else:
                key = p.get("LoadBalancerName")
                desc = f"ELB {key}"
            ec2 = self.ec2(key_region)
            groups = _ids(p, "SecurityGroups.member")
            enis = []
            for sid in _ids(p, "Subnets.member"):
                eni = ec2.create_network_interface(ec2.get_subnet(sid), None, group_ids=groups or None,
                                                   description=desc)
                eni.requester_managed = True
                eni.status = "in-use"
                enis.append(eni.id)
            self.elb_enis[(key_region, key)] = enis
        elif req.action == "DeleteLoadBalancer":
            key = p.get("LoadBalancerArn") if v2 else p.get("LoadBalancerName")
            deadline = time.time() + self.knobs["elb_eni_linger_seconds"]
            for eni_id in self.elb_enis.pop((key_region, key), []):
                self.lingering[(key_region, eni_id)] = deadline
            if self.knobs["elb_eni_linger_seconds"] <= 0:
                self._tick()

    # ---- IAM ---------------------------------------------------------------------------------
    def _before_iam(self, req):  # AWS-9
        if req.action == "DeleteRole":
            refusal = self.role_refusal(req.params.get("RoleName", ""))
            if refusal:
                return error(req, 409, refusal[0], refusal[1], "refusal")
        if req.action == "DeletePolicy":
            iam = self._backend("iam", None)
            policy = iam.managed_policies.get(req.params.get("PolicyArn"))
            if policy is not None and policy.attachment_count > 0:
                return error(req, 409, "DeleteConflict", "Cannot delete a policy attached to entities.", "refusal")
        return None

    # ---- checks that must see moto's state as the request will find it ------------------------------
    def atomic(self, req):
        """Called by the layer while it holds moto's lock, right before moto serves the request: a rule that
        depends on what another request may change in between (two runs deleting the same thing) lives here."""
        with self.lock:
            try:
                if req.service == "iam" and req.action == "RemoveRoleFromInstanceProfile":
                    return self._profile_role_gone(req)
                if req.service == "route53" and req.action == "ChangeResourceRecordSets":
                    return self._record_to_delete_missing(req)
                if req.service == "ec2":  # AWS-33, AWS-34
                    return self.endpoint_service_atomic(req, error)
            except Exception as e:  # noqa: BLE001 - a realism bug must not take moto down
                print(f"realism: atomic {req.service}.{req.action}: {e!r}", flush=True)
        return None

    def _profile_role_gone(self, req):  # AWS-24: moto answers a 500 (list.remove)
        iam = self._backend("iam", None)
        profile = next((p for p in iam.get_instance_profiles() if p.name == req.params.get("InstanceProfileName")), None)
        role = req.params.get("RoleName", "")
        if profile is not None and role not in [r.name for r in profile.roles]:
            return error(req, 404, "NoSuchEntity", f"The role with name {role} cannot be found in instance "
                         f"profile {profile.name}.", "refusal")
        return None

    # ---- RDS: a deletion-protected DB instance (the rule CloudFormation's deletes share) ---------
    def _before_rds(self, req):  # AWS-11
        if req.action == "DeleteDBInstance":
            refusal = self.db_instance_refusal(req.region, req.params.get("DBInstanceIdentifier", ""))
            if refusal:
                return error(req, 400, refusal[0], refusal[1], "refusal")
        return None

    # ---- Route 53: deleting a record that is not there is refused (from atomic()) ---------------
    def _record_to_delete_missing(self, req):  # AWS-23
        parts = [x for x in req.path.split("/") if x]
        zone = self._backend("route53", None).zones.get(parts[parts.index("hostedzone") + 1]) \
            if "hostedzone" in parts and len(parts) > parts.index("hostedzone") + 1 else None
        if zone is None:
            return None
        import xml.etree.ElementTree as ET
        try:
            root = ET.fromstring(req.body)
        except ET.ParseError:
            return None
        have = {(r.name.rstrip(".").lower(), r.type, r.set_identifier) for r in zone.rrsets}
        for change in root.iter():
            if not change.tag.endswith("}Change") and change.tag != "Change":
                continue
            fields = {c.tag.split("}")[-1]: c for c in change}
            rrs = fields.get("ResourceRecordSet")
            if fields.get("Action") is None or fields["Action"].text != "DELETE" or rrs is None:
                continue
            rr = {c.tag.split("}")[-1]: (c.text or "") for c in rrs}
            name, rtype = rr.get("Name", "").rstrip(".").lower(), rr.get("Type")
            if (name, rtype, rr.get("SetIdentifier")) not in have:
                return error(req, 400, "InvalidChangeBatch", f"[Tried to delete resource record set [name='{name}.', "
                             f"type='{rtype}'] but it was not found]", "refusal")
        return None

    # ---- S3: a bucket with versions or delete markers is not empty ---------------------------
    def _before_s3(self, req):  # AWS-10
        if req.action != "DeleteBucket":
            return None
        name = [x for x in req.path.split("/") if x]
        if not name:
            return None
        refusal = self.bucket_refusal(name[0])
        if refusal:
            return error(req, 409, refusal[0], refusal[1], "refusal", extra=f"<BucketName>{_esc(name[0])}</BucketName>")
        return None
