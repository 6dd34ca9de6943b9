"""Tests of yandex_disk_emulator.py itself, so the Swift Yandex.Disk tests stand on a checked emulator.

    python3 -m unittest discover -s Tests/Fixtures -p 'test_*.py'      (part of `make test`)
"""

import base64
import hashlib
import http.client
import json
import os
import secrets
import time
import unittest
import urllib.parse

from http_fixtures import EmulatorProcess, EmulatorTestCase, basic_auth as basic

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = "ya-client"
SIZE = 200 * 1024 + 17
REL = "Music/альбом/b c+d.mp3"


class Yandex(EmulatorProcess):
    def __init__(self, root, *extra):
        super().__init__(os.path.join(HERE, "yandex_disk_emulator.py"), root, "--client-id", CLIENT, *extra)

    def token(self, headers=None, **form):
        return self.token_form("/token", CLIENT, headers, form)

    def disk(self, endpoint, token, **query):
        headers = {"Authorization": "OAuth " + token} if token else {}
        return self.request(endpoint + ("?" + urllib.parse.urlencode(query) if query else ""), headers)

    def resource(self, token, path, **query):
        status, _, body = self.disk("/v1/disk/resources", token, path=path, **query)
        return status, json.loads(body)


class YandexDiskEmulatorTests(EmulatorTestCase):
    @classmethod
    def make_tree(cls, root):
        cls.data = os.urandom(SIZE)
        cls.put(REL, cls.data)
        cls.put("readme.txt", b"hi\n")
        cls.put("Applications/sluice-test-client/notes.txt", b"notes\n")

    @classmethod
    def start(cls, root):
        return Yandex(root, "--access-token-ttl", "30", "--content-url-ttl", "30", "--device-interval", "1",
                      "--slow-down-step", "0.5", "--device-code-ttl", "30", "--refresh-token", "seed-1")

    def tokens(self):
        seed = "seed-" + secrets.token_hex(6)
        self.assertEqual(self.emu.control("/_seed", {"refreshToken": seed})[0], 204)
        status, answer = self.emu.token(grant_type="refresh_token", refresh_token=seed)
        self.assertEqual(status, 200, answer)
        return answer["refresh_token"], answer["access_token"]

    def href(self, access, path="disk:/" + REL):
        status, _, body = self.emu.disk("/v1/disk/resources/download", access, path=path)
        self.assertEqual(status, 200, body)
        link = json.loads(body)
        self.assertEqual((link["method"], link["templated"]), ("GET", False))
        return link["href"]

    def storage_url(self, access):
        status, headers, _ = self.emu.url(self.href(access))
        self.assertEqual(status, 302)
        return headers["Location"]

    # -- OAuth ----------------------------------------------------------------------------

    def test_refresh_rotates_and_reuse_is_invalid_grant(self):
        status, first = self.emu.token(grant_type="refresh_token", refresh_token="seed-1")
        self.assertEqual(status, 200, first)
        self.assertEqual(set(first), {"token_type", "access_token", "expires_in", "refresh_token"})
        self.assertEqual((first["token_type"], first["expires_in"]), ("bearer", 30))
        self.assertNotEqual(first["refresh_token"], "seed-1")
        status, again = self.emu.token(grant_type="refresh_token", refresh_token="seed-1")
        self.assertEqual((status, again), (400, {"error": "invalid_grant", "error_description": again["error_description"]}))
        # Client credentials as Basic win over the body's.
        status, second = self.emu.token(basic(CLIENT, ""), grant_type="refresh_token", client_id="other",
                                        refresh_token=first["refresh_token"])
        self.assertEqual(status, 200, second)
        stats = self.emu.stats()
        self.assertEqual((stats["refreshes"], stats["rejectedRefreshes"], stats["tokenRequests"]),
                         (2, 1, {"refresh_token": 3}))

    def test_bad_token_requests(self):
        self.emu.control("/_seed", {"refreshToken": "seed-2"})
        for form, error in (({"client_id": "other", "grant_type": "refresh_token", "refresh_token": "seed-2"},
                             "invalid_client"),
                            ({"grant_type": "password"}, "unsupported_grant_type"),
                            ({}, "invalid_request"),
                            ({"grant_type": "refresh_token", "refresh_token": "never"}, "invalid_grant"),
                            ({"grant_type": "device_code", "code": "nope"}, "invalid_grant")):
            with self.subTest(form=form):
                status, answer = self.emu.token(**form)
                self.assertEqual((status, answer["error"]), (400, error))
        status, _, body = self.emu.request("/token", {"Content-Type": "application/json"}, "POST", "{}")
        self.assertEqual((status, json.loads(body)["error"]), (400, "invalid_request"))
        self.assertEqual(self.emu.token(grant_type="refresh_token", refresh_token="seed-2")[0], 200)

    def test_device_code_flow(self):
        status, _, body = self.emu.request("/device/code", {"Content-Type": "application/x-www-form-urlencoded"},
                                           "POST", "client_id=" + CLIENT)
        grant = json.loads(body)
        self.assertEqual(status, 200)
        self.assertEqual(set(grant), {"device_code", "user_code", "verification_url", "interval", "expires_in"})
        self.assertEqual(self.emu.url(grant["verification_url"])[0], 200)

        def poll():
            return self.emu.token(grant_type="device_code", code=grant["device_code"])[1]

        self.assertEqual(poll()["error"], "authorization_pending")
        self.assertEqual(poll()["error"], "slow_down")  # at once: closer than the interval
        self.assertEqual(self.emu.control("/_approve", {"device": grant["user_code"]})[1]["deviceCodes"], 1)
        time.sleep(1.6)
        tokens = poll()
        self.assertIn("access_token", tokens)
        self.assertEqual(self.emu.disk("/v1/disk", tokens["access_token"])[0], 200)
        time.sleep(1.6)
        self.assertEqual(poll()["error"], "invalid_grant")  # redeemed

    def test_authorize_with_pkce(self):
        verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = urllib.parse.urlencode({"response_type": "code", "client_id": CLIENT, "state": "s1",
                                        "redirect_uri": "http://127.0.0.1:8765/cb", "code_challenge": challenge,
                                        "code_challenge_method": "S256"})
        self.assertEqual(self.emu.request("/authorize?" + query)[0], 200)
        self.emu.control("/_approve", {"authorize": True})
        status, headers, _ = self.emu.request("/authorize?" + query)
        self.assertEqual(status, 302)
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers["Location"]).query))
        self.assertEqual(params["state"], "s1")
        wrong = self.emu.token(grant_type="authorization_code", code=params["code"], code_verifier="x" * 43)
        self.assertEqual(wrong[1]["error"], "invalid_grant")
        status, tokens = self.emu.token(grant_type="authorization_code", code=params["code"], code_verifier=verifier)
        self.assertEqual(status, 200, tokens)
        self.assertIn("refresh_token", tokens)

    # -- Disk API -------------------------------------------------------------------------

    def test_resource_json(self):
        _, access = self.tokens()
        status, item = self.emu.resource(access, "disk:/" + REL)
        self.assertEqual(status, 200, item)
        self.assertEqual((item["name"], item["path"], item["type"], item["size"]), ("b c+d.mp3", "disk:/" + REL,
                                                                                    "file", SIZE))
        self.assertEqual((item["md5"], item["sha256"]), (hashlib.md5(self.data).hexdigest(),
                                                         hashlib.sha256(self.data).hexdigest()))
        self.assertEqual((item["mime_type"], item["media_type"]), ("audio/mpeg", "audio"))
        for key in ("revision", "modified", "created", "resource_id", "file"):
            self.assertIn(key, item)
        self.assertEqual(self.emu.resource(access, "/" + REL)[1]["resource_id"], item["resource_id"])
        folder = self.emu.resource(access, "/Music")[1]
        self.assertEqual((folder["type"], folder["_embedded"]["total"]), ("dir", 1))
        self.assertEqual(folder["_embedded"]["items"][0]["path"], "disk:/Music/альбом")
        root = self.emu.resource(access, "disk:/")[1]
        self.assertEqual(sorted(i["name"] for i in root["_embedded"]["items"]), ["Applications", "Music", "readme.txt"])
        self.assertEqual(set(self.emu.resource(access, "/" + REL, fields="name,md5")[1]), {"name", "md5"})

    def test_app_paths_are_under_the_app_folder(self):
        _, access = self.tokens()
        status, item = self.emu.resource(access, "app:/notes.txt")
        self.assertEqual((status, item["size"]), (200, 6), item)
        link = json.loads(self.emu.disk("/v1/disk/resources/download", access, path="app:/notes.txt")[2])
        location = self.emu.url(link["href"])[1]["Location"]
        self.assertEqual(self.emu.url(location)[2], b"notes\n")
        self.assertEqual(self.emu.resource(access, "app:/readme.txt")[0], 404)
        self.assertEqual(self.emu.resource(access, "app:notes.txt")[1]["error"], "FieldValidationError")

    def test_errors_are_yandex_json(self):
        _, access = self.tokens()
        cases = (("/v1/disk/resources", {"path": "/nope.mp3"}, 404, "DiskNotFoundError"),
                 ("/v1/disk/resources/download", {"path": "disk:/../etc/passwd"}, 404, "DiskNotFoundError"),
                 ("/v1/disk/resources", {}, 400, "FieldValidationError"),
                 ("/v1/disk/resources/download", {"path": "disk:/Music"}, 400, "FolderDownloadNotEmulated"))
        for path, query, status, error in cases:
            with self.subTest(path=path, query=query):
                got, _, body = self.emu.disk(path, access, **query)  # noqa: the API's own "path" is in query
                answer = json.loads(body)
                self.assertEqual((got, answer["error"]), (status, error))
                self.assertEqual(set(answer), {"message", "description", "error"})
        english = self.emu.request("/v1/disk/resources?path=/nope", {"Authorization": "OAuth " + access,
                                                                     "Accept-Language": "en"})
        self.assertEqual(json.loads(english[2])["message"], "Resource not found.")

    def test_only_a_live_oauth_token_opens_the_api(self):
        _, access = self.tokens()
        self.assertEqual(self.emu.disk("/v1/disk", access)[0], 200)
        for headers in ({}, {"Authorization": "Bearer " + access}, {"Authorization": "OAuth nope"}):
            with self.subTest(headers=headers):
                status, _, body = self.emu.request("/v1/disk/resources?path=/readme.txt", headers)
                self.assertEqual((status, json.loads(body)["error"]), (401, "UnauthorizedError"))
        self.emu.control("/_expire-access-tokens")
        self.assertEqual(self.emu.disk("/v1/disk", access)[0], 401)
        self.assertEqual(self.emu.stats()["api"]["unauthorized"], 4)

    # -- download -------------------------------------------------------------------------

    def test_download_goes_downloader_then_storage(self):
        _, access = self.tokens()
        href = urllib.parse.urlsplit(self.href(access))
        self.assertEqual((href.port, href.path.split("/")[1]), (self.emu.content, "disk"))
        self.assertEqual(urllib.parse.parse_qs(href.query)["fsize"], [str(SIZE)])
        location = self.storage_url(access)
        self.assertEqual(urllib.parse.urlsplit(location).port, self.emu.content)
        status, headers, body = self.emu.url(location)
        self.assertEqual((status, body, headers["ETag"]), (200, self.data, '"%s"' % hashlib.md5(self.data).hexdigest()))
        self.assertEqual((headers["Accept-Ranges"], headers["Content-Length"]), ("bytes", str(SIZE)))
        self.assertIn("attachment", headers["Content-Disposition"])
        self.assertEqual(self.emu.url(location, method="HEAD")[1]["Content-Length"], str(SIZE))
        self.assertEqual(self.emu.stats()["content"]["redirects"], 1)

    def test_content_hosts_refuse_authorization(self):
        _, access = self.tokens()
        href = self.href(access)
        location = self.storage_url(access)
        for url in (href, location):
            with self.subTest(url=urllib.parse.urlsplit(url).path.split("/")[1]):
                self.assertEqual(self.emu.url(url, {"Authorization": "OAuth " + access})[0], 401)
        self.assertEqual(self.emu.url(location, {"Range": "bytes=0-0"})[0], 206)
        self.assertEqual(self.emu.stats()["content"]["withAuthorization"], 2)

    def test_ranges(self):
        _, access = self.tokens()
        location = self.storage_url(access)
        for header, first, last in (("bytes=0-0", 0, 0), ("bytes=100-4095", 100, 4095), ("bytes=-5", SIZE - 5, SIZE - 1),
                                    ("bytes=9-%d" % (SIZE * 2), 9, SIZE - 1)):
            with self.subTest(range=header):
                status, headers, body = self.emu.url(location, {"Range": header})
                self.assertEqual(status, 206)
                self.assertEqual(headers["Content-Range"], "bytes %d-%d/%d" % (first, last, SIZE))
                self.assertEqual(body, self.data[first:last + 1])
        status, headers, _ = self.emu.url(location, {"Range": "bytes=%d-" % SIZE})
        self.assertEqual((status, headers["Content-Range"]), (416, "bytes */%d" % SIZE))
        self.assertEqual(self.emu.url(location, {"Range": "bytes=0-1,4-5"})[0], 200)
        validators = self.emu.url(location, method="HEAD")[1]
        for if_range, expected in ((validators["ETag"], 206), (validators["Last-Modified"], 206), ('"stale"', 200)):
            with self.subTest(if_range=if_range):
                self.assertEqual(self.emu.url(location, {"Range": "bytes=0-3", "If-Range": if_range})[0], expected)

    def test_expired_urls_are_403(self):
        _, access = self.tokens()
        href = self.href(access)
        location = self.storage_url(access)
        self.emu.control("/_expire-content-urls")
        self.assertEqual([self.emu.url(u)[0] for u in (href, location)], [403, 403])
        self.assertEqual(self.emu.url(href.replace("/disk/", "/disk/x", 1))[0], 403)
        self.assertEqual(self.emu.url(self.storage_url(access), {"Range": "bytes=0-0"})[0], 206)
        self.assertEqual(self.emu.stats()["content"]["rejectedUrls"], 3)

    def test_broken_body_then_resume(self):
        """A client sees a short body (http.client: IncompleteRead), then resumes at its offset with Range."""
        _, access = self.tokens()
        url = urllib.parse.urlsplit(self.storage_url(access))
        self.emu.control("/_break-next-content", {"afterBytes": 777})
        conn = http.client.HTTPConnection("127.0.0.1", url.port, timeout=10)
        try:
            conn.request("GET", url.path)
            response = conn.getresponse()
            self.assertEqual((response.status, response.getheader("Content-Length")), (200, str(SIZE)))
            with self.assertRaises(http.client.IncompleteRead) as cut:
                response.read()
        finally:
            conn.close()
        got = cut.exception.partial
        self.assertEqual(got, self.data[:777])
        status, _, rest = self.emu.url(url.geturl(), {"Range": "bytes=%d-" % len(got)})
        self.assertEqual((status, got + rest), (206, self.data))
        content = self.emu.settled_stats(lambda s: s["content"]["bytes"] >= SIZE)["content"]
        self.assertEqual([content[k] for k in ("broken", "bytes")], [1, SIZE])

    def test_throttling(self):
        _, access = self.tokens()
        self.emu.control("/_throttle", {"count": 1, "status": 429, "retryAfter": 1})
        status, headers, body = self.emu.disk("/v1/disk", access)
        self.assertEqual((status, headers["Retry-After"], json.loads(body)["error"]), (429, "1", "TooManyRequestsError"))
        self.assertEqual(self.emu.disk("/v1/disk", access)[0], 429)  # early: refused again, count kept
        time.sleep(1.05)
        self.assertEqual(self.emu.disk("/v1/disk", access)[0], 200)
        self.emu.control("/_throttle", {"count": 1, "status": 503, "retryAfter": 0, "scope": "token"})
        self.assertEqual(self.emu.token(grant_type="refresh_token", refresh_token="x")[0], 503)
        self.assertEqual(self.emu.control("/_throttle", {"scope": "graph"})[0], 400)
        stats = self.emu.stats()["api"]
        self.assertEqual((stats["throttled"], stats["earlyRetries"]), (3, 1))

    def test_stats_hold_no_secrets_and_reset(self):
        refresh, access = self.tokens()
        location = self.storage_url(access)
        self.emu.url(location, {"Range": "bytes=0-9"})
        stats = self.emu.settled_stats(lambda s: s["content"]["bytes"] >= 10)
        self.assertEqual(stats["api"]["byPath"]["/v1/disk/resources/download"], {"200": 1})
        self.assertEqual(stats["content"]["byStatus"], {"302": 1, "206": 1})
        text = json.dumps(stats)
        for secret in (refresh, access, urllib.parse.urlsplit(location).path.split("/")[2]):
            self.assertNotIn(secret, text)
        self.assertEqual(self.emu.request("/_reset", method="POST")[0], 204)
        self.assertEqual(self.emu.stats()["content"]["requests"], 0)
        self.assertEqual(self.emu.request("/_stats", port=self.emu.content)[0], 200)

    def test_port_file(self):
        with open(self.emu.port_file) as f:
            self.assertEqual(json.load(f), {"api": self.emu.api, "content": self.emu.content})

    def test_lifetimes_secret_and_lenient_content(self):
        """Short TTLs, a confidential client and --allow-content-authorization in one short-lived emulator."""
        emu = Yandex(self.root, "--access-token-ttl", "1", "--content-url-ttl", "1", "--device-code-ttl", "1",
                     "--client-secret", "s3cret", "--refresh-token", "r", "--allow-content-authorization")
        try:
            self.assertEqual(emu.token(basic(CLIENT, "wrong"), grant_type="refresh_token", refresh_token="r")[0], 401)
            self.assertEqual(emu.token(grant_type="refresh_token", refresh_token="r")[1]["error"], "invalid_client")
            status, tokens = emu.token(basic(CLIENT, "s3cret"), grant_type="refresh_token", refresh_token="r")
            self.assertEqual((status, tokens["expires_in"]), (200, 1))
            access = tokens["access_token"]
            href = json.loads(emu.disk("/v1/disk/resources/download", access, path="/readme.txt")[2])["href"]
            self.assertEqual(emu.url(href, {"Authorization": "OAuth " + access})[0], 302)  # served, but counted
            self.assertEqual(emu.stats()["content"]["withAuthorization"], 1)
            grant = emu.form("/device/code", {"client_id": CLIENT})[1]
            time.sleep(1.05)
            self.assertEqual(emu.disk("/v1/disk", access)[0], 401)
            self.assertEqual(emu.url(href)[0], 403)
            late = emu.token(basic(CLIENT, "s3cret"), grant_type="device_code", code=grant["device_code"])[1]
            self.assertEqual(late["error"], "invalid_grant")
        finally:
            emu.close()


if __name__ == "__main__":
    unittest.main()
