"""``n`` > 1 on /v1/chat/completions: several choices of one prompt, whose KV is computed once
and shared through the prefix cache; choice ``i`` samples with ``seed + i``."""

from __future__ import annotations

import json

import openai
import pytest

from tests.helpers import parse_sse, post_json, user


def test_choices_are_the_replies_their_seeds_give_alone(sdk, model_id):
    kwargs = dict(model=model_id, max_tokens=12, temperature=1.2)
    messages = [user("Choices, choices: tell me something new.")]
    many = sdk.chat.completions.create(messages=messages, n=3, seed=40, **kwargs)
    assert [c.index for c in many.choices] == [0, 1, 2]
    texts = [c.message.content for c in many.choices]
    alone = [sdk.chat.completions.create(messages=messages, seed=40 + i, **kwargs)
             for i in range(3)]
    assert texts == [a.choices[0].message.content for a in alone]
    assert len(set(texts)) > 1
    assert many.usage.prompt_tokens == alone[0].usage.prompt_tokens  # the prompt, counted once
    assert many.usage.completion_tokens == sum(a.usage.completion_tokens for a in alone)


def test_the_prompt_is_prefilled_once_for_all_choices(app, sdk, model_id):
    prefix = app.extensions["engine"].scheduler.prefix
    before = prefix.hit_tokens
    r = sdk.chat.completions.create(model=model_id, n=4, max_tokens=6, temperature=1.0, seed=1,
                                    messages=[user("A prompt never sent before: 7f3e91.")])
    assert len(r.choices) == 4
    # the other three reused the first one's prompt (all of it but the position they feed)
    assert prefix.hit_tokens - before >= 3 * (r.usage.prompt_tokens - 1)


def test_streamed_choices_are_the_non_streamed_ones(live, model_id):
    body = {"model": model_id, "messages": [user("Stream two stories.")], "max_tokens": 10,
            "temperature": 0.9, "seed": 5, "n": 2, "logprobs": True}
    whole = json.load(post_json(live.url + "/v1/chat/completions", body))
    events = parse_sse(post_json(live.url + "/v1/chat/completions",
                                 {**body, "stream": True, "stream_options": {"include_usage": True}})
                       .read().decode())
    chunks = [d for _, d in events if d != "[DONE]"]
    texts, finishes, tokens = {}, {}, {}
    for c in chunks:
        for choice in c["choices"]:
            i = choice["index"]
            texts[i] = texts.get(i, "") + (choice["delta"].get("content") or "")
            tokens[i] = tokens.get(i, 0) + len((choice["logprobs"] or {}).get("content", []))
            if choice["finish_reason"]:
                finishes[i] = choice["finish_reason"]
    expected = whole["choices"]
    assert texts == {c["index"]: c["message"]["content"] for c in expected}
    assert finishes == {c["index"]: c["finish_reason"] for c in expected}
    assert tokens == {c["index"]: len(c["logprobs"]["content"]) for c in expected}
    assert chunks[-1]["usage"] == whole["usage"]
    assert sum("mnemo" in c for c in chunks) == 1  # the memory report comes once, at the end


@pytest.mark.parametrize("extra, param", [
    ({"n": 0}, "n"),
    ({"n": 5}, "n"),  # above this app's MNEMO_MAX_BATCH_SIZE (4)
    ({"n": 2, "extra_body": {"mnemo": {"template": "legal"}}}, "n"),  # a beam-search preset
])
def test_bad_choice_counts_are_refused(sdk, model_id, extra, param):
    with pytest.raises(openai.BadRequestError) as info:
        sdk.chat.completions.create(model=model_id, messages=[user("hi")], **extra)
    assert info.value.body["param"] == param
