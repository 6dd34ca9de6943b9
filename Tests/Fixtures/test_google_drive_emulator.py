"""Tests of google_drive_emulator.py itself, so the Swift Google Drive tests stand on a checked emulator.

    python3 -m unittest discover -s Tests/Fixtures -p 'test_*.py'      (part of `make test`)
"""

import base64
import hashlib
import json
import os
import subprocess
import tempfile
import time
import unittest
import urllib.parse

from google_drive_emulator import BadQuery, parse_query
from http_fixtures import EmulatorProcess, EmulatorTestCase

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = "gd-client.apps.googleusercontent.com"
ACCOUNT = "reader@sluice-test.iam.gserviceaccount.com"
SIZE = 300_001
ODD = "It's a \\ name.bin"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def quoted(value):
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Drive(EmulatorProcess):
    def __init__(self, root, *extra):
        super().__init__(os.path.join(HERE, "google_drive_emulator.py"), root, "--client-id", CLIENT, *extra)

    def token(self, **form):
        return self.token_form("/token", CLIENT, None, form)

    def call(self, path, token, headers=None, **query):
        query.setdefault("supportsAllDrives", "true")
        return self.request("/drive/v3/files" + path + "?" + urllib.parse.urlencode(query),
                            dict(headers or {}, Authorization="Bearer " + token))

    def json_call(self, path, token, headers=None, **query):
        status, _, body = self.call(path, token, headers, **query)
        return status, json.loads(body) if body else None


class QueryParserTests(unittest.TestCase):
    def test_the_subset_sluice_sends(self):
        self.assertEqual(parse_query("name = 'It\\'s a \\\\ name' and 'root' in parents and trashed = false and "
                                     "mimeType = 'application/vnd.google-apps.folder'"),
                         [("name", "It's a \\ name"), ("parent", "root"), ("trashed", False),
                          ("mimeType", "=", "application/vnd.google-apps.folder")])

    def test_malformed_queries_are_refused(self):
        for q in ("name = 'a\\b'", "name = 'open", "name = 'a' or trashed = false", "name contains 'a'", "",
                  "name = 'a' and", "name = 'a\\'"):
            with self.subTest(q=q):
                with self.assertRaises(BadQuery):
                    parse_query(q)


class GoogleDriveEmulatorTests(EmulatorTestCase):
    """One emulator with 30 s tokens, a service account, and a tree with a file under an awkward name, a Docs file
    and a media file."""

    @classmethod
    def start(cls, root):
        cls.keys = tempfile.TemporaryDirectory()
        cls.private = os.path.join(cls.keys.name, "key.pem")
        public = os.path.join(cls.keys.name, "pub.pem")
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
                        cls.private], check=True, capture_output=True)
        subprocess.run(["openssl", "pkey", "-in", cls.private, "-pubout", "-out", public], check=True,
                       capture_output=True)
        return Drive(root, "--access-token-ttl", "30", "--refresh-token", "seed-1", "--service-account-email",
                     ACCOUNT, "--service-account-public-key", public)

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.keys.cleanup()

    @classmethod
    def make_tree(cls, root):
        cls.data = os.urandom(SIZE)
        cls.put("Music/" + ODD, cls.data)
        cls.put("Docs/Notes.gdoc", b"{}")
        cls.put("clip.mp4", b"x" * 1000)

    def access(self):
        status, answer = self.emu.token(grant_type="refresh_token", refresh_token="seed-1")
        self.assertEqual(status, 200, answer)
        return answer["access_token"]

    def child(self, token, name, parent):
        status, answer = self.emu.json_call(
            "", token, q="name = %s and %s in parents and trashed = false" % (quoted(name), quoted(parent)),
            fields="files(id,mimeType)")
        self.assertEqual(status, 200, answer)
        return answer["files"]

    def file_id(self, token, *names):
        parent = "root"
        for name in names:
            parent = self.child(token, name, parent)[0]["id"]
        return parent

    def sign(self, claims, header=None):
        signing_input = (b64url(json.dumps(header or {"alg": "RS256", "typ": "JWT"}).encode()) + "."
                         + b64url(json.dumps(claims).encode()))
        signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", self.private], input=signing_input.encode(),
                                   check=True, capture_output=True).stdout
        return signing_input + "." + b64url(signature)

    def claims(self, **extra):
        t = int(time.time())
        return dict({"iss": ACCOUNT, "scope": "https://www.googleapis.com/auth/drive.readonly",
                     "aud": "http://127.0.0.1:%d/token" % self.emu.api, "iat": t, "exp": t + 3600}, **extra)

    # -- OAuth ----------------------------------------------------------------------------

    def test_refresh_does_not_rotate(self):
        for _ in range(2):
            status, answer = self.emu.token(grant_type="refresh_token", refresh_token="seed-1")
            self.assertEqual(status, 200, answer)
            self.assertNotIn("refresh_token", answer)
            self.assertEqual((answer["token_type"], answer["expires_in"]), ("Bearer", 30))

    def test_the_jwt_bearer_grant_checks_signature_issuer_audience_and_lifetime(self):
        status, answer = self.emu.form("/token", {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                                  "assertion": self.sign(self.claims(sub="ann@example.com"))})
        self.assertEqual(status, 200, answer)
        self.assertNotIn("refresh_token", answer)
        self.assertEqual(self.emu.json_call("/" + self.file_id(answer["access_token"], "clip.mp4"),
                                            answer["access_token"], fields="size")[1], {"size": "1000"})
        tampered = self.sign(self.claims())[:-8] + "AAAAAAAA"
        cases = ((tampered, "invalid_grant"), (self.sign(self.claims(iss="other@x")), "invalid_client"),
                 (self.sign(self.claims(aud="https://oauth2.googleapis.com/token")), "invalid_grant"),
                 (self.sign(self.claims(exp=int(time.time()) + 7200)), "invalid_grant"),
                 (self.sign(self.claims(scope="https://www.googleapis.com/auth/drive.file")), "invalid_scope"),
                 (self.sign(self.claims(), {"alg": "HS256"}), "invalid_grant"), ("a.b", "invalid_grant"))
        for assertion, error in cases:
            with self.subTest(error=error):
                status, answer = self.emu.form("/token", {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                                          "assertion": assertion})
                self.assertIn(status, (400, 401))
                self.assertEqual(answer["error"], error)
        stats = self.emu.stats()
        self.assertEqual((stats["jwtGrants"], stats["jwtSubjects"]), (1, {"ann@example.com": 1}))

    def test_access_type_offline_gives_a_refresh_token(self):
        verifier = b64url(os.urandom(32))
        challenge = b64url(hashlib.sha256(verifier.encode()).digest())
        self.emu.control("/_approve", {"authorize": True})
        query = urllib.parse.urlencode({"response_type": "code", "client_id": CLIENT, "access_type": "offline",
                                        "redirect_uri": "http://127.0.0.1:8765/cb", "code_challenge": challenge,
                                        "code_challenge_method": "S256", "scope": "drive.readonly"})
        status, headers, _ = self.emu.request("/authorize?" + query)
        self.assertEqual(status, 302)
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers["Location"]).query))["code"]
        status, answer = self.emu.token(grant_type="authorization_code", code=code, code_verifier=verifier,
                                        redirect_uri="http://127.0.0.1:8765/cb")
        self.assertEqual(status, 200, answer)
        self.assertIn("refresh_token", answer)

    # -- files ----------------------------------------------------------------------------

    def test_a_path_with_a_quote_and_a_backslash_resolves_and_its_bytes_come_in_ranges(self):
        token = self.access()
        file_id = self.file_id(token, "Music", ODD)
        status, item = self.emu.json_call("/" + file_id, token, fields="id,name,mimeType,size,md5Checksum,version")
        self.assertEqual(status, 200, item)
        self.assertEqual((item["name"], item["size"], item["md5Checksum"]),
                         (ODD, str(SIZE), hashlib.md5(self.data).hexdigest()))
        status, headers, body = self.emu.call("/" + file_id, token, {"Range": "bytes=1000-1999"}, alt="media")
        self.assertEqual((status, headers["Content-Range"], body), (206, "bytes 1000-1999/%d" % SIZE,
                                                                    self.data[1000:2000]))
        status, headers, _ = self.emu.call("/" + file_id, token, {"Range": "bytes=%d-" % SIZE}, alt="media")
        self.assertEqual((status, headers["Content-Range"]), (416, "bytes */%d" % SIZE))

    def test_a_bad_escape_is_400_invalid(self):
        status, answer = self.emu.json_call("", self.access(), q="name = 'a\\b' and 'root' in parents")
        self.assertEqual((status, answer["error"]["errors"][0]["reason"], answer["error"]["errors"][0]["location"]),
                         (400, "invalid", "q"))
        self.assertEqual(self.emu.stats()["badQueries"], 1)

    def test_every_call_needs_supports_all_drives_and_a_live_token(self):
        token = self.access()
        file_id = self.file_id(token, "clip.mp4")
        self.assertEqual(self.emu.call("/" + file_id, token, supportsAllDrives="false")[0], 404)
        self.assertEqual(self.emu.call("/" + file_id, "nope")[0], 401)
        self.emu.control("/_expire-access-tokens")
        status, headers, body = self.emu.call("/" + file_id, token)
        self.assertEqual((status, json.loads(body)["error"]["errors"][0]["reason"]), (401, "authError"))
        self.assertIn("WWW-Authenticate", headers)
        self.assertEqual(self.emu.call("", self.access(), q="'root' in parents", driveId="x")[0], 400)

    def test_docs_files_have_no_bytes(self):
        token = self.access()
        file_id = self.file_id(token, "Docs", "Notes.gdoc")
        status, item = self.emu.json_call("/" + file_id, token, fields="mimeType,size")
        self.assertEqual((status, item), (200, {"mimeType": "application/vnd.google-apps.document"}))
        status, answer = self.emu.json_call("/" + file_id, token, alt="media")
        self.assertEqual((status, answer["error"]["errors"][0]["reason"]), (403, "fileNotDownloadable"))

    def test_a_link_shared_file_needs_its_resource_key(self):
        token = self.access()
        file_id = self.emu.control("/_resource-key", {"path": "clip.mp4", "key": "0-abcDEF"})[1]["id"]
        self.assertEqual(self.emu.call("/" + file_id, token)[0], 404)
        self.assertEqual(self.emu.call("/" + file_id, token, {"X-Goog-Drive-Resource-Keys": file_id + "/0-wrong"})[0],
                         404)
        status, item = self.emu.json_call("/" + file_id, token, {"X-Goog-Drive-Resource-Keys": "x/y, %s/0-abcDEF"
                                                                 % file_id}, fields="resourceKey")
        self.assertEqual((status, item), (200, {"resourceKey": "0-abcDEF"}))
        self.assertEqual(self.emu.stats()["resourceKeyRefusals"], 2)

    def test_an_abusive_file_needs_acknowledge_abuse(self):
        token = self.access()
        file_id = self.emu.control("/_abusive", {"path": "clip.mp4"})[1]["id"]
        status, answer = self.emu.json_call("/" + file_id, token, alt="media")
        self.assertEqual((status, answer["error"]["errors"][0]["reason"]), (403, "cannotDownloadAbusiveFile"))
        status, _, body = self.emu.call("/" + file_id, token, alt="media", acknowledgeAbuse="true")
        self.assertEqual((status, body), (200, b"x" * 1000))

    def test_quota_errors_on_demand(self):
        token = self.access()
        file_id = self.file_id(token, "clip.mp4")
        self.assertEqual(self.emu.control("/_quota", {"count": 2, "reason": "downloadQuotaExceeded",
                                                      "scope": "media"})[0], 204)
        self.assertEqual(self.emu.call("/" + file_id, token)[0], 200)  # metadata is not in scope
        for _ in range(2):
            status, headers, body = self.emu.call("/" + file_id, token, alt="media")
            self.assertEqual((status, json.loads(body)["error"]["errors"][0]["reason"]),
                             (403, "downloadQuotaExceeded"))
            self.assertNotIn("Retry-After", headers)
        self.assertEqual(self.emu.call("/" + file_id, token, alt="media")[0], 200)
        self.emu.control("/_quota", {"count": 1, "status": 429, "reason": "rateLimitExceeded"})
        self.assertEqual(self.emu.call("/" + file_id, token)[0], 429)
        self.assertEqual(self.emu.control("/_quota", {"reason": "nope"})[0], 400)
        self.assertEqual(self.emu.stats()["quotaErrors"], 3)


class SharedDriveTests(EmulatorTestCase):
    @classmethod
    def start(cls, root):
        return Drive(root, "--refresh-token", "seed-1", "--drive-id", "0AShared")

    @classmethod
    def make_tree(cls, root):
        cls.put("a.bin", b"abc")

    def test_lists_need_corpora_drive(self):
        token = self.emu.token(grant_type="refresh_token", refresh_token="seed-1")[1]["access_token"]
        q = "name = 'a.bin' and '0AShared' in parents and trashed = false"
        status, answer = self.emu.json_call("", token, q=q, driveId="0AShared", corpora="drive",
                                            includeItemsFromAllDrives="true", fields="files(id)")
        self.assertEqual((status, len(answer["files"])), (200, 1))
        self.assertEqual(self.emu.json_call("", token, q=q, driveId="0AShared")[0], 400)


if __name__ == "__main__":
    unittest.main()
