"""Small helpers shared by tests: SSE parsing and request bodies."""

from __future__ import annotations

import json
import threading
import time
import urllib.request


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict:
    return {"role": "assistant", "content": text}


def post_json(url: str, body: dict, headers: dict | None = None, timeout: float = 60):
    """POST ``body`` as JSON over real HTTP; return the open response (HTTPError on 4xx/5xx)."""
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"Content-Type": "application/json", **(headers or {})})
    return urllib.request.urlopen(req, timeout=timeout)


def parse_sse(text: str) -> list[tuple[str | None, object]]:
    """Split an SSE body into (event name, decoded data) pairs."""
    events = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        if not data and name is None:  # a comment (": ..."): SSE readers skip it
            continue
        raw = "\n".join(data)
        events.append((name, raw if raw == "[DONE]" else json.loads(raw)))
    return events


def wrap_forward(monkeypatch, app, before_call):
    """Call ``before_call(n)`` before the n-th forward pass of the app's model (fault injection,
    or a slower model); return a function that restores the real forward."""
    model = app.extensions["engine"].scheduler.runner  # every forward goes through it
    real = model.forward
    calls = {"n": 0}

    def wrapped(*args, **kwargs):
        calls["n"] += 1
        before_call(calls["n"])
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "forward", wrapped)
    return lambda: monkeypatch.setattr(model, "forward", real)


def wait_for(condition, timeout: float = 60, every: float = 0.02):
    """Poll ``condition()`` until it is true (an event the test cannot be told of directly);
    its last value. ``timeout`` only bounds a test that would otherwise hang: it is never what
    a test asserts."""
    deadline = time.monotonic() + timeout
    while not (value := condition()) and time.monotonic() < deadline:
        time.sleep(every)
    return value


def sleep_each_step(seconds):
    return lambda _n: time.sleep(seconds)


class Held:
    """A ``wrap_forward`` hook that lets ``after`` forwards run, then holds every later one
    until ``release()``: a reply that has begun and is still running whenever the test acts
    on it (kills its client, stops or reloads the page), however slow the machine. The wait
    is bounded (``LIMIT``) only so that a test that never releases cannot hang the session;
    the ``hold`` fixture releases at teardown."""

    LIMIT = 120.0

    def __init__(self, after: int):
        self.after = after
        self._released = False
        self._changed = threading.Condition()

    def __call__(self, n: int) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self._released or n <= self.after, self.LIMIT)

    def allow(self, more: int) -> None:
        """Let ``more`` more forwards run (the held one first), then hold again (a reply that grows
        by a step while the test watches, and is still running after)."""
        with self._changed:
            self.after += more
            self._changed.notify_all()

    def release(self) -> None:
        with self._changed:
            self._released = True
            self._changed.notify_all()


_fronts: dict[int, tuple] = {}


def tokenizer_of(app_or_backend):
    """The front's tokenizer operations (``api.tokenizer.Tokenizer``): an app's own, as its
    requests get it (``service.tokenizer()``), or one over a backend's loaded tokenizer."""
    from flask import Flask

    from api.tokenizer import Tokenizer

    if isinstance(app_or_backend, Flask):
        from api.service import tokenizer

        with app_or_backend.app_context():
            return tokenizer()
    backend = app_or_backend
    made = _fronts.get(id(backend))
    if made is None or made[0] is not backend or made[1].tokenizer is not backend.tokenizer:
        made = _fronts[id(backend)] = (backend, Tokenizer.of(backend))
    return made[1]
