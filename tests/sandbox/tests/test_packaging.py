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
