"""Test equipment: a TCP server on loopback that accepts connections and never answers, or answers slowly.

It stands for a partitioned API server, a load balancer with dead backends, a VPC endpoint whose security
group drops packets: the connect succeeds, then nothing comes back. ``SilentServer(delay=None)`` reads
what the client sends and never writes; ``SilentServer(delay=s)`` waits ``s`` seconds per request, then
answers a plain HTTP 503 and closes (a slow, failing server). It records how many connections it saw.
``SilenceableProxy(target)`` forwards to a real server until told to go silent (a partition mid-watch).
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


class SilenceableProxy:
    """A TCP proxy on loopback in front of ``target`` ("host:port"), that goes silent when told.

    Until ``silence()`` it forwards both ways (TLS passes through untouched); after, it keeps every connection
    open, old and new, and forwards nothing: an API server that answered, then went silent mid-watch.
    ``speak()`` forwards again on new connections. ``write_kubeconfig(src, path)`` copies a kubeconfig (JSON or
    YAML) with its servers pointed here."""

    def __init__(self, target):
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.silent = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        self._conns = []
        self._stop = threading.Event()

    def write_kubeconfig(self, src, path):
        import yaml
        with open(src) as f:
            config = yaml.safe_load(f)
        for cluster in config.get("clusters") or []:
            cluster["cluster"]["server"] = "https://127.0.0.1:%d" % self.port
        with open(path, "w") as f:
            yaml.safe_dump(config, f)
        return path

    def silence(self):
        self.silent.set()

    def speak(self):
        self.silent.clear()

    def __enter__(self):
        threading.Thread(target=self._accept, name="proxy-%d" % self.port, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for s in [self._sock] + self._conns:
            try:
                s.close()
            except OSError:
                pass

    def _accept(self):
        while not self._stop.is_set():
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            self._conns.append(client)
            if self.silent.is_set():
                continue  # held open, never forwarded
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            self._conns.append(upstream)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src, dst):
        src.settimeout(0.5)
        while not self._stop.is_set():
            try:
                data = src.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if not data:
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            if self.silent.is_set():
                continue  # swallowed: the other side waits for an answer that never comes
            try:
                dst.sendall(data)
            except OSError:
                return
