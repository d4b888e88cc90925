"""Graceful shutdown: once draining, new requests get a JSON 503 while in-flight ones finish.

``Drain`` counts requests from the moment the WSGI server calls the app until it closes the
response, so a stream counts until its last byte. Under gunicorn, ``drain_on_sigterm`` (called
from ``gunicorn.conf.py``) replaces the worker's SIGTERM handler: the worker keeps accepting,
answers new requests 503 (``/readyz`` too, so load balancers take the host out), and stops
once the in-flight requests are done or ``graceful_timeout`` has passed.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

from flask import Flask, request
from werkzeug.wsgi import ClosingIterator

from .exceptions import ShuttingDown

log = logging.getLogger("mnemo.lifecycle")

ALWAYS_OPEN = ("/healthz",)  # liveness: the process is alive while it drains
FLUSH_SECONDS = 3.0  # of graceful_timeout, kept to end the answers still running cleanly


class Drain:
    def __init__(self):
        self.draining = threading.Event()
        self._inflight = 0
        self._cond = threading.Condition()

    @property
    def inflight(self) -> int:
        return self._inflight

    def wrap(self, wsgi_app):
        """WSGI middleware counting requests until their response is closed."""
        def counted(environ, start_response):
            with self._cond:
                self._inflight += 1
            try:
                result = wsgi_app(environ, start_response)
            except BaseException:
                self._leave()
                raise
            return ClosingIterator(result, self._leave)
        return counted

    def _leave(self) -> None:
        with self._cond:
            self._inflight -= 1
            self._cond.notify_all()

    def begin(self) -> None:
        self.draining.set()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is in flight; False if ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._inflight > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True


def init_drain(app: Flask) -> Drain:
    drain = Drain()
    app.extensions["drain"] = drain
    app.wsgi_app = drain.wrap(app.wsgi_app)

    @app.before_request
    def _refuse_while_draining():
        if drain.draining.is_set() and request.path not in ALWAYS_OPEN:
            raise ShuttingDown("The server is shutting down; retry on another instance or shortly.",
                               retry_after=1)

    return drain


def drain_on_sigterm(worker) -> None:
    """Make a gunicorn worker's SIGTERM drain instead of closing its listener at once."""
    drain: Drain = worker.wsgi.extensions["drain"]

    def stop_when_idle():
        # gunicorn's master kills the worker once graceful_timeout has passed: the answers
        # still running are ended a little before, so that a stream ends with its error event
        # (the engine fails what it holds) instead of being cut off mid-chunk.
        timeout = worker.cfg.graceful_timeout
        idle = drain.wait_idle(max(timeout - FLUSH_SECONDS, timeout / 2))
        log.info("drained (%s); worker stopping", "idle" if idle else "graceful_timeout near")
        stop_engine(worker)
        if not idle:
            drain.wait_idle(FLUSH_SECONDS / 2)  # their last events go out
        worker.alive = False  # the gthread loop then closes its sockets and exits

    def on_sigterm(_signum, _frame):
        if drain.draining.is_set():
            return
        drain.begin()
        threading.Thread(target=stop_when_idle, name="mnemo-drain", daemon=True).start()

    signal.signal(signal.SIGTERM, on_sigterm)


def stop_engine(worker) -> None:
    """Stop and join the generation thread before the process exits: a thread still inside
    torch at interpreter shutdown aborts the process ("terminate called without an active
    exception", SIGABRT) instead of letting it exit cleanly."""
    wsgi = getattr(worker, "wsgi", None)  # absent when the app failed to build (bad setting)
    engine = wsgi.extensions.get("engine") if hasattr(wsgi, "extensions") else None
    if engine is not None:
        engine.stop()


def ready_line(bind: str, what: str) -> str:
    """The start's last line: the URL to open, or, on a unix socket (behind a proxy), the
    socket, which no browser opens."""
    if bind.startswith("unix:"):
        return f"ready: listening on {bind} (open the address of the proxy in front) ({what})"
    return f"ready: open http://{bind}/ ({what})"


def announce_ready(backend) -> None:
    """Log where to go once ``backend`` can serve: one line, the address gunicorn listens on
    (``MNEMO_BIND``, set by gunicorn.conf.py once it has bound) and what serves."""
    def wait() -> None:
        backend.ready.wait()
        log.info("%s", ready_line(os.environ.get("MNEMO_BIND", "127.0.0.1:8000"), backend.describe()))

    threading.Thread(target=wait, name="mnemo-ready", daemon=True).start()
