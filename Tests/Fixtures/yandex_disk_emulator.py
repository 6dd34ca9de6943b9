#!/usr/bin/env python3
"""An emulator of the documented Yandex.Disk REST API download path and of Yandex OAuth's token endpoints, for
Sluice's cloud-upstream tests (Python 3 stdlib only). It is not Yandex's code and has never been compared with
the live services byte for byte: it follows their documentation, and where the documentation leaves room it
is stricter than the services, so a client that passes here should not rely on anything the services do not
promise. Built on cloud_emulator.py; this file holds only what is Yandex's.

    yandex_disk_emulator.py --root DIR [--host 127.0.0.1] [--port 0] [--content-port 0] [--port-file FILE]
                            [--client-id ID] [--client-secret S] [--refresh-token T ...]
                            [--access-token-ttl 31536000] [--content-url-ttl 300] [--code-ttl 600]
                            [--device-code-ttl 600] [--device-interval 5] [--slow-down-step 5]
                            [--keep-used-refresh-tokens] [--allow-content-authorization]
                            [--app-folder Applications/sluice-test-client]

Two listeners in one process. The port file (written atomically once both listen) holds
`{"api": P1, "content": P2}`; the same is printed on stdout. SIGTERM or SIGINT stops both.

API + OAuth host (P1; cloud-api.yandex.net and oauth.yandex.com in one)

    POST /token                     form-encoded; client credentials in the body or as Basic (the header wins)
        grant_type=refresh_token    refresh_token
        grant_type=authorization_code   code, code_verifier (PKCE S256 from /authorize)
        grant_type=device_code      code (the device_code)
        -> 200 {"token_type": "bearer", "access_token", "expires_in", "refresh_token"}
        -> 400/401 {"error", "error_description"}
    POST /device/code               client_id, [scope] -> {"device_code", "user_code", "verification_url",
                                    "interval", "expires_in"}
    GET  /authorize                 response_type=code, client_id, redirect_uri (loopback), code_challenge,
                                    code_challenge_method=S256, [state] -> 302 once /_approve'd, else a page
    GET  /device                    the verification_url handed out: a text page (approve with /_approve)
    GET  /v1/disk                   disk info (total_space, used_space, user)
    GET  /v1/disk/resources?path=P[&fields=a,b][&limit=N][&offset=N]
                                    Resource JSON: name, path (disk:/...), type file|dir, created, modified,
                                    resource_id, revision; files also size, md5, sha256, mime_type,
                                    media_type, antivirus_status, file (a download href); folders _embedded
                                    {items, limit, offset, total, path, sort}. P is disk:/a/b or /a/b, or
                                    app:/a/b under the app folder (--app-folder).
    GET  /v1/disk/resources/download?path=P[&fields=...]
                                    -> {"href": the downloader URL on the content host, "method": "GET",
                                        "templated": false}

    A Disk request needs `Authorization: OAuth <token>`; none, another scheme (Bearer too), an unknown or an
    expired token is 401 {"message", "description": "Unauthorized", "error": "UnauthorizedError"}. Errors
    are {"message", "description", "error"}: 400 FieldValidationError (no path), 404 DiskNotFoundError,
    405 MethodNotAllowedError, 429 TooManyRequestsError / 503 ServiceUnavailableError with Retry-After.
    message is Russian unless Accept-Language starts with "en" (the API localises it).

Content host (P2; downloader.disk.yandex.ru and the storage hosts in one)

    GET|HEAD /disk/{token}/{hex expiry}/{name}?filename=...&disposition=attachment&fsize=N&content_type=...
                                    the downloader: 302 Location: /rdisk/{token2}/{name} on the same host
    GET|HEAD /rdisk/{token2}/{name} the bytes: Content-Length, ETag ("md5"), Last-Modified, Accept-Ranges,
                                    Content-Disposition; one Range -> 206 + Content-Range, past the end -> 416
                                    `bytes */N`; several ranges -> 200 whole; If-Range.
    Neither takes a token. Any request carrying `Authorization` -> 401 (counted as content.withAuthorization,
    before anything else). An unknown or expired URL -> 403. A URL is checked when a request starts.

Control (both hosts; never counted, never throttled; JSON bodies optional) — as in cloud_emulator.py:

    GET /_stats (adds content.redirects: downloader 302s), POST /_reset, /_approve {"device", "authorize",
    "deny"}, /_revoke {"accessTokens"}, /_seed {"refreshToken", "scope"}, /_expire-access-tokens,
    /_throttle {"count", "status": 429|503, "retryAfter", "scope": "api"|"token"|"all", "enforce"},
    /_expire-content-urls (downloader and storage URLs), /_break-next-content {"afterBytes"}.

Documents followed (yandex.com/dev and yandex.ru/dev; stored copies read through the search tool):

  * Disk API "Downloading a file from Yandex Disk" (disk-api reference/content): GET resources/download?path=
    answers a Link {"href", "method", "templated"}; the URL "has a limited lifetime"; `fields` trims the
    answer. "JSON objects in responses" (response-objects): Resource (name, path, type, size, md5, sha256,
    mime_type, media_type, created, modified, resource_id, revision, file, _embedded ResourceList) and Link.
  * Disk API quickstart: `Authorization: OAuth <token>`; paths as disk:/... or /..., the same.
  * Yandex ID "Update a token" (tokens/refresh-client): POST /token grant_type=refresh_token, client
    credentials in the body or Basic (the header wins), the answer {"access_token", "refresh_token",
    "token_type": "bearer", "expires_in"}, errors {"error_description", "error"} with invalid_client,
    invalid_grant, invalid_request, unauthorized_client, unsupported_grant_type.
  * Yandex ID "Entering the code on the authorization page" (codes/screen-code-oauth): POST /device/code
    -> device_code, user_code, verification_url, interval, expires_in; POST /token grant_type=device_code
    with the device code in `code`; authorization_pending, invalid_grant for an invalid or expired code;
    codes live 10 minutes.
  * Yandex ID "Getting a confirmation code from a URL" (codes/code-url): /authorize with state and PKCE.
  * /work/shared/docs/providers.md §2, §0 and §10 (rclone's reading of the same API).

Deliberately stricter than the services:

  * The content host refuses any Authorization header (401). Yandex's download page says to fetch the href
    "using the same OAuth token", and rclone does; a client that strips credentials on a host change (libcurl's
    default) never sends it. --allow-content-authorization keeps counting such requests but serves them.
  * Only the `OAuth` scheme is accepted on the Disk API (whether Yandex also takes Bearer is not documented).
  * Refresh tokens are single-use and every refresh issues a new access token; the docs say only that a new
    refresh token comes back and that "the main token may not change". --keep-used-refresh-tokens lets a
    used refresh token work again.
  * /authorize needs PKCE S256 and a loopback redirect_uri (Yandex makes both optional).
  * slow_down (RFC 8628 §3.5) on polls closer than the interval; the docs say only "may respond with an error".
  * Throttling with enforce refuses early retries.

Not verified (chosen, and marked so):

  * The status of an expired or unknown download URL: 403 here (an issue shows 403 from downloader.disk.yandex.ru;
    410 is as plausible). Whether the downloader redirects to a storage host (here it always does, once)
    and which hop honours Range (here the storage URL; the downloader 302s whatever the Range).
  * The default lifetimes: access tokens 31536000 s (third-party samples), download URLs 300 s (a client
    library's maintainers' estimate), device codes 600 s (the docs' text; their sample says 300).
  * The exact message texts; whether 429 carries Retry-After and its error name; 503's error name; the
    error names for a declined device code (access_denied here) and a token-endpoint throttle; 401 vs 400
    for invalid_client; that a path must start with / or disk:/ (400 FieldValidationError otherwise); a
    folder download (Yandex zips folders; here 400 FolderDownloadNotEmulated); app:/ paths are read under
    --app-folder for any token (Yandex gives app-folder tokens only app:/, and names the folder after the app),
    and their Resource `path` is the disk:/ one.
  * ids and formats: resource_id "0:<sha256 of the path>", revision from the mtime in microseconds, ETag
    the quoted md5; paths are case-sensitive here.
"""

import hashlib
import os
import time
import urllib.parse

from cloud_emulator import (CloudEmulator, CloudHandler, HashCache, TokenService, add_common_arguments,
                            argument_parser, guess_type, parse_common, run, tree_size)

DISK = "/v1/disk"
ERRORS = {  # name -> (status, message ru, message en, description)
    "UnauthorizedError": (401, "Не авторизован.", "Unauthorized.", "Unauthorized"),
    "DiskNotFoundError": (404, "Не удалось найти запрошенный ресурс.", "Resource not found.", "Resource not found."),
    "FieldValidationError": (400, "Ошибка проверки поля «path».", "Error validating field \"path\".",
                             "Error validating field \"path\": This field is required."),
    "MethodNotAllowedError": (405, "Метод не поддерживается.", "Method not allowed.", "Method Not Allowed"),
    "TooManyRequestsError": (429, "Слишком много запросов.", "Too many requests.", "Too Many Requests"),
    "ServiceUnavailableError": (503, "Сервис временно недоступен.", "Service temporarily unavailable.",
                                "Service Unavailable"),
    "FolderDownloadNotEmulated": (400, "Скачивание папок не эмулируется.", "Folder downloads are not emulated.",
                                  "Yandex serves a folder as a zip archive; this emulator does not."),
}
MEDIA_TYPES = {"audio": "audio", "video": "video", "image": "image", "text": "text"}
COMPRESSED = {"application/zip", "application/gzip", "application/x-tar", "application/x-7z-compressed"}


def yandex_time(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(seconds))


def media_type(mime):
    if mime in COMPRESSED:
        return "compressed"
    if mime in ("application/pdf", "application/msword"):
        return "document"
    return MEDIA_TYPES.get(mime.partition("/")[0], "unknown")


def disk_hashes(data):
    return {"md5": hashlib.md5(data).hexdigest(), "sha256": hashlib.sha256(data).hexdigest()}


def fields_filter(obj, fields):
    """Keeps the top-level keys named (a dotted name keeps its first part), as `fields=` does."""
    if not fields:
        return obj
    keep = {name.strip().split(".")[0] for name in fields.split(",")}
    return {k: v for k, v in obj.items() if k in keep}


class YandexTokens(TokenService):
    """Yandex OAuth's dialect: grant_type=device_code with `code`, Basic wins, {"error", "error_description"}."""

    device_grant = "device_code"
    device_code_field = "code"
    basic_overrides_form = True
    redirect_uri_in_token = False
    access_prefix, refresh_prefix, code_prefix, device_prefix = "y0_", "1:", "", ""
    user_code_alphabet, user_code_length = "abcdefghijkmnpqrstuvwxyz23456789", 8
    ERROR_NAMES = {"unknown_client": "invalid_client", "device_unknown": "invalid_grant",
                   "device_expired": "invalid_grant", "device_redeemed": "invalid_grant",
                   "device_missing": "invalid_request", "declined": "access_denied"}

    def token_answer(self, access, refresh, scope):
        return {"token_type": "bearer", "access_token": access, "expires_in": int(self.access_ttl),
                "refresh_token": refresh}

    def device_answer(self, device_code, user_code, uri):
        return {"device_code": device_code, "user_code": user_code, "verification_url": uri,
                "interval": int(self.device_interval), "expires_in": int(self.device_ttl)}

    def error_body(self, error, endpoint):
        return {"error_description": error.description, "error": error.error}


class Emulator(CloudEmulator):
    def __init__(self, args):
        super().__init__(args, YandexTokens)
        self.refuse_content_authorization = not args.allow_content_authorization
        self.hashes = HashCache(disk_hashes)
        self.app_folder = args.app_folder.strip("/")

    def new_stats(self):
        stats = super().new_stats()
        stats["content"]["redirects"] = 0
        return stats

    def resource(self, rel, full, embed=True, limit=20, offset=0):
        st = os.stat(full)
        path = "disk:/" + rel
        item = {"name": rel.rpartition("/")[2] if rel else "disk", "path": path,
                "created": yandex_time(st.st_mtime), "modified": yandex_time(st.st_mtime),
                "resource_id": "0:" + hashlib.sha256(path.encode()).hexdigest(),
                "revision": st.st_mtime_ns // 1000}
        if os.path.isdir(full):
            item["type"] = "dir"
            if embed:
                names = sorted(os.listdir(full))
                items = [self.resource((rel + "/" + n).lstrip("/"), os.path.join(full, n), embed=False)
                         for n in names[offset:offset + limit]]
                item["_embedded"] = {"sort": "", "items": items, "limit": limit, "offset": offset,
                                     "path": path, "total": len(names)}
            return item
        mime = guess_type(full)
        item.update(type="file", size=st.st_size, mime_type=mime, media_type=media_type(mime),
                    antivirus_status="clean", file=self.download_href(rel, full), **self.hashes.get(full, st))
        return item

    def download_href(self, rel, full):
        token = self.content_urls.issue(rel)
        mime = guess_type(full)
        name = urllib.parse.quote(rel.rpartition("/")[2])
        query = urllib.parse.urlencode({"uid": "0", "filename": rel.rpartition("/")[2], "disposition": "attachment",
                                        "hash": "", "limit": "0", "content_type": mime, "owner_uid": "0",
                                        "fsize": str(os.path.getsize(full)), "media_type": media_type(mime),
                                        "tknv": "v2"})
        expiry = int(time.time() + self.content_urls.ttl)
        return "%s/disk/%s/%x/%s?%s" % (self.content_base, token, expiry, name, query)


class Handler(CloudHandler):
    server_version = "yandex-disk-emulator/1"
    log_name = "yandex-disk-emulator"
    verbose_env = "YANDEX_DISK_EMULATOR_VERBOSE"
    auth_scheme = "oauth"
    expired_status = 403

    def disk_error(self, name, headers=None):
        status, ru, en, description = ERRORS[name]
        english = (self.headers.get("Accept-Language") or "").strip().lower().startswith("en")
        return self.answer(status, {"message": en if english else ru, "description": description, "error": name},
                           headers)

    def api_throttled(self, status, retry_after):
        name = "TooManyRequestsError" if status == 429 else "ServiceUnavailableError"
        return self.disk_error(name, {"Retry-After": str(retry_after)})

    def token_throttled(self, status, retry_after):
        return self.answer(status, {"error_description": "Too many requests, try later.",
                                    "error": "temporarily_unavailable"}, {"Retry-After": str(retry_after)})

    def api(self, path, body):
        if path == "/token":
            return self.token_endpoint("token", body)
        if path == "/device/code":
            return self.token_endpoint("devicecode", body)
        if path == "/authorize":
            return self.authorize_endpoint()
        if path == "/device":
            return self.answer(200, "Device authorization: no browser here. POST /_approve to the emulator.\n",
                               content_type="text/plain; charset=utf-8")
        if path != DISK and not path.startswith(DISK + "/"):
            return self.disk_error("DiskNotFoundError")
        problem = self.api_gate(path)
        if problem == "sent":
            return None
        if problem:
            return self.disk_error("UnauthorizedError")
        if self.command not in ("GET", "HEAD"):
            return self.disk_error("MethodNotAllowedError", {"Allow": "GET, HEAD"})
        emu = self.emu
        q = self.query()
        if path == DISK:
            return self.answer(200, fields_filter({
                "total_space": 10 * 1024 ** 3, "used_space": tree_size(emu.root), "trash_size": 0,
                "is_paid": False, "user": {"login": "emulator", "uid": "0", "country": "ru"},
                "system_folders": {"downloads": "disk:/Загрузки/"}}, q.get("fields")))
        if path not in (DISK + "/resources", DISK + "/resources/download"):
            return self.disk_error("DiskNotFoundError")
        raw = q.get("path")
        if not raw:
            return self.disk_error("FieldValidationError")
        space, rel = "", raw
        for prefix, folder in (("disk:", ""), ("app:", emu.app_folder)):
            if raw.startswith(prefix):
                space, rel = folder, raw[len(prefix):]
        if not rel.startswith("/"):
            return self.disk_error("FieldValidationError")
        rel = (space + rel).strip("/")
        full = emu.resolve(rel) if ".." not in rel.split("/") else None
        if full is None:
            return self.disk_error("DiskNotFoundError")
        if path == DISK + "/resources":
            try:
                limit, offset = int(q.get("limit", 20)), int(q.get("offset", 0))
            except ValueError:
                return self.disk_error("FieldValidationError")
            return self.answer(200, fields_filter(emu.resource(rel, full, limit=max(0, limit), offset=max(0, offset)),
                                                  q.get("fields")))
        if os.path.isdir(full):
            return self.disk_error("FolderDownloadNotEmulated")
        link = {"href": emu.download_href(rel, full), "method": "GET", "templated": False}
        return self.answer(200, fields_filter(link, q.get("fields")))

    # -- content host -----------------------------------------------------------------------

    CONTENT_TEXTS = {"authorization": "Download URLs take no Authorization header.\n",
                     "expired": "Forbidden: the download URL is invalid or has expired.\n",
                     "not-found": "Not found.\n", "gone": "The file no longer exists.\n"}

    def shown_path(self, path):
        segments = path.split("/")
        if self.role == "content" and len(segments) > 2 and segments[1] in ("disk", "rdisk"):
            segments[2] = "-"  # the signed token
        return "/".join(segments)

    def content_error(self, status, reason):
        if reason == "method":
            return self.answer(405, b"", {"Allow": "GET, HEAD"})
        return self.answer(status, self.CONTENT_TEXTS[reason], content_type="text/plain; charset=utf-8")

    def content_route(self, path):
        segments = path.split("/")
        if len(segments) < 4 or segments[1] not in ("disk", "rdisk") or not segments[2]:
            return self.content_error(404, "not-found")
        if self.command not in ("GET", "HEAD"):
            return self.content_error(405, "method")
        entry = self.signed_entry(segments[2])
        if entry is None:
            return None
        emu = self.emu
        full = emu.resolve(entry["rel"])
        if full is None or not os.path.isfile(full):
            return self.content_error(404, "gone")
        name = entry["rel"].rpartition("/")[2]
        if segments[1] == "disk":
            storage = emu.content_urls.issue(entry["rel"])
            emu.count("content", "redirects")
            return self.answer(302, b"", {"Location": "%s/rdisk/%s/%s" % (emu.content_base, storage,
                                                                           urllib.parse.quote(name))})
        md5 = emu.hashes.get(full, os.stat(full))["md5"]
        disposition = "attachment; filename*=UTF-8''%s" % urllib.parse.quote(name)
        return self.send_file(full, '"%s"' % md5, extra_headers={"Content-Disposition": disposition})


def main():
    parser = argument_parser(__doc__)
    add_common_arguments(parser, access_token_ttl=31536000.0, device_code_ttl=600.0)
    parser.add_argument("--allow-content-authorization", action="store_true",
                        help="serve content requests that carry Authorization (still counted), as the docs allow")
    parser.add_argument("--app-folder", default="Applications/sluice-test-client",
                        help="the folder app:/ paths name (Yandex: disk:/Приложения/<app name>)")
    args = parse_common(parser)
    run(Emulator(args), Handler, args, "yandex-disk-emulator")


if __name__ == "__main__":
    main()
