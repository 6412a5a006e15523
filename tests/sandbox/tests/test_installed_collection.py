"""The collection as users get it: `ansible-galaxy collection build`, then `ansible-galaxy collection install`
of the tarball into an empty path, and a playbook runs from that installed copy against the sandbox.

The run sees only the install path and the venv's bundled collections (kubernetes.core, amazon.aws): not
.venv/collections (a link to this work tree), not the repo as working directory. `-vvv` makes Ansible say
which module file each task ran ("Using module file ..."): each must lie inside the install path.
"""
import json
import os
import re
import subprocess
import tarfile

import pytest

from conftest import REPO, SANDBOX

VENV_BIN = os.path.join(REPO, ".venv", "bin")
# PyPI `ansible`: kubernetes.core, amazon.aws (in the venv's site-packages, whichever its Python)
BUNDLED = subprocess.run([os.path.join(VENV_BIN, "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
NOT_CONTENT = (".venv/", ".venv-sanity/", ".venv-docs/", ".ansible/", ".sandbox/", "build/", ".cache/", ".git/", "tests/output/",
               "tests/sandbox/", ".pytest_cache/")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(tarball, install path) of a fresh build installed into an empty folder."""
    root = tmp_path_factory.mktemp("galaxy")
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
                         check=False, env=_env(dest))
    assert out.returncode == 0, out.stdout + out.stderr
    return tarball, dest


def _env(dest):
    # nothing of the work tree's Ansible settings; the recorder of real runs (conftest.py) is test equipment
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_") or k == "ANSIBLE_CALLBACK_PLUGINS"}
    env["ANSIBLE_COLLECTIONS_PATH"] = f"{dest}:{BUNDLED}"
    env["ANSIBLE_FORCE_COLOR"] = "0"
    env["ANSIBLE_NOCOLOR"] = "1"
    env["PATH"] = VENV_BIN + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)  # run_all.sh points it at .venv/collections (the work tree)
    return env


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


def test_destroy_hosted_cluster_from_the_installed_copy(installed, tmp_path):
    """A HyperShift hosted cluster (with its AWS infrastructure) destroyed by the playbook of the installed
    tarball, with the ansible-core and collections of the venv's PyPI `ansible`, and verified."""
    _, dest = installed
    if not os.environ.get("KUBECONFIG"):
        pytest.fail("sandbox environment missing: run through tests/run_all.sh sandbox")
    name = f"insthc{os.getpid() % 100000}"
    seed = subprocess.run([SANDBOX, "seed", "hosted-cluster", "--name", name, "--namespace", name],
                          capture_output=True, text=True, timeout=300, check=False)
    assert seed.returncode == 0, seed.stdout + seed.stderr
    version = subprocess.run([os.path.join(VENV_BIN, "ansible"), "--version"], capture_output=True, text=True,
                             timeout=60, check=False, env=_env(dest)).stdout.splitlines()[0]
    reports = tmp_path / "reports"
    run = subprocess.run([os.path.join(VENV_BIN, "ansible-playbook"), "-v", "teardown.gates.destroy_hosted_cluster",
                          "-e", f"hosted_cluster_name={name}", "-e", f"hosted_cluster_namespace={name}",
                          "-e", f"report_dir={reports}", "-e", "preserve_iam=false"],
                         cwd=str(tmp_path), capture_output=True, text=True, timeout=900, check=False, env=_env(dest))
    tail = version + "\n" + run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, tail
    report = json.loads((reports / f"{name}-{name}.json").read_text())
    assert report["verified"] is True and not report["remaining"], report.get("remaining")
    assert report["verification"]["aws_verified"] is True, report["verification"]
    assert not report["aws"]["remaining"], report["aws"]["remaining"]
    # the worker volumes (root and data) and the guest's persistent volume and load balancer, tracked by ID from
    # the baseline and each found absent or terminal by the role's own look by ID
    seeded = json.loads(seed.stdout.strip().splitlines()[-1])
    volumes = seeded["aws"].get("AWS::EC2::Volume", []) + seeded["guest_cloud"]["AWS::EC2::Volume"]
    guest_lbs = seeded["guest_cloud"]["AWS::ElasticLoadBalancing::LoadBalancer"]
    assert len(volumes) >= 3, seeded["aws"]
    tracked = {(r["type"], r["id"]): r["state"] for r in report["verification"]["tracked"]}
    for rtype, ids in (("AWS::EC2::Volume", volumes), ("AWS::ElasticLoadBalancing::LoadBalancer", guest_lbs)):
        for i in ids:
            assert tracked.get((rtype, i)) in ("absent", "terminal"), (rtype, i, report["verification"]["tracked"])
