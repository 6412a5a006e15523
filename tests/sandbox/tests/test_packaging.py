"""`ansible-galaxy collection build` makes a tarball of the collection, without tests' binaries or caches."""
import os
import subprocess
import tarfile

from conftest import REPO

FORBIDDEN_PREFIXES = (".venv/", ".venv-sanity/", ".sandbox/", "build/", ".cache/", "tests/output/", ".git/",
                      "benchmarks/results/latest")


def test_galaxy_build_excludes_binaries_and_caches(tmp_path):
    out = subprocess.run([os.path.join(REPO, ".venv", "bin", "ansible-galaxy"), "collection", "build", "--force",
                          "--output-path", str(tmp_path)], cwd=REPO, capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr
    tarball = next(tmp_path.glob("teardown-gates-*.tar.gz"))
    with tarfile.open(tarball) as tf:
        members = tf.getmembers()
        names = [m.name for m in members]
        assert "MANIFEST.json" in names and "meta/runtime.yml" in names
        bad = [n for n in names if n.startswith(FORBIDDEN_PREFIXES) or "__pycache__" in n or n.endswith(".pyc")]
        assert not bad, bad[:10]
        for m in members:
            if m.isfile():
                head = tf.extractfile(m).read(4)
                assert head != b"\x7fELF", f"binary in the collection: {m.name}"
    assert tarball.stat().st_size < 5 * 1024 * 1024


def test_execution_environment_definition_builds_a_context(tmp_path):
    """ansible-builder v3 accepts the EE definition and writes a build context (no container engine needed)."""
    import shutil
    import yaml
    build_dir = os.path.join(REPO, "build")
    os.makedirs(build_dir, exist_ok=True)
    out = subprocess.run([os.path.join(REPO, ".venv", "bin", "ansible-galaxy"), "collection", "build", "--force",
                          "--output-path", str(tmp_path)], cwd=REPO, capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr
    shutil.copy(next(tmp_path.glob("teardown-gates-*.tar.gz")), os.path.join(build_dir, "teardown-gates-latest.tar.gz"))
    ctx = tmp_path / "context"
    out = subprocess.run([os.path.join(REPO, ".venv", "bin", "ansible-builder"), "create", "-f",
                          os.path.join(REPO, "extensions", "ee", "execution-environment.yml"), "-c", str(ctx)],
                         capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (ctx / "Containerfile").exists() or (ctx / "Dockerfile").exists()
    with open(os.path.join(REPO, "requirements.txt")) as f:
        ours = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    assert ours <= set((ctx / "_build" / "requirements.txt").read_text().splitlines())
    galaxy = yaml.safe_load((ctx / "_build" / "requirements.yml").read_text())
    names = {c["name"] for c in galaxy["collections"]}
    assert {"kubernetes.core", "amazon.aws", "/build/teardown-gates.tar.gz"} <= names
    assert (ctx / "_build" / "build" / "teardown-gates-latest.tar.gz").exists()
    with open(os.path.join(REPO, "meta", "execution-environment.yml")) as f:
        meta_ee = yaml.safe_load(f)
    assert meta_ee["dependencies"] == {"python": "requirements.txt", "system": "bindep.txt"}
