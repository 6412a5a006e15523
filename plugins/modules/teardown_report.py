#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: teardown_report
short_description: Write a hosted-cluster teardown report (JSON, Markdown, HTML) and return its summary
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Builds the report of one HostedCluster teardown from what the C(teardown.gates.hosted_cluster_destroy)
    role collected - identity, options, the timeline of every gate, AWS and IAM outcomes by ID, the
    independent verification, what was retained and why, what remains - and writes it to
    O(report_dir) as C(<namespace>-<name>.json), C(<namespace>-<name>.md) and C(<namespace>-<name>.html).
  - The HTML page is self-contained (inline CSS and SVG, no external URL, no script) - a Gantt of the phases,
    the gates (first terminating observation marked) and the AWS types (the blockers they waited on named), the
    milestones as lines, then the retained, remaining and verification lists. A stopped run's open gate is drawn
    open, with what held it. The Markdown report carries the same timeline as a Mermaid gantt; both are drawn
    from the JSON report.
  - Each write also renews C(index.html) in O(report_dir) - a row per cluster report there (a fleet run's hosts
    share the folder), worst first, each linking to its page.
  - A report already there from an earlier run is kept as C(<namespace>-<name>.<UTC time>.json) before the
    new one is written.
  - The command's milestones and the verification are kept apart - RV(report.command_succeeded) says the
    teardown ran to its end, RV(report.verified) that independent queries proved everything absent
    within the requested scope.
  - Writing the report is bookkeeping, not a change to the world - the module always reports
    C(changed=false), so a re-run of a finished teardown stays C(changed=0).
  - In check mode nothing is written; the report is still returned.
options:
  report_dir:
    description: Directory for the report files (created if missing).
    type: path
    required: true
  cluster:
    description: The HostedCluster's identity - C(namespace), C(name), C(uid), C(infra_id), and optionally C(region), C(hcp_namespace).
    type: dict
    required: true
  options:
    description: The options the teardown ran with.
    type: dict
    default: {}
  gates:
    description: The gates - wait_gate's results, or rows with C(name), C(state), C(started), C(passed_at), C(duration_s).
    type: list
    elements: dict
    default: []
  aws_resources:
    description: The per-resource results of M(teardown.gates.aws_infra_cleanup) (infrastructure and IAM runs together).
    type: list
    elements: dict
    default: []
  aws_cleanup_ran:
    description:
      - Whether the AWS cleanup ran in this run. When it did not, the report says so instead of counting 0 deleted
        and 0 remaining.
      - Default - inferred from O(aws_resources) (none given means it did not run).
    type: bool
  aws_lookup_ran:
    description:
      - Whether the verification's lookups of the AWS IDs ran. When they did not, the remaining count is
        C(null) in the summary and "not observed" in the report and the outcome line.
      - Default - inferred from O(verification) (C(aws_verified) given means they ran).
    type: bool
  verification:
    description:
      - The independent verification - C(checks) (a list of C(what), C(state), C(count)), C(aws_verified), and
        C(tracked), the resources of the read-only M(teardown.gates.aws_infra_cleanup) run on the tracked manifest;
        the report lists each tracked ID with the state its look by ID found (C(report.verification.tracked)).
    type: dict
    default: {}
  milestones:
    description: Times and outcomes - C(started), C(command_finished), C(command_succeeded), C(verified_at), C(finished).
    type: dict
    default: {}
  hcp_conditions:
    description: The HostedControlPlane conditions read before it went (C(CloudResourcesDestroyed), C(CVOScaledDown)).
    type: dict
    default: {}
  namespace_retained:
    description: Whether the HCP namespace was intentionally retained (the skip annotation).
    type: bool
    default: false
  retained:
    description: Other things retained on purpose, each with C(what) and C(why).
    type: list
    elements: dict
    default: []
  stopped:
    description:
      - Where and why the run stopped (C(gate), C(phase) (the playbook phase it stopped in, for the phases that never
        ran), C(message), C(inspect_next), C(resume)), when it did.
    type: dict
  taken_over:
    description:
      - The take-overs of this run (C(take_over_cleanup)) - each C(teardown.gates.hosted_cluster_take_over) result's
        C(taken_over) with its C(finalizers_removed). The report lists every finalizer removed - object, UID, owner,
        evidence of absence, time - in the report's C(taken_over), the Markdown and the HTML page.
    type: list
    elements: dict
    default: []
  versions:
    description: Versions of what ran (the module adds the Python libraries it can see).
    type: dict
    default: {}
  plan:
    description: The plan printed in check mode (gates and AWS levels).
    type: raw
  baseline:
    description:
      - Store this document instead of writing the report - the teardown's starting point (identity, options, the AWS
        manifest by ID) - as C(<namespace>-<name>.baseline.json) in O(report_dir), so that a re-run resumes even after
        the HostedCluster is gone. The report options are then ignored.
      - Written atomically, mode 0600, replacing the earlier baseline. Nothing is written in check mode.
    type: dict
"""

EXAMPLES = r"""
- name: Write the report
  teardown.gates.teardown_report:
    report_dir: /var/lib/teardown-reports
    cluster: {namespace: clusters, name: demo, uid: 0b5c..., infra_id: demo-x7k2p}
    options: {destroy_cloud_resources: true, preserve_iam: false}
    gates: "{{ waited.gates }}"
    aws_resources: "{{ infra.resources + iam.resources }}"
    verification: {checks: "{{ checks }}", aws_verified: "{{ aws_check.verified }}"}
    milestones: {started: "{{ t0 }}", command_succeeded: true}
  register: report

- name: Hand the summary to AWX
  ansible.builtin.set_stats:
    data:
      teardown: "{{ report.summary }}"
"""

RETURN = r"""
report:
  description: The whole report, as written to the JSON file.
  returned: when no O(baseline) is given
  type: dict
  contains:
    cluster:
      description: namespace, name, uid, infra_id (and region, hcp_namespace when given).
      type: dict
    options:
      description: The options.
      type: dict
    gates:
      description: One row per gate - name, state, started, passed_at, duration_s, first_observed_terminating, first_observed_absent.
      type: list
    aws:
      description:
        - C(deleted) (by this run), C(absent) (already gone or terminal), C(retained), C(remaining) - lists of C(type), C(id).
        - C(observed) - whether the AWS cleanup ran; C(looked_up) - whether the verification looked the IDs up.
      type: dict
    iam:
      description: The IAM scope alone - C(deleted) and C(retained).
      type: dict
    namespace_retained:
      description: Whether the HCP namespace was intentionally retained.
      type: bool
    command_succeeded:
      description: The teardown ran to its end (the CLI finalizer came off).
      type: bool
    verified:
      description: Independent queries proved every object and tracked AWS ID absent or terminal within the requested scope.
      type: bool
    versions:
      description: Versions of what ran.
      type: dict
summary:
  description:
    - The short form (for C(set_stats)) - cluster, uid, infra_id, command_succeeded, verified, gate states, counts.
    - C(aws_remaining) is null when no lookup by ID ran (not observed).
  returned: when no O(baseline) is given
  type: dict
outcome:
  description:
    - One line for the operator, saying only what was observed - the result, the phases that never ran when the
      run stopped, what the AWS cleanup did or that it did not run, what remains by a lookup by ID or "not
      observed", the namespace's state by a read, and where the report is.
  returned: when no O(baseline) is given
  type: str
json_path:
  description: The JSON report's path (also returned in check mode, where nothing is written).
  returned: when no O(baseline) is given
  type: str
markdown_path:
  description: The Markdown report's path.
  returned: when no O(baseline) is given
  type: str
html_path:
  description: The HTML page's path.
  returned: when no O(baseline) is given
  type: str
index_path:
  description: The fleet page's path (C(index.html) in O(report_dir)), listing every cluster report there.
  returned: when no O(baseline) is given
  type: str
archived:
  description: Where the earlier run's JSON report was moved, when there was one (null otherwise).
  returned: when no O(baseline) is given
  type: str
baseline_path:
  description: Where O(baseline) was stored (also returned in check mode, where nothing is written).
  returned: when O(baseline) is given
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.teardown.gates.plugins.module_utils.drivers import teardown_report as driver


def argument_spec():
    return dict(
        report_dir=dict(type="path", required=True),
        cluster=dict(type="dict", required=True),
        options=dict(type="dict", default={}),
        gates=dict(type="list", elements="dict", default=[]),
        aws_resources=dict(type="list", elements="dict", default=[]),
        aws_cleanup_ran=dict(type="bool"),
        aws_lookup_ran=dict(type="bool"),
        verification=dict(type="dict", default={}),
        milestones=dict(type="dict", default={}),
        hcp_conditions=dict(type="dict", default={}),
        namespace_retained=dict(type="bool", default=False),
        retained=dict(type="list", elements="dict", default=[]),
        stopped=dict(type="dict"),
        taken_over=dict(type="list", elements="dict", default=[]),
        versions=dict(type="dict", default={}),
        plan=dict(type="raw"),
        baseline=dict(type="dict"),
    )


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    driver.run(module)


if __name__ == "__main__":
    main()
