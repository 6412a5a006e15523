# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The message the hosted_cluster_destroy role stops with (its rescue): where the run stopped, why, the phases that
never ran, what to inspect next, the CLI finalizer's way out when it is still on the HostedCluster, and how to
resume. A refusal of the approved plan is not a stop to resume: the same command, with or without the old digest,
is refused again or runs unapproved, so its message asks for a new check and the approval of its digest."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.teardown.gates.plugins.plugin_utils.filter_input import as_bool, as_int, one_dict, printed

PHASES = ("1 baseline", "2 retain", "3 delete and gates", "4 AWS infrastructure and IAM", "5 release the CLI finalizer",
          "6 verify")
_PHASE_OF_TASK = re.compile(r"^Phase ([0-9])")


def stop_phase(stopped):
    """The phase the run stopped in: the stop record's phase, else the digit the failed task's name starts with
    (Phase N), else 0."""
    if "phase" in stopped:
        return as_int(stopped["phase"])
    found = _PHASE_OF_TASK.search(printed(stopped.get("gate")))
    return as_int(found.group(1) if found else "0")


def finalizer_way_out(namespace, name, baseline_path, report_path):
    """What the CLI finalizer still on the HostedCluster means, and how to remove it by hand, and when."""
    return (
        "The CLI finalizer openshift.io/destroy-cluster is still on the HostedCluster, so its identity survives:"
        " the way out is the Resume command below. Removing that finalizer by hand lets the HostedCluster go"
        " without the AWS cleanup and deletes none of its AWS resources; only do it after recording the resource"
        " IDs (baseline %s, report %s) and taking responsibility for their cleanup (-e infra_id=... later), then:"
        " ansible localhost -m teardown.gates.finalizer -a \"api_version=hypershift.openshift.io/v1beta1"
        " kind=HostedCluster namespace=%s name=%s finalizer=openshift.io/destroy-cluster state=absent\". "
        % (printed(baseline_path), printed(report_path), printed(namespace), printed(name)))


def plan_refused_next(resume):
    """What to do after the approved plan was refused, from the resume command (which carries no digest)."""
    return ("not with the same variables: the old approved_plan_digest is refused again, and nothing was changed."
            " Run a new check (%s --check), review its plan (the plan file in report_dir/plans) and approve its"
            " digest: %s -e approved_plan_digest=<the new check's plan_digest>" % (printed(resume), printed(resume)))


def stop_message(stopped, namespace, name, resume, finalizer_on=False, baseline_path="in report_dir",
                 report_path="in report_dir"):
    """The one-line message of a stopped teardown. stopped is the stop record (gate, message, and maybe phase,
    inspect_next, and plan_refused with its own resume); finalizer_on says whether the CLI finalizer is (or was just
    put) on the HostedCluster."""
    stopped = one_dict(stopped, "hosted_cluster_stop_message", "the stop record (hosted_cluster_destroy_stopped)")
    if as_bool(stopped.get("plan_refused")):
        resume = stopped.get("resume")
    never_ran = ", ".join(PHASES[stop_phase(stopped):]) or "none"
    inspect_next = stopped.get("inspect_next") or []
    inspect = ("Inspect next: %s." % "; ".join(printed(i) for i in inspect_next)) if inspect_next else ""
    way_out = finalizer_way_out(namespace, name, baseline_path, report_path) if as_bool(finalizer_on) else ""
    return "Teardown of HostedCluster %s/%s stopped at %s: %s (phases that never ran: %s.) %s %sResume: %s" % (
        printed(namespace), printed(name), printed(stopped.get("gate")), printed(stopped.get("message")), never_ran,
        inspect, way_out, printed(resume))


def _is_plan_refusal(failed_result, plan_verdict):
    """Did the run fail on the approved plan's refusal: the verdict of this run's plan (before_first_delete's) asked,
    did not match, and its message is the failure's (a verdict left from another cluster of the play words other
    digests)."""
    v = plan_verdict if isinstance(plan_verdict, dict) else {}
    return as_bool(v.get("asked")) and not as_bool(v.get("match", True)) and bool(v.get("message")) \
        and failed_result.get("msg") == v.get("message")


def stop_record(stopped, failed_task, failed_result, resume, plan_verdict=None):
    """The stop record the rescue keeps: the one a gate already wrote (not empty), else one made from the task that
    failed - its name as the gate ('unknown task' when there is none), the failure's msg ('failed' when it has none)
    and the resume command. A failure that is the refusal of the approved plan (``plan_verdict``) stopped after the
    baseline (phase 1), is marked ``plan_refused`` and its resume asks for a new check instead."""
    stopped = one_dict(stopped or {}, "hosted_cluster_stop_record", "the stop record (hosted_cluster_destroy_stopped)")
    if stopped:
        return stopped
    failed_task = failed_task if isinstance(failed_task, dict) else {}
    failed_result = failed_result if isinstance(failed_result, dict) else {}
    record = {"gate": failed_task.get("name", "unknown task"), "message": failed_result.get("msg", "failed"),
              "resume": resume}
    if _is_plan_refusal(failed_result, plan_verdict):
        record.update(phase=1, plan_refused=True, resume=plan_refused_next(resume))
    return record
