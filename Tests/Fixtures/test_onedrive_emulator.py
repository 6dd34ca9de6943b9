"""Tests of onedrive_emulator.py itself, so the Swift OneDrive tests stand on a checked emulator.

    python3 -m unittest discover -s Tests/Fixtures -p 'test_*.py'      (part of `make test`)
"""

import base64
import hashlib
import json
import os
import secrets
import socket
import sys
import time
import unittest
import urllib.parse

from http_fixtures import EmulatorProcess, EmulatorTestCase, read_until_closed

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = "test-client"
SIZE = 300 * 1024


class Emulator(EmulatorProcess):
    """onedrive_emulator.py as a child process on free ports, stopped by `close`."""

    def __init__(self, root, *extra):
        super().__init__(os.path.join(HERE, "onedrive_emulator.py"), root, "--client-id", CLIENT, *extra)

    def token(self, tenant="common", client_secret=None, **form):
        form.setdefault("client_id", CLIENT)
        if client_secret is not None:
            form["client_secret"] = client_secret
        return self.form("/%s/oauth2/v2.0/token" % tenant, form)

    def refresh(self, token, scope="Files.Read offline_access"):
        return self.token(grant_type="refresh_token", refresh_token=token, scope=scope)

    def graph(self, path, access_token, headers=None):
        return self.request("/v1.0/me/drive" + path, dict(headers or {}, Authorization="Bearer " + access_token))


def pkce():
    verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class OneDriveEmulatorTests(EmulatorTestCase):
    @classmethod
    def make_tree(cls, root):
        cls.data = os.urandom(SIZE)
        cls.rel = "Music/sub dir/a b+c.bin"
        cls.put(cls.rel, cls.data)
        cls.put("hello.txt", b"hello\n")

    @classmethod
    def start(cls, root):
        # Long TTLs here, so no test fails by being slow; test_lifetimes runs its own short-lived emulator.
        return Emulator(root, "--access-token-ttl", "30", "--content-url-ttl", "30",
                        "--device-interval", "1", "--slow-down-step", "0.5", "--device-code-ttl", "30",
                        "--refresh-token", "seed-1")

    def fresh_tokens(self):
        """A valid (refresh, access) pair, through /_seed and one refresh."""
        seed = "seed-" + secrets.token_hex(8)
        self.assertEqual(self.emu.control("/_seed", {"refreshToken": seed})[0], 204)
        status, answer = self.emu.refresh(seed)
        self.assertEqual(status, 200, answer)
        return answer["refresh_token"], answer["access_token"]

    def item_path(self):
        return "/root:/" + urllib.parse.quote(self.rel)

    def download_url(self, access):
        status, headers, _ = self.emu.graph(self.item_path() + ":/content", access)
        self.assertEqual(status, 302)
        return headers["Location"]

    # -- identity -----------------------------------------------------------------------

    def test_refresh_rotates_and_reuse_is_invalid_grant(self):
        status, first = self.emu.refresh("seed-1")
        self.assertEqual(status, 200, first)
        self.assertEqual(first["token_type"], "Bearer")
        self.assertEqual((first["expires_in"], first["ext_expires_in"]), (30, 30))
        self.assertEqual(first["scope"], "Files.Read offline_access")
        self.assertNotEqual(first["refresh_token"], "seed-1")
        status, again = self.emu.refresh("seed-1")
        self.assertEqual((status, again["error"], again["error_codes"]), (400, "invalid_grant", [70008]))
        self.assertTrue(again["error_description"].startswith("AADSTS70008: "))
        for key in ("timestamp", "trace_id", "correlation_id"):
            self.assertIn(key, again)
        status, second = self.emu.token(tenant="consumers", grant_type="refresh_token",
                                        refresh_token=first["refresh_token"])
        self.assertEqual(status, 200, second)
        self.assertIn("refresh_token", second)
        stats = self.emu.stats()
        self.assertEqual((stats["refreshes"], stats["rejectedRefreshes"]), (2, 1))
        self.assertEqual(stats["tokenRequests"]["refresh_token"], 3)

    def test_unknown_client_and_bad_requests(self):
        self.emu.control("/_seed", {"refreshToken": "seed-2"})
        status, answer = self.emu.token(client_id="someone-else", grant_type="refresh_token", refresh_token="seed-2")
        self.assertEqual((status, answer["error"], answer["error_codes"]), (400, "unauthorized_client", [700016]))
        self.assertEqual(self.emu.token(grant_type="password")[1]["error"], "unsupported_grant_type")
        self.assertEqual(self.emu.token()[1]["error"], "invalid_request")
        self.assertEqual(self.emu.refresh("never-issued")[1]["error"], "invalid_grant")
        status, _, body = self.emu.request("/common/oauth2/v2.0/token", method="POST", body="{}",
                                           headers={"Content-Type": "application/json"})
        self.assertEqual((status, json.loads(body)["error"]), (400, "invalid_request"))
        # The failed requests above did not use up seed-2.
        self.assertEqual(self.emu.refresh("seed-2")[0], 200)

    def test_client_secret_is_checked(self):
        emu = Emulator(self.root, "--client-secret", "s3cret", "--refresh-token", "r")
        try:
            status, answer = emu.refresh("r")
            self.assertEqual((status, answer["error"], answer["error_codes"]), (400, "invalid_client", [7000218]))
            status, answer = emu.token(grant_type="refresh_token", refresh_token="r", client_secret="wrong")
            self.assertEqual((status, answer["error"]), (400, "invalid_client"))
            basic = "Basic " + base64.b64encode(b"test-client:wrong").decode()
            status, _, body = emu.request("/common/oauth2/v2.0/token", method="POST",
                                          body="grant_type=refresh_token&refresh_token=r",
                                          headers={"Content-Type": "application/x-www-form-urlencoded",
                                                   "Authorization": basic})
            self.assertEqual((status, json.loads(body)["error"]), (401, "invalid_client"))
            self.assertEqual(emu.token(grant_type="refresh_token", refresh_token="r", client_secret="s3cret")[0], 200)
        finally:
            emu.close()

    def test_keep_used_refresh_tokens_is_the_documented_leniency(self):
        emu = Emulator(self.root, "--keep-used-refresh-tokens", "--refresh-token", "r")
        try:
            self.assertEqual(emu.refresh("r")[0], 200)
            self.assertEqual(emu.refresh("r")[0], 200)
        finally:
            emu.close()

    def test_revoke_makes_every_refresh_token_invalid(self):
        refresh, access = self.fresh_tokens()
        status, answer = self.emu.control("/_revoke")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(answer["revokedRefreshTokens"], 1)
        self.assertEqual(self.emu.stats()["validRefreshTokens"], 0)
        status, answer = self.emu.refresh(refresh)
        self.assertEqual((status, answer["error"]), (400, "invalid_grant"))
        # Access tokens live on unless asked.
        self.assertEqual(self.emu.graph("/root", access)[0], 200)
        self.emu.control("/_revoke", {"accessTokens": True})
        self.assertEqual(self.emu.graph("/root", access)[0], 401)

    def test_device_code_pending_slow_down_approved(self):
        status, _, body = self.emu.request("/organizations/oauth2/v2.0/devicecode", method="POST",
                                           body="client_id=%s&scope=Files.Read%%20offline_access" % CLIENT,
                                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        grant = json.loads(body)
        self.assertEqual(status, 200)
        for key in ("device_code", "user_code", "verification_uri", "expires_in", "interval", "message"):
            self.assertIn(key, grant)
        self.assertEqual((grant["interval"], grant["expires_in"]), (1, 30))
        self.assertIn(grant["user_code"], grant["message"])

        def poll():
            return self.emu.token(tenant="organizations", grant_type="urn:ietf:params:oauth:grant-type:device_code",
                                  device_code=grant["device_code"])

        status, answer = poll()
        self.assertEqual((status, answer["error"], answer["error_codes"]), (400, "authorization_pending", [70016]))
        self.assertEqual(poll()[1]["error"], "slow_down")  # at once: closer than the interval, which grows to 1.5 s
        self.assertEqual(self.emu.control("/_approve", {"device": grant["user_code"]})[1]["deviceCodes"], 1)
        time.sleep(1.0)  # the first interval, but not the grown one
        self.assertEqual(poll()[1]["error"], "slow_down")  # and it grows again, to 2 s
        time.sleep(2.05)
        status, tokens = poll()
        self.assertEqual(status, 200, tokens)
        self.assertIn("refresh_token", tokens)
        self.assertEqual(self.emu.graph("/root", tokens["access_token"])[0], 200)
        self.assertEqual(self.emu.stats()["tokenErrors"]["slow_down"], 2)
        self.assertEqual(poll()[1]["error"], "invalid_grant")  # redeemed once
        self.assertEqual(self.emu.token(grant_type="urn:ietf:params:oauth:grant-type:device_code",
                                        device_code="bogus")[1]["error"], "bad_verification_code")

    def test_device_code_decline(self):
        grant = json.loads(self.emu.request("/common/oauth2/v2.0/devicecode", method="POST",
                                            body="client_id=%s&scope=Files.Read" % CLIENT,
                                            headers={"Content-Type": "application/x-www-form-urlencoded"})[2])
        self.emu.control("/_approve", {"device": grant["user_code"], "deny": True})
        answer = self.emu.token(grant_type="urn:ietf:params:oauth:grant-type:device_code",
                                device_code=grant["device_code"])[1]
        self.assertEqual(answer["error"], "authorization_declined")

    def test_lifetimes(self):
        """Access tokens, download URLs and device codes expire on their own (one short-lived emulator, one wait)."""
        emu = Emulator(self.root, "--access-token-ttl", "1", "--content-url-ttl", "1", "--device-code-ttl", "1",
                       "--device-interval", "0", "--refresh-token", "r")
        try:
            status, tokens = emu.refresh("r")
            self.assertEqual((status, tokens["expires_in"]), (200, 1))
            access = tokens["access_token"]
            status, headers, _ = emu.graph(self.item_path() + ":/content", access)
            self.assertEqual(status, 302)
            url = headers["Location"]
            self.assertEqual(emu.url(url, {"Range": "bytes=0-0"})[0], 206)
            grant = json.loads(emu.request("/common/oauth2/v2.0/devicecode", method="POST",
                                           body="client_id=%s&scope=Files.Read" % CLIENT,
                                           headers={"Content-Type": "application/x-www-form-urlencoded"})[2])
            time.sleep(1.05)
            status, got, body = emu.graph("/root", access)
            self.assertEqual(status, 401)
            self.assertIn('error="expired_token"', got["WWW-Authenticate"])
            self.assertIn("expired", json.loads(body)["error"]["message"])
            self.assertEqual(emu.url(url, {"Range": "bytes=0-0"})[0], 401)
            answer = emu.token(grant_type="urn:ietf:params:oauth:grant-type:device_code",
                               device_code=grant["device_code"])[1]
            self.assertEqual(answer["error"], "expired_token")
        finally:
            emu.close()

    def test_authorize_with_pkce(self):
        verifier, challenge = pkce()
        redirect = "http://127.0.0.1:53682/callback"
        query = urllib.parse.urlencode({"client_id": CLIENT, "response_type": "code", "redirect_uri": redirect,
                                        "scope": "Files.Read offline_access", "state": "xyz",
                                        "code_challenge": challenge, "code_challenge_method": "S256"})
        status, _, body = self.emu.request("/common/oauth2/v2.0/authorize?" + query)
        self.assertEqual(status, 200)
        self.assertIn(b"/_approve", body)
        self.emu.control("/_approve", {"authorize": True})
        status, headers, _ = self.emu.request("/common/oauth2/v2.0/authorize?" + query)
        self.assertEqual(status, 302)
        location = urllib.parse.urlsplit(headers["Location"])
        self.assertEqual("%s://%s%s" % (location.scheme, location.netloc, location.path), redirect)
        params = dict(urllib.parse.parse_qsl(location.query))
        self.assertEqual(params["state"], "xyz")

        def redeem(code, verifier, redirect_uri=redirect):
            return self.emu.token(grant_type="authorization_code", code=code, redirect_uri=redirect_uri,
                                  code_verifier=verifier)

        status, answer = redeem(params["code"], pkce()[0])
        self.assertEqual((status, answer["error"], answer["error_codes"]), (400, "invalid_grant", [501481]))
        self.assertEqual(redeem(params["code"], verifier, "http://127.0.0.1:1/other")[1]["error"], "invalid_grant")
        status, tokens = redeem(params["code"], verifier)
        self.assertEqual(status, 200, tokens)
        self.assertIn("refresh_token", tokens)
        self.assertEqual(redeem(params["code"], verifier)[1]["error_codes"], [54005])  # codes are single-use

    def test_authorize_rejects_what_a_native_app_may_not_use(self):
        self.emu.control("/_approve", {"authorize": True})
        _, challenge = pkce()
        base = {"client_id": CLIENT, "response_type": "code", "redirect_uri": "http://localhost:9/cb",
                "scope": "Files.Read", "code_challenge": challenge, "code_challenge_method": "S256"}
        for change, status in (({}, 302), ({"redirect_uri": "http://[::1]:7/"}, 302),
                               ({"redirect_uri": "https://127.0.0.1:9/cb"}, 400),
                               ({"redirect_uri": "http://example.com:9/cb"}, 400),
                               ({"redirect_uri": "http://u@127.0.0.1:9/cb"}, 400),
                               ({"client_id": "other"}, 400)):
            with self.subTest(change=change):
                got = self.emu.request("/common/oauth2/v2.0/authorize?" + urllib.parse.urlencode(dict(base, **change)))
                self.assertEqual(got[0], status)
        for change in ({"code_challenge_method": "plain"}, {"code_challenge": ""}):
            with self.subTest(change=change):
                got = self.emu.request("/common/oauth2/v2.0/authorize?" + urllib.parse.urlencode(dict(base, **change)))
                self.assertEqual(got[0], 302)
                self.assertIn("error=invalid_request", got[1]["Location"])
        self.assertEqual(self.emu.request("/common/oauth2/v2.0/authorize?" + urllib.parse.urlencode(base))[0], 302)

    def test_no_offline_access_no_refresh_token(self):
        verifier, challenge = pkce()
        self.emu.control("/_approve", {"authorize": True})
        query = urllib.parse.urlencode({"client_id": CLIENT, "response_type": "code", "scope": "Files.Read",
                                        "redirect_uri": "http://127.0.0.1:5/", "code_challenge": challenge,
                                        "code_challenge_method": "S256"})
        location = self.emu.request("/common/oauth2/v2.0/authorize?" + query)[1]["Location"]
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))["code"]
        status, tokens = self.emu.token(grant_type="authorization_code", code=code,
                                        redirect_uri="http://127.0.0.1:5/", code_verifier=verifier)
        self.assertEqual(status, 200)
        self.assertNotIn("refresh_token", tokens)

    # -- graph --------------------------------------------------------------------------

    def test_drive_item_json(self):
        _, access = self.fresh_tokens()
        status, _, body = self.emu.graph(self.item_path(), access)
        self.assertEqual(status, 200)
        item = json.loads(body)
        self.assertEqual((item["name"], item["size"]), ("a b+c.bin", SIZE))
        for key in ("id", "eTag", "cTag", "lastModifiedDateTime", "@microsoft.graph.downloadUrl", "parentReference"):
            self.assertIn(key, item)
        self.assertEqual(item["file"]["mimeType"], "application/octet-stream")
        hashes = item["file"]["hashes"]
        self.assertEqual(hashes["sha1Hash"], hashlib.sha1(self.data).hexdigest().upper())
        self.assertEqual(hashes["sha256Hash"], hashlib.sha256(self.data).hexdigest().upper())
        self.assertEqual(len(base64.b64decode(hashes["quickXorHash"])), 20)
        self.assertNotIn("folder", item)
        # Same item by id (stable), with the trailing colon, and under /drives/{id}.
        self.assertEqual(json.loads(self.emu.graph("/items/" + item["id"], access)[2])["name"], "a b+c.bin")
        self.assertEqual(json.loads(self.emu.graph(self.item_path() + ":", access)[2])["id"], item["id"])
        status, _, body = self.emu.request("/v1.0/drives/b!emulatorDrive0001/root:/" + urllib.parse.quote(self.rel),
                                           {"Authorization": "Bearer " + access})
        self.assertEqual((status, json.loads(body)["id"]), (200, item["id"]))
        folder = json.loads(self.emu.graph("/root:/Music", access)[2])
        self.assertEqual(folder["folder"], {"childCount": 1})
        self.assertNotIn("file", folder)
        self.assertNotIn("@microsoft.graph.downloadUrl", folder)
        root = json.loads(self.emu.graph("/root", access)[2])
        self.assertIn("root", root)
        self.assertEqual(root["folder"]["childCount"], 2)
        picked = json.loads(self.emu.graph(self.item_path() + "?$select=id,size", access)[2])
        self.assertEqual(set(picked) - {"@odata.context"}, {"id", "size"})

    def test_quick_xor_hash_matches_published_vectors(self):
        sys.path.insert(0, HERE)
        try:
            import onedrive_emulator
        finally:
            sys.path.remove(HERE)
        # Vectors from rclone's backend/onedrive/quickxorhash tests (input, hash), base64.
        for data, expected in (("", "AAAAAAAAAAAAAAAAAAAAAAAAAAA="), ("Sg==", "SgAAAAAAAAAAAAAAAQAAAAAAAAA="),
                               ("tbQ=", "taAFAAAAAAAAAAAAAgAAAAAAAAA="),
                               ("2fuxhBJXtpWFe8dOfdGeHw==", "O9tHLAghgSvYohKFyMMxnNCHaHg=")):
            self.assertEqual(onedrive_emulator.quick_xor_hash(base64.b64decode(data)), expected)

    def test_missing_items_are_item_not_found(self):
        _, access = self.fresh_tokens()
        for path in ("/root:/nope.bin", "/root:/nope.bin:/content", "/items/01NOPE", "/items/01NOPE/content",
                     "/root:/..%2F..%2Fetc%2Fpasswd"):
            with self.subTest(path=path):
                status, _, body = self.emu.graph(path, access)
                self.assertEqual((status, json.loads(body)["error"]["code"]), (404, "itemNotFound"))

    def test_access_tokens_are_required_and_expire(self):
        _, access = self.fresh_tokens()
        self.assertEqual(self.emu.graph("/root", access)[0], 200)
        for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic eDp5"}):
            with self.subTest(headers=headers):
                status, got, body = self.emu.request("/v1.0/me/drive/root", headers)
                self.assertEqual((status, json.loads(body)["error"]["code"]), (401, "InvalidAuthenticationToken"))
                self.assertTrue(got["WWW-Authenticate"].startswith("Bearer "))
        _, fresh = self.fresh_tokens()
        self.emu.control("/_expire-access-tokens")
        self.assertEqual(self.emu.graph("/root", fresh)[0], 401)
        self.assertEqual(self.emu.stats()["api"]["unauthorized"], 4)

    def test_content_redirects_to_the_other_port(self):
        _, access = self.fresh_tokens()
        status, headers, body = self.emu.graph(self.item_path() + ":/content", access)
        self.assertEqual((status, body), (302, b""))
        location = urllib.parse.urlsplit(headers["Location"])
        self.assertEqual((location.scheme, location.hostname, location.port), ("http", "127.0.0.1", self.emu.content))
        self.assertIn("tempauth=", location.query)
        item = json.loads(self.emu.graph(self.item_path(), access)[2])
        self.assertEqual(self.emu.graph("/items/%s/content" % item["id"], access)[0], 302)
        for tag in (item["eTag"], item["cTag"]):
            self.assertEqual(self.emu.graph(self.item_path() + ":/content", access, {"If-None-Match": tag})[0], 304)
        status, headers, body = self.emu.url(headers["Location"])
        self.assertEqual((status, body, headers["ETag"], headers["Accept-Ranges"]), (200, self.data, item["eTag"], "bytes"))
        self.assertEqual(headers["Content-Length"], str(SIZE))
        status, _, body = self.emu.url(item["@microsoft.graph.downloadUrl"])
        self.assertEqual((status, body), (200, self.data))

    def test_content_host_rejects_authorization(self):
        _, access = self.fresh_tokens()
        url = self.download_url(access)
        status, _, _ = self.emu.url(url, {"Authorization": "Bearer " + access})
        self.assertEqual(status, 401)
        self.assertEqual(self.emu.stats()["content"]["withAuthorization"], 1)
        self.assertEqual(self.emu.url(url, {"Range": "bytes=0-0"})[0], 206)
        self.assertEqual(self.emu.stats()["content"]["withAuthorization"], 1)

    def test_ranges_are_byte_exact(self):
        _, access = self.fresh_tokens()
        url = self.download_url(access)
        cases = [
            ("bytes=0-0", 206, "bytes 0-0/%d" % SIZE, 0, 0),
            ("bytes=1000-65535", 206, "bytes 1000-65535/%d" % SIZE, 1000, 65535),
            ("bytes=%d-" % (SIZE - 7), 206, "bytes %d-%d/%d" % (SIZE - 7, SIZE - 1, SIZE), SIZE - 7, SIZE - 1),
            ("bytes=-10", 206, "bytes %d-%d/%d" % (SIZE - 10, SIZE - 1, SIZE), SIZE - 10, SIZE - 1),
            ("bytes=5-99999999", 206, "bytes 5-%d/%d" % (SIZE - 1, SIZE), 5, SIZE - 1),
            ("bytes=%d-" % SIZE, 416, "bytes */%d" % SIZE, None, None),
            ("bytes=0-1,5-6", 200, None, 0, SIZE - 1),
        ]
        for header, status, content_range, first, last in cases:
            with self.subTest(range=header):
                got, headers, body = self.emu.url(url, {"Range": header})
                self.assertEqual((got, headers.get("Content-Range")), (status, content_range))
                if first is not None:
                    self.assertEqual(body, self.data[first:last + 1])
                    self.assertEqual(int(headers["Content-Length"]), last - first + 1)
        etag = self.emu.url(url, method="HEAD")[1]["ETag"]
        self.assertEqual(self.emu.url(url, {"Range": "bytes=0-9", "If-Range": etag})[0], 206)
        self.assertEqual(self.emu.url(url, {"Range": "bytes=0-9", "If-Range": '"other"'})[0], 200)

    def test_content_urls_expire(self):
        _, access = self.fresh_tokens()
        url = self.download_url(access)
        self.assertEqual(self.emu.url(url, {"Range": "bytes=0-0"})[0], 206)
        self.emu.control("/_expire-content-urls")
        self.assertEqual(self.emu.url(url, {"Range": "bytes=0-0"})[0], 401)
        url = self.download_url(access)  # a new one works
        self.assertEqual(self.emu.url(url, {"Range": "bytes=0-0"})[0], 206)
        tampered = url.replace("tempauth=v1.", "tempauth=v1.x")
        self.assertEqual(self.emu.url(tampered)[0], 401)
        self.assertEqual(self.emu.url(url.replace("tempauth=", "tempauth=%20"))[0], 401)
        self.assertEqual(self.emu.stats()["content"]["rejectedUrls"], 3)

    def test_broken_body_then_resume(self):
        _, access = self.fresh_tokens()
        url = urllib.parse.urlsplit(self.download_url(access))
        self.emu.control("/_break-next-content", {"afterBytes": 1000})
        with socket.create_connection(("127.0.0.1", url.port)) as s:
            s.sendall(("GET %s?%s HTTP/1.1\r\nHost: x\r\n\r\n" % (url.path, url.query)).encode())
            received = read_until_closed(s)
        head, _, body = received.partition(b"\r\n\r\n")
        self.assertIn(b"Content-Length: %d" % SIZE, head)
        self.assertEqual(body, self.data[:1000])
        status, headers, rest = self.emu.url(url.geturl(), {"Range": "bytes=1000-"})
        self.assertEqual((status, body + rest), (206, self.data))
        stats = self.emu.settled_stats(lambda s: s["content"]["bytes"] >= SIZE)["content"]
        self.assertEqual((stats["broken"], stats["bytes"]), (1, SIZE))

    def test_throttling_with_retry_after(self):
        _, access = self.fresh_tokens()
        self.emu.control("/_throttle", {"count": 1, "status": 429, "retryAfter": 1})
        status, headers, body = self.emu.graph("/root", access)
        self.assertEqual((status, headers["Retry-After"]), (429, "1"))
        self.assertEqual(json.loads(body)["error"]["code"], "activityLimitReached")
        status, headers, _ = self.emu.graph("/root", access)  # too early: still throttled, count not used
        self.assertEqual((status, headers["Retry-After"]), (429, "1"))
        time.sleep(1.05)
        self.assertEqual(self.emu.graph("/root", access)[0], 200)
        self.emu.control("/_throttle", {"count": 2, "status": 503, "retryAfter": 0})
        statuses = [self.emu.graph("/root", access) for _ in range(3)]
        self.assertEqual([s[0] for s in statuses], [503, 503, 200])
        self.assertEqual(statuses[0][1]["Retry-After"], "0")
        self.emu.control("/_throttle", {"count": 1, "status": 429, "retryAfter": 0, "scope": "token"})
        self.assertEqual(self.emu.refresh("whatever")[0], 429)
        stats = self.emu.stats()["api"]
        self.assertEqual((stats["throttled"], stats["earlyRetries"]), (5, 1))
        self.assertEqual(stats["byStatus"]["429"], 2)

    def test_stats_count_and_reset(self):
        refresh, access = self.fresh_tokens()
        self.emu.refresh(refresh)
        self.emu.refresh(refresh)
        self.emu.graph(self.item_path(), access)
        url = self.download_url(access)
        self.emu.url(url, {"Range": "bytes=0-99"})
        self.emu.url(url)
        stats = self.emu.settled_stats(lambda s: s["content"]["bytes"] >= 100 + SIZE)
        self.assertEqual(stats["tokenRequests"], {"refresh_token": 3})
        self.assertEqual((stats["refreshes"], stats["rejectedRefreshes"]), (2, 1))
        self.assertEqual(stats["api"]["byPath"]["/v1.0/me/drive" + self.item_path()], {"200": 1})
        self.assertEqual(stats["api"]["byPath"]["/v1.0/me/drive" + self.item_path() + ":/content"], {"302": 1})
        self.assertEqual(stats["content"]["requests"], 2)
        self.assertEqual(stats["content"]["byStatus"], {"206": 1, "200": 1})
        self.assertEqual(stats["content"]["bytes"], 100 + SIZE)
        self.assertEqual(stats["content"]["withAuthorization"], 0)
        self.assertGreaterEqual(stats["validRefreshTokens"], 1)
        # No token, code or tempauth in the stats.
        text = json.dumps(stats)
        for secret in (refresh, access, urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["tempauth"][0]):
            self.assertNotIn(secret, text)
        self.assertEqual(self.emu.request("/_reset", method="POST")[0], 204)
        stats = self.emu.stats()
        self.assertEqual((stats["api"]["requests"], stats["content"]["requests"], stats["refreshes"]), (0, 0, 0))
        self.assertEqual(self.emu.request("/_stats", port=self.emu.content)[0], 200)

    def test_port_file_is_json_with_both_ports(self):
        self.assertNotEqual(self.emu.api, self.emu.content)
        with open(self.emu.port_file) as f:
            self.assertEqual(json.load(f), {"api": self.emu.api, "content": self.emu.content})


if __name__ == "__main__":
    unittest.main()
