"""The cluster of deploy/cluster without containers: three `sluice serve` processes behind Debian's nginx, with the
upstream block and proxy settings of deploy/cluster/nginx.conf (only the node addresses and the listen port are
rewritten, so the test cannot drift from the file), over the fault origin, which counts what it is asked for.

Asserts: 200 assets read twice through nginx are fetched from the origin once each in all (consistent hashing
sends each to one node), the second pass is all HIT; after one node stops, only that node's assets (about a
third) are fetched again, by the others, every other asset is still a HIT, and no request fails."""

import os
import re
import shutil
import tempfile
import unittest
from pathlib import Path

from cluster_support import (FAULT_ORIGIN, NGINX, REPOSITORY, SLUICE, Child, free_port, get, get_json, listening,
                             poll)

ASSETS = 200
ASSET_BYTES = 8 * 1024
TOKEN = "cluster-test-admin-token-0123456789abcdef"
NGINX_CONF = REPOSITORY / "deploy" / "cluster" / "nginx.conf"


def nginx_site(node_ports, listen_port):
    """deploy/cluster/nginx.conf with sluice-N:8080 -> 127.0.0.1:PORT and `listen 8080` -> 127.0.0.1:PORT."""
    text = NGINX_CONF.read_text()
    servers = re.findall(r"^\s*server sluice-(\d+):8080\b", text, re.MULTILINE)
    if sorted(servers) != sorted(str(n) for n in node_ports):
        raise AssertionError(f"{NGINX_CONF} names nodes {servers}, the test runs {sorted(node_ports)}")
    text = re.sub(r"\bserver sluice-(\d+):8080\b", lambda m: f"server 127.0.0.1:{node_ports[int(m[1])]}", text)
    text, listens = re.subn(r"^(\s*)listen 8080;", rf"\g<1>listen 127.0.0.1:{listen_port};", text, flags=re.M)
    if listens != 1:
        raise AssertionError(f"{NGINX_CONF}: expected one `listen 8080;`, found {listens}")
    return text


class ClusterTests(unittest.TestCase):
    def setUp(self):
        for tool in (SLUICE, NGINX):
            if not tool.exists():
                self.fail(f"{tool} is missing (make test builds sluice; scripts/install-deps --test installs nginx)")
        self.work = Path(tempfile.mkdtemp(prefix="sluice-cluster-"))
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)
        self.children = []
        self.addCleanup(lambda: [child.stop() for child in reversed(self.children)])

        media = self.work / "media"
        media.mkdir()
        self.content = {}
        for index in range(ASSETS):
            name = f"asset-{index:03}.bin"
            self.content[name] = os.urandom(ASSET_BYTES)
            (media / name).write_bytes(self.content[name])

        port_file = self.work / "origin.port"
        self.start(["/usr/bin/python3", FAULT_ORIGIN, "--root", media, "--port", "0", "--port-file", port_file],
                   "origin.log")
        self.assertTrue(poll(port_file.exists), "the fault origin wrote no port file")
        self.origin = int(port_file.read_text())

        self.nodes = {}
        for number in (1, 2, 3):
            self.nodes[number] = self.start_node(number)

        self.balancer = free_port()
        site = self.work / "site.conf"
        site.write_text(nginx_site({n: node["port"] for n, node in self.nodes.items()}, self.balancer))
        temp = self.work / "nginx"
        temp.mkdir()
        main = self.work / "nginx.conf"
        main.write_text(f"""
            worker_processes 1;
            pid {temp}/nginx.pid;
            error_log {temp}/error.log;
            events {{ worker_connections 1024; }}
            http {{
                access_log off;
                client_body_temp_path {temp}/body;
                proxy_temp_path {temp}/proxy;
                fastcgi_temp_path {temp}/fastcgi;
                uwsgi_temp_path {temp}/uwsgi;
                scgi_temp_path {temp}/scgi;
                include {site};
            }}
            """)
        self.nginx = self.start([NGINX, "-p", temp, "-e", temp / "error.log", "-c", main, "-g", "daemon off;"],
                                "nginx.log")
        self.assertTrue(poll(lambda: listening(self.balancer)), f"nginx did not listen: {self.nginx.log()}")

    def start(self, arguments, log):
        child = Child(arguments, self.work / log)
        self.children.append(child)
        return child

    def start_node(self, number):
        port, admin = free_port(), free_port()
        directory = self.work / f"node-{number}"
        directory.mkdir()
        (directory / "admin.token").write_text(TOKEN)
        (directory / "sluice.json").write_text(f"""{{
            "server": {{ "listen": "127.0.0.1:{port}", "adminListen": "127.0.0.1:{admin}",
                         "adminTokenFile": "./admin.token", "shutdownGrace": "5s" }},
            "cache": {{ "directory": "./cache" }},
            "upstreams": {{ "nas": {{ "kind": "http", "baseURL": "http://127.0.0.1:{self.origin}/" }} }}
        }}""")
        child = self.start([SLUICE, "serve", "--config", directory / "sluice.json"], f"node-{number}.log")
        self.assertTrue(poll(lambda: listening(admin) and get(admin, "/readyz")[0] == 200),
                        f"node {number} did not get ready: {child.log()}")
        return {"port": port, "admin": admin, "child": child}

    def origin_gets(self):
        """GETs the origin answered per asset name."""
        stats = get_json(self.origin, "/_stats")
        self.assertLessEqual(stats["requests"], 1000, "more requests than /_stats keeps in `recent`")
        recent = stats["recent"]
        counts = {}
        for request in recent:
            if request["method"] == "GET":
                name = request["path"].rsplit("/", 1)[-1]
                counts[name] = counts.get(name, 0) + 1
        return counts

    def read_all(self):
        """Reads every asset through nginx, byte-exact; X-Cache per asset name."""
        caches = {}
        for name, data in self.content.items():
            status, headers, body = get(self.balancer, f"/stream/nas/{name}")
            self.assertEqual(status, 200, f"{name}: {status} {body[:200]!r}")
            self.assertEqual(body, data, f"{name}: the bytes differ")
            caches[name] = headers.get("x-cache")
        return caches

    def cached_on(self, number):
        assets = get_json(self.nodes[number]["admin"], "/admin/cache/assets?limit=1000", TOKEN)["assets"]
        return {asset["assetId"].rsplit("/", 1)[-1] for asset in assets}

    def test_each_asset_is_cached_on_one_node_and_a_stopped_node_moves_only_its_share(self):
        first = self.read_all()
        self.assertEqual(set(first.values()), {"MISS"}, "the first pass found cached assets")
        fetched = self.origin_gets()
        self.assertEqual(set(fetched), set(self.content), "assets the origin never served")
        self.assertEqual({n for n, c in fetched.items() if c != 1}, set(), "assets fetched more than once")

        second = self.read_all()
        self.assertEqual({n for n, c in second.items() if c != "HIT"}, set(), "second-pass assets that missed")
        self.assertEqual(self.origin_gets(), fetched, "the second pass reached the origin")

        shares = {number: self.cached_on(number) for number in self.nodes}
        sizes = {number: len(share) for number, share in shares.items()}
        self.assertEqual(sum(sizes.values()), ASSETS, f"each asset on one node: {sizes}")
        self.assertEqual(set().union(*shares.values()), set(self.content))
        for number, size in sizes.items():
            self.assertTrue(ASSETS * 0.15 <= size <= ASSETS * 0.55, f"node {number} holds {size} of {ASSETS}")

        stopped = 3
        self.assertEqual(self.nodes[stopped]["child"].stop(), 0, "the stopped node did not exit 0")
        third = self.read_all()  # no request fails: read_all asserts 200 and the bytes of every one
        moved = {name for name, cache in third.items() if cache != "HIT"}
        self.assertEqual(moved, shares[stopped], "assets other than the stopped node's moved")
        refetched = {n: c - fetched.get(n, 0) for n, c in self.origin_gets().items() if c != fetched.get(n, 0)}
        self.assertEqual(refetched, {name: 1 for name in shares[stopped]}, "origin fetches after the stop")

        fourth = self.read_all()
        self.assertEqual({n for n, c in fourth.items() if c != "HIT"}, set(), "moved assets were not kept")
        print(f"cluster: {ASSETS} assets, shares {[sizes[n] for n in sorted(sizes)]}; "
              f"node {stopped} stopped, {len(moved)} moved ({len(moved) / ASSETS:.0%}), no request failed")


if __name__ == "__main__":
    unittest.main()
