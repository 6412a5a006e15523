"""VPC endpoint services (PrivateLink) as AWS answers them where moto 5.2.5 does not (tests/sandbox/spec/aws-layer.md,
AWS-32 to AWS-35).

moto stores endpoint service configurations (Create/Describe/DeleteVpcEndpointServiceConfigurations) but ignores the
Filters of the describe, has neither DescribeVpcEndpointConnections nor RejectVpcEndpointConnections, deletes a
configuration whatever is connected to it, and deletes a network load balancer an endpoint service still uses. The
rules here add those, each answered in the EC2 query protocol's shape (botocore parses them as AWS's):

  AWS-32  DescribeVpcEndpointServiceConfigurations honours its Filters (tag:<key>, tag-key, service-id,
          service-name, service-state): the request is narrowed to the matching ServiceIds before moto sees it
  AWS-33  DescribeVpcEndpointConnections: one connection per interface endpoint whose ServiceName is a
          configuration's service name (filters service-id, vpc-endpoint-id, vpc-endpoint-state)
  AWS-34  RejectVpcEndpointConnections: the endpoints' connections (and the endpoints) go ``rejected``;
          DeleteVpcEndpointServiceConfigurations answers ExistingVpcEndpointConnections (in Unsuccessful) while an
          endpoint is still pendingAcceptance, pending or available
  AWS-35  elbv2 DeleteLoadBalancer of a load balancer an endpoint service configuration uses: 400 ResourceInUse

The connection rules are answered from ``Realism.atomic`` (moto's lock held: they read and change moto's state).
"""
import time
import uuid
from urllib.parse import urlencode

_EC2_NS = "http://ec2.amazonaws.com/doc/2016-11-15/"
# connection states that hold a service and that a rejection acts on (API:VpcEndpointConnection, VpcEndpointState)
LIVE = ("pendingacceptance", "pending", "available")


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def ec2_ok(action, inner):
    """A 200 EC2 answer (query protocol XML) to ``action`` with ``inner`` as its body."""
    rid = str(uuid.uuid4())
    payload = (f'<?xml version="1.0" encoding="UTF-8"?>\n<{action}Response xmlns="{_EC2_NS}">'
               f'<requestId>{rid}</requestId>{inner}</{action}Response>').encode()
    headers = [("x-amzn-RequestId", rid), ("Content-Type", "text/xml"), ("Content-Length", str(len(payload)))]
    return ("200 OK", headers, payload, None, None)  # not "injected": the call did what it says


def query_filters(params):
    """[(name, [values])] from EC2's Filter.N.Name / Filter.N.Value.M parameters."""
    out = {}
    for k, v in params.items():
        bits = k.split(".")
        if bits[0] != "Filter" or len(bits) < 3 or not bits[1].isdigit():
            continue
        entry = out.setdefault(int(bits[1]), {"name": None, "values": []})
        if bits[2] == "Name":
            entry["name"] = v if isinstance(v, str) else v[0]
        elif bits[2] == "Value":
            entry["values"].extend(v if isinstance(v, list) else [v])
    return [(e["name"], e["values"]) for n, e in sorted(out.items()) if e["name"]]


def _listed(params, prefix):
    return [v for k, v in sorted(params.items()) if k.startswith(prefix + ".") and k[len(prefix) + 1:].isdigit()]


class EndpointServices:
    """Mixed into realism.Realism (which gives ``ec2(region)``, ``_backend`` and ``error``)."""

    def _configurations(self, region):
        return getattr(self.ec2(region), "configurations", {})

    def _service_tags(self, region, sid):
        return dict(getattr(self.ec2(region), "tags", {}).get(sid) or {})

    def _service_matches(self, region, sc, filters):  # AWS-32: names ANDed, values ORed, case-sensitive
        tags = self._service_tags(region, sc.id)
        for name, values in filters:
            if name.startswith("tag:"):
                ok = tags.get(name[4:]) in values
            elif name == "tag-key":
                ok = any(k in values for k in tags)
            elif name == "service-id":
                ok = sc.id in values
            elif name == "service-name":
                ok = sc.service_name in values
            elif name == "service-state":
                ok = sc.service_state in values
            else:
                continue  # a filter the layer does not model is left as moto leaves it
            if not ok:
                return False
        return True

    def describe_service_configurations(self, req):
        """AWS-32: narrow a filtered describe to the matching ServiceIds (none: answer the empty list here)."""
        filters = query_filters(req.params)
        if not filters:
            return None
        asked = _listed(req.params, "ServiceId")
        found = [sid for sid, sc in sorted(self._configurations(req.region).items())
                 if (not asked or sid in asked) and self._service_matches(req.region, sc, filters)]
        if not found:
            return ec2_ok("DescribeVpcEndpointServiceConfigurations", "<serviceConfigurationSet/>")
        params = {k: v for k, v in req.params.items() if not k.startswith(("Filter.", "ServiceId."))}
        params.update({f"ServiceId.{n}": sid for n, sid in enumerate(found, 1)})
        req.new_body = urlencode(params, doseq=True).encode()
        return None

    def service_connections(self, region, sc):
        """The interface endpoints connected to configuration ``sc``: those whose ServiceName is its name."""
        return [e for e in self.ec2(region).vpc_end_points.values()
                if e.service_name == sc.service_name and (e.vpc_endpoint_type or "").lower() == "interface"
                and (e.state or "").lower() != "deleted"]

    def endpoint_connections(self, req):  # AWS-33
        filters = dict(query_filters(req.params))
        items = []
        for sid, sc in sorted(self._configurations(req.region).items()):
            if "service-id" in filters and sid not in filters["service-id"]:
                continue
            for e in self.service_connections(req.region, sc):
                if "vpc-endpoint-id" in filters and e.id not in filters["vpc-endpoint-id"]:
                    continue
                if "vpc-endpoint-state" in filters and e.state.lower() not in [
                        v.lower() for v in filters["vpc-endpoint-state"]]:
                    continue
                created = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", e.creation_timestamp.timetuple())
                arns = "".join(f"<item>{_esc(a)}</item>" for a in sc.network_load_balancer_arns)
                items.append(f"<item><serviceId>{_esc(sid)}</serviceId><vpcEndpointId>{_esc(e.id)}</vpcEndpointId>"
                             f"<vpcEndpointOwner>{_esc(self.ec2(req.region).account_id)}</vpcEndpointOwner>"
                             f"<vpcEndpointState>{_esc(e.state)}</vpcEndpointState>"
                             f"<creationTimestamp>{created}</creationTimestamp>"
                             f"<networkLoadBalancerArnSet>{arns}</networkLoadBalancerArnSet></item>")
        return ec2_ok("DescribeVpcEndpointConnections",
                      f"<vpcEndpointConnectionSet>{''.join(items)}</vpcEndpointConnectionSet>")

    @staticmethod
    def _unsuccessful(failures):
        return "<unsuccessful>%s</unsuccessful>" % "".join(
            f"<item><error><code>{_esc(c)}</code><message>{_esc(m)}</message></error>"
            f"<resourceId>{_esc(rid)}</resourceId></item>" for rid, c, m in failures)

    def reject_connections(self, req, error):  # AWS-34
        sid = req.params.get("ServiceId", "")
        sc = self._configurations(req.region).get(sid)
        if sc is None:
            return error(req, 400, "InvalidVpcEndpointServiceId.NotFound",
                         f"The VpcEndpointService Id '{sid}' does not exist", "refusal")
        connected = {e.id: e for e in self.service_connections(req.region, sc)}
        failures = []
        for eid in _listed(req.params, "VpcEndpointId"):
            e = connected.get(eid)
            if e is None:
                failures.append((eid, "InvalidVpcEndpointId.NotFound",
                                 f"The Vpc Endpoint Id '{eid}' does not exist"))
            elif e.state.lower() in LIVE:
                e.state = "rejected"
            elif e.state.lower() != "rejected":
                failures.append((eid, "InvalidState", f"Endpoint {eid} is in state {e.state} and cannot be rejected"))
        return ec2_ok("RejectVpcEndpointConnections", self._unsuccessful(failures))

    def delete_service_configurations(self, req):  # AWS-34 (moto deletes whatever is connected)
        configs = self._configurations(req.region)
        failures = []
        for sid in _listed(req.params, "ServiceId"):
            sc = configs.get(sid)
            if sc is None:
                failures.append((sid, "InvalidVpcEndpointService.NotFound",
                                 f"The VpcEndpointService Id '{sid}' does not exist"))
            elif any(e.state.lower() in LIVE for e in self.service_connections(req.region, sc)):
                failures.append((sid, "ExistingVpcEndpointConnections",
                                 f"Service {sid} has existing active VPC Endpoint connections"))
            else:
                configs.pop(sid, None)
        return ec2_ok("DeleteVpcEndpointServiceConfigurations", self._unsuccessful(failures))

    def nlb_endpoint_services(self, region, arn):  # AWS-35
        return sorted(sid for sid, sc in self._configurations(region).items()
                      if arn in list(sc.network_load_balancer_arns) + list(sc.gateway_load_balancer_arns))

    def endpoint_service_atomic(self, req, error):
        if req.action == "DescribeVpcEndpointConnections":
            return self.endpoint_connections(req)
        if req.action == "RejectVpcEndpointConnections":
            return self.reject_connections(req, error)
        if req.action == "DeleteVpcEndpointServiceConfigurations":
            return self.delete_service_configurations(req)
        return None
