"""Access control and response hardening: API keys, CORS, rate limits, security headers."""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
import time
from collections import OrderedDict

from flask import Flask, Response, g, request

from .config import Settings
from .exceptions import RateLimited, Unauthorized

# Routes anyone may reach: probes, the page and the API contract (API calls carry the key).
OPEN_PATHS = ("/healthz", "/readyz", "/health", "/", "/favicon.ico", "/openapi.json", "/docs")
OPEN_PREFIXES = ("/static/",)

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")


def _is_open(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


class RateLimiter:
    """A token bucket per client key: ``per_minute`` requests, refilled continuously.

    A bucket that has been idle long enough to be full again is the same as no bucket, so it is
    forgotten: memory is bounded by the clients active in the last minute or so, and a hard cap
    (the least recently used go first) bounds it even under a flood of addresses.
    """

    def __init__(self, per_minute: int, max_clients: int = 100_000, clock=time.monotonic):
        self.clock = clock  # seconds, never going back (a test may stop it)
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()
        self._next_sweep = 0.0

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str) -> float:
        """Spend one token; return 0 when allowed, else seconds until one is available."""
        now = self.clock()
        with self._lock:
            self._sweep(now)
            tokens, last = self._buckets.pop(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
            self._buckets[key] = (tokens - 1 if tokens >= 1 else tokens, now)  # most recent last
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
            return wait

    def blocked(self, key: str) -> float:
        """Seconds until ``key`` has a token again (0: it has one); spends nothing."""
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def _sweep(self, now: float) -> None:
        if now < self._next_sweep:
            return
        full_after = self.capacity / self.rate  # seconds for an empty bucket to refill
        while self._buckets:
            key, (_tokens, last) = next(iter(self._buckets.items()))
            if now - last < full_after:
                break
            del self._buckets[key]
        self._next_sweep = now + 1.0


def bearer_token(header: str) -> bytes:
    """The token of an ``Authorization: Bearer <token>`` header (the scheme in any case)."""
    scheme, _, token = header.strip().partition(" ")
    return token.strip().encode() if scheme.lower() == "bearer" else b""


# Request headers a browser may send cross-origin: the official SDKs add x-stainless-* ones.
_ALLOWED_HEADER = re.compile(r"^(authorization|content-type|accept|x-request-id|"
                             r"openai-[a-z0-9-]+|x-stainless-[a-z0-9-]+)$")
FAILED_AUTH_PER_MINUTE = 20  # per address; past it, 429 until the bucket refills


def register_security(app: Flask, settings: Settings) -> None:
    keys = [k.encode() for k in settings.api_keys]
    metrics_keys = [k.encode() for k in settings.metrics_keys] or keys
    admin_keys = [k.encode() for k in settings.admin_keys]
    limiter = RateLimiter(settings.rate_limit_per_minute) if settings.rate_limit_per_minute else None
    failures = RateLimiter(FAILED_AUTH_PER_MINUTE)
    app.extensions["limiters"] = {"requests": limiter, "failed_auth": failures}
    origins = set(settings.cors_origins)

    def check_key(allowed: list[bytes], client: str) -> int:
        """The index of the key sent; Unauthorized when none matches. An address past its
        failure budget is refused before any key is compared, so guessing gets nowhere (and
        users behind that same address wait too: set MNEMO_PROXY_HOPS behind a proxy)."""
        wait = failures.blocked(client)
        if wait:
            raise RateLimited("Too many failed authentications from this address; retry later.",
                              retry_after=int(wait) + 1)
        token = bearer_token(request.headers.get("Authorization", ""))
        # Compare against every key, in constant time, so timing reveals nothing.
        matched = [hmac.compare_digest(token, key) for key in allowed]
        if any(matched):
            return matched.index(True)
        wait = failures.take(client)
        if wait:
            raise RateLimited("Too many failed authentications from this address; retry later.",
                              retry_after=int(wait) + 1)
        raise Unauthorized("A valid API key is required: send 'Authorization: Bearer <key>'.")

    @app.before_request
    def _guard():
        if request.method == "OPTIONS" and request.headers.get("Origin") in origins:
            return Response(status=204)
        if _is_open(request.path):
            return None
        client = request.remote_addr or "unknown"
        if admin_keys and request.path.startswith("/admin/"):  # operators: admin keys only
            check_key(admin_keys, client)
            g.client = "admin"
            return None
        if request.path == "/metrics":  # scrapers: their own keys, never rate limited
            if metrics_keys:
                check_key(metrics_keys, client)
            g.client = "metrics"
            return None
        if keys:
            index = check_key(keys, client)
            client = "key:" + str(index)
            g.tenant = client  # whose caches it may use (``service.tenant``): a checked key only
            g.principal = hashlib.sha256(keys[index]).hexdigest()  # summaries are bound to it
        g.client = client
        if limiter is not None:
            wait = limiter.take(client)
            if wait:
                raise RateLimited(f"Rate limit of {settings.rate_limit_per_minute} requests per minute "
                                  "reached; retry later.", retry_after=int(wait) + 1)
        return None

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault("Content-Security-Policy", CSP)
        resp.headers.setdefault("X-Frame-Options", "DENY")
        origin = request.headers.get("Origin")
        if origin and origin in origins:
            resp.headers["Access-Control-Allow-Origin"] = origin
            resp.headers["Vary"] = "Origin"
            asked = [h.strip().lower() for h in
                     request.headers.get("Access-Control-Request-Headers", "").split(",")]
            resp.headers["Access-Control-Allow-Headers"] = ", ".join(
                ["authorization", "content-type"]
                + [h for h in asked if _ALLOWED_HEADER.match(h) and h not in (
                    "authorization", "content-type")])
            resp.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
            resp.headers["Access-Control-Expose-Headers"] = "Retry-After, X-Mnemo-History-Dropped"
        return resp
