"""Hostile and careless clients: bodies that cost nothing to refuse, errors that are always
JSON, throttled guessing, bounded limiter memory, tenants that cannot see each other's cache,
and workers that exit cleanly."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest
import torch

from api.engine.prefix_cache import PrefixCache
from api.security import RateLimiter
from tests.conftest import run_gunicorn, tiny_live
from tests.helpers import post_json, tokenizer_of, user, wait_for


def raw_http(url: str, request: bytes, timeout: float = 30) -> tuple[int, dict, bytes]:
    """Send bytes as they are; return (status, headers, body) of the answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


@pytest.fixture(scope="module")
def big_live(tiny_dir, lora_dir, tmp_path_factory):
    with tiny_live(tiny_dir, lora_dir, tmp_path_factory, max_request_bytes=1_048_576,
                   max_messages=2000, default_max_new_tokens=8, max_new_tokens_limit=64,
                   api_keys=("k1", "k2"), rate_limit_per_minute=600) as server:
        yield server


def send(server, path, body, key="k1", method="POST"):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        if method == "POST":
            resp = post_json(server.url + path, body, headers)
        else:
            resp = urllib.request.urlopen(urllib.request.Request(server.url + path,
                                                                 headers=headers), timeout=30)
        with resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_a_megabyte_of_empty_messages_is_refused_at_once_with_a_small_body(big_live, monkeypatch):
    """Refused on the count of values, before any message is validated (validating them took
    15 s and answered 42.8 MB): the request schema never sees such a body."""
    schemas = big_live.app.extensions["schemas"]
    validated = []
    real = schemas.load_chat
    monkeypatch.setattr(schemas, "load_chat", lambda body: (validated.append(1), real(body))[1])
    body = {"messages": [{}] * 250_000}  # 1 MB of JSON, just under the size limit
    status, _headers, payload = send(big_live, "/api/chat", body)
    assert status == 400 and len(payload) < 2_000
    assert "more than 24200 values" in json.loads(payload)["error"]["message"]
    assert validated == []
    # Within the count, every item invalid: the answer lists 20 problems and counts the rest.
    status, _h, payload = send(big_live, "/api/chat", {"messages": [{}] * 2000})
    error = json.loads(payload)["error"]
    assert status == 400 and len(error["fields"]) == 21 and len(payload) < 10_000
    assert "more invalid fields" in error["fields"]["body"][0]
    assert validated == [1]
    # Any list counts, not only messages; and field names are echoed only in part.
    kept = {"messages": [user("hi")], "summary": {"text": "x", "covers": 0, "kept": [[]] * 250_000}}
    status, _h, payload = send(big_live, "/api/chat", kept)
    assert status == 400 and len(payload) < 2_000 and validated == [1]
    names = {"messages": [user("hi")], **{f"{'x' * 40_000}{i}": 1 for i in range(20)}}
    status, _h, payload = send(big_live, "/api/chat", names)
    assert status == 400 and len(payload) < 10_000


@pytest.mark.parametrize(("path", "body", "param"), [
    ("/api/chat", {"messages": [user("hi")], "num_beams": 2, "length_penalty": 200},
     "length_penalty"),
    ("/v1/chat/completions", {"model": "x", "messages": [user("hi")], "temperature": 0.5,
                              "seed": 2**70}, "seed"),
    ("/api/chat", {"messages": [user("hi")], "do_sample": True, "seed": 2**64}, "seed"),
])
def test_numbers_that_would_overflow_in_the_model_are_400s(big_live, path, body, param):
    status, _h, payload = send(big_live, path, body)
    assert status == 400, payload
    assert param in payload.decode()


def test_doubled_slashes_and_trailing_slashes_are_json_404s_not_redirects(big_live):
    for path in ("/api//config", "/api/chat//preview", "/v1//models"):
        status, headers, payload = send(big_live, path, None, method="GET")
        assert status == 404 and headers["Content-Type"] == "application/json", path
        assert json.loads(payload)["error"]["code"] == "not_found"
    status, headers, _payload = send(big_live, "/api/config/", None, method="GET")
    assert status == 200 and headers["Content-Type"] == "application/json"  # served, not 308


def from_address(server, source: str, path: str, key: str) -> tuple[int, dict]:
    """GET ``path`` from another loopback address (its own failed-auth budget)."""
    import http.client

    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {key}"})
        resp = conn.getresponse()
        resp.read()
        return resp.status, dict(resp.getheaders())
    finally:
        conn.close()


def test_bearer_scheme_is_case_insensitive_and_guessing_is_throttled(big_live, monkeypatch):
    # The failed-guess budget refills one every 3 s: its clock stands still for the test, so how
    # long the 25 guesses take decides nothing.
    failures = big_live.app.extensions["limiters"]["failed_auth"]
    stopped = failures.clock()
    monkeypatch.setattr(failures, "clock", lambda: stopped)
    assert send(big_live, "/api/config", None, key=None, method="GET")[0] == 401
    req = urllib.request.Request(big_live.url + "/api/config", headers={"Authorization": "bearer k2"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert resp.status == 200
    guesses = [from_address(big_live, "127.0.0.2", "/api/config", f"guess{i}") for i in range(25)]
    codes = [status for status, _h in guesses]
    assert codes[:20] == [401] * 20 and set(codes[20:]) == {429}
    assert int(guesses[-1][1]["Retry-After"]) >= 1
    # Past its budget an address is refused before any key is compared: even the right key
    # gets nowhere from there for now, so guessing cannot go on at full speed.
    assert from_address(big_live, "127.0.0.2", "/api/config", "k1")[0] == 429
    assert from_address(big_live, "127.0.0.3", "/api/config", "k1")[0] == 200  # others unaffected


def test_cors_allows_the_headers_the_official_sdks_send(tiny_dir, lora_dir, tmp_path_factory):
    with tiny_live(tiny_dir, lora_dir, tmp_path_factory,
                   cors_origins=("https://app.example",)) as server:
        asked = "authorization, content-type, x-stainless-os, x-stainless-retry-count, x-evil"
        req = urllib.request.Request(server.url + "/v1/chat/completions", method="OPTIONS",
                                     headers={"Origin": "https://app.example",
                                              "Access-Control-Request-Method": "POST",
                                              "Access-Control-Request-Headers": asked})
        with urllib.request.urlopen(req, timeout=30) as resp:
            allowed = resp.headers["Access-Control-Allow-Headers"].split(", ")
        assert resp.status == 204
        assert {"x-stainless-os", "x-stainless-retry-count", "authorization"} <= set(allowed)
        assert "x-evil" not in allowed


def test_metrics_have_their_own_key_and_no_rate_limit(tiny_dir, lora_dir, tmp_path_factory):
    with tiny_live(tiny_dir, lora_dir, tmp_path_factory, api_keys=("client",),
                   metrics_keys=("scraper",), rate_limit_per_minute=2) as server:
        for _ in range(6):  # a scraper far above the clients' rate limit
            assert send(server, "/metrics", None, key="scraper", method="GET")[0] == 200
        assert send(server, "/metrics", None, key="client", method="GET")[0] == 401
        assert send(server, "/api/config", None, key="scraper", method="GET")[0] == 401
        assert [send(server, "/api/config", None, key="client", method="GET")[0]
                for _ in range(3)] == [200, 200, 429]


def test_recall_embeddings_are_cached_per_tenant(monkeypatch):
    from api.memory.recall import Recall

    recall = Recall()
    monkeypatch.setattr(recall, "_load", lambda: setattr(recall, "_model", object()))
    embedded = []
    monkeypatch.setattr(recall, "_embed", lambda texts: (embedded.extend(texts),
                                                         torch.ones(len(texts), 4))[1])
    recall.embed(["q", "private text"], tenant="key:0")
    recall.embed(["q", "private text"], tenant="key:1")  # another key: computed again
    recall.embed(["q", "private text"], tenant="key:0")  # its own: cached
    assert embedded.count("private text") == 2
    flood = Recall(cache_size=10)
    monkeypatch.setattr(flood, "_load", lambda: setattr(flood, "_model", object()))
    monkeypatch.setattr(flood, "_embed", recall._embed)
    flood.embed(["q", "private text"], tenant="key:0")
    flood.embed(["q", *(f"flood {i}" for i in range(100))], tenant="key:1")
    embedded.clear()
    flood.embed(["q", "private text"], tenant="key:0")  # another key's flood evicted nothing
    assert embedded == []
    for cache in flood._caches.values():  # each kept row holds its own storage, not its batch's
        assert all(v.untyped_storage().nbytes() == v.numel() * v.element_size()
                   for v in cache.values())


def test_rate_limiter_forgets_idle_clients():
    clock = {"now": 1000.0}
    limiter = RateLimiter(60, max_clients=500, clock=lambda: clock["now"])
    for i in range(1000):  # a flood of addresses: the hard cap holds
        limiter.take(f"10.0.{i // 256}.{i % 256}")
    assert len(limiter) == 500
    clock["now"] += 61  # a minute idle: every bucket would be full again
    limiter.take("fresh")
    assert len(limiter) == 1


def test_tenants_never_share_or_take_each_others_cache(big_live):
    scheduler = big_live.app.extensions["engine"].scheduler
    secret = "You are the assistant of Project Nightjar. " * 20
    body = {"messages": [user("hello")], "system": secret, "max_new_tokens": 2}
    assert send(big_live, "/api/chat", body, key="k1")[0] == 200
    hits = scheduler.prefix.hits
    assert send(big_live, "/api/chat", body, key="k2")[0] == 200  # the right guess, other key
    assert scheduler.prefix.hits == hits  # no reuse across keys: no timing to read
    assert send(big_live, "/api/chat", body, key="k1")[0] == 200
    assert scheduler.prefix.hits == hits + 1  # within one key, as before


def test_a_forwarded_address_never_names_a_tenant(tiny_dir, lora_dir, tmp_path_factory):
    """With keys off every client shares the one scope of the caches (None): an address, which
    X-Forwarded-For may name, must not make caches of its own (one per made-up address)."""
    with tiny_live(tiny_dir, lora_dir, tmp_path_factory, proxy_hops=1) as server:
        for forged in ("key:0", "key:attacker-1", "key:attacker-2"):
            req = urllib.request.Request(
                server.url + "/api/chat/preview", method="POST",
                data=json.dumps({"messages": [user(f"hello from {forged}")]}).encode(),
                headers={"Content-Type": "application/json", "X-Forwarded-For": forged})
            with urllib.request.urlopen(req, timeout=30) as resp:
                assert resp.status == 200
        assert list(tokenizer_of(server.app).prompts._tokens._entries) == [None]


def test_one_tenant_cannot_evict_another_below_a_fair_share():
    from tests.test_kvbuffer import row

    size = row(10).nbytes
    cache = PrefixCache(size * 4)
    cache.store(("k1", None), list(range(10)), row(10))
    for start in range(1, 8):  # k2 stores many entries
        cache.store(("k2", None), [100 * start + i for i in range(10)], row(10))
    held = cache.bytes_by_tenant()
    assert held["k1"] == size and held["k2"] == 3 * size
    assert cache.lookup(("k1", None), list(range(10)) + [5])[0] == 10  # still there


def test_chunked_bodies_over_the_limit_or_malformed_get_json_errors(tiny_dir, tmp_path):
    with run_gunicorn(tiny_dir, tmp_path, MNEMO_MAX_REQUEST_BYTES="2000") as (_proc, url):
        big = json.dumps({"messages": [user("x" * 3000)]}).encode()
        chunked = b"".join(b"%x\r\n%s\r\n" % (len(big[i:i + 500]), big[i:i + 500])
                           for i in range(0, len(big), 500)) + b"0\r\n\r\n"
        head = (b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        status, headers, payload = raw_http(url, head + chunked)
        assert status == 413 and headers["Content-Type"] == "application/json"
        assert json.loads(payload)["error"]["code"] == "request_too_large"
        status, headers, payload = raw_http(url, head + b"zz\r\n{}\r\n0\r\n\r\n")
        assert status == 400 and headers["Content-Type"] == "application/json"
        assert "chunked" in json.loads(payload)["error"]["message"]
        ok = json.dumps({"messages": [user("hi")], "max_new_tokens": 2}).encode()
        status, _h, _b = raw_http(url, head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(ok), ok))
        assert status == 200


def test_ten_sigterms_during_streams_exit_cleanly(smol_dir, tmp_path):
    """The default model, as in production: without stopping the generation thread first, a
    worker aborted at exit in 1 of 3 tries here (and 2 of 2 in the issue)."""
    with run_gunicorn(smol_dir, tmp_path, MNEMO_GRACEFUL_TIMEOUT="20") as (proc, url):
        import subprocess

        def worker_pid() -> int:
            out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
            return int(out.stdout.split()[0])

        def stream(started: threading.Event) -> None:
            # short replies: each is still generating when SIGTERM lands (after the first
            # event of both), and the drain that follows is brief
            resp = post_json(url + "/api/chat", {"messages": [user("tell me a story")],
                                                 "max_new_tokens": 16, "stream": True})
            resp.readline()  # its first event: the reply is being generated
            started.set()
            resp.read()

        for _ in range(10):
            pid = worker_pid()
            started = [threading.Event() for _ in range(2)]
            streams = [threading.Thread(target=stream, args=(e,)) for e in started]
            for t in streams:
                t.start()
            for e in started:  # SIGTERM while both generate
                assert e.wait(60)
            os.kill(pid, signal.SIGTERM)
            for t in streams:
                t.join(timeout=30)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # the master starts a new worker
                try:
                    if worker_pid() != pid and urllib.request.urlopen(url + "/readyz",
                                                                      timeout=2).status == 200:
                        break
                except (OSError, IndexError):
                    pass
                time.sleep(0.2)
    log = (tmp_path / "gunicorn.log").read_text()
    assert log.count("Worker exiting") >= 10
    assert "terminate called" not in log and "SIGABRT" not in log


def test_under_gunicorn_a_non_streamed_beam_search_ends_when_its_client_leaves(smol_dir, tmp_path):
    """As deployed: gunicorn's socket is watched the same way (the default model's 4 beams
    over 400 tokens take far longer than the check allows)."""
    def metric(url, name) -> int:
        text = urllib.request.urlopen(url + "/metrics", timeout=30).read().decode()
        return int(next(line.split()[1] for line in text.splitlines()
                        if line.startswith(name + " ")))

    def active(url) -> int:
        return metric(url, "mnemo_active_sequences")

    with run_gunicorn(smol_dir, tmp_path) as (_proc, url):
        host, port = url.removeprefix("http://").split(":")
        conn = socket.create_connection((host, int(port)))
        payload = json.dumps({"messages": [user("Tell me a long story.")], "num_beams": 4,
                              "max_new_tokens": 400}).encode()
        conn.sendall(b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload))
        assert wait_for(lambda: active(url) == 1, every=0.1)  # admitted, its prompt built
        steps = metric(url, "mnemo_decode_steps_total")
        conn.close()
        assert wait_for(lambda: active(url) == 0, every=0.1)
        # ended by the client's leaving (checked every half second): a few steps, not 400
        assert metric(url, "mnemo_decode_steps_total") - steps < 100


def test_a_thread_count_in_which_429_could_never_trigger_is_refused_at_start():
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {**os.environ, "MNEMO_MAX_BATCH_SIZE": "16", "MNEMO_MAX_QUEUE": "64",
           "MNEMO_THREADS": "32"}
    run = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py",
                          "--check-config", "wsgi:app"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "32 threads (MNEMO_THREADS or --threads) must be at least" in \
        run.stderr + run.stdout
    del env["MNEMO_THREADS"]
    env["MNEMO_MAX_QUEUE"] = "abc"
    run = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py",
                          "--check-config", "wsgi:app"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert "MNEMO_MAX_QUEUE: must be an integer" in run.stderr + run.stdout
    assert "Traceback" not in run.stderr + run.stdout
    env["MNEMO_MAX_QUEUE"] = "64"
    env["MNEMO_THREADS"] = "82"
    run = subprocess.run([sys.executable, "-c", "import runpy; print(runpy.run_path("
                          "'gunicorn.conf.py')['threads'])"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "82"
    del env["MNEMO_THREADS"]
    run = subprocess.run([sys.executable, "-c", "import runpy; print(runpy.run_path("
                          "'gunicorn.conf.py')['threads'])"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "96"  # 16 + 64 in flight, 16 spare


@pytest.mark.parametrize("path, body", [
    ("/api/chat", {"messages": [user("Tell me a long story.")], "num_beams": 4,
                   "max_new_tokens": 500}),
    ("/api/chat", {"messages": [user("Tell me a long story.")], "max_new_tokens": 500}),
    ("/v1/chat/completions", {"messages": [user("Tell me a long story.")], "max_tokens": 500}),
    ("/v1/chat/completions", {"messages": [user("Tell me a long story.")], "max_tokens": 500,
                              "n": 2, "temperature": 0.8, "stream": True}),
    ("/api/chat", {"messages": [user("Tell me a long story.")], "num_beams": 4,
                   "max_new_tokens": 500, "stream": True}),
    ("/v1/completions", {"prompt": "Tell me a long story.", "max_tokens": 500}),
    ("/v1/completions", {"prompt": "Tell me a long story.", "max_tokens": 500, "stream": True}),
], ids=["beams", "greedy", "openai", "openai-n2-streamed", "beams-streamed", "completions",
        "completions-streamed"])
def test_a_reply_ends_when_its_client_leaves(tiny_dir, lora_dir, tmp_path_factory,
                                            monkeypatch, path, body):
    """Nothing is written to a non-streamed reply's client until the reply ends (nor to a
    streamed beam search's), so the server watches the connection: a client that leaves
    cancels the generation, every row of it."""
    from tests.helpers import wrap_forward

    with tiny_live(tiny_dir, lora_dir, tmp_path_factory, generation_timeout=60.0,
                   max_new_tokens_limit=512) as server:
        steps: list[int] = []  # running to the end takes 500 (10 s or more)
        wrap_forward(monkeypatch, server.app, lambda n: (steps.append(n), time.sleep(0.02)))
        engine = server.app.extensions["engine"]
        scheduler = engine.scheduler
        if path.startswith("/v1"):
            body = {**body, "model": engine.model_id}
        host, port = server.url.removeprefix("http://").split(":")
        conn = socket.create_connection((host, int(port)))
        payload = json.dumps(body).encode()
        conn.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (path.encode(), len(payload), payload))
        assert wait_for(lambda: scheduler.active >= 1)  # generating, and far from done
        conn.close()
        assert wait_for(lambda: scheduler.active == 0)
        assert len(steps) < 500  # ended by the client's leaving, not by its length
        with post_json(server.url + "/api/chat", {"messages": [user("hi")],
                                                  "max_new_tokens": 2}) as resp:
            assert json.load(resp)["message"]["role"] == "assistant"


def test_beam_search_ends_at_the_deadline_and_when_its_client_leaves(tiny_dir, lora_dir,
                                                                     tmp_path_factory,
                                                                     monkeypatch):
    from tests.helpers import wrap_forward

    beams = {"messages": [user("Tell me a long story.")], "num_beams": 4, "max_new_tokens": 500}
    # What ends the beams is told by how many steps ran, not by a clock: running to the end
    # takes 500 forward passes (10 s or more), a deadline or a leaving client far fewer.
    steps: list[int] = []
    with tiny_live(tiny_dir, lora_dir, tmp_path_factory, generation_timeout=1.0,
                   max_new_tokens_limit=512, default_max_new_tokens=8) as server:
        wrap_forward(monkeypatch, server.app, lambda n: (steps.append(n), time.sleep(0.02)))
        with post_json(server.url + "/api/chat", beams) as resp:
            body = json.load(resp)
        assert body["finish_reason"] == "length" and 0 < len(steps) < 500
    with tiny_live(tiny_dir, lora_dir, tmp_path_factory, generation_timeout=60.0,
                   max_new_tokens_limit=512, default_max_new_tokens=8) as server:
        steps.clear()
        wrap_forward(monkeypatch, server.app, lambda n: (steps.append(n), time.sleep(0.02)))
        # A client that leaves: its beams stop, and the next request is not kept waiting.
        host, port = server.url.removeprefix("http://").split(":")
        conn = socket.create_connection((host, int(port)))
        payload = json.dumps({**beams, "stream": True}).encode()
        conn.sendall(b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload))
        assert wait_for(lambda: steps)  # the beams are running
        conn.close()
        with post_json(server.url + "/api/chat", {"messages": [user("hi")],
                                                  "max_new_tokens": 2}) as resp:
            assert json.load(resp)["message"]["role"] == "assistant"
        assert len(steps) < 500  # answered long before the beams could have finished
        assert wait_for(lambda: server.app.extensions["engine"].scheduler.active == 0)
        assert len(steps) < 500  # and the beams ended with their client


def test_client_gone_reads_the_socket_without_consuming_it():
    """A connection that is open (idle, or with a pipelined request waiting) is not gone, even
    on a descriptor select() refuses (1,024 and above); a closed or reset one is."""
    import resource

    from api.service import client_gone

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = 1 << 20 if hard == resource.RLIM_INFINITY else hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(2048, ceiling), hard))
    listener = socket.create_server(("127.0.0.1", 0))

    def tcp_pair() -> tuple[socket.socket, socket.socket]:
        client = socket.create_connection(listener.getsockname())
        return listener.accept()[0], client

    server, client = tcp_pair()
    high = socket.socket(fileno=os.dup2(server.fileno(), min(1500, ceiling - 1)))
    try:
        for sock in (server, high):
            assert not client_gone({"gunicorn.socket": sock})
        client.sendall(b"GET / HTTP/1.1\r\n")  # pipelined: still there, and nothing read
        assert not client_gone({"werkzeug.socket": high})
        assert server.recv(64) == b"GET / HTTP/1.1\r\n"
        client.close()
        time.sleep(0.05)
        assert client_gone({"gunicorn.socket": server}) and client_gone({"werkzeug.socket": high})
        # gone behind bytes nobody read (a pipelined request, then the client left)
        server2, client2 = tcp_pair()
        client2.sendall(b"X")
        client2.close()
        time.sleep(0.05)  # loopback delivers the FIN at once; leave it a moment anyway
        assert client_gone({"gunicorn.socket": server2})
        server2.close()
    finally:
        high.close()
        server.close()
        listener.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert not client_gone({})  # no socket to watch: never cancelled for it
