"""What the test tree's HTTP fixtures share: reading a Range header (fault_origin.py, cloud_emulator.py), reading
a socket to its end, and running a two-port cloud emulator as a child process (their tests)."""

import base64
import http.client
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse


def parse_single_range(header, size):
    """Returns None (serve the whole body), "unsatisfiable", or (first, last) inclusive.

    RFC 9110 §14.1.2: bytes=a-b, bytes=a-, bytes=-n. A malformed header or several ranges are
    ignored (whole body); a range starting past the end, or a zero suffix, is unsatisfiable.
    """
    if header is None:
        return None
    unit, _, spec = header.strip().partition("=")
    if unit.strip().lower() != "bytes" or not spec or "," in spec:
        return None
    first_s, dash, last_s = spec.strip().partition("-")
    if not dash:
        return None
    first_s, last_s = first_s.strip(), last_s.strip()
    if not all(part.isdigit() for part in (first_s, last_s) if part):
        return None
    if first_s == "":
        if last_s == "":
            return None
        suffix = int(last_s)
        if suffix == 0 or size == 0:
            return "unsatisfiable"
        return (max(0, size - suffix), size - 1)
    first = int(first_s)
    if last_s and int(last_s) < first:
        return None
    if first >= size:
        return "unsatisfiable"
    return (first, min(int(last_s), size - 1) if last_s else size - 1)


def read_until_closed(sock):
    """Every byte the peer sends on `sock` until it closes."""
    data = b""
    while True:
        block = sock.recv(65536)
        if not block:
            return data
        data += block


def poll_until(fetch, ready, timeout=5):
    """fetch() once ready(value) holds, or its value at the deadline (the fixtures count after each write
    returns, so a client can hold a whole answer a moment before the counters do)."""
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if ready(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.02)


def basic_auth(user, password):
    """An Authorization header with client credentials as HTTP Basic."""
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


class EmulatorProcess:
    """A cloud_emulator-based script as a child process on free ports ({"api", "content"} from its port file),
    stopped by `close`. `extra` are more command-line arguments."""

    def __init__(self, script, root, *extra):
        self.port_file = os.path.join(root, "..", "ports-%d-%s" % (id(self), secrets.token_hex(4)))
        self.proc = subprocess.Popen([sys.executable, script, "--root", root, "--port", "0",
                                      "--port-file", self.port_file, *extra], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("%s did not start" % os.path.basename(script))
            time.sleep(0.02)
        with open(self.port_file) as f:
            ports = json.load(f)
        self.api, self.content = ports["api"], ports["content"]

    def request(self, path, headers=None, method="GET", body=None, port=None):
        conn = http.client.HTTPConnection("127.0.0.1", port or self.api, timeout=10)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def url(self, location, headers=None, method="GET"):
        """Requests an absolute http://127.0.0.1:PORT/... URL as given."""
        parts = urllib.parse.urlsplit(location)
        return self.request(parts.path + ("?" + parts.query if parts.query else ""), headers, method, port=parts.port)

    def form(self, path, form):
        """POSTs a form-encoded body; (status, JSON)."""
        status, _, body = self.request(path, method="POST", body=urllib.parse.urlencode(form),
                                       headers={"Content-Type": "application/x-www-form-urlencoded"})
        return status, json.loads(body)

    def token_form(self, path, client_id, headers=None, form=None):
        """POSTs a token request; client_id goes in the body unless headers (e.g. basic_auth) are given.
        (status, JSON)."""
        form = dict(form or {})
        if headers is None:
            form.setdefault("client_id", client_id)
        status, _, body = self.request(path, dict(headers or {}, **{
            "Content-Type": "application/x-www-form-urlencoded"}), "POST", urllib.parse.urlencode(form))
        return status, json.loads(body)

    def control(self, path, data=None):
        body = json.dumps(data) if data is not None else None
        status, _, answer = self.request(path, method="POST", body=body,
                                         headers={"Content-Type": "application/json"} if body else {})
        return status, json.loads(answer) if answer else None

    def stats(self):
        return json.loads(self.request("/_stats")[2])

    def settled_stats(self, ready, timeout=5):
        """The stats once `ready(stats)` holds, or as they are at the deadline: the emulators count body bytes
        after each write returns, so a client can hold the whole body a moment before the count has it."""
        return poll_until(self.stats, ready, timeout)

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


class EmulatorTestCase(unittest.TestCase):
    """One emulator for the whole class over a temporary root: make_tree(root) fills it, start(root) returns the
    EmulatorProcess (cls.emu); every test begins with /_reset."""

    @classmethod
    def make_tree(cls, root):
        pass

    @classmethod
    def start(cls, root):
        raise NotImplementedError

    @classmethod
    def put(cls, rel, data):
        full = os.path.join(cls.root, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = os.path.join(cls.tmp.name, "root")
        os.makedirs(cls.root)
        cls.make_tree(cls.root)
        cls.emu = cls.start(cls.root)

    @classmethod
    def tearDownClass(cls):
        cls.emu.close()
        cls.tmp.cleanup()

    def setUp(self):
        self.emu.control("/_reset")
