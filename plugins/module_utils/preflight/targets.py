# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Target guards, as pure checks: is this run pointed at the AWS account and the management cluster the operator
meant? ``guards(...)`` checks the options before any request (``aws_args.BadInput`` naming the option and why);
``problems(...)`` compares them with what was observed (STS GetCallerIdentity, the kube-system namespace, the
configured API server) and names, for each mismatch, the option, what was expected and what was observed.

``expected_management_cluster`` accepts, for each cluster, one of:

- the UID of its ``kube-system`` namespace (``kubectl get namespace kube-system -o jsonpath='{.metadata.uid}'``):
  it survives a new API server address, a load balancer or a renamed kubeconfig context, and a rebuilt cluster
  gets a new one;
- the API server URL, ``https://host[:port][/path]`` as the kubeconfig holds it (compared without case in the
  scheme and host, with the scheme's default port and a trailing ``/`` removed).
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.module_utils.aws.args import BadInput
from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError

ACCOUNT_ID = re.compile(r"^[0-9]{12}$")
UID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
SERVER = re.compile(r"^(?P<scheme>https?)://(?P<host>\[[0-9A-Fa-f:.]+\]|[^/:?#\s\[\]]+)(?::(?P<port>[0-9]{1,5}))?"
                    r"(?P<path>/[^?#\s]*)?$", re.IGNORECASE)
DEFAULT_PORTS = {"https": "443", "http": "80"}


class GuardRefused(TeardownGatesError):
    """The run's target is not the one its guards name: nothing was changed."""


def _text(value):
    return "" if value is None else ("%s" % (value,)).strip()


def account_id(value, option="expected_aws_account_id"):
    """``value`` as a 12-digit AWS account ID, or "" when not set; BadInput otherwise."""
    text = _text(value)
    if text and not ACCOUNT_ID.match(text):
        raise BadInput("%s: %r is not an AWS account ID (12 digits, as `aws sts get-caller-identity` prints it); "
                       "nothing was sent" % (option, text))
    return text


def normal_server(value):
    """The API server URL compared as a key (scheme and host in lower case, no default port, no trailing /),
    or None when ``value`` is not such a URL."""
    m = SERVER.match(_text(value))
    if not m:
        return None
    scheme, host = m.group("scheme").lower(), m.group("host").lower()
    port = m.group("port")
    port = "" if port is None or port == DEFAULT_PORTS[scheme] else ":" + port
    return "%s://%s%s%s" % (scheme, host, port, (m.group("path") or "").rstrip("/"))


def cluster(value, option="expected_management_cluster"):
    """One expected cluster: ``{"by": "uid"|"server", "value": ..., "given": value}``; BadInput when it is neither
    a namespace UID nor an API server URL."""
    text = _text(value)
    if UID.match(text):
        return {"by": "uid", "value": text.lower(), "given": text}
    server = normal_server(text)
    if server is None:
        raise BadInput("%s: %r is neither the UID of the management cluster's kube-system namespace (8-4-4-4-12 "
                       "hex digits: kubectl get namespace kube-system -o jsonpath='{.metadata.uid}') nor its API "
                       "server URL (https://host[:port]); nothing was sent" % (option, text))
    return {"by": "server", "value": server, "given": text}


def clusters(values, option="expected_management_cluster"):
    """The expected clusters of a string or a list (empty entries left out: an AWX survey's empty answer)."""
    if values is None:
        return []
    if not isinstance(values, (list, tuple)):
        values = [values]
    return [cluster(v, option) for v in values if _text(v)]


def guards(expected_aws_account_id=None, expected_management_cluster=None, confirm_account=None,
           touches_aws=True, touches_kubernetes=True, required=False, required_by="sweep_delete: true"):
    """The checked guards: ``{"account", "clusters", "confirm", "required"}``.

    ``touches_aws`` / ``touches_kubernetes`` False: the playbook sends no request there, so a guard on it could
    never be checked and is refused rather than ignored (an operator who set it would believe it held).
    ``required``: every guard and the typed confirmation must be given (``required_by`` says why)."""
    account = account_id(expected_aws_account_id)
    expected = clusters(expected_management_cluster)
    confirm = _text(confirm_account)
    if account and not touches_aws:
        raise BadInput("expected_aws_account_id: this playbook sends no AWS request, so no AWS account can be "
                       "checked against it; leave it empty (expected_management_cluster guards the cluster); "
                       "nothing was sent")
    if expected and not touches_kubernetes:
        raise BadInput("expected_management_cluster: this playbook sends no Kubernetes request, so no cluster can "
                       "be checked against it; leave it empty (expected_aws_account_id guards the account); "
                       "nothing was sent")
    if confirm and not touches_aws:
        raise BadInput("confirm_account: this playbook sends no AWS request, so there is no account to confirm; "
                       "leave it empty; nothing was sent")
    if required:
        missing = []
        if not account:
            missing.append("expected_aws_account_id: required with %s (the 12-digit AWS account the run may "
                           "delete in)" % required_by)
        if not expected:
            missing.append("expected_management_cluster: required with %s (the kube-system namespace UID or the "
                           "API server URL of each management cluster it reads)" % required_by)
        if not confirm:
            missing.append("confirm_account: required with %s: type the AWS account ID (or the account's alias) "
                           "that the run deletes in" % required_by)
        if missing:
            raise BadInput("%s; nothing was sent" % "; ".join(missing))
    return {"account": account, "clusters": expected, "confirm": confirm, "required": bool(required)}


def any_set(checked):
    """Whether any guard or confirmation is set: without one, the guard sends no request."""
    return bool(checked["account"] or checked["clusters"] or checked["confirm"])


def account_problem(expected, observed):
    """The mismatch of the account, or None; ``observed`` is GetCallerIdentity's answer (Account, Arn)."""
    if not expected:
        return None
    got = _text((observed or {}).get("Account"))
    if got == expected:
        return None
    return ("expected_aws_account_id: expected %s, but the credentials are those of account %s (%s)"
            % (expected, got or "(none answered)", _text((observed or {}).get("Arn")) or "no ARN"))


def confirmation_problem(confirm, observed, aliases):
    """The mismatch of the typed confirmation with the account ID or one of its aliases, or None."""
    if not confirm:
        return None
    account = _text((observed or {}).get("Account"))
    if confirm == account or confirm in (aliases or []):
        return None
    return ("confirm_account: typed %r, which is neither the account ID %s nor its alias (%s): type one of them "
            "to confirm the account the run deletes in" % (confirm, account or "(none answered)",
                                                           ", ".join(aliases or []) or "the account has none"))


def cluster_matches(expected, observed):
    """Whether ``observed`` (``{"uid", "server"}``) is the expected cluster."""
    if expected["by"] == "uid":
        return _text(observed.get("uid")).lower() == expected["value"]
    return normal_server(observed.get("server")) == expected["value"]


def cluster_problem(expected, observed):
    """The mismatch of one management cluster the run reads (``{"context", "uid", "server"}``), or None: it must be
    one of the expected clusters."""
    if not expected:
        return None
    if any(cluster_matches(e, observed) for e in expected):
        return None
    where = " (context %s)" % observed["context"] if observed.get("context") else ""
    return ("expected_management_cluster: expected %s, but the management cluster%s is kube-system UID %s at %s"
            % (" or ".join(e["given"] for e in expected), where, observed.get("uid") or "(unread)",
               observed.get("server") or "(unknown server)"))


def problems(checked, identity=None, aliases=None, observed_clusters=()):
    """Every mismatch between the guards and what was observed, in option order."""
    out = [account_problem(checked["account"], identity),
           confirmation_problem(checked["confirm"], identity, aliases)]
    out.extend(cluster_problem(checked["clusters"], c) for c in observed_clusters)
    return [p for p in out if p]


def refused_message(found):
    return "refused before any change, the target is not the one the guards name: %s" % "; ".join(found)
