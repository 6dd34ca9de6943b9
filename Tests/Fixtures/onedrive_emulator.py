#!/usr/bin/env python3
"""An emulator of the documented OneDrive download protocol (Microsoft Graph) and of the Microsoft identity
platform's OAuth2 endpoints, for Sluice's cloud-upstream tests (Python 3 stdlib only). It is not Microsoft's
code and has never been compared with the live services byte for byte: it follows their documentation, and
where the documentation leaves room it is stricter than the services, so a client that passes here should
not rely on anything the services do not promise. Built on cloud_emulator.py (tokens, throttling, counters,
signed URLs, ranged answers, controls, the two listeners); this file holds only what is Graph's or Microsoft's.

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

import base64
import hashlib
import os
import re
import time
import urllib.parse
import uuid

from cloud_emulator import (CloudEmulator, CloudHandler, HashCache, RFC_DEVICE_GRANT, TokenService, add_common_arguments,
                            argument_parser, guess_type, parse_common, run, tree_size)

GRAPH_PREFIXES = ("/v1.0/me/drive",)
DOWNLOAD_PATH = "/personal/emulator/_layouts/15/download.aspx"
WWW_AUTHENTICATE = 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", ' \
                   'client_id="00000003-0000-0000-c000-000000000000"'


def utc_stamp():
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime())


def iso_time(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


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


class MicrosoftTokens(TokenService):
    """The identity platform's dialect: AADSTS numbers, Bearer answers, refresh tokens only with offline_access."""

    device_grant = RFC_DEVICE_GRANT
    access_prefix, refresh_prefix, code_prefix, device_prefix = "EwA", "M.C5", "M.C5_BAY.", "DAQABAAEAAA"
    default_scope = "Files.Read offline_access"
    scope_required = True
    CODES = {
        "missing_parameter": 900144, "unsupported_grant": 70003, "unknown_client": 700016, "missing_secret": 7000218,
        "bad_secret": 7000215, "malformed_grant": 9002313, "revoked": 50173, "used_refresh_token": 70008,
        "code_redeemed": 54005, "code_expired": 70008, "redirect_uri": 50011, "pkce_mismatch": 501481,
        "device_missing": 900144, "device_unknown": 70000, "device_expired": 70019, "device_redeemed": 54005,
        "declined": 70000, "slow_down": 70000, "pending": 70016, "post_only": 900561, "form_only": 900144,
        "response_type": 70005, "pkce_required": 501491, "denied": 65004,
    }

    def wants_refresh(self, scope):
        return "offline_access" in scope.split()

    def refresh_scope(self, form, entry):
        scope = super().refresh_scope(form, entry)
        if "offline_access" not in scope.split():
            scope += " offline_access"  # the grant already holds it; the answer carries a new refresh token
        return scope

    def token_answer(self, access, refresh, scope):
        answer = {"token_type": "Bearer", "scope": scope, "expires_in": int(self.access_ttl),
                  "ext_expires_in": int(self.access_ttl), "access_token": access}
        if refresh:
            answer["refresh_token"] = refresh
        return answer

    def device_answer(self, device_code, user_code, uri):
        return dict(super().device_answer(device_code, user_code, uri),
                    message="To sign in, use a web browser to open the page %s and enter the code %s to "
                            "authenticate." % (uri, user_code))

    def verification_uri(self):
        return self.emu.api_base + "/devicelogin"

    def authorize_text(self, error):
        return "AADSTS%d: %s" % (self.code(error.reason), error.description)

    def error_body(self, error, endpoint):
        code = self.code(error.reason)
        if endpoint == "request":
            return {"error": error.error, "error_description": "AADSTS%d: %s" % (code, error.description)}
        if endpoint == "devicecode":
            return {"error": error.error, "error_description": "AADSTS%d: %s" % (code, error.description),
                    "error_codes": [code], "timestamp": utc_stamp()}
        return {
            "error": error.error,
            "error_description": "AADSTS%d: %s\r\nTrace ID: %s\r\nCorrelation ID: %s\r\nTimestamp: %s"
            % (code, error.description, uuid.uuid4(), uuid.uuid4(), utc_stamp()),
            "error_codes": [code], "timestamp": utc_stamp(),
            "trace_id": str(uuid.uuid4()), "correlation_id": str(uuid.uuid4()),
        }


def graph_hashes(data):
    return {"quickXorHash": quick_xor_hash(data), "sha1Hash": hashlib.sha1(data).hexdigest().upper(),
            "sha256Hash": hashlib.sha256(data).hexdigest().upper()}


class Emulator(CloudEmulator):
    """The drive: ids, tags and driveItems over the kit's state."""

    default_throttle_scope = "graph"
    throttle_scopes = ("graph", "token", "all")

    def __init__(self, args):
        super().__init__(args, MicrosoftTokens)
        self.drive_id = args.drive_id
        self.hashes = HashCache(graph_hashes)

    @staticmethod
    def item_id(rel):
        return "01" + hashlib.sha1(("item:" + rel).encode()).hexdigest()[:32].upper()

    def find_id(self, item_id):
        return "" if item_id == self.item_id("") else super().find_id(item_id)

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
            item["size"] = tree_size(full)
        else:
            item["size"] = st.st_size
            item["file"] = {"mimeType": guess_type(full), "hashes": self.hashes.get(full, st)}
            item["@microsoft.graph.downloadUrl"] = self.download_url(rel)
        return item

    def download_url(self, rel):
        token = self.content_urls.issue(rel, prefix="v1.")
        guid = str(uuid.UUID(hashlib.md5(("guid:" + rel).encode()).hexdigest()))
        return "%s%s?UniqueId=%s&Translate=false&tempauth=%s&ApiVersion=2.0" % (self.content_base, DOWNLOAD_PATH, guid, token)


class Handler(CloudHandler):
    server_version = "onedrive-emulator/1"
    log_name = "onedrive-emulator"
    verbose_env = "ONEDRIVE_EMULATOR_VERBOSE"

    def graph_error(self, status, code, message, headers=None):
        date = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        rid = str(uuid.uuid4())
        body = {"error": {"code": code, "message": message,
                          "innerError": {"date": date, "request-id": rid, "client-request-id": rid}}}
        return self.answer(status, body, dict(headers or {}, **{"request-id": rid}))

    def api_throttled(self, status, retry_after):
        if status == 429:
            return self.graph_error(429, "activityLimitReached", "The request has been throttled",
                                    {"Retry-After": str(retry_after)})
        return self.graph_error(503, "serviceNotAvailable", "The service is temporarily unavailable.",
                                {"Retry-After": str(retry_after)})

    def token_throttled(self, status, retry_after):
        return self.answer(status, {"error": "temporarily_unavailable", "error_description":
                                    "AADSTS90033: A transient error has occurred. Please try again."},
                           {"Retry-After": str(retry_after)})

    def api(self, path, body):
        segments = path.split("/")
        # /{tenant}/oauth2/v2.0/{token|devicecode|authorize}
        if len(segments) == 5 and segments[2] == "oauth2" and segments[3] == "v2.0" and segments[1]:
            endpoint = segments[4]
            if endpoint == "authorize":
                return self.authorize_endpoint()
            if endpoint not in ("token", "devicecode"):
                return self.answer(404, {"error": "invalid_request", "error_description": "unknown endpoint"})
            return self.token_endpoint(endpoint, body)
        if path == "/devicelogin":
            return self.answer(200, "Device login: no browser here. POST /_approve to the emulator.\n",
                               content_type="text/plain; charset=utf-8")
        rest = self.graph_rest(path)
        if rest is None:
            return self.graph_error(400, "invalidRequest", "Invalid request: unsupported resource '%s'." % path)
        problem = self.api_gate(path, "graph")
        if problem == "sent":
            return None
        if problem:
            if problem == "missing":
                message, challenge = "Access token is empty.", WWW_AUTHENTICATE
            elif problem == "expired":
                message = "Access token has expired or is not yet valid."
                challenge = WWW_AUTHENTICATE + ', error="expired_token", error_description="%s"' % message
            else:
                message, challenge = "CompactToken parsing failed with error code: 80049217", WWW_AUTHENTICATE
            return self.graph_error(401, "InvalidAuthenticationToken", message, {"WWW-Authenticate": challenge})
        if self.command not in ("GET", "HEAD"):
            return self.graph_error(405, "invalidRequest", "Only GET is emulated.", {"Allow": "GET, HEAD"})
        return self.graph(rest)

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
        _, etag, ctag = emu.tags(rel, os.stat(full))
        inm = self.headers.get("If-None-Match")
        if inm and any(t.removeprefix("W/") in (etag, ctag, "*") for t in entity_tags(inm)):
            return self.answer(304, headers={"ETag": etag})
        return self.answer(302, b"", {"Location": emu.download_url(rel)})

    # -- content host -----------------------------------------------------------------------

    CONTENT_ERRORS = {
        "authorization": ("unauthenticated", "Pre-authenticated URLs take no Authorization header."),
        "expired": ("unauthenticated", "The pre-authenticated URL is invalid or has expired."),
        "not-found": ("itemNotFound", "Not found."),
        "gone": ("itemNotFound", "The item no longer exists."),
    }

    def content_error(self, status, reason):
        if reason == "method":
            return self.answer(405, b"", {"Allow": "GET, HEAD"})
        code, message = self.CONTENT_ERRORS[reason]
        return self.answer(status, {"error": {"code": code, "message": message}})

    def content_route(self, path):
        if path != DOWNLOAD_PATH:
            return self.content_error(404, "not-found")
        if self.command not in ("GET", "HEAD"):
            return self.content_error(405, "method")
        token = None
        for part in self.raw_query().split("&"):
            name, _, value = part.partition("=")
            if name == "tempauth":
                token = value  # byte for byte as sent
        entry = self.signed_entry(token)
        if entry is None:
            return None
        full = self.emu.resolve(entry["rel"])
        if full is None or not os.path.isfile(full):
            return self.content_error(404, "gone")
        _, etag, _ = self.emu.tags(entry["rel"], os.stat(full))
        return self.send_file(full, etag)


def main():
    parser = argument_parser(__doc__)
    add_common_arguments(parser)
    parser.add_argument("--drive-id", default="b!emulatorDrive0001", help="id for /v1.0/drives/{id}/...")
    args = parse_common(parser)
    run(Emulator(args), Handler, args, "onedrive-emulator")


if __name__ == "__main__":
    main()
