"""The provider-independent half of Sluice's cloud-provider emulators (Python 3 stdlib only): OAuth2 token
service, throttling, counters, signed content URLs, ranged file answers, the control endpoints and the
two-listener runner. A provider module (onedrive_emulator.py, yandex_disk_emulator.py, ...) keeps only what
its public docs say is its own: URL layout, JSON shapes, error bodies, header schemes. The kit itself
promises nothing about any provider; each provider module's docstring lists the documents it follows, what
it is deliberately stricter about and what is unverified.

How a provider plugs in (the seams):

    class MyTokens(TokenService):          # OAuth2 dialect (OfflineTokenService: refresh tokens only for offline access)
        device_grant = "device_code"       # grant_type value of the device-code grant (RFC 8628 name by default)
        device_code_field = "code"         # form field that carries the device code
        basic_overrides_form = True        # Basic header wins over client_id/client_secret in the body
        def wants_refresh(self, scope)     # whether a token answer carries a refresh token
        def token_answer(self, access, refresh, scope)    # the 200 JSON
        def device_answer(self, device_code, user_code, verification_uri)
        def error_body(self, error, endpoint)             # the 4xx JSON of an OAuthError
        def authorize_text(self, error)                   # text of an /authorize error
        CODES = {reason: number}           # optional provider error numbers, error.reason -> code
        ERROR_NAMES = {reason: "error"}    # where the provider's `error` differs from the RFC's
        scope_required, redirect_uri_in_token, default_scope, *_prefix   # smaller switches

    class MyEmulator(CloudEmulator):       # state; super().__init__(args, MyTokens) makes self.tokens,
        throttle_scopes = ("api", "token", "all"); default_throttle_scope = "api"
        def content_url(self, rel, **extra) -> str        # uses self.content_urls.issue(...)
        def item_id(self, rel) -> str                      # a provider with ids; find_id(id) walks the tree for it

    class MyHandler(CloudHandler):         # HTTP; server_version, verbose_env, log_name
        def api(self, path, body)          # the API host's routes (call self.oauth_form / self.api_gate)
        def content_route(self, path)      # the content host's routes, after the Authorization refusal
        def content_error(self, status, reason)   # body of a content-host refusal (reason: "authorization",
                                                  # "expired", "not-found", "method"); or CONTENT_TEXTS for text
        def api_throttled(self, status, retry_after)     # a throttled API answer
        def token_throttled(self, status, retry_after)   # a throttled token-endpoint answer

    def main():
        parser = argparse.ArgumentParser(...); add_common_arguments(parser, device_code_ttl=300, ...)
        args = parse_common(parser); run(MyEmulator(args), MyHandler, args, "my-emulator")

What the kit does for every provider:

  * TokenService: access tokens with a TTL (validate -> None | "missing" | "unknown" | "expired"), refresh
    tokens that rotate and are single-use unless keep_used, the refresh_token, authorization_code (+ PKCE
    S256, exact loopback redirect_uri, single-use codes) and device-code grants (authorization_pending,
    slow_down per RFC 8628 §3.5, declined, expired, redeemed), client id and secret checks (form or Basic),
    /authorize with pre-approval, /_approve, /_revoke, /_seed, /_expire-access-tokens. Each refusal is an
    OAuthError(status, error, reason, description); `reason` is a stable key a provider maps to its codes.
  * Throttle: /_throttle {"count", "status", "retryAfter", "scope", "enforce"}; with enforce a retry sooner
    than Retry-After is refused again without using up the count (stats api.earlyRetries).
  * Stats: one counters dict (tokenRequests, tokenErrors, refreshes, rejectedRefreshes, deviceCodesIssued,
    authorizeRequests, authorizeRedirects, api{...}, content{...}, recent); never a token or a secret.
  * ContentUrls: random tokens with an expiry, checked when a request starts; /_expire-content-urls.
  * CloudHandler: answers, dispatch, the control endpoints (both hosts, never counted, never throttled),
    the content host's refusal of any Authorization header (counted content.withAuthorization, before
    anything else; CloudEmulator.refuse_content_authorization = False keeps the count and serves), send_file (single Range -> 206, past the end -> 416 `bytes */N`, several -> 200 whole,
    If-Range, HEAD, sendfile in chunks, /_break-next-content), oauth_form (POST + form-encoded checks,
    Basic parsing, token throttling) and api_gate (API counters, throttling, token check).
  * run(): both listeners, atomic port file {"api": P1, "content": P2}, the same line on stdout, SIGTERM
    and SIGINT stop both.
"""

import argparse
import base64
import email.utils
import hashlib
import http.server
import json
import mimetypes
import os
import secrets
import signal
import socket
import sys
import threading
import time
import urllib.parse

from http_fixtures import parse_single_range

STOPPING = threading.Event()
CHUNK = 256 * 1024
RECENT_MAX = 500
RFC_DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def now():
    return time.monotonic()


def new_token(prefix):
    return prefix + secrets.token_urlsafe(32)


def loopback_redirect(parts):
    """http, a loopback host, any port (RFC 8252 §7.3), no userinfo, no fragment."""
    try:
        parts.port
    except ValueError:
        return False
    return (parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
            and "@" not in parts.netloc and not parts.fragment)


def pkce_s256(verifier):
    digest = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def resolve(root, rel):
    """Full path of a drive path (no leading slash) under root (a realpath), or None when outside or absent."""
    if "\x00" in rel:
        return None
    full = os.path.realpath(os.path.join(root, rel))
    if full != root and not full.startswith(root + os.sep):
        return None
    return full if os.path.exists(full) else None


def tree_size(full):
    return sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(full) for f in fs)


def guess_type(full):
    return mimetypes.guess_type(full)[0] or "application/octet-stream"


class HashCache:
    """compute(bytes) -> dict, once per file version (path, size, mtime, inode)."""

    def __init__(self, compute):
        self.compute, self.lock, self.cache = compute, threading.Lock(), {}

    def get(self, full, st):
        key = (full, st.st_size, st.st_mtime_ns, st.st_ino)
        with self.lock:
            cached = self.cache.get(key)
        if cached:
            return cached
        with open(full, "rb") as f:
            value = self.compute(f.read())
        with self.lock:
            self.cache[key] = value
        return value


class OAuthError(Exception):
    """A token-endpoint or /authorize refusal. reason is the kit's key for it (see TokenService.CODES)."""

    def __init__(self, status, error, reason, description):
        super().__init__(error)
        self.status, self.error, self.reason, self.description = status, error, reason, description


def missing(name, error="invalid_request"):
    return OAuthError(400, error, "missing_parameter",
                      "The request body must contain the following parameter: '%s'." % name)


class TokenService:
    """OAuth2 state and grants. Every public method takes the emulator's lock itself."""

    device_grant = RFC_DEVICE_GRANT
    device_code_field = "device_code"
    basic_overrides_form = False
    access_prefix, refresh_prefix, code_prefix, device_prefix = "at.", "rt.", "code.", "dc."
    user_code_alphabet, user_code_length = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 9
    default_scope = ""
    scope_required = False  # /authorize and the device-code request must name a scope
    redirect_uri_in_token = True  # the authorization_code grant must repeat the authorize request's redirect_uri
    CODES = {}  # reason -> a provider's error number, for error_body
    ERROR_NAMES = {}  # reason -> the provider's `error` value where it differs from RFC 6749 / RFC 8628

    def __init__(self, emu, args):
        self.emu, self.lock, self.stats = emu, emu.lock, emu.stats
        self.client_id, self.client_secret = args.client_id, args.client_secret
        self.access_ttl, self.code_ttl, self.device_ttl = args.access_token_ttl, args.code_ttl, args.device_code_ttl
        self.device_interval, self.slow_down_step = args.device_interval, args.slow_down_step
        self.keep_used = args.keep_used_refresh_tokens
        self.refresh_tokens = {}  # token -> {"scope", "state": valid|used|revoked}
        self.access_tokens = {}  # token -> expiry
        self.codes = {}
        self.devices = {}
        self.authorize_approved = False
        for token in args.refresh_token or []:
            self.refresh_tokens[token] = {"scope": self.default_scope, "state": "valid"}

    # -- provider hooks ---------------------------------------------------------------------

    def wants_refresh(self, scope):
        return True

    def token_answer(self, access, refresh, scope):
        answer = {"token_type": "bearer", "access_token": access, "expires_in": int(self.access_ttl)}
        if refresh:
            answer["refresh_token"] = refresh
        if scope:
            answer["scope"] = scope
        return answer

    def device_answer(self, device_code, user_code, verification_uri):
        return {"device_code": device_code, "user_code": user_code, "verification_uri": verification_uri,
                "expires_in": int(self.device_ttl), "interval": int(self.device_interval)}

    def error_body(self, error, endpoint):
        """endpoint: "token", "devicecode" or "request" (method / content-type refusals before any grant)."""
        return {"error": error.error, "error_description": error.description}

    def authorize_text(self, error):
        return error.description

    def verification_uri(self):
        return self.emu.api_base + "/device"

    def code(self, reason):
        return self.CODES.get(reason, 0)

    # -- state ------------------------------------------------------------------------------

    def reset(self):
        with self.lock:
            self.authorize_approved = False

    def counts(self):
        """Part of /_stats. Caller holds the lock."""
        t = now()
        return {"validRefreshTokens": sum(1 for r in self.refresh_tokens.values() if r["state"] == "valid"),
                "validAccessTokens": sum(1 for e in self.access_tokens.values() if e > t),
                "pendingDeviceCodes": sum(1 for d in self.devices.values()
                                          if d["state"] == "pending" and d["expires"] > t)}

    def validate(self, token):
        """None for a live access token, else "missing", "unknown" or "expired"."""
        if not token:
            return "missing"
        with self.lock:
            expiry = self.access_tokens.get(token)
        if expiry is None:
            return "unknown"
        return "expired" if now() >= expiry else None

    def seed(self, token, scope=None):
        with self.lock:
            self.refresh_tokens[token] = {"scope": self.default_scope if scope is None else scope, "state": "valid"}

    def expire_access_tokens(self):
        with self.lock:
            t = now()
            for token in self.access_tokens:
                self.access_tokens[token] = min(self.access_tokens[token], t)

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

    # -- grants -----------------------------------------------------------------------------

    def issue(self, scope):
        """A token answer. Caller holds the lock."""
        access = new_token(self.access_prefix)
        self.access_tokens[access] = now() + self.access_ttl
        refresh = None
        if self.wants_refresh(scope):
            refresh = new_token(self.refresh_prefix)
            self.refresh_tokens[refresh] = {"scope": scope, "state": "valid"}
        return self.token_answer(access, refresh, scope)

    def check_client_id(self, client_id):
        if not client_id:
            raise missing("client_id")
        if client_id != self.client_id:
            raise OAuthError(400, "unauthorized_client", "unknown_client",
                             "Application with identifier '%s' was not found in the directory." % client_id)

    def check_client(self, form, basic):
        """Client identification and (for a confidential client) authentication. Caller holds the lock."""
        if basic and self.basic_overrides_form:
            client_id, secret = basic
        else:
            client_id = form.get("client_id") or (basic[0] if basic else None)
            secret = form.get("client_secret") or (basic[1] if basic else None)
        self.check_client_id(client_id)
        if self.client_secret is not None:
            status = 401 if basic else 400
            if secret is None:
                raise OAuthError(status, "invalid_client", "missing_secret", "The request body must contain the "
                                 "following parameter: 'client_assertion' or 'client_secret'.")
            if not secrets.compare_digest(secret, self.client_secret):
                raise OAuthError(status, "invalid_client", "bad_secret", "Invalid client secret provided.")
        return client_id

    def token(self, form, basic):
        """(status, JSON) for a token request."""
        grant = form.get("grant_type")
        with self.lock:
            self.emu.bump(self.stats["tokenRequests"], grant or "missing")
            try:
                if not grant:
                    raise missing("grant_type")
                if grant not in ("refresh_token", "authorization_code", self.device_grant):
                    raise OAuthError(400, "unsupported_grant_type", "unsupported_grant",
                                     "The app requested an unsupported grant type '%s'." % grant)
                self.check_client(form, basic)
                if grant == "refresh_token":
                    answer = self.refresh_grant(form)
                    self.stats["refreshes"] += 1
                elif grant == "authorization_code":
                    answer = self.code_grant(form)
                else:
                    answer = self.device_grant_answer(form)
                return 200, answer
            except OAuthError as error:
                error.error = self.ERROR_NAMES.get(error.reason, error.error)
                self.emu.bump(self.stats["tokenErrors"], error.error)
                if grant == "refresh_token":
                    self.stats["rejectedRefreshes"] += 1
                return error.status, self.error_body(error, "token")

    def refresh_scope(self, form, entry):
        return form.get("scope") or entry["scope"]

    def refresh_grant(self, form):
        token = form.get("refresh_token")
        if not token:
            raise missing("refresh_token")
        entry = self.refresh_tokens.get(token)
        if entry is None:
            raise OAuthError(400, "invalid_grant", "malformed_grant", "Invalid request. Request is malformed or invalid.")
        if entry["state"] == "revoked":
            raise OAuthError(400, "invalid_grant", "revoked", "The provided grant has expired due to it being revoked.")
        if entry["state"] == "used":
            raise OAuthError(400, "invalid_grant", "used_refresh_token",
                             "The provided authorization code or refresh token has expired due to inactivity. "
                             "Send a new interactive authorization request for this user and resource.")
        if not self.keep_used:
            entry["state"] = "used"
        return self.issue(self.refresh_scope(form, entry))

    def code_grant(self, form):
        code = form.get("code")
        for name in ("code", "redirect_uri") if self.redirect_uri_in_token else ("code",):
            if not form.get(name):
                raise missing(name)
        if not form.get("code_verifier"):
            error = missing("code_verifier", "invalid_grant")
            error.reason = "pkce_mismatch"
            raise error
        entry = self.codes.get(code)
        if entry is None:
            raise OAuthError(400, "invalid_grant", "malformed_grant", "Invalid request. Request is malformed or invalid.")
        if entry["redeemed"]:
            raise OAuthError(400, "invalid_grant", "code_redeemed", "OAuth2 Authorization code was already redeemed, "
                             "please retry with a new valid code or use an existing refresh token.")
        if now() > entry["expires"]:
            raise OAuthError(400, "invalid_grant", "code_expired", "The provided authorization code or refresh token "
                             "has expired due to inactivity.")
        if self.redirect_uri_in_token and form["redirect_uri"] != entry["redirect_uri"]:
            raise OAuthError(400, "invalid_grant", "redirect_uri", "The redirect URI '%s' specified in the request "
                             "does not match the redirect URIs configured for the application." % form["redirect_uri"])
        if not secrets.compare_digest(pkce_s256(form["code_verifier"]), entry["challenge"]):
            raise OAuthError(400, "invalid_grant", "pkce_mismatch",
                             "The Code_Verifier does not match the code_challenge supplied in the authorization request.")
        entry["redeemed"] = True
        return self.issue(entry["scope"])

    def device_grant_answer(self, form):
        code = form.get(self.device_code_field)
        entry = self.devices.get(code) if code else None
        if entry is None:
            if not code:
                error = missing(self.device_code_field, "bad_verification_code")
                error.reason = "device_missing"
                raise error
            raise OAuthError(400, "bad_verification_code", "device_unknown", "The provided device_code is not recognized.")
        t = now()
        if t > entry["expires"]:
            raise OAuthError(400, "expired_token", "device_expired", "Verification code expired.")
        if entry["state"] == "redeemed":
            raise OAuthError(400, "invalid_grant", "device_redeemed", "The device code was already redeemed.")
        if entry["state"] == "declined":
            raise OAuthError(400, "authorization_declined", "declined", "The user declined the authorization request.")
        last, entry["lastPoll"] = entry["lastPoll"], t
        if last is not None and t - last < entry["interval"] - 0.05:
            entry["interval"] += self.slow_down_step
            raise OAuthError(400, "slow_down", "slow_down", "Polling too fast; wait at least the interval between polls.")
        if entry["state"] == "pending":
            raise OAuthError(400, "authorization_pending", "pending", "The provided request has not yet been "
                             "authorized by the user. The user must input their code.")
        entry["state"] = "redeemed"
        return self.issue(entry["scope"])

    def devicecode(self, form, basic):
        """(status, JSON) for a device-authorization request."""
        with self.lock:
            try:
                self.check_client_id(form.get("client_id") or (basic[0] if basic else None))
                if self.scope_required and not form.get("scope"):
                    raise missing("scope")
                scope = form.get("scope") or self.default_scope
            except OAuthError as error:
                error.error = self.ERROR_NAMES.get(error.reason, error.error)
                self.emu.bump(self.stats["tokenErrors"], error.error)
                return error.status, self.error_body(error, "devicecode")
            device_code = new_token(self.device_prefix)
            user_code = "".join(secrets.choice(self.user_code_alphabet) for _ in range(self.user_code_length))
            self.devices[device_code] = {"user_code": user_code, "scope": scope, "state": "pending",
                                         "expires": now() + self.device_ttl, "interval": self.device_interval,
                                         "lastPoll": None}
            self.stats["deviceCodesIssued"] += 1
            return 200, self.device_answer(device_code, user_code, self.verification_uri())

    def authorize(self, query):
        """(status, headers, text); a 302 only for a valid request once pre-approved."""
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(query, keep_blank_values=True).items()}
        with self.lock:
            self.stats["authorizeRequests"] += 1
            redirect_uri = q.get("redirect_uri", "")
            parts = urllib.parse.urlsplit(redirect_uri)
            if q.get("client_id") != self.client_id:
                return 400, {}, self.authorize_text(OAuthError(400, "unauthorized_client", "unknown_client",
                                                   "Application with identifier '%s' was not found." % q.get("client_id")))
            if not loopback_redirect(parts):
                return 400, {}, self.authorize_text(OAuthError(
                    400, "invalid_request", "redirect_uri", "The redirect URI specified in the request does not match: "
                    "only loopback redirect URIs (http://127.0.0.1:PORT/..., http://localhost:PORT/...) are registered."))
            error = None
            if q.get("response_type") != "code":
                error = OAuthError(400, "unsupported_response_type", "response_type", "response_type must be 'code'.")
            elif not q.get("scope") and self.scope_required:
                error = missing("scope")
            elif not q.get("code_challenge") or q.get("code_challenge_method") != "S256":
                error = OAuthError(400, "invalid_request", "pkce_required",
                                   "PKCE with code_challenge_method=S256 is required here.")
            if error is None and not self.authorize_approved:
                return 200, {}, "Sign in: no browser here. POST /_approve to the emulator to answer this request."
            if error is None and self.authorize_approved == "deny":
                error = OAuthError(400, "access_denied", "denied", "User declined to consent to access the app.")
            if error:
                params = {"error": error.error, "error_description": self.authorize_text(error)}
            else:
                code = new_token(self.code_prefix)
                self.codes[code] = {"redirect_uri": redirect_uri, "challenge": q["code_challenge"],
                                    "scope": q.get("scope") or self.default_scope,
                                    "expires": now() + self.code_ttl, "redeemed": False}
                params = {"code": code}
                self.stats["authorizeRedirects"] += 1
            if "state" in q:
                params["state"] = q["state"]
            joiner = "&" if parts.query else "?"
            return 302, {"Location": redirect_uri + joiner + urllib.parse.urlencode(params)}, ""


class OfflineTokenService(TokenService):
    """A dialect whose code grant yields a refresh token only when /authorize asked for offline access
    (`offline_param=offline`, e.g. Google's `access_type`, Dropbox's `token_access_type`). `granting` is "refresh",
    "online" or "offline" while a grant runs, under the lock."""

    offline_param = "access_type"

    def __init__(self, emu, args):
        super().__init__(emu, args)
        self.granting = None

    def authorize(self, query):
        status, headers, text = super().authorize(query)
        if status == 302:
            q = dict(urllib.parse.parse_qsl(query))
            issued = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers["Location"]).query))
            with self.lock:
                if issued.get("code") in self.codes:
                    self.codes[issued["code"]]["offline"] = q.get(self.offline_param) == "offline"
        return status, headers, text

    def refresh_grant(self, form):
        self.granting = "refresh"
        return super().refresh_grant(form)

    def code_grant(self, form):
        self.granting = "offline" if self.codes.get(form.get("code"), {}).get("offline") else "online"
        return super().code_grant(form)

    def wants_refresh(self, scope):
        return self.granting == "offline"


class Throttle:
    """The pending /_throttle order. take(kind) -> (status, retry_after) or None."""

    def __init__(self, emu):
        self.emu, self.lock = emu, emu.lock
        self.clear()

    def clear(self):
        self.order, self.until = None, 0.0

    def configure(self, data):
        """None, or an error text for a bad order."""
        data = data or {}
        status = int(data.get("status", 429))
        scope = data.get("scope", self.emu.default_throttle_scope)
        if status not in self.emu.throttle_statuses or scope not in self.emu.throttle_scopes:
            return "status must be %s, scope %s" % (" or ".join(map(str, self.emu.throttle_statuses)),
                                                    ", ".join(self.emu.throttle_scopes))
        with self.lock:
            self.order = {"count": int(data.get("count", 1)), "status": status,
                          "retryAfter": int(data.get("retryAfter", 1)), "scope": scope,
                          "enforce": bool(data.get("enforce", True))}
            self.until = 0.0
        return None

    def pending(self):
        return self.order["count"] if self.order else 0

    def take(self, kind):
        with self.lock:
            th = self.order
            if th is None or th["scope"] not in (kind, "all"):
                return None
            if th["enforce"] and now() < self.until:
                self.emu.stats["api"]["earlyRetries"] += 1
                return th["status"], max(1, int(self.until - now() + 0.999))
            if th["count"] <= 0:
                self.order = None
                return None
            th["count"] -= 1
            self.until = now() + th["retryAfter"]
            answer = th["status"], th["retryAfter"]
            if th["count"] <= 0 and not th["enforce"]:
                self.order = None
            return answer


class ContentUrls:
    """Signed content URLs: a random token -> {"rel", "expires", ...}, good until expires (checked at start)."""

    def __init__(self, emu, ttl):
        self.emu, self.lock, self.ttl, self.entries = emu, emu.lock, ttl, {}

    def issue(self, rel, prefix="", **extra):
        token = prefix + secrets.token_urlsafe(48)
        with self.lock:
            self.entries[token] = dict(extra, rel=rel, expires=now() + self.ttl)
        return token

    def expires(self, token):
        with self.lock:
            return self.entries[token]["expires"]

    def lookup(self, token):
        """The live entry, or None (counted as content.rejectedUrls)."""
        with self.lock:
            entry = self.entries.get(token) if token else None
            if entry is None or now() >= entry["expires"]:
                self.emu.stats["content"]["rejectedUrls"] += 1
                return None
            return entry

    def expire_all(self):
        with self.lock:
            t = now()
            for entry in self.entries.values():
                entry["expires"] = min(entry["expires"], t)


class CloudEmulator:
    """State shared by both hosts, under one lock. Subclasses add the provider's state and URL making."""

    throttle_statuses = (429, 503)
    throttle_scopes = ("api", "token", "all")
    default_throttle_scope = "api"
    refuse_content_authorization = True  # False: an Authorization header on the content host is only counted

    def __init__(self, args, token_service=TokenService):
        self.lock = threading.Lock()
        self.root = os.path.realpath(args.root)
        self.api_base = self.content_base = None  # set by run() once bound
        self.stats = {}
        self.reset_stats()
        self.tokens = token_service(self, args)
        self.throttle = Throttle(self)
        self.content_urls = ContentUrls(self, args.content_url_ttl)
        self.break_after = None

    def new_stats(self):
        """The counters at start and after /_reset; a provider may add keys (keep these)."""
        return {
            "tokenRequests": {}, "tokenErrors": {}, "refreshes": 0, "rejectedRefreshes": 0,
            "deviceCodesIssued": 0, "authorizeRequests": 0, "authorizeRedirects": 0,
            "api": {"requests": 0, "byPath": {}, "byStatus": {}, "unauthorized": 0, "throttled": 0, "earlyRetries": 0},
            "content": {"requests": 0, "byStatus": {}, "withAuthorization": 0, "rejectedUrls": 0, "bytes": 0,
                        "broken": 0},
            "recent": [],
        }

    def reset_stats(self):
        # In place: the token service holds a reference to the dict.
        with self.lock:
            self.stats.clear()
            self.stats.update(self.new_stats())

    def reset(self):
        """/_reset: counters, pending throttling, a pending broken body, the authorize pre-approval."""
        self.reset_stats()
        self.tokens.reset()
        with self.lock:
            self.throttle.clear()
            self.break_after = None

    @staticmethod
    def bump(table, key, by=1):
        table[key] = table.get(key, 0) + by

    def count(self, *keys, by=1):
        """stats[k1][k2]... += by, under the lock."""
        with self.lock:
            table = self.stats
            for key in keys[:-1]:
                table = table[key]
            table[keys[-1]] += by

    def snapshot(self):
        with self.lock:
            snap = json.loads(json.dumps(self.stats))
            snap.update(self.tokens.counts())
            snap["throttlePending"] = self.throttle.pending()
            return snap

    def record(self, host, method, path, status, range_header=None):
        with self.lock:
            self.stats["recent"].append({"host": host, "method": method, "path": path, "status": status,
                                         "range": range_header})
            del self.stats["recent"][:-RECENT_MAX]

    def resolve(self, rel):
        return resolve(self.root, rel)

    def find_id(self, item_id):
        """The drive path of the file or folder whose item_id(rel) is item_id, or None (a walk: test trees are small)."""
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in dirnames + filenames:
                rel = os.path.relpath(os.path.join(dirpath, name), self.root).replace(os.sep, "/")
                if self.item_id(rel) == item_id:
                    return rel
        return None

    def take_break(self):
        """The pending /_break-next-content byte count (used up), or None."""
        with self.lock:
            cut, self.break_after = self.break_after, None
            if cut is not None:
                self.stats["content"]["broken"] += 1
            return cut


class CloudHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "cloud-emulator/1"
    log_name = "cloud-emulator"
    verbose_env = "CLOUD_EMULATOR_VERBOSE"
    emu = None  # set by run()
    role = "api"  # "api" or "content", set per server class by run()

    def log_message(self, format, *args):
        if os.environ.get(self.verbose_env):
            # Never the query string: it carries codes and signed-URL tokens.
            sys.stderr.write("%s[%s]: %s %s\n" % (self.log_name, self.role, self.command,
                                                    self.shown_path(self.url_path())))

    def shown_path(self, path):
        """The path as /_stats' recent list and the log show it: a provider whose signed tokens sit in the path
        (not the query) blanks them here."""
        return path

    def url_path(self):
        return urllib.parse.urlsplit(getattr(self, "path", "") or "").path

    def raw_query(self):
        return urllib.parse.urlsplit(self.path).query

    def query(self):
        return {k: v[-1] for k, v in urllib.parse.parse_qs(self.raw_query(), keep_blank_values=True).items()}

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

    # -- provider hooks ---------------------------------------------------------------------

    def api(self, path, body):
        return self.answer(404, {"error": "not emulated"})

    def content_route(self, path):
        return self.content_error(404, "not-found")

    CONTENT_TEXTS = None  # reason -> plain-text body of a content-host refusal, for hosts that answer in text

    def content_error(self, status, reason):
        if self.CONTENT_TEXTS is None:
            return self.answer(status, {"error": reason})
        if reason == "method":
            return self.answer(405, b"", {"Allow": "GET, HEAD"})
        return self.answer(status, self.CONTENT_TEXTS[reason], content_type="text/plain; charset=utf-8")

    def api_throttled(self, status, retry_after):
        return self.answer(status, {"error": "throttled"}, {"Retry-After": str(retry_after)})

    def token_throttled(self, status, retry_after):
        return self.answer(status, {"error": "temporarily_unavailable"}, {"Retry-After": str(retry_after)})

    # -- dispatch ---------------------------------------------------------------------------

    def dispatch(self, send_body):
        self.send_body = send_body
        path = self.url_path()
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH", "DELETE") else b""
        self.on_status = None
        if path.startswith("/_") and self.control(path, body):
            return
        range_header = self.headers.get("Range") if self.role == "content" else None
        counters = []  # extra counting, added by api_gate() and content()

        def on_status(status):
            self.emu.record(self.role, self.command, self.shown_path(path), status, range_header)
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
            self.answer(200, emu.tokens.approve(data))
        elif path == "/_revoke":
            self.answer(200, emu.tokens.revoke(data))
        elif path == "/_seed":
            data = data or {}
            if not data.get("refreshToken"):
                self.answer(400, {"error": "refreshToken is required"})
                return True
            emu.tokens.seed(data["refreshToken"], data.get("scope"))
            self.answer(204)
        elif path == "/_expire-access-tokens":
            emu.tokens.expire_access_tokens()
            self.answer(204)
        elif path == "/_throttle":
            problem = emu.throttle.configure(data)
            if problem:
                self.answer(400, {"error": problem})
            else:
                self.answer(204)
        elif path == "/_expire-content-urls":
            emu.content_urls.expire_all()
            self.answer(204)
        elif path == "/_break-next-content":
            with emu.lock:
                emu.break_after = int((data or {}).get("afterBytes", 0))
            self.answer(204)
        else:
            return False
        return True

    # -- API host helpers -------------------------------------------------------------------

    def api_gate(self, path, kind="api"):
        """Counts an API request, applies throttling and reads the token. Returns None when the request may go
        on, "sent" when a throttled answer went out, or the token problem ("missing", "unknown", "expired",
        "scheme") for the provider to answer (counted as api.unauthorized)."""
        emu = self.emu
        throttled = emu.throttle.take(kind)
        emu.count("api", "requests")
        self.status_counters.append(lambda status: self.count_api(path, status))
        if throttled:
            emu.count("api", "throttled")
            self.api_throttled(*throttled)
            return "sent"
        problem = self.token_problem(self.headers.get("Authorization"))
        if problem:
            emu.count("api", "unauthorized")
        return problem

    auth_scheme = "bearer"  # compared case-insensitively

    def token_problem(self, header):
        if not header:
            return "missing"
        scheme, _, token = header.partition(" ")
        if scheme.lower() != self.auth_scheme or not token.strip():
            return "scheme"
        return self.emu.tokens.validate(token.strip())

    def count_api(self, path, status):
        with self.emu.lock:
            api = self.emu.stats["api"]
            self.emu.bump(api["byPath"].setdefault(path, {}), str(status))
            self.emu.bump(api["byStatus"], str(status))
        return status

    def oauth_form(self, body):
        """For a token or device-code endpoint: (form, basic) when the request is a POST of a form, else None
        after answering (throttled, wrong method, wrong content type). basic is (id, secret) or None."""
        emu = self.emu
        throttled = emu.throttle.take("token")
        if throttled:
            emu.count("api", "throttled")
            self.token_throttled(*throttled)
            return None
        tokens = emu.tokens
        if self.command != "POST":
            error = OAuthError(400, "invalid_request", "post_only", "The endpoint only accepts POST requests.")
            self.answer(400, tokens.error_body(error, "request"))
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            error = OAuthError(400, "invalid_request", "form_only",
                               "The request body must be application/x-www-form-urlencoded.")
            self.answer(400, tokens.error_body(error, "request"))
            return None
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
        return form, basic

    def token_endpoint(self, kind, body):
        """Answers a form POST to the token ("token") or device-code ("devicecode") endpoint."""
        parsed = self.oauth_form(body)
        if parsed is None:
            return
        tokens = self.emu.tokens
        status, answer = (tokens.devicecode if kind == "devicecode" else tokens.token)(*parsed)
        return self.answer(status, answer, {"Cache-Control": "no-store", "Pragma": "no-cache"})

    def authorize_endpoint(self):
        if self.command != "GET":
            return self.answer(405, "", {"Allow": "GET"})
        status, headers, text = self.emu.tokens.authorize(self.raw_query())
        return self.answer(status, "<html><body><p>%s</p></body></html>" % text if text else b"", headers,
                           content_type="text/html; charset=utf-8")

    # -- content host -----------------------------------------------------------------------

    def content(self, path):
        emu = self.emu
        emu.count("content", "requests")

        def count(status):
            with emu.lock:
                emu.bump(emu.stats["content"]["byStatus"], str(status))

        self.status_counters.append(count)
        if self.headers.get("Authorization") is not None:
            emu.count("content", "withAuthorization")
            if emu.refuse_content_authorization:
                return self.content_error(401, "authorization")
        return self.content_route(path)

    def signed_entry(self, token):
        """The live ContentUrls entry for token, or None after answering 'expired'."""
        entry = self.emu.content_urls.lookup(token)
        if entry is None:
            self.content_error(self.expired_status, "expired")
        return entry

    expired_status = 401

    def send_file(self, full, etag, content_type=None, extra_headers=None):
        """The file's bytes as a GET or HEAD answer: one Range -> 206, past the end -> 416, If-Range on the ETag
        or Last-Modified, /_break-next-content honoured."""
        emu = self.emu
        with open(full, "rb") as f:
            st = os.fstat(f.fileno())
            size = st.st_size
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
            cut = emu.take_break() if self.send_body else None
            self.begin(status)
            for name, value in validators.items():
                self.send_header(name, value)
            if status == 206:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, size))
            self.send_header("Content-Type", content_type or guess_type(full))
            for name, value in (extra_headers or {}).items():
                self.send_header(name, value)
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
                self.emu.count("content", "bytes", by=n)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def add_common_arguments(parser, client_id="sluice-test-client", access_token_ttl=3600.0, content_url_ttl=300.0,
                         code_ttl=600.0, device_code_ttl=900.0, device_interval=5.0):
    """The options every emulator has, with the provider's defaults."""
    parser.add_argument("--root", required=True, help="folder served as the drive")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="API + identity port (0 picks a free one)")
    parser.add_argument("--content-port", type=int, default=0, help="content host port (0 picks a free one)")
    parser.add_argument("--port-file", help='written with {"api": P1, "content": P2} once both listen')
    parser.add_argument("--client-id", default=client_id, help="the one registered application")
    parser.add_argument("--client-secret", help="makes the client confidential: token requests must carry it")
    parser.add_argument("--refresh-token", action="append", help="a valid refresh token at start (repeatable)")
    parser.add_argument("--access-token-ttl", type=float, default=access_token_ttl, help="seconds (expires_in)")
    parser.add_argument("--content-url-ttl", type=float, default=content_url_ttl,
                        help="seconds a download URL is good for")
    parser.add_argument("--code-ttl", type=float, default=code_ttl, help="seconds an authorization code is good for")
    parser.add_argument("--device-code-ttl", type=float, default=device_code_ttl,
                        help="seconds a device code is good for")
    parser.add_argument("--device-interval", type=float, default=device_interval, help="polling interval handed out")
    parser.add_argument("--slow-down-step", type=float, default=5.0, help="seconds each slow_down adds")
    parser.add_argument("--keep-used-refresh-tokens", action="store_true",
                        help="let a used refresh token work again")


def parse_common(parser):
    args = parser.parse_args()
    if not os.path.isdir(args.root):
        parser.error("--root %s is not a directory" % args.root)
    if args.device_interval != int(args.device_interval) or args.device_interval < 0:
        parser.error("--device-interval must be a whole number of seconds")
    return args


def run(emu, handler_class, args, name):
    """Serves emu on the API and content ports until SIGTERM or SIGINT."""

    class ApiHandler(handler_class):
        role = "api"

    class ContentHandler(handler_class):
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
    print("%s listening %s root=%s" % (name, json.dumps(ports), emu.root), flush=True)
    try:
        api.serve_forever(poll_interval=0.2)
    finally:
        content_thread.join(timeout=5)
        api.server_close()
        content.server_close()


def argument_parser(doc):
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
