"""End to end on the real default model (SmolLM2-135M-Instruct) over real HTTP."""

from __future__ import annotations

import json
import urllib.request

import openai
import pytest

from tests.helpers import assistant, parse_sse, user

pytestmark = pytest.mark.slow  # the default model


def post(live, path, body):
    req = urllib.request.Request(live.url + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as resp:
        return resp.status, resp.read().decode()


def ask(live, messages, **extra):
    """Greedy, so that what the model knows is checked on one reproducible reply."""
    status, text = post(live, "/api/chat", {"messages": messages, "max_new_tokens": 40,
                                            "do_sample": False, **extra})
    assert status == 200
    return json.loads(text)


def test_capital_of_france(default_live):
    body = ask(default_live, [user("What is the capital of France?")])
    assert "Paris" in body["message"]["content"]


def test_answer_uses_a_fact_from_an_earlier_turn(default_live):
    history = [user("My name is Alice."), assistant("Nice to meet you, Alice!"),
               user("What is my name?")]
    with_history = ask(default_live, history)
    assert "Alice" in with_history["message"]["content"]
    assert with_history["history"]["used"] == 3 and with_history["history"]["dropped"] == 0
    without = ask(default_live, [user("What is my name?")])
    assert "Alice" not in without["message"]["content"]


def test_system_persona_changes_the_answer(default_live):
    persona = ask(default_live, [user("What is your name?")],
                  system="Your name is Zorblax, a robot from Mars.")
    plain = ask(default_live, [user("What is your name?")])
    assert "Zorblax" in persona["message"]["content"]
    assert "Zorblax" not in plain["message"]["content"]


def test_chinese_streaming_never_splits_characters(default_live):
    status, text = post(default_live, "/api/chat", {
        "messages": [user("请用中文介绍一下北京。")], "max_new_tokens": 40, "stream": True,
        "do_sample": False})
    events = parse_sse(text)
    deltas = [d["content"] for name, d in events if name == "delta"]
    done = events[-1][1]
    assert all("\ufffd" not in d for d in deltas)
    assert "".join(deltas) == done["message"]["content"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in done["message"]["content"])


def test_without_sampling_parameters_the_model_card_settings_apply(default_live):
    """The embedded model ships no generation_config: its card's settings (temperature 0.2,
    top-p 0.9) apply to a request that names none, on both APIs, instead of greedy loops
    (native) or OpenAI's temperature 1 (the SDK), which gave noise from this model."""
    generation = json.loads(urllib.request.urlopen(default_live.url + "/api/config").read())[
        "presets"]["default"]["generation"]
    assert generation["do_sample"] is True
    assert (generation["temperature"], generation["top_p"]) == (0.2, 0.9)
    sdk = openai.OpenAI(base_url=default_live.url + "/v1", api_key="unused", max_retries=0)
    questions = ["What is the capital of Italy?", "Name three fruits.",
                 "How many days are in a week?", "What colour is the sky on a clear day?"]
    for question in questions:
        reply = sdk.chat.completions.create(
            model="SmolLM2-135M-Instruct", messages=[user(question)], max_tokens=40)
        text = reply.choices[0].message.content
        # readable: the question's script, not the noise of sampling at 1
        latin = sum(ch.isascii() for ch in text)
        assert text.strip() and latin >= 0.95 * len(text), text
