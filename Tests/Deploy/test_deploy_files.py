"""Checks of deploy/ that need no container engine: yamllint on every YAML file, kubernetes-validate on the manifests
(rendered by kustomize when it is installed, else file by file, with the overlay's patches applied to the base by
path), `systemd-analyze verify` on the unit, `sluice check-config` on every config that deploy/ ships, and the
Dockerfile's runtime packages against what the built binary links (scripts/check-runtime-packages). The image
itself is built and run by `make image-test`."""

import json
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import yaml

from cluster_support import REPOSITORY, SLUICE

DEPLOY = REPOSITORY / "deploy"
VENV = REPOSITORY / ".venv" / "bin"
KUBERNETES_VERSION = "1.34.0"
KUBERNETES = DEPLOY / "kubernetes"


def run(arguments, **options):
    return subprocess.run([str(a) for a in arguments], capture_output=True, text=True, **options)


def tool(name):
    path = VENV / name
    if not path.exists():
        raise AssertionError(f"{path} is missing: run scripts/install-deps --test")
    return path


def kustomization(directory):
    return yaml.safe_load((directory / "kustomization.yaml").read_text())


def resource_files(directory):
    """The manifest files a kustomization names, its bases' first (by path, as kustomize reads them)."""
    files = []
    for entry in kustomization(directory)["resources"]:
        path = (directory / entry).resolve()
        files += resource_files(path) if path.is_dir() else [path]
    return files


def documents(files):
    return [doc for path in files for doc in yaml.safe_load_all(path.read_text()) if doc]


def apply_patch(document, operations):
    """The `replace` and `add` operations of a JSON patch (RFC 6902), on a path that must exist."""
    for operation in operations:
        keys = [int(key) if key.isdigit() else key for key in operation["path"].strip("/").split("/")]
        parent = document
        for key in keys[:-1]:
            parent = parent[key]
        if operation["op"] == "replace":
            parent[keys[-1]]  # a replace of a path that does not exist is an error in kustomize too
        elif operation["op"] != "add":
            raise AssertionError(f"the test applies replace and add only, not {operation['op']}")
        parent[keys[-1]] = operation["value"]


class DeployFileTests(unittest.TestCase):
    def test_yaml_files_pass_yamllint(self):
        result = run([tool("yamllint"), "--strict", "-c", DEPLOY / ".yamllint.yaml", DEPLOY])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_kubernetes_manifests_are_valid(self):
        work = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, work)
        kustomize = shutil.which("kustomize")
        rendered = []
        for name, directory in (("base", KUBERNETES / "base"), ("example", KUBERNETES / "overlays" / "example")):
            output = work / f"{name}.yaml"
            if kustomize:
                result = run([kustomize, "build", directory])
                self.assertEqual(result.returncode, 0, result.stderr)
                output.write_text(result.stdout)
            else:
                output.write_text(yaml.safe_dump_all(self.overlay_without_kustomize(directory)))
            rendered.append(output)
        result = run([tool("kubernetes-validate"), "--strict", "-k", KUBERNETES_VERSION, *rendered])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertNotIn("WARN", result.stdout + result.stderr)
        kinds = {doc["kind"] for doc in documents(rendered)}
        self.assertLessEqual(
            {"StatefulSet", "ConfigMap", "Secret", "Service", "PodDisruptionBudget", "Ingress"}, kinds, kinds)

    def overlay_without_kustomize(self, directory):
        """What kustomize would render for the parts these overlays use: resources, JSON patches, namespace."""
        config = kustomization(directory)
        self.assertLessEqual(set(config), {"apiVersion", "kind", "labels", "namespace", "resources", "images",
                                           "patches"}, "a kustomize feature this fallback does not render")
        docs = documents(resource_files(directory))
        for patch in config.get("patches", []):
            target = patch["target"]
            matches = [d for d in docs if d["kind"] == target["kind"] and d["metadata"]["name"] == target["name"]]
            self.assertEqual(len(matches), 1, f"patch target {target}")
            apply_patch(matches[0], yaml.safe_load(patch["patch"]))
        for doc in docs:
            if "namespace" in config and doc["kind"] != "Namespace":
                doc["metadata"]["namespace"] = config["namespace"]
        return docs

    def test_statefulset_probes_the_admin_listener_and_keeps_a_claim_per_pod(self):
        docs = {doc["kind"]: doc for doc in documents(resource_files(KUBERNETES / "base"))}
        spec = docs["StatefulSet"]["spec"]
        container = spec["template"]["spec"]["containers"][0]
        self.assertEqual(container["readinessProbe"]["httpGet"], {"path": "/readyz", "port": "admin"})
        self.assertEqual(container["livenessProbe"]["httpGet"], {"path": "/healthz", "port": "admin"})
        self.assertTrue(container["securityContext"]["readOnlyRootFilesystem"])
        self.assertTrue(spec["template"]["spec"]["securityContext"]["runAsNonRoot"])
        self.assertEqual([c["metadata"]["name"] for c in spec["volumeClaimTemplates"]], ["cache"])
        config = json.loads(docs["ConfigMap"]["data"]["sluice.json"])
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        self.assertEqual(config["server"]["listen"], f"0.0.0.0:{ports['http']}")
        self.assertEqual(config["server"]["adminListen"], f"0.0.0.0:{ports['admin']}")
        annotations = docs["Ingress"]["metadata"]["annotations"]
        self.assertEqual(annotations["nginx.ingress.kubernetes.io/upstream-hash-by"], "$uri")

    def test_systemd_unit_passes_systemd_analyze_verify(self):
        analyze = shutil.which("systemd-analyze")
        self.assertIsNotNone(analyze, "systemd-analyze is missing: scripts/install-deps --test installs systemd")
        unit = (DEPLOY / "systemd" / "sluice.service").read_text()
        for directive in ("DynamicUser=yes", "CacheDirectory=sluice", "StateDirectory=sluice", "ProtectSystem=strict",
                          "NoNewPrivileges=yes", "Restart=on-failure",
                          "ExecStartPre=/usr/local/bin/sluice check-config /etc/sluice/sluice.json"):
            self.assertRegex(unit, rf"(?m)^{re.escape(directive)}$")
        self.assertRegex(unit, r"(?m)^LimitNOFILE=\d+$")
        work = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, work)
        # verify checks that ExecStart's program exists: the built one stands in for /usr/local/bin/sluice.
        (work / "sluice.service").write_text(unit.replace("/usr/local/bin/sluice", str(SLUICE)))
        result = run([analyze, "verify", work / "sluice.service"])
        self.assertEqual((result.returncode, result.stdout + result.stderr), (0, ""))

    def test_every_shipped_config_passes_check_config(self):
        configs = {path: path.read_text() for path in DEPLOY.rglob("*.json")}
        for doc in documents([KUBERNETES / "base" / "configmap.yaml"]):
            configs[KUBERNETES / "base" / "configmap.yaml"] = doc["data"]["sluice.json"]
        self.assertEqual(len(configs), 4, sorted(configs))
        work = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, work)
        for path, text in configs.items():
            # Secrets are mounted under /run/secrets at run time; dummy files stand in for them.
            def stand_in(match):
                secret = work / match[1].replace("/", "_")
                secret.write_text("check-config-dummy-secret")
                return str(secret)

            config = work / "sluice.json"
            config.write_text(re.sub(r"/run/secrets/([\w./-]+)", stand_in, text))
            result = run([SLUICE, "check-config", config])
            self.assertEqual(result.returncode, 0, f"{path}: {result.stdout}{result.stderr}")

    def test_runtime_packages_match_what_the_binary_links(self):
        result = run([REPOSITORY / "scripts" / "check-runtime-packages", SLUICE, DEPLOY / "Dockerfile"])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_dockerfile_builds_a_non_root_draining_image_with_official_defaults(self):
        text = (DEPLOY / "Dockerfile").read_text()
        self.assertRegex(text, r"(?m)^ARG BUILDER_IMAGE=swift:\S+$")
        self.assertRegex(text, r"(?m)^ARG RUNTIME_IMAGE=debian:\S+-slim$")
        self.assertIn("--static-swift-stdlib", text)
        self.assertRegex(text, r"(?m)^USER sluice")
        self.assertRegex(text, r'(?m)^VOLUME \["/var/cache/sluice"\]$')
        self.assertRegex(text, r"(?m)^STOPSIGNAL SIGTERM$")
        self.assertRegex(text, r"(?m)^HEALTHCHECK .*\n.*/healthz")
        copied = re.findall(r"(?m)^COPY (?!--from)(\S+)", text)
        self.assertEqual(copied, ["Package.swift", "Sources", "Tests", "deploy/image/sluice.json"])

    def test_compose_files_mount_what_exists_and_the_cluster_matches_nginx(self):
        for compose in (DEPLOY / "compose.yaml", DEPLOY / "cluster" / "compose.yaml"):
            services = yaml.safe_load(compose.read_text())["services"]
            for name, service in services.items():
                for volume in service.get("volumes", []):
                    source = volume.split(":")[0]
                    if source.startswith("."):
                        self.assertTrue((compose.parent / source).exists(), f"{compose} {name}: {source}")
        nodes = {n for n in yaml.safe_load((DEPLOY / "cluster" / "compose.yaml").read_text())["services"]
                 if n.startswith("sluice-")}
        upstreams = set(re.findall(r"server (sluice-\d+):8080", (DEPLOY / "cluster" / "nginx.conf").read_text()))
        self.assertEqual(nodes, upstreams)


if __name__ == "__main__":
    unittest.main()
