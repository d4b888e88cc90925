"""Clients that vanish: 20 streams dropped mid-answer leave no generation, thread or handle behind."""

from __future__ import annotations

import gc
import json
import socket
import threading
import time
import weakref

import pytest

from tests.conftest import tiny_live
from tests.helpers import post_json, sleep_each_step, user, wait_for, wrap_forward


@pytest.fixture(scope="module")
def roomy(tiny_dir, lora_dir, tmp_path_factory):
    """Room for 20 concurrent streams, so every one is admitted and then abandoned."""
    with tiny_live(tiny_dir, lora_dir, tmp_path_factory, max_batch_size=4, max_queue=16,
                   default_max_new_tokens=16, max_new_tokens_limit=512) as server:
        yield server.app, server


def chat(url: str, body: dict) -> dict:
    with post_json(url + "/api/chat", body) as resp:
        return json.load(resp)


def open_and_drop(port: int, body: bytes, started: threading.Barrier) -> bytes:
    """Start a stream, read until its first delta, then disconnect."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    try:
        started.wait()
        sock.sendall(b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        seen = b""
        while b"event: delta" not in seen:
            chunk = sock.recv(4096)
            if not chunk:
                break
            seen += chunk
        return seen
    finally:
        sock.close()


def test_20_mid_stream_disconnects_leave_nothing_behind(roomy, monkeypatch):
    app, server = roomy
    sched = app.extensions["engine"].scheduler
    port = int(server.url.rsplit(":", 1)[1])
    restore = wrap_forward(monkeypatch, app, sleep_each_step(0.01))  # streams outlive clients
    body = json.dumps({"messages": [user("Write forever.")], "max_new_tokens": 500,
                       "stream": True}).encode()
    hello = {"messages": [user("Hi")], "max_new_tokens": 5}
    expected = chat(server.url, hello)["message"]
    submitted = []  # weak references to the handles of the abandoned streams
    real_submit = sched.submit

    def tracked_submit(request):
        handle = real_submit(request)
        submitted.append(weakref.ref(handle))
        return handle

    monkeypatch.setattr(sched, "submit", tracked_submit)
    threads_before = threading.active_count()
    for _round in range(2):  # a second round shows nothing accumulates
        # Room for exactly 20: the request before (``hello``) counts until the worker has
        # released it, which can come after its client has the whole reply (one 429 under load).
        assert wait_for(lambda: sched._inflight == 0)
        started = threading.Barrier(20)
        replies: list[bytes] = []
        clients = [threading.Thread(target=lambda r=replies, b=started: r.append(
            open_and_drop(port, body, b))) for _ in range(20)]
        steps = sched.steps
        for t in clients:
            t.start()
        for t in clients:
            t.join(timeout=60)
        refused = [r.split(b"\r\n\r\n", 1)[-1][:400] for r in replies
                   if not r.startswith(b"HTTP/1.1 200")]
        assert len(replies) == 20 and not refused, refused
        deadline = time.monotonic() + 60
        while (sched.active or sched.queue_depth or sched._inflight) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (sched.active, sched.queue_depth, sched._inflight) == (0, 0, 0)
        # Each of the 20 stopped soon after its client left: far fewer than 20 x 500 steps.
        assert sched.steps - steps < 500
    deadline = time.monotonic() + 60  # the server's request threads end once their client is gone
    while threading.active_count() > threads_before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= threads_before  # none left behind
    gc.collect()
    assert len(submitted) == 40 and all(ref() is None for ref in submitted)  # all freed
    assert app.extensions["drain"].inflight == 0
    restore()
    monkeypatch.setattr(sched, "submit", real_submit)
    # And the next request gets the same answer as before.
    assert chat(server.url, hello)["message"] == expected
