"""A fault-injecting proxy in front of the sandbox's kube-apiserver (test equipment for tests/chaos).

    python -m sandboxctl.kubeproxy --port P --seed S --rate R --log faults.jsonl --kubeconfig-out kc

Listens with TLS on 127.0.0.1:P (the API server's own serving certificate, so the sandbox CA
verifies it), reads each HTTP/1.1 request, and either answers it with a fault or forwards it to the
API server over TLS with the sandbox admin's client certificate. Faults, chosen by a random
generator seeded with S, each with probability R per request:

  status-500 / status-503 / status-429   a metav1 Status body as the API server sends it
                                          (429 and 503 carry Retry-After: 1)
  drop                                    the connection is closed without an answer
  drop-answer                             the request reaches the API server (and takes effect), the
                                          answer is thrown away and the connection closed
  cut-watch                               (watch requests only) the stream is forwarded for a
                                          while, then closed mid-way
  slow                                    the request is held 1..4 s (from the generator) before it is
                                          forwarded: an API server under load, answering in seconds

Every request is one line of the JSON log: id, method, path, fault (or null) and, for PATCH/PUT, the
body (so the chaos checker can see a finalizer coming off). The API server's answer to a write that reached it
(its HTTP status, even when a drop-answer fault keeps it from the client) is a line of LOG.answers:
{"id", "status"}; the chaos checker reads it to tell a removal the server made from one it refused (a
json-patch whose test failed because a controller removed the finalizer first). Each upstream request is sent with
`Connection: close`, and so is the answer, so no connection is reused across requests.
"""
import argparse
import json
import os
import random
import socket
import ssl
import sys
import itertools
import threading
import time

from . import pki as pki_mod
from .kube import kubeconfig_text

FAULTS = ("status-500", "status-503", "status-429", "drop", "drop-answer", "slow")
WRITES = ("POST", "PUT", "PATCH", "DELETE")
REASONS = {500: ("InternalError", "Internal error occurred: injected by the sandbox fault proxy"),
           503: ("ServiceUnavailable", "the server is currently unable to handle the request (injected)"),
           429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later "
                                    "(injected)")}
PHRASE = {500: "Internal Server Error", 503: "Service Unavailable", 429: "Too Many Requests"}


class Proxy:
    def __init__(self, upstream_port, pki, seed, rate, log_path, methods=None, rate_file=None):
        self.upstream = ("127.0.0.1", upstream_port)
        self.rate_file = rate_file
        self.pki = pki
        self.rng = random.Random(seed)
        self.rate = rate
        self.methods = methods
        self.lock = threading.Lock()
        self.log = open(log_path, "a", buffering=1)
        self.answers = open(log_path + ".answers", "a", buffering=1)
        self.ids = itertools.count(1)
        self.up_ctx = ssl.create_default_context(cafile=pki["ca.crt"])
        self.up_ctx.load_cert_chain(pki["admin.crt"], pki["admin.key"])
        self.srv_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.srv_ctx.load_cert_chain(pki["apiserver.crt"], pki["apiserver.key"])
        self.srv_ctx.set_alpn_protocols(["http/1.1"])

    def decide(self, method, target):
        with self.lock:
            if self.methods and method not in self.methods:
                return None, 0
            rate = self.rate
            if self.rate_file:
                try:
                    with open(self.rate_file) as f:
                        rate = float(f.read().strip() or rate)
                except (OSError, ValueError):
                    pass
            roll = self.rng.random()
            pick = self.rng.choice(FAULTS + (("cut-watch",) * 2 if "watch=" in target else ()))
            cut_after = self.rng.randint(1, 4)  # also the seconds a slow answer is held
        return (pick if roll < rate else None), cut_after

    def record(self, **entry):
        entry["time"] = time.time()
        with self.lock:
            self.log.write(json.dumps(entry, sort_keys=True) + "\n")

    def answered(self, request_id, first_chunk):
        """Log the API server's HTTP status for a write (the status line's second word)."""
        try:
            status = int(first_chunk.split(b"\r\n", 1)[0].split()[1])
        except (IndexError, ValueError):
            return
        with self.lock:
            self.answers.write(json.dumps({"id": request_id, "status": status}) + "\n")

    # --- HTTP plumbing -------------------------------------------------------------------------
    @staticmethod
    def _read_head(f):
        lines = []
        while True:
            line = f.readline(65537)
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                return lines
            lines.append(line)

    def handle(self, raw):
        try:
            conn = self.srv_ctx.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        try:
            self._serve(conn)
        except (OSError, ssl.SSLError, ValueError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def _serve(self, conn):
        f = conn.makefile("rb")
        head = self._read_head(f)
        if not head:
            return
        method, target, _ = head[0].decode("latin-1").split(" ", 2)
        headers = []
        length = 0
        for h in head[1:]:
            k, _, v = h.decode("latin-1").partition(":")
            if k.strip().lower() == "content-length":
                length = int(v.strip())
            if k.strip().lower() in ("connection", "keep-alive", "proxy-connection"):
                continue
            headers.append((k.strip(), v.strip()))
        body = f.read(length) if length else b""
        fault, cut_after = self.decide(method, target)
        entry = {"id": next(self.ids), "method": method, "path": target, "fault": fault}
        if method in ("PATCH", "PUT") and body:
            entry["body"] = body.decode("utf-8", "replace")[:20000]
            entry["content_type"] = next((v for k, v in headers if k.lower() == "content-type"), "")
        if fault in ("status-500", "status-503", "status-429"):
            self.record(**entry)
            code = int(fault.split("-")[1])
            reason, message = REASONS[code]
            payload = json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                  "message": message, "reason": reason, "code": code}).encode()
            extra = "Retry-After: 1\r\n" if code in (429, 503) else ""
            conn.sendall((f"HTTP/1.1 {code} {PHRASE[code]}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(payload)}\r\n{extra}Connection: close\r\n\r\n").encode() + payload)
            return
        if fault == "drop":
            self.record(**entry)
            return  # closed by handle() with no answer
        if fault == "cut-watch" and "watch=" not in target:
            fault = entry["fault"] = None
        if fault == "slow":
            entry["delay"] = cut_after
        self.record(**entry)
        if fault == "slow":
            time.sleep(cut_after)
        up = self.up_ctx.wrap_socket(socket.create_connection(self.upstream, timeout=30),
                                     server_hostname="127.0.0.1")
        try:
            req = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
            up.sendall(req.encode("latin-1") + b"Connection: close\r\n\r\n" + body)
            up.settimeout(None)
            chunks = 0
            while True:
                data = up.recv(65536)
                if chunks == 0 and data and method in WRITES:
                    self.answered(entry["id"], data)
                if not data or fault == "drop-answer":
                    break
                conn.sendall(data)
                chunks += 1
                if fault == "cut-watch" and chunks >= cut_after:
                    time.sleep(0.2)
                    break  # mid-stream: the client sees the watch end without a final chunk
        finally:
            up.close()

    @staticmethod
    def listen(port):
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", port))
        srv.listen(64)
        return srv

    def serve_forever(self, srv):
        while True:
            raw, _ = srv.accept()
            threading.Thread(target=self.handle, args=(raw,), daemon=True).start()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--upstream-port", type=int,
                    default=int(os.environ.get("SANDBOX_PORT_BASE", "21000")) + 443)
    ap.add_argument("--state", default=os.environ.get("SANDBOX_HOME"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rate", type=float, default=0.1)
    ap.add_argument("--rate-file", help="when this file exists, the rate it holds replaces --rate (read per request)")
    ap.add_argument("--log", required=True)
    ap.add_argument("--kubeconfig-out", help="write a kubeconfig pointing at the proxy here")
    args = ap.parse_args(argv)
    if not args.state:
        ap.error("--state (or SANDBOX_HOME) is required")
    pki = pki_mod.ensure_pki(os.path.join(args.state, "pki"))
    proxy = Proxy(args.upstream_port, pki, args.seed, args.rate, args.log, rate_file=args.rate_file)
    srv = proxy.listen(args.port)  # listening before the kubeconfig appears: its presence means "ready"
    if args.kubeconfig_out:
        with open(args.kubeconfig_out, "w") as f:
            f.write(kubeconfig_text(f"https://127.0.0.1:{args.port}", pki))
        os.chmod(args.kubeconfig_out, 0o600)
    print(f"kubeproxy: 127.0.0.1:{args.port} -> 127.0.0.1:{args.upstream_port} seed={args.seed} rate={args.rate}",
          file=sys.stderr, flush=True)
    proxy.serve_forever(srv)


if __name__ == "__main__":
    main()
