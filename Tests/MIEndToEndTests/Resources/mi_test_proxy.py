#!/usr/bin/env python3
"""A TCP proxy between `mi` and the real mi-server that breaks what a poor link breaks.

    mi_test_proxy.py --target PORT [--drop-final-responses N] [--corrupt-patches N] [--pad-receipts N]
                     [--stub-returned FILE] --log events.jsonl

It listens on 127.0.0.1 on a free port, prints the port on stdout and runs until stdin closes.
  --drop-final-responses N  the first N final answers to PUT requests never reach the client:
                            the connection is closed instead (a `100 Continue` still passes), as
                            when a link dies after the server stored the upload
  --corrupt-patches N       in the first N PATCH requests, one body byte (the 100th) is flipped
                            on its way to the server, as a faulty link would
  --pad-receipts N          the first N receipts (200/201 answers to PUT) reach the client with
                            one more part listed, "Qid9(1).jpg", that the client never sent, as a
                            server that lies about what it holds would answer
  --stub-returned FILE      while FILE exists, GET /api/v1/returned is answered with FILE's bytes
                            (read at each request), closing the connection after, as a
                            misbehaving server would; without FILE it goes to mi-server.
Each drop, corruption, stubbed answer and request line is logged as one JSON line.
"""

import argparse
import json
import os
import re
import socket
import sys
import threading


class Proxy:
    def __init__(self, args):
        self.target = args.target
        self.lock = threading.Lock()
        self.drops = args.drop_final_responses
        self.corruptions = args.corrupt_patches
        self.pads = args.pad_receipts
        self.stub_returned = args.stub_returned
        self.log_file = open(args.log, "a", buffering=1)

    def log(self, **event):
        with self.lock:
            self.log_file.write(json.dumps(event) + "\n")

    def take(self, name):
        with self.lock:
            left = getattr(self, name)
            if left > 0:
                setattr(self, name, left - 1)
                return True
            return False

    def serve(self, client):
        try:
            server = socket.create_connection(("127.0.0.1", self.target))
        except OSError:
            client.close()
            return
        connection = {"method": None, "closed": False}
        threading.Thread(target=self.upstream, args=(client, server, connection), daemon=True).start()
        self.downstream(server, client, connection)

    def upstream(self, client, server, connection):
        """Client to server: notes each request's method; flips a byte in chosen PATCH bodies."""
        pending = b""
        corrupting = False
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                if not corrupting and data[:8].split(b" ")[0] in (b"GET", b"HEAD", b"POST", b"PUT", b"PATCH", b"DELETE", b"OPTIONS"):
                    method = data.split(b" ")[0].decode()
                    connection["method"] = method
                    self.log(event="request", line=data.split(b"\r\n")[0].decode("latin-1"))
                    if self.stub_returned and os.path.exists(self.stub_returned) and re.match(rb"GET /api/v1/returned[ ?]", data):
                        self.answer_returned(client)
                        break
                    if method == "PATCH" and self.take("corruptions"):
                        corrupting = True
                if corrupting:
                    pending += data
                    end = pending.find(b"\r\n\r\n")
                    if end < 0 or len(pending) < end + 4 + 101:
                        continue
                    flipped = bytearray(pending)
                    flipped[end + 4 + 100] ^= 0xFF
                    self.log(event="corrupted")
                    data, pending, corrupting = bytes(flipped), b"", False
                server.sendall(data)
        except OSError:
            pass
        finally:
            try:
                server.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def answer_returned(self, client):
        """The stub's answer to GET /api/v1/returned: FILE's bytes (404 if it vanished meanwhile)."""
        try:
            with open(self.stub_returned, "rb") as handle:
                status, body = b"200 OK", handle.read()
        except OSError:
            status, body = b"404 Not Found", b'{"error":{"message":"no such route"}}'
        self.log(event="stubbed", status=status.decode())
        client.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        client.shutdown(socket.SHUT_RDWR)

    @staticmethod
    def padded(data, server):
        """The whole response starting in `data`, its receipt listing one part more."""
        while b"\r\n\r\n" not in data:
            data += server.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1))
        while len(body) < length:
            body += server.recv(65536)
        body, rest = body[:length], body[length:]
        receipt = json.loads(body)
        receipt["parts"].append({"name": "Qid9(1).jpg", "filename": "Qid9(1).jpg", "size": 3, "sha256": "0" * 64})
        body = json.dumps(receipt).encode()
        head = re.sub(rb"(?im)^content-length:\s*\d+", b"Content-Length: %d" % len(body), head)
        return head + b"\r\n\r\n" + body + rest

    def downstream(self, server, client, connection):
        """Server to client: a chosen PUT's final answer is swallowed and the connection cut."""
        try:
            while True:
                data = server.recv(65536)
                if not data:
                    break
                interim = data.startswith(b"HTTP/1.1 100")
                if connection["method"] == "PUT" and not interim and self.take("drops"):
                    self.log(event="dropped", status=data.split(b"\r\n")[0].decode("latin-1"))
                    break
                if connection["method"] == "PUT" and data.startswith(b"HTTP/1.1 20") and self.take("pads"):
                    data = self.padded(data, server)
                    self.log(event="padded")
                client.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (client, server):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", type=int, required=True)
    parser.add_argument("--drop-final-responses", type=int, default=0)
    parser.add_argument("--corrupt-patches", type=int, default=0)
    parser.add_argument("--pad-receipts", type=int, default=0)
    parser.add_argument("--stub-returned")
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    proxy = Proxy(args)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)

    def accept():
        while True:
            client, _ = listener.accept()
            threading.Thread(target=proxy.serve, args=(client,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
