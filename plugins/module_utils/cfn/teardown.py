# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The CloudFormation teardown driver (:class:`Teardown`): delete, wait (bounded), on DELETE_FAILED
classify every refusal (cfn_classify), clear what is allowed (cfn_remedies), delete again, until
DELETE_COMPLETE, a refusal it may not clear, or the deadline. A ``*_COMPLETE`` other than
DELETE_COMPLETE after a delete is a refusal, not a success.

A remedy touches a holder outside the stack (an interface or a principal that is not a resource of the stack's tree)
only when ``release_outside_stack`` names it; otherwise that refusal is one it may not clear.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

try:
    import botocore.exceptions
except ImportError:  # pragma: no cover - AnsibleAWSModule reports the missing dependency
    pass

from ansible_collections.amazon.aws.plugins.module_utils.botocore import is_boto3_error_code
from ansible_collections.teardown.gates.plugins.module_utils.aws.client import error_code, list_all, page_items, pages
from ansible_collections.teardown.gates.plugins.module_utils.cfn.classify import (
    BUCKET_NOT_EMPTY, CHILD_STACK_FAILED, DELETE_CONFLICT, DELETION_PROTECTION, DEPENDENCY_VIOLATION, EXPORT_IN_USE,
    NOT_FOUND, OTHER, REMEDY, TERMINATION_PROTECTION, UNKNOWN, WHY, classify, decide)
from ansible_collections.teardown.gates.plugins.module_utils.cfn.remedies import (
    GONE_CODES, KNOWS_STACK, REMEDIES, Unclear, error_message, find_holders, is_missing_stack, needs_consent,
    outside_message, release, utc)
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError


# at most this many pages of a stack's events at one look (newest first; a first look at a long-lived stack)
EVENT_PAGES = 20

# what the report shows of a holder (the rest is what the releaser needs)
HOLDER_KEYS = ("kind", "id", "what", "outside_stack")


def shown_holders(holders):
    out = []
    for h in holders:
        x = dict((k, v) for k, v in h.items() if k in HOLDER_KEYS)
        if h.get("outside_stack") and h.get("would"):
            x["what"] = "%s; outside the stack: the remedy would %s" % (x.get("what"), h["would"])
        out.append(x)
    return out


class Failed(TeardownGatesError):
    def __init__(self, msg):
        TeardownGatesError.__init__(self, msg)
        self.msg = msg


def event_dict(e):
    return dict(timestamp=utc(e.get("Timestamp")), logical_id=e.get("LogicalResourceId"),
                type=e.get("ResourceType"), physical_id=e.get("PhysicalResourceId"),
                status=e.get("ResourceStatus"), reason=e.get("ResourceStatusReason"), stack_id=e.get("StackId"))


class Teardown:
    """Drives one stack to DELETE_COMPLETE. ``c`` is an aws_client.Clients (counted, retried, and
    guarded against mutating calls in check mode)."""

    def __init__(self, c, clear=(), retain_unclearable=False, disable_termination_protection=False,
                 wait_timeout=900, check_mode=False, poll=2.0, clock=time.monotonic, sleep=time.sleep,
                 max_attempts=3, release_outside_stack=()):
        self.c = c
        self.clear = tuple(clear or ())
        self.consent = tuple(release_outside_stack or ())  # holders outside the stack the caller lets go
        self.retain_unclearable = retain_unclearable
        self.disable_tp = disable_termination_protection
        self.check_mode = check_mode
        self.poll = poll
        self.clock, self.sleep = clock, sleep
        self.deadline = clock() + wait_timeout
        self.wait_timeout = wait_timeout
        self.max_attempts = max_attempts
        self.changed = False
        self.refusals = []
        self.retained = []
        self.events = []
        self._seen_events = set()
        self.attempts = {}  # (stack_id, logical_id) -> times a remedy was applied / delete retried
        self.retain_supported = None
        self.actions = []  # what was done (or would be, in check mode)
        self.notes = []  # what could not be known
        self.observed = None  # the last answer of describe(): a description, NOT_FOUND, or None (no answer yet)
        # one pass (a look at the stack's refusals and their remedies): the listings it made, by stack, so that the
        # physical IDs of the stack's tree cost no second ListStackResources; None outside a pass
        self._listed = None
        self._top = None
        self._inside_ids = None

    # -- reads
    def describe(self, name_or_id, track=False):
        """The stack's description, or None when CloudFormation answered that it does not exist.

        None only for that answer (a ValidationError "does not exist"): any other error is raised, and an answer
        without the stack and without an error raises Failed, so a missing answer is never read as absent.
        With ``track`` (the stack being torn down, not a nested one), ``observed`` keeps the last answer that said
        something: the description, or ``"NOT_FOUND"``."""
        try:
            stacks = self.c.call("cloudformation", "describe_stacks", StackName=name_or_id).get("Stacks") or []
        except botocore.exceptions.ClientError as e:
            if is_missing_stack(e):
                if track:
                    self.observed = NOT_FOUND
                return None
            raise
        if not stacks:
            raise Failed("DescribeStacks for %s answered without the stack and without an error: its state is "
                         "unknown" % name_or_id)
        if track:
            self.observed = stacks[0]
        return stacks[0]

    def observed_status(self, sid=None):
        """What the last successful read said: the stack's status, DELETE_COMPLETE when a stack known by ID was
        then answered as missing, NOT_FOUND when it was never found, UNKNOWN when no read answered."""
        if isinstance(self.observed, dict):
            return self.observed.get("StackStatus") or UNKNOWN
        if self.observed == NOT_FOUND:
            return "DELETE_COMPLETE" if sid else NOT_FOUND
        return UNKNOWN

    def resources(self, stack_id):
        if self._listed is not None and stack_id in self._listed:
            return self._listed[stack_id]
        rows = list_all(self.c, "cloudformation", "list_stack_resources", "StackResourceSummaries",
                        StackName=stack_id)
        if self._listed is not None:
            self._listed[stack_id] = rows
        return rows

    def begin_pass(self, stack_id):
        """A new look at the stack: listings made before are stale."""
        self._listed, self._top, self._inside_ids = {}, stack_id, None

    def tree_ids(self, stack_id):
        """The physical IDs of the resources of the stack and of its nested stacks, but those deleted."""
        ids, todo, seen = set(), [stack_id], set()
        while todo:
            sid = todo.pop()
            if sid in seen:
                continue
            seen.add(sid)
            for r in self.resources(sid):
                pid = r.get("PhysicalResourceId")
                if not pid or r.get("ResourceStatus") == "DELETE_COMPLETE":
                    continue
                ids.add(pid)
                if r.get("ResourceType") == "AWS::CloudFormation::Stack":
                    todo.append(pid)
        return ids

    def inside(self, remedy, rtype):
        """The physical IDs of the stack's tree for a remedy whose holders may be outside it (once per pass), else
        None."""
        if (remedy, rtype) not in KNOWS_STACK:
            return None
        if self._inside_ids is None:
            self._inside_ids = self.tree_ids(self._top)
        return self._inside_ids

    def outside(self, holders, stack):
        """The sentences naming each holder outside the stack that the caller did not let go."""
        return [outside_message(h, stack) for h in needs_consent(holders, self.consent)]

    def new_events(self, stack_id, record=True):
        """Events not seen before, oldest first (one page or a few: stops at the first one seen)."""
        listed = []

        def enough(page):  # the newest come first: a page holding a seen event is the last one needed
            listed.append(page)
            return len(listed) >= EVENT_PAGES or any(e["EventId"] in self._seen_events for e in page.get("StackEvents", []))

        out = []
        for e in page_items(pages(self.c, "cloudformation", "describe_stack_events", until=enough, StackName=stack_id),
                            "StackEvents"):
            if e["EventId"] in self._seen_events:
                break
            out.append(e)
        out.reverse()
        for e in out:
            self._seen_events.add(e["EventId"])
            if record:
                self.events.append(event_dict(e))
                if e.get("ResourceStatus") == "DELETE_SKIPPED":
                    self._retain_note({"StackId": e.get("StackId"), "StackName": e.get("StackName")}, e)
        return out

    def mark_events_seen(self, stack_id):
        self.new_events(stack_id, record=False)

    # -- refusals
    def collect(self, stack, path=()):
        """Refusals of a stack in DELETE_FAILED (and, through nested stacks, of its children)."""
        sid = stack["StackId"]
        out = []
        for r in self.resources(sid):
            st = r.get("ResourceStatus")
            if st == "DELETE_SKIPPED":
                self._retain_note(stack, r)
            if st != "DELETE_FAILED":
                continue
            cls = classify(r.get("ResourceStatusReason"), r.get("ResourceType"))
            ref = dict(stack=stack["StackName"], stack_id=sid, logical_id=r["LogicalResourceId"],
                       type=r.get("ResourceType"), physical_id=r.get("PhysicalResourceId"), class_=cls,
                       reason=r.get("ResourceStatusReason"))
            out.append(ref)
            if r.get("ResourceType") == "AWS::CloudFormation::Stack" and r.get("PhysicalResourceId"):
                child = self.describe(r["PhysicalResourceId"])
                if child is not None:
                    ref["children"] = self.collect(child, path + (stack["StackName"],))
        if not out:
            reason = stack.get("StackStatusReason") or ""
            cls = classify(reason, "AWS::CloudFormation::Stack")
            if reason:
                out.append(dict(stack=stack["StackName"], stack_id=sid, logical_id=stack["StackName"],
                                type="AWS::CloudFormation::Stack", physical_id=sid,
                                class_=cls if cls != CHILD_STACK_FAILED else OTHER, reason=reason))
        return out

    def _retain_note(self, stack, r):
        key = (stack["StackId"], r["LogicalResourceId"])
        if not any((x["stack_id"], x["logical_id"]) == key for x in self.retained):
            self.retained.append(dict(logical_id=r["LogicalResourceId"], type=r.get("ResourceType"),
                                      physical_id=r.get("PhysicalResourceId"), stack=stack["StackName"],
                                      stack_id=stack["StackId"], why="DeletionPolicy (DELETE_SKIPPED)"))

    def _actions_of(self, ref):
        """The action recorded so far for this refusal (a list of at most one)."""
        return [r["action"] for r in self.refusals
                if (r["stack"], r["logical_id"], r["class"]) == (ref["stack"], ref["logical_id"], ref["class_"])]

    def _record(self, ref, remedy, action):
        entry = dict(logical_id=ref["logical_id"], type=ref["type"], physical_id=ref["physical_id"],
                     stack=ref["stack"], reason=ref.get("reason"), remedy=remedy, action=action)
        entry["class"] = ref["class_"]
        for old in self.refusals:
            if (old["stack"], old["logical_id"], old["class"]) == (entry["stack"], entry["logical_id"], entry["class"]):
                old.update(entry)
                old["times"] = old.get("times", 1) + 1
                return old
        entry["times"] = 1
        self.refusals.append(entry)
        return entry

    def handle(self, refs, to_retain):
        """Decide and apply remedies for a list of refusals (recursing into nested stacks). Raises Failed
        for a refusal it may not clear. Appends logical IDs to retain (of the top stack) to ``to_retain``."""
        for ref in refs:
            cls = ref["class_"]
            key = (ref["stack_id"], ref["logical_id"])
            outside = {}  # what the entry of a refusal retained for holders outside the stack says of them
            n = self.attempts.get(key, 0)
            action, detail = decide(cls, self.clear, self.disable_tp, self.retain_unclearable, n, self.max_attempts)
            remedy = REMEDY.get(cls)
            if action == "clear" and cls == CHILD_STACK_FAILED:
                entry = self._record(ref, remedy, "recurse")
                self.attempts[key] = n + 1
                children = ref.get("children") or []
                child_retain = []
                self.handle(children, child_retain)
                if child_retain:
                    # a child's resources cannot be retained from the parent: retain the whole child stack
                    to_retain.append(ref["logical_id"])
                    entry["action"] = "retain"
                continue
            if action == "clear" and cls != TERMINATION_PROTECTION:
                holders = None
                try:
                    holders = find_holders(self.c, remedy, ref["type"], ref["physical_id"],
                                           self.inside(remedy, ref["type"]))
                except is_boto3_error_code(GONE_CODES):
                    holders = []  # the refused resource itself is gone now (another run deleted it)
                except botocore.exceptions.ClientError as e:  # pylint: disable=duplicate-except
                    raise Failed("%s %s (%s) in stack %s refused (%s) and looking up what holds it failed: %s" % (
                        ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], cls, error_message(e)))
                not_released = self.outside(holders, ref["stack"]) if holders else []
                if holders is None:
                    if self.retain_unclearable:
                        action = "retain"
                    else:
                        raise Failed("%s %s (%s) in stack %s refused to delete (%s: %s); %s has no remedy for %s; "
                                     "set retain_unclearable=true to keep it (listed in retained) or clear it by hand" % (
                                         ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], cls,
                                         ref.get("reason"), remedy, ref["type"]))
                elif not holders:
                    # nothing holds it any more (another run, or its owner, cleared it): retry the delete,
                    # and claim no clear this run did not make
                    self._record(ref, remedy, "cleared" if "cleared" in self._actions_of(ref) else "found clear")
                    self.attempts[key] = n + 1
                    continue
                elif not_released:
                    # nothing is released for it: the remedy would change what the stack did not make
                    outside = dict(holders=shown_holders(holders), not_released=not_released)
                    if not self.retain_unclearable:
                        self._record(ref, remedy, "stopped").update(outside)
                        raise Failed("%s %s (%s) in stack %s refused to delete (%s); %s would change what is outside "
                                     "the stack: %s. Nothing was changed for it; set retain_unclearable=true to keep it "
                                     "(listed in retained)" % (
                                         ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], cls, remedy,
                                         "; ".join(not_released)))
                    action = "retain"
                else:
                    prior = self._actions_of(ref)
                    entry = self._record(ref, remedy, "would clear" if self.check_mode else "cleared")
                    entry["holders"] = shown_holders(holders)
                    self.attempts[key] = n + 1
                    if not self.check_mode:
                        try:
                            if not release(self.c, remedy, ref["type"], ref["physical_id"], holders,
                                           self.consent) and "cleared" not in prior:
                                entry["action"] = "found clear"  # every holder was gone when we came to it
                        except Unclear as e:
                            if self.retain_unclearable:
                                action = "retain"
                            else:
                                raise Failed("%s %s in stack %s: %s cannot clear it: %s" % (
                                    ref["type"], ref["logical_id"], ref["stack"], remedy, e))
                        except botocore.exceptions.ClientError as e:
                            raise Failed("%s %s (%s) in stack %s: %s failed: %s: %s" % (
                                ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], remedy,
                                error_code(e), error_message(e)))
                        self.changed = True
                    if action != "retain":
                        continue
            if action == "retry":
                self._record(ref, "retry", "retry")
                self.attempts[key] = n + 1
                continue
            if action == "retain":
                self._record(ref, "retain_unclearable", "would retain" if self.check_mode else "retain").update(outside)
                to_retain.append(ref["logical_id"])
                continue
            if action == "stop":
                self._record(ref, None, "stopped")
                raise Failed("%s %s (%s) in stack %s refused to delete: %s (%s: %s); to clear it: %s" % (
                    ref["type"], ref["logical_id"], ref["physical_id"], ref["stack"], cls, WHY.get(cls),
                    ref.get("reason"), detail))

    # -- the loop
    def wait(self, stack_id):
        """Poll until the stack leaves *_IN_PROGRESS or the deadline; returns the last description."""
        while True:
            st = self.describe(stack_id, track=True)
            self.new_events(stack_id)
            if st is None or not st["StackStatus"].endswith("_IN_PROGRESS"):
                return st
            if self.clock() >= self.deadline:
                raise Failed("stack %s still %s after wait_timeout=%ss; a re-run resumes" % (
                    st["StackName"], st["StackStatus"], self.wait_timeout))
            self.sleep(self.poll)

    def run(self, name_or_id):
        """Returns (final stack description or None, stack_id)."""
        st = self.describe(name_or_id, track=True)
        if st is None:
            return None, None
        sid = st["StackId"]
        if st["StackStatus"] == "DELETE_COMPLETE":
            return st, sid
        self.mark_events_seen(sid)
        if st.get("EnableTerminationProtection"):
            ref = dict(stack=st["StackName"], stack_id=sid, logical_id=st["StackName"],
                       type="AWS::CloudFormation::Stack", physical_id=sid, class_=TERMINATION_PROTECTION,
                       reason="termination protection is enabled")
            if not self.disable_tp:
                self._record(ref, None, "stopped")
                raise Failed("stack %s: termination protection is enabled, DeleteStack would be refused; "
                             "to clear it: disable_termination_protection=true" % st["StackName"])
            self._record(ref, "disable_termination_protection", "would clear" if self.check_mode else "cleared")
            if not self.check_mode:
                self.c.call("cloudformation", "update_termination_protection", StackName=sid,
                            EnableTerminationProtection=False)
                self.changed = True
        self.check_exports(st)
        if self.check_mode:
            self.begin_pass(sid)
            if st["StackStatus"] == "DELETE_FAILED":
                self.handle(self.collect(st), [])
            else:
                self.predict(st)
            self.actions.append("DeleteStack %s" % st["StackName"])
            return st, sid
        to_retain = []
        last_retain = None
        while True:
            if st["StackStatus"] != "DELETE_IN_PROGRESS":
                kw = {"StackName": sid}
                if to_retain:
                    kw["RetainResources"] = sorted(set(to_retain))
                try:
                    self.c.call("cloudformation", "delete_stack", **kw)
                except botocore.exceptions.ClientError as e:
                    msg = error_message(e)
                    if to_retain and ("RetainResources" in msg or error_code(e) in (
                            "InvalidParameterValue", "InvalidParameterCombination", "NotImplemented",
                            "UnsupportedOperation")):
                        self.retain_supported = False
                        raise Failed("stack %s: the endpoint does not support RetainResources (%s: %s); the "
                                     "refusals of %s must be cleared instead" % (
                                         st["StackName"], error_code(e), msg, ", ".join(sorted(set(to_retain)))))
                    cls = classify(msg)
                    if cls == TERMINATION_PROTECTION:
                        raise Failed("stack %s: DeleteStack refused: %s; to clear it: "
                                     "disable_termination_protection=true" % (st["StackName"], msg))
                    raise Failed("stack %s: DeleteStack failed: %s: %s" % (st["StackName"], error_code(e), msg))
                self.changed = True
                last_retain = list(to_retain)
            st = self.wait(sid)
            if st is None or st["StackStatus"] == "DELETE_COMPLETE":
                if last_retain:
                    self.retain_supported = True  # an ignored RetainResources would have refused again
                break
            status = st["StackStatus"]
            if status != "DELETE_FAILED":
                reason = st.get("StackStatusReason") or self._last_failure_reason()
                self._record(dict(stack=st["StackName"], stack_id=sid, logical_id=st["StackName"],
                                  type="AWS::CloudFormation::Stack", physical_id=sid,
                                  class_=classify(reason or "", None), reason=reason), None, "stopped")
                raise Failed("DeleteStack of %s did not delete it: the stack went back to %s (%s)%s. This is a "
                             "refusal, not a success" % (st["StackName"], status, reason or "no reason given",
                                                         self._export_hint(reason)))
            self.begin_pass(sid)
            refs = self.collect(st)
            if last_retain:
                still = [r for r in refs if r["logical_id"] in last_retain and r["stack_id"] == sid]
                if still:
                    self.retain_supported = False
                    gone = set(r["logical_id"] for r in still)
                    self.retained = [x for x in self.retained
                                     if not (x["stack_id"] == sid and x["logical_id"] in gone and
                                             x["why"].startswith("retain_unclearable"))]
                    raise Failed("stack %s: the endpoint ignored RetainResources for %s (still DELETE_FAILED); clear "
                                 "their cause instead: %s" % (st["StackName"], ", ".join(r["logical_id"] for r in still),
                                                              "; ".join("%s: %s" % (r["logical_id"], r["reason"])
                                                                        for r in still)))
                self.retain_supported = True
            self.handle(refs, to_retain)
            for ref in refs:
                if ref["logical_id"] in to_retain and ref["stack_id"] == sid:
                    self._retain_mark(ref)
            if self.clock() >= self.deadline:
                raise Failed("stack %s still DELETE_FAILED after wait_timeout=%ss; a re-run resumes" % (
                    st["StackName"], self.wait_timeout))
        return st, sid

    def _retain_mark(self, ref):
        if not any((x["stack_id"], x["logical_id"]) == (ref["stack_id"], ref["logical_id"]) for x in self.retained):
            self.retained.append(dict(logical_id=ref["logical_id"], type=ref["type"], physical_id=ref["physical_id"],
                                      stack=ref["stack"], stack_id=ref["stack_id"],
                                      why="retain_unclearable (%s)" % ref["class_"]))

    def _last_failure_reason(self):
        for e in reversed(self.events):
            if e["status"] and e["status"].endswith("FAILED") and e["reason"]:
                return e["reason"]
        for e in reversed(self.events):
            if e["reason"]:
                return e["reason"]
        return None

    def _export_hint(self, reason):
        if classify(reason or "") == EXPORT_IN_USE:
            return "; delete the importing stack first"
        return ""

    def check_exports(self, st):
        """ExportInUse before any delete: an export of this stack imported by a live stack."""
        exports = [o["ExportName"] for o in st.get("Outputs", []) if o.get("ExportName")]
        for name in exports:
            try:
                importers = list_all(self.c, "cloudformation", "list_imports", "Imports", ExportName=name)
            except Exception as e:  # noqa: BLE001 - any failed lookup (a 500 parses as no ClientError) is unknown
                if "is not imported" in error_message(e):
                    continue
                # unknown, not absent: say so; the delete itself is then the test (a stack that goes
                # back to *_COMPLETE is reported as refused)
                self.notes.append("export %s: ListImports failed (%s), importers unknown" % (
                    name, error_code(e) or type(e).__name__))
                continue
            if importers:
                ref = dict(stack=st["StackName"], stack_id=st["StackId"], logical_id=st["StackName"],
                           type="AWS::CloudFormation::Stack", physical_id=st["StackId"], class_=EXPORT_IN_USE,
                           reason="Export %s cannot be deleted as it is in use by %s" % (name, ", ".join(importers)))
                if self.check_mode:
                    # the plan of a set deletes the importers first: say what this stack waits for, do not stop
                    self._record(ref, None, "would stop unless deleted first: %s" % ", ".join(importers))
                    continue
                self._record(ref, None, "stopped")
                raise Failed("stack %s: export %s is imported by %s; DeleteStack would be refused (ExportInUse). "
                             "Delete the importing stacks first (the cfn_refusals role orders importers first)" % (
                                 st["StackName"], name, ", ".join(importers)))

    def predict(self, st, path=()):
        """Check mode on a stack not yet deleting: look at each resource the remedies cover and say what
        holds it (read-only)."""
        for r in self.resources(st["StackId"]):
            if r.get("ResourceStatus", "").startswith("DELETE_COMPLETE"):
                continue
            rtype, pid = r.get("ResourceType"), r.get("PhysicalResourceId")
            if rtype == "AWS::CloudFormation::Stack" and pid:
                child = self.describe(pid)
                if child is not None and child["StackStatus"] != "DELETE_COMPLETE":
                    self.predict(child, path + (st["StackName"],))
                continue
            for (remedy, t) in REMEDIES:
                if t != rtype:
                    continue
                try:
                    holders = find_holders(self.c, remedy, rtype, pid, self.inside(remedy, rtype))
                except botocore.exceptions.ClientError as e:
                    holders = [dict(kind="unknown", id=pid, what="lookup failed: %s" % error_message(e))]
                if holders:
                    cls = {"empty_buckets": BUCKET_NOT_EMPTY, "detach_iam": DELETE_CONFLICT,
                           "disable_deletion_protection": DELETION_PROTECTION,
                           "release_dependencies": DEPENDENCY_VIOLATION}[remedy]
                    ref = dict(stack=st["StackName"], stack_id=st["StackId"], logical_id=r["LogicalResourceId"],
                               type=rtype, physical_id=pid, class_=cls,
                               reason="predicted: " + "; ".join(h["what"] for h in holders))
                    action, detail = decide(cls, self.clear, self.disable_tp, self.retain_unclearable)
                    not_released = self.outside(holders, st["StackName"]) if action == "clear" else []
                    if not_released:
                        # the remedy may not touch them: the refusal is one it may not clear
                        action = "retain" if self.retain_unclearable else "stop"
                        detail = "; ".join(not_released)
                    entry = self._record(ref, {"clear": remedy, "retain": "retain_unclearable"}.get(
                        action, remedy if not_released else None),
                        {"clear": "would clear", "retain": "would retain"}.get(action, "would stop: " + str(detail)))
                    entry["holders"] = shown_holders(holders)
                    if not_released:
                        entry["not_released"] = not_released
