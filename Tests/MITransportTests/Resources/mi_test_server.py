#!/usr/bin/env python3
"""A small stand-in for mi-server, for MITransport's tests (Python 3 standard library only).

It implements the routes of openapi.yaml well enough to test the client, and can be told to
misbehave. Usage:

    mi_test_server.py --control control.json --log requests.jsonl [--cert cert.pem --key key.pem]

It listens on 127.0.0.1 on a free port, prints the port on stdout, and runs until stdin closes
(so it never outlives the test that started it) or it is terminated.

The control file (JSON, read again on every request; missing means {}):

    {"routes": {"PUT /api/v1/submissions/{id}": [B0, B1, ...]}, "maxUploadBytes": N}

The n-th request to "METHOD PATH" gets behaviour Bn (the last one repeats). A behaviour is
"normal" (the contract's answer) or an object:
    {"status": 503, "message": "...", "retryAfter": "1"}  a JSON error body (with Retry-After)
    {"status": 200, "html": true}                         a proxy's HTML page
    {"status": 200, "body": "...", "contentType": "..."}  any body
    {"hangSeconds": 5}                                    say nothing for that long, then close
    {"drop": true}                                        close the connection without answering
    {"slowBody": 5}                                       200 headers, then one byte and silence

Every request is logged as one JSON line: method, path, status, headers of interest, part hashes.
"""

import argparse
import hashlib
import http.server
import json
import os
import re
import socketserver
import ssl
import sys
import threading
import time
from datetime import datetime, timezone

USERS = {
    "ana": {"password": "secret", "displayName": "Ana Pérez", "role": "technician"},
    "fred": {"password": "secret", "displayName": "Fred Foreman", "role": "foreman"},
}
TEMPLATE = json.dumps({"id": "pump", "title": "Pump", "version": 3, "questions": []}).encode()
TEMPLATES = {"pump": TEMPLATE}
HTML_PAGE = b"<!DOCTYPE html><html><body><h1>Welcome to the hotel Wi-Fi</h1></body></html>"


def iso_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class State:
    def __init__(self, control_path, log_path):
        self.control_path = control_path
        self.log_path = log_path
        self.lock = threading.Lock()
        self.counts = {}
        self.tokens = {}
        self.submissions = {}  # id -> (frozenset((name, sha256)), receipt)

    def control(self):
        try:
            with open(self.control_path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def behaviour(self, key):
        with self.lock:
            index = self.counts.get(key, 0)
            self.counts[key] = index + 1
        script = self.control().get("routes", {}).get(key)
        if not script:
            return "normal"
        return script[min(index, len(script) - 1)]

    def log(self, entry):
        with self.lock:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mi-test-server/1"

    def log_message(self, format, *args):  # quiet
        pass

    def setup(self):
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(10)
            self.request.do_handshake()  # fails here when the client rejects the certificate
            self.request.settimeout(None)
        super().setup()

    @property
    def state(self):
        return self.server.state

    # -- plumbing ------------------------------------------------------------------------

    def route_path(self):
        """The path as routes are named: a form's id in a submission's path is `{id}`."""
        path = self.path.split("?")[0]
        return re.sub(r"^/api/v1/submissions/[^/]+$", "/api/v1/submissions/{id}", path)

    def route_key(self):
        return f"{self.command} {self.route_path()}"

    def entry(self, status, **extra):
        entry = {
            "method": self.command,
            "path": self.path,
            "route": self.route_path(),
            "status": status,
            "userAgent": self.headers.get("User-Agent"),
            "authorization": self.headers.get("Authorization"),
            "expect": self.headers.get("Expect"),
            "contentLength": self.headers.get("Content-Length"),
            "time": time.time(),
        }
        entry.update(extra)
        self.state.log(entry)

    def send_body(self, status, body, content_type="application/json", headers=None, **log):
        self.entry(status, **log)  # before answering, so the log is complete when the client has the answer
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def send_json(self, status, value, headers=None, **log):
        self.send_body(status, json.dumps(value).encode(), headers=headers, **log)

    def send_error_json(self, status, message, headers=None, **log):
        self.send_json(status, {"error": {"message": message}}, headers=headers, **log)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def max_upload(self):
        return int(self.state.control().get("maxUploadBytes", 1 << 40))

    def too_large_message(self, length, limit):
        return f"the upload of {length} bytes is larger than the server's limit of {limit} bytes"

    def handle_expect_100(self):
        length = int(self.headers.get("Content-Length") or 0)
        limit = self.max_upload()
        if self.command in ("POST", "PUT") and length > limit:
            self.close_connection = True
            self.send_error_json(413, self.too_large_message(length, limit), headers={"Connection": "close"},
                                 atExpect=True)
            return False
        return super().handle_expect_100()

    def user(self):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return None
        return self.state.tokens.get(auth[len("Bearer "):])

    # -- dispatch ------------------------------------------------------------------------

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def dispatch(self):
        behaviour = self.state.behaviour(self.route_key())
        if behaviour == "normal":
            return self.normal()
        if behaviour.get("hangSeconds"):
            time.sleep(float(behaviour["hangSeconds"]))
            self.close_connection = True
            self.entry(0, hung=True)
            return
        body = self.read_body() if self.command == "POST" else b""
        if behaviour.get("drop"):
            self.close_connection = True
            self.entry(0, dropped=True)
            return
        if behaviour.get("slowBody"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"{")
            self.wfile.flush()
            self.entry(200, slow=True)
            time.sleep(float(behaviour["slowBody"]))
            self.close_connection = True
            return
        status = int(behaviour.get("status", 200))
        headers = {}
        if "retryAfter" in behaviour:
            headers["Retry-After"] = str(behaviour["retryAfter"])
        if behaviour.get("html"):
            return self.send_body(status, HTML_PAGE, "text/html; charset=utf-8", headers, bodyLength=len(body))
        if "body" in behaviour:
            return self.send_body(status, behaviour["body"].encode(), behaviour.get("contentType", "application/json"),
                                  headers, bodyLength=len(body))
        message = behaviour.get("message", f"scripted failure {status}")
        return self.send_error_json(status, message, headers=headers, bodyLength=len(body))

    def normal(self):
        path = self.path.split("?")[0]
        if self.command == "GET" and path == "/health":
            return self.send_json(200, {"status": "ok"})
        if self.command == "POST" and path == "/api/v1/session":
            return self.session()
        user = self.user()
        if self.command == "POST" and path == "/api/v1/submissions":
            return self.submit(user)
        if self.command == "PUT" and re.fullmatch(r"/api/v1/submissions/[^/]+", path):
            return self.submit(user)
        if user is None:
            if self.command == "POST":
                self.read_body()
            return self.send_error_json(401, "session expired or invalid — run `mi login`")
        if self.command == "GET" and path == "/api/v1/templates":
            listing = [{"id": key, "title": "Pump", "version": 3, "sha256": hashlib.sha256(value).hexdigest()}
                       for key, value in sorted(TEMPLATES.items())]
            return self.send_json(200, listing)
        match = re.fullmatch(r"/api/v1/templates/([^/]+)", path)
        if self.command == "GET" and match:
            data = TEMPLATES.get(match.group(1))
            if data is None:
                return self.send_error_json(404, f"there is no template {match.group(1)}")
            etag = '"' + hashlib.sha256(data).hexdigest() + '"'
            return self.send_body(200, data, headers={"ETag": etag})
        match = re.fullmatch(r"/api/v1/submissions/([^/]+)", path)
        if self.command == "GET" and match:
            stored = self.state.submissions.get(match.group(1).lower())
            if stored is None:
                return self.send_error_json(404, "there is no submission with this id")
            return self.send_json(200, stored[1])
        return self.send_error_json(404, f"no route {self.command} {path}")

    def session(self):
        try:
            credentials = json.loads(self.read_body())
            name, password = credentials["user"], credentials["password"]
        except (ValueError, KeyError, TypeError):
            return self.send_error_json(400, "the body must be {\"user\": …, \"password\": …}")
        user = USERS.get(name)
        if user is None or not password or password != user["password"]:
            return self.send_error_json(401, "wrong user name or password")
        token = f"tok-{name}-{len(self.state.tokens)}"
        self.state.tokens[token] = name
        return self.send_json(200, {"token": token, "user": name, "displayName": user["displayName"],
                                    "role": user["role"], "expiresAt": "2030-01-01T08:00:00Z"})

    def submit(self, user):
        length = int(self.headers.get("Content-Length") or 0)
        limit = self.max_upload()
        body = self.read_body()
        if user is None:
            return self.send_error_json(401, "session expired or invalid — run `mi login`")
        if USERS[user]["role"] != "foreman":
            return self.send_error_json(403, "only a foreman can upload forms")
        if max(length, len(body)) > limit:
            return self.send_error_json(413, self.too_large_message(len(body), limit))
        match = re.search(r'boundary="?([^";]+)"?', self.headers.get("Content-Type", ""))
        if not match:
            return self.send_error_json(400, "expected multipart/form-data with a boundary")
        parts = parse_multipart(body, match.group(1).encode())
        if not parts or parts[0]["name"] != "form" or parts[0]["filename"] != "form.json":
            return self.send_error_json(400, "the first part must be the form (form.json)")
        try:
            form = json.loads(parts[0]["data"])
            form_id = str(form["id"]).lower()
        except (ValueError, KeyError, TypeError):
            return self.send_error_json(400, "form.json is not a form")
        stored_parts = [{"name": p["name"], "filename": p["filename"], "size": len(p["data"]),
                         "sha256": hashlib.sha256(p["data"]).hexdigest()} for p in parts]
        log = {"parts": stored_parts, "contentTypes": [p["contentType"] for p in parts]}
        fingerprint = frozenset((p["name"], p["sha256"]) for p in stored_parts)
        with self.state.lock:
            existing = self.state.submissions.get(form_id)
            if existing is None:
                receipt = {"id": form_id, "user": form.get("user", "ana"), "formName": form.get("name", "?"),
                           "uploadedBy": user, "receivedAt": iso_now(), "parts": stored_parts}
                self.state.submissions[form_id] = (fingerprint, receipt)
        if existing is None:
            return self.send_json(201, receipt, **log)
        if existing[0] == fingerprint:
            return self.send_json(200, existing[1], **log)
        return self.send_error_json(409, f"form {form_id} was already uploaded with different content", **log)


def parse_multipart(body, boundary):
    delimiter = b"--" + boundary
    parts = []
    position = body.find(delimiter)
    while position >= 0:
        start = position + len(delimiter)
        if body[start:start + 2] == b"--":
            break
        start = body.find(b"\r\n", start) + 2
        header_end = body.find(b"\r\n\r\n", start)
        if header_end < 0:
            break
        headers = body[start:header_end].decode("utf-8", "replace")
        next_position = body.find(b"\r\n" + delimiter, header_end + 4)
        if next_position < 0:
            break
        data = body[header_end + 4:next_position]
        name = re.search(r'\bname="([^"]*)"', headers)
        filename = re.search(r'\bfilename="([^"]*)"', headers)
        content_type = re.search(r"(?im)^content-type:\s*(\S+)", headers)
        parts.append({"name": name.group(1) if name else "", "filename": filename.group(1) if filename else "",
                      "contentType": content_type.group(1) if content_type else "", "data": data})
        position = next_position + 2
    return parts


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):  # refused handshakes, dropped clients: expected
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--control", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    arguments = parser.parse_args()

    server = Server(("127.0.0.1", 0), Handler)
    server.state = State(arguments.control, arguments.log)
    if arguments.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.cert, arguments.key)
        # The handshake happens in the request's thread, so a client that rejects the
        # certificate cannot block the server.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(server.server_address[1], flush=True)

    def watch_stdin():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
