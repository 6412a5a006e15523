"""The realism layer's IAM: an identity's policies enforced on its requests, EC2's DryRun answered from them, and
iam:SimulatePrincipalPolicy (which moto does not implement) answered by the same evaluator (spec AWS-25 to AWS-29).

Who has a policy: an access key that moto's IAM knows (created with CreateAccessKey for an IAM user) is that user's,
and the user's inline policies, attached managed policies and its groups' policies apply, evaluated as AWS's
"Policy evaluation logic" says for a request within one account with identity-based policies only: an explicit Deny
wins, then an Allow, and anything else is an implicit deny. Every other key (the sandbox's made-up keys, CAPA's,
the twins') is moto's default identity, which holds every permission, as before this rule.

A test makes a restricted identity with plain boto3 calls signed by any unregistered key: CreateUser,
PutUserPolicy (or CreatePolicy + AttachUserPolicy), CreateAccessKey; then signs with the new key.

Not modelled (written in the spec): Condition (an Allow with a Condition never applies, a Deny with one always
does: the stricter reading), permissions boundaries, SCPs, session policies, resource-based policies, assumed
roles' keys (moto's AssumeRole credentials stay allow-all).
"""
import json
import re
import time
import uuid
from urllib.parse import unquote

ACCOUNT = "123456789012"
# what sts:GetCallerIdentity returns for a key moto's IAM does not know (moto's own default)
DEFAULT_ARN = "arn:aws:sts::%s:user/moto" % ACCOUNT
ALLOW_ALL = [{"Effect": "Allow", "Action": "*", "Resource": "*"}]
# actions no policy can deny (API_GetCallerIdentity: "No permissions are required to perform this operation")
ALWAYS_ALLOWED = {"sts:getcalleridentity"}
# S3 operations whose IAM action has another name ("Actions, resources, and condition keys for Amazon S3")
S3_ACTIONS = {"ListBuckets": "ListAllMyBuckets", "ListObjectVersions": "ListBucketVersions", "ListObjects": "ListBucket",
              "ListObjectsV2": "ListBucket", "HeadBucket": "ListBucket", "HeadObject": "GetObject",
              "DeleteObjects": "DeleteObject"}
# EC2 request parameters that name a resource, and the resource type of its ARN
EC2_RESOURCES = (("VpcId", "vpc"), ("SubnetId", "subnet"), ("GroupId", "security-group"),
                 ("InternetGatewayId", "internet-gateway"), ("RouteTableId", "route-table"),
                 ("NatGatewayId", "natgateway"), ("DhcpOptionsId", "dhcp-options"), ("AllocationId", "elastic-ip"),
                 ("NetworkInterfaceId", "network-interface"), ("InstanceId", "instance"),
                 ("VpcEndpointId", "vpc-endpoint"))
DRY_RUN_OK = "Request would have succeeded, but DryRun flag is set."
UNAUTHORIZED = "You are not authorized to perform this operation."


# ---- the evaluator (pure) ----------------------------------------------------------------------------
def _glob(pattern, case):
    """A policy pattern as a regex: * any run of characters, ? one character (Action and Resource elements)."""
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile("^" + rx + "$", 0 if case else re.IGNORECASE)


def _as_list(v):
    return [v] if isinstance(v, str) else list(v or [])


def action_matches(patterns, action):
    """Action names are case-insensitive and take wildcards (IAM JSON policy elements: Action)."""
    return any(_glob(p, case=False).match(action) for p in patterns)


def resource_matches(patterns, resource):
    """ARNs are case-sensitive and take wildcards in any segment (IAM JSON policy elements: Resource)."""
    return any(p == "*" or _glob(p, case=True).match(resource) for p in patterns)


def statement_applies(st, action, resource):
    if "Action" in st and not action_matches(_as_list(st["Action"]), action):
        return False
    if "NotAction" in st and action_matches(_as_list(st["NotAction"]), action):
        return False
    if "Resource" in st and not resource_matches(_as_list(st["Resource"]), resource):
        return False
    if "NotResource" in st and resource_matches(_as_list(st["NotResource"]), resource):
        return False
    if st.get("Condition"):  # not evaluated: the stricter reading (the spec, AWS-25)
        return st.get("Effect") == "Deny"
    return True


def decide(statements, action, resource):
    """allowed, explicitDeny or implicitDeny for one action on one resource (Policy evaluation logic)."""
    if action.lower() in ALWAYS_ALLOWED:
        return "allowed"
    hits = [st.get("Effect") for st in statements if statement_applies(st, action, resource)]
    if "Deny" in hits:
        return "explicitDeny"
    return "allowed" if "Allow" in hits else "implicitDeny"


def decide_all(statements, action, resources):
    """The decision for a request on several resources: each must be allowed; an explicit deny on any wins."""
    found = [decide(statements, action, r) for r in resources or ["*"]]
    for d in ("explicitDeny", "implicitDeny"):
        if d in found:
            return d
    return "allowed"


def statements_of(documents):
    out = []
    for doc in documents:
        if isinstance(doc, str):
            doc = json.loads(unquote(doc) if doc.lstrip().startswith("%") else doc)
        st = doc.get("Statement", [])
        out.extend([st] if isinstance(st, dict) else st)
    return out


# ---- what a request asks for --------------------------------------------------------------------------
def _list_param(params, name):
    return [v for k, v in sorted(params.items()) if (k == name or re.match(re.escape(name) + r"(\.member)?\.\d+$", k))
            and isinstance(v, str)]


def iam_action(req):
    service = req.service
    action = req.action
    if service == "s3":
        if action == "DeleteObject" and "versionId" in req.query:
            action = "DeleteObjectVersion"
        action = S3_ACTIONS.get(action, action)
    return "%s:%s" % (service, action)


def resources(req):
    """The ARNs the request acts on, as far as the layer can name them; ["*"] for what it cannot (an action with
    no resource-level permissions, such as the Describe calls, is authorized on "*" on AWS too)."""
    p, r, svc = req.params, req.region or "us-east-1", req.service
    out = []
    if svc == "ec2":
        for name, kind in EC2_RESOURCES:
            out += ["arn:aws:ec2:%s:%s:%s/%s" % (r, ACCOUNT, kind, v) for v in _list_param(p, name)]
    elif svc == "iam":
        for name, kind in (("RoleName", "role"), ("UserName", "user"), ("InstanceProfileName", "instance-profile"),
                           ("GroupName", "group")):
            if p.get(name):
                out.append("arn:aws:iam::%s:%s/%s" % (ACCOUNT, kind, p[name]))
        for name in ("PolicyArn", "OpenIDConnectProviderArn", "PolicySourceArn"):
            if p.get(name):
                out.append(p[name])
    elif svc == "s3":
        parts = [x for x in req.path.split("/") if x]
        if parts:
            out.append("arn:aws:s3:::" + "/".join(parts[:1] + (["/".join(parts[1:])] if len(parts) > 1 else [])))
    elif svc == "route53":
        parts = [x for x in req.path.split("/") if x]
        if "hostedzone" in parts and len(parts) > parts.index("hostedzone") + 1:
            out.append("arn:aws:route53:::hostedzone/" + parts[parts.index("hostedzone") + 1])
    elif svc == "elasticloadbalancing":
        for name in ("LoadBalancerArn", "TargetGroupArn"):
            if p.get(name):
                out.append(p[name])
        if p.get("LoadBalancerName"):
            out.append("arn:aws:elasticloadbalancing:%s:%s:loadbalancer/%s" % (r, ACCOUNT, p["LoadBalancerName"]))
    elif svc == "cloudformation" and p.get("StackName"):
        name = p["StackName"]
        out.append(name if name.startswith("arn:") else "arn:aws:cloudformation:%s:%s:stack/%s/*" % (r, ACCOUNT, name))
    elif svc == "rds":
        for name, kind in (("DBInstanceIdentifier", "db"), ("DBClusterIdentifier", "cluster")):
            if p.get(name):
                out.append("arn:aws:rds:%s:%s:%s:%s" % (r, ACCOUNT, kind, p[name]))
    return out or ["*"]


def dry_run(req):
    return req.service == "ec2" and str(req.params.get("DryRun", "")).lower() == "true"


# ---- the mixin ------------------------------------------------------------------------------------------
class IamPolicies:
    """Mixed into realism.Realism; needs ``self.layer`` (its moto lock), ``self._backend`` and ``error``."""

    def _iam_backend(self):
        return self._backend("iam", None)

    @staticmethod
    def _documents(entity, groups=()):
        """The policy documents of a user (with its groups') or a role: inline, then attached managed (default version)."""
        docs = []
        for owner in [entity] + list(groups):
            docs += list(owner.policies.values())
            for policy in list(owner.managed_policies.values()):
                docs += [v.document for v in policy.versions if v.is_default]
        return docs

    def _snapshot(self, find):
        """``find(iam)`` under moto's lock (moto's dicts are not thread-safe); never called with self.lock held."""
        lock = getattr(self.layer, "_moto_lock", None)
        for _ in range(3):
            try:
                if lock is None:
                    return find(self._iam_backend())
                with lock:
                    return find(self._iam_backend())
            except RuntimeError:  # a dict changed during iteration: read again
                time.sleep(0.01)
        return None

    def principal_of_key(self, key_id):
        """(user ARN, statements) for a key moto's IAM issued; None for any other key (allow-all)."""
        def find(iam):
            user = iam.get_user_from_access_key_id(key_id) if key_id else None
            if user is None:
                return None
            return user.arn, statements_of(self._documents(user, iam.get_groups_for_user(user.name)))
        return self._snapshot(find)

    def principal_by_arn(self, arn):
        """The statements of an IAM user or role named by ARN; ALLOW_ALL for moto's default identity; None when
        the account has no such entity."""
        if arn == DEFAULT_ARN:
            return ALLOW_ALL

        def find(iam):
            for user in list(iam.users.values()):
                if user.arn == arn:
                    return statements_of(self._documents(user, iam.get_groups_for_user(user.name)))
            for role in list(iam.roles.values()):
                if role.arn == arn:
                    return statements_of(self._documents(role))
            return None
        return self._snapshot(find)

    # AWS-25, AWS-26, AWS-27
    def authorize(self, req, error):
        """The refusal (or DryRun answer) for this request, or None to let it through. Called before self.lock."""
        if req.service == "sts" and req.action == "GetCallerIdentity":
            return None
        who = self.principal_of_key(req.key_id)
        action = iam_action(req)
        if who is None:
            if dry_run(req):
                return error(req, 412, "DryRunOperation", DRY_RUN_OK, "dry-run")
            return None
        arn, statements = who
        targets = resources(req)
        decision = decide_all(statements, action, targets)
        if decision == "allowed":
            if dry_run(req):
                return error(req, 412, "DryRunOperation", DRY_RUN_OK, "dry-run")
            return None
        return self.denied(req, error, arn, action, targets, decision)

    @staticmethod
    def denied(req, error, arn, action, targets, decision):
        if req.service == "ec2":
            return error(req, 403, "UnauthorizedOperation", UNAUTHORIZED, "denied")
        why = ("with an explicit deny in an identity-based policy" if decision == "explicitDeny"
               else "because no identity-based policy allows the %s action" % action)
        msg = "User: %s is not authorized to perform: %s on resource: %s %s" % (arn, action, targets[0], why)
        if req.environ.get("HTTP_X_AMZ_TARGET"):
            return error(req, 400, "AccessDeniedException", msg, "denied")
        return error(req, 403, "AccessDenied", msg, "denied")

    # AWS-28
    def simulate_principal_policy(self, req, error):
        p = req.params
        source = p.get("PolicySourceArn", "")
        statements = self.principal_by_arn(source)
        if statements is None:
            return error(req, 404, "NoSuchEntity", "The user or role with ARN %s cannot be found." % source, "simulation")
        actions = _list_param(p, "ActionNames")
        if not actions:
            return error(req, 400, "ValidationError", "1 validation error detected: Value null at 'actionNames' "
                         "failed to satisfy constraint: Member must not be null", "simulation")
        targets = _list_param(p, "ResourceArns") or ["*"]
        start = int(p.get("Marker") or 0)
        size = int(p.get("MaxItems") or 100)
        page = actions[start:start + size]
        members = []
        for action in page:
            per = [(r, decide(statements, action, r)) for r in targets]
            overall = decide_all(statements, action, targets)
            specific = "".join("<member><EvalResourceName>%s</EvalResourceName><EvalResourceDecision>%s"
                               "</EvalResourceDecision><MatchedStatements/><MissingContextValues/></member>"
                               % (_esc(r), d) for r, d in per) if targets != ["*"] else ""
            members.append("<member><EvalActionName>%s</EvalActionName><EvalResourceName>%s</EvalResourceName>"
                           "<EvalDecision>%s</EvalDecision><MatchedStatements/><MissingContextValues/>%s</member>"
                           % (_esc(action), _esc(targets[0] if len(targets) == 1 else "*"), overall,
                              "<ResourceSpecificResults>%s</ResourceSpecificResults>" % specific if specific else ""))
        more = start + size < len(actions)
        body = ('<SimulatePrincipalPolicyResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">'
                "<SimulatePrincipalPolicyResult><IsTruncated>%s</IsTruncated>%s<EvaluationResults>%s"
                "</EvaluationResults></SimulatePrincipalPolicyResult><ResponseMetadata><RequestId>%s</RequestId>"
                "</ResponseMetadata></SimulatePrincipalPolicyResponse>"
                % ("true" if more else "false", "<Marker>%d</Marker>" % (start + size) if more else "",
                   "".join(members), uuid.uuid4())).encode()
        headers = [("Content-Type", "text/xml"), ("Content-Length", str(len(body)))]
        return ("200 OK", headers, body, None, "simulation")


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
