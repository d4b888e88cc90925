"""Every bad input gets the JSON error shape with the field path, and the server keeps serving."""

from __future__ import annotations

import pytest

from api import create_app
from tests.conftest import tiny_config, wait_ready

OK = {"messages": [{"role": "user", "content": "hi"}], "max_new_tokens": 4}


def assert_error(resp, status, code, field=None):
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.is_json
    err = resp.get_json()["error"]
    assert err["code"] == code and err["status"] == status and err["message"]
    assert "Traceback" not in resp.get_data(as_text=True)
    if field:
        assert field in err["fields"], err
        assert field in err["message"]
    return err


def still_serving(client):
    resp = client.post("/api/chat", json=OK)
    assert resp.status_code == 200 and resp.get_json()["finish_reason"] in ("stop", "length")


@pytest.mark.parametrize("body, field", [
    ({"messages": "hello"}, "messages"),
    ({}, "messages"),
    ({"messages": []}, "messages"),
    ({"messages": [{"role": "user", "content": ""}]}, "messages.0.content"),
    ({"messages": [{"role": "user", "content": "   "}]}, "messages.0.content"),
    # whitespace as the contract's pattern (\S, ECMA-262) reads it: the BOM and NBSP included
    ({"messages": [{"role": "user", "content": "\ufeff\u00a0\u2028\u3000\t"}]}, "messages.0.content"),
    ({"messages": [{"role": "user", "content": 5}]}, "messages.0.content"),
    ({"messages": [{"role": "robot", "content": "hi"}]}, "messages.0.role"),
    ({"messages": [{"role": "system", "content": "hi"}]}, "messages.0.role"),
    ({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}, "messages"),
    ({"messages": [{"role": "user", "content": "hi", "name": "x"}]}, "messages.0.name"),
    ({**OK, "colour": "blue"}, "colour"),
    ({"messages": [{"role": "user", "content": "x"}] * 51}, "messages"),
    ({"messages": [{"role": "user", "content": "x" * 2001}]}, "messages.0.content"),
    ({**OK, "temperature": 0.7}, "temperature"),
    ({**OK, "top_p": 0.9}, "top_p"),
    ({**OK, "do_sample": True, "top_p": 1.5}, "top_p"),
    ({**OK, "do_sample": True, "top_p": 0}, "top_p"),
    ({**OK, "num_beams": 0}, "num_beams"),
    ({**OK, "num_beams": 2, "do_sample": True}, "num_beams"),
    ({**OK, "length_penalty": 2.0}, "length_penalty"),
    ({**OK, "max_new_tokens": 0}, "max_new_tokens"),
    ({**OK, "max_new_tokens": 65}, "max_new_tokens"),
    ({**OK, "max_new_tokens": "8"}, "max_new_tokens"),
    # JSON types are kept: no truthy numbers, boolean integers or numeric strings (schemathesis)
    ({**OK, "stream": 0}, "stream"),
    ({**OK, "do_sample": "yes"}, "do_sample"),
    ({**OK, "max_new_tokens": True}, "max_new_tokens"),
    ({**OK, "do_sample": True, "temperature": "0.5"}, "temperature"),
    ({**OK, "stop": ["a", "b", "c", "d", "e"]}, "stop"),
    ({**OK, "template": "pirate"}, "template"),
    ({**OK, "max_turns": 0}, "max_turns"),
])
def test_invalid_requests_name_the_field(client, body, field):
    assert_error(client.post("/api/chat", json=body), 400, "validation_error", field)
    assert_error(client.post("/api/chat/preview", json=body), 400, "validation_error", field)


def test_body_must_be_an_object(client):
    assert_error(client.post("/api/chat", json=[1, 2]), 400, "validation_error")


def test_malformed_json(client):
    err = assert_error(client.post("/api/chat", data="{nope", content_type="application/json"),
                       400, "validation_error")
    assert "not valid JSON" in err["message"]


def test_invalid_utf8(client):
    assert_error(client.post("/api/chat", data=b'{"messages": "\xff\xfe"}',
                             content_type="application/json"), 400, "validation_error")


def test_deeply_nested_json(client):
    body = '{"messages": ' + "[" * 30_000 + "]" * 30_000 + "}"  # under the 64 kB body limit
    err = assert_error(client.post("/api/chat", data=body, content_type="application/json"),
                       400, "validation_error")
    assert "nested too deeply" in err["message"]


def test_wrong_content_type(client):
    assert_error(client.post("/api/chat", data="hello", content_type="text/plain"),
                 415, "unsupported_media_type")


def test_oversized_body(client):
    body = {"messages": [{"role": "user", "content": "x" * 70_000}]}
    assert_error(client.post("/api/chat", json=body), 413, "request_too_large")


def test_unknown_route_and_wrong_method(client):
    assert_error(client.get("/api/nothing"), 404, "not_found")
    err = client.get("/api/chat")
    assert_error(err, 405, "method_not_allowed")
    assert "POST" in err.headers["Allow"]


def test_unknown_adapter_names_the_known_ones(client):
    err = assert_error(client.post("/api/chat", json={**OK, "adapter": "nope"}), 400,
                       "unknown_adapter", field="adapter")
    assert "shouty" in err["message"]


def test_an_error_raised_below_the_api_names_its_field_on_both_surfaces():
    """The engine knows no field names; the API's table says which field each error is about,
    in each surface's spelling."""
    from api.errors import error_body
    from api.exceptions import OutputUnsatisfiable, UnknownAdapter

    cut = OutputUnsatisfiable("no token can continue the reply; simplify the schema.")
    assert error_body(cut, openai=False)["error"]["fields"] == {"response_format": [cut.message]}
    assert error_body(cut, openai=True)["error"]["param"] == "response_format"
    gone = UnknownAdapter("The adapter 'x' was just unloaded.")
    assert error_body(gone, openai=False)["error"]["fields"] == {"adapter": [gone.message]}
    assert error_body(gone, openai=True)["error"]["param"] == "model"


def test_context_too_long(tiny_dir, lora_dir, tmp_path_factory):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, context_window=64))
    wait_ready(app)
    body = {"messages": [{"role": "user", "content": "word " * 60}], "max_new_tokens": 8}
    err = assert_error(app.test_client().post("/api/chat", json=body), 400, "context_length_exceeded")
    assert "56" in err["message"]  # the budget: 64 less 8 reserved for the reply
    assert "Shorten the latest message" in err["message"]
    # When something else is what does not fit, the error names it, not the latest message.
    short = [{"role": "user", "content": "Hi"}]
    err = assert_error(app.test_client().post("/api/chat", json={
        "messages": short, "max_new_tokens": 8, "system": "rule " * 60}), 400,
        "context_length_exceeded")
    assert "Shorten the system prompt" in err["message"]
    # The output budget itself is what leaves no room: the error says how many new tokens fit.
    err = assert_error(app.test_client().post("/api/chat", json={
        "messages": short, "max_new_tokens": 60}), 400, "context_length_exceeded")
    assert "max_new_tokens reserves 60" in err["message"] and "ask for at most" in err["message"]
    err = assert_error(app.test_client().post("/api/chat", json={
        "messages": [short[0], {"role": "assistant", "content": "Hello"}, short[0]],
        "max_new_tokens": 8, "summary": {"text": "fact " * 60, "covers": 2}}), 400,
        "context_length_exceeded")
    assert "Shorten the summary" in err["message"]
    # Continuing a reply: the output budget is what does not fit, and the error says so.
    err = assert_error(app.test_client().post("/api/chat", json={
        "messages": [short[0], {"role": "assistant", "content": "word " * 20}],
        "max_new_tokens": 60, "continue": True}), 400, "context_length_exceeded")
    assert "ask for at most" in err["message"] and "max_new_tokens (60)" in err["message"]


def test_internal_error_is_json_without_traceback(tiny_dir, lora_dir, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("FLASK_DEBUG", "1")  # debug cannot be switched on from the environment
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory))
    assert app.debug is False

    @app.get("/__boom")
    def boom():
        raise RuntimeError("secret internals")

    resp = app.test_client().get("/__boom")
    assert_error(resp, 500, "internal_error")
    assert "secret internals" not in resp.get_data(as_text=True)


def test_server_keeps_serving_after_errors(client):
    for _ in range(3):
        client.post("/api/chat", data="{", content_type="application/json")
        client.post("/api/chat", json={"messages": []})
    still_serving(client)
