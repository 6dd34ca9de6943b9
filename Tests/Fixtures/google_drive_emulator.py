#!/usr/bin/env python3
"""An emulator of the documented Google Drive API v3 read path (files.list, files.get, alt=media) and of Google's
OAuth2 token endpoint (refresh tokens, authorization codes with PKCE, the service-account JWT bearer grant), for
Sluice's cloud-upstream tests (Python 3 stdlib only, plus the `cryptography` module or the `openssl` command to
check JWT signatures). It is not Google's code and has never been compared with the live service byte for byte:
it follows Google's public documentation, and where the documentation leaves room it is stricter than the service.
Built on cloud_emulator.py; this file holds only what is Google's.

    google_drive_emulator.py --root DIR [--host 127.0.0.1] [--port 0] [--content-port 0] [--port-file FILE]
                             [--client-id ID] [--client-secret S] [--refresh-token T ...] [--access-token-ttl 3600]
                             [--service-account-email E --service-account-public-key PEM] [--drive-id ID]

The tree under --root is My Drive (or, with --drive-id, the shared drive of that ID). A file whose name ends in
`.gdoc` is a Google Docs document (mimeType application/vnd.google-apps.document, no size, no bytes). IDs are
28 URL-safe characters derived from the path.

API host (P1; www.googleapis.com and oauth2.googleapis.com in one; the content port listens and serves nothing)

    POST /token                 form-encoded; client_id (+ client_secret) in the body or as Basic
        grant_type=refresh_token        -> {"access_token", "expires_in", "scope", "token_type": "Bearer"}: no new
                                           refresh token, the old one stays valid (Google does not rotate them)
        grant_type=authorization_code   code, redirect_uri, code_verifier (PKCE S256); a refresh token only when the
                                        authorize request said access_type=offline
        grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer    assertion=JWT (no client_id): RS256 signed by the
            service account's key; iss the account, aud this endpoint's URL, scope, iat/exp at most an hour apart
            and around now; optional sub -> {"access_token", "expires_in", "token_type": "Bearer"}
        -> 400/401 {"error", "error_description"}
    GET  /authorize             as cloud_emulator.py (PKCE S256, loopback redirect_uri, /_approve)
    GET  /drive/v3/files        q (the subset below), fields, pageSize, supportsAllDrives, includeItemsFromAllDrives,
                                corpora, driveId, spaces -> {"files": [...]} (only the fields asked for)
    GET  /drive/v3/files/{id}   fields -> the File resource: id, name, mimeType, size (a string), md5Checksum,
                                version (a string), headRevisionId, resourceKey (link-shared files)
    GET  /drive/v3/files/{id}?alt=media    the bytes: Range (206 / 416 `bytes */N`); [acknowledgeAbuse=true]

    Every /drive/v3 call needs `Authorization: Bearer <token>` (401 authError otherwise, also for an expired one)
    and supportsAllDrives=true (without it a file is 404 notFound, as a shared drive's files are for old clients).
    A list naming driveId needs corpora=drive and includeItemsFromAllDrives=true (400 otherwise).

    q: terms joined by `and`: name = 'S', 'ID' in parents, trashed = true|false, mimeType = 'S', mimeType != 'S'.
    In a string, \\' is a quote and \\\\ a backslash; any other backslash escape, an unterminated string or an
    unknown term is 400 invalid (location q), counted as api.badQueries.

    Errors are Google's JSON: {"error": {"code": N, "message", "errors": [{"domain", "reason", "message",
    "location"?, "locationType"?}]}}: 404 notFound, 403 fileNotDownloadable (alt=media on a Docs file),
    403 cannotDownloadAbusiveFile, 403 userRateLimitExceeded / rateLimitExceeded / downloadQuotaExceeded or 429
    rateLimitExceeded (on demand, /_quota), 401 authError. No Retry-After is sent: Google documents none.

Control (both hosts; never counted; JSON bodies) — cloud_emulator.py's, and:

    POST /_id {"path": REL}                       -> {"id"}: the ID the emulator gives that path
    POST /_resource-key {"path": REL, "key": K}   the file is link-shared: calls about it must send
                                                  X-Goog-Drive-Resource-Keys: ID/K, else 404 (stats resourceKeyRefusals)
    POST /_abusive {"path": REL}                  alt=media needs acknowledgeAbuse=true (stats abuseRefusals)
    POST /_quota {"count", "reason", "status": 403|429, "scope": "media"|"metadata"|"list"|"all"}
                                                  the next `count` calls in scope answer that limit (stats quotaErrors)
    GET  /_stats adds jwtGrants, jwtSubjects, badQueries, quotaErrors, abuseRefusals, resourceKeyRefusals, and
                 api.byKind {"list", "metadata", "media"}.

Documents followed (developers.google.com/drive/api, developers.google.com/identity; stored copies read through
the search tool, and the project's provider notes):

  * files.get and "Download and export files": alt=media with Range; Docs editors files need export;
    acknowledgeAbuse "only applicable when the alt parameter is set to media and the user is the owner of the file
    or an organizer of the shared drive".
  * files.list and "Search for files and folders": the q grammar, string escaping ("Escape single quotes in queries
    with a backslash, such as 'Valentine\\'s Day'"), `'ID' in parents`, trashed; supportsAllDrives,
    includeItemsFromAllDrives, corpora=drive with driveId.
  * "Access link-shared files using resource keys": X-Goog-Drive-Resource-Keys: fileId1/resourceKey1,...
  * "Resolve errors": the error body and the reasons above; exponential backoff for rate limits.
  * "Using OAuth 2.0 for Server to Server Applications": the JWT header and claim set, the jwt-bearer grant, the
    one-hour limit; "OAuth 2.0 for Mobile & Desktop Apps": loopback redirects, PKCE, access_type=offline.

Deliberately stricter than the service: supportsAllDrives is required on every call; a q escape other than \\' and
\\\\ is refused; unknown q terms are refused; the JWT's exp - iat must be at most 3600 s.

Not verified (chosen, and marked so): the exact message texts; the 401 body of an expired token; ETag and
Last-Modified on alt=media (sent here as the quoted MD5 and the file's mtime); whether alt=media redirects (never
here); `version` (mtime-derived here) and `headRevisionId` (the MD5's first 16 hex digits).
"""

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from cloud_emulator import (CloudEmulator, CloudHandler, HashCache, OfflineTokenService, OAuthError, add_common_arguments,
                            argument_parser, guess_type, parse_common, run)

API = "/drive/v3/files"
FOLDER = "application/vnd.google-apps.folder"
DOCUMENT = "application/vnd.google-apps.document"
JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
READ_SCOPES = ("https://www.googleapis.com/auth/drive", "https://www.googleapis.com/auth/drive.readonly")
QUOTA_REASONS = ("userRateLimitExceeded", "rateLimitExceeded", "downloadQuotaExceeded")


class BadQuery(Exception):
    """A q that Drive refuses with 400 invalid."""


def tokenize(q):
    """Tokens of a q string: ("str", value), ("word", text) or ("op", text). BadQuery on a malformed string."""
    tokens, i = [], 0
    while i < len(q):
        ch = q[i]
        if ch.isspace():
            i += 1
        elif ch == "'":
            value, i = [], i + 1
            while True:
                if i >= len(q):
                    raise BadQuery("unterminated string")
                ch = q[i]
                if ch == "\\":
                    if i + 1 >= len(q) or q[i + 1] not in "'\\":
                        raise BadQuery("bad escape")
                    value.append(q[i + 1])
                    i += 2
                elif ch == "'":
                    i += 1
                    break
                else:
                    value.append(ch)
                    i += 1
            tokens.append(("str", "".join(value)))
        elif q.startswith("!=", i):
            tokens.append(("op", "!="))
            i += 2
        elif ch == "=":
            tokens.append(("op", "="))
            i += 1
        else:
            match = re.match(r"[A-Za-z]+", q[i:])
            if not match:
                raise BadQuery("unexpected character")
            tokens.append(("word", match.group(0)))
            i += len(match.group(0))
    return tokens


def parse_query(q):
    """The terms of q as tuples: ("name", S), ("parent", ID), ("trashed", bool), ("mimeType", op, S)."""
    tokens, terms, i = tokenize(q), [], 0
    while True:
        rest = tokens[i:]
        if len(rest) >= 3 and rest[0] == ("word", "name") and rest[1] == ("op", "=") and rest[2][0] == "str":
            terms.append(("name", rest[2][1]))
            i += 3
        elif len(rest) >= 3 and rest[0][0] == "str" and rest[1] == ("word", "in") and rest[2] == ("word", "parents"):
            terms.append(("parent", rest[0][1]))
            i += 3
        elif (len(rest) >= 3 and rest[0] == ("word", "trashed") and rest[1] == ("op", "=")
              and rest[2] in (("word", "true"), ("word", "false"))):
            terms.append(("trashed", rest[2][1] == "true"))
            i += 3
        elif len(rest) >= 3 and rest[0] == ("word", "mimeType") and rest[1][0] == "op" and rest[2][0] == "str":
            terms.append(("mimeType", rest[1][1], rest[2][1]))
            i += 3
        else:
            raise BadQuery("unknown term")
        if i == len(tokens):
            return terms
        if tokens[i] != ("word", "and"):
            raise BadQuery("expected and")
        i += 1


def file_hashes(data):
    return {"md5Checksum": hashlib.md5(data).hexdigest()}


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify_rs256(public_pem, signing_input, signature):
    """Whether signature is signing_input's RS256 signature under public_pem: the cryptography module when it is
    installed, else `openssl dgst -verify`."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding
    except ImportError:
        return verify_with_openssl(public_pem, signing_input, signature)
    key = serialization.load_pem_public_key(public_pem)
    try:
        key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
        return True
    except InvalidSignature:
        return False


def verify_with_openssl(public_pem, signing_input, signature):
    folder = tempfile.mkdtemp(prefix="gdrive-jwt-")
    try:
        paths = {}
        for name, data in (("key.pem", public_pem), ("input", signing_input), ("sig", signature)):
            paths[name] = os.path.join(folder, name)
            with open(paths[name], "wb") as f:
                f.write(data)
        result = subprocess.run([shutil.which("openssl") or "openssl", "dgst", "-sha256", "-verify", paths["key.pem"],
                                 "-signature", paths["sig"], paths["input"]], capture_output=True)
        return result.returncode == 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class GoogleTokens(OfflineTokenService):
    """Google's dialect: refresh tokens never rotate; a code yields one only for access_type=offline; the JWT
    bearer grant for a service account."""

    device_grant = None
    access_prefix, refresh_prefix, code_prefix = "ya29.", "1//", "4/"
    default_scope = READ_SCOPES[1]

    def __init__(self, emu, args):
        super().__init__(emu, args)
        self.keep_used = True
        self.account_email = args.service_account_email
        self.account_key = None
        if args.service_account_public_key:
            with open(args.service_account_public_key, "rb") as f:
                self.account_key = f.read()

    def token_answer(self, access, refresh, scope):
        answer = {"access_token": access, "expires_in": int(self.access_ttl), "token_type": "Bearer"}
        if scope and self.granting != "jwt":
            answer["scope"] = scope
        if refresh:
            answer["refresh_token"] = refresh
        return answer

    def token(self, form, basic):
        if form.get("grant_type") != JWT_GRANT:
            return super().token(form, basic)
        with self.lock:
            self.emu.bump(self.stats["tokenRequests"], JWT_GRANT)
            try:
                claims = self.check_assertion(form.get("assertion"))
                self.granting = "jwt"
                self.stats["jwtGrants"] += 1
                if "sub" in claims:
                    self.emu.bump(self.stats["jwtSubjects"], claims["sub"])
                return 200, self.issue(claims["scope"])
            except OAuthError as error:
                self.emu.bump(self.stats["tokenErrors"], error.error)
                return error.status, self.error_body(error, "token")

    def check_assertion(self, assertion):
        def refuse(description):
            return OAuthError(400, "invalid_grant", "jwt", description)

        if self.account_key is None:
            raise OAuthError(400, "unsupported_grant_type", "unsupported_grant", "No service account is registered.")
        if not assertion or assertion.count(".") != 2:
            raise refuse("Invalid JWT: malformed.")
        header_b64, claims_b64, signature_b64 = assertion.split(".")
        try:
            header = json.loads(b64url_decode(header_b64))
            claims = json.loads(b64url_decode(claims_b64))
            signature = b64url_decode(signature_b64)
        except ValueError:
            raise refuse("Invalid JWT: not base64url JSON.") from None
        if header.get("alg") != "RS256" or header.get("typ", "JWT") != "JWT":
            raise refuse("Invalid JWT: alg must be RS256.")
        if not verify_rs256(self.account_key, (header_b64 + "." + claims_b64).encode(), signature):
            raise refuse("Invalid JWT Signature.")
        if claims.get("iss") != self.account_email:
            raise OAuthError(401, "invalid_client", "jwt", "The OAuth client was not found.")
        if claims.get("aud") != self.emu.api_base + "/token":
            raise refuse("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                         "Check your iat and exp values in the JWT claim; aud must be the token endpoint.")
        iat, exp = claims.get("iat"), claims.get("exp")
        t = time.time()
        if not (isinstance(iat, int) and isinstance(exp, int) and 0 < exp - iat <= 3600
                and iat - 300 <= t <= exp):
            raise refuse("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
        scopes = (claims.get("scope") or "").split()
        if not any(scope in READ_SCOPES for scope in scopes):
            raise OAuthError(400, "invalid_scope", "jwt", "Invalid OAuth scope or ID token audience provided.")
        return claims


class Emulator(CloudEmulator):
    def __init__(self, args):
        super().__init__(args, GoogleTokens)
        self.hashes = HashCache(file_hashes)
        self.drive_id = args.drive_id
        self.resource_keys = {}  # rel -> key
        self.abusive = set()  # rel
        self.quota = None  # {"count", "reason", "status", "scope"}

    def new_stats(self):
        stats = super().new_stats()
        stats.update(jwtGrants=0, jwtSubjects={}, badQueries=0, quotaErrors=0, abuseRefusals=0,
                     resourceKeyRefusals=0)
        stats["api"]["byKind"] = {}
        return stats

    def reset(self):
        super().reset()
        with self.lock:
            self.resource_keys.clear()
            self.abusive.clear()
            self.quota = None

    @staticmethod
    def item_id(rel):
        return base64.urlsafe_b64encode(hashlib.sha256(("drive:" + rel).encode()).digest()).decode()[:28]

    @property
    def root_id(self):
        return self.drive_id or "root"

    def rel_of(self, file_id):
        """The path of an ID ("" for the root), or None."""
        if file_id == self.root_id:
            return ""
        return self.find_id(file_id)

    def take_quota(self, kind):
        with self.lock:
            order = self.quota
            if order is None or order["scope"] not in (kind, "all") or order["count"] <= 0:
                return None
            order["count"] -= 1
            self.stats["quotaErrors"] += 1
            return order["status"], order["reason"]

    def resource(self, rel, full):
        st = os.stat(full)
        item = {"kind": "drive#file", "id": self.item_id(rel), "name": rel.rpartition("/")[2]}
        if os.path.isdir(full):
            item["mimeType"] = FOLDER
        elif full.endswith(".gdoc"):
            item.update(mimeType=DOCUMENT, version=str(st.st_mtime_ns // 1000))
        else:
            md5 = self.hashes.get(full, st)["md5Checksum"]
            item.update(mimeType=guess_type(full),
                        size=str(st.st_size), md5Checksum=md5, version=str(st.st_mtime_ns // 1000),
                        headRevisionId=md5[:16])
        with self.lock:
            if rel in self.resource_keys:
                item["resourceKey"] = self.resource_keys[rel]
        return item


def select(item, fields):
    """The fields asked for of a File resource (top-level names only); None when a name is not a File field."""
    if not fields or fields == "*":
        return item
    known = {"kind", "id", "name", "mimeType", "size", "md5Checksum", "version", "headRevisionId", "resourceKey",
             "parents", "trashed", "modifiedTime"}
    names = [name.strip() for name in fields.split(",")]
    if any(name not in known for name in names):
        return None
    return {name: item[name] for name in names if name in item}


class Handler(CloudHandler):
    server_version = "google-drive-emulator/1"
    log_name = "google-drive-emulator"
    verbose_env = "GOOGLE_DRIVE_EMULATOR_VERBOSE"

    def drive_error(self, status, reason, message, location=None, headers=None):
        error = {"domain": "global", "reason": reason, "message": message}
        if location:
            error.update(location=location, locationType="parameter" if location != "Authorization" else "header")
        return self.answer(status, {"error": {"code": status, "message": message, "errors": [error]}}, headers)

    def not_found(self, file_id):
        return self.drive_error(404, "notFound", "File not found: %s." % file_id, "fileId")

    def api_throttled(self, status, retry_after):
        return self.drive_error(429 if status == 429 else 503, "rateLimitExceeded" if status == 429 else "backendError",
                                "Rate Limit Exceeded" if status == 429 else "Backend Error")

    def api(self, path, body):
        if path == "/token":
            return self.token_endpoint("token", body)
        if path == "/authorize":
            return self.authorize_endpoint()
        if path != API and not path.startswith(API + "/"):
            return self.drive_error(404, "notFound", "Not Found")
        if self.command not in ("GET", "HEAD"):
            return self.drive_error(405, "methodNotAllowed", "Method Not Allowed")
        query = self.query()
        kind = "list" if path == API else ("media" if query.get("alt") == "media" else "metadata")
        with self.emu.lock:
            self.emu.bump(self.emu.stats["api"]["byKind"], kind)
        problem = self.api_gate(path if kind == "list" else API + "/{id}" + ("?alt=media" if kind == "media" else ""))
        if problem == "sent":
            return None
        if problem:
            return self.drive_error(401, "authError", "Invalid Credentials", "Authorization",
                                    {"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/", '
                                                         'error="invalid_token"'})
        limited = self.emu.take_quota(kind)
        if limited:
            status, reason = limited
            return self.drive_error(status, reason, {"downloadQuotaExceeded": "The download quota for this file "
                                                     "has been exceeded."}.get(reason, "Rate Limit Exceeded"))
        if query.get("supportsAllDrives") != "true":
            return self.not_found(path.rpartition("/")[2] if kind != "list" else "")
        if kind == "list":
            return self.list_files(query)
        file_id = path[len(API) + 1:]
        rel = self.emu.rel_of(file_id) if "/" not in file_id else None
        full = self.emu.resolve(rel) if rel else None
        if full is None or not self.has_resource_key(rel, file_id):
            return self.not_found(file_id)
        item = self.emu.resource(rel, full)
        if kind == "metadata":
            chosen = select(item, query.get("fields"))
            if chosen is None:
                return self.drive_error(400, "invalidParameter", "Invalid field selection %s" % query.get("fields"),
                                        "fields")
            return self.answer(200, chosen)
        if item["mimeType"] in (FOLDER, DOCUMENT):
            return self.drive_error(403, "fileNotDownloadable", "Only files with binary content can be downloaded. "
                                    "Use Export with Docs Editors files.", "alt")
        with self.emu.lock:
            abusive = rel in self.emu.abusive
        if abusive and query.get("acknowledgeAbuse") != "true":
            self.emu.count("abuseRefusals")
            return self.drive_error(403, "cannotDownloadAbusiveFile", "This file has been identified as malware or "
                                    "spam and cannot be downloaded.", "acknowledgeAbuse")
        return self.send_file(full, '"%s"' % item["md5Checksum"], item["mimeType"])

    def has_resource_key(self, rel, file_id):
        with self.emu.lock:
            key = self.emu.resource_keys.get(rel)
        if key is None:
            return True
        sent = [pair.strip() for pair in (self.headers.get("X-Goog-Drive-Resource-Keys") or "").split(",")]
        if file_id + "/" + key in sent:
            return True
        self.emu.count("resourceKeyRefusals")
        return False

    def list_files(self, query):
        if query.get("driveId") is not None and (query.get("corpora") != "drive"
                                                 or query.get("includeItemsFromAllDrives") != "true"):
            return self.drive_error(400, "invalid", "The includeItemsFromAllDrives parameter must be set to true and "
                                    "corpora to drive when driveId is specified.", "driveId")
        try:
            terms = parse_query(query.get("q", ""))
        except BadQuery:
            self.emu.count("badQueries")
            return self.drive_error(400, "invalid", "Invalid Value", "q")
        fields = query.get("fields") or "files(id,name,mimeType)"
        match = re.fullmatch(r"(?:nextPageToken,\s*)?files\(([^)]*)\)", fields)
        if not match:
            return self.drive_error(400, "invalidParameter", "Invalid field selection %s" % fields, "fields")
        found = []
        for dirpath, dirnames, filenames in os.walk(self.emu.root):
            for name in sorted(dirnames + filenames):
                rel = os.path.relpath(os.path.join(dirpath, name), self.emu.root).replace(os.sep, "/")
                if self.matches(rel, terms):
                    found.append(rel)
        items = []
        for rel in found[:int(query.get("pageSize") or 100)]:
            chosen = select(self.emu.resource(rel, self.emu.resolve(rel)), match.group(1))
            if chosen is None:
                return self.drive_error(400, "invalidParameter", "Invalid field selection %s" % fields, "fields")
            items.append(chosen)
        return self.answer(200, {"files": items})

    def matches(self, rel, terms):
        name = rel.rpartition("/")[2]
        parent = rel.rpartition("/")[0]
        mime = self.emu.resource(rel, self.emu.resolve(rel))["mimeType"]
        for term in terms:
            if term[0] == "name" and term[1] != name:
                return False
            if term[0] == "parent" and term[1] != (self.emu.item_id(parent) if parent else self.emu.root_id):
                return False
            if term[0] == "trashed" and term[1]:
                return False
            if term[0] == "mimeType" and (mime == term[2]) != (term[1] == "="):
                return False
        return True

    def control(self, path, body):
        if self.command == "POST" and path in ("/_id", "/_resource-key", "/_abusive", "/_quota"):
            try:
                data = json.loads(body) if body.strip() else {}
            except ValueError:
                self.answer(400, {"error": "body is not JSON"})
                return True
            emu = self.emu
            with emu.lock:
                if path == "/_id":
                    self.answer(200, {"id": emu.item_id(data["path"])})
                elif path == "/_resource-key":
                    emu.resource_keys[data["path"]] = data["key"]
                    self.answer(200, {"id": emu.item_id(data["path"])})
                elif path == "/_abusive":
                    emu.abusive.add(data["path"])
                    self.answer(200, {"id": emu.item_id(data["path"])})
                else:
                    status = int(data.get("status", 403))
                    reason = data.get("reason", "userRateLimitExceeded")
                    scope = data.get("scope", "all")
                    if status not in (403, 429) or reason not in QUOTA_REASONS or scope not in (
                            "media", "metadata", "list", "all"):
                        self.answer(400, {"error": "status 403|429, reason one of %s, scope media|metadata|list|all"
                                          % ", ".join(QUOTA_REASONS)})
                    else:
                        emu.quota = {"count": int(data.get("count", 1)), "reason": reason, "status": status,
                                     "scope": scope}
                        self.answer(204)
            return True
        return super().control(path, body)


def main():
    parser = argument_parser(__doc__)
    add_common_arguments(parser, access_token_ttl=3599.0)
    parser.add_argument("--service-account-email", help="the one service account that may use the JWT grant")
    parser.add_argument("--service-account-public-key", help="PEM file of its public key")
    parser.add_argument("--drive-id", help="serve the tree as the shared drive with this ID (not My Drive)")
    args = parse_common(parser)
    if bool(args.service_account_email) != bool(args.service_account_public_key):
        parser.error("--service-account-email and --service-account-public-key go together")
    run(Emulator(args), Handler, args, "google-drive-emulator")


if __name__ == "__main__":
    main()
