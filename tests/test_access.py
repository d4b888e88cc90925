"""Metrics, API keys, rate limits, CORS and security headers."""

from __future__ import annotations

import json

import pytest

from api import create_app
from tests.conftest import tiny_config, wait_ready
from tests.helpers import wait_for

HELLO = {"messages": [{"role": "user", "content": "hi"}], "max_new_tokens": 3}


def metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{name} missing from metrics")


def test_metrics_count_requests_tokens_and_drops(client):
    before = client.get("/metrics").get_data(as_text=True)
    history = [{"role": "user", "content": f"q{i}"} if i % 2 == 0 else {"role": "assistant", "content": "a"}
               for i in range(25)]
    body = client.post("/api/chat", json={"messages": history, "max_new_tokens": 3,
                                          "recall": False}).get_json()  # max_turns drops
    after = client.get("/metrics").get_data(as_text=True)
    assert 'mnemo_requests_total{route="/api/chat",status="200"}' in after
    grew = metric(after, "mnemo_completion_tokens_total") - metric(before, "mnemo_completion_tokens_total")
    assert grew == body["usage"]["completion_tokens"]
    dropped = (metric(after, "mnemo_history_messages_dropped_total")
               - metric(before, "mnemo_history_messages_dropped_total"))
    assert dropped == body["history"]["dropped"] == 6
    assert metric(after, "mnemo_time_to_first_token_seconds_count") > metric(
        before, "mnemo_time_to_first_token_seconds_count")
    assert "mnemo_queue_depth 0" in after


@pytest.fixture(scope="module")
def guarded(tiny_dir, lora_dir, tmp_path_factory):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, api_keys=("k-one", "k-two"),
                                 rate_limit_per_minute=3, cors_origins=("https://app.example",)))
    wait_ready(app)
    return app


def test_api_keys_guard_every_generation_route_but_not_health(guarded):
    c = guarded.test_client()
    for path in ("/api/chat", "/api/chat/preview", "/v1/chat/completions"):
        resp = c.post(path, json=HELLO)
        assert resp.status_code == 401 and resp.headers["WWW-Authenticate"] == "Bearer"
    assert c.get("/api/config").status_code == 401
    assert c.get("/v1/models").get_json()["error"]["type"] == "authentication_error"
    assert c.get("/healthz").status_code == 200 and c.get("/readyz").status_code == 200
    ok = c.post("/api/chat", json=HELLO, headers={"Authorization": "Bearer k-two"})
    assert ok.status_code == 200


def test_rate_limit_answers_429_with_retry_after(guarded):
    c = guarded.test_client()
    auth = {"Authorization": "Bearer k-one"}
    codes = [c.get("/api/config", headers=auth).status_code for _ in range(5)]
    assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
    resp = c.get("/api/config", headers=auth)
    assert int(resp.headers["Retry-After"]) >= 1 and resp.get_json()["error"]["code"] == "rate_limited"


def test_cors_and_security_headers(guarded):
    c = guarded.test_client()
    pre = c.options("/v1/chat/completions", headers={"Origin": "https://app.example",
                                                      "Access-Control-Request-Method": "POST"})
    assert pre.status_code == 204
    assert pre.headers["Access-Control-Allow-Origin"] == "https://app.example"
    other = c.get("/healthz", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    for resp in (other, c.get("/"), c.get("/nope")):
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert resp.headers["Referrer-Policy"] == "no-referrer"
        assert "script-src 'self'" in resp.headers["Content-Security-Policy"]


def test_access_log_is_json_without_message_content(client, caplog):
    secret = "my secret diary entry"
    with caplog.at_level("INFO", logger="mnemo.access"):
        client.post("/api/chat", json={"messages": [{"role": "user", "content": secret}],
                                       "max_new_tokens": 2})
    lines = [r.getMessage() for r in caplog.records if r.name == "mnemo.access"]
    entry = json.loads(lines[-1])
    assert entry["path"] == "/api/chat" and entry["status"] == 200 and entry["ms"] >= 0
    assert all(secret not in line for line in lines)


def test_access_lines_are_off_unless_asked_for(tiny_dir, lora_dir, tmp_path_factory, caplog):
    import logging

    from tests.conftest import tiny_config, wait_ready

    for on in (False, True):
        app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, access_log=on))
        wait_ready(app)
        app.extensions["engine"].stop()
        assert logging.getLogger("mnemo.access").isEnabledFor(logging.INFO) is on
    logging.getLogger("mnemo.access").setLevel(logging.WARNING)


def test_readyz_is_503_json_when_the_model_cannot_load(tmp_path):
    app = create_app({"model": str(tmp_path), "warmup": False})  # a directory with no model
    engine = app.extensions["engine"]
    assert wait_for(lambda: engine.load_error)
    c = app.test_client()
    assert c.get("/healthz").status_code == 200
    resp = c.get("/readyz")
    assert resp.status_code == 503 and resp.headers["Retry-After"] == "5"
    assert resp.get_json()["error"]["code"] == "not_ready"
    assert "failed to load" in resp.get_json()["error"]["message"]
    chat = c.post("/api/chat", json=HELLO)
    assert chat.status_code == 503 and chat.get_json()["error"]["code"] == "not_ready"


def test_the_page_has_an_icon_where_browsers_look(client):
    page = client.get("/").get_data(as_text=True)
    assert '<link rel="icon" href="/static/favicon.svg"' in page
    for path in ("/favicon.ico", "/static/favicon.svg"):
        icon = client.get(path)
        assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
        assert icon.get_data(as_text=True).startswith("<svg")
