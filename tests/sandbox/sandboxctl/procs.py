"""Start, track and stop the sandbox's processes (one pid file each, own process group)."""
import os
import signal
import socket
import subprocess
import time


class SandboxError(Exception):
    """A problem the operator can act on; the message says which and what to do."""


def port_free(port, host="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # as the servers themselves do: connections in TIME_WAIT must not count as "taken"
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((host, port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def wait_port_free(port, timeout=30.0):
    """Wait until `port` can be bound again. A SIGKILLed Go server's main thread is a zombie (so the pid counts
    as gone) while its other threads are still exiting and its listening socket is still open: a new server
    started then fails with 'address already in use'."""
    deadline = time.monotonic() + timeout
    while not port_free(port):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie still answers kill(0); read its state
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class Procs:
    def __init__(self, state_dir):
        self.run_dir = os.path.join(state_dir, "run")
        self.log_dir = os.path.join(state_dir, "logs")
        os.makedirs(self.run_dir, exist_ok=True)
        os.makedirs(self.log_dir, exist_ok=True)

    def pidfile(self, name):
        return os.path.join(self.run_dir, name + ".pid")

    def logfile(self, name):
        return os.path.join(self.log_dir, name + ".log")

    def pid(self, name):
        try:
            with open(self.pidfile(name)) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            return None
        return pid if pid_alive(pid) else None

    def names(self):
        return sorted(n[:-4] for n in os.listdir(self.run_dir) if n.endswith(".pid"))

    def start(self, name, argv, env=None, cwd=None):
        if self.pid(name):
            return self.pid(name)
        log = open(self.logfile(name), "ab")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=cwd, start_new_session=True)
        log.close()
        with open(self.pidfile(name), "w") as f:
            f.write(str(proc.pid))
        return proc.pid

    def cpu_seconds(self, name):
        """CPU seconds (user + system) the component's process has used so far, or None when it is not running.
        `make test` prints them at `sandbox down`: the servers' share of a run's CPU is not any stage's."""
        pid = self.pid(name)
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (TypeError, OSError, IndexError):
            return None
        # utime and stime are fields 14 and 15 of /proc/<pid>/stat (proc(5)); after the ")" they are the 12th and 13th
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, name, grace=10.0):
        """SIGTERM, and SIGKILL after `grace` seconds; grace 0 is a crash: SIGKILL at once."""
        pid = self.pid(name)
        if pid:
            steps = ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)) if grace > 0 else ((signal.SIGKILL, 5.0),)
            for sig, wait in steps:
                try:
                    os.killpg(pid, sig)
                except ProcessLookupError:
                    break
                deadline = time.monotonic() + wait
                while time.monotonic() < deadline and pid_alive(pid):
                    time.sleep(0.1)
                if not pid_alive(pid):
                    break
        try:
            os.unlink(self.pidfile(name))
        except FileNotFoundError:
            pass

    def tail(self, name, lines=20):
        try:
            with open(self.logfile(name), "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode(errors="replace")
        except OSError:
            return ""
