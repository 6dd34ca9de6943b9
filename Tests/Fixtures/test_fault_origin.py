"""Tests of fault_origin.py itself, so the Swift fault tests stand on a checked origin.

    python3 -m unittest discover -s Tests/Fixtures -p 'test_*.py'      (part of `make test`)
"""

import base64
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

from http_fixtures import poll_until, read_until_closed

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE = 1 << 20


class Origin:
    """fault_origin.py as a child process on a free port, stopped by `close`."""

    def __init__(self, root, *extra):
        self.port_file = os.path.join(root, "..", "port-%d" % id(self))
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "fault_origin.py"), "--root", root, "--port", "0",
             "--port-file", self.port_file, "--slow-rate", "262144", *extra],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("fault origin did not start")
            time.sleep(0.02)
        with open(self.port_file) as f:
            self.port = int(f.read())

    def request(self, path, headers=None, method="GET"):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request(method, path, headers=headers or {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def stats(self):
        return json.loads(self.request("/_stats")[2])

    def settled_recent(self, count, timeout=10):
        """`recent` once it holds `count` records that have all ended, or as it is at the deadline.

        The origin marks a record ended after its last write, so a client can hold the whole answer first.
        """
        return poll_until(lambda: self.stats()["recent"],
                          lambda recent: len(recent) == count and all(r["ended"] for r in recent), timeout)

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


class FaultOriginTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = os.path.join(cls.tmp.name, "root")
        os.makedirs(os.path.join(root, "sub"))
        cls.data = os.urandom(SIZE)
        with open(os.path.join(root, "data.bin"), "wb") as f:
            f.write(cls.data)
        open(os.path.join(root, "empty.bin"), "wb").close()
        cls.origin = Origin(root)
        cls.secured = Origin(root, "--user", "u", "--pass", "p")

    @classmethod
    def tearDownClass(cls):
        cls.origin.close()
        cls.secured.close()
        cls.tmp.cleanup()

    def test_ranges(self):
        # (Range header, status, Content-Range, first, last) — RFC 9110 §14.1.2 forms.
        cases = [
            (None, 200, None, 0, SIZE - 1),
            ("bytes=0-0", 206, "bytes 0-0/%d" % SIZE, 0, 0),
            ("bytes=100-199", 206, "bytes 100-199/%d" % SIZE, 100, 199),
            ("bytes=1048570-", 206, "bytes 1048570-1048575/%d" % SIZE, 1048570, SIZE - 1),
            ("bytes=-10", 206, "bytes 1048566-1048575/%d" % SIZE, SIZE - 10, SIZE - 1),
            ("bytes=-99999999", 206, "bytes 0-1048575/%d" % SIZE, 0, SIZE - 1),
            ("bytes=5-99999999", 206, "bytes 5-1048575/%d" % SIZE, 5, SIZE - 1),
            ("bytes=1048576-", 416, "bytes */%d" % SIZE, None, None),
            ("bytes=-0", 416, "bytes */%d" % SIZE, None, None),
            ("bytes=abc", 200, None, 0, SIZE - 1),
            ("bytes=9-5", 200, None, 0, SIZE - 1),
            ("items=0-5", 200, None, 0, SIZE - 1),
            ("bytes=0-1,5-6", 200, None, 0, SIZE - 1),
        ]
        for header, status, content_range, first, last in cases:
            with self.subTest(range=header):
                got_status, headers, body = self.origin.request("/data.bin", {"Range": header} if header else {})
                self.assertEqual(got_status, status)
                self.assertEqual(headers.get("Content-Range"), content_range)
                if first is not None:
                    self.assertEqual(body, self.data[first : last + 1])
                    self.assertEqual(int(headers["Content-Length"]), last - first + 1)

    def test_validators_and_conditionals(self):
        _, headers, _ = self.origin.request("/data.bin", method="HEAD")
        etag, last_modified = headers["ETag"], headers["Last-Modified"]
        self.assertTrue(etag.startswith('"'))
        cases = [
            ({"Range": "bytes=0-9", "If-Range": etag}, 206),
            ({"Range": "bytes=0-9", "If-Range": last_modified}, 206),
            ({"Range": "bytes=0-9", "If-Range": '"other"'}, 200),
            ({"If-None-Match": etag}, 304),
            ({"If-Modified-Since": last_modified}, 304),
            ({"If-Match": '"other"'}, 412),
            ({"If-Match": etag, "Range": "bytes=0-9"}, 206),
        ]
        for headers_sent, status in cases:
            with self.subTest(headers=headers_sent):
                self.assertEqual(self.origin.request("/data.bin", headers_sent)[0], status)

    def test_head_has_length_and_no_body(self):
        status, headers, body = self.origin.request("/data.bin", method="HEAD")
        self.assertEqual((status, headers["Content-Length"], body), (200, str(SIZE), b""))

    def test_missing_and_escaping_paths_are_404(self):
        for path in ("/nope.bin", "/sub", "/%2e%2e/%2e%2e/etc/passwd", "/_nothing"):
            with self.subTest(path=path):
                self.assertEqual(self.origin.request(path)[0], 404)

    def test_status_faults(self):
        status, headers, _ = self.origin.request("/status/401/data.bin")
        self.assertEqual((status, headers["WWW-Authenticate"]), (401, 'Basic realm="x"'))
        for code in (404, 500, 503):
            self.assertEqual(self.origin.request("/status/%d/data.bin" % code)[0], code)

    def test_ignore_range_sends_everything(self):
        status, headers, body = self.origin.request("/ignore-range/data.bin", {"Range": "bytes=0-9"})
        self.assertEqual((status, body), (200, self.data))
        self.assertNotIn("Accept-Ranges", headers)

    def test_wrong_range_does_not_match_request(self):
        status, headers, body = self.origin.request("/wrong-range/data.bin", {"Range": "bytes=100-199"})
        self.assertEqual((status, headers["Content-Range"], body), (206, "bytes 101-200/%d" % SIZE, self.data[101:201]))

    def test_length_claims_any_number(self):
        huge = "9223372036854775807"
        status, headers, body = self.origin.request("/length/%s/data.bin" % huge, method="HEAD")
        self.assertEqual((status, headers["Content-Length"], body), (200, huge, b""))
        status, headers, body = self.origin.request("/length/%s/data.bin" % huge, {"Range": "bytes=0-9"})
        self.assertEqual((status, headers["Content-Range"], body), (206, "bytes 0-9/" + huge, self.data[:10]))
        with socket.create_connection(("127.0.0.1", self.origin.port)) as s:
            s.sendall(b"GET /length/99999999999999999999/data.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            received = read_until_closed(s)
        head, _, body = received.partition(b"\r\n\r\n")
        self.assertIn(b"Content-Length: 99999999999999999999", head)
        self.assertEqual(body, self.data)
        status, _, body = self.origin.request("/length/-5/data.bin", method="PROPFIND")
        self.assertEqual(status, 207)
        self.assertIn(b"<D:getcontentlength>-5</D:getcontentlength>", body)

    def test_short_body_closes_early(self):
        with socket.create_connection(("127.0.0.1", self.origin.port)) as s:
            s.sendall(b"GET /short/data.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-999\r\n\r\n")
            received = read_until_closed(s)
        head, _, body = received.partition(b"\r\n\r\n")
        self.assertIn(b"Content-Length: 1000", head)
        self.assertEqual(body, self.data[:500])

    def test_short_once_cuts_the_first_range_past_zero_only(self):
        self.origin.request("/_reset", method="POST")
        self.assertEqual(self.origin.request("/short-once/data.bin", {"Range": "bytes=0-999"})[2], self.data[:1000])
        with socket.create_connection(("127.0.0.1", self.origin.port)) as s:
            s.sendall(b"GET /short-once/data.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1000-1999\r\n\r\n")
            received = read_until_closed(s)
        self.assertEqual(received.partition(b"\r\n\r\n")[2], self.data[1000:1500])
        status, _, body = self.origin.request("/short-once/data.bin", {"Range": "bytes=1500-1999"})
        self.assertEqual((status, body), (206, self.data[1500:2000]))

    def test_stall_body_sends_half_then_nothing(self):
        with socket.create_connection(("127.0.0.1", self.origin.port)) as s:
            s.sendall(b"GET /stall-body/data.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-999\r\n\r\n")
            s.settimeout(0.5)
            received = b""
            with self.assertRaises(socket.timeout):
                while True:
                    received += s.recv(65536)
        self.assertEqual(received.partition(b"\r\n\r\n")[2], self.data[:500])

    def test_stall_answers_nothing(self):
        with socket.create_connection(("127.0.0.1", self.origin.port)) as s:
            s.sendall(b"GET /stall/data.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            s.settimeout(0.5)
            with self.assertRaises(socket.timeout):
                s.recv(1)

    def test_slow_is_rate_limited(self):
        started = time.monotonic()
        status, _, body = self.origin.request("/slow/data.bin", {"Range": "bytes=0-262143"})
        elapsed = time.monotonic() - started
        self.assertEqual((status, body), (206, self.data[:262144]))
        # 256 KiB at 256 KiB/s: the first 16 KiB go at once, the rest take ~0.94 s.
        self.assertGreater(elapsed, 0.8)

    def test_delay_holds_the_answer(self):
        started = time.monotonic()
        self.assertEqual(self.origin.request("/delay/300/data.bin", {"Range": "bytes=0-0"})[0], 206)
        self.assertGreater(time.monotonic() - started, 0.29)

    def test_redirect_keeps_path_and_query(self):
        status, headers, body = self.origin.request("/redirect/4242/sub/a%20b.bin?x=1")
        self.assertEqual((status, headers["Location"]), (302, "http://127.0.0.1:4242/sub/a%20b.bin?x=1"))
        self.assertNotEqual(body, b"")
        status, headers, body = self.origin.request("/redirect-bare/4242/sub/a%20b.bin?x=1")
        self.assertEqual((status, headers["Location"], headers["Content-Length"], body),
                         (302, "http://127.0.0.1:4242/sub/a%20b.bin?x=1", "0", b""))

    def test_redirect_to_sends_the_decoded_location_as_is(self):
        for status, location in ((301, "//127.0.0.1:1/x"), (307, "http://u:p@0x7f000001:2/a b?q=1"),
                                 (308, "gopher://h:70/"), (303, "../rel")):
            with self.subTest(location=location):
                encoded = urllib.parse.quote(location, safe="")
                status_got, headers, body = self.origin.request("/redirect-to/%d/%s" % (status, encoded))
                self.assertEqual((status_got, headers["Location"], body), (status, location, b""))

    def test_head_faults_leave_get_alone(self):
        _, plain, _ = self.origin.request("/data.bin", method="HEAD")
        status, headers, _ = self.origin.request("/no-head/data.bin", method="HEAD")
        self.assertEqual((status, headers["Allow"]), (405, "GET"))
        status, headers, _ = self.origin.request("/head-without-length/data.bin", method="HEAD")
        self.assertEqual((status, headers["ETag"], headers["Last-Modified"]), (200, plain["ETag"], plain["Last-Modified"]))
        self.assertNotIn("Content-Length", headers)
        for prefix in ("no-head", "head-without-length"):
            with self.subTest(prefix=prefix):
                status, headers, body = self.origin.request("/%s/data.bin" % prefix, {"Range": "bytes=0-0"})
                self.assertEqual((status, headers["Content-Range"], headers["ETag"], body),
                                 (206, "bytes 0-0/%d" % SIZE, plain["ETag"], self.data[:1]))

    def test_echo_headers(self):
        status, _, body = self.origin.request("/echo-headers", {"X-Probe": "1", "Authorization": "Bearer t"})
        echoed = json.loads(body)
        self.assertEqual((status, echoed["X-Probe"], echoed["Authorization"]), (200, "1", "Bearer t"))

    def test_basic_auth_guards_all_but_control_paths(self):
        good = "Basic " + base64.b64encode(b"u:p").decode()
        bad = "Basic " + base64.b64encode(b"u:x").decode()
        self.assertEqual(self.secured.request("/data.bin")[0], 401)
        self.assertEqual(self.secured.request("/data.bin", {"Authorization": bad})[0], 401)
        self.assertEqual(self.secured.request("/data.bin", {"Authorization": good, "Range": "bytes=0-0"})[0], 206)
        self.assertEqual(self.secured.request("/_stats")[0], 200)

    def test_stats_count_requests_and_body_bytes_and_reset(self):
        origin = Origin(os.path.join(self.tmp.name, "root"))
        try:
            origin.request("/data.bin", {"Range": "bytes=0-99"})
            origin.request("/data.bin")
            origin.request("/data.bin", method="HEAD")
            stats = origin.stats()
            self.assertEqual((stats["requests"], stats["bytes"]), (3, 100 + SIZE))
            self.assertEqual(stats["byPath"]["/data.bin"], {"requests": 3, "bytes": 100 + SIZE})
            self.assertEqual(stats["byStatus"], {"206": 1, "200": 2})
            self.assertEqual([r["range"] for r in stats["recent"]], ["bytes=0-99", None, None])
            self.assertEqual([r["ended"] for r in origin.settled_recent(3)], ["complete"] * 3)
            self.assertEqual(stats["recent"][0]["headers"]["range"], "bytes=0-99")
            self.assertEqual(origin.request("/_reset", method="POST")[0], 204)
            self.assertEqual(origin.stats()["requests"], 0)
        finally:
            origin.close()

    def test_recent_says_how_each_answer_ended(self):
        origin = Origin(os.path.join(self.tmp.name, "root"), "--slow-rate", "65536")
        try:
            with socket.create_connection(("127.0.0.1", origin.port)) as s:
                s.sendall(b"GET /short/data.bin HTTP/1.1\r\nHost: x\r\nX-Probe: a\r\nX-Probe: b\r\n\r\n")
                read_until_closed(s)
            with socket.create_connection(("127.0.0.1", origin.port)) as s:
                s.sendall(b"GET /slow/data.bin HTTP/1.1\r\nHost: x\r\n\r\n")
                s.recv(1)
            with socket.create_connection(("127.0.0.1", origin.port)) as s:
                s.sendall(b"GET /stall/data.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            # The stalled request may not have reached the origin yet when the other two have ended.
            recent = origin.settled_recent(3)
            self.assertEqual([(r["path"], r["ended"]) for r in recent],
                             [("/short/data.bin", "cut"), ("/slow/data.bin", "client-gone"),
                              ("/stall/data.bin", "client-gone")])
            self.assertEqual(recent[0]["headers"]["x-probe"], "a, b")
            self.assertLess(recent[1]["bytes"], SIZE)
        finally:
            origin.close()


if __name__ == "__main__":
    unittest.main()
