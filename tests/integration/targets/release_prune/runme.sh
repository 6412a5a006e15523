#!/usr/bin/env bash
# ansible-test runs this with the target folder as the working directory; the sandbox's variables
# (sandbox_env, sandbox_cli, sandbox_python) are in tests/integration/integration_config.yml.
# Not in `make test` (alias disabled): fifteen runs of the role or the playbook (prune.yml; six of them bad input),
# about 110 CPU-s and eight minutes of lane 2, for a story molecule's release_prune tells on its own runs. Where
# `make test` covers it:
# - bad input fails before any request, naming the variable: molecule release_prune converge.yml (bad_input.yml:
#   no selection, prune_cluster without a Cluster, timeout 0, bad names, no namespace), test_bad_input.py (the
#   role's rows: two selections, missing, types), tests/unit/plugins/plugin_utils/test_release_prune_input.py;
# - the unreachable Cluster refused without the opt-in, naming the Release, its Cluster, its objects and the opt-in,
#   with no change by our modules (audit log): converge.yml;
# - check mode sends no mutating request: tests/sandbox/tests/test_check_mode_reads_only.py (prune_releases.yml),
#   whose report records check_mode and the plan;
# - the run with the opt-in stops on the failing Fail hook (its Job, onFailure, the ways out, "do not remove the
#   finalizer") and on a failing step ("convoy retries it"); the report's held with blocked_by, the others verified
#   absent, the opt-in's orphans, nothing unverified; what stayed and why (keepWorkloads, target_not_reachable,
#   not_in_inventory, release_still_present), the Markdown report: converge.yml and verify.yml;
# - the held Release keeps convoy's finalizer (nothing forced); after the owner's fixes the re-run resumes on the
#   Release still deleting, deletes nothing more and verifies it gone; a second run changes nothing: converge.yml,
#   verify.yml (3-final) and the idempotence step;
# - a Cluster with pruneReleases: the role deletes only the Cluster (audit log), convoy each Release through its
#   flow, all verified gone: converge.yml and verify.yml;
# - convoy_delete's UID guard, "already deleting is not a change", and the owner's way out (onFailure Continue): the
#   convoy_delete target, and tests/sandbox/tests/test_twin_convoy.py;
# - a missing permission stops the run at the permission preflight, naming it and its RBAC file, before any change:
#   test_least_privilege.py (test_prune_releases_without_a_permission_names_it), test_permission_preflight.py;
# - the playbook entry run for real: test_least_privilege.py, test_installed_collection.py, test_runner_playbooks.py.
# Run it with: INTEGRATION_ARGS="--allow-disabled release_prune" make integration
set -eux
ansible-playbook -i "${INVENTORY_PATH:-../../inventory}" -e @../../integration_config.yml prune.yml "$@"
