"""Processes for the cluster test: free ports, children that are always stopped, and small HTTP calls."""

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
SLUICE = Path(os.environ.get("SLUICE_BIN", REPOSITORY / ".build" / "debug" / "sluice"))
FAULT_ORIGIN = REPOSITORY / "Tests" / "Fixtures" / "fault_origin.py"
NGINX = Path("/usr/sbin/nginx")


def free_port():
    """A port free on 127.0.0.1, from below the kernel's ephemeral range, where the test's own outgoing
    connections take theirs (as FreePort.next() in the Swift test support)."""
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    start = int(ephemeral[0]) if ephemeral else 32768
    low, high = (10_000, start) if start > 11_000 else (1024, 65536)
    for _ in range(1000):
        port = random.randrange(low, high)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port")


def poll(condition, timeout=30.0, interval=0.02):
    """Calls `condition` until it returns a true value or `timeout` passes; the last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


class Child:
    """A child process whose output goes to `log`; stop() ends it (SIGTERM, then SIGKILL)."""

    def __init__(self, arguments, log, environment=None):
        self.log_path = Path(log)
        with open(self.log_path, "wb") as output:
            self.process = subprocess.Popen(
                [str(a) for a in arguments], stdout=output, stderr=subprocess.STDOUT,
                env={**os.environ, **(environment or {})}, start_new_session=True)

    def log(self):
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout=30.0):
        """Sends SIGTERM and waits; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def get(port, target, headers=None, timeout=30.0):
    """GET http://127.0.0.1:port/target: (status, headers as a lowercase dict, body), or an OSError."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", target, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def get_json(port, target, token=None):
    status, _, body = get(port, target, {"Authorization": f"Bearer {token}"} if token else {})
    if status != 200:
        raise AssertionError(f"GET {target} on {port}: {status} {body[:200]!r}")
    return json.loads(body)


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
