"""The collection as users get it: `ansible-galaxy collection build` of this work tree, then `ansible-galaxy
collection install` of the tarball into an empty folder; and the environment of a run that sees only that copy.

test_installed_collection.py checks the tarball and the copy and runs a playbook from it by name;
test_runner_playbooks.py runs every playbook through the runner stream with this copy on the execution node.
"""
import os
import subprocess

from conftest import REPO

VENV_BIN = os.path.join(REPO, ".venv", "bin")
# PyPI `ansible`: kubernetes.core, amazon.aws (in the venv's site-packages, whichever its Python)
BUNDLED = subprocess.run([os.path.join(VENV_BIN, "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()


def build_and_install(root):
    """(tarball, install path) of a fresh build of the work tree installed into ROOT/installed."""
    out = subprocess.run([os.path.join(VENV_BIN, "ansible-galaxy"), "collection", "build", "--output-path",
                          str(root / "dist"), REPO], cwd=str(root), capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    tarball = next((root / "dist").glob("teardown-gates-*.tar.gz"))
    dest = root / "installed"
    assert not dest.exists()
    # --no-deps: this machine has no Galaxy; kubernetes.core and amazon.aws come from the venv's `ansible`
    out = subprocess.run([os.path.join(VENV_BIN, "ansible-galaxy"), "collection", "install", "--no-deps", "-p",
                          str(dest), str(tarball)], cwd=str(root), capture_output=True, text=True, timeout=300,
                         check=False, env=env(dest))
    assert out.returncode == 0, out.stdout + out.stderr
    return tarball, dest


def collection_dir(dest):
    return os.path.join(str(dest), "ansible_collections", "teardown", "gates")


def write_ansible_cfg(folder):
    """An ansible.cfg in FOLDER, the run's working directory (where a user's or an AWX project's own lies), with
    the one setting of tests/ansible.cfg, which env() leaves out as the work tree's: how often the main process
    looks for a finished task. It has no environment variable; at Ansible's 0.001 s a playbook that waits on
    gates for minutes burns about 4 % of a core all along."""
    with open(os.path.join(str(folder), "ansible.cfg"), "w") as f:
        f.write("[defaults]\ninternal_poll_interval = 0.05\n")


def env(dest):
    """The environment of a run from the copy in DEST: its collections path is DEST and the venv's bundled
    collections only, not .venv/collections (a link to this work tree)."""
    # nothing of the work tree's Ansible settings; the recorder of real runs (conftest.py) is test equipment
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_") or k == "ANSIBLE_CALLBACK_PLUGINS"}
    env["ANSIBLE_COLLECTIONS_PATH"] = f"{dest}:{BUNDLED}"
    env["ANSIBLE_FORCE_COLOR"] = "0"
    env["ANSIBLE_NOCOLOR"] = "1"
    env["PATH"] = VENV_BIN + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)  # run_all.sh points it at .venv/collections (the work tree)
    return env
