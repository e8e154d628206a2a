#!/usr/bin/env python3
"""A local user at the kiosk's TCP port, benign or hostile (the kiosk's
hostile tests, Tests/PetSpotIntegrationTests/KioskHostileTests.swift).

Run as any uid (setpriv). Every scenario prints one JSON object on stdout
and exits 0 when it could run at all; the test decides what the figures
mean. Bounds: every wait has a 30 s guard, so nothing hangs.

    kiosk_client.py PORT visit            start, photo, continue, GPS: what each step answered
    kiosk_client.py PORT hold N           N connections that send half a request and wait;
                                          prints how many the kiosk closed (waiting up to 60 s
                                          for all), then holds the rest until stdin closes
    kiosk_client.py PORT tokenless-upload a 10 MiB upload announced with no token: is it
                                          answered before its body is sent?
    kiosk_client.py PORT parallel-uploads N   N 10 MiB uploads of one visit at once, bodies
                                          held back: the answers that come while the bodies
                                          wait (until only 1 is unanswered, or 30 s)
    kiosk_client.py PORT gps-flood N      N GPS taps of one visit at once: outcomes by kind
    kiosk_client.py PORT evict N          a visit started, then N cookie-less GET /: is the
                                          visit still there?
"""

import http.client
import json
import re
import resource
import select
import selectors
import socket
import struct
import sys
import threading
import time
import zlib

GUARD = 30


def _png():
    """A minimal PNG: 640×480, one IDAT of zeros, IEND."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 640, 480, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + b"\x00" * (640 * 3) for _ in range(480)))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


PNG = _png()


class Refused(Exception):
    pass


def connect(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=GUARD)


def request(port, method, path, body=None, headers=None, cookie=None):
    """One request on a new connection: (status, headers, body); Refused when
    the kiosk closed the connection or answered 403 before any page."""
    headers = dict(headers or {})
    if cookie:
        headers["Cookie"] = "petspot_visit=" + cookie
    connection = connect(port)
    try:
        connection.request(method, path, body=body, headers=headers)
        answer = connection.getresponse()
        data = answer.read()
    except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine, OSError) as error:
        raise Refused(type(error).__name__)
    finally:
        connection.close()
    text = data.decode("utf-8", "replace")
    if answer.status == 403 and text.startswith("403 this kiosk serves"):
        raise Refused("403")  # the kiosk's answer to a connection it does not serve
    return answer.status, answer, text


def cookie_of(answer):
    match = re.search(r"petspot_visit=([^;]*)", answer.getheader("Set-Cookie") or "")
    return match.group(1) if match else None


def token_of(page):
    match = re.search(r'data-csrf="([^"]*)"', page)
    return match.group(1) if match else ""


def start(port):
    """Taps "Report a found pet": (cookie, token of the photo page)."""
    status, answer, _ = request(port, "POST", "/start", body="lang=en",
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
    cookie = cookie_of(answer)
    status, _, page = request(port, "GET", "/report/photo", cookie=cookie)
    return cookie, token_of(page), status


def multipart(fields, file_bytes):
    boundary = "----kiosk-client-boundary"
    parts = []
    for name, value in fields:
        parts.append(("--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n"
                      % (boundary, name, value)).encode())
    parts.append(("--%s\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"found.png\"\r\n"
                  "Content-Type: image/png\r\n\r\n" % boundary).encode() + file_bytes + b"\r\n")
    parts.append(("--%s--\r\n" % boundary).encode())
    return b"".join(parts), "multipart/form-data; boundary=" + boundary


def to_details(port):
    """A visit with a photo, on the details step: (cookie, token)."""
    cookie, token, _ = start(port)
    body, content_type = multipart([], PNG)
    request(port, "POST", "/report/photo?_csrf=" + token, body=body,
            headers={"Content-Type": content_type}, cookie=cookie)
    request(port, "POST", "/report/photo/continue?_csrf=" + token, body="",
            headers={"Content-Type": "application/x-www-form-urlencoded"}, cookie=cookie)
    status, _, page = request(port, "GET", "/report/details", cookie=cookie)
    return cookie, token_of(page), status


def gps(port, cookie, token):
    status, _, body = request(
        port, "POST", "/report/details?_csrf=" + token, body="action=gps",
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}, cookie=cookie)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {"page": body[:200]}


def scenario_visit(port):
    result = {}
    try:
        status, _, page = request(port, "GET", "/")
        result["welcome"] = status
        result["welcomeHasButton"] = "welcome.start" in page or "/start" in page
    except Refused as refusal:
        result["welcome"] = "refused: %s" % refusal
    try:
        cookie, token, status = to_details(port)
        result["details"] = status
        result["gps"] = gps(port, cookie, token)
    except Refused as refusal:
        result["details"] = "refused: %s" % refusal
    return result


def scenario_hold(port, count):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 64)), hard))
    sockets = []
    closed = 0
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=GUARD)
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest
        except OSError:
            closed += 1  # already closed by the kiosk
            continue
        sockets.append(s)
    # A refused connection is answered and closed at once; a served one waits for the rest.
    watcher = selectors.DefaultSelector()
    for s in sockets:
        watcher.register(s, selectors.EVENT_READ)
    pending = len(sockets)
    deadline = time.monotonic() + 60
    while pending and time.monotonic() < deadline:
        events = watcher.select(timeout=1)
        for key, _ in events:
            try:
                data = key.fileobj.recv(4096)
            except OSError:
                data = b""
            if not data or b"403" in data or b"503" in data:
                closed += 1
            watcher.unregister(key.fileobj)
            pending -= 1
    print(json.dumps({"opened": count, "closedByKiosk": closed}), flush=True)
    sys.stdin.read()  # hold the rest until the test is done
    return None


def scenario_tokenless_upload(port):
    cookie, token, _ = start(port)
    s = socket.create_connection(("127.0.0.1", port), timeout=GUARD)
    s.sendall(("POST /report/photo HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: petspot_visit=%s\r\n"
               "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: %d\r\n\r\n"
               % (cookie, 10 << 20)).encode())
    readable, _, _ = select.select([s], [], [], GUARD)
    status = None
    if readable:
        head = s.recv(4096).decode("latin-1")
        status = int(head.split(" ")[1]) if head.startswith("HTTP/1.1 ") else head[:40]
    s.close()
    return {"answeredBeforeBody": status}


def scenario_parallel_uploads(port, count, admitted=1):
    cookie, token, _ = start(port)
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=GUARD)
        s.sendall(("POST /report/photo?_csrf=%s HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: petspot_visit=%s\r\n"
                   "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: %d\r\n\r\n"
                   % (token, cookie, 10 << 20)).encode() + b"x" * 65536)
        sockets.append(s)
    statuses = []
    pending = list(sockets)
    # The refused ones are answered without their bodies; the admitted ones wait for theirs. Waits
    # until at most `admitted` are unanswered (a kiosk that admits more shows fewer answers at the guard).
    deadline = time.monotonic() + GUARD
    while len(pending) > admitted and time.monotonic() < deadline:
        readable, _, _ = select.select(pending, [], [], 1)
        for s in readable:
            head = s.recv(4096).decode("latin-1")
            statuses.append(int(head.split(" ")[1]) if head.startswith("HTTP/1.1 ") else 0)
            pending.remove(s)
    for s in sockets:
        s.close()
    return {"answeredAtOnce": statuses}


def scenario_gps_flood(port, count):
    cookie, token, status = to_details(port)
    outcomes = []
    lock = threading.Lock()

    def tap():
        try:
            answer = gps(port, cookie, token)
        except Refused as refusal:
            answer = (0, {"outcome": "refused: %s" % refusal})
        with lock:
            outcomes.append(answer)

    threads = [threading.Thread(target=tap) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(GUARD)
    kinds = {}
    for _, answer in outcomes:
        kind = answer.get("outcome", "page")
        if kind == "filled":
            kind = "filled"
        elif "message" in answer and "busy" in answer["message"]:
            kind = "busy"
        kinds[kind] = kinds.get(kind, 0) + 1
    return {"details": status, "taps": len(outcomes), "kinds": kinds}


def scenario_evict(port, count):
    cookie, token, _ = start(port)
    body, content_type = multipart([], PNG)
    request(port, "POST", "/report/photo?_csrf=" + token, body=body,
            headers={"Content-Type": content_type}, cookie=cookie)
    for _ in range(count):
        request(port, "GET", "/")
    status, answer, page = request(port, "GET", "/report/photo", cookie=cookie)
    return {"photoStep": status, "stillThere": status == 200 and "animalPhoto.remove" in page,
            "location": answer.getheader("Location")}


def main():
    port = int(sys.argv[1])
    name = sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    result = {
        "visit": lambda: scenario_visit(port),
        "hold": lambda: scenario_hold(port, count),
        "tokenless-upload": lambda: scenario_tokenless_upload(port),
        "parallel-uploads": lambda: scenario_parallel_uploads(port, count),
        "gps-flood": lambda: scenario_gps_flood(port, count),
        "evict": lambda: scenario_evict(port, count),
    }[name]()
    if result is not None:
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
