"""Tests of box_emulator.py itself, so the Swift Box tests stand on a checked emulator.

    python3 -m unittest discover -s Tests/Fixtures -p 'test_*.py'      (part of `make test`)
"""

import base64
import hashlib
import json
import os
import secrets
import shutil
import time
import unittest
import urllib.parse

from http_fixtures import EmulatorProcess, EmulatorTestCase, basic_auth as basic

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = "box-client-id"
SECRET = "box-client-secret"
REDIRECT = "http://127.0.0.1:8765/"
SIZE = 300_000
REL = "Música/Album/🎵 b+c.mp3"


class Box(EmulatorProcess):
    """box_emulator.py for the app CLIENT (secret SECRET): its token endpoint and the 2.0 API."""

    def __init__(self, root, *extra):
        super().__init__(os.path.join(HERE, "box_emulator.py"), root, "--client-id", CLIENT, "--client-secret",
                         SECRET, *extra)

    def token(self, headers=None, **form):
        if headers is None:
            form.setdefault("client_secret", SECRET)
        return self.token_form("/oauth2/token", CLIENT, headers, form)

    def call(self, path, token, headers=None):
        status, headers, body = self.request("/2.0/" + path, dict(headers or {}, Authorization="Bearer " + token))
        return status, headers, (json.loads(body) if body.startswith(b"{") else body)


class BoxEmulatorTests(EmulatorTestCase):
    """One emulator with 30 s tokens and URLs, listings of at most 2 entries per page, one registered redirect URI."""

    @classmethod
    def start(cls, root):
        return Box(root, "--access-token-ttl", "30", "--content-url-ttl", "30", "--refresh-token", "seed-1",
                   "--max-page", "2", "--redirect-uri", REDIRECT)

    @classmethod
    def make_tree(cls, root):
        cls.data = os.urandom(SIZE)
        cls.put(REL, cls.data)
        for name in ("a.txt", "b.txt", "c.txt", "d.txt", "e.txt"):
            cls.put("Five/" + name, name.encode())

    def access(self):
        seed = "seed-" + secrets.token_hex(6)
        self.assertEqual(self.emu.control("/_seed", {"refreshToken": seed})[0], 204)
        status, answer = self.emu.token(grant_type="refresh_token", refresh_token=seed)
        self.assertEqual(status, 200, answer)
        return answer["access_token"]

    def child(self, token, folder_id, name):
        offset = 0
        while True:
            status, _, page = self.emu.call("folders/%s/items?fields=id,type,name&limit=1000&offset=%d"
                                            % (folder_id, offset), token)
            self.assertEqual(status, 200, page)
            found = [e for e in page["entries"] if e["name"] == name]
            if found or offset + len(page["entries"]) >= page["total_count"]:
                return found[0]
            offset += len(page["entries"])

    def file_id(self, token, rel=REL):
        folder = "0"
        for name in rel.split("/"):
            folder = self.child(token, folder, name)["id"]
        return folder

    def link(self, token, file_id):
        status, headers, body = self.emu.call("files/%s/content" % file_id, token)
        self.assertEqual((status, body), (302, b""))
        return headers["Location"]

    # -- OAuth ------------------------------------------------------------------------------

    def test_refresh_tokens_are_single_use_and_rotate(self):
        status, first = self.emu.token(grant_type="refresh_token", refresh_token="seed-1")
        self.assertEqual(status, 200, first)
        self.assertEqual(set(first), {"access_token", "expires_in", "restricted_to", "refresh_token", "token_type"})
        self.assertEqual((first["token_type"], first["expires_in"]), ("bearer", 30))
        status, again = self.emu.token(grant_type="refresh_token", refresh_token="seed-1")
        self.assertEqual((status, again["error"]), (400, "invalid_grant"))
        status, second = self.emu.token(grant_type="refresh_token", refresh_token=first["refresh_token"])
        self.assertEqual(status, 200, second)
        self.assertNotEqual(second["refresh_token"], first["refresh_token"])
        stats = self.emu.stats()
        self.assertEqual((stats["refreshes"], stats["rejectedRefreshes"]), (2, 1))
        self.emu.control("/_seed", {"refreshToken": "seed-1"})

    def test_the_client_secret_is_required(self):
        seed = "seed-" + secrets.token_hex(6)
        self.emu.control("/_seed", {"refreshToken": seed})
        status, answer = self.emu.token_form("/oauth2/token", CLIENT, None,
                                             {"grant_type": "refresh_token", "refresh_token": seed})
        self.assertEqual((status, answer["error"]), (400, "invalid_client"))
        self.assertEqual(self.emu.token(basic(CLIENT, "wrong"), grant_type="refresh_token", refresh_token=seed)[0], 401)
        self.assertEqual(self.emu.token(basic(CLIENT, SECRET), grant_type="refresh_token", refresh_token=seed)[0], 200)
        status, answer = self.emu.token(grant_type="urn:ietf:params:oauth:grant-type:device_code", device_code="x")
        self.assertEqual((status, answer["error"]), (400, "unsupported_grant_type"))

    def authorize(self, redirect_uri):
        verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = urllib.parse.urlencode({"response_type": "code", "client_id": CLIENT, "state": "s1",
                                        "redirect_uri": redirect_uri, "code_challenge": challenge,
                                        "code_challenge_method": "S256"})
        self.emu.control("/_approve", {"authorize": True})
        return self.emu.request("/api/oauth2/authorize?" + query), verifier

    def test_authorize_matches_the_registered_redirect_uri_exactly(self):
        (status, _, body), _ = self.authorize("http://127.0.0.1:8766/")
        self.assertEqual(status, 400)
        self.assertIn(b"redirect_uri_mismatch", body)
        (status, headers, _), verifier = self.authorize(REDIRECT)
        self.assertEqual(status, 302)
        location = headers["Location"]
        self.assertTrue(location.startswith(REDIRECT + "?"), location)
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        self.assertEqual(params["state"], "s1")
        status, answer = self.emu.token(grant_type="authorization_code", code=params["code"], code_verifier=verifier,
                                        redirect_uri=REDIRECT)
        self.assertEqual(status, 200, answer)
        self.assertIn("refresh_token", answer)

    # -- API --------------------------------------------------------------------------------

    def test_listing_pages_by_marker_and_by_offset(self):
        token = self.access()
        five = self.child(token, "0", "Five")["id"]
        names, marker, pages = [], None, 0
        while True:
            query = "fields=id,type,name&limit=1000&usemarker=true" + ("&marker=" + marker if marker else "")
            status, _, page = self.emu.call("folders/%s/items?%s" % (five, query), token)
            self.assertEqual(status, 200, page)
            self.assertLessEqual(len(page["entries"]), 2)
            names += [e["name"] for e in page["entries"]]
            self.assertEqual(set(page["entries"][0]), {"type", "id", "etag", "name"})
            pages += 1
            marker = page["next_marker"]
            if not marker:
                break
        self.assertEqual((names, pages), (["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"], 3))
        status, _, page = self.emu.call("folders/%s/items?limit=2&offset=4" % five, token)
        self.assertEqual((page["total_count"], [e["name"] for e in page["entries"]]), (5, ["e.txt"]))
        root = self.emu.call("folders/0/items", token)[2]
        self.assertEqual([(e["type"], e["name"]) for e in root["entries"]], [("folder", "Five"), ("folder", "Música")])
        for query in ("limit=1001", "usemarker=true&marker=bogus!"):
            with self.subTest(query=query):
                status, _, error = self.emu.call("folders/0/items?" + query, token)
                self.assertEqual((status, error["type"], error["code"]), (400, "error", "bad_request"))
        self.assertEqual(self.emu.stats()["folderItems"], 6)

    def test_file_information(self):
        token = self.access()
        file_id = self.file_id(token)
        status, _, item = self.emu.call("files/%s?fields=id,type,name,size,etag,sha1,file_version" % file_id, token)
        self.assertEqual(status, 200, item)
        self.assertEqual((item["type"], item["name"], item["size"]), ("file", "🎵 b+c.mp3", SIZE))
        self.assertEqual(item["sha1"], hashlib.sha1(self.data).hexdigest())
        self.assertEqual(set(item), {"type", "id", "etag", "name", "size", "sha1", "file_version"})
        self.assertTrue(item["id"].isdigit() and item["file_version"]["id"].isdigit())
        folder = self.child(token, "0", "Five")["id"]
        for path in ("files/" + folder, "files/123", "files/abc", "folders/999/items"):
            with self.subTest(path=path):
                status, _, error = self.emu.call(path, token)
                self.assertEqual((status, error["status"], error["code"]), (404, 404, "not_found"))

    def test_only_a_live_bearer_token_opens_the_api(self):
        token = self.access()
        self.assertEqual(self.emu.call("folders/0/items", token)[0], 200)
        status, headers, body = self.emu.request("/2.0/folders/0/items")
        self.assertEqual((status, body, headers["WWW-Authenticate"]), (401, b"", 'Bearer realm="Service"'))
        status, headers, _ = self.emu.call("folders/0/items", "unknown")
        self.assertEqual(status, 401)
        self.assertIn('error="invalid_token"', headers["WWW-Authenticate"])
        self.emu.control("/_expire-access-tokens")
        status, headers, _ = self.emu.call("folders/0/items", token)
        self.assertIn('error="expired_token"', headers["WWW-Authenticate"])
        self.assertEqual(self.emu.stats()["api"]["unauthorized"], 3)

    # -- downloads --------------------------------------------------------------------------

    def test_content_redirects_to_a_download_url_that_takes_no_token(self):
        token = self.access()
        link = self.link(token, self.file_id(token))
        parts = urllib.parse.urlsplit(link)
        self.assertEqual((parts.port, parts.path.startswith("/d/1/"), parts.path.endswith("/download")),
                         (self.emu.content, True, True))
        status, headers, body = self.emu.url(link)
        self.assertEqual((status, body, headers["Content-Type"]), (200, self.data, "application/octet-stream"))
        self.assertTrue(headers["ETag"].startswith('"dl.'), headers["ETag"])
        status, headers, body = self.emu.url(link, {"Range": "bytes=10-19"})
        self.assertEqual((status, body, headers["Content-Range"]), (206, self.data[10:20], "bytes 10-19/%d" % SIZE))
        self.assertEqual(self.emu.url(link, {"Range": "bytes=%d-" % SIZE})[0], 416)
        self.assertEqual(self.emu.url(link, {"Authorization": "Bearer " + token})[0], 401)
        stats = self.emu.settled_stats(lambda s: s["content"]["bytes"] >= SIZE + 10)
        self.assertEqual((stats["content"]["withAuthorization"], stats["downloadUrls"]), (1, 1))

    def test_expired_urls_are_forbidden_and_changed_files_gone(self):
        token = self.access()
        file_id = self.file_id(token, "Five/a.txt")
        link = self.link(token, file_id)
        self.emu.control("/_expire-content-urls")
        self.assertEqual(self.emu.url(link)[0], 403)
        self.assertEqual(self.emu.url(link.replace("/download", "x/download"))[0], 403)
        link = self.link(token, file_id)
        full = os.path.join(self.root, "Five", "a.txt")
        shutil.copy(full, full + ".new")
        with open(full + ".new", "ab") as f:
            f.write(b"!")
        os.replace(full + ".new", full)
        try:
            self.assertEqual(self.emu.url(link)[0], 404)
            self.assertEqual(self.emu.call("files/%s/content" % file_id, token)[0], 404)  # a new file: a new id
            new_id = self.file_id(token, "Five/a.txt")
            self.assertNotEqual(new_id, file_id)
            self.assertEqual(self.emu.url(self.link(token, new_id))[2], b"a.txt!")
            version = self.emu.call("files/%s?fields=file_version" % new_id, token)[2]["file_version"]["id"]
            self.assertEqual(self.emu.call("files/%s/content?version=%s" % (new_id, version), token)[0], 302)
            self.assertEqual(self.emu.call("files/%s/content?version=1" % new_id, token)[0], 404)
        finally:
            with open(full, "wb") as f:
                f.write(b"a.txt")

    def test_not_ready_answers_202_with_retry_after(self):
        token = self.access()
        file_id = self.file_id(token, "Five/b.txt")
        self.emu.control("/_not-ready", {"count": 1, "retryAfter": 1})
        status, headers, body = self.emu.call("files/%s/content" % file_id, token)
        self.assertEqual((status, headers["Retry-After"], body), (202, "1", b""))
        self.assertEqual(self.emu.call("files/%s/content" % file_id, token)[0], 202)  # early: again
        time.sleep(1.05)
        self.assertEqual(self.emu.call("files/%s/content" % file_id, token)[0], 302)
        stats = self.emu.stats()
        self.assertEqual((stats["notReady"], stats["notReadyEarly"]), (1, 1))

    def test_throttling(self):
        token = self.access()
        self.emu.control("/_throttle", {"count": 1, "status": 429, "retryAfter": 1})
        status, headers, error = self.emu.call("folders/0/items", token)
        self.assertEqual((status, headers["Retry-After"], error["code"]), (429, "1", "rate_limit_exceeded"))
        self.assertEqual(self.emu.call("folders/0/items", token)[0], 429)  # early: refused again
        time.sleep(1.05)
        self.assertEqual(self.emu.call("folders/0/items", token)[0], 200)
        stats = self.emu.stats()["api"]
        self.assertEqual((stats["throttled"], stats["earlyRetries"]), (2, 1))

    def test_stats_hold_no_secrets_and_reset(self):
        token = self.access()
        link = self.link(token, self.file_id(token, "Five/c.txt"))
        self.emu.url(link)
        stats = self.emu.settled_stats(lambda s: s["content"]["bytes"] >= 5)
        text = json.dumps(stats)
        for secret in (token, urllib.parse.urlsplit(link).path.split("/")[3]):
            self.assertNotIn(secret, text)
        self.assertEqual(self.emu.request("/_reset", method="POST")[0], 204)
        self.assertEqual((self.emu.stats()["content"]["requests"], self.emu.stats()["folderItems"]), (0, 0))


if __name__ == "__main__":
    unittest.main()
