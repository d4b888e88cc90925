"""HTTP only: stream a chat from Mnemo's native API or any OpenAI-compatible server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator


class ServerError(Exception):
    """The server answered with an error: ``status``, its message, and ``Retry-After``."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


class Unreachable(Exception):
    """No answer at all: the server is down, or the connection dropped."""


def _post(url: str, body: dict, api_key: str | None, timeout: float):
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        return urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as err:
        raise _server_error(err) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise Unreachable(f"cannot reach {url}: {reason}") from None


def _server_error(err: urllib.error.HTTPError) -> ServerError:
    message = f"HTTP {err.code}"
    try:
        payload = json.loads(err.read())
        message = payload["error"]["message"] or message
    except (ValueError, KeyError, TypeError, OSError):
        pass
    retry = err.headers.get("Retry-After")
    try:
        retry_after = float(retry) if retry is not None else None
    except ValueError:
        retry_after = None
    return ServerError(err.code, message, retry_after)


def _events(resp) -> Iterator[tuple[str | None, str]]:
    """(event name, data) pairs of a server-sent event stream."""
    name, data = None, []
    try:
        for raw in resp:
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line:
                if data:
                    yield name, "\n".join(data)
                name, data = None, []
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
    except (OSError, ValueError) as err:  # a reset, or a chunked body cut short
        raise Unreachable(f"the connection dropped mid-reply: {err}") from None


def native_chat(base: str, body: dict, api_key: str | None,
                timeout: float = 600) -> Iterator[tuple[str, object]]:
    """Yield ("delta", text) pieces, then ("done", the reply's body)."""
    with _post(base.rstrip("/") + "/api/chat", {**body, "stream": True}, api_key, timeout) as resp:
        for name, data in _events(resp):
            if name == "delta":
                yield "delta", json.loads(data)["content"]
            elif name == "done":
                yield "done", json.loads(data)
                return
            elif name == "error":
                error = json.loads(data)["error"]
                raise ServerError(error.get("status", 503), error["message"])
    raise Unreachable("the connection closed before the reply finished")


def openai_chat(base: str, body: dict, api_key: str | None,
                timeout: float = 600) -> Iterator[tuple[str, object]]:
    """The same over ``/v1/chat/completions``; the done body is shaped like the native one."""
    url = base.rstrip("/")
    url = url + ("/chat/completions" if url.endswith("/v1") else "/v1/chat/completions")
    text, finish, usage, extra = "", None, None, None
    with _post(url, {**body, "stream": True, "stream_options": {"include_usage": True}},
               api_key, timeout) as resp:
        for _name, data in _events(resp):
            if data == "[DONE]":
                yield "done", {"message": {"role": "assistant", "content": text},
                               "finish_reason": finish, "usage": usage,
                               "history": (extra or {}).get("history")}
                return
            chunk = json.loads(data)
            if "error" in chunk:
                raise ServerError(503, chunk["error"].get("message", "server error"))
            usage = chunk.get("usage") or usage
            extra = chunk.get("mnemo") or extra
            for choice in chunk.get("choices", []):
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    text += piece
                    yield "delta", piece
                finish = choice.get("finish_reason") or finish
    raise Unreachable("the connection closed before the reply finished")


def _get(url: str, api_key: str | None) -> object:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as err:
        raise _server_error(err) from None
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise Unreachable(f"cannot reach {url}: {getattr(err, 'reason', err)}") from None


def first_model(base: str, api_key: str | None) -> str:
    url = base.rstrip("/")
    return _get(url + ("/models" if url.endswith("/v1") else "/v1/models"), api_key)["data"][0]["id"]


def config(base: str, api_key: str | None) -> dict:
    """Mnemo's ``/api/config``: its limits, presets and adapters."""
    return _get(base.rstrip("/") + "/api/config", api_key)
