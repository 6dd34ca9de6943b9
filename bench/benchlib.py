"""Shared pieces of the Sluice benchmarks (Python 3 stdlib only).

Every benchmark runs its peers (nginx, rclone, the fault origin, the gateway) as child processes
on 127.0.0.1 in a temporary folder, stops them all on exit (also on Ctrl-C or an error), and
writes `bench/results/NAME.json` plus a one-paragraph `bench/results/NAME.txt`.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
RESULTS_DIR = os.path.join(BENCH_DIR, "results")
FAULT_ORIGIN = os.path.join(REPO, "Tests", "Fixtures", "fault_origin.py")
SWIFT_FLOOR_PACKAGE = os.path.join(BENCH_DIR, "swift-floor")
RANDOM_RANGE_LUA = os.path.join(BENCH_DIR, "random_range.lua")
MiB = 1 << 20


class BenchError(Exception):
    """A benchmark cannot go on; the message says why."""


def parse_args(description, extra=None):
    """Common options: --peers-only, --sluice PATH, --keep; `extra(parser)` adds a script's own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--peers-only",
        action="store_true",
        help="run only the reference half (nginx / rclone / origin); the gateway half is skipped",
    )
    parser.add_argument(
        "--sluice",
        default=os.environ.get("SLUICE_BIN", os.path.join(REPO, ".build", "release", "sluice")),
        help="gateway binary (default .build/release/sluice, or $SLUICE_BIN)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, configs)")
    if extra:
        extra(parser)
    args = parser.parse_args()
    args.sluice = os.path.abspath(args.sluice)
    if not args.peers_only and not os.access(args.sluice, os.X_OK):
        sys.stderr.write(
            "bench: the gateway binary %s is missing (or not executable).\n"
            "       Build it first with `make build` (swift build -c release), or pass --sluice PATH.\n"
            "       `--peers-only` runs just the nginx/rclone/origin half.\n" % args.sluice
        )
        sys.exit(2)
    return args


SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


def tool(name):
    """The full path of a peer program; fails clearly when it is not installed."""
    found = shutil.which(name, path=SEARCH_PATH)
    if found is None:
        raise BenchError("%s is not installed (run `scripts/install-deps --test`)" % name)
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def median(values):
    return statistics.median(values) if values else None


# Two-sided 95 % quantiles of Student's t for 1-30 degrees of freedom.
T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def mean_interval(values):
    """The mean of `values` and its 95 % confidence interval (Student's t; the rounds of a benchmark are
    treated as independent samples): (mean, low, high), or (mean, None, None) for fewer than two values."""
    if not values:
        return None, None, None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None, None
    quantile = T_975[len(values) - 2] if len(values) - 1 <= len(T_975) else 1.96
    half = quantile * statistics.stdev(values) / len(values) ** 0.5
    return mean, mean - half, mean + half


def ratio(numerator, denominator):
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def fmt(value, spec=".2f"):
    return "n/a" if value is None else format(value, spec)


def make_random_file(path, size):
    """Incompressible content, so no layer can take a shortcut."""
    with open(path, "wb") as f:
        left = size
        while left > 0:
            n = min(left, 8 * MiB)
            f.write(os.urandom(n))
            left -= n


def write_random_at(path, size, spans):
    """A sparse file of `size` bytes (zeros) with random bytes written only over `spans`, a list of
    (first, length); cheap to create even when `size` is large."""
    with open(path, "wb") as f:
        f.truncate(size)
        for first, length in spans:
            f.seek(first)
            left = length
            while left > 0:
                n = min(left, 8 * MiB)
                f.write(os.urandom(n))
                left -= n


def sha256_of(path, first=0):
    """SHA-256 of the file's bytes from `first` to the end."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(first)
        for block in iter(lambda: f.read(8 * MiB), b""):
            digest.update(block)
    return digest.hexdigest()


def http_request(url, headers=None, method="GET", timeout=10.0):
    """(status, headers, body); HTTP errors are answers, not exceptions."""
    body = b"" if method == "POST" else None
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


class Workspace:
    """A temporary folder and the child processes started in it; `with` stops them all."""

    def __init__(self, name, keep=False):
        self.keep = keep
        self.dir = tempfile.mkdtemp(prefix="sluice-bench-%s-" % name)
        self.children = []

    def __enter__(self):
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        return self

    def __exit__(self, *exc):
        for proc in reversed(self.children):
            self.stop(proc)
        if self.keep:
            print("bench: kept %s" % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def mkdir(self, *parts):
        p = self.path(*parts)
        os.makedirs(p, exist_ok=True)
        return p

    def start(self, name, argv, env=None):
        """Starts a peer in its own process group, output to NAME.log in the workspace."""
        log = open(self.path(name + ".log"), "ab")
        proc = subprocess.Popen(
            argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=dict(os.environ, **(env or {})),
            start_new_session=True,
        )
        log.close()
        proc.bench_name = name
        self.children.append(proc)
        return proc

    @staticmethod
    def stop(proc):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def stop_child(self, proc):
        self.stop(proc)
        self.children.remove(proc)

    def log_tail(self, name, lines=20):
        try:
            with open(self.path(name + ".log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def wait_http(self, proc, url, timeout=30.0, ok=lambda status: True):
        """Waits until `url` answers with a status `ok` accepts; fails if `proc` dies first."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise BenchError(
                    "%s exited with %s before answering; its log:\n%s"
                    % (proc.bench_name, proc.returncode, self.log_tail(proc.bench_name))
                )
            try:
                status, _, _ = http_request(url, timeout=2)
                if ok(status):
                    return
                last = "status %d" % status
            except (OSError, urllib.error.URLError) as error:
                last = str(error)
            time.sleep(0.1)
        raise BenchError("%s did not answer %s within %.0fs (%s)" % (proc.bench_name, url, timeout, last))

    # -- peers ------------------------------------------------------------------------------

    def nginx(self, name, blocks):
        """Starts nginx (2 workers, sendfile, keep-alive, no access log); `blocks` go inside `http { }`."""
        prefix = self.mkdir(name)
        # As root, nginx would run its workers as `nobody`, who cannot read the private temp folder.
        user = "user root root;\n" if os.geteuid() == 0 else ""
        conf = """%(user)sworker_processes 2;
daemon off;
pid %(prefix)s/nginx.pid;
error_log %(prefix)s/error.log warn;
events { worker_connections 4096; }
http {
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    # tcp_nopush (TCP_CORK) stalls each 64 KiB response ~40 ms on loopback (measured: 970 req/s
    # with it, 22,000 without), which would make nginx a straw man; leave it off.
    tcp_nopush off;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    client_body_temp_path %(prefix)s/client_body;
    proxy_temp_path %(prefix)s/proxy_temp;
    fastcgi_temp_path %(prefix)s/fastcgi;
    uwsgi_temp_path %(prefix)s/uwsgi;
    scgi_temp_path %(prefix)s/scgi;
%(blocks)s
}
""" % {"user": user, "prefix": prefix, "blocks": blocks}
        conf_path = os.path.join(prefix, "nginx.conf")
        with open(conf_path, "w") as f:
            f.write(conf)
        check = subprocess.run([tool("nginx"), "-t", "-p", prefix, "-c", conf_path], capture_output=True, text=True)
        if check.returncode != 0:
            raise BenchError("nginx rejected its config:\n%s" % check.stderr)
        return self.start(name, [tool("nginx"), "-p", prefix, "-c", conf_path])

    def fault_origin(self, name, root, options=()):
        """Starts Tests/Fixtures/fault_origin.py with extra command-line `options`; returns (process, port)."""
        port_file = self.path(name + ".port")
        proc = self.start(name, [sys.executable, FAULT_ORIGIN, "--root", root, "--port", "0", "--port-file", port_file]
                          + list(options))
        deadline = time.monotonic() + 15
        while not os.path.exists(port_file):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise BenchError("fault origin did not start:\n%s" % self.log_tail(name))
            time.sleep(0.05)
        with open(port_file) as f:
            return proc, int(f.read())

    def rclone_webdav(self, name, root, user, password):
        """Starts `rclone serve webdav` with Basic auth; returns (process, port)."""
        port = free_port()
        proc = self.start(
            name,
            [tool("rclone"), "serve", "webdav", root, "--addr", "127.0.0.1:%d" % port,
             "--user", user, "--pass", password, "--config", "/dev/null"],
        )
        self.wait_http(proc, "http://127.0.0.1:%d/" % port, ok=lambda s: s in (200, 401, 404))
        return proc, port

    def sluice(self, name, binary, upstreams, cache_dir, max_size="4GiB", env=None, cache_options=None,
               server_options=None, log_level="warning"):
        """Writes a gateway config and starts `sluice serve`; returns (process, port).
        `cache_options` adds keys to the `cache` object (e.g. {"chunkSize": "1MiB", "readahead": "1MiB"}),
        `server_options` to the `server` object; `log_level` `info` writes an access line per request (to NAME.log)."""
        config_path, port = self.sluice_config(name, upstreams, cache_dir, max_size, cache_options, server_options,
                                               log_level)
        return self.start_sluice(name, binary, config_path, port, env), port

    def sluice_config(self, name, upstreams, cache_dir, max_size="4GiB", cache_options=None, server_options=None,
                      log_level="warning", sections=None):
        """Writes NAME.json, a gateway config on a free port, with further top-level `sections`; returns (path, port).
        The per-client limits stay on but out of reach: a bench is many clients from one address, and its hits still
        pay for the check."""
        port = free_port()
        limits = {"requestsPerSecond": 1000000, "burst": 10000000, "newAssetsPerMinute": 1000000}
        config = {
            "server": dict({"listen": "127.0.0.1:%d" % port, "limits": limits}, **(server_options or {})),
            "cache": dict({"directory": cache_dir, "maxSize": max_size}, **(cache_options or {})),
            "upstreams": upstreams,
            "logging": {"level": log_level},
        }
        config.update(sections or {})
        config_path = self.path(name + ".json")
        with open(config_path, "w") as f:
            json.dump(config, f, indent=2)
        return config_path, port

    def start_sluice(self, name, binary, config_path, port, env=None):
        """Starts `sluice serve` on a config written by `sluice_config` and waits for /healthz."""
        proc = self.start(name, [binary, "serve", "--config", config_path], env=env)
        self.wait_http(proc, "http://127.0.0.1:%d/healthz" % port, ok=lambda s: s == 200)
        return proc


def build_swift_floor(ws):
    """Builds bench/swift-floor (release, in the workspace): the binary, or None (with a note) when it cannot be
    built here."""
    scratch = ws.path("swift-floor-build")
    build = subprocess.run(["swift", "build", "-c", "release", "--package-path", SWIFT_FLOOR_PACKAGE,
                            "--scratch-path", scratch], capture_output=True, text=True)
    if build.returncode != 0:
        print("swift floor: not measured, swift-floor did not build: %s" % (build.stderr or build.stdout).strip()[-300:])
        return None
    return os.path.join(scratch, "release", "swift-floor")


# -- load tools ---------------------------------------------------------------------------------


def group_cpu_seconds(pgid):
    """User and system CPU seconds used so far by the processes of process group `pgid` (a peer started by
    `Workspace.start`, with its workers), from /proc/PID/stat; threads are counted with their process."""
    tick = os.sysconf("SC_CLK_TCK")
    user = system = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                # The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the name: state, ppid, pgrp, ... utime is field 14 and stime field 15 of the whole line.
        if int(fields[2]) == pgid:
            user += int(fields[11])
            system += int(fields[12])
    return user / tick, system / tick


CURL_FORMAT = "%{http_code} %{size_download} %{time_starttransfer} %{speed_download} %{time_total}"


def curl_once(url, auth=None, output=os.devnull, max_time=None):
    """One GET with curl: dict of status, size, ttfb (s), speed (B/s), total (s). With `max_time` (s), a transfer
    that takes longer fails."""
    argv = [tool("curl"), "-s", "-o", output, "-w", CURL_FORMAT]
    if auth:
        argv += ["-u", auth]
    if max_time:
        argv += ["--max-time", str(max_time)]
    argv.append(url)
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError("curl %s failed (exit %d): %s" % (url, done.returncode, done.stderr.strip()))
    status, size, ttfb, speed, total = done.stdout.split()
    return {"status": int(status), "size": int(size), "ttfb": float(ttfb), "speed": float(speed), "total": float(total)}


def expect_transfer(result, status, size, what):
    if result["status"] != status or result["size"] != size:
        raise BenchError(
            "%s: expected %d with %d bytes, got %d with %d bytes" % (what, status, size, result["status"], result["size"])
        )


WRK_DONE = "BENCH_JSON "


def wrk(url, script, connections, seconds, script_args=(), threads=2):
    """Runs wrk; returns the JSON its Lua `done` hook printed (see bench/random_range.lua)."""
    argv = [tool("wrk"), "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds, "--timeout", "10s",
            "-s", script, url, "--", *map(str, script_args)]
    try:
        # wrk stops itself after `seconds`; the margin is for a machine too loaded to let it.
        done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        raise BenchError("wrk did not finish %d s after its %d s run" % (60, seconds)) from None
    if done.returncode != 0:
        raise BenchError("wrk failed (exit %d): %s" % (done.returncode, done.stderr.strip()))
    for line in done.stdout.splitlines():
        if line.startswith(WRK_DONE):
            return json.loads(line[len(WRK_DONE):])
    raise BenchError("wrk printed no summary:\n%s" % done.stdout)


def check_ranges(url, source, size, who, expect_hit=False):
    """A few random ranges must come back as exact 206s (and, from a warm gateway, as hits)."""
    rng = random.Random(1)
    with open(source, "rb") as f:
        for span in (MiB, 64 * 1024, 1):
            first = rng.randrange(0, size - span + 1)
            last = first + span - 1
            status, headers, body = http_request(url, {"Range": "bytes=%d-%d" % (first, last)}, timeout=30)
            f.seek(first)
            if status != 206 or headers.get("Content-Range") != "bytes %d-%d/%d" % (first, last, size):
                raise BenchError("%s: range %d-%d answered %d %s" % (who, first, last, status,
                                                                     headers.get("Content-Range")))
            if body != f.read(span):
                raise BenchError("%s: range %d-%d has the wrong bytes" % (who, first, last))
            if expect_hit and headers.get("X-Cache") != "HIT":
                raise BenchError("%s: range %d-%d is X-Cache: %s after warming, not HIT"
                                 % (who, first, last, headers.get("X-Cache")))


def settle(pgid, idle=0.02, timeout=120, after="warm-up"):
    """Waits until the gateway has synced and committed what the warm-up (or another fill, `after`) wrote (it
    does that in the background, which would otherwise be measured as the next runs' CPU and compete with them):
    until a second passes in which its processes use less than `idle` CPU seconds."""
    began = time.monotonic()
    before = sum(group_cpu_seconds(pgid))
    while time.monotonic() - began < timeout:
        time.sleep(1)
        now = sum(group_cpu_seconds(pgid))
        if now - before < idle:
            print("gateway idle after %s: %.0f s" % (after, time.monotonic() - began))
            return
        before = now
    raise BenchError("gateway still busy %d s after %s" % (timeout, after))


def measure_ranges(url, pgid, size, label, span, connections, seconds, who):
    """One wrk run of random `span`-byte ranges (random_range.lua) against `url`, with the CPU that the server's
    process group `pgid` spent on it; any error or a byte count that shows a range was ignored fails it."""
    user_before, system_before = group_cpu_seconds(pgid)
    result = wrk(url, RANDOM_RANGE_LUA, connections, seconds, script_args=(size, span))
    user_after, system_after = group_cpu_seconds(pgid)
    errors = sum(result["errors"].values())
    if result["requests"] == 0 or errors:
        raise BenchError("%s: wrk saw %d requests and errors %s" % (who, result["requests"], result["errors"]))
    # wrk counts header bytes, and the bytes of responses still in flight when it stops (at most
    # one per connection); far more than that means the Range was ignored.
    most = result["requests"] * (span + 2048) + connections * span
    if not result["requests"] * span <= result["bytes"] <= most:
        raise BenchError("%s: %d bytes in %d requests for %d-byte ranges" % (
            who, result["bytes"], result["requests"], span))
    result["cpuMicrosPerRequest"] = {"user": (user_after - user_before) / result["requests"] * 1e6,
                                     "system": (system_after - system_before) / result["requests"] * 1e6}
    print("%-17s %6s ranges: %8.1f req/s %8.1f MiB/s  p50 %.2f ms  p99 %.2f ms  CPU/request %.1f us user %.1f us sys"
          % (who, label, result["requestsPerSecond"], result["bytesPerSecond"] / MiB, result["latencyMs"]["p50"],
             result["latencyMs"]["p99"], result["cpuMicrosPerRequest"]["user"],
             result["cpuMicrosPerRequest"]["system"]))
    return result


def interleaved_rounds(servers, size, label, span, rounds, connections, seconds, ratios):
    """`rounds` rounds in which every server of `servers` (name, URL, process group) is measured once by
    `measure_ranges`, the order rotated each round. Returns each server's runs, median requests/s and CPU per
    request, and under "ratios" each of `ratios` (name, top server, bottom server) per round with its median,
    min, max and mean with its 95 % confidence interval."""
    runs = {who: [] for who, _, _ in servers}
    for index in range(rounds):
        shift = index % len(servers)
        for who, url, pgid in servers[shift:] + servers[:shift]:
            runs[who].append(measure_ranges(url, pgid, size, label, span, connections, seconds, who))
    row = {who: {"runs": results, "requestsPerSecond": median([r["requestsPerSecond"] for r in results]),
                 "bytesPerSecond": median([r["bytesPerSecond"] for r in results]),
                 "cpuMicrosPerRequest": {kind: median([r["cpuMicrosPerRequest"][kind] for r in results])
                                         for kind in ("user", "system")}}
           for who, results in runs.items()}
    row["ratios"] = {}
    for name, top, bottom in ratios:
        if top in runs and bottom in runs:
            per_round = [ratio(t["requestsPerSecond"], u["requestsPerSecond"])
                         for t, u in zip(runs[top], runs[bottom])]
            row["ratios"][name] = ratio_stats(per_round)
    return row


def ratio_stats(per_round):
    """Median, min, max, mean and its 95 % confidence interval of per-round ratios, and the ratios."""
    mean, low, high = mean_interval(per_round)
    return {"median": median(per_round), "min": min(per_round), "max": max(per_round), "mean": mean,
            "mean95Low": low, "mean95High": high, "perRound": per_round}


def ratio_text(stats):
    """`ratio_stats` in one phrase: "0.91 (0.85-0.96; mean 0.90, 95% CI 0.86-0.94)"."""
    if stats is None:
        return "n/a"
    return "%s (%s-%s; mean %s, 95%% CI %s-%s)" % (fmt(stats["median"]), fmt(stats["min"]), fmt(stats["max"]),
                                                   fmt(stats["mean"]), fmt(stats["mean95Low"]),
                                                   fmt(stats["mean95High"]))


# -- results ------------------------------------------------------------------------------------

def versions(sluice=None):
    def first_line(argv):
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        text = (done.stdout or done.stderr).strip()
        return text.splitlines()[0] if text else None

    found = {"python": platform.python_version()}
    for name, flag in (("nginx", "-v"), ("rclone", "version"), ("wrk", "--version"), ("curl", "--version")):
        path = shutil.which(name, path=SEARCH_PATH)
        found[name] = first_line([path, flag]) if path else None
    if sluice:
        found["sluice"] = first_line([sluice, "version"])
    return found


def write_results(name, params, results, summary, sluice=None):
    """Writes bench/results/NAME.json and NAME.txt and prints the summary."""
    os.makedirs(RESULTS_DIR, exist_ok=True)
    document = {
        "benchmark": name,
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cores": os.cpu_count(), "kernel": platform.release(), "machine": platform.machine()},
        "versions": versions(sluice),
        "params": params,
        "results": results,
        "summary": summary,
    }
    with open(os.path.join(RESULTS_DIR, name + ".json"), "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
    with open(os.path.join(RESULTS_DIR, name + ".txt"), "w") as f:
        f.write(summary + "\n")
    print("\n" + summary)
    print("bench: wrote bench/results/%s.json and bench/results/%s.txt" % (name, name))


def main(run):
    """Runs `run()`, turning a BenchError into a one-line failure and exit status 1."""
    try:
        run()
    except BenchError as error:
        sys.stderr.write("bench: FAILED: %s\n" % error)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.stderr.write("bench: interrupted\n")
        sys.exit(130)
