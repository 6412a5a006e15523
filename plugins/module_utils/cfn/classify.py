# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CloudFormation deletion refusals as pure rules: classify AWS's words into one refusal class,
decide what may clear it, and put a set of stacks in deletion order. No AWS calls here.

* Classification: a resource's ``ResourceStatusReason`` (or a stack's status reason) as AWS words it ->
  one refusal class. The service error code is looked for first (``Error Code: BucketNotEmpty``), then
  the wording of the message, then the resource type.
* Each class has at most one remedy, named as the cloudformation_teardown module's ``clear`` choices.
* Ordering: in a set of stacks, a stack that imports another's export goes first, and a nested stack
  whose parent is in the set is left to its parent (from amazon.aws.cloudformation_info's answer too)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# the sweep's protect tag and its reading of the value (core/protect.py), not a copy
from ansible_collections.teardown.gates.plugins.module_utils.core.protect import PROTECTED_REASON, is_protected
from ansible_collections.teardown.gates.plugins.module_utils.core.age import parse_age, too_young
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

DELETE_CONFLICT = "DeleteConflict"
DEPENDENCY_VIOLATION = "DependencyViolation"
BUCKET_NOT_EMPTY = "BucketNotEmpty"
DELETION_PROTECTION = "DeletionProtection"
CHILD_STACK_FAILED = "ChildStackFailed"
EXPORT_IN_USE = "ExportInUse"
TERMINATION_PROTECTION = "TerminationProtection"
TRANSIENT = "transient"
OTHER = "other"

NOT_FOUND = "NOT_FOUND"  # CloudFormation answered that no such stack exists
UNKNOWN = "UNKNOWN"  # no read answered: the stack may be in any state
CLASSES = (DELETE_CONFLICT, DEPENDENCY_VIOLATION, BUCKET_NOT_EMPTY, DELETION_PROTECTION, CHILD_STACK_FAILED,
           EXPORT_IN_USE, TERMINATION_PROTECTION, TRANSIENT, OTHER)

# class -> the module option (a ``clear`` choice, or a boolean option) that clears it
REMEDY = {
    BUCKET_NOT_EMPTY: "empty_buckets",
    DELETE_CONFLICT: "detach_iam",
    DELETION_PROTECTION: "disable_deletion_protection",
    DEPENDENCY_VIOLATION: "release_dependencies",
    CHILD_STACK_FAILED: "nested",
    TERMINATION_PROTECTION: "disable_termination_protection",
    TRANSIENT: "retry",
    EXPORT_IN_USE: None,
    OTHER: None,
}
CLEAR_CHOICES = ("empty_buckets", "detach_iam", "disable_deletion_protection", "release_dependencies", "nested")

WHY = {
    BUCKET_NOT_EMPTY: "the bucket still holds objects, versions or delete markers",
    DELETE_CONFLICT: "the IAM entity still has policies attached, inline policies or instance-profile membership",
    DELETION_PROTECTION: "deletion protection is enabled on the database",
    DEPENDENCY_VIOLATION: "an ENI or another security group's rule still refers to it",
    CHILD_STACK_FAILED: "a resource of the nested stack refused to go",
    TERMINATION_PROTECTION: "termination protection is enabled on the stack",
    EXPORT_IN_USE: "an export of this stack is still imported by another stack",
    TRANSIENT: "a transient service error",
    OTHER: "an error no remedy of this module clears",
}

_CODE_RE = re.compile(r"Error Code:\s*([A-Za-z0-9_.]+)")
_STATUS_CODE_RE = re.compile(r"Status Code:\s*(\d{3})")
_TRANSIENT_CODES = frozenset(["Throttling", "ThrottlingException", "RequestLimitExceeded", "ServiceUnavailable",
                              "InternalFailure", "InternalError", "SlowDown", "RequestTimeout", "TooManyRequestsException"])
_RULES = (
    (EXPORT_IN_USE, re.compile(r"export .* cannot be deleted as it is in use by|is in use by .*import", re.I)),
    (TERMINATION_PROTECTION, re.compile(r"termination ?protection is enabled", re.I)),
    (BUCKET_NOT_EMPTY, re.compile(r"bucket you tried to delete is not empty|bucket .*not empty", re.I)),
    (DELETION_PROTECTION, re.compile(r"deletion ?protection|cannot delete protected", re.I)),
    (DELETE_CONFLICT, re.compile(r"must (detach|delete|remove) .*first|cannot delete entity|"
                                 r"cannot delete a policy attached", re.I)),
    (DEPENDENCY_VIOLATION, re.compile(r"has a dependent object|has dependencies and cannot be deleted|"
                                      r"dependencyviolation", re.I)),
    (CHILD_STACK_FAILED, re.compile(r"embedded stack .* was not successfully deleted|nested stack", re.I)),
    (TRANSIENT, re.compile(r"rate exceeded|throttl|service unavailable|internal failure|try again later|timed out",
                           re.I)),
)
_CODE_CLASS = {
    "BucketNotEmpty": BUCKET_NOT_EMPTY,
    "DeleteConflict": DELETE_CONFLICT,
    "DependencyViolation": DEPENDENCY_VIOLATION,
    "InvalidDBClusterStateFault": None,
}


def classify(reason, resource_type=None):
    """The refusal class of one status reason (a resource's or the stack's)."""
    text = reason or ""
    m = _CODE_RE.search(text)
    if m:
        code = m.group(1)
        if code in _CODE_CLASS and _CODE_CLASS[code]:
            return _CODE_CLASS[code]
        if code in _TRANSIENT_CODES:
            return TRANSIENT
    for cls, rx in _RULES:
        if rx.search(text):
            return cls
    if resource_type == "AWS::CloudFormation::Stack" and text:
        return CHILD_STACK_FAILED
    m = _STATUS_CODE_RE.search(text)
    if m and m.group(1).startswith("5"):
        return TRANSIENT
    return OTHER


def decide(cls, clear, disable_termination_protection=False, retain_unclearable=False, attempts=0, max_attempts=3):
    """What to do about one refusal: ``(action, detail)`` where action is ``clear`` (apply REMEDY[cls]),
    ``retry`` (transient, delete again), ``retain`` (RetainResources) or ``stop``; detail names the
    option that would clear it when stopping."""
    remedy = REMEDY.get(cls)
    if cls == TRANSIENT:
        if attempts < max_attempts:
            return "retry", None
        return ("retain", None) if retain_unclearable else ("stop", "it kept failing after %d deletes" % attempts)
    if cls == TERMINATION_PROTECTION:
        return ("clear", None) if disable_termination_protection else ("stop", "disable_termination_protection=true")
    allowed = remedy is not None and remedy in (clear or ())
    if allowed and attempts < max_attempts:
        return "clear", None
    if retain_unclearable and cls not in (EXPORT_IN_USE,):
        return "retain", None
    if allowed:
        return "stop", "it kept refusing after %s was applied %d times" % (remedy, attempts)
    if remedy is None:
        if cls == EXPORT_IN_USE:
            return "stop", "delete the importing stacks first (the cfn_refusals role orders importers first)"
        return "stop", "retain_unclearable=true (keeps the resource, listed in retained) or clear it by hand"
    return "stop", "clear: [%s]" % remedy


class OrderError(TeardownGatesError):
    """The stacks cannot be ordered for deletion (an import cycle)."""


def order_stacks(stacks):
    """Order a set of stacks for deletion.

    ``stacks``: list of dicts with ``name``, ``id`` (ARN), optional ``parent_id`` (a nested stack's
    parent), ``exports`` (export names) and ``imports`` (export names it imports). Returns
    ``(ordered, handled_by_parent)``: importers come before the stacks whose exports they import;
    a nested stack whose parent is in the set is not run on its own (its parent handles it).
    Raises OrderError on an import cycle."""
    ids = set(s["id"] for s in stacks)
    handled = [s for s in stacks if s.get("parent_id") and s["parent_id"] in ids]
    handled_ids = set(s["id"] for s in handled)
    run = [s for s in stacks if s["id"] not in handled_ids]
    # a nested stack's exports and imports count as its top-level ancestor's
    by_id = dict((s["id"], s) for s in stacks)

    def top(s):
        seen = set()
        while s.get("parent_id") in by_id and s["id"] not in seen:
            seen.add(s["id"])
            s = by_id[s["parent_id"]]
        return s["id"]

    exporter_of = {}
    for s in stacks:
        for e in s.get("exports", ()):
            exporter_of[e] = top(s)
    must_precede = dict((s["id"], set()) for s in run)  # id -> ids that must be deleted before it
    for s in stacks:
        me = top(s)
        for e in s.get("imports", ()):
            exp = exporter_of.get(e)
            if exp is not None and exp != me and exp in must_precede:
                must_precede[exp].add(me)
    ordered, done = [], set()
    pending = list(run)
    while pending:
        ready = [s for s in pending if must_precede[s["id"]] <= done]
        if not ready:
            raise OrderError("import cycle between stacks: %s" % ", ".join(sorted(s["name"] for s in pending)))
        for s in ready:
            ordered.append(s)
            done.add(s["id"])
        pending = [s for s in pending if s["id"] not in done]
    return ordered, handled


_IMPORT_RE = re.compile(r"""(?:Fn::ImportValue|!ImportValue)["']?\s*:?\s*["']?([A-Za-z0-9:_\-./]+)""")


def template_imports(template):
    """Export names a template imports with a literal Fn::ImportValue (a dict, JSON or YAML text).
    An import built at run time (Fn::Sub ...) is reported as ``None`` in the list: unknown, not absent."""
    found = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "Fn::ImportValue":
                    found.append(v if isinstance(v, str) else None)
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    if isinstance(template, (dict, list)):
        walk(template)
    elif isinstance(template, str):
        import json
        try:
            walk(json.loads(template))
        except ValueError:
            for m in _IMPORT_RE.finditer(template):
                name = m.group(1)
                found.append(None if name.startswith(("Fn::", "!")) else name)
            if re.search(r"(?:Fn::ImportValue|!ImportValue)\s*:?\s*\n", template):
                found.append(None)
    return found


def order_from_info(info, names=None, min_age=0, now=None):
    """``info``: the ``cloudformation`` dict of amazon.aws.cloudformation_info (stack name -> facts, with
    ``stack_template``). ``names``: restrict to these stack names or ARNs (None: all). ``min_age`` (seconds or a
    duration, 0 off): a stack whose ``CreationTime`` (DescribeStacks' ``creation_time``, no added request) is less
    than that before ``now`` is kept, as a protected one is. Returns a dict:
    ``order`` (names, importers before exporters, each with ``after``: the importers it waits for),
    ``handled_by_parent`` (nested stacks their parent deletes), ``unknown_imports`` (stacks whose template
    imports a name not known until run time) and ``kept`` (each with its reason)."""
    min_age = parse_age(min_age)
    stacks, unknown = [], []
    # a nested stack is known by its ParentId, or (where an endpoint leaves ParentId out) by being the
    # physical ID of a parent's AWS::CloudFormation::Stack resource (``stack_resources: true``)
    parent_of = {}
    for name, facts in (info or {}).items():
        d = facts.get("stack_description") or {}
        for r in facts.get("stack_resource_list") or []:
            if r.get("resource_type") == "AWS::CloudFormation::Stack" and r.get("physical_resource_id"):
                parent_of[r["physical_resource_id"]] = d.get("stack_id") or name
    for name, facts in (info or {}).items():
        d = facts.get("stack_description") or {}
        sid = d.get("stack_id") or name
        imports = template_imports(facts.get("stack_template"))
        if None in imports:
            unknown.append(name)
        parent = d.get("parent_id") or parent_of.get(sid) or parent_of.get(name)
        stacks.append(dict(name=name, id=sid, parent_id=parent, status=d.get("stack_status"),
                           exports=[o["export_name"] for o in d.get("outputs") or [] if o.get("export_name")],
                           imports=[i for i in imports if i]))
    if names is not None:
        wanted = set(names)
        chosen = [s for s in stacks if s["name"] in wanted or s["id"] in wanted]
        # a chosen parent's children come along, so that the parent is seen to handle them
        ids = set(s["id"] for s in chosen)
        chosen += [s for s in stacks if s["parent_id"] in ids and s["id"] not in ids]
        stacks = chosen
    young = dict((n, too_young(((f or {}).get("stack_description") or {}).get("creation_time"), min_age, now))
                 for n, f in (info or {}).items())
    kept = protected_stacks(stacks, dict((n, (f or {}).get("stack_tags")) for n, f in (info or {}).items()), young)
    stacks = [s for s in stacks if s["name"] not in kept]
    ordered, handled = order_stacks(stacks)
    exporter_of = dict((e, s["name"]) for s in stacks for e in s["exports"])
    importers_of = {}
    for s in stacks:
        for i in s["imports"]:
            if i in exporter_of:
                importers_of.setdefault(exporter_of[i], set()).add(s["name"])
    by_id = dict((s["id"], s) for s in stacks)

    def top_name(s):
        while s.get("parent_id") in by_id:
            s = by_id[s["parent_id"]]
        return s["name"]

    out = []
    for s in ordered:
        after = sorted(set(top_name(by_id[x["id"]]) if x["id"] in by_id else x["name"]
                           for x in stacks if x["name"] in importers_of.get(s["name"], set())) - set([s["name"]]))
        out.append(dict(name=s["name"], id=s["id"], status=s["status"], after=after))
    return dict(order=out, handled_by_parent=[dict(name=s["name"], id=s["id"], parent_id=s["parent_id"])
                                              for s in handled],
                unknown_imports=sorted(unknown),
                kept=[dict(name=n, id=k["id"], reason=k["reason"]) for n, k in sorted(kept.items())])


def protected_stacks(stacks, tags_of, young=None):
    """{name: {id, reason}} of the stacks that stay: tagged teardown.gates/protected (its tags as DescribeStacks
    answers them, ``tags_of``: name -> tags; nothing more is read), created less than min_age ago (``young``: name ->
    the reason, "" when old enough), and what cannot be deleted while one stays:
    its parent and ancestors (deleting a parent deletes its nested stacks), the stacks it imports from (an export in
    use cannot be deleted), and the nested stacks of each kept stack (their parent, which deletes them, stays)."""
    by_name = dict((s["name"], s) for s in stacks)
    by_id = dict((s["id"], s) for s in stacks)
    exporter_of = dict((e, s["name"]) for s in stacks for e in s["exports"])
    kept = dict((s["name"], {"id": s["id"], "reason": PROTECTED_REASON}) for s in stacks
                if is_protected(tags_of.get(s["name"])))
    for s in stacks:
        if s["name"] not in kept and (young or {}).get(s["name"]):
            kept[s["name"]] = {"id": s["id"], "reason": young[s["name"]]}
    todo = list(kept)
    while todo:
        name = todo.pop()
        s = by_name[name]
        holds = [(by_id[s["parent_id"]]["name"], "nested stack %s is kept" % name)] if s["parent_id"] in by_id else []
        holds += [(exporter_of[i], "stack %s, kept, imports its export %s" % (name, i))
                  for i in s["imports"] if i in exporter_of]
        holds += [(c["name"], "its parent %s is kept" % name) for c in stacks if c["parent_id"] == s["id"]]
        for other, why in holds:
            if other not in kept:
                kept[other] = {"id": by_name[other]["id"], "reason": why}
                todo.append(other)
    return kept
