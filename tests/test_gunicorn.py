"""gunicorn started for real with the production config: serves, and drains a stream on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import free_port, wait_http
from tests.helpers import parse_sse

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def gunicorn(smol_dir, tmp_path):
    port = free_port()
    env = {**os.environ, "MNEMO_MODEL": str(smol_dir), "MNEMO_BIND": f"127.0.0.1:{port}",
           "MNEMO_CACHE_DIR": str(tmp_path), "MNEMO_WARMUP": "true", "MNEMO_GRACEFUL_TIMEOUT": "30"}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/readyz", timeout=120)
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def test_gunicorn_serves_and_finishes_a_stream_on_sigterm(gunicorn):
    proc, url = gunicorn
    with urllib.request.urlopen(url + "/api/config", timeout=10) as resp:
        config = json.load(resp)
    assert config["context_window"] == 8192
    body = json.dumps({"messages": [{"role": "user", "content": "Write a long essay about Rome."}],
                       "max_new_tokens": 120, "stream": True}).encode()
    req = urllib.request.Request(url + "/api/chat", body, {"Content-Type": "application/json"})
    # The real model decodes ~20 tokens/s here: SIGTERM lands early in a multi-second stream.
    with urllib.request.urlopen(req, timeout=60) as resp:
        first = resp.readline()
        assert first.startswith(b"event: ")
        proc.send_signal(signal.SIGTERM)
        sent_at = time.monotonic()
        rest = resp.read().decode()
        drained_for = time.monotonic() - sent_at
    events = parse_sse(first.decode() + rest)
    assert drained_for > 0.5  # the stream really was still running when SIGTERM arrived
    assert events[-1][0] == "done"
    assert events[-1][1]["finish_reason"] in ("stop", "length")
    assert proc.wait(timeout=60) == 0
