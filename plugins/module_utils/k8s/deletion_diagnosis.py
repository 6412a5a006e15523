# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Why won't it delete: the blockers of one deletion, from what was read, as pure functions (no API calls).

deletion_info's driver reads (with ``diagnose: true``) and hands the objects here:

- ``check_api_version(value)``: None, or a sentence saying why ``value`` is not ``[group/]version``.
- ``managers(obj)``: who last wrote the object (``metadata.managedFields``: manager, operation, time), newest
  first; named beside a finalizer whose owner the kind registry does not know.
- ``finalizers(obj)``: each finalizer with its owner (``registry``) or ``unknown owner`` with those managers.
- ``foreground(obj, dependents)``: the owner references of the object and, under ``foregroundDeletion``, the
  dependents with ``blockOwnerDeletion`` that hold it.
- ``unavailable_apiservices(items)``: the APIServices whose ``Available`` condition is not True.
- ``webhook_targets(configs)``, ``refusing_webhooks(configs, ready, target)``: the admission webhooks with
  ``failurePolicy: Fail`` whose rules and selectors match an UPDATE of the object and whose Service has no ready
  endpoint (``ready_endpoints(slices)``) - they refuse the finalizer owner's own patch.
- ``controllers(entries, observed)``: the controller Deployments the kind registry names, ready or not.
- ``namespace_state(ns_report, unavailable)``: ``empty``, ``not_empty`` or ``unknown`` (never ``empty`` when a
  list or a discovery failed).
- ``blockers(...)``: the named blockers, most direct first; ``report(...)``: the role's JSON report.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry

UNKNOWN_OWNER = "unknown owner"
ROLE_NAME = "teardown.gates.diagnose_deletion"

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")


def check_api_version(value):
    """None when ``value`` is ``version`` or ``group/version`` (a DNS subdomain and a DNS-1035 label), else why not."""
    if not isinstance(value, str) or not value.strip():
        return "must be [group/]version, for example v1 or apps/v1; got an empty value"
    parts = value.split("/")
    if len(parts) > 2:
        return "%r has more than one '/': it must be [group/]version, for example apps/v1" % value
    group, version = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    if len(parts) == 2 and (not group or len(group) > 253 or not _DNS_SUBDOMAIN.match(group)):
        return "%r: the group %r is not a DNS subdomain (lowercase alphanumerics, '-' and '.')" % (value, group)
    if not _DNS_LABEL.match(version):
        return "%r: the version %r is not a version name (lowercase, starting with a letter, like v1beta1)" % (
            value, version)
    return None


def managers(obj):
    """Who last wrote the object, newest first: ``[{"manager", "operation", "time"}]`` from managedFields."""
    fields = ((obj or {}).get("metadata") or {}).get("managedFields") or []
    out = [{"manager": f.get("manager") or "(no manager name)", "operation": f.get("operation"), "time": f.get("time")}
           for f in fields if isinstance(f, dict)]
    return sorted(out, key=lambda m: m["time"] or "", reverse=True)


def finalizer_writers(obj, finalizer):
    """The managers whose managed fields hold ``finalizer`` (``f:metadata.f:finalizers.v:"<name>"``), newest first."""
    key = 'v:"%s"' % finalizer
    out = []
    for f in ((obj or {}).get("metadata") or {}).get("managedFields") or []:
        fin = (((f.get("fieldsV1") or {}).get("f:metadata") or {}).get("f:finalizers") or {})
        if key in fin:
            out.append({"manager": f.get("manager"), "operation": f.get("operation"), "time": f.get("time")})
    return sorted(out, key=lambda m: m["time"] or "", reverse=True)


def finalizers(obj):
    """Each finalizer with its owner as the registry knows it, or ``unknown owner`` with the managers that last wrote
    the object (and those that wrote this finalizer, when managedFields say)."""
    known, on_kind = registry.finalizer_owners(), registry.finalizer_owners_on()
    api_version = (obj or {}).get("apiVersion") or ""
    group = api_version.split("/", 1)[0] if "/" in api_version else ""
    out = []
    for name in ((obj or {}).get("metadata") or {}).get("finalizers") or []:
        # the kind's own owner first: the same name can be another controller's on another kind
        owner, waits = on_kind.get((group, (obj or {}).get("kind"), name)) or known.get(name, (None, None))
        entry = {"name": name, "owner": owner or UNKNOWN_OWNER}
        if waits:
            entry["waits_for"] = waits
        if owner is None:
            entry["added_by"] = finalizer_writers(obj, name)
            entry["last_written_by"] = managers(obj)
        out.append(entry)
    return out


def foreground(obj, dependents):
    """``{"owners", "foreground", "blocking_dependents"}``: the object's owner references; whether it waits in
    foreground deletion; the dependents (object summaries with ``owner_refs``) whose reference to it has
    ``blockOwnerDeletion: true`` - the garbage collector deletes those before it removes ``foregroundDeletion``."""
    meta = (obj or {}).get("metadata") or {}
    owners = [dict((k, r.get(k)) for k in ("apiVersion", "kind", "name", "uid", "blockOwnerDeletion", "controller"))
              for r in meta.get("ownerReferences") or []]
    fg = "foregroundDeletion" in (meta.get("finalizers") or [])
    blocking = []
    for d in dependents or []:
        for ref in d.get("owner_refs") or []:
            if ref.get("uid") == meta.get("uid") and ref.get("blockOwnerDeletion"):
                blocking.append(dict((k, d.get(k)) for k in ("api_version", "kind", "namespace", "name", "uid",
                                                             "finalizers", "deletion_timestamp")))
    return {"owners": owners, "foreground": fg, "blocking_dependents": blocking if fg else [],
            "blocking_if_foreground": blocking}


def _condition(obj, ctype):
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def unavailable_apiservices(items):
    """The APIServices not Available: ``[{"name", "service", "status", "reason", "message"}]``."""
    out = []
    for a in items or []:
        c = _condition(a, "Available") or {}
        if c.get("status") == "True":
            continue
        svc = (a.get("spec") or {}).get("service") or {}
        out.append({"name": (a.get("metadata") or {}).get("name"),
                    "service": ("%s/%s" % (svc.get("namespace"), svc.get("name"))) if svc else None,
                    "status": c.get("status") or "Unknown", "reason": c.get("reason"), "message": c.get("message")})
    return out


def namespace_state(ns_report, unavailable):
    """``unknown`` when a list or discovery failed or an APIService is not available (what it serves could not be
    listed), ``empty`` when the complete listing found nothing, else ``not_empty``."""
    if not ns_report:
        return "unknown"
    if unavailable or not ns_report.get("contents_complete"):
        return "unknown"
    return "empty" if not ns_report.get("contents") else "not_empty"


# ------------------------------------------------------------------------------------------------ webhooks
def _selector_matches(selector, labels):
    """A LabelSelector (matchLabels, matchExpressions In/NotIn/Exists/DoesNotExist) against ``labels``; an empty or
    absent selector matches everything. None for an operator it does not know (then it may match)."""
    if not selector:
        return True
    labels = labels or {}
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, values = e.get("key"), e.get("operator"), e.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return None
    return True


def _in(value, allowed):
    return "*" in (allowed or []) or value in (allowed or [])


def rule_matches(rule, target):
    """Whether one webhook rule covers an UPDATE of ``target`` (group, version, resource, namespaced)."""
    scope = rule.get("scope") or "*"
    if scope != "*" and (scope == "Namespaced") != bool(target["namespace"]):
        return False
    ops = rule.get("operations") or []
    return (("UPDATE" in ops or "*" in ops) and _in(target["group"], rule.get("apiGroups"))
            and _in(target["version"], rule.get("apiVersions")) and _in(target["resource"], rule.get("resources")))


def webhook_targets(configs):
    """Every webhook of the Validating/MutatingWebhookConfigurations with its config, failure policy and Service."""
    out = []
    for cfg in configs or []:
        for w in cfg.get("webhooks") or []:
            svc = (w.get("clientConfig") or {}).get("service")
            out.append({"configuration": "%s %s" % (cfg.get("kind"), (cfg.get("metadata") or {}).get("name")),
                        "webhook": w.get("name"), "failure_policy": w.get("failurePolicy") or "Fail",
                        "service": ({"namespace": svc.get("namespace"), "name": svc.get("name"), "port": svc.get("port")}
                                    if svc else None),
                        "url": (w.get("clientConfig") or {}).get("url"),
                        "rules": w.get("rules") or [], "namespace_selector": w.get("namespaceSelector"),
                        "object_selector": w.get("objectSelector")})
    return out


def ready_endpoints(slices):
    """How many endpoints of these EndpointSlices are ready (``conditions.ready`` unset counts as ready)."""
    n = 0
    for s in slices or []:
        for e in s.get("endpoints") or []:
            if (e.get("conditions") or {}).get("ready") is not False:
                n += len(e.get("addresses") or []) or 1
    return n


def webhook_applies(hook, target):
    """Whether ``hook`` (from ``webhook_targets``) would be called for an UPDATE of ``target``: a rule covers it and
    the selectors match the object's labels and its namespace's (an unknown selector operator counts as a match)."""
    if not any(rule_matches(r, target) for r in hook["rules"]):
        return False
    if _selector_matches(hook["object_selector"], target.get("labels")) is False:
        return False
    if target["namespace"] and _selector_matches(hook["namespace_selector"], target.get("namespace_labels")) is False:
        return False
    return True


def refusing_webhooks(hooks, ready, target):
    """The webhooks with failurePolicy Fail that apply to an UPDATE of ``target`` and whose Service has no ready
    endpoint. ``ready``: ``"ns/name"`` -> ready endpoint count, or None when the EndpointSlices could not be read
    (then the webhook is listed with ``endpoints: unknown``)."""
    out = []
    for h in hooks:
        if h["failure_policy"] != "Fail" or not h["service"] or not webhook_applies(h, target):
            continue
        key = "%s/%s" % (h["service"]["namespace"], h["service"]["name"])
        count = ready.get(key)
        if count:
            continue
        out.append({"configuration": h["configuration"], "webhook": h["webhook"], "service": key,
                    "endpoints": "unknown" if count is None else "none ready"})
    return out


# ------------------------------------------------------------------------------------------------ controllers
def deployment_ready(obj):
    """``ready`` when every wanted replica is ready and updated, else ``not_ready``."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    want = spec.get("replicas", 1)
    ok = want > 0 and (status.get("readyReplicas") or 0) >= want and (status.get("availableReplicas") or 0) >= want
    return "ready" if ok else "not_ready"


def controllers(entries, observed):
    """The registry's controller entries with what was observed: ``observed`` is ``(namespace, name)`` ->
    ``{"state": present|absent|unknown, "object"}``. Each answer says ``ready``, ``not_ready``, ``absent`` or
    ``unknown`` and the replicas seen."""
    out = []
    for e in entries:
        obs = observed.get((e["namespace"], e["name"])) or {"state": "unknown"}
        row = dict(e)
        if obs["state"] == "present":
            row["state"] = deployment_ready(obs["object"])
            status = obs["object"].get("status") or {}
            row["replicas"] = {"wanted": (obs["object"].get("spec") or {}).get("replicas", 1),
                               "ready": status.get("readyReplicas") or 0}
        else:
            row["state"] = obs["state"]
        out.append(row)
    return out


# ------------------------------------------------------------------------------------------------ blockers
def blockers(state, deleting, fins, fg, webhooks, apis, ns_state, ns_report, ctrls):
    """What holds the deletion, named, most direct first: ``[{"what", "name", "detail"}]``."""
    out = []
    if state != "present":
        return out
    for w in webhooks:
        out.append({"what": "webhook", "name": w["webhook"],
                    "detail": "%s has failurePolicy Fail and its Service %s has %s endpoints: it refuses every UPDATE "
                              "of this object, the finalizer owner's own patch included" % (
                                  w["configuration"], w["service"], "no ready" if w["endpoints"] == "none ready"
                                  else "unknown")})
    for a in apis:
        why = (a["reason"] or a["status"]) + ((": " + a["message"]) if a["message"] else "")
        out.append({"what": "apiservice", "name": a["name"],
                    "detail": "APIService %s is not Available (%s): what it serves cannot be listed nor deleted, so "
                              "the namespace controller cannot finish" % (a["name"], why)})
    for d in fg["blocking_dependents"]:
        out.append({"what": "dependent", "name": "%s %s" % (d["kind"], d["name"]),
                    "detail": "blockOwnerDeletion dependent: the garbage collector removes foregroundDeletion after "
                              "it is gone"})
    for f in fins:
        if f["owner"] == UNKNOWN_OWNER:
            who = ", ".join("%s (%s %s)" % (m["manager"], m["operation"], m["time"])
                            for m in (f.get("added_by") or f.get("last_written_by") or [])[:3]) or "no managedFields"
            detail = "finalizer with an unknown owner; written by %s" % who
        else:
            detail = "finalizer of %s, which waits for %s" % (f["owner"], f.get("waits_for") or "its own cleanup")
        out.append({"what": "finalizer", "name": f["name"], "detail": detail})
    if ns_report is not None:
        left = list(ns_report.get("contents") or [])
        if ns_state == "not_empty":
            out.append({"what": "content", "name": "%d object(s)" % len(left), "detail": ", ".join(
                "%s %s" % (c.get("kind"), c.get("name")) for c in left[:10])})
        elif ns_state == "unknown" and not apis:
            out.append({"what": "content", "name": "unknown",
                        "detail": "a list or the APIServices could not be read: the namespace's content is unknown, "
                                  "not empty"})
    for c in ctrls:
        if c["state"] != "ready":
            out.append({"what": "controller", "name": "%s/%s" % (c["namespace"], c["name"]),
                        "detail": "controller Deployment %s (%s)" % (c["state"], c.get("what") or "")})
    if not out and deleting:
        out.append({"what": "none seen", "name": "-", "detail": "no blocker observed: the deletion may be finishing"})
    return out


def report(answer, item, started, finished, check_mode):
    """The role's JSON report from deletion_info's answer (``diagnose: true``)."""
    diag = answer.get("diagnosis") or {}
    return {
        "role": ROLE_NAME, "check_mode": bool(check_mode), "started": started, "finished": finished,
        "target": dict((k, v) for k, v in item.items() if v), "state": answer.get("state"),
        "deleting": answer.get("deleting", False), "object": answer.get("object") or {},
        "query": answer.get("query") or {}, "msg": answer.get("msg"),
        "blockers": diag.get("blockers") or [], "finalizers": diag.get("finalizers") or [],
        "owners": diag.get("owners") or [], "foreground": diag.get("foreground") or {},
        "webhooks": diag.get("webhooks") or [], "apiservices": diag.get("apiservices") or [],
        "controllers": diag.get("controllers") or [], "namespace_state": diag.get("namespace_state"),
        "namespace": answer.get("namespace"), "dependents": answer.get("dependents") or [],
        "ways_out": diag.get("ways_out") or answer.get("inspect_next") or [], "unread": diag.get("unread") or [],
    }


def input_problem(item):
    """``""`` when the object asked about can be read, else ``<option>: <why>`` (before any request)."""
    why = check_api_version(item.get("api_version"))
    if why:
        return "api_version: %s" % why
    if not str(item.get("kind") or "").strip():
        return "kind: required, the kind of the object (Namespace for a namespace)"
    if not str(item.get("name") or "").strip():
        return "name: required, the name of the object (of the namespace for kind Namespace)"
    if item.get("kind") == "Namespace" and item.get("namespace"):
        return "namespace: leave it empty for kind Namespace (a namespace is cluster-scoped; give it as name)"
    return ""
