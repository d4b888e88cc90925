"""gunicorn started for real with the production config and the real default model: it drains
on SIGTERM (the stream finishes, new requests get a JSON 503), and 100 concurrent streams
against a queue of 8 get only 200s and 429s."""

from __future__ import annotations

import http.client
import json
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest

from tests.conftest import run_gunicorn as gunicorn
from tests.helpers import parse_sse, post_json, user, wait_for

pytestmark = pytest.mark.slow  # gunicorn processes


def error_of(url: str, body: dict | None = None) -> tuple[int, dict, dict]:
    try:
        if body is None:
            urllib.request.urlopen(url, timeout=10)
        else:
            post_json(url, body, timeout=10)
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.load(err)
    raise AssertionError(f"{url} answered 2xx")


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def test_sigterm_finishes_the_stream_and_refuses_new_requests_with_503(smol_dir, tmp_path):
    # The stream is given all the time it needs (a loaded machine decodes it slower than the
    # 30 s the other starts allow): what is tested is that it finishes, not how fast.
    with gunicorn(smol_dir, tmp_path, MNEMO_GRACEFUL_TIMEOUT="300") as (proc, url):
        with urllib.request.urlopen(url + "/api/config", timeout=10) as resp:
            assert json.load(resp)["context_window"] == 8192
        body = {"messages": [user("Write a long essay about Rome.")], "max_new_tokens": 120,
                "stream": True}
        # The real model decodes ~20 tokens/s here: SIGTERM lands early in a multi-second stream.
        with post_json(url + "/api/chat", body) as resp:
            first = resp.readline()
            assert first.startswith(b"event: ")
            proc.send_signal(signal.SIGTERM)
            sent_at = time.monotonic()
            assert wait_for(lambda: status_of(url + "/readyz") == 503)  # the worker has it
            status, headers, err = error_of(url + "/api/chat", {"messages": [user("Hi")]})
            assert status == 503 and err["error"]["code"] == "shutting_down"
            assert headers["Retry-After"] == "1"
            status, _, err = error_of(url + "/v1/chat/completions",
                                      {"model": "x", "messages": [user("Hi")]})
            assert status == 503 and err["error"]["type"] == "server_error"
            assert error_of(url + "/readyz")[0] == 503  # load balancers take the host out
            with urllib.request.urlopen(url + "/healthz", timeout=10) as alive:
                assert alive.status == 200
            rest = resp.read().decode()
            drained_for = time.monotonic() - sent_at
        events = parse_sse(first.decode() + rest)
        assert drained_for > 0.5  # the stream really was still running when SIGTERM arrived
        assert events[-1][0] == "done"
        assert events[-1][1]["finish_reason"] in ("stop", "length")
        assert proc.wait(timeout=60) == 0


def test_a_stream_still_running_at_the_graceful_timeout_ends_with_an_error_event(smol_dir, tmp_path):
    """gunicorn's master kills a worker once graceful_timeout has passed; the worker ends what
    is still running a little before, so a stream too long for the drain ends with an error
    event the client can act on, never cut off mid-chunk, and the worker exits cleanly."""
    with gunicorn(smol_dir, tmp_path, MNEMO_GRACEFUL_TIMEOUT="4") as (proc, url):
        body = {"messages": [user("Write a long essay about the history of Rome.")],
                "max_new_tokens": 1024, "stream": True}
        with post_json(url + "/api/chat", body) as resp:
            first = resp.readline()
            assert first.startswith(b"event: ")
            proc.send_signal(signal.SIGTERM)
            events = parse_sse(first.decode() + resp.read().decode())
        assert proc.wait(timeout=60) == 0
    assert events[-1][0] == "error", events[-3:]
    assert events[-1][1]["error"]["code"] == "generation_failed"
    assert "shutting down" in events[-1][1]["error"]["message"]
    assert sum(name == "delta" for name, _ in events) > 1  # it was cut while generating


def stream_once(port: int, body: bytes) -> tuple[int, str, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", "/api/chat", body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read().decode(), dict(resp.getheaders())
    finally:
        conn.close()


def test_100_concurrent_streams_with_a_queue_of_8_get_only_200_or_429(smol_dir, tmp_path):
    with gunicorn(smol_dir, tmp_path, MNEMO_MAX_BATCH_SIZE="4", MNEMO_MAX_QUEUE="8") as (proc, url):
        port = int(url.rsplit(":", 1)[1])
        hello = {"messages": [user("Name three rivers.")], "max_new_tokens": 12}
        with post_json(url + "/api/chat", hello) as resp:
            expected = json.load(resp)["message"]["content"]
        body = json.dumps({**hello, "stream": True}).encode()
        results, failures = [], []
        start = threading.Barrier(100)

        def client():
            start.wait()
            try:
                results.append(stream_once(port, body))
            except Exception as exc:  # a reset or a timeout: exactly what must not happen
                failures.append(repr(exc))

        threads = [threading.Thread(target=client) for _ in range(100)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert failures == [] and len(results) == 100
        statuses = [status for status, _, _ in results]
        assert set(statuses) <= {200, 429}, statuses
        assert statuses.count(429) > 0 and statuses.count(200) >= 12  # 4 running + 8 queued
        for status, text, headers in results:
            if status == 429:
                assert json.loads(text)["error"]["code"] == "overloaded"
                assert int(headers["Retry-After"]) >= 1
            else:  # every accepted stream is whole, and is this conversation's own answer
                events = parse_sse(text)
                assert events[-1][0] == "done"
                assert "".join(e[1]["content"] for e in events if e[0] == "delta") == expected
        # Healthy afterwards, and the next request gets the same answer.
        with post_json(url + "/api/chat", hello) as resp:
            assert json.load(resp)["message"]["content"] == expected


def test_the_ready_line_names_the_address_gunicorn_listens_on(tiny_dir, tmp_path):
    """Bound to port 0 (the system picks one), the start's last line is a URL that answers;
    gunicorn's control socket, whose default path every gunicorn of the user shares, is not
    made."""
    import os
    import re
    import subprocess
    import sys

    from tests.conftest import ROOT

    runtime = tmp_path / "run"  # where gunicorn puts its control socket by default
    runtime.mkdir()
    env = {**os.environ, "MNEMO_MODEL": str(tiny_dir), "MNEMO_BIND": "127.0.0.1:0",
           "MNEMO_CACHE_DIR": str(tmp_path), "MNEMO_ADAPTERS": "", "XDG_RUNTIME_DIR": str(runtime)}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        seen = []
        for line in proc.stdout:  # ends if the server dies before it is ready
            seen.append(line)
            found = re.search(r"ready: open (http://127\.0\.0\.1:(\d+)/) \(model ", line)
            if found:
                break
        assert found, "".join(seen)
        assert found.group(2) != "0"
        with urllib.request.urlopen(found.group(1) + "readyz", timeout=10) as resp:
            assert resp.status == 200
        assert list(runtime.iterdir()) == []
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
