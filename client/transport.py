"""HTTP only: stream a chat from Mnemo's native API or any OpenAI-compatible server.

It trusts no server: a redirect is never followed (so the API key never reaches another host),
every event is checked before it is used (a malformed one is a ``BadReply``), an event line is
at most ``MAX_LINE`` bytes, a reply must finish within its time limit and keep sending events,
and a reply longer than the token limit asked for is cut off.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

MAX_LINE = 1 << 20  # bytes in one event line, or one event's data
IDLE = 60.0  # seconds without a complete event before the reply is given up
CHARS_PER_TOKEN = 64  # a reply longer than this many characters per token asked for is refused


class ServerError(Exception):
    """The server answered with an error: ``status``, its message, and ``Retry-After``."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


class BadReply(ServerError):
    """The server answered something that is not a valid reply: the message is marked failed
    and ``/retry`` resends it."""

    def __init__(self, message: str):
        super().__init__(502, f"malformed reply from the server: {message}")


class Unreachable(Exception):
    """No answer at all: the server is down, or the connection dropped."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise ServerError(code, f"the server redirected to {newurl}; not followed (the API key "
                                "is never sent elsewhere): use that address with --url if you "
                                "trust it")


_OPENER = urllib.request.build_opener(_NoRedirect)


def _post(url: str, body: dict, api_key: str | None, timeout: float):
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        return _open_within(req, timeout)
    except urllib.error.HTTPError as err:
        raise _server_error(err) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise Unreachable(f"cannot reach {url}: {reason}") from None


def _open_within(req: urllib.request.Request, seconds: float):
    """Open ``req``, headers and all, within ``seconds``: a socket's timeout restarts with every
    byte, so a server sending its headers a byte at a time would hold it open forever."""
    box: dict = {}

    def run():
        try:
            resp = _OPENER.open(req, timeout=min(seconds, IDLE))
        except BaseException as exc:  # noqa: BLE001  (handed to the caller below)
            box["error"] = exc
            return
        box["resp"] = resp
        if box.get("abandoned"):
            resp.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        box["abandoned"] = True
        raise Unreachable(f"no answer from {req.full_url} within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["resp"]


def _server_error(err: urllib.error.HTTPError) -> ServerError:
    message = f"HTTP {err.code}"
    try:
        payload = json.loads(err.read(MAX_LINE))
        message = payload["error"]["message"] or message
    except (ValueError, KeyError, TypeError, OSError):
        pass
    retry = err.headers.get("Retry-After")
    try:
        retry_after = float(retry) if retry is not None else None
    except ValueError:
        retry_after = None
    return ServerError(err.code, message, retry_after)


class _Watchdog:
    """Cuts the connection when the reply runs past ``total`` seconds, or ``idle`` seconds pass
    without a complete event (a server trickling bytes defeats a socket's own timeout)."""

    def __init__(self, resp, total: float, idle: float):
        self.sock = _socket_of(resp)
        self.deadline, self.idle, self.last = time.monotonic() + total, idle, time.monotonic()
        self.total, self.fired = total, None
        self._done = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def progress(self) -> None:
        self.last = time.monotonic()

    def stop(self) -> None:
        self._done.set()

    def _run(self) -> None:
        while not self._done.wait(0.25):
            now = time.monotonic()
            if now > self.deadline:
                self.fired = f"the reply did not finish within {self.total:g} s"
            elif now - self.last > self.idle:
                self.fired = f"the server sent no complete event for {self.idle:g} s"
            if self.fired:
                with contextlib.suppress(OSError, AttributeError):
                    self.sock.shutdown(socket.SHUT_RDWR)
                return


def _socket_of(resp):
    with contextlib.suppress(AttributeError):
        return resp.fp.raw._sock
    return None


@contextlib.contextmanager
def _reading(resp, timeout: float) -> Iterator[_Watchdog]:
    dog = _Watchdog(resp, timeout, min(IDLE, timeout))
    try:
        yield dog
    finally:
        dog.stop()


def _events(resp, dog: _Watchdog) -> Iterator[tuple[str | None, str]]:
    """(event name, data) pairs of a server-sent event stream, each line and event bounded."""
    name, data, size = None, [], 0
    try:
        while True:
            raw = resp.readline(MAX_LINE + 1)
            if not raw:
                if dog.fired:  # the watchdog shut the socket: say why, not "closed"
                    raise Unreachable(dog.fired)
                return
            if len(raw) > MAX_LINE:
                raise BadReply(f"an event line longer than {MAX_LINE} bytes")
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line:
                if data:
                    dog.progress()
                    yield name, "\n".join(data)
                name, data, size = None, [], 0
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
                size += len(line)
                if size > MAX_LINE:
                    raise BadReply(f"an event longer than {MAX_LINE} bytes")
    except UnicodeDecodeError:
        raise BadReply("an event that is not UTF-8") from None
    except (OSError, ValueError) as err:  # a reset, a chunked body cut short, or the watchdog
        raise Unreachable(dog.fired or f"the connection dropped mid-reply: {err}") from None


def _json(data: str) -> object:
    try:
        return json.loads(data)
    except ValueError:
        raise BadReply(f"an event that is not JSON: {data[:80]!r}") from None


def _field(obj: object, key: str, kinds, what: str):
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, kinds):
        raise BadReply(f"{what} has no valid {key!r}: {str(obj)[:80]!r}")
    return value


def _check_done(done: object) -> dict:
    """The done body: a message with text, and (if any) a summary whose numbers make sense."""
    message = _field(done, "message", dict, "the done event")
    _field(message, "content", str, "the reply's message")
    summary = done.get("summary")
    if summary is not None:
        covers = _field(summary, "covers", int, "the summary")
        _field(summary, "text", str, "the summary")
        if not isinstance(summary.get("signature"), (str, type(None))):
            raise BadReply("a summary whose signature is not text")
        kept = summary.get("kept", [])
        if covers < 0 or not isinstance(kept, list) or not all(
                isinstance(i, int) and 0 <= i < covers for i in kept):
            raise BadReply(f"a summary with impossible covers/kept: {str(summary)[:80]!r}")
    for key in ("history", "usage", "compaction"):
        if done.get(key) is not None and not isinstance(done[key], dict):
            raise BadReply(f"the done event's {key!r} is not an object")
    return done


class _Limit:
    """The token limit the client asked for, enforced on what arrives."""

    def __init__(self, body: dict):
        self.tokens = int(body.get("max_new_tokens") or body.get("max_tokens") or 4096)
        self.pieces = self.chars = 0

    def take(self, piece: str) -> str:
        self.pieces += 1
        self.chars += len(piece)
        if self.pieces > self.tokens + 8 or self.chars > self.tokens * CHARS_PER_TOKEN:
            raise BadReply(f"the reply runs past the {self.tokens} tokens asked for")
        return piece


def native_chat(base: str, body: dict, api_key: str | None,
                timeout: float = 600) -> Iterator[tuple[str, object]]:
    """Yield ("delta", text) pieces, then ("done", the reply's body)."""
    limit = _Limit(body)
    with _post(base.rstrip("/") + "/api/chat", {**body, "stream": True}, api_key, timeout) as resp, \
            _reading(resp, timeout) as dog:
        for name, data in _events(resp, dog):
            if name == "delta":
                yield "delta", limit.take(_field(_json(data), "content", str, "a delta event"))
            elif name == "done":
                yield "done", _check_done(_json(data))
                return
            elif name == "error":
                error = _field(_json(data), "error", dict, "an error event")
                status = error.get("status")
                raise ServerError(status if isinstance(status, int) else 503,
                                  str(error.get("message") or "server error"))
    raise Unreachable("the connection closed before the reply finished")


def openai_chat(base: str, body: dict, api_key: str | None,
                timeout: float = 600) -> Iterator[tuple[str, object]]:
    """The same over ``/v1/chat/completions``; the done body is shaped like the native one."""
    url = base.rstrip("/")
    url = url + ("/chat/completions" if url.endswith("/v1") else "/v1/chat/completions")
    text, finish, usage, extra = "", None, None, None
    limit = _Limit(body)
    with _post(url, {**body, "stream": True, "stream_options": {"include_usage": True}},
               api_key, timeout) as resp, _reading(resp, timeout) as dog:
        for _name, data in _events(resp, dog):
            if data == "[DONE]":
                yield "done", {"message": {"role": "assistant", "content": text},
                               "finish_reason": finish, "usage": usage,
                               "history": (extra or {}).get("history")}
                return
            chunk = _json(data)
            if not isinstance(chunk, dict):
                raise BadReply(f"a chunk that is not an object: {data[:80]!r}")
            if "error" in chunk:
                error = chunk["error"] if isinstance(chunk["error"], dict) else {}
                raise ServerError(503, str(error.get("message") or "server error"))
            usage = chunk.get("usage") if isinstance(chunk.get("usage"), dict) else usage
            extra = chunk.get("mnemo") if isinstance(chunk.get("mnemo"), dict) else extra
            choices = chunk.get("choices") or []
            if not isinstance(choices, list):
                raise BadReply(f"choices is not a list: {data[:80]!r}")
            for choice in choices:
                delta = choice.get("delta") if isinstance(choice, dict) else None
                piece = delta.get("content") if isinstance(delta, dict) else None
                if piece is not None and not isinstance(piece, str):
                    raise BadReply(f"a delta whose content is not text: {data[:80]!r}")
                if piece:
                    text += limit.take(piece)
                    yield "delta", piece
                reason = choice.get("finish_reason") if isinstance(choice, dict) else None
                finish = reason if isinstance(reason, str) else finish
    raise Unreachable("the connection closed before the reply finished")


def _get(url: str, api_key: str | None) -> object:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with _OPENER.open(urllib.request.Request(url, headers=headers), timeout=30) as r:
            return json.loads(r.read(MAX_LINE))
    except urllib.error.HTTPError as err:
        raise _server_error(err) from None
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise Unreachable(f"cannot reach {url}: {getattr(err, 'reason', err)}") from None


def first_model(base: str, api_key: str | None) -> str:
    url = base.rstrip("/")
    listing = _get(url + ("/models" if url.endswith("/v1") else "/v1/models"), api_key)
    try:
        model = listing["data"][0]["id"]
    except (KeyError, IndexError, TypeError):
        raise BadReply(f"no model in the server's model list: {str(listing)[:80]!r}") from None
    if not isinstance(model, str):
        raise BadReply(f"a model id that is not text: {model!r}")
    return model


def config(base: str, api_key: str | None) -> dict:
    """Mnemo's ``/api/config``: its limits, presets and adapters."""
    return _get(base.rstrip("/") + "/api/config", api_key)
