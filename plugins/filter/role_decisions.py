# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions the roles take, made in Python (plugins/plugin_utils) instead of Jinja:

- the hosted cluster's baseline by precedence, its merged AWS manifest, and whether its AWS cleanup runs (and is
  preflighted) (hosted_cluster_baseline, hosted_cluster_manifest, hosted_cluster_aws_cleanup_runs);
- the record a stopped teardown keeps and the message it ends with (hosted_cluster_stop_record,
  hosted_cluster_stop_message);
- what the hosted cluster's bad input is (hosted_cluster_input_problems);
- whether the gates wait with the CLI finalizer on, which gates the report shows and whether AWS is verified
  (hosted_cluster_cli_finalizer_on, hosted_cluster_report_gates, hosted_cluster_aws_verified);
- the approved plan: a kind's plan and its digest, what is wrong with an approved_plan_digest, whether the plan
  recomputed now is the approved one, and a manifest kept to the plan's IDs (teardown_plan,
  teardown_plan_digest_problem, teardown_plan_verdict, teardown_plan_restrict)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_baseline as baseline
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_stop
from ansible_collections.teardown.gates.plugins.plugin_utils import hosted_cluster_input, hosted_cluster_wait
from ansible_collections.teardown.gates.plugins.plugin_utils import teardown_plan


def hosted_cluster_baseline(hc, stored, present, aws_region="", oidc_bucket="", infra_id="", env_region=""):
    return baseline.identity(hc, stored, present, aws_region, oidc_bucket, infra_id, env_region)


def hosted_cluster_manifest(stored_manifest, found_manifest):
    return baseline.merged_manifest(stored_manifest, found_manifest)


def hosted_cluster_aws_cleanup_runs(manifest):
    return baseline.aws_cleanup_runs(manifest)


def hosted_cluster_stop_message(stopped, namespace, name, resume, finalizer_on=False, baseline_path="in report_dir",
                                report_path="in report_dir"):
    return hosted_cluster_stop.stop_message(stopped, namespace, name, resume, finalizer_on, baseline_path, report_path)


def hosted_cluster_stop_record(stopped, failed_task, failed_result, resume="", plan_verdict=None):
    return hosted_cluster_stop.stop_record(stopped, failed_task, failed_result, resume, plan_verdict)


def hosted_cluster_input_problems(name, namespace, infra_id, grace_period, aws_timeout, take_over_cleanup, take_over_after, report_dir):
    return hosted_cluster_input.problems(name, namespace, infra_id, grace_period, aws_timeout, take_over_cleanup, take_over_after, report_dir)


def hosted_cluster_cli_finalizer_on(retained, finalizer_on, check_mode, deleting):
    return hosted_cluster_wait.cli_finalizer_on(retained, finalizer_on, check_mode, deleting)


def hosted_cluster_report_gates(waited, gates, check_mode):
    return hosted_cluster_wait.report_gates(waited, gates, check_mode)


def hosted_cluster_aws_verified(aws_check, checks, manifest):
    return hosted_cluster_wait.aws_verified(aws_check, checks, manifest)


def teardown_plan_of(facts, kind, options):
    return teardown_plan.planned(facts, kind, options)


def teardown_plan_digest_problem(value):
    return teardown_plan.digest_problem(value)


def teardown_plan_verdict(planned, approved_digest, approved_plan=None, report_dir=""):
    return teardown_plan.verdict(planned, approved_digest, approved_plan, report_dir)


def teardown_plan_restrict(manifest, planned, of="", approved=True):
    return teardown_plan.restrict(manifest, planned, of, approved)


class FilterModule(object):
    def filters(self):
        return {
            "hosted_cluster_baseline": hosted_cluster_baseline,
            "hosted_cluster_manifest": hosted_cluster_manifest,
            "hosted_cluster_aws_cleanup_runs": hosted_cluster_aws_cleanup_runs,
            "hosted_cluster_stop_message": hosted_cluster_stop_message,
            "hosted_cluster_stop_record": hosted_cluster_stop_record,
            "hosted_cluster_input_problems": hosted_cluster_input_problems,
            "hosted_cluster_cli_finalizer_on": hosted_cluster_cli_finalizer_on,
            "hosted_cluster_report_gates": hosted_cluster_report_gates,
            "hosted_cluster_aws_verified": hosted_cluster_aws_verified,
            "teardown_plan": teardown_plan_of,
            "teardown_plan_digest_problem": teardown_plan_digest_problem,
            "teardown_plan_verdict": teardown_plan_verdict,
            "teardown_plan_restrict": teardown_plan_restrict,
        }
