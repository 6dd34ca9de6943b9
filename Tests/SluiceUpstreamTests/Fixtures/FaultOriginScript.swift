/// A scriptable HTTP/1.1 origin for fault tests, run as `python3 SCRIPT PORT DATA_FILE LOG_FILE`. It is kept as a
/// Swift string (written to a temporary file at run time) so the test target has no unhandled resource files.
///
/// Routes: `/file` (correct single ranges, ETag "v1"), `/status/N`, `/stall` (never answers), `/ignore-range` (200
/// with the whole body), `/short` (206 whose body stops half way), `/wrong-range` (206 for the next byte),
/// `/changed` (a new ETag "v2"), `/redirect/PORT/REST` (302 to 127.0.0.1:PORT/REST), `/endless` (a body that never
/// ends), `/no-head` and `/head-without-length` (like `/file`, but HEAD answers 405 or lacks Content-Length).
/// Every request is logged as a JSON line with its headers; a connection that breaks while sending logs
/// `disconnect`.
enum FaultOriginScript {
    static let source = #"""
        import http.server, json, os, re, socketserver, sys, threading, time

        PORT = int(sys.argv[1])
        DATA = open(sys.argv[2], "rb").read()
        LOG = sys.argv[3]
        LOCK = threading.Lock()

        def log(entry):
            with LOCK:
                with open(LOG, "a") as f:
                    f.write(json.dumps(entry) + "\n")

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def send_body(self, status, body, headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def requested_range(self):
                match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
                if not match:
                    return None
                first = int(match.group(1))
                last = min(int(match.group(2)) if match.group(2) else len(DATA) - 1, len(DATA) - 1)
                return first, last

            def validators(self, tag):
                return [("ETag", tag), ("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT"), ("Content-Type", "video/mp4")]

            def handle_one(self):
                log({"event": "request", "method": self.command, "path": self.path,
                     "headers": {k.lower(): v for k, v in self.headers.items()}})
                path = self.path
                if path == "/no-head" and self.command == "HEAD":
                    self.send_body(405, b"")
                    return
                if path == "/head-without-length" and self.command == "HEAD":
                    self.send_response(200)
                    self.end_headers()
                    return
                if path in ("/no-head", "/head-without-length"):
                    path = "/file"
                if path.startswith("/status/"):
                    self.send_body(int(path.split("/")[2]), b"fault\n")
                elif path == "/stall":
                    time.sleep(30)
                elif path == "/ignore-range":
                    self.send_body(200, DATA, self.validators('"v1"'))
                elif path == "/changed":
                    self.send_body(200, DATA, self.validators('"v2"'))
                elif path == "/short":
                    first, last = self.requested_range() or (0, len(DATA) - 1)
                    self.send_response(206)
                    self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, len(DATA)))
                    self.send_header("Content-Length", str(last - first + 1))
                    self.end_headers()
                    self.wfile.write(DATA[first:first + (last - first + 1) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                elif path == "/wrong-range":
                    first, last = self.requested_range()
                    self.send_body(206, DATA[first + 1:last + 2],
                                   [("Content-Range", "bytes %d-%d/%d" % (first + 1, last + 1, len(DATA)))])
                elif path.startswith("/redirect/"):
                    parts = path.split("/", 3)
                    self.send_body(302, b"", [("Location", "http://127.0.0.1:%s/%s" % (parts[2], parts[3]))])
                elif path == "/endless":
                    self.send_response(200)
                    self.send_header("Content-Length", str(1 << 40))
                    self.end_headers()
                    chunk = DATA[:65536]
                    try:
                        while True:
                            self.wfile.write(chunk)
                    except OSError:
                        log({"event": "disconnect", "path": path})
                        self.close_connection = True
                elif path == "/file":
                    tag = self.validators('"v1"')
                    wanted = self.requested_range()
                    if wanted is None:
                        self.send_body(200, DATA, tag)
                    elif wanted[0] >= len(DATA):
                        self.send_body(416, b"", [("Content-Range", "bytes */%d" % len(DATA))])
                    else:
                        first, last = wanted
                        self.send_body(206, DATA[first:last + 1],
                                       tag + [("Content-Range", "bytes %d-%d/%d" % (first, last, len(DATA)))])
                else:
                    self.send_body(404, b"missing\n")

            do_GET = handle_one
            do_HEAD = handle_one
            do_PROPFIND = handle_one

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        Server(("127.0.0.1", PORT), Handler).serve_forever()
        """#
}
