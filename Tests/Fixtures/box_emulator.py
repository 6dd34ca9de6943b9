#!/usr/bin/env python3
"""An emulator of the documented Box Content API 2.0 download path and of Box's OAuth 2.0 endpoints, for Sluice's
cloud-upstream tests (Python 3 stdlib only). It is not Box's code and has never been compared with the live
service byte for byte: it follows Box's public documentation, and where the documentation leaves room it is
stricter than the service, so a client that passes here should not rely on anything the service does not
promise. Built on cloud_emulator.py; this file holds only what is Box's.

    box_emulator.py --root DIR --client-secret S [--host 127.0.0.1] [--port 0] [--content-port 0]
                    [--port-file FILE] [--client-id ID] [--refresh-token T ...] [--access-token-ttl 3600]
                    [--content-url-ttl 900] [--code-ttl 30] [--redirect-uri URI ...] [--max-page 1000]

Two listeners in one process. The port file (written atomically once both listen) holds
`{"api": P1, "content": P2}`; the same is printed on stdout. SIGTERM or SIGINT stops both.

API host (P1; api.box.com and account.box.com in one)

    POST /oauth2/token              form-encoded; client_id and client_secret (a Box app always has one) in the
                                    body or as Basic
        grant_type=authorization_code   code (30 s), redirect_uri, code_verifier (PKCE S256)
        grant_type=refresh_token    refresh_token: single-use; a used one is invalid_grant
        -> {"access_token", "expires_in", "restricted_to": [], "refresh_token" (always a new one),
            "token_type": "bearer"}; 400/401 {"error", "error_description"}; no device grant
    GET  /api/oauth2/authorize and /oauth2/authorize
                                    response_type=code, client_id, redirect_uri (with --redirect-uri: one of
                                    those exactly, port included; else any loopback), state, code_challenge
                                    -> 302 once /_approve'd, else a page
    GET  /2.0/folders/{id}/items    fields, limit (1..1000, default 100), offset (default 0) or usemarker=true
                                    [&marker=M]: folders first, then files, by name. Offset pages -> {"total_count",
                                    "entries", "offset", "limit", "order"}; marker pages -> {"entries", "limit",
                                    "next_marker" (null on the last), "prev_marker"}. Entries are {"type": "folder" |
                                    "file", "id", "etag", "name"} or, with fields, the fields asked for with type,
                                    id and etag. At most --max-page entries per page whatever the limit (Box may
                                    answer fewer than asked: clients follow next_marker).
    GET  /2.0/files/{id}            fields -> {"type": "file", "id", "etag", "sequence_id", "name", "size", "sha1",
                                    "file_version": {"type": "file_version", "id", "sha1"}, ...}, only the fields
                                    asked for (with type, id, etag) when fields is given
    GET  /2.0/files/{id}/content    [?version=ID] -> 302 Location: a download URL on P2 (no body), or 202 with
                                    Retry-After while /_not-ready holds; a version that is not the current one
                                    -> 404 (older versions are not kept here)

    A 2.0 call needs `Authorization: Bearer <token>`: none, an unknown one or an expired one is 401 with an
    empty body and `WWW-Authenticate: Bearer realm="Service"` (+ error="invalid_token" for an unknown token,
    error="expired_token" for an expired one, which rclone keys on). Errors are {"type": "error", "status",
    "code", "help_url", "message", "request_id"}: 404 not_found (a missing id; a folder's id under /files), 400
    bad_request (a limit over 1000, a malformed marker), 405 method_not_allowed; throttled: 429
    rate_limit_exceeded with Retry-After.

Download host (P2; dl.boxcloud.com)

    GET|HEAD /d/1/{token}/download  the bytes of the version the URL was issued for: Content-Length, an ETag of
                                    its own ("dl.<version>", not the API's sha1 or etag), Content-Type
                                    application/octet-stream, Accept-Ranges; Range 206 / 416, If-Range. Takes no
                                    token: any request carrying `Authorization` -> 401 (counted as
                                    content.withAuthorization, before anything else). An expired or unknown URL
                                    -> 403; a URL whose file has changed or gone since -> 404. Checked when a
                                    request starts.

Control (both hosts; never counted, never throttled; JSON bodies optional) — as in cloud_emulator.py, plus:

    GET /_stats adds folderItems (listing pages answered), downloadUrls (URLs handed out), notReady (202s sent)
    and notReadyEarly (a /content retried before its Retry-After); POST /_not-ready {"count": N, "retryAfter": S,
    "enforce": true}: the next N /content requests answer 202 with Retry-After: S; with enforce one that comes
    back sooner than S is answered 202 again without using up the count (counted as notReadyEarly).

Documents followed (developer.box.com; stored copies read through the search tool):

  * "Download File" and "Get Download URL" (guides/downloads): GET /files/:id/content answers 302 Found with a
    location on dl.boxcloud.com (`/d/1/[long-random-string]/download`); the URL "can be passed to a user's
    browser", "in most cases ... is valid for 15 minutes"; a file not ready yet gets a retry-after header; clients
    must not follow the redirect automatically to get the URL. "Download File Version": ?version=.
  * "Token & URL Expiration": authorization codes 30 seconds, access tokens 60 minutes, refresh tokens 60 days or
    1 use, download URLs 15 minutes.
  * "Refresh a token" / "OAuth 2.0" guides: POST https://api.box.com/oauth2/token with client_id and
    client_secret; every refresh returns a new refresh token and the old one stops working; the authorize page
    is https://account.box.com/api/oauth2/authorize; redirect URIs must match the app's configuration.
  * "List items in folder" (GET /folders/:id/items): fields, limit (max 1000), offset paging and marker paging
    (usemarker, marker, next_marker); folder 0 is the root. "Get file information": fields, sha1, file_version,
    etag, size. "Common errors" / client error object: type "error", status, code, message, request_id; 429
    rate_limit_exceeded with Retry-After.
  * rclone's Box backend, as summarised in the project's provider notes (expired_token in WWW-Authenticate).

Deliberately stricter than the service:

  * The download host refuses any Authorization header (401); the docs only imply it needs none.
  * Its ETag is its own, unrelated to the API's sha1 and etag, so a client cannot mistake one for the other.
  * /authorize needs PKCE S256 (Box does not document PKCE; a client that sends it loses nothing) and a
    loopback redirect_uri; with --redirect-uri, exactly one of the registered ones, port included.
  * A client secret is required (Box apps always have one); refresh tokens are strictly single-use.
  * Pages may hold fewer entries than the limit (--max-page), as a marker-paging client must expect.
  * /_not-ready with enforce refuses early retries.

Not verified (chosen, and marked so):

  * The status of an expired download URL (403 here) and of one whose file changed (404); the exact 401
    challenge texts; the 202 body (empty here); whether the download host honours If-Range.
  * IDs (digits from the inode here: stable across renames, as Box's are), file_version ids, etag values and
    the mini representation's field set; names are compared case-sensitively here (Box keeps them unique
    regardless of case); trash, shared links, `boxapi` and `as-user` are not emulated.
"""

import base64
import hashlib
import json
import os
import urllib.parse
import uuid

from cloud_emulator import (CloudEmulator, CloudHandler, HashCache, TokenService, add_common_arguments, argument_parser,
                            now, parse_common, run)

API = "/2.0/"
LINK = "/d/1/"
HELP = "https://developer.box.com/guides/api-calls/permissions-and-errors/common-errors/"
CHALLENGE = 'Bearer realm="Service"'


def digits(text, count=12):
    """A stable Box-like numeric ID from text."""
    return str(int(hashlib.sha1(text.encode()).hexdigest()[:count], 16))


class BoxTokens(TokenService):
    """Box's dialect: confidential clients, 30 s codes, single-use rotating refresh tokens, no device grant,
    registered redirect URIs compared exactly."""

    device_grant = None
    access_prefix, refresh_prefix, code_prefix = "", "", ""

    def __init__(self, emu, args):
        super().__init__(emu, args)
        self.redirect_uris = args.redirect_uri or []

    def token_answer(self, access, refresh, scope):
        answer = {"access_token": access, "expires_in": int(self.access_ttl), "restricted_to": [],
                  "token_type": "bearer"}
        if refresh:
            answer["refresh_token"] = refresh
        return answer

    def authorize(self, query):
        q = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
        if self.redirect_uris and q.get("redirect_uri") not in self.redirect_uris:
            with self.lock:
                self.stats["authorizeRequests"] += 1
            return 400, {}, "redirect_uri_mismatch: the redirect URI is not one configured for the application"
        return super().authorize(query)


class Emulator(CloudEmulator):
    def __init__(self, args):
        super().__init__(args, BoxTokens)
        self.max_page = args.max_page
        self.hashes = HashCache(lambda data: {"sha1": hashlib.sha1(data).hexdigest()})
        self.not_ready = {"count": 0, "retryAfter": 1, "enforce": True, "until": 0.0}

    def new_stats(self):
        stats = super().new_stats()
        stats.update(folderItems=0, downloadUrls=0, notReady=0, notReadyEarly=0)
        return stats

    def reset(self):
        super().reset()
        with self.lock:
            self.not_ready = {"count": 0, "retryAfter": 1, "enforce": True, "until": 0.0}

    def item_id(self, rel):
        if rel == "":
            return "0"
        full = self.resolve(rel)
        return digits("item:%d" % os.stat(full).st_ino) if full else None

    def find_id(self, item_id):
        return "" if item_id == "0" else super().find_id(item_id)

    @staticmethod
    def version(st):
        return digits("version:%d:%d:%d" % (st.st_ino, st.st_size, st.st_mtime_ns), 10)

    def entry(self, rel, full):
        """The item's full representation."""
        st = os.stat(full)
        version = self.version(st)
        item = {"id": self.item_id(rel), "etag": str(int(version) % 100), "sequence_id": str(int(version) % 100),
                "name": rel.rpartition("/")[2] if rel else "All Files"}
        if os.path.isdir(full):
            return dict(item, type="folder")
        sha1 = self.hashes.get(full, st)["sha1"]
        return dict(item, type="file", size=st.st_size, sha1=sha1,
                    file_version={"type": "file_version", "id": version, "sha1": sha1},
                    item_status="active")

    def children(self, rel, full):
        names = sorted(os.listdir(full))
        folders = [n for n in names if os.path.isdir(os.path.join(full, n))]
        files = [n for n in names if not os.path.isdir(os.path.join(full, n))]
        return [(rel + "/" + n if rel else n) for n in folders + files]

    def take_not_ready(self):
        """(retry_after, early) when this /content must answer 202, else None."""
        with self.lock:
            order = self.not_ready
            if order["enforce"] and now() < order["until"]:
                self.stats["notReadyEarly"] += 1
                return order["retryAfter"]
            if order["count"] <= 0:
                return None
            order["count"] -= 1
            order["until"] = now() + order["retryAfter"]
            self.stats["notReady"] += 1
            return order["retryAfter"]

    def download_url(self, rel, version):
        with self.lock:
            self.stats["downloadUrls"] += 1
        return self.content_base + LINK + self.content_urls.issue(rel, version=version) + "/download"


def selected(item, fields):
    if fields is None:
        return item
    keep = {f.strip() for f in fields.split(",")} | {"type", "id", "etag"}
    return {k: v for k, v in item.items() if k in keep}


def marker(offset):
    return base64.urlsafe_b64encode(("m:%d" % offset).encode()).decode().rstrip("=")


def offset_of(text):
    try:
        kind, _, value = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode().partition(":")
        if kind == "m" and value.isdigit():
            return int(value)
    except ValueError:
        pass
    return None


class BadRequest(Exception):
    pass


class Handler(CloudHandler):
    server_version = "box-emulator/1"
    log_name = "box-emulator"
    verbose_env = "BOX_EMULATOR_VERBOSE"
    expired_status = 403

    def box_error(self, status, code, message, headers=None):
        return self.answer(status, {"type": "error", "status": status, "code": code, "help_url": HELP,
                                    "message": message, "request_id": uuid.uuid4().hex[:16]}, headers)

    def api_throttled(self, status, retry_after):
        if status == 429:
            return self.box_error(429, "rate_limit_exceeded", "Request rate limit exceeded, please try again later",
                                  {"Retry-After": str(retry_after)})
        return self.box_error(503, "unavailable", "Unavailable", {"Retry-After": str(retry_after)})

    def api(self, path, body):
        if path == "/oauth2/token":
            return self.token_endpoint("token", body)
        if path in ("/oauth2/authorize", "/api/oauth2/authorize"):
            return self.authorize_endpoint()
        if not path.startswith(API):
            return self.box_error(404, "not_found", "Not Found")
        problem = self.api_gate(path)
        if problem == "sent":
            return None
        if problem:
            challenge = CHALLENGE
            if problem == "expired":
                challenge += ', error="expired_token", error_description="The access token provided has expired."'
            elif problem != "missing":
                challenge += ', error="invalid_token", error_description="The access token provided is invalid."'
            return self.answer(401, b"", {"WWW-Authenticate": challenge})
        if self.command not in ("GET", "HEAD"):
            return self.box_error(405, "method_not_allowed", "Method Not Allowed", {"Allow": "GET, HEAD"})
        parts = path[len(API):].split("/")
        try:
            if len(parts) == 3 and parts[0] == "folders" and parts[2] == "items":
                return self.folder_items(parts[1])
            if len(parts) == 2 and parts[0] == "files":
                return self.file_info(parts[1])
            if len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
                return self.file_content(parts[1])
        except BadRequest as bad:
            return self.box_error(400, "bad_request", str(bad))
        return self.box_error(404, "not_found", "Not Found")

    def lookup(self, item_id, want_dir):
        rel = self.emu.find_id(item_id) if item_id.isdigit() else None
        full = self.emu.resolve(rel) if rel is not None else None
        if full is None or os.path.isdir(full) != want_dir:
            return None
        return rel, full

    def folder_items(self, folder_id):
        found = self.lookup(folder_id, want_dir=True)
        if found is None:
            return self.box_error(404, "not_found", "Not Found")
        q = self.query()
        try:
            limit = int(q.get("limit", "100"))
            offset = int(q.get("offset", "0"))
        except ValueError:
            raise BadRequest("Invalid value for limit or offset") from None
        if not 1 <= limit <= 1000 or offset < 0:
            raise BadRequest("Invalid value for limit: it must be between 1 and 1000")
        use_marker = q.get("usemarker") == "true"
        if use_marker and q.get("marker"):
            offset = offset_of(q["marker"])
            if offset is None:
                raise BadRequest("Invalid marker")
        rels = self.emu.children(*found)
        page = rels[offset:offset + min(limit, self.emu.max_page)]
        entries = [selected(self.emu.entry(rel, self.emu.resolve(rel)), q.get("fields")) for rel in page]
        with self.emu.lock:
            self.emu.stats["folderItems"] += 1
        if use_marker:
            after = offset + len(page)
            return self.answer(200, {"entries": entries, "limit": limit,
                                     "next_marker": marker(after) if after < len(rels) else None,
                                     "prev_marker": marker(max(0, offset - limit)) if offset else None})
        return self.answer(200, {"total_count": len(rels), "entries": entries, "offset": offset, "limit": limit,
                                 "order": [{"by": "type", "direction": "ASC"}, {"by": "name", "direction": "ASC"}]})

    def file_info(self, file_id):
        found = self.lookup(file_id, want_dir=False)
        if found is None:
            return self.box_error(404, "not_found", "Not Found")
        return self.answer(200, selected(self.emu.entry(*found), self.query().get("fields")))

    def file_content(self, file_id):
        found = self.lookup(file_id, want_dir=False)
        if found is None:
            return self.box_error(404, "not_found", "Not Found")
        rel, full = found
        version = self.emu.version(os.stat(full))
        wanted = self.query().get("version")
        if wanted is not None and wanted != version:
            return self.box_error(404, "not_found", "Not Found")
        wait = self.emu.take_not_ready()
        if wait is not None:
            return self.answer(202, b"", {"Retry-After": str(wait)})
        return self.answer(302, b"", {"Location": self.emu.download_url(rel, version)})

    # -- download host ------------------------------------------------------------------------

    CONTENT_TEXTS = {"authorization": "Download URLs take no Authorization header.\n",
                     "expired": "Forbidden: the download URL has expired.\n", "not-found": "Not found.\n",
                     "gone": "The file has changed or no longer exists.\n"}

    def shown_path(self, path):
        if self.role == "content" and path.startswith(LINK):
            return LINK + "-/download"
        return path

    def content_route(self, path):
        token = path[len(LINK):-len("/download")] if path.startswith(LINK) and path.endswith("/download") else ""
        if not token or "/" in token:
            return self.content_error(404, "not-found")
        if self.command not in ("GET", "HEAD"):
            return self.content_error(405, "method")
        entry = self.signed_entry(token)
        if entry is None:
            return None
        full = self.emu.resolve(entry["rel"])
        if full is None or not os.path.isfile(full) or self.emu.version(os.stat(full)) != entry["version"]:
            return self.content_error(404, "gone")
        return self.send_file(full, '"dl.%s"' % entry["version"], "application/octet-stream")

    # -- controls -----------------------------------------------------------------------------

    def control(self, path, body):
        if path == "/_not-ready" and self.command == "POST":
            data = json.loads(body) if body.strip() else {}
            with self.emu.lock:
                self.emu.not_ready = {"count": int(data.get("count", 1)), "retryAfter": int(data.get("retryAfter", 1)),
                                      "enforce": bool(data.get("enforce", True)), "until": 0.0}
            self.answer(204)
            return True
        return super().control(path, body)


def main():
    parser = argument_parser(__doc__)
    add_common_arguments(parser, content_url_ttl=900.0, code_ttl=30.0)
    parser.add_argument("--redirect-uri", action="append", help="a redirect URI registered with the app (repeatable)")
    parser.add_argument("--max-page", type=int, default=1000, help="most entries a listing page holds")
    args = parse_common(parser)
    if not args.client_secret:
        parser.error("--client-secret is required: a Box app always has one")
    if args.max_page < 1:
        parser.error("--max-page must be at least 1")
    run(Emulator(args), Handler, args, "box-emulator")


if __name__ == "__main__":
    main()
