"""The official openai package drives Mnemo over real HTTP, changing only base_url."""

from __future__ import annotations

import json
import socket
import time

import openai
import pytest

from tests.helpers import post_json, sleep_each_step, tokenizer_of, user, wrap_forward

MODEL = "tiny"


def test_models_lists_base_and_adapters(sdk, model_id):
    models = sdk.models.list().data
    assert [m.id for m in models] == [model_id, "shouty"]
    assert models[1].model_extra["parent"] == model_id


def test_each_listed_model_can_be_retrieved_and_an_unknown_one_is_a_404(sdk, model_id):
    for listed in sdk.models.list().data:
        assert sdk.models.retrieve(listed.id) == listed
    with pytest.raises(openai.NotFoundError) as info:
        sdk.models.retrieve("org/no-such-model")
    assert info.value.body["code"] == "model_not_found" and info.value.body["param"] == "model"
    assert "org/no-such-model" in info.value.body["message"]


def test_non_streaming(sdk, model_id):
    r = sdk.chat.completions.create(model=model_id, messages=[user("Hello!")], max_tokens=8,
                                    temperature=0)
    assert r.object == "chat.completion" and r.id.startswith("chatcmpl-")
    assert r.choices[0].message.role == "assistant" and r.choices[0].finish_reason in ("stop", "length")
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens
    assert r.model_extra["mnemo"]["history"]["dropped"] == 0


def test_streaming_with_usage_equals_non_streaming(sdk, model_id):
    kwargs = dict(model=model_id, messages=[{"role": "system", "content": "Be brief."},
                                            user("Tell me about rivers.")],
                  max_completion_tokens=16, temperature=0)
    whole = sdk.chat.completions.create(**kwargs)
    chunks = list(sdk.chat.completions.create(**kwargs, stream=True,
                                              stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(finals) == 1 and finals[0].choices[0].finish_reason == whole.choices[0].finish_reason
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == whole.usage.total_tokens


def test_stop_sequences(sdk, model_id):
    kwargs = dict(model=model_id, messages=[user("Count for me.")], max_tokens=20, temperature=0)
    full = sdk.chat.completions.create(**kwargs).choices[0].message.content
    stop = full[4:7]
    cut = sdk.chat.completions.create(**kwargs, stop=stop).choices[0]
    assert cut.finish_reason == "stop" and cut.message.content == full[:full.index(stop)]


def test_adapter_chosen_by_model(sdk, model_id):
    kwargs = dict(messages=[user("Hello!")], max_tokens=12, temperature=0)
    base = sdk.chat.completions.create(model=model_id, **kwargs)
    adapted = sdk.chat.completions.create(model="shouty", **kwargs)
    assert adapted.model == "shouty"
    assert adapted.choices[0].message.content != base.choices[0].message.content


def test_seeded_sampling(sdk, model_id):
    kwargs = dict(model=model_id, messages=[user("Hi")], max_tokens=10, temperature=1.3, top_p=0.95)
    a = sdk.chat.completions.create(seed=5, **kwargs).choices[0].message.content
    b = sdk.chat.completions.create(seed=5, **kwargs).choices[0].message.content
    assert a == b


def test_presence_and_frequency_penalties_are_the_native_apis(sdk, model_id, live):
    """The SDK's penalties reach the engine as the native API's do: the same greedy reply."""
    messages = [user("Say something about penalties and repeated words words words.")]
    plain = sdk.chat.completions.create(model=model_id, messages=messages, max_tokens=16,
                                        temperature=0).choices[0].message.content
    for penalties in ({"frequency_penalty": 1.5}, {"presence_penalty": 2, "frequency_penalty": -0.5}):
        got = sdk.chat.completions.create(model=model_id, messages=messages, max_tokens=16,
                                          temperature=0, **penalties).choices[0].message.content
        native = post_json(live.url + "/api/chat", {"messages": messages, "max_new_tokens": 16,
                                                     "recall": False, "compact": False, **penalties})
        assert got == json.load(native)["message"]["content"] and got != plain


def test_the_echo_guard_is_the_native_apis_through_the_extension(sdk, model_id, live):
    """``mnemo.echo_penalty`` sets the native API's echo guard (1 turns a preset's or model's
    default off): the same greedy reply as the native API with the same value."""
    messages = [user("Say something about penalties and repeated words words words.")]
    plain = sdk.chat.completions.create(model=model_id, messages=messages, max_tokens=16,
                                        temperature=0).choices[0].message.content
    got = sdk.chat.completions.create(model=model_id, messages=messages, max_tokens=16,
                                      temperature=0, extra_body={"mnemo": {"echo_penalty": 3.0}})
    native = post_json(live.url + "/api/chat", {"messages": messages, "max_new_tokens": 16,
                                                 "echo_penalty": 3.0})
    text = got.choices[0].message.content
    assert text == json.load(native)["message"]["content"] and text != plain
    with pytest.raises(openai.BadRequestError) as info:
        sdk.chat.completions.create(model=model_id, messages=messages, max_tokens=4,
                                    extra_body={"mnemo": {"echo_penalty": 0}})
    assert "echo_penalty" in str(info.value)


@pytest.mark.parametrize("kwargs, param", [
    ({"n": 9}, "n"),  # above this app's MNEMO_MAX_BATCH_SIZE
    ({"presence_penalty": 2.5}, "presence_penalty"),  # OpenAI's range is -2 to 2
    ({"frequency_penalty": -3}, "frequency_penalty"),
    ({"tools": [{"type": "function", "function": {"name": "f", "parameters": []}}]}, "tools"),
    ({"response_format": {"type": "json_schema", "json_schema": {  # not enforceable here
        "name": "x", "schema": {"type": "array", "uniqueItems": True}}}}, "response_format"),
    ({"logit_bias": {"50256": -100}}, "logit_bias"),  # its message once crashed str.format
    ({"temperature": 3}, "temperature"),
    ({"max_tokens": 0}, "max_tokens"),
    # a choice that makes them meaningless: greedy decoding ignores top_p and seed
    ({"temperature": 0, "top_p": 0.5}, "top_p"),
    ({"temperature": 0, "seed": 3}, "seed"),
    ({"response_format": {"type": "text", "json_schema": {"name": "x", "schema": {}}}},
     "response_format"),
])
def test_unsupported_parameters_raise_bad_request(sdk, model_id, kwargs, param):
    with pytest.raises(openai.BadRequestError) as info:
        sdk.chat.completions.create(model=model_id, messages=[user("hi")], **kwargs)
    assert info.value.body["param"] == param and info.value.body["type"] == "invalid_request_error"


def test_parameters_that_change_nothing_under_greedy_decoding_are_accepted(sdk, model_id):
    kwargs = dict(model=model_id, messages=[user("Hi")], max_tokens=6, temperature=0)
    plain = sdk.chat.completions.create(**kwargs).choices[0].message.content
    assert sdk.chat.completions.create(top_p=1, **kwargs).choices[0].message.content == plain
    text = sdk.chat.completions.create(response_format={"type": "text"}, **kwargs)
    assert text.choices[0].message.content == plain


def test_fields_that_change_nothing_here_are_accepted(sdk, model_id):
    kwargs = dict(model=model_id, messages=[user("Hi")], max_tokens=6, temperature=0)
    plain = sdk.chat.completions.create(**kwargs).choices[0].message.content
    reply = sdk.chat.completions.create(
        store=False, metadata={"job": "nightly"}, service_tier="auto", reasoning_effort="low",
        parallel_tool_calls=False, **kwargs)
    assert reply.choices[0].message.content == plain
    with pytest.raises(openai.BadRequestError) as info:  # still checked
        sdk.chat.completions.create(service_tier="gold", **kwargs)
    assert info.value.body["param"] == "service_tier"


def test_unknown_model_is_not_found(sdk):
    with pytest.raises(openai.NotFoundError) as info:
        sdk.chat.completions.create(model="gpt-9", messages=[user("hi")])
    assert info.value.body["code"] == "model_not_found"


def test_context_overflow_trims_or_refuses(sdk, model_id):
    history = []
    for i in range(20):
        history += [user(f"Message {i}: " + "lorem ipsum " * 20), {"role": "assistant", "content": "ok " * 8}]
    history.append(user("last"))
    raw = sdk.chat.completions.with_raw_response.create(model=model_id, messages=history,
                                                        max_tokens=8, temperature=0)
    dropped = int(raw.headers["X-Mnemo-History-Dropped"])
    assert dropped > 0 and raw.parse().model_extra["mnemo"]["history"]["dropped"] == dropped
    with pytest.raises(openai.BadRequestError) as info:
        sdk.chat.completions.create(model=model_id, messages=history, max_tokens=8,
                                    extra_body={"truncation": "disabled"})
    assert info.value.body["code"] == "context_length_exceeded"


def test_overload_is_rate_limit_error(sdk, model_id, app):
    from api.types import SamplingParams

    engine = app.extensions["engine"]
    ids = tokenizer_of(engine).build_prompt([user("x")], system=None, max_new_tokens=60, max_turns=None).ids
    handles = [engine.submit(ids, SamplingParams(max_new_tokens=60), None) for _ in range(8)]
    try:
        with pytest.raises(openai.RateLimitError):
            sdk.chat.completions.create(model=model_id, messages=[user("hi")], max_tokens=4)
    finally:
        for h in handles:
            h.cancel()
        for h in handles:
            list(h)


def test_disconnect_mid_stream_stops_generation(live, app, model_id, monkeypatch):
    engine = app.extensions["engine"]
    restore = wrap_forward(monkeypatch, app, sleep_each_step(0.05))  # the stream outlives the client
    body = json.dumps({"model": model_id, "messages": [user("Write forever.")], "max_tokens": 64,
                       "temperature": 0, "stream": True}).encode()
    sock = socket.create_connection(("127.0.0.1", int(live.url.rsplit(":", 1)[1])), timeout=30)
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    assert b"200" in sock.recv(4096).split(b"\r\n")[0]
    steps = engine.scheduler.steps
    sock.close()
    deadline = time.monotonic() + 60
    while engine.scheduler._inflight and time.monotonic() < deadline:
        time.sleep(0.01)
    assert engine.scheduler._inflight == 0
    # Stopped well before its 64 tokens: the handler finds the closed socket at its next writes
    # (40 steps leave it 2 s for that, however loaded the machine).
    assert engine.scheduler.steps - steps < 40
    restore()
    # The worker is free: the next request is served promptly and correctly.
    sdk = openai.OpenAI(base_url=live.url + "/v1", api_key="x", max_retries=0, timeout=10)
    reply = sdk.chat.completions.create(model=model_id, messages=[user("Hi")], max_tokens=4, temperature=0)
    assert reply.choices[0].finish_reason in ("stop", "length")
