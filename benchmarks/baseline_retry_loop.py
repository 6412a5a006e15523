"""The peer baseline: a re-try-everything cleanup loop, in the style of the installer and aws-nuke.

Each pass re-lists what the infra ID owns (by tag, VPC children by vpc-id, IAM by name, buckets by
prefix), tries to delete every resource it found in a fixed type order, ignoring refusals, then
sleeps and starts again, until a pass finds nothing left. No blocker lookup, no targeted wait.
Deletes do the same sub-steps our module does (detach before delete, empty before delete), so the
comparison is about ordering and waiting, not about missing steps.

    python benchmarks/baseline_retry_loop.py --infra-id X [--base-domain D] [--oidc-bucket B] [--sleep 5]

Progress to stderr; the last stdout line is JSON: passes, seconds, attempted deletes, left.
"""
import argparse
import json
import os
import sys
import time

import boto3
import botocore.exceptions

ROLE_SUFFIXES = ["openshift-ingress", "openshift-image-registry", "aws-ebs-csi-driver-controller",
                 "cloud-controller", "node-pool", "control-plane-operator", "cloud-network-config-controller",
                 "kms-provider"]


def client(service):
    return boto3.client(service, endpoint_url=os.environ.get("AWS_ENDPOINT_URL"),
                        region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


class Loop:
    def __init__(self, infra, base_domain=None, oidc_bucket=None):
        self.infra, self.base_domain, self.oidc_bucket = infra, base_domain, oidc_bucket
        self.ec2, self.elb, self.r53, self.s3, self.iam = (client(s) for s in ("ec2", "elb", "route53", "s3", "iam"))
        self.tag = [{"Name": "tag:kubernetes.io/cluster/%s" % infra, "Values": ["owned"]}]
        self.attempts = 0

    def owned(self, item):
        return any(t["Key"] == "kubernetes.io/cluster/%s" % self.infra for t in item.get("Tags", []))

    def list_all(self):
        """What a pass finds: [(kind, id, extra)] in the order the loop tries them."""
        e, found = self.ec2, []
        for r in e.describe_instances(Filters=self.tag)["Reservations"]:
            found += [("instance", i["InstanceId"], None) for i in r["Instances"]
                      if i["State"]["Name"] not in ("terminated", "shutting-down") and self.owned(i)]
        vpcs = [v["VpcId"] for v in e.describe_vpcs(Filters=self.tag)["Vpcs"] if self.owned(v)]
        for igw in e.describe_internet_gateways(Filters=self.tag)["InternetGateways"]:
            if self.owned(igw):
                found.append(("igw", igw["InternetGatewayId"], [a["VpcId"] for a in igw.get("Attachments", [])]))
        if self.base_domain:
            want = "*.apps.%s.%s." % (self.infra, self.base_domain)
            for z in self.r53.list_hosted_zones_by_name(DNSName=self.base_domain)["HostedZones"]:
                if z["Name"].rstrip(".") == self.base_domain and not z["Config"].get("PrivateZone"):
                    for rr in self.r53.list_resource_record_sets(HostedZoneId=z["Id"])["ResourceRecordSets"]:
                        if rr["Name"].replace("\\052", "*") == want:
                            found.append(("record", z["Id"], rr))
        for b in self.s3.list_buckets()["Buckets"]:
            if b["Name"].startswith(self.infra + "-image-registry-"):
                found.append(("bucket", b["Name"], None))
        if self.oidc_bucket:
            try:
                resp = self.s3.list_object_versions(Bucket=self.oidc_bucket, Prefix=self.infra + "/")
                if resp.get("Versions") or resp.get("DeleteMarkers"):
                    found.append(("prefix", self.oidc_bucket, self.infra + "/"))
            except botocore.exceptions.ClientError:
                pass
        for vpc in vpcs:
            vf = [{"Name": "vpc-id", "Values": [vpc]}]
            found += [("elb", lb["LoadBalancerName"], None) for lb in e_elb(self.elb) if lb.get("VPCId") == vpc]
            sgs = [g for g in e.describe_security_groups(Filters=vf)["SecurityGroups"] if g["GroupName"] != "default"]
            found += [("sg-rules", g["GroupId"], g) for g in sgs if any(p.get("UserIdGroupPairs") for p in g["IpPermissions"])]
            found += [("endpoint", v["VpcEndpointId"], None) for v in e.describe_vpc_endpoints(Filters=vf)["VpcEndpoints"]
                      if v.get("State", "").lower() not in ("deleted", "deleting")]
            for z in self.r53.list_hosted_zones_by_vpc(VPCId=vpc, VPCRegion="us-east-1")["HostedZoneSummaries"]:
                found.append(("zone", z["HostedZoneId"], None))
            for rt in e.describe_route_tables(Filters=vf)["RouteTables"]:
                if not any(a.get("Main") for a in rt["Associations"]):
                    found.append(("route-table", rt["RouteTableId"], rt))
            found += [("nat", n["NatGatewayId"], None) for n in e.describe_nat_gateways(Filter=vf)["NatGateways"]
                      if n["State"] not in ("deleted", "deleting")]
            found += [("sg", g["GroupId"], None) for g in sgs]
            found += [("subnet", s["SubnetId"], None) for s in e.describe_subnets(Filters=vf)["Subnets"]]
            found.append(("vpc", vpc, None))
        found += [("eip", a["AllocationId"], None) for a in e.describe_addresses(Filters=self.tag)["Addresses"]
                  if self.owned(a)]
        found += [("dhcp", d["DhcpOptionsId"], None) for d in e.describe_dhcp_options(Filters=self.tag)["DhcpOptions"]
                  if self.owned(d)]
        for p in self.iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]:
            if p["Arn"].endswith("/" + self.infra):
                found.append(("oidc", p["Arn"], None))
        for suffix in ROLE_SUFFIXES:
            try:
                self.iam.get_role(RoleName="%s-%s" % (self.infra, suffix))
                found.append(("role", "%s-%s" % (self.infra, suffix), None))
            except botocore.exceptions.ClientError:
                pass
        try:
            self.iam.get_instance_profile(InstanceProfileName=self.infra + "-worker")
            found.append(("profile", self.infra + "-worker", None))
        except botocore.exceptions.ClientError:
            pass
        for p in self.iam.list_policies(Scope="Local")["Policies"]:
            if p["PolicyName"].startswith(self.infra + "-"):
                found.append(("policy", p["Arn"], None))
        return found

    def delete(self, kind, rid, extra):
        e = self.ec2
        self.attempts += 1
        if kind == "instance":
            e.terminate_instances(InstanceIds=[rid])
        elif kind == "igw":
            for vpc in extra:
                e.detach_internet_gateway(InternetGatewayId=rid, VpcId=vpc)
            e.delete_internet_gateway(InternetGatewayId=rid)
        elif kind == "record":
            self.r53.change_resource_record_sets(HostedZoneId=rid, ChangeBatch={"Changes": [
                {"Action": "DELETE", "ResourceRecordSet": extra}]})
        elif kind in ("bucket", "prefix"):
            kw = {"Bucket": rid, "Prefix": extra} if kind == "prefix" else {"Bucket": rid}
            resp = self.s3.list_object_versions(**kw)
            objs = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in resp.get("Versions", []) + resp.get("DeleteMarkers", [])]
            if objs:
                self.s3.delete_objects(Bucket=rid, Delete={"Objects": objs})
            if kind == "bucket":
                self.s3.delete_bucket(Bucket=rid)
        elif kind == "elb":
            self.elb.delete_load_balancer(LoadBalancerName=rid)
        elif kind == "sg-rules":
            perms = [{"IpProtocol": p["IpProtocol"], **{k: p[k] for k in ("FromPort", "ToPort") if k in p},
                      "UserIdGroupPairs": [{"GroupId": u["GroupId"]} for u in p["UserIdGroupPairs"]]}
                     for p in extra["IpPermissions"] if p.get("UserIdGroupPairs")]
            e.revoke_security_group_ingress(GroupId=rid, IpPermissions=perms)
        elif kind == "endpoint":
            e.delete_vpc_endpoints(VpcEndpointIds=[rid])
        elif kind == "zone":
            for rr in self.r53.list_resource_record_sets(HostedZoneId=rid)["ResourceRecordSets"]:
                if rr["Type"] not in ("NS", "SOA"):
                    self.r53.change_resource_record_sets(HostedZoneId=rid, ChangeBatch={"Changes": [
                        {"Action": "DELETE", "ResourceRecordSet": rr}]})
            self.r53.delete_hosted_zone(Id=rid)
        elif kind == "route-table":
            for a in extra["Associations"]:
                if not a.get("Main"):
                    e.disassociate_route_table(AssociationId=a["RouteTableAssociationId"])
            e.delete_route_table(RouteTableId=rid)
        elif kind == "nat":
            e.delete_nat_gateway(NatGatewayId=rid)
        elif kind == "sg":
            e.delete_security_group(GroupId=rid)
        elif kind == "subnet":
            e.delete_subnet(SubnetId=rid)
        elif kind == "vpc":
            e.delete_vpc(VpcId=rid)
        elif kind == "eip":
            e.release_address(AllocationId=rid)
        elif kind == "dhcp":
            e.delete_dhcp_options(DhcpOptionsId=rid)
        elif kind == "oidc":
            self.iam.delete_open_id_connect_provider(OpenIDConnectProviderArn=rid)
        elif kind == "role":
            for p in self.iam.list_attached_role_policies(RoleName=rid)["AttachedPolicies"]:
                self.iam.detach_role_policy(RoleName=rid, PolicyArn=p["PolicyArn"])
            for n in self.iam.list_role_policies(RoleName=rid)["PolicyNames"]:
                self.iam.delete_role_policy(RoleName=rid, PolicyName=n)
            self.iam.delete_role(RoleName=rid)
        elif kind == "profile":
            for r in self.iam.get_instance_profile(InstanceProfileName=rid)["InstanceProfile"]["Roles"]:
                self.iam.remove_role_from_instance_profile(InstanceProfileName=rid, RoleName=r["RoleName"])
            self.iam.delete_instance_profile(InstanceProfileName=rid)
        elif kind == "policy":
            self.iam.delete_policy(PolicyArn=rid)

    def run(self, sleep=5.0, max_passes=60):
        t0 = time.monotonic()
        passes = 0
        left = []
        while passes < max_passes:
            passes += 1
            left = self.list_all()
            pending_nat = [n for n in self.ec2.describe_nat_gateways(Filter=[{"Name": "state", "Values": ["deleting"]}])[
                "NatGateways"] if self.owned(n)]
            print("pass %d: %d found, %d NAT gateways deleting" % (passes, len(left), len(pending_nat)), file=sys.stderr)
            if not left and not pending_nat:
                break
            for kind, rid, extra in left:
                try:
                    self.delete(kind, rid, extra)
                except botocore.exceptions.ClientError as e:
                    print("  %s %s: %s" % (kind, rid, e.response["Error"]["Code"]), file=sys.stderr)
            time.sleep(sleep)
        return {"passes": passes, "seconds": round(time.monotonic() - t0, 3), "attempted_deletes": self.attempts,
                "left": [[k, r] for k, r, _ in left]}


def e_elb(elb):
    return elb.describe_load_balancers()["LoadBalancerDescriptions"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--infra-id", required=True)
    ap.add_argument("--base-domain")
    ap.add_argument("--oidc-bucket")
    ap.add_argument("--sleep", type=float, default=5.0)
    ap.add_argument("--max-passes", type=int, default=60)
    args = ap.parse_args()
    # the clock starts before the clients are built, as the module's own elapsed does
    t0 = time.monotonic()
    out = Loop(args.infra_id, args.base_domain, args.oidc_bucket).run(args.sleep, args.max_passes)
    out["seconds"] = round(time.monotonic() - t0, 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
