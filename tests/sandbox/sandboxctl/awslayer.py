"""moto in server mode behind the sandbox's AWS layer.

One process: moto's WSGI app wrapped by a middleware that
  * names each request (service, action) the way AWS's own logs would,
  * gives the realism rules (refusals, state machines, faults) a chance to answer first,
  * writes one JSON line per request to SANDBOX_AWS_LOG,
  * serves a small control endpoint under /_sandbox/ (health, log position, rules).

Realism rules live in ``realism.py`` (one seam: ``Realism.before`` and ``Realism.after``).
"""
import argparse
import io
import json
import re
import socket
import threading
import time
from urllib.parse import parse_qs

_AUTH_SCOPE = re.compile(r"Credential=([^/]+)/\d{8}/([^/]+)/([^/]+)/aws4_request")
_ERR_CODE_XML = re.compile(rb"<Code>([^<]+)</Code>")


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".%03dZ" % (int(time.time() * 1000) % 1000)


class Request:
    """What the layer knows of one request before moto sees it."""

    def __init__(self, environ, body):
        self.environ = environ
        self.body = body
        self.method = environ.get("REQUEST_METHOD", "GET")
        self.path = environ.get("PATH_INFO", "/")
        self.query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        auth = environ.get("HTTP_AUTHORIZATION", "")
        m = _AUTH_SCOPE.search(auth)
        # the access key ID (never the secret) lets a test pick its own requests out of a shared log
        self.key_id, self.region, self.service = (m.group(1), m.group(2), m.group(3)) if m else ("", "", "")
        # whose call it was: CAPA's aws-sdk-go-v2, the collection's botocore, a twin's boto3
        self.user_agent = environ.get("HTTP_USER_AGENT", "")
        self.params = {}
        ctype = environ.get("CONTENT_TYPE", "")
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        if target:
            self.action = target.split(".")[-1]
            try:
                self.params = json.loads(body or b"{}")
            except ValueError:
                self.params = {}
        elif "x-www-form-urlencoded" in ctype and body:
            form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
            self.params = {k: v[0] if len(v) == 1 else v for k, v in form.items()}
            self.action = self.params.get("Action", "")
        elif "Action" in self.query:
            self.params = {k: v[0] for k, v in self.query.items()}
            self.action = self.params["Action"]
        else:
            self.action = self._rest_action()

    def _rest_action(self):
        """Name REST-protocol calls (S3, Route 53) after the API operation they are."""
        parts = [p for p in self.path.split("/") if p]
        q = self.query
        if self.service == "s3":
            if not parts:
                return "ListBuckets"
            bucket_op = len(parts) == 1
            if self.method == "POST" and "delete" in q:
                return "DeleteObjects"
            if "versions" in q:
                return "ListObjectVersions"
            if "versioning" in q:
                return {"PUT": "PutBucketVersioning"}.get(self.method, "GetBucketVersioning")
            if "tagging" in q:
                return ("PutBucketTagging" if bucket_op else "PutObjectTagging") if self.method == "PUT" else (
                    "GetBucketTagging" if bucket_op else "GetObjectTagging")
            verb = {"GET": "Get", "PUT": "Put", "DELETE": "Delete", "HEAD": "Head", "POST": "Post"}.get(self.method, self.method)
            if bucket_op:
                if self.method == "GET":
                    return "ListObjectsV2" if q.get("list-type") == ["2"] else "ListObjects"
                return {"PUT": "CreateBucket", "DELETE": "DeleteBucket", "HEAD": "HeadBucket"}.get(self.method, verb + "Bucket")
            return verb + "Object"
        if self.service == "route53":
            # /2013-04-01/hostedzone[/ID[/rrset]] and friends
            rest = parts[1:] if parts and parts[0][:4].isdigit() else parts
            if rest[:1] == ["hostedzone"]:
                if len(rest) == 1:
                    return "CreateHostedZone" if self.method == "POST" else "ListHostedZones"
                if len(rest) == 2:
                    return {"GET": "GetHostedZone", "DELETE": "DeleteHostedZone"}.get(self.method, "UpdateHostedZone")
                if rest[2] == "rrset":
                    return "ChangeResourceRecordSets" if self.method == "POST" else "ListResourceRecordSets"
                return rest[2]
            if rest[:1] == ["hostedzonesbyvpc"]:
                return "ListHostedZonesByVPC"
            if rest[:1] == ["hostedzonesbyname"]:
                return "ListHostedZonesByName"
            if rest[:1] == ["tags"]:
                return "ChangeTagsForResource" if self.method == "POST" else "ListTagsForResource"
            return "/".join(rest)
        return f"{self.method} {self.path}"


class Layer:
    def __init__(self, app, log_path, realism=None):
        self.app = app
        self.log_path = log_path
        self.realism = realism
        self._log_lock = threading.Lock()
        self._moto_lock = threading.Lock()

    def _log(self, req, status, code, injected=None):
        rec = {"time": _now(), "service": req.service, "action": req.action, "status": status,
               "error_code": code, "key_id": req.key_id, "user_agent": req.user_agent}  # who called, as CloudTrail's userAgent
        # the instances a call names (EC2's InstanceId.N): tests running at once tell their own terminations apart
        ids = sorted(v for k, v in req.params.items() if k.startswith("InstanceId.") and isinstance(v, str))
        if ids:
            rec["instance_ids"] = ids
        if str(req.params.get("DryRun", "")).lower() == "true":  # EC2's permission check: nothing was changed
            rec["dry_run"] = True
        if injected:
            rec["injected"] = injected
        with self._log_lock, open(self.log_path, "a") as f:
            f.write(json.dumps(rec) + "\n")

    def _control(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD")
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = json.loads(environ["wsgi.input"].read(length) or b"{}") if length else {}
        if path == "/_sandbox/health":
            out = {"ok": True}
        elif self.realism is not None:
            out = self.realism.control(method, path, body)
        else:
            out = {"error": "no realism layer loaded"}
        data = json.dumps(out).encode()
        start_response("200 OK" if "error" not in out else "400 Bad Request",
                       [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
        return [data]

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO", "").startswith("/_sandbox/"):
            return self._control(environ, start_response)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        req = Request(environ, body)
        if self.realism is not None:
            answer = self.realism.before(req)
            if getattr(req, "new_body", None) is not None:  # the layer corrected what moto would mishandle
                environ["wsgi.input"] = io.BytesIO(req.new_body)
                environ["CONTENT_LENGTH"] = str(len(req.new_body))
            if answer is not None:
                status, headers, payload, code, injected = answer
                if status == "DROP":  # a dropped connection: the client reads no response at all
                    self._log(req, 0, code, injected)
                    start_response("500 Internal Server Error", [("Content-Length", "0")])
                    sock = environ.get("werkzeug.socket")
                    if sock is not None:
                        try:
                            sock.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                    return []
                self._log(req, int(status.split()[0]), code, injected)
                start_response(status, headers)
                return [payload]
        captured = {}

        def _start(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, headers
            return start_response(status, headers, exc_info)

        # moto's backends are not thread-safe: a list serialized while another request deletes from it fails
        # with "dictionary changed size during iteration" and a 500 AWS never gives for that. One request at a
        # time through moto; the realism layer's delays and faults stay outside the lock.
        with self._moto_lock:
            late = self.realism.atomic(req) if self.realism is not None else None
            if late is not None:  # a refusal that must see moto's state as this request finds it
                status, headers, payload, code, injected = late
                self._log(req, int(status.split()[0]), code, injected)
                start_response(status, headers)
                return [payload]
            chunks = b"".join(self.app(environ, _start))
        status = int(captured.get("status", "500").split()[0])
        if self.realism is not None:
            self.realism.after(req, status, chunks)
        code = None
        if status >= 400:
            m = _ERR_CODE_XML.search(chunks)
            if m:
                code = m.group(1).decode()
            else:
                try:
                    code = json.loads(chunks).get("__type", "").split("#")[-1] or None
                except ValueError:
                    code = None
        self._log(req, status, code)
        return [chunks]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--state", required=True, help="folder for the realism layer's knobs")
    args = ap.parse_args()
    from moto.server import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server
    try:
        from . import realism as realism_mod
        realism = realism_mod.Realism(args.state)
    except ImportError:
        realism = None
    app = Layer(DomainDispatcherApplication(create_backend_app), args.log, realism)
    if realism is not None:
        realism.attach(app)
    open(args.log, "a").close()  # the log exists from the start: an empty log means "no request yet"
    server = make_server("127.0.0.1", args.port, app, threaded=True)
    print(f"aws layer listening on 127.0.0.1:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
