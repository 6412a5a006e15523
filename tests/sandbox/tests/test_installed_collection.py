"""The collection as users get it: `ansible-galaxy collection build`, then `ansible-galaxy collection install`
of the tarball into an empty path, and a playbook runs from that installed copy against the sandbox.

The run sees only the install path and the venv's bundled collections (kubernetes.core, amazon.aws): not
.venv/collections (a link to this work tree), not the repo as working directory (the run's own folder holds its
ansible.cfg). `-vvv` makes Ansible say which module file each task ran ("Using module file ..."): each must lie
inside the install path. The building and installing, and that environment, are installed_copy.py's.
"""
import json
import os
import re
import subprocess
import tarfile

import pytest

from conftest import REPO, SANDBOX
from installed_copy import VENV_BIN, build_and_install, env as _env, write_ansible_cfg

NOT_CONTENT = (".venv/", ".venv-sanity/", ".venv-docs/", ".ansible/", ".sandbox/", "build/", ".cache/", ".git/", "tests/output/",
               "tests/sandbox/", ".pytest_cache/")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(tarball, install path) of a fresh build installed into an empty folder."""
    return build_and_install(tmp_path_factory.mktemp("galaxy"))


def test_tarball_holds_collection_content_only(installed):
    tarball, _ = installed
    with tarfile.open(tarball) as tf:
        names = tf.getnames()
    assert {"MANIFEST.json", "FILES.json", "galaxy.yml"} & set(names) >= {"MANIFEST.json", "FILES.json"}
    for wanted in ("meta/runtime.yml", "plugins/modules/wait_gate.py", "roles/release_prune/tasks/main.yml",
                   "playbooks/prune_releases.yml"):
        assert wanted in names, wanted
    stray = [n for n in names if n.startswith(NOT_CONTENT) or "__pycache__" in n or n.endswith(".pyc")]
    assert not stray, stray[:10]
    size = tarball.stat().st_size
    assert size < 2 * 1024 * 1024, f"{tarball.name} is {size} bytes: something that is not content got in"


def test_installed_copy_is_a_copy_not_the_work_tree(installed):
    _, dest = installed
    coll = dest / "ansible_collections" / "teardown" / "gates"
    assert (coll / "MANIFEST.json").is_file()
    assert not coll.is_symlink() and not (coll / "plugins").is_symlink()
    assert os.path.realpath(coll).startswith(str(dest))
    manifest = json.loads((coll / "MANIFEST.json").read_text())
    assert manifest["collection_info"]["namespace"] == "teardown" and manifest["collection_info"]["name"] == "gates"
    out = subprocess.run([os.path.join(VENV_BIN, "ansible-galaxy"), "collection", "list", "--format", "json"],
                         capture_output=True, text=True, timeout=120, check=False, env=_env(dest), cwd=str(dest))
    assert out.returncode == 0, out.stderr
    where = [path for path, colls in json.loads(out.stdout).items() if "teardown.gates" in colls]
    assert where == [str(dest / "ansible_collections")], where


def test_playbook_runs_from_the_installed_copy(installed, tmp_path):
    _, dest = installed
    if not os.environ.get("KUBECONFIG"):
        pytest.fail("sandbox environment missing: run through tests/run_all.sh sandbox")
    name = f"inst{os.getpid() % 100000}"
    seed = subprocess.run([SANDBOX, "seed", "releases", "--name", name, "--namespace", name, "--count", "2",
                           "--knob", "hook_seconds=0.2"], capture_output=True, text=True, timeout=300, check=False)
    assert seed.returncode == 0, seed.stdout + seed.stderr
    seeded = json.loads(seed.stdout.strip().splitlines()[-1])
    releases = sorted(o["name"] for o in seeded["objects"] if o["kind"] == "Release")
    assert len(releases) == 2, seeded
    reports = tmp_path / "reports"
    write_ansible_cfg(tmp_path)
    run = subprocess.run([os.path.join(VENV_BIN, "ansible-playbook"), "-vvv", "teardown.gates.prune_releases",
                          "-e", f"release_namespace={name}", "-e", json.dumps({"release_names": releases}),
                          "-e", f"report_dir={reports}", "-e", "timeout=120"],
                         cwd=str(tmp_path), capture_output=True, text=True, timeout=600, check=False, env=_env(dest))
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, tail
    assert re.search(r"localhost\s*:\s*ok=\d+\s+changed=[1-9]\d*\s+unreachable=0\s+failed=0", run.stdout), tail
    # -vvv names each module's file: "Using module file ..."
    used = sorted(set(re.findall(r"Using module file (\S+)", run.stdout)))
    ours = [p for p in used if "/teardown/gates/" in p]
    assert ours, f"no teardown.gates module ran: {used}"
    inside = str(dest / "ansible_collections" / "teardown" / "gates") + os.sep
    assert all(p.startswith(inside) for p in ours), ours
    assert not [p for p in used if p.startswith(REPO + os.sep) and not p.startswith(os.path.join(REPO, ".venv", "lib"))], used
    report = json.loads((reports / "release_prune-report.json").read_text())
    gone = sorted(r["name"] for r in report["verification"]["releases"] if r["state"] == "absent")
    assert gone == releases, report["verification"]


# The whole destroy of a hosted cluster from the installed copy (its report verified, its AWS gone, the worker and
# guest volumes and the guest load balancer each found absent by ID) is the destroy row of
# test_runner_playbooks.py::test_playbook_through_the_runner_stream, whose execution node runs every playbook from
# such a copy: one teardown for what this file, test_real_capi.py and the runner's row each asserted of their own.
