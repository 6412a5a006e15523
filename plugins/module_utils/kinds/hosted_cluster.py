# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hosted_cluster kind: destroy a HyperShift HostedCluster (role hosted_cluster_destroy).

Its published names (HyperShift, Cluster API and CAPA finalizers and their owners), the hints for its objects,
its rules, its report body, chart and verdict. registry.py lists it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.aws import graph as aws_graph
from ansible_collections.teardown.gates.plugins.module_utils.preflight import plan as planlib
from ansible_collections.teardown.gates.plugins.module_utils.preflight.permissions import grant
from ansible_collections.teardown.gates.plugins.module_utils.kinds.drawing import (
    aws_id, aws_rows, epoch, esc, finish, gate_row, html_list, html_table, phase_rows)
from ansible_collections.teardown.gates.plugins.module_utils.kinds.rules import condition_rule
from ansible_collections.teardown.gates.plugins.module_utils.owners.hypershift import (
    CAPA_API, CAPI_API, CLEANUP_ANN, CLI_FINALIZER, HO_ENDPOINT_FINALIZER, HO_FINALIZER, HYPERSHIFT_API, NODEPOOL_ANN,
    SKIP_NS_ANN)
from ansible_collections.teardown.gates.plugins.module_utils.report.render import removed_finalizer_rows

NAME = "hosted_cluster"
PAGE = True  # it has a report page (report_html, report_markdown, report_mermaid)

API_VERSIONS = (HYPERSHIFT_API, CAPI_API, CAPA_API)
ANNOTATIONS = (NODEPOOL_ANN, SKIP_NS_ANN, CLEANUP_ANN)

# finalizer -> (owner, what it waits for); FINALIZERS_ON below where the same name has another owner on one kind
# (tests/sandbox/spec/hypershift.md, "Conformance": every owner checked against openshift/hypershift@3ee9615)
FINALIZERS = {
    HO_FINALIZER: (
        "HyperShift operator (HostedCluster, NodePool)",
        "NodePools requested, CAPI Cluster absent, HCP gone, credentials, endpoint services, RBAC and the OIDC "
        "documents cleaned (hypershift.io/aws-oidc-discovery comes off then), the HCP namespace gone unless kept, "
        "the destroy grace period over"),
    CLI_FINALIZER: (
        "hypershift destroy CLI",
        "the CLI's own wait; it removes it after the AWS infrastructure and IAM are destroyed"),
    "hypershift.io/aws-oidc-discovery": (
        "HyperShift operator (OIDC cleanup)",
        "the <infraID>/ prefix of the OIDC bucket deleted"),
    "hypershift.openshift.io/control-plane-operator-finalizer": (
        "control-plane operator (AWSEndpointService)",
        "the VPC endpoint to the endpoint service, its security group and DNS records deleted in AWS; HO drops it "
        "itself after 10 minutes or with invalid credentials"),
    # HO's own AWSEndpointService controller (hypershift-operator/controllers/platform/aws/controller.go:54)
    HO_ENDPOINT_FINALIZER: (
        "HyperShift operator (AWSEndpointService)",
        "the VPC endpoint service configuration deleted in AWS (its endpoint connections rejected when the "
        "delete fails)"),
    "cluster.cluster.x-k8s.io": (
        "CAPI manager (Cluster)",
        "worker MachineDeployments/MachineSets/Machines gone, then controlPlaneRef, then infrastructureRef"),
    "cluster.x-k8s.io/machinedeployment": (
        "CAPI manager (MachineDeployment)", "its MachineSets and their Machines deleted"),
    "cluster.x-k8s.io/machineset": (
        "CAPI manager (MachineSet)", "its Machines deleted"),
    "machine.cluster.x-k8s.io": (
        "CAPI manager (Machine)", "its AWSMachine (infrastructure) deleted"),
    "awsmachine.infrastructure.cluster.x-k8s.io": (
        "CAPA (AWSMachine)", "the EC2 instance terminated (CAPA looks again every minute while it is shutting-down)"),
    "awscluster.infrastructure.cluster.x-k8s.io": (
        "CAPA (AWSCluster)", "the cluster's AWS network infrastructure deleted (HyperShift's AWSCluster is "
        "externally managed: CAPA puts no finalizer on it)"),
}

# (api group, kind, finalizer) -> (owner, what it waits for), where it differs from FINALIZERS: on a HostedControlPlane
# hypershift.openshift.io/finalizer is CPO's, not HO's (control-plane-operator/controllers/hostedcontrolplane/
# hostedcontrolplane_controller.go:147 adds it, :431-437 removes it)
FINALIZERS_ON = {
    ("hypershift.openshift.io", "HostedControlPlane", HO_FINALIZER): (
        "control-plane operator (CPO, HostedControlPlane)",
        "CVO scaled down, then, with the cleanup annotation and valid credentials, the guest's cloud resources "
        "destroyed by HCCO (CloudResourcesDestroyed; CPO gives up after 10 minutes, CloudResourcesDeletionTimedOut)"),
}

# the controller Deployments that own these finalizers, as their upstream installs name them; diagnose_deletion
# reads each one's readiness. "serves": the API versions whose objects they reconcile.
CONTROLLERS = (
    # openshift/hypershift cmd/install/assets/hypershift_operator.go: HyperShiftOperatorDeployment, Deployment
    # "operator" in the install namespace (cmd/install/install.go --namespace, default "hypershift")
    {"namespace": "hypershift", "name": "operator", "what": "HyperShift operator", "serves": (HYPERSHIFT_API,),
     "finalizers": (HO_FINALIZER, "hypershift.io/aws-oidc-discovery", HO_ENDPOINT_FINALIZER)},
    # kubernetes-sigs/cluster-api config/default/kustomization.yaml (namespace capi-system, namePrefix capi-) and
    # config/manager/manager.yaml (Deployment controller-manager)
    {"namespace": "capi-system", "name": "capi-controller-manager", "what": "CAPI manager", "serves": (CAPI_API,),
     "finalizers": ("cluster.cluster.x-k8s.io", "cluster.x-k8s.io/machinedeployment", "cluster.x-k8s.io/machineset",
                    "machine.cluster.x-k8s.io")},
    # kubernetes-sigs/cluster-api-provider-aws config/default/kustomization.yaml (namespace capa-system, namePrefix
    # capa-) and config/manager/manager.yaml (Deployment controller-manager)
    {"namespace": "capa-system", "name": "capa-controller-manager", "what": "CAPA", "serves": (CAPA_API,),
     "finalizers": ("awsmachine.infrastructure.cluster.x-k8s.io", "awscluster.infrastructure.cluster.x-k8s.io")},
)

_HCP = ("Check CPO and HCCO health and logs, the CVOScaledDown and CloudResourcesDestroyed conditions, "
        "guest load balancers or storage, endpoint services, and Service/PVC finalizers.")
_MACHINES = ("Inspect NodePool finalizers, Machine Deleting conditions, AWSMachine finalizers, CAPI manager "
             "and CAPA logs, and EC2 states. WaitingForInfrastructureDeletion can be normal while an "
             "instance is shutting down.")
_CAPI_CLUSTER = ("Check worker descendants first (MachineDeployments, MachineSets, Machines), then the HCP "
                 "named by spec.controlPlaneRef, then spec.infrastructureRef. Inspect CAPI manager health, "
                 "deletion conditions, provider errors, and finalizers.")

# (api group, kind) -> what to inspect first. Group "" is the core group.
OBJECT_HINTS = {
    ("hypershift.openshift.io", "NodePool"): [_MACHINES],
    ("cluster.x-k8s.io", "Machine"): [_MACHINES],
    ("cluster.x-k8s.io", "MachineSet"): [_MACHINES],
    ("cluster.x-k8s.io", "MachineDeployment"): [_MACHINES],
    ("infrastructure.cluster.x-k8s.io", "AWSMachine"): [_MACHINES],
    ("cluster.x-k8s.io", "Cluster"): [_CAPI_CLUSTER],
    ("infrastructure.cluster.x-k8s.io", "AWSCluster"): [
        _CAPI_CLUSTER,
        "VPC or network dependencies: ENIs, VPC endpoints, subnets, route tables, security groups, "
        "internet gateway and Elastic IPs; a NAT gateway in `deleting` is still pending."],
    ("hypershift.openshift.io", "HostedControlPlane"): [_HCP],
    ("hypershift.openshift.io", "AWSEndpointService"): [
        "CPO drops its finalizer once it has deleted the VPC endpoint, its security group and DNS records; HO "
        "drops its own once it has deleted the endpoint service, and drops CPO's after 10 minutes or with invalid "
        "credentials: check CPO and HO logs, the VPC endpoint and the AWS endpoint service."],
    ("hypershift.openshift.io", "HostedCluster"): [
        "HyperShift operator logs and the HostedClusterDestroyed condition (WaitingForGracePeriod is the "
        "destroy grace period). Remaining gates in order: NodePools/Machines, CAPI Cluster, HCP, HCP "
        "namespace, OIDC documents.",
        "With only the CLI destroy finalizer (openshift.io/destroy-cluster) left: destroy command progress "
        "and remaining AWS infrastructure. If the command exited, follow the interrupted-command recovery "
        "(re-run the destroy; it resumes)."],
    ("", "Namespace"): [
        "An HCP namespace: first verify CAPI Cluster absence; HO does not delete the namespace before that "
        "gate. If the namespace is terminating, inspect its conditions and remaining resource finalizers; "
        "distinguish normal termination from discovery failure (NamespaceDeletionDiscoveryFailure).",
        "Believe the listed contents over the conditions: conditions can report no remaining content while "
        "terminating pods or component objects are still present."],
}


# Rules: view (see diagnosis.inspect_next) -> [(where, hint)], where "first" or "last".
cloud_resources_rule = condition_rule("CloudResourcesDestroyed", (
    (lambda c: c.get("status") != "True",
     lambda c: "CloudResourcesDestroyed=%s (%s): %s" % (c.get("status"), c.get("reason"),
                                                        c.get("message") or "remaining cloud resources")),
))


def infrastructure_deletion_rule(view):
    for c in view["conditions"]:
        if isinstance(c, dict) and c.get("reason") == "WaitingForInfrastructureDeletion":
            return [("first", "WaitingForInfrastructureDeletion: the AWSMachine and its EC2 instance state "
                              "(shutting-down is normal, terminated is done; CAPA looks again every minute).")]
    return []


grace_period_rule = condition_rule("HostedClusterDestroyed", (
    (lambda c: c.get("reason") == "WaitingForGracePeriod",
     "HostedClusterDestroyed/WaitingForGracePeriod: the destroy grace period annotation is holding the HO finalizer; "
     "this is expected until it elapses."),
))


def cli_finalizer_rule(view):
    if view["finalizers"] == [CLI_FINALIZER] and view["kind"] == "HostedCluster":
        return [("first", "Only the CLI destroy finalizer remains: the HO is done; the destroy command owns "
                          "the rest (AWS infrastructure, IAM).")]
    return []


# (order, rule): diagnosis applies every kind's rules by this order (its own Deleting rule is 70)
HINT_RULES = ((50, cloud_resources_rule), (60, infrastructure_deletion_rule), (80, grace_period_rule),
              (100, cli_finalizer_rule))

CLOSED_STATES = ("passed", "deleted", "absent", "skipped", "retained")


def claims(report):
    """A report of this kind, by its shape: gates and a cluster."""
    return "gates" in report and "cluster" in report


def chart(report):
    ms = report.get("milestones") or {}
    c = report.get("cluster") or {}
    run_end = epoch(ms.get("finished"))
    gates = [gate_row(g, "Gates", run_end) for g in report.get("gates") or []]
    aws = aws_rows(report, run_end)
    rows = phase_rows(report, gates, aws) + gates + aws
    milestones = [{"label": "command finished", "at": epoch(ms.get("command_finished"))}]
    requested, started = epoch(ms.get("hc_deletion_timestamp")), epoch(ms.get("started"))
    # an earlier run's delete (a resumed run) is not on this run's axis: it could be hours before
    if requested is not None and (started is None or requested >= started - 1):
        milestones.insert(0, {"label": "delete requested", "at": requested})
    if report.get("verified"):
        milestones.append({"label": "verified", "at": epoch(ms.get("verified_at") or ms.get("finished"))})
    elif report.get("stopped"):
        milestones.append({"label": "stopped", "at": run_end})
    title = "Teardown of HostedCluster %s/%s" % (c.get("namespace"), c.get("name"))
    return finish("hosted_cluster", title, rows, milestones, epoch(ms.get("started")), run_end)


def body(report):
    parts = []
    c = report.get("cluster") or {}
    ms = report.get("milestones") or {}
    ident = [(k, c.get(k)) for k in ("uid", "infra_id", "region", "hcp_namespace")]
    ident += [(k.replace("_", " "), ms.get(k)) for k in ("started", "command_finished", "finished") if ms.get(k)]
    parts.append(html_table(None, ident))
    st = report.get("stopped")
    if st:
        items = ["<b>At:</b> %s" % esc(st.get("gate")), esc(st.get("message"))]
        items += ["inspect: %s" % esc(h) for h in st.get("inspect_next") or []]
        if st.get("plan_refused"):
            items.append("the approved plan was refused, the run is not resumed: %s" % esc(st.get("resume")))
        elif st.get("resume"):
            items.append("resume: <code>%s</code>" % esc(st["resume"]))
        parts += ["<h2>Stopped: what held it</h2>", html_list(items)]
    if report.get("taken_over"):
        parts += ["<h2>Taken over (take_over_cleanup)</h2>",
                  html_table(["object", "uid", "finalizer removed", "owner", "evidence of absence", "at"],
                             removed_finalizer_rows(report))]
    parts += ["<h2>Gates</h2>", html_table(["gate", "state", "started", "first terminating", "passed", "seconds"], [
        (g.get("name"), g.get("state"), g.get("started"), g.get("first_observed_terminating"), g.get("passed_at"),
         g.get("duration_s")) for g in report.get("gates") or []])]
    parts += ["<h2>Retained, and why</h2>", html_list(["%s: %s" % (esc(r.get("what")), esc(r.get("why")))
                                                       for r in report.get("retained") or []]
                                                      + [aws_id(r) for r in (report.get("iam") or {}).get("retained") or []])]
    remaining = []
    for r in report.get("remaining") or []:
        if "type" in r:
            remaining.append("%s (%s)%s" % (aws_id(r), esc(r.get("state") or r.get("outcome")),
                                            (": " + esc(r["error"])) if r.get("error") else ""))
        else:
            remaining.append("%s: %s" % (esc(r.get("what")), esc(r.get("state"))))
    parts += ["<h2>Remaining</h2>", html_list(remaining) if remaining else
              "<p>%s</p>" % ("Nothing." if report.get("verified") else "Nothing known (see the verification below).")]
    not_cleaned = (report.get("aws") or {}).get("not_cleaned") or []
    if not_cleaned:
        parts += ["<h2>Not cleaned: the run stopped before its AWS cleanup (the resume cleans them)</h2>",
                  html_list([aws_id(r) for r in not_cleaned])]
    ver = report.get("verification") or {}
    parts += ["<h2>Verification (independent queries)</h2>",
              html_table(["what", "state", "count"], [(ch.get("what"), ch.get("state"), ch.get("count"))
                                                      for ch in ver.get("checks") or []]),
              "<p>AWS lookups by ID: %s</p>" % ("every non-retained ID absent or terminal" if ver.get("aws_verified")
                                                else "NOT verified")]
    aws = report.get("aws") or {}
    parts.append("<details><summary>AWS: deleted by this run %d, already absent or terminal %d</summary>%s</details>" % (
        len(aws.get("deleted") or []), len(aws.get("absent") or []),
        html_list([aws_id(r) for r in (aws.get("deleted") or []) + (aws.get("absent") or [])])))
    return "\n".join(parts)


def verdict(report):
    if report.get("verified"):
        return "ok", "verified"
    if report.get("command_succeeded"):
        return "warn", "command finished, NOT verified"
    return "bad", "NOT finished" + (" (stopped at %s)" % report["stopped"].get("gate") if report.get("stopped")
                                    else "")


# The Kubernetes permissions a run needs on its path, as data (preflight/permissions.py reviews them before the first
# change): verb, API group, resource, the namespace (a template over the run's options; None: cluster-wide or every
# namespace), the option that must be true for the permission to be needed (None: always), and the RBAC file that
# grants them (tests/unit/plugins/module_utils/preflight/test_permissions.py parses it and checks each is granted).
RBAC_FILE = 'extensions/rbac/hosted_cluster_destroy.yml'
HCP_NAMESPACE = "{hosted_cluster_namespace}-{hosted_cluster_name}"
PERMISSIONS = (
    grant("get watch patch delete", "hypershift.openshift.io", "hostedclusters", "{hosted_cluster_namespace}")
    + grant("list watch", "hypershift.openshift.io", "nodepools", "{hosted_cluster_namespace}")
    + grant("get watch", "hypershift.openshift.io", "hostedcontrolplanes", HCP_NAMESPACE)
    + grant("list", "cluster.x-k8s.io", "clusters", HCP_NAMESPACE)
    + grant("list", "cluster.x-k8s.io", "machines", HCP_NAMESPACE)
    + grant("list", "infrastructure.cluster.x-k8s.io", "awsmachines", HCP_NAMESPACE)
    + grant("list", "apps", "deployments", HCP_NAMESPACE)
    + grant("watch", "", "namespaces")
    # the Secrets the CLI made (HC-13): listed by their label, deleted by name with a UID precondition through
    # wait_gate, which watches each until it is read gone
    + grant("list watch delete", "", "secrets", "{hosted_cluster_namespace}")
    # the HostedControlPlane deleted, the cleanup annotation copied (HS-3), and CPO's finalizer released once its
    # owners are read gone
    + grant("delete patch", "hypershift.openshift.io", "hostedcontrolplanes", HCP_NAMESPACE, when="take_over_cleanup")
)


# where the rest of the kind lives: slot -> (path, a word the file, or a file under the folder, holds)
FILES = {
    "role": ("roles/hosted_cluster_destroy", "hosted_cluster"),
    "playbook": ("playbooks/destroy_hosted_cluster.yml", "hosted_cluster_destroy"),
    "runbook": ("docs/runbook-destroy-hosted-cluster.md", "destroy_hosted_cluster"),
    "rbac": ("extensions/rbac/hosted_cluster_destroy.yml", "hosted_cluster_destroy"),
    "awx": ("extensions/awx/job_templates.yml", "destroy_hosted_cluster.yml"),
    "runner_row": ("tests/sandbox/tests/test_runner_playbooks.py", '"destroy_hosted_cluster.yml": Row('),
    "bad_input_row": ("tests/sandbox/tests/test_bad_input.py", "hosted_cluster_destroy"),
    "integration": ("tests/integration/targets/destroy_hosted_cluster_happy", "destroy_hosted_cluster"),
    "molecule": ("extensions/molecule/hosted_cluster", "hosted_cluster_destroy"),
    "chaos": ("tests/chaos/run.py", "destroy_hosted_cluster.yml"),
}


# the options of the destroy that shape its plan (hosted_cluster_destroy_options less what says how the run began)
PLAN_OPTIONS = ("destroy_cloud_resources", "cleanup_effective", "skip_namespace_delete", "preserve_iam",
                "cluster_grace_period", "take_over_cleanup", "take_over_after", "aws_region", "min_age")


def _on(value):
    """A role fact as a truth: True, or a non-empty text that is not a false word (the deletion timestamp, when the
    HostedCluster is deleting)."""
    if isinstance(value, str):
        return value.strip().lower() not in ("", "false", "no", "off", "0", "none")
    return bool(value)


def plan(facts, options):
    """The destroy's plan from what Phase 1 read before the first change: ``facts`` holds ``cluster`` (the
    identity: namespace, name, uid, infra_id, region, hcp_namespace), ``present`` and ``deleting`` (the
    HostedCluster's state), ``cli_finalizer_on``, ``cleanup_preexisting``, ``nodepools``, ``manifest`` (every
    AWS ID recorded) and ``protected`` (aws_infra_inventory's kept rows: tagged teardown.gates/protected, or created
    less than min_age ago; they and what waits on them are kept, with the reason). Steps: 1 the CLI finalizer, 2
    the cleanup annotation, 3 the HostedCluster's delete, 4 what HyperShift and CAPI delete on their own
    (NodePools, the HCP namespace), 10 + level the AWS deletes in dependency order, IAM last, 90 the CLI
    finalizer's release."""
    facts, options = facts or {}, options or {}
    c = facts.get("cluster") or {}
    opts = dict((k, options[k]) for k in PLAN_OPTIONS if k in options)
    hc = "%s/%s" % (c.get("namespace", ""), c.get("name", ""))
    entries, unknown = [], []
    present, deleting = _on(facts.get("present")), _on(facts.get("deleting"))
    if present and not _on(facts.get("cli_finalizer_on")) and not deleting:
        entries.append(planlib.entry(1, "add finalizer", "HostedCluster", hc, detail=CLI_FINALIZER))
    if present and _on(options.get("destroy_cloud_resources")) and not _on(facts.get("cleanup_preexisting")):
        entries.append(planlib.entry(2, "annotate", "HostedCluster", hc, detail="%s=true" % CLEANUP_ANN))
    if present and not deleting:
        entries.append(planlib.entry(3, "delete", "HostedCluster", hc, detail="uid %s" % c.get("uid", "")))
    if present:
        for np in facts.get("nodepools") or []:
            entries.append(planlib.entry(4, "deleted by HyperShift", "NodePool", "%s/%s" % (c.get("namespace", ""), np)))
        if not _on(options.get("skip_namespace_delete")) and c.get("hcp_namespace"):
            entries.append(planlib.entry(4, "deleted by HyperShift", "Namespace", c["hcp_namespace"]))
        unknown.append(planlib.at_run_time("the CAPI Machines, AWSMachines and the guest's load balancers and volumes",
                                           "HyperShift's and CAPI's own deletion (the gates wait on them, they are not deleted by ID here)"))
    ordered = aws_graph.plan(facts.get("manifest") or {}, preserve_iam=_on(options.get("preserve_iam")),
                             protected=facts.get("protected") or [])
    entries += [planlib.entry(10 + r["level"], "delete", r["type"], r["id"], of=c.get("infra_id", "")) for lvl in ordered["levels"] for r in lvl]
    keep = [planlib.kept(r["type"], r["id"], "preserve_iam") for r in ordered["retained"]]
    keep += [planlib.kept(r["type"], r["id"], r["reason"]) for r in ordered["kept"]]
    keep += [planlib.kept(r["type"], r["id"], "waits on kept " + ", ".join(r["blocked_by"])) for r in ordered["blocked"]]
    if present and (not _on(facts.get("cli_finalizer_on")) or deleting):
        entries.append(planlib.entry(90, "remove finalizer", "HostedCluster", hc, detail=CLI_FINALIZER))
    target = dict((k, c.get(k, "")) for k in ("namespace", "name", "uid", "infra_id", "region"))
    return planlib.build(NAME, target, opts, entries, unknown, keep)


# The AWS actions the destroy's AWS cleanup (aws_infra_cleanup, plugins/module_utils/aws/deletes.py and
# aws/execute.py) sends: its deletes, detaches and revokes, in the order of its plan ...
AWS_DELETE_ACTIONS = (
    "ec2:DeleteDhcpOptions", "ec2:DeleteInternetGateway", "ec2:DeleteNatGateway", "ec2:DeleteRouteTable",
    "ec2:DeleteSecurityGroup", "ec2:DeleteSubnet", "ec2:DeleteVolume", "ec2:DeleteVpc", "ec2:DeleteVpcEndpoints",
    "ec2:DeleteVpcEndpointServiceConfigurations",
    "ec2:DetachInternetGateway", "ec2:DisassociateRouteTable", "ec2:RejectVpcEndpointConnections",
    "ec2:ReleaseAddress", "ec2:RevokeSecurityGroupEgress",
    "ec2:RevokeSecurityGroupIngress", "ec2:TerminateInstances",
    "elasticloadbalancing:DeleteLoadBalancer", "elasticloadbalancing:DeleteTargetGroup",
    "iam:DeleteInstanceProfile", "iam:DeleteOpenIDConnectProvider", "iam:DeletePolicy", "iam:DeletePolicyVersion",
    "iam:DeleteRole", "iam:DeleteRolePolicy", "iam:DetachRolePolicy", "iam:RemoveRoleFromInstanceProfile",
    "route53:ChangeResourceRecordSets", "route53:DeleteHostedZone",
    "s3:DeleteBucket", "s3:DeleteObject", "s3:DeleteObjectVersion",
)
# ... and the reads its plan, its waits on blockers and its verification by ID need (aws_inventory, aws_blockers,
# aws_probes, aws_deletes): without one of them the cleanup stops between two deletes
AWS_WAIT_ACTIONS = (
    "ec2:DescribeAddresses", "ec2:DescribeDhcpOptions", "ec2:DescribeInstances", "ec2:DescribeInternetGateways",
    "ec2:DescribeNatGateways", "ec2:DescribeNetworkInterfaces", "ec2:DescribeRouteTables",
    "ec2:DescribeSecurityGroups", "ec2:DescribeSubnets", "ec2:DescribeVolumes", "ec2:DescribeVpcEndpointConnections",
    "ec2:DescribeVpcEndpointServiceConfigurations", "ec2:DescribeVpcEndpoints", "ec2:DescribeVpcs",
    "elasticloadbalancing:DescribeLoadBalancers", "elasticloadbalancing:DescribeTargetGroups",
    "iam:GetAccountAuthorizationDetails", "iam:GetInstanceProfile", "iam:ListAttachedRolePolicies",
    "iam:ListEntitiesForPolicy", "iam:ListInstanceProfiles", "iam:ListInstanceProfilesForRole",
    "iam:ListOpenIDConnectProviders", "iam:ListPolicies", "iam:ListPolicyVersions", "iam:ListRolePolicies",
    "iam:ListRoles",
    "route53:GetHostedZone", "route53:ListHostedZonesByName", "route53:ListHostedZonesByVPC",
    "route53:ListResourceRecordSets",
    "s3:ListAllMyBuckets", "s3:ListBucketVersions",
)


def aws_actions():
    """The AWS actions a destroy's AWS cleanup needs, sorted (the permission preflight checks each)."""
    return tuple(sorted(set(AWS_DELETE_ACTIONS + AWS_WAIT_ACTIONS)))
