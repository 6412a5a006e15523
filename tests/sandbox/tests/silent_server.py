"""Test equipment: a TCP server on loopback that accepts connections and never answers, or answers slowly.

It stands for a partitioned API server, a load balancer with dead backends, a VPC endpoint whose security
group drops packets: the connect succeeds, then nothing comes back. ``SilentServer(delay=None)`` reads
what the client sends and never writes; ``SilentServer(delay=s)`` waits ``s`` seconds per request, then
answers a plain HTTP 503 and closes (a slow, failing server). It records how many connections it saw.
"""
import socket
import threading
import time


class SilentServer:
    def __init__(self, delay=None):
        self.delay = delay
        self.connections = 0
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        self._held = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="silent-%d" % self.port, daemon=True)

    @property
    def url(self):
        return "127.0.0.1:%d" % self.port

    def write_kubeconfig(self, path):
        """A kubeconfig whose only cluster is this server (TLS unverified, a dummy token); returns ``path``."""
        with open(path, "w") as f:
            f.write("apiVersion: v1\nkind: Config\n"
                    "clusters: [{name: c, cluster: {server: 'https://%s', insecure-skip-tls-verify: true}}]\n"
                    "users: [{name: u, user: {token: t}}]\n"
                    "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n" % self.url)
        return path

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        try:
            self._sock.close()
        except OSError:
            pass
        for conn in self._held:
            try:
                conn.close()
            except OSError:
                pass

    def _accept(self):
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.connections += 1
            self._held.append(conn)  # kept open: the client sees a live connection that never answers
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        try:
            conn.settimeout(1.0)
            while not self._stop.is_set():
                try:
                    if not conn.recv(65536):
                        return
                except socket.timeout:
                    pass
                if self.delay is not None:
                    time.sleep(self.delay)
                    conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
        except OSError:
            return
