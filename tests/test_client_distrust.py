"""The terminal client against servers that cannot be trusted: each is a scripted HTTP server on
loopback, and the client (``scripts/chat`` as a user runs it, or its transport) must end every
reply with one line of error, the message marked failed, nothing sent elsewhere, bounded memory
and time."""

from __future__ import annotations

import http.server
import json
import threading
import time

import pytest

from client import transport
from client.store import Store
from tests.test_chat_client import chat, saved


class Scripted:
    """A server whose every POST answers with ``respond(handler)``; it records what it got."""

    def __init__(self, respond):
        self.requests: list[dict] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                outer.requests.append({"path": self.path, "headers": dict(self.headers),
                                       "body": self.rfile.read(length)})
                respond(self)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def scripted():
    made = []

    def make(respond):
        made.append(Scripted(respond))
        return made[-1]

    yield make
    for server in made:
        server.close()


def events(handler, chunks, *, pause: float = 0.0) -> bool:
    """An event stream: each chunk (bytes) sent as it is, after ``pause`` seconds; whether
    the client took it all."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Connection", "close")
    handler.end_headers()
    try:
        for chunk in chunks:
            handler.wfile.write(chunk)
            handler.wfile.flush()
            time.sleep(pause)
    except OSError:  # the client hung up, as it should
        return False
    return True


def sse(name: str, data) -> bytes:
    return f"event: {name}\ndata: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode()


def one_line_failure(run, tmp_path, expect: str):
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert expect in run.stderr, run.stderr
    user = saved(tmp_path)["messages"][0]
    assert user["status"] == "failed" and expect in user["error"]  # /retry resends it


def test_a_redirect_is_never_followed_and_the_key_never_leaves(scripted, tmp_path):
    elsewhere = scripted(lambda h: events(h, [sse("done", {"message": {"content": "hi"}})]))

    def redirect(h):
        h.send_response(302)
        h.send_header("Location", elsewhere.url + "/api/chat")
        h.send_header("Content-Length", "0")
        h.end_headers()

    origin = scripted(redirect)
    run = chat(origin.url, tmp_path, "-c", "demo", "--api-key", "secret-key-0123456789abcdef",
               text="Hello")
    one_line_failure(run, tmp_path, "redirected to")
    assert origin.requests and not elsewhere.requests


@pytest.mark.parametrize(("stream", "expect"), [
    ([sse("delta", "{not json")], "not JSON"),
    ([sse("delta", {"content": 5})], "delta event"),
    ([sse("delta", {"content": "Hi"}), sse("done", {})], "done event"),
    ([sse("done", {"message": {"content": 7}})], "reply's message"),
    ([sse("done", {"message": {"content": "ok"},
                   "summary": {"text": "s", "covers": 1, "kept": [99]}})], "impossible covers"),
    ([sse("done", {"message": {"content": "ok"},
                   "summary": {"text": "s", "covers": 40, "kept": []}})], "summary covering"),
    ([sse("error", {"error": "boom"})], "error event"),
    ([b"data: " + b"x" * (transport.MAX_LINE + 10) + b"\n\n"], "longer than"),
    ([sse("delta", {"content": "ab"}) for _ in range(200)], "runs past the 5 tokens"),
])
def test_every_malformed_reply_is_one_line_and_a_failed_message(scripted, tmp_path, stream,
                                                                expect):
    server = scripted(lambda h: events(h, stream))
    run = chat(server.url, tmp_path, "-c", "demo", "--max-tokens", "5", text="Hello")
    one_line_failure(run, tmp_path, expect)


def test_a_trickling_server_times_out(scripted):
    # The server sends for 125 s: the client gives up long before, and hangs up.
    finished, hung_up = threading.Event(), threading.Event()

    def trickle(h):
        (finished if events(h, [b"e", b"v", b"e", b"n", b"t"] * 50, pause=0.5) else hung_up).set()

    server = scripted(trickle)
    with pytest.raises(transport.Unreachable, match="did not finish within 2 s"):
        list(transport.native_chat(server.url, {"messages": [], "max_new_tokens": 5}, None,
                                   timeout=2))
    assert not finished.is_set() and hung_up.wait(60)


def test_headers_sent_a_byte_at_a_time_time_out_too(scripted):
    finished = threading.Event()  # the headers take 30 s: the client gives up long before

    def slow_headers(h):
        try:
            for line in (b"HTTP/1.1 200 OK\r\n", b"X-A: 1\r\n", b"X-B: 2\r\n") * 20:
                h.wfile.write(line)
                h.wfile.flush()
                time.sleep(0.5)
            finished.set()
        except OSError:
            pass

    server = scripted(slow_headers)
    with pytest.raises(transport.Unreachable, match="within 2 s"):
        list(transport.native_chat(server.url, {"messages": [], "max_new_tokens": 5}, None,
                                   timeout=2))
    assert not finished.is_set()


def test_an_endless_error_body_is_read_only_so_far(scripted):
    def huge_error(h):
        h.send_response(500)
        h.send_header("Content-Type", "application/json")
        h.end_headers()
        try:
            h.wfile.write(b'{"error": {"message": "' + b"x" * (8 * transport.MAX_LINE))
        except OSError:
            pass

    server = scripted(huge_error)
    with pytest.raises(transport.ServerError) as info:
        list(transport.native_chat(server.url, {"messages": [], "max_new_tokens": 5}, None,
                                   timeout=10))
    assert info.value.status == 500 and len(info.value.message) < 100


def test_a_server_cannot_send_terminal_commands(scripted, tmp_path):
    evil = "Hi\x1b]0;PWNED-TITLE\x07\x1b[2J\x1b]52;c;cGF5bG9hZA==\x07 there"
    server = scripted(lambda h: events(h, [sse("delta", {"content": evil}),
                                           sse("done", {"message": {"content": evil}})]))
    run = chat(server.url, tmp_path, "-c", "demo", "--max-tokens", "50", text="Hello")
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout and "\x07" not in run.stdout
    assert "PWNED-TITLE" in run.stdout and "there" in run.stdout  # shown as text, harmless
    assert saved(tmp_path)["messages"][1]["content"] == evil  # the file keeps what came


def test_imports_are_checked_before_anything_is_written(tmp_path):
    store = Store(tmp_path / "store")
    base = {"id": "c1", "title": "t", "settings": {}}
    cases = {
        "cycle": [{"id": "a", "role": "user", "content": "x", "parent": "b"},
                  {"id": "b", "role": "assistant", "content": "y", "parent": "a"}],
        "self": [{"id": "a", "role": "user", "content": "x", "parent": "a"}],
        "content": [{"id": "a", "role": "user", "content": {"text": "x"}, "parent": None}],
        "role": [{"id": "a", "role": "root", "content": "x", "parent": None}],
        "orphan": [{"id": "a", "role": "user", "content": "x", "parent": "zz"}],
        "twice": [{"id": "a", "role": "user", "content": "x", "parent": None},
                  {"id": "a", "role": "assistant", "content": "y", "parent": "a"}],
    }
    fine = [{"id": "a", "role": "user", "content": "x", "parent": None}]
    conversations = {name: {**base, "messages": messages} for name, messages in cases.items()}
    conversations.update({
        "settings": {**base, "settings": "oops", "messages": fine},
        "setting-type": {**base, "settings": {"max_new_tokens": "many"}, "messages": fine},
        "summary": {**base, "summary": {"text": 5}, "messages": fine},
        "kept": {**base, "summary": {"text": "s", "kept_ids": [3]}, "messages": fine},
        "title": {**base, "title": ["t"], "messages": fine},
    })
    for name, conv in conversations.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(conv))
        with pytest.raises(ValueError, match="not a Mnemo conversation"):
            store.import_file(path)
    assert store.names() == []
