#!/usr/bin/env bash
# ansible-test runs this with the target folder as the working directory; the sandbox's variables
# (sandbox_env, sandbox_cli, sandbox_python) are in tests/integration/integration_config.yml.
set -eux
ansible-playbook -i "${INVENTORY_PATH:-../../inventory}" -e @../../integration_config.yml prune.yml "$@"
