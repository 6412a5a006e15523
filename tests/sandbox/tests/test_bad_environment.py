"""`sandbox up` in a bad environment says what is wrong, exits non-zero and leaves nothing running."""
import os
import shutil
import socket
import subprocess

from conftest import SANDBOX


def _env(tmp_path, port_base, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SANDBOX_", "KUBECONFIG"))}
    env.update(SANDBOX_HOME=str(tmp_path / "state"), SANDBOX_PORT_BASE=str(port_base),
               TEARDOWN_GATES_CACHE=str(tmp_path / "cache"))
    env.update(extra)
    return env


def _no_sandbox_processes(tmp_path):
    out = subprocess.run(["pgrep", "-af", str(tmp_path)], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if "pgrep" not in line]


def test_port_taken_is_named(tmp_path):
    base = 22000
    s = socket.socket()
    s.bind(("127.0.0.1", base + 443))
    s.listen(1)
    try:
        out = subprocess.run([SANDBOX, "up"], capture_output=True, text=True, env=_env(tmp_path, base), timeout=120)
    finally:
        s.close()
    assert out.returncode != 0
    assert str(base + 443) in out.stderr and "apiserver" in out.stderr
    assert not _no_sandbox_processes(tmp_path)


def test_missing_go_is_named(tmp_path):
    path = ":".join(p for p in os.environ["PATH"].split(":") if not os.path.exists(os.path.join(p, "go")))
    assert shutil.which("go", path=path) is None
    out = subprocess.run([SANDBOX, "up"], capture_output=True, text=True, env=_env(tmp_path, 22100, PATH=path),
                         timeout=120)
    assert out.returncode != 0
    assert "Go is not on PATH" in out.stderr
    assert not _no_sandbox_processes(tmp_path)


def test_unreachable_module_proxy_is_named(tmp_path):
    env = _env(tmp_path, 22200, GOPROXY="off", GOMODCACHE=str(tmp_path / "gomod"), GOFLAGS="-modcacherw")
    out = subprocess.run([SANDBOX, "up"], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode != 0
    assert "module proxy" in out.stderr
    assert not _no_sandbox_processes(tmp_path)
    subprocess.run(["chmod", "-R", "u+w", str(tmp_path)], check=False)


def test_up_is_idempotent_and_down_leaves_nothing_running(tmp_path):
    env = _env(tmp_path, 22300, TEARDOWN_GATES_CACHE=os.environ.get(
        "TEARDOWN_GATES_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "teardown-gates")))
    env["SANDBOX_HOME"] = str(tmp_path / "state")
    first = subprocess.run([SANDBOX, "up"], capture_output=True, text=True, env=env, timeout=600, check=False)
    try:
        assert first.returncode == 0, first.stderr
        pids = sorted(p.read_text() for p in (tmp_path / "state" / "run").glob("*.pid"))
        assert len(pids) >= 4
        second = subprocess.run([SANDBOX, "up"], capture_output=True, text=True, env=env, timeout=600, check=False)
        assert second.returncode == 0, second.stderr
        assert sorted(p.read_text() for p in (tmp_path / "state" / "run").glob("*.pid")) == pids
        status = subprocess.run([SANDBOX, "status", "--json"], capture_output=True, text=True, env=env, timeout=60,
                                check=False)
        assert status.returncode == 0 and '"running": false' not in status.stdout
    finally:
        down = subprocess.run([SANDBOX, "down"], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert down.returncode == 0
    assert not _no_sandbox_processes(tmp_path)
