"""Access control and response hardening: API keys, CORS, rate limits, security headers."""

from __future__ import annotations

import hmac
import threading
import time

from flask import Flask, Response, g, request

from .config import Settings
from .exceptions import RateLimited, Unauthorized

# Routes anyone may reach: probes, the page and the API contract (API calls carry the key).
OPEN_PATHS = ("/healthz", "/readyz", "/", "/favicon.ico", "/openapi.json", "/docs")
OPEN_PREFIXES = ("/static/",)

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")


def _is_open(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


class RateLimiter:
    """A token bucket per client key: ``per_minute`` requests, refilled continuously."""

    def __init__(self, per_minute: int):
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Spend one token; return 0 when allowed, else seconds until one is available."""
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens >= 1:
                self._buckets[key] = (tokens - 1, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate


def register_security(app: Flask, settings: Settings) -> None:
    keys = [k.encode() for k in settings.api_keys]
    limiter = RateLimiter(settings.rate_limit_per_minute) if settings.rate_limit_per_minute else None
    origins = set(settings.cors_origins)

    @app.before_request
    def _guard():
        if request.method == "OPTIONS" and request.headers.get("Origin") in origins:
            return Response(status=204)
        if _is_open(request.path):
            return None
        client = request.remote_addr or "unknown"
        if keys:
            auth = request.headers.get("Authorization", "")
            token = auth[7:].strip().encode() if auth.startswith("Bearer ") else b""
            # Compare against every key, in constant time, so timing reveals nothing.
            matched = [hmac.compare_digest(token, key) for key in keys]
            if not any(matched):
                raise Unauthorized("A valid API key is required: send 'Authorization: Bearer <key>'.",
                                   headers={"WWW-Authenticate": "Bearer"})
            client = "key:" + str(matched.index(True))
        g.client = client
        if limiter:
            wait = limiter.take(client)
            if wait:
                raise RateLimited(f"Rate limit of {settings.rate_limit_per_minute} requests per minute "
                                  "reached; retry later.", headers={"Retry-After": str(int(wait) + 1)})
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
            resp.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type"
            resp.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        return resp
