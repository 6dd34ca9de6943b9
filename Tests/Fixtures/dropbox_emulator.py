#!/usr/bin/env python3
"""An emulator of the documented Dropbox API v2 download path and of Dropbox's OAuth2 endpoints, for Sluice's
cloud-upstream tests (Python 3 stdlib only). It is not Dropbox's code and has never been compared with the live
service byte for byte: it follows Dropbox's public documentation, and where the documentation leaves room it is
stricter than the service, so a client that passes here should not rely on anything the service does not
promise. Built on cloud_emulator.py; this file holds only what is Dropbox's.

    dropbox_emulator.py --root DIR [--host 127.0.0.1] [--port 0] [--content-port 0] [--port-file FILE]
                        [--client-id ID] [--client-secret S] [--refresh-token T ...]
                        [--access-token-ttl 14400] [--content-url-ttl 14400] [--code-ttl 600]

Two listeners in one process. The port file (written atomically once both listen) holds
`{"api": P1, "content": P2}`; the same is printed on stdout. SIGTERM or SIGINT stops both.

API host (P1; api.dropboxapi.com, content.dropboxapi.com and www.dropbox.com/oauth2 in one)

    POST /oauth2/token              form-encoded; client_id (+ client_secret for a confidential app) in the body
                                    or as Basic
        grant_type=authorization_code   code, redirect_uri, code_verifier (PKCE S256 from /oauth2/authorize)
            -> {"access_token": "sl.…", "token_type": "bearer", "expires_in", "scope", "uid", "account_id",
                "refresh_token" (only when the authorize request said token_access_type=offline)}
        grant_type=refresh_token    refresh_token
            -> {"access_token", "token_type": "bearer", "expires_in"}: no new refresh token, the old one stays
        -> 400/401 {"error", "error_description"}; there is no device grant (unsupported_grant_type)
    GET  /oauth2/authorize          response_type=code, client_id, redirect_uri (loopback), code_challenge,
                                    code_challenge_method=S256, [token_access_type=offline], [state]
                                    -> 302 once /_approve'd, else a page
    POST /2/files/get_metadata      Content-Type: application/json, {"path": "/a/b.mp3" | "id:…" | "rev:…"}
                                    -> {".tag": "file", "name", "id", "path_lower", "path_display", "rev",
                                        "size", "content_hash", "client_modified", "server_modified",
                                        "is_downloadable"} or {".tag": "folder", "name", "id", "path_lower",
                                        "path_display"}
    POST /2/files/get_temporary_link    the same body -> {"metadata": the file's, "link": a URL on P2}
    POST|GET /2/files/download      `Dropbox-API-Arg: {"path": …}` (or ?arg=, URL-encoded JSON); no body and a
                                    Content-Type that is absent, text/plain or application/octet-stream
                                    -> the bytes with `Dropbox-API-Result` (the metadata, header-safe JSON),
                                       ETag, Range (206 / 416 `bytes */N`), If-Range, If-None-Match (304)

    Every /2/ call needs `Authorization: Bearer <token>`. None or another scheme -> 400 text/plain (as Dropbox
    answers a malformed call); an unknown token -> 401 {"error_summary": "invalid_access_token/..", "error":
    {".tag": "invalid_access_token"}}; an expired one -> 401 expired_access_token. Endpoint errors are 409
    {"error_summary": "path/not_found/..", "error": {".tag": "path", "path": {".tag": "not_found"}}} (also
    path/not_file for a folder's bytes or link). Malformed arguments are 400 text/plain "Error in call to API
    function …". Throttled: 429 {"error_summary": "too_many_requests/..", "error": {"reason": {".tag":
    "too_many_requests"}, "retry_after": N}} with Retry-After: N, or 503 text with Retry-After.

Temporary-link host (P2; dl.dropboxusercontent.com)

    GET|HEAD /apitl/1/{token}       the bytes: Content-Length, ETag, Last-Modified, Accept-Ranges, Content-Type
                                    from the file's extension; Range 206 / 416, If-Range. Takes no token: any
                                    request carrying `Authorization` -> 401 (counted as content.withAuthorization,
                                    before anything else). An expired or unknown link -> 410 Gone. Checked when a
                                    request starts.

Control (both hosts; never counted, never throttled; JSON bodies optional) — as in cloud_emulator.py:

    GET /_stats (adds api.badArgs: refused Dropbox-API-Arg values, and temporaryLinks: links handed out),
    POST /_reset, /_approve {"authorize", "deny"}, /_revoke {"accessTokens"}, /_seed {"refreshToken", "scope"},
    /_expire-access-tokens, /_throttle {"count", "status": 429|503, "retryAfter", "scope": "api"|"token"|"all",
    "enforce"}, /_expire-content-urls (temporary links), /_break-next-content {"afterBytes"}.

Documents followed (dropbox.com/developers and dropbox.tech; stored copies read through the search tool):

  * "Dropbox for HTTP Developers" (documentation/http/documentation): RPC endpoints on api.dropboxapi.com take
    JSON bodies; content-download endpoints on content.dropboxapi.com take their argument in Dropbox-API-Arg or
    the arg URL parameter, return the result in Dropbox-API-Result, support GET, If-None-Match and Range;
    files/get_metadata (FileMetadata / FolderMetadata, no metadata for the root), files/get_temporary_link
    ("This link will expire in four hours and afterwards you will get 410 Gone"), files/download; the Errors
    section (400 bad input as text, 401 with an AuthError tag, 409 endpoint-specific with error_summary, 429,
    5xx).
  * "Encoding for JSON Arguments" (reference/json-encoding): the header must be "HTTP header safe", with \\uXXXX
    escapes for 0x7F and every non-ASCII character.
  * "Content hash" (reference/content-hash): SHA-256 of the concatenated SHA-256 digests of 4 MiB blocks, hex.
  * "Using OAuth 2.0 with offline access" (dropbox.tech) and the OAuth guide: short-lived access tokens,
    token_access_type=offline for a refresh token, PKCE (code_verifier instead of client_secret), the refresh
    answer {"access_token", "token_type": "bearer", "expires_in": 14400} without a new refresh token.
  * "Error Handling Guide" and "Rate Limits, Retries, and Data Ingress at Scale": a 401 is not worth retrying
    except after a refresh; 429 bodies carry reason too_many_requests or too_many_write_operations and the
    answer always has Retry-After.
  * rclone's Dropbox backend and the official SDKs' reading of the same API (download by id:, the header
    escaping, retry_after), as summarised in the project's provider notes.

Deliberately stricter than the service:

  * Any byte outside 0x20-0x7E (tab allowed) in Dropbox-API-Arg is a 400, as the encoding page asks; so is a
    lone surrogate escape. Unknown argument fields are a 400 (Dropbox's Stone validation refuses some; not all).
  * The temporary-link host refuses any Authorization header (401); what the real host does with one is not
    documented, and a correct client never sends the token there.
  * /oauth2/authorize needs PKCE S256 and a loopback redirect_uri; the token request must repeat redirect_uri
    (Dropbox also has a no-redirect flow where the user pastes the code).
  * Throttling with enforce refuses early retries.

Not verified (chosen, and marked so):

  * The 400 texts; a missing or non-Bearer Authorization as 400 (not 401); the status of an unknown (never
    issued) temporary link (410 here, like an expired one); whether dl.dropboxusercontent.com honours If-Range.
  * ids ("id:" + 22 url-safe characters, stable per path here, stable across renames at Dropbox), revs (12 hex
    digits from size, mtime and inode), the ETag of a download (the quoted rev); paths are case-sensitive here
    (Dropbox's are not). A rev: path names a file's current revision only: older revisions are not kept, so
    once a file changes its old rev: is path/not_found (Dropbox serves old revisions for a while). ns: paths,
    relative id: paths and the authorization URL parameter are not emulated. Token formats: access "sl." + random; uid and account_id fixed.
"""

import base64
import hashlib
import json
import os
import re
import time

from cloud_emulator import (CloudEmulator, CloudHandler, HashCache, OfflineTokenService, add_common_arguments,
                            argument_parser, guess_type, parse_common, run)

BLOCK = 4 * 1024 * 1024
LINK_PREFIX = "/apitl/1/"
RPC = ("/2/files/get_metadata", "/2/files/get_temporary_link")
DOWNLOAD = "/2/files/download"
DOWNLOAD_TYPES = ("", "text/plain", "text/plain; charset=utf-8", "application/octet-stream",
                  "application/octet-stream; charset=utf-8")
ARG_FIELDS = {"path"}
REV = re.compile("[0-9a-f]{9,}")


def content_hash(data):
    """Dropbox's content hash: SHA-256 over the SHA-256 digests of each 4 MiB block, hex."""
    blocks = b"".join(hashlib.sha256(data[i:i + BLOCK]).digest() for i in range(0, len(data), BLOCK))
    return {"content_hash": hashlib.sha256(blocks).hexdigest()}


def header_safe_json(value):
    """JSON with every non-ASCII character and 0x7F as \\uXXXX (surrogate pairs beyond the BMP)."""
    return json.dumps(value, ensure_ascii=True).replace("\x7f", "\\u007f")


def header_safe(text):
    return all(ch == "\t" or " " <= ch <= "~" for ch in text)


def dropbox_time(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


class BadInput(Exception):
    """A 400: Dropbox answers malformed calls in plain text."""


class DropboxTokens(OfflineTokenService):
    """Dropbox's dialect: refresh tokens are long-lived and never rotate; a code yields one only for
    token_access_type=offline; no device grant."""

    device_grant = None
    offline_param = "token_access_type"
    access_prefix, refresh_prefix, code_prefix = "sl.", "", ""

    def __init__(self, emu, args):
        super().__init__(emu, args)
        self.keep_used = True  # a refresh token is not used up

    def token_answer(self, access, refresh, scope):
        answer = {"access_token": access, "token_type": "bearer", "expires_in": int(self.access_ttl)}
        if self.granting != "refresh":
            answer.update(scope=scope, uid="12345", account_id="dbid:emulator-account")
        if refresh:
            answer["refresh_token"] = refresh
        return answer


class Emulator(CloudEmulator):
    def __init__(self, args):
        super().__init__(args, DropboxTokens)
        self.hashes = HashCache(content_hash)

    def new_stats(self):
        stats = super().new_stats()
        stats["api"]["badArgs"] = 0
        stats["temporaryLinks"] = 0
        return stats

    @staticmethod
    def item_id(rel):
        return "id:" + base64.urlsafe_b64encode(hashlib.sha1(("item:" + rel).encode()).digest()[:16]).decode()[:22]

    @staticmethod
    def rev(st):
        return hashlib.sha1(("%d:%d:%d" % (st.st_size, st.st_mtime_ns, st.st_ino)).encode()).hexdigest()[:12]

    def find_rev(self, rev):
        """The file whose current revision is rev; older revisions are not kept here."""
        for dirpath, _, filenames in os.walk(self.root):
            for name in filenames:
                full = os.path.join(dirpath, name)
                if self.rev(os.stat(full)) == rev:
                    return os.path.relpath(full, self.root).replace(os.sep, "/")
        return None

    def lookup(self, path):
        """(rel, full) of an argument's path, or None when nothing is there; BadInput when it is malformed."""
        if not isinstance(path, str):
            raise BadInput("path: expected a string")
        if path.startswith("id:"):
            rel = self.find_id(path)
        elif path.startswith("rev:"):
            if not REV.fullmatch(path[4:]):
                raise BadInput("path: '%s' did not match pattern 'rev:[0-9a-f]{9,}'" % path)
            rel = self.find_rev(path[4:])
        elif path.startswith("/"):
            rel = path[1:]
            if rel.endswith("/") or ".." in rel.split("/") or "" in rel.split("/"):
                raise BadInput("path: '%s' did not match pattern '(/(.|[\\r\\n])*|id:.*)|(rev:[0-9a-f]{9,})"
                               "|(ns:[0-9]+(/.*)?)'" % path)
        elif path == "":
            raise BadInput("path: the root folder is unsupported")
        else:
            raise BadInput("path: '%s' did not match pattern '(/(.|[\\r\\n])*|id:.*)'" % path)
        full = self.resolve(rel) if rel else None
        return (rel, full) if full else None

    def metadata(self, rel, full):
        st = os.stat(full)
        item = {"name": rel.rpartition("/")[2], "path_lower": "/" + rel.lower(), "path_display": "/" + rel,
                "id": self.item_id(rel)}
        if os.path.isdir(full):
            return dict(item, **{".tag": "folder"})
        return dict(item, **{".tag": "file", "client_modified": dropbox_time(st.st_mtime),
                             "server_modified": dropbox_time(st.st_mtime), "rev": self.rev(st), "size": st.st_size,
                             "is_downloadable": True}, **self.hashes.get(full, st))

    def temporary_link(self, rel):
        with self.lock:
            self.stats["temporaryLinks"] += 1
        return self.content_base + LINK_PREFIX + self.content_urls.issue(rel)


class Handler(CloudHandler):
    server_version = "dropbox-emulator/1"
    log_name = "dropbox-emulator"
    verbose_env = "DROPBOX_EMULATOR_VERBOSE"
    expired_status = 410

    def call_error(self, endpoint, text, status=400):
        return self.answer(status, 'Error in call to API function "%s": %s' % (endpoint.lstrip("/").removeprefix("2/"),
                                                                               text),
                           content_type="text/plain; charset=utf-8")

    def endpoint_error(self, tag, inner=None):
        """409 with an endpoint's error union, e.g. path/not_found."""
        if inner is None:
            return self.answer(409, {"error_summary": "%s/.." % tag, "error": {".tag": tag}})
        return self.answer(409, {"error_summary": "%s/%s/.." % (tag, inner),
                                 "error": {".tag": tag, tag: {".tag": inner}}})

    def api_throttled(self, status, retry_after):
        if status == 429:
            return self.answer(429, {"error_summary": "too_many_requests/..",
                                     "error": {"reason": {".tag": "too_many_requests"}, "retry_after": retry_after}},
                               {"Retry-After": str(retry_after)})
        return self.answer(503, "Service unavailable, try again later.", {"Retry-After": str(retry_after)},
                           content_type="text/plain; charset=utf-8")

    def api(self, path, body):
        if path == "/oauth2/token":
            return self.token_endpoint("token", body)
        if path == "/oauth2/authorize":
            return self.authorize_endpoint()
        if path not in RPC and path != DOWNLOAD:
            return self.call_error(path, "Unknown API function.", 404)
        problem = self.api_gate(path)
        if problem == "sent":
            return None
        if problem in ("missing", "scheme"):
            return self.call_error(path, 'Must provide HTTP header "Authorization" as "Bearer <oauth2-access-token>".')
        if problem:
            tag = "expired_access_token" if problem == "expired" else "invalid_access_token"
            return self.answer(401, {"error_summary": tag + "/..", "error": {".tag": tag}})
        try:
            if path == DOWNLOAD:
                return self.download(path, body)
            return self.rpc(path, body)
        except BadInput as bad:
            with self.emu.lock:
                self.emu.stats["api"]["badArgs"] += 1
            return self.call_error(path, str(bad))

    @staticmethod
    def argument(text, where):
        try:
            arg = json.loads(text)
        except ValueError:
            raise BadInput("%s: could not decode input as JSON" % where) from None
        if not isinstance(arg, dict):
            raise BadInput("%s: expected an object" % where)
        unknown = set(arg) - ARG_FIELDS
        if unknown:
            raise BadInput("%s: unknown field '%s'" % (where, sorted(unknown)[0]))
        if "path" not in arg:
            raise BadInput("%s: missing required field 'path'" % where)
        try:
            arg["path"].encode("utf-8")
        except (AttributeError, UnicodeEncodeError):
            raise BadInput("%s: path is not a valid string" % where) from None
        return arg

    def rpc(self, path, body):
        if self.command != "POST":
            raise BadInput("RPC endpoints take POST")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise BadInput('Bad HTTP "Content-Type" header: "%s". Expecting "application/json".' % ctype)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput("request body: could not decode input as JSON") from None
        found = self.emu.lookup(self.argument(text, "request body")["path"])
        if found is None:
            return self.endpoint_error("path", "not_found")
        item = self.emu.metadata(*found)
        if path == "/2/files/get_metadata":
            return self.answer(200, item)
        if item[".tag"] != "file":
            return self.endpoint_error("path", "not_file")
        return self.answer(200, {"metadata": item, "link": self.emu.temporary_link(found[0])})

    def download(self, path, body):
        if self.command not in ("POST", "GET"):
            raise BadInput("content-download endpoints take POST or GET")
        ctype = (self.headers.get("Content-Type") or "").strip().lower()
        if ctype not in DOWNLOAD_TYPES:
            raise BadInput('Bad HTTP "Content-Type" header: "%s". Expecting one of "text/plain", '
                           '"application/octet-stream".' % ctype)
        if body:
            raise BadInput("content-download endpoints take no request body")
        header = self.headers.get("Dropbox-API-Arg")
        query_arg = self.query().get("arg")
        if header is not None:
            # http.server reads header bytes as Latin-1: a raw UTF-8 byte shows up here as a character >= 0x80.
            if not header_safe(header):
                raise BadInput('HTTP header "Dropbox-API-Arg": could not decode input as JSON')
            arg = self.argument(header, 'HTTP header "Dropbox-API-Arg"')
        elif query_arg is not None:
            arg = self.argument(query_arg, 'URL parameter "arg"')
        else:
            raise BadInput('Must provide HTTP header "Dropbox-API-Arg" or URL parameter "arg".')
        found = self.emu.lookup(arg["path"])
        if found is None:
            return self.endpoint_error("path", "not_found")
        rel, full = found
        item = self.emu.metadata(rel, full)
        if item[".tag"] != "file":
            return self.endpoint_error("path", "not_file")
        etag = '"%s"' % item["rev"]
        if self.headers.get("If-None-Match") in (etag, "W/" + etag, "*"):
            return self.answer(304, headers={"ETag": etag})
        return self.send_file(full, etag, "application/octet-stream", {"Dropbox-API-Result": header_safe_json(item)})

    # -- temporary-link host ------------------------------------------------------------------

    CONTENT_TEXTS = {"authorization": "Temporary links take no Authorization header.\n",
                     "expired": "Gone: the temporary link has expired.\n", "not-found": "Not found.\n",
                     "gone": "The file no longer exists.\n"}

    def shown_path(self, path):
        if self.role == "content" and path.startswith(LINK_PREFIX):
            return LINK_PREFIX + "-"
        return path

    def content_route(self, path):
        if not path.startswith(LINK_PREFIX) or "/" in path[len(LINK_PREFIX):]:
            return self.content_error(404, "not-found")
        if self.command not in ("GET", "HEAD"):
            return self.content_error(405, "method")
        entry = self.signed_entry(path[len(LINK_PREFIX):])
        if entry is None:
            return None
        full = self.emu.resolve(entry["rel"])
        if full is None or not os.path.isfile(full):
            return self.content_error(404, "gone")
        return self.send_file(full, '"%s"' % self.emu.rev(os.stat(full)), guess_type(full))


def main():
    parser = argument_parser(__doc__)
    add_common_arguments(parser, access_token_ttl=14400.0, content_url_ttl=14400.0)
    args = parse_common(parser)
    run(Emulator(args), Handler, args, "dropbox-emulator")


if __name__ == "__main__":
    main()
