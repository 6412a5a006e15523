"""CloudFormation deletion as AWS does it (tests/sandbox/spec/aws-layer.md, rules CFN-n), for the realism layer.

moto deletes a stack synchronously, skips what refuses and never reaches DELETE_FAILED. Here the layer
answers DeleteStack itself:
  * the call returns at once; the stack is DELETE_IN_PROGRESS and resources go in waves, in reverse
    dependency order (Ref, Fn::GetAtt, Fn::Sub, DependsOn), one wave every `cfn_step_seconds`;
  * each resource passes the SAME refusal checks the layer applies to direct API calls (a bucket with
    versions or delete markers, an IAM role with a managed/inline policy or an instance profile, a
    security group, subnet or VPC in use, a deletion-protected DB instance) and a nested stack fails
    when its child does; what depends on a refused resource is not attempted;
  * a refusal is a DELETE_FAILED event carrying the service's error, the resource stays listed with
    that status and reason, and the stack ends DELETE_FAILED after the wave; deleted stays deleted,
    so the next DeleteStack resumes from what is left;
  * DeletionPolicy Retain, Snapshot and RetainExceptOnCreate give DELETE_SKIPPED;
  * RetainResources and DeletionMode=FORCE_DELETE_STACK only from DELETE_FAILED (ValidationError
    otherwise, and for a resource already DELETE_COMPLETE); knob `cfn_retain_resources=0` makes the
    layer ignore both, as an emulator that does not implement them (the delete runs as a plain retry);
  * termination protection refuses DeleteStack (ValidationError); UpdateTerminationProtection works;
  * an export still imported elsewhere: the delete is accepted, then the stack returns to its previous
    *_COMPLETE status, whose event and StackStatusReason say "Export X cannot be deleted as it is in
    use by Y" (no DELETE_FAILED anywhere: a tool reading only the status sees success);
  * a deleted stack moves to moto's deleted stacks: found by ARN only;
  * ListImports (which moto lacks) names the live stacks importing an export.
ListStackResources, DescribeStackResources and DescribeStackResource are answered by the layer for a
stack it has begun deleting (moto hard-codes CREATE_COMPLETE there).
"""
import re
import time
import uuid

RETAIN_POLICIES = ("Retain", "Snapshot", "RetainExceptOnCreate")
_CFN_NS = "http://cloudformation.amazonaws.com/doc/2010-05-15/"
_SUB_REF = re.compile(r"\$\{([A-Za-z0-9]+)(?:\.[^}]*)?\}")
_SERVICE = {"s3": "Amazon S3", "ec2": "AmazonEC2", "iam": "AmazonIdentityManagement", "rds": "AmazonRDS"}
_DONE = ("DELETE_COMPLETE", "DELETE_SKIPPED")
_ABSENT = re.compile(r"NotFound|NoSuch|NonExistent|DoesNotExist|does not exist|not found", re.I)


def _x(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _iso(ts=None):
    t = ts if ts is not None else time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)


def service_reason(service, status, code, msg):
    """The text CloudFormation puts in ResourceStatusReason for a service's refusal (CFN-3)."""
    return (f"{msg} (Service: {_SERVICE.get(service, service)}; Status Code: {status}; Error Code: {code}; "
            f"Request ID: {uuid.uuid4()}; Proxy: null)")


def references(node, names):
    """Logical IDs (among `names`) that a template fragment refers to."""
    out = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "Ref" and isinstance(v, str) and v in names:
                out.add(v)
            elif k == "Fn::GetAtt":
                target = v[0] if isinstance(v, list) and v else (v.split(".")[0] if isinstance(v, str) else None)
                if target in names:
                    out.add(target)
            elif k == "Fn::Sub":
                text = v[0] if isinstance(v, list) and v else v
                if isinstance(text, str):
                    out.update(n for n in _SUB_REF.findall(text) if n in names)
                if isinstance(v, list) and len(v) > 1:
                    out.update(references(v[1], names))
            else:
                out.update(references(v, names))
    elif isinstance(node, list):
        for v in node:
            out.update(references(v, names))
    return out


def dependencies(resources):
    """logical ID -> the logical IDs it depends on (it must go before them). CFN-1"""
    names = set(resources)
    deps = {}
    for lid, body in resources.items():
        body = body or {}
        d = references({k: v for k, v in body.items() if k != "DependsOn"}, names)
        dep_on = body.get("DependsOn") or []
        d.update([dep_on] if isinstance(dep_on, str) else dep_on)
        d.discard(lid)
        deps[lid] = {x for x in d if x in names}
    return deps


def next_wave(remaining, deps):
    """Those of `remaining` that nothing else remaining depends on: deletable now."""
    held = set()
    for lid in remaining:
        held.update(deps.get(lid, ()))
    return sorted(lid for lid in remaining if lid not in held)


def imported_names(node):
    out = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "Fn::ImportValue" and isinstance(v, str):
                out.add(v)
            else:
                out.update(imported_names(v))
    elif isinstance(node, list):
        for v in node:
            out.update(imported_names(v))
    return out


class CfnDeletion:
    """Mixed into realism.Realism: state, the DeleteStack state machine and the CFN answers."""

    def _cfn_init(self):
        self.cfn_ops = {}        # stack id -> the running deletion
        self.cfn_res = {}        # stack id -> {logical id: {"status", "reason", "physical", "type", "time"}}

    # ---- lookups ---------------------------------------------------------------------------------
    def cfn(self, region):
        return self._backend("cloudformation", region)

    def _live_stack(self, backend, name_or_id):
        if name_or_id in backend.stacks:
            return backend.stacks[name_or_id]
        for s in backend.stacks.values():
            if s.name == name_or_id:
                return s
        return None

    def _any_stack(self, backend, name_or_id):
        return self._live_stack(backend, name_or_id) or backend.deleted_stacks.get(name_or_id)

    @staticmethod
    def _template_resources(stack):
        return (stack.template_dict or {}).get("Resources") or {}

    def _resource_table(self, stack, keep=True):
        """The stack's resources with their statuses; kept from the first delete of the stack on."""
        table = self.cfn_res.get(stack.stack_id)
        if table is None:
            table = {}
            created = "UPDATE_COMPLETE" if stack.status.startswith("UPDATE") else "CREATE_COMPLETE"
            parsed = stack.resource_map._parsed_resources
            for lid, body in self._template_resources(stack).items():
                res = parsed.get(lid)
                if res is None or isinstance(res, str):
                    continue
                table[lid] = {"status": created, "reason": None, "type": (body or {}).get("Type", ""),
                              "physical": self._physical(res), "time": time.time()}
            if keep:
                self.cfn_res[stack.stack_id] = table
        return table

    @staticmethod
    def _physical(res):
        from moto.cloudformation.models import Stack
        if isinstance(res, Stack):
            return res.stack_id
        return getattr(res, "physical_resource_id", "") or ""

    # ---- events and answers -----------------------------------------------------------------------
    def _event(self, stack, lid, rtype, physical, status, reason=None):
        from moto.cloudformation.models import Event
        ev = Event(stack_id=stack.stack_id, stack_name=stack.name, logical_resource_id=lid,
                   physical_resource_id=physical, resource_type=rtype, resource_status=status,
                   resource_status_reason=reason, resource_properties=None)
        # every event of one stack operation carries the token its call gave (ClientRequestToken)
        ev.client_request_token = getattr(stack, "sbx_request_token", None)  # CFN-12
        stack.events.append(ev)

    def _stack_event(self, stack, status, reason=None):
        self._event(stack, stack.name, "AWS::CloudFormation::Stack", stack.stack_id, status, reason)

    def _set_res(self, stack, lid, status, reason=None, event=True):
        row = self.cfn_res[stack.stack_id][lid]
        row.update(status=status, reason=reason, time=time.time())
        if event:
            self._event(stack, lid, row["type"], row["physical"], status, reason)

    @staticmethod
    def _ok(req, action, result=""):
        rid = str(uuid.uuid4())
        payload = (f'<{action}Response xmlns="{_CFN_NS}"><{action}Result>{result}</{action}Result>'
                   f'<ResponseMetadata><RequestId>{rid}</RequestId></ResponseMetadata></{action}Response>').encode()
        headers = [("x-amzn-RequestId", rid), ("Content-Type", "text/xml"), ("Content-Length", str(len(payload)))]
        # not marked "injected": the call did what it says (a DeleteStack answered here IS a mutating call,
        # and the request log must count it as one)
        return ("200 OK", headers, payload, None, None)

    def _invalid(self, req, msg):
        from .realism import error
        return error(req, 400, "ValidationError", msg, "refusal")

    # ---- the seam --------------------------------------------------------------------------------
    def _before_cloudformation(self, req):
        a, p = req.action, req.params
        if a == "DeleteStack":
            return self._cfn_delete(req)
        if a == "UpdateTerminationProtection":  # CFN-7
            backend = self.cfn(req.region)
            stack = self._live_stack(backend, p.get("StackName", ""))
            if stack is None:
                return self._invalid(req, f"Stack [{p.get('StackName', '')}] does not exist")
            stack.enable_termination_protection = str(p.get("EnableTerminationProtection")).lower() == "true"
            return self._ok(req, a, f"<StackId>{_x(stack.stack_id)}</StackId>")
        if a in ("UpdateStack", "CreateChangeSet") and p.get("ChangeSetType", "UPDATE") == "UPDATE":  # CFN-11
            stack = self._live_stack(self.cfn(req.region), p.get("StackName", ""))
            if stack is not None and stack.status in ("DELETE_IN_PROGRESS", "DELETE_FAILED"):
                return self._invalid(req, f"Stack:{stack.stack_id} is in {stack.status} state and can not be updated.")
        if a == "ListImports":  # CFN-10: moto does not implement it; the layer knows the imports
            export = p.get("ExportName", "")
            backend = self.cfn(req.region)
            users = sorted({other.name for other in backend.stacks.values()
                            if other.status != "DELETE_COMPLETE"
                            and export in imported_names(other.template_dict or {})})
            if not users:
                return self._invalid(req, f"Export '{export}' is not imported by any stack.")
            members = "".join(f"<member>{_x(u)}</member>" for u in users)
            return self._ok(req, a, f"<Imports>{members}</Imports>")
        if a in ("ListStackResources", "DescribeStackResources", "DescribeStackResource"):  # CFN-13
            backend = self.cfn(req.region)
            stack = self._any_stack(backend, p.get("StackName", ""))
            if stack is not None and (stack.stack_id in self.cfn_res or stack.stack_id in backend.stacks):
                return self._resources_answer(req, stack, p.get("LogicalResourceId"))
        return None

    def _after_cloudformation(self, req, status, body):
        if status >= 300 or req.action != "CreateStack":
            return
        m = re.search(rb"<StackId>([^<]+)</StackId>", body)
        stack = self.cfn(req.region).stacks.get(m.group(1).decode()) if m else None
        if stack is not None:
            self._cfn_created(req.region, stack)

    def _cfn_created(self, region, stack):
        """Template properties moto's resource support drops, applied as AWS would at create (CFN-13)."""
        parsed = stack.resource_map._parsed_resources
        for lid, body in self._template_resources(stack).items():
            props, res = (body or {}).get("Properties") or {}, parsed.get(lid)
            if res is None or isinstance(res, str):
                continue
            rtype = (body or {}).get("Type")
            if rtype == "AWS::CloudFormation::Stack" and hasattr(res, "stack_id"):
                # a nested stack names its parent and root (DescribeStacks ParentId/RootId), as on AWS
                res.parent_id = stack.stack_id
                res.root_id = getattr(stack, "root_id", None) or stack.stack_id
                self._cfn_created(region, res)
            elif rtype == "AWS::S3::Bucket" and (props.get("VersioningConfiguration") or {}).get("Status") in (
                    "Enabled", "Suspended"):
                bucket = self._backend("s3", None).buckets.get(self._physical(res))
                if bucket is not None:
                    bucket.versioning_status = props["VersioningConfiguration"]["Status"]
            elif rtype == "AWS::RDS::DBInstance" and str(props.get("DeletionProtection")).lower() == "true":
                db = self._backend("rds", region).databases.get(self._physical(res))
                if db is not None:
                    db.deletion_protection = True

    def _resources_answer(self, req, stack, only=None):
        a = req.action
        table = self._resource_table(stack, keep=False)
        rows = [(lid, r) for lid, r in table.items() if only in (None, "", lid)]
        if a == "DescribeStackResource" and not rows:
            return self._invalid(req, f"Resource {only} does not exist for stack {stack.name}")
        members = []
        for lid, r in rows:
            reason = f"<ResourceStatusReason>{_x(r['reason'])}</ResourceStatusReason>" if r["reason"] else ""
            common = (f"<LogicalResourceId>{_x(lid)}</LogicalResourceId>"
                      f"<PhysicalResourceId>{_x(r['physical'])}</PhysicalResourceId>"
                      f"<ResourceType>{_x(r['type'])}</ResourceType>"
                      f"<ResourceStatus>{r['status']}</ResourceStatus>{reason}")
            ident = f"<StackName>{_x(stack.name)}</StackName><StackId>{_x(stack.stack_id)}</StackId>"
            if a == "ListStackResources":
                members.append(f"<member>{common}<LastUpdatedTimestamp>{_iso(r['time'])}</LastUpdatedTimestamp>"
                               "</member>")
            elif a == "DescribeStackResources":
                members.append(f"<member>{ident}{common}<Timestamp>{_iso(r['time'])}</Timestamp></member>")
            else:
                return self._ok(req, a, f"<StackResourceDetail>{ident}{common}"
                                        f"<LastUpdatedTimestamp>{_iso(r['time'])}</LastUpdatedTimestamp>"
                                        "</StackResourceDetail>")
        wrap = "StackResourceSummaries" if a == "ListStackResources" else "StackResources"
        return self._ok(req, a, f"<{wrap}>{''.join(members)}</{wrap}>")

    # ---- DeleteStack -----------------------------------------------------------------------------
    def _cfn_delete(self, req):
        p = req.params
        name = p.get("StackName", "")
        backend = self.cfn(req.region)
        stack = self._live_stack(backend, name)
        if stack is None:
            return self._ok(req, "DeleteStack")  # CFN-9: deleting what is not there (or deleted) succeeds
        from .realism import _ids
        retain = [r for r in _ids(p, "RetainResources.member") if r]
        force = p.get("DeletionMode") == "FORCE_DELETE_STACK"
        if stack.enable_termination_protection:  # CFN-7
            return self._invalid(req, f"Stack [{stack.name}] cannot be deleted while TerminationProtection is enabled")
        if self.knobs.get("cfn_retain_resources", 1.0) <= 0:
            retain, force = [], False  # CFN-6: not implemented here, the delete runs as a plain retry
        if stack.status == "DELETE_IN_PROGRESS":
            return self._ok(req, "DeleteStack")
        if force and stack.status != "DELETE_FAILED":  # CFN-6
            return self._invalid(req, f"Invalid operation on stack [{stack.stack_id}]. You can activate DeletionMode "
                                      "FORCE_DELETE_STACK in a delete stack operation only when the stack is in the "
                                      "DELETE_FAILED state.")
        if retain:
            if stack.status != "DELETE_FAILED":
                return self._invalid(req, f"Invalid operation on stack [{stack.stack_id}]. RetainResources can be "
                                          "specified only when the stack is in the DELETE_FAILED state.")
            table = self._resource_table(stack)
            unknown = [r for r in retain if r not in table]
            if unknown:
                return self._invalid(req, f"The specified resources to retain {unknown} do not exist in the stack.")
            if any(table[r]["status"] == "DELETE_COMPLETE" for r in retain):
                return self._invalid(req, "The specified resources to retain must be in a valid state. Do not "
                                          "specify resources that are in the DELETE_COMPLETE state.")
        self._resource_table(stack)
        stack.sbx_request_token = p.get("ClientRequestToken") or None
        self.cfn_ops[stack.stack_id] = {"region": req.region, "prior": stack.status, "retain": set(retain),
                                        "force": force, "last": time.time(),
                                        "export_check": True}
        stack.status = "DELETE_IN_PROGRESS"  # CFN-1: the call returns at once
        stack.stack_status_reason = "User Initiated"
        self._stack_event(stack, "DELETE_IN_PROGRESS", "User Initiated")
        return self._ok(req, "DeleteStack")

    def _start_child(self, child, region, force):
        self._resource_table(child)
        self.cfn_ops[child.stack_id] = {"region": region, "prior": child.status, "retain": set(), "force": force,
                                        "last": 0.0, "export_check": True}
        child.status = "DELETE_IN_PROGRESS"
        child.stack_status_reason = "User Initiated"
        self._stack_event(child, "DELETE_IN_PROGRESS", "User Initiated")

    # ---- the waves -------------------------------------------------------------------------------
    def _cfn_tick(self):
        now = time.time()
        for sid, op in list(self.cfn_ops.items()):
            # the knob is read at every tick: a test may slow a delete down, then let it go
            if now >= op["last"] + self.knobs["cfn_step_seconds"] and sid in self.cfn_ops:
                op["last"] = now
                try:
                    self._cfn_wave(sid, op)
                except Exception as e:  # noqa: BLE001 - a layer bug fails the stack, it never hangs it (CFN-15)
                    print(f"realism: cfn wave {sid}: {e!r}", flush=True)
                    self.cfn_ops.pop(sid, None)
                    stack = self.cfn(op["region"]).stacks.get(sid)
                    if stack is not None:
                        stack.status = "DELETE_FAILED"
                        stack.stack_status_reason = f"Internal Failure (sandbox realism layer: {e!r})"
                        self._stack_event(stack, "DELETE_FAILED", stack.stack_status_reason)

    def _importers(self, backend, stack):
        names = {e.name for e in stack.exports}
        out = []
        if not names:
            return out
        for other in backend.stacks.values():
            if other.stack_id == stack.stack_id or other.status == "DELETE_COMPLETE":
                continue
            for used in sorted(imported_names(other.template_dict or {}) & names):
                out.append((used, other.name))
        return out

    def _cfn_wave(self, sid, op):
        backend = self.cfn(op["region"])
        stack = backend.stacks.get(sid)
        if stack is None:
            self.cfn_ops.pop(sid, None)
            return
        if op.pop("export_check", False):
            used = self._importers(backend, stack)
            if used:
                # CFN-8 (AWS): no DELETE_FAILED at all; the stack is back in its previous status, and that status's
                # event and the StackStatusReason name the export and its importers
                export = used[0][0]
                importers = " and ".join(sorted({imp for exp, imp in used if exp == export}))
                reason = f"Export {export} cannot be deleted as it is in use by {importers}"
                self.cfn_ops.pop(sid)
                stack.status = op["prior"]
                stack.stack_status_reason = reason
                self._stack_event(stack, op["prior"], reason)
                return
        table = self.cfn_res[sid]
        resources = self._template_resources(stack)
        deps = dependencies({lid: resources.get(lid) for lid in table})
        remaining = [lid for lid, r in table.items() if r["status"] not in _DONE]
        waiting = False
        failed = []
        for lid in next_wave(remaining, deps):
            row = table[lid]
            body = resources.get(lid) or {}
            if row["status"] == "DELETE_IN_PROGRESS" and row["type"] == "AWS::CloudFormation::Stack":
                outcome = self._child_outcome(backend, row["physical"])
                if outcome is None:
                    waiting = True
                elif outcome == "DELETE_COMPLETE":
                    self._set_res(stack, lid, "DELETE_COMPLETE")
                else:
                    failed.append(lid)
                    self._set_res(stack, lid, "DELETE_FAILED",
                                  f"Embedded stack {row['physical']} was not successfully deleted: {outcome}")
                continue
            if lid in op["retain"] or body.get("DeletionPolicy") in RETAIN_POLICIES:  # CFN-5, CFN-6
                self._set_res(stack, lid, "DELETE_SKIPPED")
                continue
            self._set_res(stack, lid, "DELETE_IN_PROGRESS")
            if row["type"] == "AWS::CloudFormation::Stack":
                child = backend.stacks.get(row["physical"])
                if child is not None and child.stack_id not in self.cfn_ops:
                    self._start_child(child, op["region"], op["force"])
                    waiting = True
                    continue
                if child is not None:
                    waiting = True
                    continue
                self._set_res(stack, lid, "DELETE_COMPLETE")
                continue
            refusal = self.cfn_refusal(op["region"], row["type"], row["physical"], body)  # CFN-2
            if refusal is None:
                refusal = self._moto_delete(stack, lid, body)
            if refusal is None:
                self._set_res(stack, lid, "DELETE_COMPLETE")
            elif op["force"]:
                self._set_res(stack, lid, "DELETE_SKIPPED", refusal)
            else:
                failed.append(lid)
                self._set_res(stack, lid, "DELETE_FAILED", refusal)
        if waiting:
            return
        if failed:  # CFN-3
            self.cfn_ops.pop(sid)
            failed_all = sorted(lid for lid, r in table.items() if r["status"] == "DELETE_FAILED")
            reason = f"The following resource(s) failed to delete: [{', '.join(failed_all)}]. "
            stack.status = "DELETE_FAILED"
            stack.stack_status_reason = reason
            self._stack_event(stack, "DELETE_FAILED", reason)
            return
        if any(r["status"] not in _DONE for r in table.values()):
            return
        self.cfn_ops.pop(sid)
        self._stack_event(stack, "DELETE_COMPLETE")
        stack.status = "DELETE_COMPLETE"
        stack.stack_status_reason = None
        stack.deletion_time = _iso()
        for export in stack.exports:
            backend.exports.pop(export.name, None)
        backend.stacks.pop(sid, None)
        backend.deleted_stacks[sid] = stack  # CFN-9: found by ARN only from now on

    def _child_outcome(self, backend, child_id):
        """None while the child is still deleting; else its final status (or its failure reason)."""
        if child_id in self.cfn_ops:
            return None
        child = backend.stacks.get(child_id) or backend.deleted_stacks.get(child_id)
        if child is None or child.status == "DELETE_COMPLETE":
            return "DELETE_COMPLETE"
        return getattr(child, "stack_status_reason", None) or child.status

    def _moto_delete(self, stack, lid, body):
        """Let moto delete one resource; a failure becomes the resource's reason."""
        rmap = stack.resource_map
        res = rmap._parsed_resources.get(lid)
        if res is None or isinstance(res, str):
            return None
        try:
            rmap._delete_resource(res, rmap._resource_json_map.get(lid, body))
        except Exception as e:  # noqa: BLE001 - the service's error is the resource's reason
            code = getattr(e, "code", None) or type(e).__name__
            msg = getattr(e, "message", None) or str(e)
            if _ABSENT.search(str(code)) or _ABSENT.search(msg):
                rmap._parsed_resources.pop(lid, None)
                return None  # CFN-4: gone already (deleted out of band), as on AWS a completed delete
            return f"{msg} (Error Code: {code})"
        rmap._parsed_resources.pop(lid, None)
        return None

    # ---- the refusal rules shared with direct API calls ---------------------------------------------
    def cfn_refusal(self, region, rtype, physical, body):
        """The reason a resource of `rtype` refuses deletion now, in CloudFormation's words, or None."""
        if rtype == "AWS::S3::Bucket":
            r = self.bucket_refusal(physical)
            return service_reason("s3", 409, *r) if r else None
        if rtype == "AWS::IAM::Role":
            self._cfn_release_role(physical, (body or {}).get("Properties") or {})
            r = self.role_refusal(physical)
            return service_reason("iam", 409, *r) if r else None
        if rtype == "AWS::EC2::SecurityGroup":
            ec2 = self.ec2(region)
            if ec2.get_security_group_from_id(physical) is not None and self.group_dependents(ec2, physical):
                return service_reason("ec2", 400, "DependencyViolation", f"resource {physical} has a dependent object")
            return None
        if rtype == "AWS::EC2::Subnet":
            ec2 = self.ec2(region)
            if self._subnet_exists(ec2, physical) and self.subnet_dependents(ec2, physical):
                return service_reason("ec2", 400, "DependencyViolation",
                                      f"The subnet '{physical}' has dependencies and cannot be deleted.")
            return None
        if rtype == "AWS::EC2::VPC":
            ec2 = self.ec2(region)
            if physical in ec2.vpcs and self.vpc_dependents(ec2, physical):
                return service_reason("ec2", 400, "DependencyViolation",
                                      f"The vpc '{physical}' has dependencies and cannot be deleted.")
            return None
        if rtype == "AWS::RDS::DBInstance":
            r = self.db_instance_refusal(region, physical)
            return service_reason("rds", 400, *r) if r else None
        return None

    def _cfn_release_role(self, role_name, props):
        """What the template itself gave the role, CloudFormation takes away before DeleteRole (CFN-14)."""
        iam = self._backend("iam", None)
        try:
            role = iam.get_role(role_name)
        except Exception:  # noqa: BLE001 - gone already
            return
        for pol in props.get("Policies") or []:
            name = (pol or {}).get("PolicyName")
            if isinstance(name, str):
                role.policies.pop(name, None)
        for arn in props.get("ManagedPolicyArns") or []:
            if isinstance(arn, str) and arn in role.managed_policies:
                try:
                    iam.detach_role_policy(arn, role_name)
                except Exception:  # noqa: BLE001
                    pass

    # shared with _before_s3 / _before_iam / _before_rds -------------------------------------------
    def bucket_refusal(self, name):
        s3 = self._backend("s3", None)
        bucket = s3.buckets.get(name)
        if bucket is not None and any(versions for _, versions in bucket.keys._iterlists()):
            return ("BucketNotEmpty",
                    "The bucket you tried to delete is not empty. You must delete all versions in the bucket.")
        return None

    def role_refusal(self, name):
        iam = self._backend("iam", None)
        try:
            role = iam.get_role(name)
        except Exception:  # noqa: BLE001 - no such role: nothing refuses
            return None
        for profile in iam.instance_profiles.values():
            if any(r.name == role.name for r in profile.roles):
                return "DeleteConflict", "Cannot delete entity, must remove roles from instance profile first."
        if role.managed_policies:
            return "DeleteConflict", "Cannot delete entity, must detach all policies first."
        if role.policies:
            return "DeleteConflict", "Cannot delete entity, must delete policies first."
        return None

    def db_instance_refusal(self, region, ident):
        db = self._backend("rds", region).databases.get(ident)
        if db is not None and db.deletion_protection:
            return ("InvalidParameterCombination",
                    "Cannot delete protected DB Instance, please disable deletion protection and try again.")
        return None
