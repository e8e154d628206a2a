#!/usr/bin/env python3
"""A stand-in for the PetSpot backend's `POST /announcements` (SPEC §8), for tests.

It listens on loopback, records every request it receives, stores each
announcement once per Idempotency-Key (a repeated key answers 409 with the
first answer's id, as the real backend de-duplicates), and can be told to
misbehave. Everything it knows is in files under --dir, so tests read it
without a client:

    DIR/port               the TCP port, written once listening
    DIR/plan.json          what to do (re-read whenever it changes; see below)
    DIR/requests.jsonl     one JSON line per request: n, method, path, headers,
                           key, bytes (body length read), action, outcome
    DIR/stored/KEY/        one folder per stored announcement: announcement.json
                           (the part's bytes), photo.bin (the part's bytes),
                           body.bin (the whole request body), parts.json
                           (each part's headers, and the backend id given)

plan.json: {"sequence": [ACTION, ...], "default": ACTION}. Each request to
/announcements takes the next ACTION of the sequence (writing a new plan
starts the sequence over), then the default ({"status": 201}). ACTION:

    {"status": N}                    answer N (a 2xx stores the report)
    {"status": 429, "retryAfter": S} answer with a Retry-After header
    {"do": "reset"}                  read part of the body, then reset the connection
    {"do": "slow", "seconds": S}     store, then wait S seconds before answering 201
    {"do": "hold"}                   store, then wait until DIR/release exists (at most 120 s)
    {"do": "stall"}                  read part of the body, then wait until DIR/release exists
    {"do": "huge"}                   answer 201 with a 2 GB body (sent until the client leaves)
    {"do": "garbage"}                answer bytes that are not HTTP
    {"do": "redirect", "location": URL, "status": 307}
                                     (the Location header goes out as the URL's UTF-8 bytes,
                                     control characters included)
    {"do": "trickle", "bytes": N, "interval": S, "status": 201}
                                     store, answer the status with a body of N bytes (the JSON
                                     {"id"} padded with spaces) sent one byte every S seconds,
                                     until it is all sent or the client leaves; then a line
                                     {"n", "sent", "bytes", "clientLeft"} in DIR/trickles.jsonl

--token T: requests without "Authorization: Bearer T" answer 401.
--light: for benchmarks: no requests.jsonl and no stored files, only the
de-duplication (in memory).
Stops by itself after --lifetime seconds (default 900).
"""

import argparse
import json
import os
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 64 << 20


class State:
    def __init__(self, directory, token, light=False):
        self.light = light
        self.directory = directory
        self.token = token
        self.lock = threading.Lock()
        self.count = 0
        self.plan_stamp = None
        self.sequence = []
        self.default = {"status": 201}
        self.stored = {}  # key -> backend id
        os.makedirs(os.path.join(directory, "stored"), exist_ok=True)

    def next_action(self):
        path = os.path.join(self.directory, "plan.json")
        with self.lock:
            self.count += 1
            number = self.count
            try:
                stat = os.stat(path)
                stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
            except FileNotFoundError:
                stamp = None
            if stamp != self.plan_stamp:
                self.plan_stamp = stamp
                plan = {}
                if stamp is not None:
                    with open(path) as handle:
                        plan = json.load(handle)
                self.sequence = list(plan.get("sequence", []))
                self.default = plan.get("default", {"status": 201})
            action = self.sequence.pop(0) if self.sequence else self.default
            return number, dict(action)

    def record(self, entry):
        if self.light:
            return
        with self.lock:
            with open(os.path.join(self.directory, "requests.jsonl"), "a") as handle:
                handle.write(json.dumps(entry, sort_keys=True) + "\n")
                handle.flush()

    def store(self, key, parts, body):
        """Stores the parts under KEY once; returns (backend id, duplicate)."""
        with self.lock:
            if key in self.stored:
                return self.stored[key], True
            backend_id = "srv-%d" % (len(self.stored) + 1)
            if self.light:
                self.stored[key] = backend_id
                return backend_id, False
            folder = os.path.join(self.directory, "stored", key)
            os.makedirs(folder, exist_ok=True)
            headers = []
            for part in parts:
                headers.append({"headers": part["headers"], "name": part["name"], "filename": part["filename"]})
                if part["name"] == "announcement":
                    with open(os.path.join(folder, "announcement.json"), "wb") as handle:
                        handle.write(part["data"])
                elif part["name"] == "photo":
                    with open(os.path.join(folder, "photo.bin"), "wb") as handle:
                        handle.write(part["data"])
            with open(os.path.join(folder, "body.bin"), "wb") as handle:
                handle.write(body)
            with open(os.path.join(folder, "parts.json"), "w") as handle:
                json.dump({"id": backend_id, "parts": headers}, handle, sort_keys=True)
            self.stored[key] = backend_id
            return backend_id, False


def parse_multipart(content_type, body):
    """Splits a multipart/form-data body; returns the parts or raises ValueError."""
    fields = [field.strip() for field in content_type.split(";")]
    if fields[0].lower() != "multipart/form-data":
        raise ValueError("not multipart/form-data: %r" % content_type)
    boundary = None
    for field in fields[1:]:
        if field.lower().startswith("boundary="):
            boundary = field[len("boundary="):].strip('"')
    if not boundary:
        raise ValueError("no boundary")
    delimiter = b"--" + boundary.encode()
    if not body.startswith(delimiter):
        raise ValueError("body does not start with the boundary")
    chunks = body.split(b"\r\n" + delimiter)
    first = chunks[0][len(delimiter):]
    chunks = [first] + chunks[1:]
    if not chunks[-1].startswith(b"--"):
        raise ValueError("no closing boundary")
    parts = []
    for chunk in chunks[:-1]:
        if not chunk.startswith(b"\r\n"):
            raise ValueError("malformed part start")
        head, separator, data = chunk[2:].partition(b"\r\n\r\n")
        if not separator:
            raise ValueError("part without a blank line")
        headers = {}
        for line in head.split(b"\r\n"):
            name, _, value = line.decode("utf-8").partition(":")
            headers[name.strip().lower()] = value.strip()
        disposition = headers.get("content-disposition", "")
        name = filename = None
        for item in disposition.split(";")[1:]:
            key, _, value = item.strip().partition("=")
            value = value.strip('"')
            if key == "name":
                name = value
            elif key == "filename":
                filename = value
        parts.append({"headers": headers, "name": name, "filename": filename, "data": data})
    return parts


def make_handler(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            # Headers and body go out in separate writes: without this, Nagle
            # and the client's delayed ACK add 40 ms to every answer.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format, *args):
            pass

        def answer(self, status, payload=None, headers=None):
            body = json.dumps(payload).encode() if payload is not None else b""
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

        def reset(self):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True

        def wait_for_release(self, limit=120):
            deadline = time.time() + limit
            release = os.path.join(state.directory, "release")
            while time.time() < deadline and not os.path.exists(release):
                time.sleep(0.05)

        def do_GET(self):
            self.answer(200 if self.path == "/health" else 404, {"ok": self.path == "/health"})

        def do_POST(self):
            number, action = state.next_action() if self.path.endswith("/announcements") else (0, {})
            key = self.headers.get("Idempotency-Key", "")
            entry = {
                "n": number, "method": "POST", "path": self.path, "key": key, "action": action,
                "headers": {name.lower(): value for name, value in self.headers.items()},
                "time": time.time(),
            }
            length = int(self.headers.get("Content-Length", "-1"))
            if not self.path.endswith("/announcements"):
                entry["outcome"] = "not found"
                state.record(entry)
                return self.answer(404, {"error": "not found"})
            if length < 0 or length > MAX_BODY:
                entry["outcome"] = "bad length"
                state.record(entry)
                self.close_connection = True
                return self.answer(411, {"error": "Content-Length required"})
            what = action.get("do")
            if what in ("reset", "stall"):
                self.rfile.read(max(1, length // 2))
                entry["bytes"] = max(1, length // 2)
                entry["outcome"] = what
                state.record(entry)
                if what == "stall":
                    self.wait_for_release()
                return self.reset()
            body = self.rfile.read(length)
            entry["bytes"] = len(body)
            if state.token is not None and self.headers.get("Authorization") != "Bearer " + state.token:
                entry["outcome"] = "unauthorized"
                state.record(entry)
                return self.answer(401, {"error": "bad token"})
            if what == "garbage":
                entry["outcome"] = "garbage"
                state.record(entry)
                self.wfile.write(b"\x00\x01 this is not HTTP \xff\xfe\r\n\r\n")
                self.wfile.flush()
                return self.reset()
            if what == "redirect":
                entry["outcome"] = "redirect"
                state.record(entry)
                # http.server writes header values as Latin-1: this puts the URL's UTF-8 bytes on the wire.
                location = action["location"].encode("utf-8").decode("latin-1")
                return self.answer(action.get("status", 307), {}, {"Location": location})
            status = action.get("status", 201)
            if what is None and not 200 <= status < 300:
                entry["outcome"] = "status %d" % status
                state.record(entry)
                headers = {"Retry-After": str(action["retryAfter"])} if "retryAfter" in action else {}
                return self.answer(status, {"error": "told to fail with %d" % status}, headers)
            try:
                parts = parse_multipart(self.headers.get("Content-Type", ""), body)
                names = sorted(part["name"] or "" for part in parts)
                if names != ["announcement", "photo"]:
                    raise ValueError("parts are %r" % names)
                json.loads(next(p for p in parts if p["name"] == "announcement")["data"])
            except (ValueError, StopIteration) as error:
                entry["outcome"] = "malformed: %s" % error
                state.record(entry)
                return self.answer(400, {"error": str(error)})
            backend_id, duplicate = state.store(key, parts, body)
            entry["outcome"] = "duplicate" if duplicate else "stored"
            entry["backendId"] = backend_id
            state.record(entry)
            if what == "slow":
                time.sleep(float(action.get("seconds", 5)))
            elif what == "hold":
                self.wait_for_release()
            if duplicate:
                return self.answer(409, {"id": backend_id, "error": "duplicate Idempotency-Key"})
            if what == "huge":
                return self.huge()
            if what == "trickle":
                return self.trickle(number, status, backend_id, action)
            return self.answer(status, {"id": backend_id})

        def trickle(self, number, status, backend_id, action):
            size = int(action.get("bytes", 400))
            interval = float(action.get("interval", 0.3))
            body = json.dumps({"id": backend_id}).encode()
            body = body + b" " * max(0, size - len(body))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.flush()
            sent = 0
            left = False
            try:
                while sent < len(body):
                    time.sleep(interval)
                    self.wfile.write(body[sent:sent + 1])
                    self.wfile.flush()
                    sent += 1
            except OSError:
                left = True
            self.close_connection = True
            if not state.light:
                with state.lock:
                    with open(os.path.join(state.directory, "trickles.jsonl"), "a") as handle:
                        handle.write(json.dumps(
                            {"n": number, "sent": sent, "bytes": len(body), "clientLeft": left}, sort_keys=True) + "\n")

        def huge(self):
            self.send_response(201)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(2 << 30))
            self.end_headers()
            chunk = b" " * 65536
            sent = 0
            try:
                while sent < (2 << 30):
                    self.wfile.write(chunk)
                    sent += len(chunk)
            except OSError:
                pass
            self.close_connection = True

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token")
    parser.add_argument("--lifetime", type=float, default=900)
    parser.add_argument("--light", action="store_true")
    arguments = parser.parse_args()
    state = State(arguments.dir, arguments.token, arguments.light)
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), make_handler(state))
    port_file = os.path.join(arguments.dir, "port")
    with open(port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    timer = threading.Timer(arguments.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
