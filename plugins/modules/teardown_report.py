#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: teardown_report
short_description: Write a teardown report (JSON, Markdown, HTML) - a hosted cluster's, with its summary, or any kind's
version_added: 0.1.0
author:
  - teardown.gates developers (@teardown-gates)
description:
  - Runs in the controller, as an action plugin of the same name (no module process), so O(report_dir) and the
    files are on the controller; a relative O(report_dir) is under the playbook's folder, the working directory
    a module run has on a local connection.
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
  - Given O(kind) and O(report) instead of O(cluster), it writes the report a role of that kind assembled, in
    one task, as C(<basename>.json), C(<basename>.md) and C(<basename>.html) in O(report_dir) (those of
    O(formats)) - the JSON as the C(to_nice_json) filter writes it, the Markdown and the HTML page drawn by the
    same code as the C(teardown.gates.report_markdown) and C(teardown.gates.report_html) filters, from the report
    as the JSON holds it. Each file is written atomically, mode 0600, the folder created (0700) when missing;
    nothing is written in check mode, and C(changed) is always false.
options:
  report_dir:
    description: Directory for the report files (created if missing).
    type: path
    required: true
  cluster:
    description:
      - The HostedCluster's identity - C(namespace), C(name), C(uid), C(infra_id), and optionally C(region), C(hcp_namespace).
      - Required unless O(kind) is given; the options from here to O(baseline) are the hosted-cluster report's.
    type: dict
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
  aws_manifest:
    description:
      - The AWS IDs the run was to clean (resource type -> list of IDs, the baseline's manifest). When the AWS cleanup
        did not run (O(aws_cleanup_ran) false, outside check mode), the report lists each of them in
        C(aws.not_cleaned), and the Markdown and HTML pages and the outcome line say how many - nothing is lost in
        the report of a run that stopped before it.
    type: dict
    default: {}
  verification:
    description:
      - The independent verification - C(checks) (a list of C(what), C(state), C(count)), C(aws_verified), and
        C(tracked), the resources of the read-only M(teardown.gates.aws_infra_cleanup) run on the tracked manifest;
        the report lists each tracked ID with the state its look by ID found (C(report.verification.tracked)), and for
        one tagged C(teardown.gates/protected) C(kept) (the reason), for one that waits on it C(blocked_by).
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
  cli_secrets:
    description:
      - The Secrets C(hypershift create cluster) made in the HostedCluster's namespace, which the destroy deletes as
        C(destroy cluster) does (label C(hypershift.openshift.io/auto-created-for-infra=<infraID>)) - C(namespace),
        C(selector), and their names C(deleted), C(absent) (already gone), C(planned) (check mode) and C(failed) (each
        C(name) and C(error)); as the role's Phase 5 records them. V({}) when Phase 5 did not list them.
    type: dict
    default: {}
  retained:
    description: Other things retained on purpose, each with C(what) and C(why).
    type: list
    elements: dict
    default: []
  stopped:
    description:
      - Where and why the run stopped (C(gate), C(phase) (the playbook phase it stopped in, for the phases that never
        ran), C(message), C(inspect_next), C(resume), and C(plan_refused) when the approved plan was refused, whose
        C(resume) then says how to get a new plan approved), when it did.
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
  kind:
    description:
      - Write the report of this teardown kind (a name in the kind registry, C(plugins/module_utils/kinds/registry.py) -
        C(release_prune), C(cfn), C(diagnosis), C(held_deletion), C(orphan_sweep)...) that its role assembled in
        O(report), instead of a hosted cluster's. Needs O(report) and O(basename); excludes O(cluster) and O(baseline).
      - The Markdown and HTML are drawn for a kind with a report page; for another, give them in O(rendered) or
        leave them out of O(formats).
    type: str
  report:
    description: The report the role assembled, written as it is to the JSON file. Only with O(kind).
    type: dict
  basename:
    description: The report files' name without its extension, such as C(release_prune-report). Only with O(kind).
    type: str
  formats:
    description: The files to write, each as C(<basename>.<format>), in this order. Only with O(kind).
    type: list
    elements: str
    choices: [json, md, html]
    default: [json, md, html]
  rendered:
    description:
      - Formats the role has drawn itself (a format -> its text), written as given instead of the module's own
        drawing - for a role whose Markdown is its own Jinja template (C(ansible.builtin.template) lookup). Each
        must be in O(formats). Only with O(kind).
    type: dict
    default: {}
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

- name: Write a role's report - JSON, Markdown with its Mermaid gantt, and an HTML page - in one task
  teardown.gates.teardown_report:
    kind: cfn
    report: "{{ _cfn_refusals_report }}"
    report_dir: /var/lib/teardown-reports
    basename: cfn_refusals-report
  check_mode: false  # the report is the plan in check mode: written then too

- name: Write a report whose Markdown is the role's own template, and no HTML page
  teardown.gates.teardown_report:
    kind: orphan_sweep
    report: "{{ orphan_sweep_document }}"
    report_dir: /var/lib/teardown-reports
    basename: "{{ orphan_sweep_name }}"
    formats: [json, md]
    rendered:
      md: "{{ lookup('ansible.builtin.template', 'report.md.j2') }}"
"""

RETURN = r"""
report:
  description: The whole report, as written to the JSON file.
  returned: when neither O(baseline) nor O(kind) is given
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
    cli_secrets:
      description:
        - The Secrets the CLI made (O(cli_secrets)) - C(namespace), C(selector), the names C(deleted), C(absent),
          C(planned), and C(failed) (C(name), C(error)); V({}) when they were not listed. Phase 6 reads them again
          (a check of the report's C(verification)).
      type: dict
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
    - C(aws_not_cleaned) counts the IDs of O(aws_manifest) a run that stopped before its AWS cleanup did not clean.
  returned: when neither O(baseline) nor O(kind) is given
  type: dict
outcome:
  description:
    - One line for the operator, saying only what was observed - the result, the phases that never ran when the
      run stopped, what the AWS cleanup did or that it did not run, what remains by a lookup by ID or "not
      observed", the namespace's state by a read, and where the report is.
  returned: when neither O(baseline) nor O(kind) is given
  type: str
json_path:
  description: The JSON report's path (also returned in check mode, where nothing is written).
  returned: when neither O(baseline) nor O(kind) is given
  type: str
markdown_path:
  description: The Markdown report's path.
  returned: when neither O(baseline) nor O(kind) is given
  type: str
html_path:
  description: The HTML page's path.
  returned: when neither O(baseline) nor O(kind) is given
  type: str
index_path:
  description: The fleet page's path (C(index.html) in O(report_dir)), listing every cluster report there.
  returned: when neither O(baseline) nor O(kind) is given
  type: str
archived:
  description: Where the earlier run's JSON report was moved, when there was one (null otherwise).
  returned: when neither O(baseline) nor O(kind) is given
  type: str
baseline_path:
  description: Where O(baseline) was stored (also returned in check mode, where nothing is written).
  returned: when O(baseline) is given
  type: str
files:
  description: Each format of O(formats) -> its file's path (also returned in check mode, where nothing is written).
  returned: when O(kind) is given
  type: dict
  sample: {json: /var/lib/teardown-reports/cfn_refusals-report.json, md: /var/lib/teardown-reports/cfn_refusals-report.md}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.teardown.gates.plugins.module_utils.core.errors import TeardownGatesError, fail_from
from ansible_collections.teardown.gates.plugins.module_utils.drivers import teardown_report as driver


def main():
    # the action plugin of the same name (plugins/action/teardown_report.py) runs the task in the controller's
    # worker; this entry point serves ansible-doc, validate-modules and a direct run of the module
    module = AnsibleModule(argument_spec=driver.argument_spec(), supports_check_mode=True,
                           required_one_of=driver.REQUIRED_ONE_OF, mutually_exclusive=driver.MUTUALLY_EXCLUSIVE,
                           required_together=driver.REQUIRED_TOGETHER)
    try:
        result = driver.run(module.params, module.check_mode)
    except TeardownGatesError as e:
        fail_from(module, e)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
