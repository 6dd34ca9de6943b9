"""Tests of dropbox_emulator.py itself, so the Swift Dropbox tests stand on a checked emulator.

    python3 -m unittest discover -s Tests/Fixtures -p 'test_*.py'      (part of `make test`)
"""

import base64
import hashlib
import json
import os
import secrets
import time
import unittest
import urllib.parse

from http_fixtures import EmulatorProcess, EmulatorTestCase, basic_auth as basic

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = "dbx-app-key"
BLOCK = 4 * 1024 * 1024
SIZE = BLOCK + 4099  # two content-hash blocks
REL = "Música/日本語/🎵 b+c.mp3"


class Dropbox(EmulatorProcess):
    """dropbox_emulator.py for the app CLIENT: its token endpoint, RPC calls and files/download."""

    def __init__(self, root, *extra):
        super().__init__(os.path.join(HERE, "dropbox_emulator.py"), root, "--client-id", CLIENT, *extra)

    def rpc(self, endpoint, token, arg, content_type="application/json"):
        headers = {"Content-Type": content_type}
        if token:
            headers["Authorization"] = "Bearer " + token
        status, _, body = self.request("/2/files/" + endpoint, headers, "POST", json.dumps(arg))
        return status, json.loads(body) if body.startswith(b"{") else body.decode()

    def download(self, token, arg, headers=None, method="POST"):
        """arg: a str or bytes sent as Dropbox-API-Arg exactly."""
        return self.request("/2/files/download", dict(headers or {}, **{"Authorization": "Bearer " + token,
                                                                         "Dropbox-API-Arg": arg}), method)

    def token(self, headers=None, **form):
        return self.token_form("/oauth2/token", CLIENT, headers, form)


def escaped(path):
    """The argument as the encoding page asks: every non-ASCII character as \\uXXXX (UTF-16 units)."""
    return json.dumps({"path": path}, ensure_ascii=True)


def reference_hash(data):
    digests = b"".join(hashlib.sha256(data[i:i + BLOCK]).digest() for i in range(0, len(data), BLOCK))
    return hashlib.sha256(digests).hexdigest()


class DropboxEmulatorTests(EmulatorTestCase):
    """One emulator with 30 s tokens and links, a two-block file under non-ASCII names and a small one."""

    @classmethod
    def start(cls, root):
        return Dropbox(root, "--access-token-ttl", "30", "--content-url-ttl", "30", "--refresh-token", "seed-1")

    @classmethod
    def make_tree(cls, root):
        cls.data = os.urandom(SIZE)
        for rel, data in ((REL, cls.data), ("readme.txt", b"hi\n")):
            cls.put(rel, data)

    def access(self):
        seed = "seed-" + secrets.token_hex(6)
        self.assertEqual(self.emu.control("/_seed", {"refreshToken": seed})[0], 204)
        status, answer = self.emu.token(grant_type="refresh_token", refresh_token=seed)
        self.assertEqual(status, 200, answer)
        return answer["access_token"]

    def link(self, access, path="/" + REL):
        status, answer = self.emu.rpc("get_temporary_link", access, {"path": path})
        self.assertEqual(status, 200, answer)
        return answer["link"]

    # -- OAuth ----------------------------------------------------------------------------

    def test_refresh_keeps_the_refresh_token(self):
        for _ in range(2):
            status, answer = self.emu.token(grant_type="refresh_token", refresh_token="seed-1")
            self.assertEqual(status, 200, answer)
            self.assertEqual(set(answer), {"access_token", "token_type", "expires_in"})
            self.assertEqual((answer["token_type"], answer["expires_in"]), ("bearer", 30))
            self.assertTrue(answer["access_token"].startswith("sl."))
        stats = self.emu.stats()
        self.assertEqual((stats["refreshes"], stats["rejectedRefreshes"], stats["tokenRequests"]),
                         (2, 0, {"refresh_token": 2}))

    def test_bad_token_requests(self):
        for form, error in (({"client_id": "other", "grant_type": "refresh_token", "refresh_token": "seed-1"},
                             "unauthorized_client"),
                            ({"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "x"},
                             "unsupported_grant_type"),
                            ({"grant_type": "refresh_token", "refresh_token": "never"}, "invalid_grant"),
                            ({}, "invalid_request")):
            with self.subTest(form=form):
                status, answer = self.emu.token(**form)
                self.assertEqual((status, answer["error"]), (400, error))
        self.emu.control("/_revoke")
        self.assertEqual(self.emu.token(grant_type="refresh_token", refresh_token="seed-1")[1]["error"], "invalid_grant")
        self.emu.control("/_seed", {"refreshToken": "seed-1"})

    def authorize(self, **extra):
        verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = urllib.parse.urlencode(dict({"response_type": "code", "client_id": CLIENT, "state": "s1",
                                             "redirect_uri": "http://127.0.0.1:8765/cb", "code_challenge": challenge,
                                             "code_challenge_method": "S256"}, **extra))
        self.emu.control("/_approve", {"authorize": True})
        status, headers, _ = self.emu.request("/oauth2/authorize?" + query)
        self.assertEqual(status, 302)
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers["Location"]).query))
        self.assertEqual(params["state"], "s1")
        return self.emu.token(grant_type="authorization_code", code=params["code"], code_verifier=verifier,
                              redirect_uri="http://127.0.0.1:8765/cb")

    def test_authorize_with_pkce_offline_and_online(self):
        self.assertEqual(self.emu.request("/oauth2/authorize?client_id=" + CLIENT)[0], 400)
        status, offline = self.authorize(token_access_type="offline")
        self.assertEqual(status, 200, offline)
        self.assertEqual(set(offline), {"access_token", "token_type", "expires_in", "scope", "uid", "account_id",
                                        "refresh_token"})
        again = self.emu.token(grant_type="refresh_token", refresh_token=offline["refresh_token"])
        self.assertEqual((again[0], "refresh_token" in again[1]), (200, False))
        status, online = self.authorize()
        self.assertEqual(status, 200, online)
        self.assertNotIn("refresh_token", online)

    # -- RPC ------------------------------------------------------------------------------

    def test_metadata_json(self):
        access = self.access()
        status, item = self.emu.rpc("get_metadata", access, {"path": "/" + REL})
        self.assertEqual(status, 200, item)
        self.assertEqual((item[".tag"], item["name"], item["path_display"], item["size"]),
                         ("file", "🎵 b+c.mp3", "/" + REL, SIZE))
        self.assertEqual(item["content_hash"], reference_hash(self.data))
        self.assertTrue(item["id"].startswith("id:") and len(item["id"]) == 25)
        for key in ("rev", "server_modified", "client_modified", "path_lower"):
            self.assertIn(key, item)
        self.assertTrue(item["is_downloadable"])
        self.assertEqual(self.emu.rpc("get_metadata", access, {"path": item["id"]})[1], item)
        folder = self.emu.rpc("get_metadata", access, {"path": "/Música"})[1]
        self.assertEqual(set(folder), {".tag", "name", "path_lower", "path_display", "id"})
        self.assertEqual(self.emu.rpc("get_metadata", access, {"path": "/readme.txt"})[1]["content_hash"],
                         reference_hash(b"hi\n"))

    def test_errors(self):
        access = self.access()
        for arg, endpoint, summary in (({"path": "/nope.mp3"}, "get_metadata", "path/not_found/.."),
                                       ({"path": "id:nope"}, "get_temporary_link", "path/not_found/.."),
                                       ({"path": "/Música"}, "get_temporary_link", "path/not_file/..")):
            with self.subTest(arg=arg):
                status, answer = self.emu.rpc(endpoint, access, arg)
                self.assertEqual((status, answer["error_summary"]), (409, summary))
                self.assertEqual(answer["error"][".tag"], "path")
        for arg, ctype in (({"path": "nope"}, "application/json"), ({"path": ""}, "application/json"),
                           ({"path": "/../etc/passwd"}, "application/json"),
                           ({"path": "/readme.txt", "extra": 1}, "application/json"),
                           ({"path": "/readme.txt"}, "application/x-www-form-urlencoded")):
            with self.subTest(arg=arg, ctype=ctype):
                status, text = self.emu.rpc("get_metadata", access, arg, ctype)
                self.assertEqual(status, 400)
                self.assertTrue(text.startswith('Error in call to API function "files/get_metadata"'), text)
        self.assertEqual(self.emu.stats()["api"]["badArgs"], 5)

    def test_only_a_live_bearer_token_opens_the_api(self):
        access = self.access()
        arg = {"path": "/readme.txt"}
        self.assertEqual(self.emu.rpc("get_metadata", access, arg)[0], 200)
        self.assertEqual(self.emu.rpc("get_metadata", None, arg)[0], 400)
        status, answer = self.emu.rpc("get_metadata", "sl.unknown", arg)
        self.assertEqual((status, answer["error"][".tag"]), (401, "invalid_access_token"))
        self.emu.control("/_expire-access-tokens")
        status, answer = self.emu.rpc("get_metadata", access, arg)
        self.assertEqual((status, answer["error_summary"]), (401, "expired_access_token/.."))
        self.assertEqual(self.emu.stats()["api"]["unauthorized"], 3)

    # -- files/download ---------------------------------------------------------------------

    def test_download_with_escaped_argument(self):
        access = self.access()
        status, headers, body = self.emu.download(access, escaped("/" + REL))
        self.assertEqual((status, body), (200, self.data))
        result = headers["Dropbox-API-Result"]
        self.assertTrue(all(" " <= ch <= "~" for ch in result), result)
        self.assertEqual(json.loads(result)["path_display"], "/" + REL)
        self.assertEqual(headers["Content-Type"], "application/octet-stream")
        item_id = json.loads(result)["id"]
        self.assertEqual(self.emu.download(access, escaped(item_id), {"Range": "bytes=5-9"})[2], self.data[5:10])
        rev = "rev:" + json.loads(result)["rev"]
        self.assertEqual(self.emu.download(access, escaped(rev), {"Range": "bytes=0-3"})[2], self.data[:4])
        self.assertEqual(self.emu.download(access, escaped("rev:0123456789ab"))[0], 409)
        self.assertEqual(self.emu.download(access, escaped("rev:xyz"))[0], 400)
        query = "/2/files/download?arg=" + urllib.parse.quote(json.dumps({"path": "/" + REL}))
        status, _, body = self.emu.request(query, {"Authorization": "Bearer " + access})
        self.assertEqual((status, body), (200, self.data))

    def test_raw_non_ascii_argument_is_refused(self):
        access = self.access()
        raw = json.dumps({"path": "/" + REL}, ensure_ascii=False)
        go_style = '{"path": "/M\\u00fasica/\\u65e5\\u672c\\u8a9e/\\u1f3b5 b+c.mp3"}'  # 5 hex digits: not JSON's
        for arg, status in ((raw.encode("utf-8"), 400), ('{"path": "/readme.txt\x7f"}', 400),
                            ('{"path": "/\\ud83c b+c.mp3"}', 400), ("{path}", 400), (go_style, 409)):
            with self.subTest(arg=arg):
                got, _, body = self.emu.download(access, arg)
                self.assertEqual(got, status, body)
        self.assertEqual(self.emu.stats()["api"]["badArgs"], 4)

    def test_download_ranges_and_validators(self):
        access = self.access()
        arg = escaped("/" + REL)
        for header, first, last in (("bytes=0-0", 0, 0), ("bytes=100-4095", 100, 4095), ("bytes=-5", SIZE - 5, SIZE - 1),
                                    ("bytes=%d-" % (BLOCK - 3), BLOCK - 3, SIZE - 1)):
            with self.subTest(range=header):
                status, headers, body = self.emu.download(access, arg, {"Range": header})
                self.assertEqual((status, headers["Content-Range"]), (206, "bytes %d-%d/%d" % (first, last, SIZE)))
                self.assertEqual(body, self.data[first:last + 1])
        status, headers, _ = self.emu.download(access, arg, {"Range": "bytes=%d-" % SIZE})
        self.assertEqual((status, headers["Content-Range"]), (416, "bytes */%d" % SIZE))
        etag = self.emu.download(access, arg, {"Range": "bytes=0-0"})[1]["ETag"]
        self.assertEqual(self.emu.download(access, arg, {"If-None-Match": etag})[0], 304)
        self.assertEqual(self.emu.download(access, arg, {"Range": "bytes=0-3", "If-Range": '"old"'})[0], 200)

    def test_download_refusals(self):
        access = self.access()
        arg = escaped("/" + REL)
        cases = (({"Content-Type": "application/x-www-form-urlencoded"}, 400),
                 ({"Content-Type": "text/plain; charset=utf-8"}, 200))
        for headers, status in cases:
            with self.subTest(headers=headers):
                self.assertEqual(self.emu.download(access, arg, dict(headers, Range="bytes=0-0"))[0],
                                 206 if status == 200 else status)
        self.assertEqual(self.emu.download(access, escaped("/Música"))[0], 409)
        self.assertEqual(self.emu.download(access, escaped("/nope"))[0], 409)
        self.assertEqual(self.emu.request("/2/files/download", {"Authorization": "Bearer " + access}, "POST")[0], 400)
        self.assertEqual(self.emu.request("/2/files/download", {"Authorization": "Bearer " + access,
                                                                "Dropbox-API-Arg": arg}, "POST", b"x")[0], 400)
        self.emu.control("/_expire-access-tokens")
        self.assertEqual(self.emu.download(access, arg)[0], 401)

    # -- temporary links ----------------------------------------------------------------------

    def test_temporary_link_serves_bytes_without_a_token(self):
        access = self.access()
        link = self.link(access)
        parts = urllib.parse.urlsplit(link)
        self.assertEqual((parts.port, parts.path.startswith("/apitl/1/")), (self.emu.content, True))
        status, headers, body = self.emu.url(link)
        self.assertEqual((status, body, headers["Content-Type"]), (200, self.data, "audio/mpeg"))
        status, headers, body = self.emu.url(link, {"Range": "bytes=10-19"})
        self.assertEqual((status, body, headers["Content-Range"]), (206, self.data[10:20], "bytes 10-19/%d" % SIZE))
        self.assertEqual(self.emu.url(link, {"Authorization": "Bearer " + access})[0], 401)
        stats = self.emu.settled_stats(lambda s: s["content"]["bytes"] >= SIZE + 10)
        self.assertEqual((stats["content"]["withAuthorization"], stats["temporaryLinks"]), (1, 1))

    def test_expired_links_are_gone(self):
        access = self.access()
        link = self.link(access)
        self.emu.control("/_expire-content-urls")
        self.assertEqual(self.emu.url(link)[0], 410)
        self.assertEqual(self.emu.url(link + "x")[0], 410)
        self.assertEqual(self.emu.url(self.link(access), {"Range": "bytes=0-0"})[0], 206)
        self.assertEqual(self.emu.stats()["content"]["rejectedUrls"], 2)

    def test_throttling(self):
        access = self.access()
        arg = {"path": "/readme.txt"}
        self.emu.control("/_throttle", {"count": 1, "status": 429, "retryAfter": 1})
        status, headers, body = self.emu.request("/2/files/get_metadata", {"Authorization": "Bearer " + access,
                                                                          "Content-Type": "application/json"},
                                                 "POST", json.dumps(arg))
        answer = json.loads(body)
        self.assertEqual((status, headers["Retry-After"], answer["error"]["retry_after"]), (429, "1", 1))
        self.assertEqual((answer["error_summary"], answer["error"]["reason"][".tag"]),
                         ("too_many_requests/..", "too_many_requests"))
        self.assertEqual(self.emu.download(access, escaped("/readme.txt"))[0], 429)  # early: refused again
        time.sleep(1.05)
        self.assertEqual(self.emu.download(access, escaped("/readme.txt"))[2], b"hi\n")
        self.emu.control("/_throttle", {"count": 1, "status": 503, "retryAfter": 0, "scope": "token"})
        self.assertEqual(self.emu.token(grant_type="refresh_token", refresh_token="seed-1")[0], 503)
        stats = self.emu.stats()["api"]
        self.assertEqual((stats["throttled"], stats["earlyRetries"]), (3, 1))

    def test_stats_hold_no_secrets_and_reset(self):
        access = self.access()
        link = self.link(access)
        self.emu.url(link, {"Range": "bytes=0-9"})
        stats = self.emu.settled_stats(lambda s: s["content"]["bytes"] >= 10)
        self.assertEqual(stats["api"]["byPath"]["/2/files/get_temporary_link"], {"200": 1})
        self.assertEqual(stats["content"]["byStatus"], {"206": 1})
        text = json.dumps(stats)
        for secret in (access, urllib.parse.urlsplit(link).path.rpartition("/")[2]):
            self.assertNotIn(secret, text)
        self.assertEqual(self.emu.request("/_reset", method="POST")[0], 204)
        self.assertEqual(self.emu.stats()["content"]["requests"], 0)
        self.assertEqual(self.emu.request("/_stats", port=self.emu.content)[0], 200)

    def test_lifetimes_and_a_confidential_app(self):
        emu = Dropbox(self.root, "--access-token-ttl", "1", "--content-url-ttl", "1", "--client-secret", "s3cret",
                      "--refresh-token", "r")
        try:
            self.assertEqual(emu.token(basic(CLIENT, "wrong"), grant_type="refresh_token", refresh_token="r")[0], 401)
            self.assertEqual(emu.token(grant_type="refresh_token", refresh_token="r")[1]["error"], "invalid_client")
            status, tokens = emu.token(basic(CLIENT, "s3cret"), grant_type="refresh_token", refresh_token="r")
            self.assertEqual((status, tokens["expires_in"]), (200, 1))
            link = json.loads(emu.request("/2/files/get_temporary_link", {
                "Authorization": "Bearer " + tokens["access_token"], "Content-Type": "application/json"},
                "POST", json.dumps({"path": "/readme.txt"}))[2])["link"]
            time.sleep(1.05)
            self.assertEqual(emu.download(tokens["access_token"], escaped("/readme.txt"))[0], 401)
            self.assertEqual(emu.url(link)[0], 410)
        finally:
            emu.close()


if __name__ == "__main__":
    unittest.main()
