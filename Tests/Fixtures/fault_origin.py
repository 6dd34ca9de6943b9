#!/usr/bin/env python3
"""A scriptable HTTP/1.1 origin for Sluice's fault tests and benchmarks (Python 3 stdlib only).

    fault_origin.py --root DIR [--host 127.0.0.1] [--port 0] [--port-file FILE]
                    [--user U --pass P] [--slow-rate BYTES_PER_S] [--stall-max SECONDS]

Serves the files under DIR (GET, HEAD) with a strong ETag, Last-Modified, single-range support
(206 + Content-Range, 416 with `bytes */N`), If-Range, If-Match, If-None-Match and
If-Modified-Since. The first path segment may select a fault, so one origin serves every scenario:

    /<path>                        normal
    /status/NNN/<path>             answers NNN (401 carries WWW-Authenticate: Basic realm="x")
    /delay/MS/<path>               waits MS milliseconds, then answers normally
    /stall/<path>                  reads the request and never answers (until the client goes)
    /stall-body/<path>             sends the headers and half the body, then stalls
    /ignore-range/<path>           always 200 with the full body, no Accept-Ranges
    /short/<path>                  promises Content-Length, sends half the body, closes
    /short-once/<path>             the first 206 that starts past byte 0 (since start or /_reset) is cut
                                   as /short/ cuts; every other answer is normal
    /slow/<path>                   sends the body at --slow-rate bytes/s (default 256 KiB/s)
    /redirect/PORT/<path>          302 to http://127.0.0.1:PORT/<path> (query kept), with a short body
    /redirect-bare/PORT/<path>     the same 302 with an empty body
    /redirect-to/NNN/<location>    answers NNN (a 3xx) with Location: <location> percent-decoded, exactly
                                   as decoded (relative, scheme-relative, other schemes, userinfo...)
    /wrong-range/<path>            206 whose Content-Range does not match the requested range
    /length/N/<path>               claims the file is N bytes (N digits, maybe after a minus sign):
                                   Content-Length N on HEAD and 200 (whose real body follows, then the
                                   connection closes), complete length N in a 206's Content-Range, and
                                   PROPFIND answered 207 with getcontentlength N
    /no-head/<path>                HEAD answers 405 (Allow: GET); GET is normal
    /head-without-length/<path>    HEAD answers 200 with the validators but no Content-Length; GET is normal
    /echo-headers[/...]            the request headers as a JSON object (name as sent -> value)

Control (never counted, never behind auth):

    GET  /_stats    {"requests": N, "bytes": M, "byPath": {path: {"requests", "bytes"}},
                     "byStatus": {"206": n, ...}, "recent": [{"method", "path", "range", "status",
                     "bytes", "headers", "ended", "began", "endedAt"}, ... last 1000]}
                    bytes = response body bytes written to sockets; headers = the request's fields
                    (lower-cased names); began and endedAt = monotonic seconds (endedAt null while
                    answering); ended = null while answering, then "complete", "client-gone"
                    (the client closed first) or "cut" (the origin closed early: /short/, a stall
                    that reached --stall-max or SIGTERM)
    POST /_reset    zeroes everything above, answers 204

With --user and --pass every other path needs `Authorization: Basic` (else 401). Once listening,
the bound port is written atomically to --port-file (so a test can wait for the file rather than
race the bind) and printed on stdout. SIGTERM or SIGINT stops the server and releases stalls.
Several ranges in one Range header are answered with a 200 and the full body (RFC 9110 §14.2
lets a server ignore Range).
"""

import argparse
import base64
import email.utils
import http.server
import json
import mimetypes
import os
import select
import signal
import socket
import sys
import threading
import time
import urllib.parse

from http_fixtures import parse_single_range

STOPPING = threading.Event()
CHUNK = 64 * 1024


class Stats:
    """Request and body-byte counters, shared by all handler threads."""

    RECENT_MAX = 1000

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.requests = 0
            self.bytes = 0
            self.by_path = {}
            self.by_status = {}
            self.recent = []
            self.cut_taken = False

    def take_cut(self):
        """True the first time it is called since the last reset (`/short-once/`)."""
        with self.lock:
            taken, self.cut_taken = self.cut_taken, True
            return not taken

    def begin(self, method, path, headers):
        """Counts a request; returns its record, to which `add_bytes`, `set_status` and `end` write."""
        record = {"method": method, "path": path, "range": headers.get("Range"), "status": None, "bytes": 0,
                  "headers": joined_fields(headers, lower=True), "ended": None, "began": time.monotonic(),
                  "endedAt": None}
        with self.lock:
            self.requests += 1
            entry = self.by_path.setdefault(path, {"requests": 0, "bytes": 0})
            entry["requests"] += 1
            self.recent.append(record)
            del self.recent[: -self.RECENT_MAX]
        return record

    def set_status(self, record, status):
        with self.lock:
            record["status"] = status
            key = str(status)
            self.by_status[key] = self.by_status.get(key, 0) + 1

    def end(self, record, how):
        """Marks how the answer ended (the first call wins)."""
        with self.lock:
            if record["ended"] is None:
                record["ended"] = how
                record["endedAt"] = time.monotonic()

    def add_bytes(self, record, count):
        with self.lock:
            self.bytes += count
            record["bytes"] += count
            self.by_path[record["path"]]["bytes"] += count

    def snapshot(self):
        with self.lock:
            return {
                "requests": self.requests,
                "bytes": self.bytes,
                "byPath": {k: dict(v) for k, v in self.by_path.items()},
                "byStatus": dict(self.by_status),
                "recent": [dict(r) for r in self.recent],
            }


class ClientGone(Exception):
    """The client closed the connection while we were writing."""


def joined_fields(headers, lower=False):
    """Request header fields as a dict, repeated fields joined with ", " (RFC 9110 §5.3)."""
    fields = {}
    for name, value in headers.items():
        key = name.lower() if lower else name
        fields[key] = fields[key] + ", " + value if key in fields else value
    return fields


def etag_matches(header, etag):
    """Strong comparison against a list of entity tags (RFC 9110 §8.8.3.2); `*` matches."""
    tags = [t.strip() for t in header.split(",")]
    return "*" in tags or etag in tags


def http_date_not_after(header, mtime):
    """True when `header` is an HTTP-date no earlier than the file's mtime (whole seconds)."""
    try:
        when = email.utils.parsedate_to_datetime(header).timestamp()
    except (TypeError, ValueError, IndexError):
        return False
    return int(mtime) <= when


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fault-origin/1"

    # Set by main().
    root = "."
    stats = Stats()
    credentials = None
    slow_rate = 256 * 1024
    stall_max = 300.0

    def log_message(self, format, *args):
        if os.environ.get("FAULT_ORIGIN_VERBOSE"):
            sys.stderr.write("fault-origin: %s\n" % (format % args))

    # -- dispatch ---------------------------------------------------------------------------

    def do_GET(self):
        self.dispatch(send_body=True)

    def do_HEAD(self):
        self.dispatch(send_body=False)

    def do_POST(self):
        self.discard_request_body()
        if self.url_path() == "/_reset":
            self.stats.reset()
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.dispatch(send_body=True)

    def do_PUT(self):
        self.discard_request_body()
        self.dispatch(send_body=True)

    do_DELETE = do_PUT
    do_OPTIONS = do_PUT
    do_PROPFIND = do_PUT

    def url_path(self):
        return urllib.parse.urlsplit(self.path).path

    def discard_request_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > 0:
            self.rfile.read(length)

    def dispatch(self, send_body):
        path = self.url_path()
        if path == "/_stats" and self.command == "GET":
            body = json.dumps(self.stats.snapshot()).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
            return
        self.record = self.stats.begin(self.command, path, self.headers)
        self.send_body = send_body
        try:
            self.route(path)
        except ClientGone:
            self.stats.end(self.record, "client-gone")
            self.close_connection = True
        self.stats.end(self.record, "complete")

    def route(self, path):
        if path.startswith("/_"):
            return self.simple(404, "unknown control path\n")
        if self.credentials is not None and self.headers.get("Authorization") != self.credentials:
            return self.simple(401, "authentication required\n", {"WWW-Authenticate": 'Basic realm="fault-origin"'})
        segments = path.split("/")
        fault = segments[1] if len(segments) > 1 else ""
        rest = "/".join(segments[2:])
        claimed = segments[2] if fault == "length" and len(segments) > 2 and segments[2].lstrip("-").isdigit() else None
        if claimed and self.command == "PROPFIND":
            return self.propfind_length(claimed)
        if self.command not in ("GET", "HEAD"):
            return self.simple(405, "method not allowed\n", {"Allow": "GET, HEAD"})
        if fault == "echo-headers":
            return self.echo_headers()
        if fault == "status" and len(segments) > 2 and segments[2].isdigit():
            return self.fixed_status(int(segments[2]))
        if fault == "delay" and len(segments) > 2 and segments[2].isdigit():
            STOPPING.wait(int(segments[2]) / 1000)
            return self.serve_file("/".join(segments[3:]), mode="normal")
        if fault in ("redirect", "redirect-bare") and len(segments) > 2 and segments[2].isdigit():
            return self.redirect(int(segments[2]), "/".join(segments[3:]), bare=fault == "redirect-bare")
        if claimed:
            return self.serve_file("/".join(segments[3:]), mode="length", claimed=claimed)
        if fault == "redirect-to" and len(segments) > 3 and segments[2].isdigit():
            return self.redirect_to(int(segments[2]), urllib.parse.unquote("/".join(segments[3:])))
        if fault == "stall":
            self.close_connection = True
            return self.hold_until_client_goes()
        if fault in ("stall-body", "ignore-range", "short", "short-once", "slow", "wrong-range"):
            return self.serve_file(rest, mode=fault)
        if fault in ("no-head", "head-without-length") and self.command == "HEAD":
            return self.head_fault(rest, fault)
        if fault in ("no-head", "head-without-length"):
            return self.serve_file(rest, mode="normal")
        return self.serve_file(path.lstrip("/"), mode="normal")

    # -- simple answers ---------------------------------------------------------------------

    def simple(self, status, text, headers=None, content_type="text/plain; charset=utf-8"):
        body = text.encode() if status not in (204, 304) and status >= 200 else b""
        self.begin_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body:
            self.send_header("Content-Type", content_type)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.write_body(body)

    def fixed_status(self, status):
        headers = {}
        if status == 401:
            headers["WWW-Authenticate"] = 'Basic realm="x"'
        if status in (301, 302, 303, 307, 308):
            headers["Location"] = "/"
        if status in (429, 503):
            headers["Retry-After"] = "1"
        self.simple(status, "status %d\n" % status, headers)

    def echo_headers(self):
        self.simple(200, json.dumps(joined_fields(self.headers)), content_type="application/json")

    def propfind_length(self, claimed):
        """A 207 for one file (RFC 4918 §9.1) whose getcontentlength is `claimed`, as written."""
        body = (
            '<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:"><D:response>'
            "<D:href>%s</D:href><D:propstat><D:prop><D:getcontentlength>%s</D:getcontentlength>"
            "<D:resourcetype/></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
            "</D:multistatus>" % (self.url_path(), claimed)
        )
        self.simple(207, body, content_type="application/xml; charset=utf-8")

    def redirect(self, port, rest, bare):
        query = urllib.parse.urlsplit(self.path).query
        location = "http://127.0.0.1:%d/%s%s" % (port, rest, "?" + query if query else "")
        self.simple(302, "" if bare else "see %s\n" % location, {"Location": location})

    def redirect_to(self, status, location):
        self.simple(status, "", {"Location": location})

    def head_fault(self, rel, fault):
        """HEAD refused (405), or answered without Content-Length: what some origins do (RFC 9110 §9.3.2 only
        says a server SHOULD send the GET's header fields)."""
        if fault == "no-head":
            return self.simple(405, "", {"Allow": "GET"})
        full = self.resolve(rel)
        if full is None:
            return self.simple(404, "not found\n")
        etag, last_modified = self.validators_of(os.stat(full))
        self.begin_response(200)
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", last_modified)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Type", mimetypes.guess_type(full)[0] or "application/octet-stream")
        self.end_headers()

    def begin_response(self, status):
        self.stats.set_status(self.record, status)
        self.send_response(status)

    # -- files ------------------------------------------------------------------------------

    def resolve(self, rel):
        """Maps a URL path under --root; None when it escapes the root or is not a file."""
        rel = urllib.parse.unquote(rel)
        if "\x00" in rel:
            return None
        full = os.path.realpath(os.path.join(self.root, rel))
        if full != self.root and not full.startswith(self.root + os.sep):
            return None
        return full if os.path.isfile(full) else None

    def serve_file(self, rel, mode, claimed=None):
        full = self.resolve(rel)
        if full is None:
            return self.simple(404, "not found\n")
        with open(full, "rb") as f:
            st = os.fstat(f.fileno())
            size = st.st_size
            etag, last_modified = self.validators_of(st)
            validators = {"ETag": etag, "Last-Modified": last_modified}
            if mode != "ignore-range":
                validators["Accept-Ranges"] = "bytes"

            if_match = self.headers.get("If-Match")
            if if_match is not None and not etag_matches(if_match, etag):
                return self.simple(412, "precondition failed\n", validators)
            if_none_match = self.headers.get("If-None-Match")
            if if_none_match is not None:
                if etag_matches(if_none_match, etag):
                    return self.simple(304, "", validators)
            else:
                since = self.headers.get("If-Modified-Since")
                if since is not None and http_date_not_after(since, st.st_mtime):
                    return self.simple(304, "", validators)

            wanted = None if mode == "ignore-range" else parse_single_range(self.headers.get("Range"), size)
            if_range = self.headers.get("If-Range")
            if wanted is not None and if_range is not None:
                # RFC 9110 §13.1.5: an entity tag must match strongly, a date exactly.
                if if_range.strip() not in (etag, last_modified):
                    wanted = None
            if wanted == "unsatisfiable":
                return self.simple(416, "range not satisfiable\n", dict(validators, **{"Content-Range": "bytes */%d" % size}))

            if wanted is None and mode == "wrong-range":
                wanted = (0, size - 1)
            if wanted is None:
                status, first, last = 200, 0, size - 1
                content_range = None
            else:
                status, (first, last) = 206, wanted
                total = size
                if mode == "wrong-range":
                    first, last, total = self.mismatched(first, last, size)
                content_range = "bytes %d-%d/%s" % (first, last, claimed or total)

            if mode == "short-once":
                mode = "short" if status == 206 and first > 0 and self.stats.take_cut() else "normal"
            length = last - first + 1 if size > 0 else 0
            self.begin_response(status)
            for name, value in validators.items():
                self.send_header(name, value)
            if content_range:
                self.send_header("Content-Range", content_range)
            self.send_header("Content-Type", mimetypes.guess_type(full)[0] or "application/octet-stream")
            self.send_header("Content-Length", claimed if claimed and status == 200 else str(length))
            if mode in ("short", "stall-body", "length"):
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            if not self.send_body or length == 0:
                return
            if mode == "short":
                self.copy(f, first, length // 2)
                self.stats.end(self.record, "cut")
                self.connection.shutdown(socket.SHUT_RDWR)
            elif mode == "stall-body":
                self.copy(f, first, length // 2)
                self.hold_until_client_goes()
            elif mode == "slow":
                self.copy(f, first, length, rate=self.slow_rate)
            else:
                self.copy(f, first, length)

    @staticmethod
    def validators_of(st):
        """The strong ETag and the Last-Modified date of a file, from its stat."""
        return '"%x-%x-%x"' % (st.st_ino, st.st_size, st.st_mtime_ns), email.utils.formatdate(st.st_mtime, usegmt=True)

    @staticmethod
    def mismatched(first, last, size):
        """A range of the same length that is not the one asked for (or, if none exists, a wrong total)."""
        span = last - first
        if first + 1 + span <= size - 1:
            return first + 1, first + 1 + span, size
        if first > 0:
            return first - 1, last - 1, size
        return first, last, size + 1

    # -- body writing -----------------------------------------------------------------------

    def write_body(self, body):
        if self.send_body and body:
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError) as error:
                raise ClientGone() from error
            self.stats.add_bytes(self.record, len(body))

    def copy(self, f, offset, count, rate=None):
        """Writes `count` bytes of `f` from `offset`, counting what the socket accepted."""
        out = self.connection.fileno()
        started = time.monotonic()
        sent = 0
        step = 16 * 1024 if rate else 1024 * 1024
        try:
            while sent < count:
                if STOPPING.is_set():
                    raise ClientGone()
                n = os.sendfile(out, f.fileno(), offset + sent, min(step, count - sent))
                if n == 0:
                    raise ClientGone()
                sent += n
                self.stats.add_bytes(self.record, n)
                if rate:
                    ahead = sent / rate - (time.monotonic() - started)
                    if ahead > 0:
                        time.sleep(ahead)
        except (BrokenPipeError, ConnectionResetError) as error:
            raise ClientGone() from error

    def hold_until_client_goes(self):
        """Keeps the socket open, answering nothing, until the client closes it (or --stall-max)."""
        self.close_connection = True
        sock = self.connection
        deadline = time.monotonic() + self.stall_max
        while not STOPPING.is_set() and time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], 0.2)
            if readable:
                try:
                    if not sock.recv(65536):
                        return self.stats.end(self.record, "client-gone")
                except OSError:
                    return self.stats.end(self.record, "client-gone")
        self.stats.end(self.record, "cut")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, help="folder whose files are served")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--port-file", help="written with the bound port once listening")
    parser.add_argument("--user")
    parser.add_argument("--pass", dest="password")
    parser.add_argument("--slow-rate", type=int, default=256 * 1024, help="bytes/s for /slow/")
    parser.add_argument("--stall-max", type=float, default=300.0, help="seconds a stall lasts at most")
    args = parser.parse_args()
    if (args.user is None) != (args.password is None):
        parser.error("--user and --pass go together")

    Handler.root = os.path.realpath(args.root)
    if not os.path.isdir(Handler.root):
        parser.error("--root %s is not a directory" % args.root)
    if args.user is not None:
        token = base64.b64encode(("%s:%s" % (args.user, args.password)).encode()).decode()
        Handler.credentials = "Basic " + token
    Handler.slow_rate = args.slow_rate
    Handler.stall_max = args.stall_max

    # SO_REUSEADDR only for a fixed port (a quick restart on it). With port 0 it lets the kernel hand out a port that
    # other sockets still hold, and listen() then fails with EADDRINUSE (seen under load, with many loopback
    # connections open).
    Server.allow_reuse_address = args.port != 0
    server = Server((args.host, args.port), Handler)
    port = server.server_address[1]

    def stop(signum, frame):
        STOPPING.set()
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, args.port_file)
    print("fault-origin listening on http://%s:%d/ root=%s" % (args.host, port, Handler.root), flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
