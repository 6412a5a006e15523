# shellcheck shell=bash
# Sourced by the hosted-cluster script targets after `here=$(pwd)`: sets `config` (the
# integration_config.yml that run_all.sh writes) and exports the sandbox's environment from it, with
# SANDBOX_CLI and HC_PYTHON (ansible-test passes few environment variables to a target itself).
config=$here/../../integration_config.yml
eval "$(python - "$config" <<'PY'
import json, shlex, sys
c = json.load(open(sys.argv[1]))
for k, v in c["sandbox_env"].items():
    print("export %s=%s" % (k, shlex.quote(v)))
print("export SANDBOX_CLI=%s HC_PYTHON=%s" % (shlex.quote(c["sandbox_cli"]), shlex.quote(c["sandbox_python"])))
PY
)"
