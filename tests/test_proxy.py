"""The production shape: Debian's nginx with deploy/nginx-mnemo.conf in front of real gunicorn.

Slow clients that trickle their headers hold gunicorn's request threads when they reach it
directly (the probes then time out); through nginx they hold only nginx connections, and the
probes answer. nginx's own errors are JSON, and streams pass through unbuffered.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from http import HTTPStatus

import pytest

from tests.conftest import ROOT, free_port, run_gunicorn
from tests.helpers import parse_sse, post_json, user, wait_for
from tests.test_hardening import raw_http

pytestmark = pytest.mark.slow  # gunicorn and nginx processes


@contextlib.contextmanager
def nginx_in_front(upstream: str, tmp_path):
    """deploy/nginx-mnemo.conf in front of ``upstream`` (host:port, or several, space-separated)."""
    port = free_port()
    site = (ROOT / "deploy" / "nginx-mnemo.conf").read_text()
    servers = "".join(f"server {u}; " for u in upstream.split())
    site = site.replace("server 127.0.0.1:8000;", servers)
    site = site.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    with run_nginx(site, port, tmp_path) as url:
        yield url


@contextlib.contextmanager
def run_nginx(site: str, port: int, tmp_path):
    """Debian's nginx serving the server block(s) ``site`` on ``port``, its files in tmp_path."""
    (tmp_path / "mnemo.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(f"""
user root;
worker_processes 1;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {tmp_path}/body;
    proxy_temp_path {tmp_path}/proxy;
    include {tmp_path}/mnemo.conf;
}}
""")
    proc = subprocess.Popen(["/usr/sbin/nginx", "-p", str(tmp_path), "-c",
                             str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
                            stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:  # nginx listens (the upstream may be down on purpose)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(proc.stderr.read().decode()) from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def slow_clients(url: str, n: int, stop: threading.Event) -> list[socket.socket]:
    """``n`` connections that send a request line and then one header byte a second."""
    host, port = url.removeprefix("http://").split(":")
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        socks.append(s)

    def trickle():
        while not stop.wait(1.0):
            for s in socks:
                with contextlib.suppress(OSError):
                    s.sendall(b"a")

    threading.Thread(target=trickle, daemon=True).start()
    return socks


def probe(url: str, timeout: float) -> int | None:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=timeout) as resp:
            return resp.status
    except (OSError, urllib.error.URLError):
        return None


@pytest.fixture(scope="module")
def stack(tiny_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("proxy")
    with run_gunicorn(tiny_dir, tmp, MNEMO_MAX_BATCH_SIZE="2", MNEMO_MAX_QUEUE="2",
                      MNEMO_PROXY_HOPS="1", MNEMO_MAX_REQUEST_BYTES="4000") as (_proc, direct):
        with nginx_in_front(direct.removeprefix("http://"), tmp) as proxied:
            yield direct, proxied


def test_slow_headers_starve_gunicorn_directly_but_not_through_nginx(stack):
    direct, proxied = stack
    stop = threading.Event()
    socks = []
    try:
        # 2 + 2 in flight + 16 spare threads = 20: 30 tricklers take them all.
        socks = slow_clients(direct, 30, stop)
        # The attack, without the proxy: once gunicorn has taken the tricklers in (however slowly
        # a loaded machine gets there), a probe is not answered.
        assert wait_for(lambda: probe(direct, timeout=3) is None)
        socks += slow_clients(proxied, 30, stop)
        time.sleep(1.5)
    finally:
        stop.set()
        for s in socks[:30]:
            s.close()
    try:
        assert probe(proxied, timeout=10) == 200  # through nginx: answered meanwhile
    finally:
        for s in socks[30:]:
            s.close()


def test_nginx_errors_are_json_and_streams_pass_unbuffered(stack):
    _direct, proxied = stack
    big = json.dumps({"messages": [user("x" * 2_000_000)]}).encode()
    try:
        post_json(proxied + "/api/chat", json.loads(big))
        raise AssertionError("a 2 MB body was accepted")
    except urllib.error.HTTPError as err:
        assert err.code == 413 and err.headers["Content-Type"] == "application/json"
        assert json.loads(err.read())["error"]["code"] == "request_too_large"
    status, headers, body = raw_http(proxied, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "
                                     + b"a" * 20_000 + b"\r\nConnection: close\r\n\r\n")
    assert status == 431 and headers["Content-Type"] == "application/json"
    assert json.loads(body)["error"]["code"] == "headers_too_large"
    for request, code in ((b"GET /api/%zz HTTP/1.1", 400), (b"GET /" + b"a" * 9000 + b" HTTP/1.1", 431),
                          (b"TRACE / HTTP/1.1", 405), (b"GET / HTTP/2.0", 505)):
        status, headers, body = raw_http(proxied, request + b"\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert status == code and headers["Content-Type"] == "application/json", request[:20]
        assert json.loads(body)["error"]["status"] == code
    # The app's own errors pass through untouched.
    try:
        post_json(proxied + "/api/chat", {"messages": []})
    except urllib.error.HTTPError as err:
        assert err.code == 400 and json.loads(err.read())["error"]["code"] == "validation_error"
    # A stream arrives in pieces, as it is generated.
    with post_json(proxied + "/api/chat", {"messages": [user("hi")], "stream": True,
                                           "max_new_tokens": 12}) as resp:
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        events = parse_sse(resp.read().decode())
    assert events[-1][0] == "done" and sum(1 for name, _ in events if name == "delta") >= 1


def test_gunicorns_own_errors_are_json_without_nginx(stack):
    """What gunicorn refuses before the app sees it answers in the native JSON shape, not
    gunicorn's HTML page; its detail, which quotes the request, is cut."""
    direct, _proxied = stack
    for request, code in (
            (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x", 414),  # request line > 8190
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000, 431),
            (b"G(T /healthz HTTP/1.1\r\nHost: x", 400),  # not a method's characters
            (b"GET /healthz HTTP/7.1\r\nHost: x", 400),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y", 400),
            (b"POST /api/chat HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: brotli", 501)):
        status, headers, body = raw_http(direct, request + b"\r\nConnection: close\r\n\r\n")
        assert status == code and headers["Content-Type"] == "application/json", (request[:30], body)
        error = json.loads(body)["error"]
        assert error["status"] == code and error["code"] and len(error["message"]) <= 200, error
        assert error["message"].startswith(HTTPStatus(code).phrase), error  # 501's too
    assert probe(direct, timeout=10) == 200  # and it goes on serving


def test_upstream_down_is_a_json_503(tiny_dir, tmp_path):
    with nginx_in_front(f"127.0.0.1:{free_port()}", tmp_path) as proxied:
        try:
            urllib.request.urlopen(proxied + "/api/config", timeout=10)
            raise AssertionError("no upstream, yet an answer")
        except urllib.error.HTTPError as err:
            assert err.code == 503 and err.headers["Retry-After"] == "5"
            assert json.loads(err.read())["error"]["code"] == "unavailable"
