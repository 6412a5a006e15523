"""The peer a HyperShift user runs: a model of `hypershift destroy infra aws` followed by `destroy iam aws`
(what `hypershift destroy cluster aws` does after the cluster is gone), in Python with boto3.

Written from the public source of openshift/hypershift at commit 3ee9615567acffaf3e3ee25c2ca2942d650565cf
(2026-08-22): cmd/infra/aws/destroy.go (Run, DestroyInfra, DestroyVPCs and the Destroy* steps),
cmd/infra/aws/destroy_iam.go (DestroyIAM), cmd/infra/aws/route53.go (CleanupPublicZone, DestroyPrivateZones).
The published algorithm, as modelled here:

* Run polls DestroyInfra every 5 s (wait.PollUntilContextCancel, immediate first pass) until a pass returns
  no error; every error counts as retryable except a credentials error.
* One pass, in order: terminate the tagged instances; detach and delete the tagged internet gateways; delete
  the public zone's *.apps record; empty and delete the <infra>-image-registry-* buckets; delete the tagged VPC
  endpoint services; then for each tagged VPC: ELBs and ELBv2 (and target groups) in it, its security groups'
  rules and groups, its endpoints, its private zones, its route tables (routes, associations, the tables),
  its NAT gateways. A NAT gateway that is `deleting`, or that this pass asked to delete, is an error: the
  VPC's security groups, subnets and the VPC itself wait for a later pass with no error in that VPC.
* Only after a pass with no error so far: release the tagged EIPs, delete the tagged DHCP options.
* Then DestroyIAM, polled every 5 s as well: the OIDC provider whose ARN ends in the infra ID, the roles
  <infra>-shared-role or each component's <infra>-<name> (managed policies detached, inline ones deleted),
  and the <infra>-worker instance profile with its role.

Found by the model: emptyBucket lists objects (ListObjectsV2), not versions, so a versioned image-registry
bucket (as the sandbox seeds) stays BucketNotEmpty, no pass is ever clean, and EIPs, DHCP options and IAM are
never reached; the bench bounds that with --grace-period and records the failure.
One deviation, for moto: endpoints already deleted are not deleted again (see vpc()).
Not modelled: shared-VPC (second account) clients, delegated credentials, VPC endpoint connections (none in
the seeds), karpenter and ROSA roles beyond trying their names. The OIDC bucket is not HyperShift's to delete.

    python benchmarks/hypershift_destroy_model.py --infra-id X [--base-domain D] [--name N] [--sleep 5]

Progress to stderr; the last stdout line is JSON: passes, iam_passes, seconds, errors_last_pass.
"""
import argparse
import json
import os
import sys
import time

import boto3
import botocore.exceptions

COMPONENT_ROLES = ["openshift-ingress", "openshift-image-registry", "aws-ebs-csi-driver-controller",
                   "cloud-controller", "node-pool", "control-plane-operator", "cloud-network-config-controller",
                   "kms-provider", "karpenter"]
NOT_FOUND = {"NoSuchEntity", "NoSuchBucket", "InvalidInstanceID.NotFound", "InvalidGroup.NotFound",
             "InvalidSubnetID.NotFound", "InvalidVpcID.NotFound", "NoSuchHostedZone", "LoadBalancerNotFound"}


def client(service):
    return boto3.client(service, endpoint_url=os.environ.get("AWS_ENDPOINT_URL"),
                        region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


class Model:
    def __init__(self, infra, base_domain=None, name=None):
        self.infra, self.base_domain, self.name = infra, base_domain, name or infra
        self.ec2, self.elb, self.elbv2, self.r53, self.s3, self.iam = (
            client(s) for s in ("ec2", "elb", "elbv2", "route53", "s3", "iam"))
        self.tag = [{"Name": "tag:kubernetes.io/cluster/%s" % infra, "Values": ["owned"]}]

    def _call(self, errs, fn, **kw):
        """One request; an AWS error is appended to errs (the Go code's errs = append(errs, err))."""
        try:
            return fn(**kw)
        except botocore.exceptions.ClientError as e:
            if e.response["Error"]["Code"] not in NOT_FOUND:
                errs.append("%s: %s" % (fn.__name__, e.response["Error"]["Code"]))
            return None

    # ---- DestroyInfra: one pass
    def infra_pass(self):
        errs = []
        self.instances(errs)
        self.internet_gateways(errs)
        self.public_record(errs)
        self.buckets(errs)
        self.endpoint_services(errs)
        for vpc in self.ec2.describe_vpcs(Filters=self.tag)["Vpcs"]:
            errs += self.vpc(vpc["VpcId"])
        if errs:
            return errs
        for addr in self.ec2.describe_addresses(Filters=self.tag)["Addresses"]:
            self._call(errs, self.ec2.release_address, AllocationId=addr["AllocationId"])
        for opt in self.ec2.describe_dhcp_options(Filters=self.tag)["DhcpOptions"]:
            self._call(errs, self.ec2.delete_dhcp_options, DhcpOptionsId=opt["DhcpOptionsId"])
        return errs

    def instances(self, errs):
        ids = [i["InstanceId"] for r in self.ec2.describe_instances(Filters=self.tag)["Reservations"]
               for i in r["Instances"]]
        if ids:  # every tagged instance, terminated ones included, as destroyInstances does
            self._call(errs, self.ec2.terminate_instances, InstanceIds=ids)

    def internet_gateways(self, errs):
        for igw in self.ec2.describe_internet_gateways(Filters=self.tag)["InternetGateways"]:
            before = len(errs)
            for att in igw.get("Attachments", []):
                self._call(errs, self.ec2.detach_internet_gateway, InternetGatewayId=igw["InternetGatewayId"],
                           VpcId=att["VpcId"])
            if len(errs) == before:
                self._call(errs, self.ec2.delete_internet_gateway, InternetGatewayId=igw["InternetGatewayId"])

    def public_record(self, errs):
        if not self.base_domain:
            return
        zones = [z for z in self.r53.list_hosted_zones()["HostedZones"]
                 if z["Name"].rstrip(".") == self.base_domain and not z.get("Config", {}).get("PrivateZone")]
        if not zones:
            return  # "not found" is not an error
        record = "*.apps.%s.%s." % (self.name, self.base_domain)
        for rrs in self.r53.list_resource_record_sets(HostedZoneId=zones[0]["Id"])["ResourceRecordSets"]:
            if rrs["Name"].replace("\\052", "*") == record:
                self._call(errs, self.r53.change_resource_record_sets, HostedZoneId=zones[0]["Id"],
                           ChangeBatch={"Changes": [{"Action": "DELETE", "ResourceRecordSet": rrs}]})

    def buckets(self, errs):
        for b in self.s3.list_buckets()["Buckets"]:
            if b["Name"].startswith("%s-image-registry-" % self.infra):
                objs = self.s3.list_objects_v2(Bucket=b["Name"]).get("Contents", [])
                if objs:
                    self._call(errs, self.s3.delete_objects, Bucket=b["Name"],
                               Delete={"Objects": [{"Key": o["Key"]} for o in objs]})
                self._call(errs, self.s3.delete_bucket, Bucket=b["Name"])

    def endpoint_services(self, errs):
        found = self._call(errs, self.ec2.describe_vpc_endpoint_service_configurations, Filters=self.tag)
        ids = [c["ServiceId"] for c in (found or {}).get("ServiceConfigurations", [])]
        if ids:
            self._call(errs, self.ec2.delete_vpc_endpoint_service_configurations, ServiceIds=ids)

    def vpc(self, vpc_id):
        """DestroyVPCs for one VPC: its children, then (only on no error) its groups, subnets and itself."""
        errs, in_vpc = [], [{"Name": "vpc-id", "Values": [vpc_id]}]
        for lb in self.elb.describe_load_balancers()["LoadBalancerDescriptions"]:
            if lb.get("VPCId") == vpc_id:
                self._call(errs, self.elb.delete_load_balancer, LoadBalancerName=lb["LoadBalancerName"])
        for lb in self.elbv2.describe_load_balancers()["LoadBalancers"]:
            if lb.get("VpcId") == vpc_id:
                self._call(errs, self.elbv2.delete_load_balancer, LoadBalancerArn=lb["LoadBalancerArn"])
        for tg in self.elbv2.describe_target_groups()["TargetGroups"]:
            if tg.get("VpcId") == vpc_id:
                self._call(errs, self.elbv2.delete_target_group, TargetGroupArn=tg["TargetGroupArn"])
        self.security_groups(errs, in_vpc)
        # AWS lists a deleted endpoint for a while and answers a second delete without error; moto refuses it
        # (InvalidRouteTableID.NotFound once its route tables are gone), so the model skips what is deleted
        eps = [e["VpcEndpointId"] for e in self.ec2.describe_vpc_endpoints(Filters=in_vpc)["VpcEndpoints"]
               if e.get("State", "").lower() not in ("deleted", "deleting")]
        if eps:
            self._call(errs, self.ec2.delete_vpc_endpoints, VpcEndpointIds=eps)
        self.private_zones(errs, vpc_id)
        self.route_tables(errs, in_vpc)
        for nat in self.ec2.describe_nat_gateways(Filter=in_vpc)["NatGateways"]:
            if nat["State"] == "deleted":
                continue
            if nat["State"] != "deleting":
                self._call(errs, self.ec2.delete_nat_gateway, NatGatewayId=nat["NatGatewayId"])
            errs.append("NAT gateway %s still deleting" % nat["NatGatewayId"])
        if errs:
            return errs
        self.security_groups(errs, in_vpc)
        for sn in self.ec2.describe_subnets(Filters=in_vpc)["Subnets"]:
            self._call(errs, self.ec2.delete_subnet, SubnetId=sn["SubnetId"])
        if errs:
            return errs
        self._call(errs, self.ec2.delete_vpc, VpcId=vpc_id)
        return errs

    def security_groups(self, errs, in_vpc):
        for sg in self.ec2.describe_security_groups(Filters=in_vpc)["SecurityGroups"]:
            before = len(errs)
            if sg.get("IpPermissions"):
                self._call(errs, self.ec2.revoke_security_group_ingress, GroupId=sg["GroupId"],
                           IpPermissions=sg["IpPermissions"])
            if sg.get("IpPermissionsEgress"):
                self._call(errs, self.ec2.revoke_security_group_egress, GroupId=sg["GroupId"],
                           IpPermissions=sg["IpPermissionsEgress"])
            if len(errs) == before and sg["GroupName"] != "default":
                self._call(errs, self.ec2.delete_security_group, GroupId=sg["GroupId"])

    def private_zones(self, errs, vpc_id):
        region = os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
        found = self._call(errs, self.r53.list_hosted_zones_by_vpc, VPCId=vpc_id, VPCRegion=region)
        for zone in (found or {}).get("HostedZoneSummaries", []):
            zid = zone["HostedZoneId"].split("/")[-1]
            changes = [{"Action": "DELETE", "ResourceRecordSet": r}
                       for r in self.r53.list_resource_record_sets(HostedZoneId=zid)["ResourceRecordSets"]
                       if r["Type"] not in ("NS", "SOA")]
            if changes:
                self._call(errs, self.r53.change_resource_record_sets, HostedZoneId=zid,
                           ChangeBatch={"Changes": changes})
            self._call(errs, self.r53.delete_hosted_zone, Id=zid)

    def route_tables(self, errs, in_vpc):
        for rt in self.ec2.describe_route_tables(Filters=in_vpc)["RouteTables"]:
            before = len(errs)
            for route in rt.get("Routes", []):
                if route.get("Origin") == "CreateRoute":
                    dest = {k: route[k] for k in ("DestinationCidrBlock", "DestinationIpv6CidrBlock",
                                                   "DestinationPrefixListId") if route.get(k)}
                    self._call(errs, self.ec2.delete_route, RouteTableId=rt["RouteTableId"], **dest)
            if len(errs) > before:
                continue
            main = False
            for assoc in rt.get("Associations", []):
                if assoc.get("Main"):
                    main = True
                    continue
                self._call(errs, self.ec2.disassociate_route_table, AssociationId=assoc["RouteTableAssociationId"])
            if len(errs) == before and not main:
                self._call(errs, self.ec2.delete_route_table, RouteTableId=rt["RouteTableId"])

    # ---- DestroyIAM: one pass
    def iam_pass(self):
        errs = []
        for p in self.iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]:
            if p["Arn"].split("/")[-1] == self.infra:
                self._call(errs, self.iam.delete_open_id_connect_provider, OpenIDConnectProviderArn=p["Arn"])
                break
        if not self.role("shared-role", errs):
            for name in COMPONENT_ROLES:
                self.role(name, errs)
        profile = "%s-worker" % self.infra
        found = self._call([], self.iam.get_instance_profile, InstanceProfileName=profile)
        if found:
            for r in found["InstanceProfile"]["Roles"]:
                self._call(errs, self.iam.remove_role_from_instance_profile, InstanceProfileName=profile,
                           RoleName=r["RoleName"])
            self._call(errs, self.iam.delete_instance_profile, InstanceProfileName=profile)
        self.role("worker-role", errs)
        return errs

    def role(self, name, errs):
        """DestroyOIDCRole: True when the role existed and was deleted."""
        role = "%s-%s" % (self.infra, name)
        if not self._call([], self.iam.get_role, RoleName=role):
            return False
        before = len(errs)
        for pol in self.iam.list_attached_role_policies(RoleName=role)["AttachedPolicies"]:
            self._call(errs, self.iam.detach_role_policy, RoleName=role, PolicyArn=pol["PolicyArn"])
        for pol in self.iam.list_role_policies(RoleName=role)["PolicyNames"]:
            self._call(errs, self.iam.delete_role_policy, RoleName=role, PolicyName=pol)
        self._call(errs, self.iam.delete_role, RoleName=role)
        return len(errs) == before

    def run(self, sleep=5.0, max_passes=120, grace=0):
        """Run's poll: a pass at once, then every `sleep` s until a pass has no error (or max_passes, or the
        infra grace period, as the Go code's context timeout, which bounds only DestroyInfra)."""
        out, t0 = {}, time.monotonic()
        for stage, one_pass in (("passes", self.infra_pass), ("iam_passes", self.iam_pass)):
            passes, errs = 0, ["not run"]
            while errs and passes < max_passes and not (grace and stage == "passes" and time.monotonic() - t0 > grace):
                if passes:
                    time.sleep(sleep)
                passes += 1
                errs = one_pass()
                print("%s %d: %d errors %s" % (stage, passes, len(errs), errs[:8]), file=sys.stderr)
            out[stage], out["errors_last_" + stage] = passes, errs
            if errs:
                break
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--infra-id", required=True)
    ap.add_argument("--base-domain")
    ap.add_argument("--name", help="the HostedCluster's name (its *.apps record); the infra ID when not given")
    ap.add_argument("--oidc-bucket", help="accepted for the bench's common arguments; HyperShift leaves it")
    ap.add_argument("--sleep", type=float, default=5.0)
    ap.add_argument("--max-passes", type=int, default=120)
    ap.add_argument("--grace-period", type=float, default=0,
                    help="s; HyperShift's --aws-infra-grace-period (0, its default: no limit but --max-passes)")
    args = ap.parse_args()
    t0 = time.monotonic()  # before the clients are built, as the module's own elapsed
    out = Model(args.infra_id, args.base_domain, args.name).run(args.sleep, args.max_passes, args.grace_period)
    out["seconds"] = round(time.monotonic() - t0, 3)
    print(json.dumps(out))
    return 0 if not out.get("errors_last_iam_passes", ["infra not done"]) else 1


if __name__ == "__main__":
    sys.exit(main())
