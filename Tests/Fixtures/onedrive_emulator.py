#!/usr/bin/env python3
"""An emulator of the documented OneDrive download protocol (Microsoft Graph) and of the Microsoft identity
platform's OAuth2 endpoints, for Sluice's cloud-upstream tests (Python 3 stdlib only). It is not Microsoft's
code and has never been compared with the live services byte for byte: it follows their documentation, and
where the documentation leaves room it is stricter than the services, so a client that passes here should
not rely on anything the services do not promise.

    onedrive_emulator.py --root DIR [--host 127.0.0.1] [--port 0] [--content-port 0] [--port-file FILE]
                         [--client-id ID] [--client-secret S] [--refresh-token T ...]
                         [--access-token-ttl 3600] [--content-url-ttl 300] [--code-ttl 600]
                         [--device-code-ttl 900] [--device-interval 5] [--slow-down-step 5]
                         [--keep-used-refresh-tokens] [--drive-id ID]

Two listeners in one process. The port file (written atomically once both listen) holds
`{"api": P1, "content": P2}`; the same is printed on stdout. SIGTERM or SIGINT stops both.

API + identity host (P1)

    POST /{tenant}/oauth2/v2.0/token          form-encoded; tenant is common, consumers, organizations or any id
        grant_type=refresh_token              client_id, refresh_token, [scope], [client_secret]
        grant_type=authorization_code         client_id, code, redirect_uri, code_verifier, [client_secret]
        grant_type=urn:ietf:params:oauth:grant-type:device_code    client_id, device_code
        -> 200 {"token_type": "Bearer", "scope", "expires_in", "ext_expires_in", "access_token",
                "refresh_token" (only when offline_access was granted)}
        -> 400/401 {"error", "error_description": "AADSTSnnn: ...", "error_codes": [nnn], "timestamp",
                    "trace_id", "correlation_id"}
    POST /{tenant}/oauth2/v2.0/devicecode     client_id, scope -> {"device_code", "user_code",
                                              "verification_uri", "expires_in", "interval", "message"}
    GET  /{tenant}/oauth2/v2.0/authorize      client_id, response_type=code, redirect_uri, scope, state,
                                              code_challenge, code_challenge_method=S256
                                              -> 302 redirect_uri?code=...&state=... once pre-approved
                                                 (POST /_approve), else 200 with an HTML page saying so
    GET  /devicelogin                         the verification_uri handed out: a text page (approve with /_approve)
    GET  /v1.0/me/drive/root                  the root folder's driveItem
    GET  /v1.0/me/drive/root:/{path}[:]       driveItem JSON (path percent-encoded, slashes allowed)
    GET  /v1.0/me/drive/items/{item-id}       driveItem JSON
    GET  /v1.0/me/drive/root:/{path}:/content and /v1.0/me/drive/items/{item-id}/content
                                              -> 302 Location: the pre-authenticated URL on the content host
                                                 (the driveItem's @microsoft.graph.downloadUrl); 304 when
                                                 If-None-Match names the eTag or cTag
    /v1.0/drives/{drive-id}/...               the same under the drive's id (--drive-id)

    A Graph request needs `Authorization: Bearer <access token>`: none, an unknown one or an expired one is
    401 {"error": {"code": "InvalidAuthenticationToken", ...}} with a `WWW-Authenticate: Bearer ...`
    challenge (an expired token's challenge carries error="expired_token", which rclone keys on). A missing
    item is 404 {"error": {"code": "itemNotFound", ...}}.

Content host (P2)

    GET|HEAD /personal/emulator/_layouts/15/download.aspx?UniqueId=...&Translate=false&tempauth=...&ApiVersion=2.0
        the file's bytes: Content-Length, ETag (the item's eTag), Last-Modified, Accept-Ranges: bytes; one
        Range -> 206 + Content-Range, past the end -> 416 `bytes */N`; several ranges -> 200 whole (the
        Graph docs allow ignoring Range); If-Range. Any request carrying `Authorization` -> 401 (counted as a
        token leak, before anything else is looked at); an unknown, altered or expired tempauth -> 401.
        A URL is checked when a request starts; a download that started in time runs to its end.

Control (both hosts; never counted, never throttled; JSON bodies optional)

    GET  /_stats                   counters, see Stats.snapshot (no token or secret ever appears)
    POST /_reset                   zeroes the counters, clears pending throttling, a pending broken body and
                                   the authorize pre-approval; tokens stay valid (204)
    POST /_approve                 {"device": true | "<user_code>", "authorize": true|false, "deny": false}:
                                   approves (with deny: declines) the pending device codes (or the one with
                                   that user_code), and makes /authorize answer at once (with deny: with
                                   error=access_denied), sticky until "authorize": false or /_reset. No body
                                   means {"device": true, "authorize": true}.
    POST /_revoke                  {"accessTokens": false}: revokes every refresh token (next use ->
                                   invalid_grant), and with accessTokens the access tokens too
    POST /_seed                    {"refreshToken": "T", "scope": "..."}: T becomes a valid refresh token
    POST /_expire-access-tokens    every access token issued so far is expired now
    POST /_throttle                {"count": N, "status": 429|503, "retryAfter": S, "scope": "graph"|"token"|"all",
                                   "enforce": true}: the next N requests in scope answer status with
                                   Retry-After: S; with enforce, a request that comes back before S seconds
                                   have passed is refused again without using up the count (counted as an
                                   early retry)
    POST /_expire-content-urls     every pre-authenticated URL issued so far is expired now
    POST /_break-next-content      {"afterBytes": N}: the next content GET promises its full length, sends N
                                   body bytes and closes the connection

Documents followed (Microsoft Learn; stored copies read through the search tool, not the live pages):

  * "Download the contents of a driveItem" (graph/api/driveitem-get-content): /content answers 302 Found to a
    pre-authenticated download URL, the same as @microsoft.graph.downloadUrl; such URLs "are only valid for a
    short period of time (a few minutes) and don't require an Authorization header"; Range goes on the
    download URL, not on /content, and a server may ignore it and answer 200; if-none-match with the eTag or
    cTag gives 304.
  * "Get driveItem" / driveItem and hashes resources: id, name, size, eTag, cTag, lastModifiedDateTime,
    file.mimeType, file.hashes (quickXorHash base64; sha1Hash, sha256Hash hex), folder.childCount. The
    quickXorHash here matches rclone's published test vectors.
  * "Microsoft identity platform and OAuth 2.0 authorization code flow" (v2-oauth2-auth-code-flow): PKCE,
    the token request's parameters and the JSON of the answer and of errors (error, error_description with
    an AADSTS code, error_codes, timestamp, trace_id, correlation_id).
  * "Microsoft identity platform and the OAuth 2.0 device authorization grant flow" (v2-oauth2-device-code):
    the /devicecode answer, polling with the device_code grant, authorization_pending, authorization_declined,
    bad_verification_code, expired_token; expires_in 900 and interval 5 by default.
  * "Refresh tokens in the Microsoft identity platform" (refresh-tokens): "Refresh tokens replace themselves
    with a fresh token upon every use"; offline_access is what yields one.
  * "Redirect URI (reply URL) best practices and limitations" (reply-url) with RFC 8252 §7.3: loopback
    redirect URIs for native apps may use any port.
  * "Microsoft Graph throttling guidance" (graph/throttling) and "Microsoft Graph error responses": 429 (and
    503) with Retry-After in seconds; wait that long, and a retry that fails again means still throttled.

Deliberately stricter than the services:

  * Refresh tokens are single-use: the docs say the platform does NOT revoke a used refresh token. Here a
    reuse is invalid_grant (AADSTS70008), so a client that does not store the rotated token fails at once
    rather than in 90 days. --keep-used-refresh-tokens restores the documented leniency.
  * /authorize requires PKCE with S256 (Microsoft requires it only for SPAs and recommends it elsewhere) and
    accepts only loopback redirect URIs (http, 127.0.0.1, [::1] or localhost, any port); the token request's
    redirect_uri must equal the authorize request's exactly.
  * slow_down is enforced as RFC 8628 §3.5 says (polls closer than the interval, 50 ms slack; each slow_down
    adds --slow-down-step seconds); Microsoft's device-code page does not list slow_down among its errors.
  * The content host refuses any Authorization header with 401. The real download hosts' reaction is not
    documented (they may ignore it); a correct client never sends the Graph token there.
  * tempauth is compared byte for byte as sent (rclone notes re-encoding that query breaks the real one).
  * Throttling with enforce refuses early retries, which the service may or may not do.

Not verified (chosen, and marked so):

  * The status of an expired download URL: 401 here (a corso issue reports 401 from the service; the docs
    say nothing). The exact AADSTS numbers other than 70008, 70016 (authorization_pending), 700016 (unknown
    application), 7000215 (bad secret), 501481 (PKCE mismatch) and 50011 (redirect URI) are guesses:
    50173 (revoked grant), 70019 (expired device code), 54005 (code already redeemed), 9002313 (malformed
    grant), 900144 (missing parameter), 70003 (unsupported grant type), 7000218 (missing secret).
  * The exact 401 texts and the WWW-Authenticate parameters on Graph; what /content answers for a folder
    (400 invalidRequest here); real ids, eTag and cTag formats (here stable per path, eTag "{GUID},N").
  * Paths are case-sensitive here (OneDrive's are not); id_token is never issued; scopes are echoed, not
    checked against a registration.
"""

import argparse
import base64
import email.utils
import hashlib
import http.server
import json
import mimetypes
import os
import re
import secrets
import signal
import socket
import sys
import threading
import time
import urllib.parse
import uuid

from http_fixtures import parse_single_range

STOPPING = threading.Event()
CHUNK = 256 * 1024
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
GRAPH_PREFIXES = ("/v1.0/me/drive",)
DOWNLOAD_PATH = "/personal/emulator/_layouts/15/download.aspx"
RECENT_MAX = 500


def now():
    return time.monotonic()


def utc_stamp():
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime())


def iso_time(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def new_token(prefix):
    return prefix + secrets.token_urlsafe(32)


def quick_xor_hash(data):
    """OneDrive's QuickXorHash (base64): byte n is XORed in at bit (11*n) mod 160 of a 160-bit ring, then the
    length (64-bit little-endian) is XORed into the last 8 bytes. Positions repeat every 160 bytes, so the
    data is folded by position modulo 160 first."""
    n = len(data)
    whole = n - n % 160
    acc = 0
    for i in range(0, whole, 160):
        acc ^= int.from_bytes(data[i:i + 160], "little")
    folded = bytearray(acc.to_bytes(160, "little"))
    for i, b in enumerate(data[whole:]):
        folded[i] ^= b
    ring, mask = 0, (1 << 160) - 1
    for r, b in enumerate(folded):
        if b:
            v = b << ((r * 11) % 160)
            ring ^= (v | (v >> 160)) & mask
    out = bytearray(ring.to_bytes(20, "little"))
    for i, lb in enumerate(n.to_bytes(8, "little")):
        out[12 + i] ^= lb
    return base64.b64encode(bytes(out)).decode()


def entity_tags(header):
    """The entity-tags of an If-None-Match list (RFC 9110 §8.8.3: commas may sit inside the quotes)."""
    return re.findall(r'(?:W/)?"[^"]*"|\*', header)


def loopback_redirect(parts):
    """http, a loopback host, any port (RFC 8252 §7.3), no userinfo, no fragment."""
    try:
        parts.port
    except ValueError:
        return False
    return (parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
            and "@" not in parts.netloc and not parts.fragment)


class OAuthError(Exception):
    def __init__(self, status, error, code, description):
        super().__init__(error)
        self.status, self.error, self.code, self.description = status, error, code, description


class Emulator:
    """All state, under one lock. Times are time.monotonic()."""

    def __init__(self, args):
        self.lock = threading.Lock()
        self.root = os.path.realpath(args.root)
        self.client_id = args.client_id
        self.client_secret = args.client_secret
        self.access_ttl = args.access_token_ttl
        self.content_ttl = args.content_url_ttl
        self.code_ttl = args.code_ttl
        self.device_ttl = args.device_code_ttl
        self.device_interval = args.device_interval
        self.slow_down_step = args.slow_down_step
        self.keep_used = args.keep_used_refresh_tokens
        self.drive_id = args.drive_id
        self.api_base = None  # set once bound
        self.content_base = None
        self.refresh_tokens = {}  # token -> {"scope", "state": valid|used|revoked}
        self.access_tokens = {}  # token -> expiry
        self.codes = {}  # code -> {...}
        self.devices = {}  # device_code -> {...}
        self.content_urls = {}  # tempauth -> {"rel", "expires"}
        self.hash_cache = {}
        for token in args.refresh_token or []:
            self.refresh_tokens[token] = {"scope": "Files.Read offline_access", "state": "valid"}
        self.reset()

    def reset(self):
        with self.lock:
            self.authorize_approved = False
            self.throttle = None
            self.throttled_until = 0.0
            self.break_after = None
            self.stats = {
                "tokenRequests": {}, "tokenErrors": {}, "refreshes": 0, "rejectedRefreshes": 0,
                "deviceCodesIssued": 0, "authorizeRequests": 0, "authorizeRedirects": 0,
                "api": {"requests": 0, "byPath": {}, "byStatus": {}, "unauthorized": 0, "throttled": 0,
                        "earlyRetries": 0},
                "content": {"requests": 0, "byStatus": {}, "withAuthorization": 0, "rejectedUrls": 0,
                            "bytes": 0, "broken": 0},
                "recent": [],
            }

    def bump(self, table, key, by=1):
        table[key] = table.get(key, 0) + by

    def snapshot(self):
        with self.lock:
            snap = json.loads(json.dumps(self.stats))
            snap["validRefreshTokens"] = sum(1 for r in self.refresh_tokens.values() if r["state"] == "valid")
            t = now()
            snap["validAccessTokens"] = sum(1 for e in self.access_tokens.values() if e > t)
            snap["pendingDeviceCodes"] = sum(1 for d in self.devices.values() if d["state"] == "pending" and d["expires"] > t)
            snap["throttlePending"] = self.throttle["count"] if self.throttle else 0
            return snap

    def record(self, host, method, path, status, range_header=None):
        with self.lock:
            self.stats["recent"].append({"host": host, "method": method, "path": path, "status": status,
                                         "range": range_header})
            del self.stats["recent"][:-RECENT_MAX]

    # -- identity ---------------------------------------------------------------------------

    def issue_tokens(self, scope):
        """A token answer; a refresh token only when offline_access was asked for. Caller holds the lock."""
        access = new_token("EwA")
        self.access_tokens[access] = now() + self.access_ttl
        answer = {"token_type": "Bearer", "scope": scope, "expires_in": int(self.access_ttl),
                  "ext_expires_in": int(self.access_ttl), "access_token": access}
        if "offline_access" in scope.split():
            refresh = new_token("M.C5")
            self.refresh_tokens[refresh] = {"scope": scope, "state": "valid"}
            answer["refresh_token"] = refresh
        return answer

    def check_client_id(self, client_id):
        """The client is named and registered. Caller holds the lock."""
        if not client_id:
            raise OAuthError(400, "invalid_request", 900144,
                             "The request body must contain the following parameter: 'client_id'.")
        if client_id != self.client_id:
            raise OAuthError(400, "unauthorized_client", 700016,
                             "Application with identifier '%s' was not found in the directory." % client_id)

    def check_client(self, form, basic):
        """Client identification and (for a confidential client) authentication. Caller holds the lock."""
        client_id = form.get("client_id") or (basic[0] if basic else None)
        self.check_client_id(client_id)
        if self.client_secret is not None:
            secret = form.get("client_secret") or (basic[1] if basic else None)
            status = 401 if basic else 400
            if secret is None:
                raise OAuthError(status, "invalid_client", 7000218, "The request body must contain the following "
                                 "parameter: 'client_assertion' or 'client_secret'.")
            if not secrets.compare_digest(secret, self.client_secret):
                raise OAuthError(status, "invalid_client", 7000215, "Invalid client secret provided.")
        return client_id

    def token(self, form, basic):
        grant = form.get("grant_type")
        with self.lock:
            self.bump(self.stats["tokenRequests"], grant or "missing")
            try:
                if not grant:
                    raise OAuthError(400, "invalid_request", 900144,
                                     "The request body must contain the following parameter: 'grant_type'.")
                if grant not in ("refresh_token", "authorization_code", DEVICE_GRANT):
                    raise OAuthError(400, "unsupported_grant_type", 70003,
                                     "The app requested an unsupported grant type '%s'." % grant)
                self.check_client(form, basic)
                if grant == "refresh_token":
                    answer = self.refresh_grant(form)
                    self.stats["refreshes"] += 1
                elif grant == "authorization_code":
                    answer = self.code_grant(form)
                else:
                    answer = self.device_grant(form)
                return 200, answer
            except OAuthError as error:
                self.bump(self.stats["tokenErrors"], error.error)
                if grant == "refresh_token":
                    self.stats["rejectedRefreshes"] += 1
                return error.status, {
                    "error": error.error,
                    "error_description": "AADSTS%d: %s\r\nTrace ID: %s\r\nCorrelation ID: %s\r\nTimestamp: %s"
                    % (error.code, error.description, uuid.uuid4(), uuid.uuid4(), utc_stamp()),
                    "error_codes": [error.code], "timestamp": utc_stamp(),
                    "trace_id": str(uuid.uuid4()), "correlation_id": str(uuid.uuid4()),
                }

    def refresh_grant(self, form):
        token = form.get("refresh_token")
        if not token:
            raise OAuthError(400, "invalid_request", 900144,
                             "The request body must contain the following parameter: 'refresh_token'.")
        entry = self.refresh_tokens.get(token)
        if entry is None:
            raise OAuthError(400, "invalid_grant", 9002313, "Invalid request. Request is malformed or invalid.")
        if entry["state"] == "revoked":
            raise OAuthError(400, "invalid_grant", 50173, "The provided grant has expired due to it being revoked.")
        if entry["state"] == "used":
            raise OAuthError(400, "invalid_grant", 70008,
                             "The provided authorization code or refresh token has expired due to inactivity. "
                             "Send a new interactive authorization request for this user and resource.")
        if not self.keep_used:
            entry["state"] = "used"
        scope = form.get("scope") or entry["scope"]
        if "offline_access" not in scope.split():
            scope += " offline_access"  # the grant already holds it; the answer carries a new refresh token
        return self.issue_tokens(scope)

    def code_grant(self, form):
        code = form.get("code")
        for name in ("code", "redirect_uri", "code_verifier"):
            if not form.get(name):
                raise OAuthError(400, "invalid_request" if name != "code_verifier" else "invalid_grant",
                                 900144 if name != "code_verifier" else 501481,
                                 "The request body must contain the following parameter: '%s'." % name)
        entry = self.codes.get(code)
        if entry is None:
            raise OAuthError(400, "invalid_grant", 9002313, "Invalid request. Request is malformed or invalid.")
        if entry["redeemed"]:
            raise OAuthError(400, "invalid_grant", 54005, "OAuth2 Authorization code was already redeemed, "
                             "please retry with a new valid code or use an existing refresh token.")
        if now() > entry["expires"]:
            raise OAuthError(400, "invalid_grant", 70008, "The provided authorization code or refresh token has "
                             "expired due to inactivity.")
        if form["redirect_uri"] != entry["redirect_uri"]:
            raise OAuthError(400, "invalid_grant", 50011, "The redirect URI '%s' specified in the request does "
                             "not match the redirect URIs configured for the application." % form["redirect_uri"])
        digest = hashlib.sha256(form["code_verifier"].encode("ascii", "replace")).digest()
        challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        if not secrets.compare_digest(challenge, entry["challenge"]):
            raise OAuthError(400, "invalid_grant", 501481,
                             "The Code_Verifier does not match the code_challenge supplied in the authorization request.")
        entry["redeemed"] = True
        return self.issue_tokens(entry["scope"])

    def device_grant(self, form):
        code = form.get("device_code")
        entry = self.devices.get(code) if code else None
        if entry is None:
            raise OAuthError(400, "bad_verification_code", 70000 if code else 900144,
                             "The provided device_code is not recognized." if code else
                             "The request body must contain the following parameter: 'device_code'.")
        t = now()
        if t > entry["expires"]:
            raise OAuthError(400, "expired_token", 70019, "Verification code expired.")
        if entry["state"] == "redeemed":
            raise OAuthError(400, "invalid_grant", 54005, "The device code was already redeemed.")
        if entry["state"] == "declined":
            raise OAuthError(400, "authorization_declined", 70000, "The user declined the authorization request.")
        last, entry["lastPoll"] = entry["lastPoll"], t
        if last is not None and t - last < entry["interval"] - 0.05:
            entry["interval"] += self.slow_down_step
            raise OAuthError(400, "slow_down", 70000, "Polling too fast; wait at least the interval between polls.")
        if entry["state"] == "pending":
            raise OAuthError(400, "authorization_pending", 70016, "The provided request has not yet been "
                             "authorized by the user. The user must input their code.")
        entry["state"] = "redeemed"
        return self.issue_tokens(entry["scope"])

    def devicecode(self, form, basic):
        with self.lock:
            try:
                client_id = form.get("client_id")
                self.check_client_id(client_id)
                if not form.get("scope"):
                    raise OAuthError(400, "invalid_request", 900144,
                                     "The request body must contain the following parameter: 'scope'.")
            except OAuthError as error:
                self.bump(self.stats["tokenErrors"], error.error)
                return error.status, {"error": error.error, "error_description": "AADSTS%d: %s" % (error.code, error.description),
                                      "error_codes": [error.code], "timestamp": utc_stamp()}
            device_code = new_token("DAQABAAEAAA")
            user_code = "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(9))
            self.devices[device_code] = {"user_code": user_code, "scope": form["scope"], "state": "pending",
                                         "expires": now() + self.device_ttl, "interval": self.device_interval,
                                         "lastPoll": None}
            self.stats["deviceCodesIssued"] += 1
            uri = self.api_base + "/devicelogin"
            return 200, {"device_code": device_code, "user_code": user_code, "verification_uri": uri,
                         "expires_in": int(self.device_ttl), "interval": int(self.device_interval),
                         "message": "To sign in, use a web browser to open the page %s and enter the code %s to "
                                    "authenticate." % (uri, user_code)}

    def authorize(self, query):
        """(status, headers, html); a 302 only for a valid request once pre-approved."""
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(query, keep_blank_values=True).items()}
        with self.lock:
            self.stats["authorizeRequests"] += 1
            problem = None
            redirect_uri = q.get("redirect_uri", "")
            parts = urllib.parse.urlsplit(redirect_uri)
            if q.get("client_id") != self.client_id:
                problem = "AADSTS700016: Application with identifier '%s' was not found." % q.get("client_id")
            elif not loopback_redirect(parts):
                problem = "AADSTS50011: The redirect URI specified in the request does not match: only loopback " \
                          "redirect URIs (http://127.0.0.1:PORT/..., http://localhost:PORT/...) are registered."
            if problem:
                return 400, {}, problem
            error = None
            if q.get("response_type") != "code":
                error = ("unsupported_response_type", "AADSTS70005: response_type must be 'code'.")
            elif not q.get("scope"):
                error = ("invalid_request", "AADSTS900144: The request body must contain the following parameter: 'scope'.")
            elif not q.get("code_challenge") or q.get("code_challenge_method") != "S256":
                error = ("invalid_request", "AADSTS501491: PKCE with code_challenge_method=S256 is required here.")
            if error is None and not self.authorize_approved:
                return 200, {}, "Sign in: no browser here. POST /_approve to the emulator to answer this request."
            params = {}
            if error is None and self.authorize_approved == "deny":
                error = ("access_denied", "AADSTS65004: User declined to consent to access the app.")
            if error:
                params = {"error": error[0], "error_description": error[1]}
            else:
                code = new_token("M.C5_BAY.")
                self.codes[code] = {"redirect_uri": redirect_uri, "challenge": q["code_challenge"],
                                    "scope": q["scope"], "expires": now() + self.code_ttl, "redeemed": False}
                params = {"code": code}
                self.stats["authorizeRedirects"] += 1
            if "state" in q:
                params["state"] = q["state"]
            joiner = "&" if parts.query else "?"
            return 302, {"Location": redirect_uri + joiner + urllib.parse.urlencode(params)}, ""

    def approve(self, body):
        """An empty body approves every pending device code and arms /authorize; otherwise only what it names."""
        if not body:
            body = {"device": True, "authorize": True}
        device, authorize, deny = body.get("device", False), body.get("authorize"), bool(body.get("deny"))
        with self.lock:
            approved = 0
            if device:
                for entry in self.devices.values():
                    if entry["state"] == "pending" and (device is True or entry["user_code"] == device):
                        entry["state"] = "declined" if deny else "approved"
                        approved += 1
            if authorize is not None:
                self.authorize_approved = ("deny" if deny else True) if authorize else False
            return {"deviceCodes": approved, "authorize": bool(self.authorize_approved)}

    def revoke(self, body):
        with self.lock:
            count = 0
            for entry in self.refresh_tokens.values():
                if entry["state"] != "revoked":
                    entry["state"] = "revoked"
                    count += 1
            if body and body.get("accessTokens"):
                self.access_tokens.clear()
            return {"revokedRefreshTokens": count}

    # -- graph ------------------------------------------------------------------------------

    def bearer_problem(self, header):
        """None when the Authorization header holds a live access token, else (message, www-authenticate)."""
        base = 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", ' \
               'client_id="00000003-0000-0000-c000-000000000000"'
        if not header:
            return "Access token is empty.", base
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return "CompactToken parsing failed with error code: 80049217", base
        with self.lock:
            expiry = self.access_tokens.get(token.strip())
        if expiry is None:
            return "CompactToken parsing failed with error code: 80049217", base
        if now() >= expiry:
            return "Access token has expired or is not yet valid.", \
                base + ', error="expired_token", error_description="Access token has expired or is not yet valid."'
        return None

    def take_throttle(self, kind):
        """(status, retry_after) when this request is to be throttled. Caller does not hold the lock."""
        with self.lock:
            th = self.throttle
            if th is None or th["scope"] not in (kind, "all"):
                return None
            if th["enforce"] and now() < self.throttled_until:
                self.stats["api"]["earlyRetries"] += 1
                return th["status"], max(1, int(self.throttled_until - now() + 0.999))
            if th["count"] <= 0:
                self.throttle = None
                return None
            th["count"] -= 1
            self.throttled_until = now() + th["retryAfter"]
            answer = th["status"], th["retryAfter"]
            if th["count"] <= 0 and not th["enforce"]:
                self.throttle = None
            return answer

    def resolve(self, rel):
        """Full path of a drive path (no leading slash) under the root, or None."""
        if "\x00" in rel:
            return None
        full = os.path.realpath(os.path.join(self.root, rel))
        if full != self.root and not full.startswith(self.root + os.sep):
            return None
        return full if os.path.exists(full) else None

    @staticmethod
    def item_id(rel):
        return "01" + hashlib.sha1(("item:" + rel).encode()).hexdigest()[:32].upper()

    def find_id(self, item_id):
        if item_id == self.item_id(""):
            return ""
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in dirnames + filenames:
                rel = os.path.relpath(os.path.join(dirpath, name), self.root).replace(os.sep, "/")
                if self.item_id(rel) == item_id:
                    return rel
        return None

    def hashes(self, full, st):
        key = (full, st.st_size, st.st_mtime_ns, st.st_ino)
        with self.lock:
            cached = self.hash_cache.get(key)
        if cached:
            return cached
        with open(full, "rb") as f:
            data = f.read()
        value = {"quickXorHash": quick_xor_hash(data), "sha1Hash": hashlib.sha1(data).hexdigest().upper(),
                 "sha256Hash": hashlib.sha256(data).hexdigest().upper()}
        with self.lock:
            self.hash_cache[key] = value
        return value

    def tags(self, rel, st):
        guid = str(uuid.UUID(hashlib.md5(("guid:" + rel).encode()).hexdigest())).upper()
        version = int(hashlib.sha1(("%d:%d:%d" % (st.st_size, st.st_mtime_ns, st.st_ino)).encode()).hexdigest()[:6], 16)
        return guid, '"{%s},%d"' % (guid, version), '"c:{%s},%d"' % (guid, version)

    def drive_item(self, rel, full):
        st = os.stat(full)
        guid, etag, ctag = self.tags(rel, st)
        parent_rel = rel.rpartition("/")[0] if "/" in rel else ""
        item = {
            "@odata.context": "%s/v1.0/$metadata#drives('%s')/items/$entity" % (self.api_base, self.drive_id),
            "id": self.item_id(rel), "name": rel.rpartition("/")[2] if rel else "root",
            "eTag": etag, "cTag": ctag, "size": 0,
            "createdDateTime": iso_time(st.st_mtime), "lastModifiedDateTime": iso_time(st.st_mtime),
            "webUrl": "https://onedrive.invalid/emulator/%s" % urllib.parse.quote(rel),
            "fileSystemInfo": {"createdDateTime": iso_time(st.st_mtime), "lastModifiedDateTime": iso_time(st.st_mtime)},
        }
        if rel:
            item["parentReference"] = {"driveId": self.drive_id, "driveType": "personal",
                                       "id": self.item_id(parent_rel),
                                       "path": "/drive/root:" + ("/" + urllib.parse.quote(parent_rel) if parent_rel else "")}
        else:
            item["root"] = {}
        if os.path.isdir(full):
            try:
                children = os.listdir(full)
            except OSError:
                children = []
            item["folder"] = {"childCount": len(children)}
            item["size"] = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(full) for f in fs)
        else:
            item["size"] = st.st_size
            item["file"] = {"mimeType": mimetypes.guess_type(full)[0] or "application/octet-stream",
                            "hashes": self.hashes(full, st)}
            item["@microsoft.graph.downloadUrl"] = self.download_url(rel)
        return item

    def download_url(self, rel):
        token = "v1." + secrets.token_urlsafe(48)
        with self.lock:
            self.content_urls[token] = {"rel": rel, "expires": now() + self.content_ttl}
        guid = str(uuid.UUID(hashlib.md5(("guid:" + rel).encode()).hexdigest()))
        return "%s%s?UniqueId=%s&Translate=false&tempauth=%s&ApiVersion=2.0" % (self.content_base, DOWNLOAD_PATH, guid, token)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "onedrive-emulator/1"
    emu = None  # set by main()
    role = "api"  # "api" or "content", set per server class

    def log_message(self, format, *args):
        if os.environ.get("ONEDRIVE_EMULATOR_VERBOSE"):
            # Never the query string: it carries codes and tempauth tokens.
            sys.stderr.write("onedrive-emulator[%s]: %s %s\n" % (self.role, self.command, self.url_path()))

    def url_path(self):
        return urllib.parse.urlsplit(getattr(self, "path", "") or "").path

    def raw_query(self):
        return urllib.parse.urlsplit(self.path).query

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def do_GET(self):
        self.dispatch(send_body=True)

    def do_HEAD(self):
        self.dispatch(send_body=False)

    def do_POST(self):
        self.dispatch(send_body=True)

    do_PUT = do_POST
    do_DELETE = do_POST
    do_PATCH = do_POST

    # -- answers ----------------------------------------------------------------------------

    def answer(self, status, body=b"", headers=None, content_type=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            content_type = content_type or "application/json; charset=utf-8"
        elif isinstance(body, str):
            body = body.encode()
        self.begin(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body and content_type:
            self.send_header("Content-Type", content_type)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.send_body and status not in (204, 304):
            self.wfile.write(body)
        return status

    def begin(self, status):
        """send_response, after counting: the counters are final before the client can read a byte."""
        if self.on_status:
            self.on_status(status)
        self.send_response(status)

    def graph_error(self, status, code, message, headers=None):
        date = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        rid = str(uuid.uuid4())
        body = {"error": {"code": code, "message": message,
                          "innerError": {"date": date, "request-id": rid, "client-request-id": rid}}}
        return self.answer(status, body, dict(headers or {}, **{"request-id": rid}))

    # -- dispatch ---------------------------------------------------------------------------

    def dispatch(self, send_body):
        self.send_body = send_body
        path = self.url_path()
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH", "DELETE") else b""
        self.on_status = None
        if path.startswith("/_") and self.control(path, body):
            return
        range_header = self.headers.get("Range") if self.role == "content" else None
        counters = []  # extra counting, set by api() for Graph paths

        def on_status(status):
            self.emu.record(self.role, self.command, path, status, range_header)
            for count in counters:
                count(status)

        self.on_status = on_status
        self.status_counters = counters
        if self.role == "content":
            self.content(path)
        else:
            self.api(path, body)

    def control(self, path, body):
        emu = self.emu
        try:
            data = json.loads(body) if body.strip() else None
        except ValueError:
            self.answer(400, {"error": "body is not JSON"})
            return True
        if path == "/_stats" and self.command == "GET":
            self.answer(200, emu.snapshot(), {"Cache-Control": "no-store"})
        elif self.command != "POST":
            return False
        elif path == "/_reset":
            emu.reset()
            self.answer(204)
        elif path == "/_approve":
            self.answer(200, emu.approve(data))
        elif path == "/_revoke":
            self.answer(200, emu.revoke(data))
        elif path == "/_seed":
            data = data or {}
            token = data.get("refreshToken")
            if not token:
                self.answer(400, {"error": "refreshToken is required"})
                return True
            with emu.lock:
                emu.refresh_tokens[token] = {"scope": data.get("scope", "Files.Read offline_access"), "state": "valid"}
            self.answer(204)
        elif path == "/_expire-access-tokens":
            with emu.lock:
                t = now()
                for token in emu.access_tokens:
                    emu.access_tokens[token] = min(emu.access_tokens[token], t)
            self.answer(204)
        elif path == "/_throttle":
            data = data or {}
            status = int(data.get("status", 429))
            scope = data.get("scope", "graph")
            if status not in (429, 503) or scope not in ("graph", "token", "all"):
                self.answer(400, {"error": "status must be 429 or 503, scope graph, token or all"})
                return True
            with emu.lock:
                emu.throttle = {"count": int(data.get("count", 1)), "status": status,
                                "retryAfter": int(data.get("retryAfter", 1)), "scope": scope,
                                "enforce": bool(data.get("enforce", True))}
                emu.throttled_until = 0.0
            self.answer(204)
        elif path == "/_expire-content-urls":
            with emu.lock:
                t = now()
                for entry in emu.content_urls.values():
                    entry["expires"] = min(entry["expires"], t)
            self.answer(204)
        elif path == "/_break-next-content":
            data = data or {}
            with emu.lock:
                emu.break_after = int(data.get("afterBytes", 0))
            self.answer(204)
        else:
            return False
        return True

    def api(self, path, body):
        emu = self.emu
        segments = path.split("/")
        # /{tenant}/oauth2/v2.0/{token|devicecode|authorize}
        if len(segments) == 5 and segments[2] == "oauth2" and segments[3] == "v2.0" and segments[1]:
            return self.identity(segments[4], body)
        if path == "/devicelogin":
            return self.answer(200, "Device login: no browser here. POST /_approve to the emulator.\n",
                               content_type="text/plain; charset=utf-8")
        rest = self.graph_rest(path)
        if rest is None:
            return self.graph_error(400, "invalidRequest", "Invalid request: unsupported resource '%s'." % path)
        throttled = emu.take_throttle("graph")
        with emu.lock:
            emu.stats["api"]["requests"] += 1
        self.status_counters.append(lambda status: self.counted(path, status))
        if throttled:
            return self.throttled(*throttled)
        problem = emu.bearer_problem(self.headers.get("Authorization"))
        if problem:
            with emu.lock:
                emu.stats["api"]["unauthorized"] += 1
            return self.graph_error(401, "InvalidAuthenticationToken", problem[0], {"WWW-Authenticate": problem[1]})
        if self.command not in ("GET", "HEAD"):
            return self.graph_error(405, "invalidRequest", "Only GET is emulated.", {"Allow": "GET, HEAD"})
        return self.graph(rest)

    def counted(self, path, status):
        with self.emu.lock:
            api = self.emu.stats["api"]
            self.emu.bump(api["byPath"].setdefault(path, {}), str(status))
            self.emu.bump(api["byStatus"], str(status))
        return status

    def throttled(self, status, retry_after):
        with self.emu.lock:
            self.emu.stats["api"]["throttled"] += 1
        if status == 429:
            return self.graph_error(429, "activityLimitReached", "The request has been throttled",
                                    {"Retry-After": str(retry_after)})
        return self.graph_error(503, "serviceNotAvailable", "The service is temporarily unavailable.",
                                {"Retry-After": str(retry_after)})

    def graph_rest(self, path):
        """The part after the drive's prefix (/v1.0/me/drive or /v1.0/drives/{id}), raw, or None."""
        for prefix in GRAPH_PREFIXES + ("/v1.0/drives/" + self.emu.drive_id,):
            if path == prefix or path.startswith(prefix + "/"):
                return path[len(prefix):]
        if path.startswith("/v1.0/drives/"):
            return ""  # another drive: answered itemNotFound by graph()
        return None

    def graph(self, rest):
        emu = self.emu
        want_content = False
        rel = None
        if rest == "/root" or rest == "/root:" or rest == "/root:/":
            rel = ""
        elif rest == "/root/content":
            return self.graph_error(400, "invalidRequest", "Cannot download a folder.")
        elif rest.startswith("/root:/"):
            tail = rest[len("/root:/"):]
            if tail.endswith(":/content"):
                tail, want_content = tail[: -len(":/content")], True
            elif tail.endswith(":"):
                tail = tail[:-1]
            rel = urllib.parse.unquote(tail).strip("/")
            if not rel or ".." in rel.split("/"):
                return self.graph_error(404, "itemNotFound", "The resource could not be found.")
        elif rest.startswith("/items/"):
            tail = rest[len("/items/"):]
            if tail.endswith("/content"):
                tail, want_content = tail[: -len("/content")], True
            if "/" in tail:
                return self.graph_error(400, "invalidRequest", "Invalid request.")
            rel = emu.find_id(urllib.parse.unquote(tail))
            if rel is None:
                return self.graph_error(404, "itemNotFound", "Item not found")
        else:
            return self.graph_error(404, "itemNotFound", "The resource could not be found.")
        full = emu.resolve(rel)
        if full is None:
            return self.graph_error(404, "itemNotFound", "The resource could not be found.")
        if not want_content:
            item = emu.drive_item(rel, full)
            select = urllib.parse.parse_qs(self.raw_query()).get("$select")
            if select:
                keep = {s.strip() for s in select[-1].split(",")}
                item = {k: v for k, v in item.items() if k in keep or k == "@odata.context"}
            return self.answer(200, item)
        if os.path.isdir(full):
            return self.graph_error(400, "invalidRequest", "Cannot download a folder.")
        st = os.stat(full)
        _, etag, ctag = emu.tags(rel, st)
        inm = self.headers.get("If-None-Match")
        if inm and any(t.removeprefix("W/") in (etag, ctag, "*") for t in entity_tags(inm)):
            return self.answer(304, headers={"ETag": etag})
        return self.answer(302, b"", {"Location": emu.download_url(rel)})

    def identity(self, endpoint, body):
        emu = self.emu
        if endpoint == "authorize":
            if self.command != "GET":
                return self.answer(405, "", {"Allow": "GET"})
            status, headers, text = emu.authorize(self.raw_query())
            return self.answer(status, "<html><body><p>%s</p></body></html>" % text if text else b"", headers,
                               content_type="text/html; charset=utf-8")
        if endpoint not in ("token", "devicecode"):
            return self.answer(404, {"error": "invalid_request", "error_description": "unknown endpoint"})
        throttled = emu.take_throttle("token")
        if throttled:
            status, retry_after = throttled
            with emu.lock:
                emu.stats["api"]["throttled"] += 1
            return self.answer(status, {"error": "temporarily_unavailable", "error_description":
                                        "AADSTS90033: A transient error has occurred. Please try again."},
                               {"Retry-After": str(retry_after)})
        if self.command != "POST":
            return self.answer(400, {"error": "invalid_request", "error_description":
                                     "AADSTS900561: The endpoint only accepts POST requests."})
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            return self.answer(400, {"error": "invalid_request", "error_description":
                                     "AADSTS900144: The request body must be application/x-www-form-urlencoded."})
        try:
            pairs = urllib.parse.parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(body))
        except (UnicodeDecodeError, ValueError):
            pairs = {}
        form = {k: v[-1] for k, v in pairs.items()}
        basic = None
        auth = self.headers.get("Authorization") or ""
        if auth.lower().startswith("basic "):
            try:
                user, _, password = base64.b64decode(auth[6:].strip()).decode().partition(":")
                basic = (urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(password))
            except (ValueError, UnicodeDecodeError):
                basic = ("", "")
        if endpoint == "devicecode":
            status, answer = emu.devicecode(form, basic)
        else:
            status, answer = emu.token(form, basic)
        return self.answer(status, answer, {"Cache-Control": "no-store", "Pragma": "no-cache"})

    # -- content host -----------------------------------------------------------------------

    def content(self, path):
        emu = self.emu
        with emu.lock:
            emu.stats["content"]["requests"] += 1

        def count(status):
            with emu.lock:
                emu.bump(emu.stats["content"]["byStatus"], str(status))

        self.status_counters.append(count)
        return self.content_answer(path)

    def content_answer(self, path):
        emu = self.emu
        if self.headers.get("Authorization") is not None:
            with emu.lock:
                emu.stats["content"]["withAuthorization"] += 1
            return self.answer(401, {"error": {"code": "unauthenticated", "message":
                                               "Pre-authenticated URLs take no Authorization header."}})
        if path != DOWNLOAD_PATH:
            return self.answer(404, {"error": {"code": "itemNotFound", "message": "Not found."}})
        if self.command not in ("GET", "HEAD"):
            return self.answer(405, b"", {"Allow": "GET, HEAD"})
        token = None
        for part in self.raw_query().split("&"):
            name, _, value = part.partition("=")
            if name == "tempauth":
                token = value
        with emu.lock:
            entry = emu.content_urls.get(token) if token else None
            live = entry is not None and now() < entry["expires"]
            if not live:
                emu.stats["content"]["rejectedUrls"] += 1
        if not live:
            return self.answer(401, {"error": {"code": "unauthenticated", "message":
                                               "The pre-authenticated URL is invalid or has expired."}})
        full = emu.resolve(entry["rel"])
        if full is None or not os.path.isfile(full):
            return self.answer(404, {"error": {"code": "itemNotFound", "message": "The item no longer exists."}})
        with open(full, "rb") as f:
            st = os.fstat(f.fileno())
            size = st.st_size
            _, etag, _ = emu.tags(entry["rel"], st)
            last_modified = email.utils.formatdate(st.st_mtime, usegmt=True)
            wanted = parse_single_range(self.headers.get("Range"), size)
            if_range = self.headers.get("If-Range")
            if wanted is not None and if_range is not None and if_range.strip() not in (etag, last_modified):
                wanted = None
            validators = {"ETag": etag, "Last-Modified": last_modified, "Accept-Ranges": "bytes"}
            if wanted == "unsatisfiable":
                return self.answer(416, b"", dict(validators, **{"Content-Range": "bytes */%d" % size}))
            if wanted is None:
                status, first, last = 200, 0, size - 1
            else:
                status, (first, last) = 206, wanted
            length = last - first + 1 if size else 0
            with emu.lock:
                cut = emu.break_after if self.send_body else None
                if cut is not None:
                    emu.break_after = None
                    emu.stats["content"]["broken"] += 1
            self.begin(status)
            for name, value in validators.items():
                self.send_header(name, value)
            if status == 206:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, size))
            self.send_header("Content-Type", mimetypes.guess_type(full)[0] or "application/octet-stream")
            self.send_header("Content-Length", str(length))
            if cut is not None:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            if not self.send_body:
                return status
            self.wfile.flush()
            self.copy(f, first, length if cut is None else min(cut, length))
            if cut is not None:
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        return status

    def copy(self, f, offset, count):
        out = self.connection.fileno()
        sent = 0
        try:
            while sent < count and not STOPPING.is_set():
                n = os.sendfile(out, f.fileno(), offset + sent, min(CHUNK, count - sent))
                if n == 0:
                    break
                sent += n
                with self.emu.lock:
                    self.emu.stats["content"]["bytes"] += n
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, help="folder served as the drive")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="API + identity port (0 picks a free one)")
    parser.add_argument("--content-port", type=int, default=0, help="content host port (0 picks a free one)")
    parser.add_argument("--port-file", help='written with {"api": P1, "content": P2} once both listen')
    parser.add_argument("--client-id", default="sluice-test-client", help="the one registered application")
    parser.add_argument("--client-secret", help="makes the client confidential: token requests must carry it")
    parser.add_argument("--refresh-token", action="append", help="a valid refresh token at start (repeatable)")
    parser.add_argument("--access-token-ttl", type=float, default=3600.0, help="seconds (expires_in)")
    parser.add_argument("--content-url-ttl", type=float, default=300.0, help="seconds a download URL is good for")
    parser.add_argument("--code-ttl", type=float, default=600.0, help="seconds an authorization code is good for")
    parser.add_argument("--device-code-ttl", type=float, default=900.0, help="seconds a device code is good for")
    parser.add_argument("--device-interval", type=float, default=5.0, help="polling interval handed out")
    parser.add_argument("--slow-down-step", type=float, default=5.0, help="seconds each slow_down adds")
    parser.add_argument("--keep-used-refresh-tokens", action="store_true",
                        help="let a used refresh token work again, as the real platform does")
    parser.add_argument("--drive-id", default="b!emulatorDrive0001", help="id for /v1.0/drives/{id}/...")
    args = parser.parse_args()
    if not os.path.isdir(args.root):
        parser.error("--root %s is not a directory" % args.root)
    if args.device_interval != int(args.device_interval) or args.device_interval < 0:
        parser.error("--device-interval must be a whole number of seconds")

    emu = Emulator(args)

    class ApiHandler(Handler):
        role = "api"

    class ContentHandler(Handler):
        role = "content"

    ApiHandler.emu = ContentHandler.emu = emu
    Server.allow_reuse_address = args.port != 0 or args.content_port != 0
    api = Server((args.host, args.port), ApiHandler)
    content = Server((args.host, args.content_port), ContentHandler)
    host = "[%s]" % args.host if ":" in args.host else args.host
    emu.api_base = "http://%s:%d" % (host, api.server_address[1])
    emu.content_base = "http://%s:%d" % (host, content.server_address[1])

    def stop(signum, frame):
        STOPPING.set()
        threading.Thread(target=api.shutdown, daemon=True).start()
        threading.Thread(target=content.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    ports = {"api": api.server_address[1], "content": content.server_address[1]}
    content_thread = threading.Thread(target=content.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    content_thread.start()
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps(ports) + "\n")
        os.replace(tmp, args.port_file)
    print("onedrive-emulator listening %s root=%s" % (json.dumps(ports), emu.root), flush=True)
    try:
        api.serve_forever(poll_interval=0.2)
    finally:
        content_thread.join(timeout=5)
        api.server_close()
        content.server_close()


if __name__ == "__main__":
    main()
