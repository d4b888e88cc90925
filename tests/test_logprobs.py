"""``logprobs`` / ``top_logprobs`` on /v1/chat/completions: each chosen token's log-probability
under the distribution that chose it (after penalties, the grammar mask, temperature, top-k and
top-p), checked against the tiny model's own logits computed by transformers."""

from __future__ import annotations

import json
import math

import openai
import pytest
import torch

from api.types import SamplingParams
from tests.helpers import parse_sse, post_json, tokenizer_of, user


@pytest.fixture(scope="module")
def model(tiny_dir):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(tiny_dir).eval()


def run(app, params: SamplingParams, text: str = "Tell me about rivers."):
    eng = app.extensions["engine"]
    ids = tokenizer_of(eng).build_prompt([user(text)], system=None, max_new_tokens=params.max_new_tokens,
                           max_turns=None).ids
    chunks = list(eng.submit(ids, params, None))
    return ids, [t for c in chunks for t in c.logprobs], chunks


def reference(model, prompt: list[int], tokens: list[int]) -> torch.Tensor:
    """transformers' logits for each generated position: [len(tokens), vocab]."""
    with torch.no_grad():
        logits = model(torch.tensor([prompt + tokens])).logits[0].float()
    return logits[len(prompt) - 1:len(prompt) - 1 + len(tokens)]


def test_greedy_logprobs_are_the_models_log_softmax(app, model):
    prompt, got, chunks = run(app, SamplingParams(max_new_tokens=12, logprobs=4))
    tokens = [t.token for t in got]
    assert len(got) == chunks[-1].usage.completion_tokens - (chunks[-1].finish_reason == "stop")
    expected = torch.log_softmax(reference(model, prompt, tokens), dim=-1)
    for i, t in enumerate(got):
        assert t.logprob == pytest.approx(float(expected[i, t.token]), abs=1e-4)
        best = expected[i].topk(4)
        assert [a for a, _ in t.top] == best.indices.tolist()  # the greedy choice is the first
        assert [v for _, v in t.top] == pytest.approx(best.values.tolist(), abs=1e-4)
        assert t.top[0][0] == t.token


def test_sampled_logprobs_are_of_the_filtered_tempered_distribution(app, model):
    params = SamplingParams(max_new_tokens=10, do_sample=True, temperature=0.7, top_k=3,
                            seed=11, logprobs=5)
    prompt, got, _ = run(app, params)
    logits = reference(model, prompt, [t.token for t in got]) / 0.7
    for i, t in enumerate(got):
        kept = logits[i].topk(3)
        expected = torch.log_softmax(kept.values, dim=-1)
        assert len(t.top) == 3  # what top-k ruled out is never offered as an alternative
        assert sorted(a for a, _ in t.top) == sorted(kept.indices.tolist())
        assert math.fsum(math.exp(v) for _, v in t.top) == pytest.approx(1, abs=1e-5)
        assert t.logprob == pytest.approx(float(expected[kept.indices.tolist().index(t.token)]),
                                          abs=1e-4)


def test_penalties_and_grammar_shape_the_distribution_reported(app, model):
    """A penalised row reports what the penalty left; a constrained row only allowed tokens."""
    plain = run(app, SamplingParams(max_new_tokens=8, logprobs=0))[1]
    penalised = run(app, SamplingParams(max_new_tokens=8, logprobs=0, frequency_penalty=2.0))[1]
    assert [t.logprob for t in plain] != [t.logprob for t in penalised]
    schema = '{"enum":["yes","no"]}'
    _, got, chunks = run(app, SamplingParams(max_new_tokens=8, logprobs=5, json_schema=schema))
    assert json.loads("".join(c.text for c in chunks)) in ("yes", "no")
    eng = app.extensions["engine"]
    for t in got:  # every alternative offered is one the grammar allowed there
        assert t.top[0][0] == t.token and all(math.isfinite(v) for _, v in t.top)
    first = tokenizer_of(eng).token_bytes([a for a, _ in got[0].top])
    assert first and all(b.startswith(b'"') for b in first), first


def test_streamed_logprobs_are_the_whole_replys_and_spell_it(live):
    sdk = openai.OpenAI(base_url=live.url + "/v1", api_key="unused", max_retries=0)
    model_id = sdk.models.list().data[0].id
    body = {"model": model_id, "messages": [user("Write a Chinese word: 中文")], "max_tokens": 20,
            "temperature": 0, "logprobs": True, "top_logprobs": 2}
    whole = json.load(post_json(live.url + "/v1/chat/completions", body))["choices"][0]
    events = parse_sse(post_json(live.url + "/v1/chat/completions", {**body, "stream": True})
                       .read().decode())
    streamed = [e for _, d in events if d != "[DONE]" for c in d["choices"]
                if c["logprobs"] for e in c["logprobs"]["content"]]
    def shape(entries):  # a prefix-cached prefill may differ from a fresh one in the last bits
        return [(e["token"], e["bytes"], [a["token"] for a in e["top_logprobs"]]) for e in entries]
    assert shape(streamed) == shape(whole["logprobs"]["content"])
    assert [e["logprob"] for e in streamed] == pytest.approx(
        [e["logprob"] for e in whole["logprobs"]["content"]], abs=1e-4)
    spelled = bytes(b for e in streamed for b in e["bytes"]).decode("utf-8", "ignore")
    assert spelled.startswith(whole["message"]["content"])
    # through the SDK's types
    typed = sdk.chat.completions.create(**body).choices[0].logprobs.content
    assert [(t.token, len(t.top_logprobs)) for t in typed] == [
        (e["token"], 2) for e in whole["logprobs"]["content"]]


@pytest.mark.parametrize("extra, param", [
    ({"top_logprobs": 2}, "top_logprobs"),  # without logprobs: true
    ({"logprobs": True, "top_logprobs": 21}, "top_logprobs"),
    ({"logprobs": "yes"}, "logprobs"),
])
def test_bad_logprobs_requests_are_refused(live, extra, param):
    sdk = openai.OpenAI(base_url=live.url + "/v1", api_key="unused", max_retries=0)
    with pytest.raises(openai.BadRequestError) as info:
        sdk.chat.completions.create(model=sdk.models.list().data[0].id,
                                    messages=[user("hi")], **extra)
    assert info.value.body["param"] == param


def test_no_logprobs_unless_asked(live):
    sdk = openai.OpenAI(base_url=live.url + "/v1", api_key="unused", max_retries=0)
    r = sdk.chat.completions.create(model=sdk.models.list().data[0].id, messages=[user("hi")],
                                    max_tokens=4, temperature=0)
    assert r.choices[0].logprobs is None


def test_a_remote_engine_passes_logprobs_to_vllm_and_llama_cpp_refuses_them():
    from api.exceptions import UnsupportedByEngine
    from api.remote import RemoteEngine
    from api.remote.wire import LlamaCppWire, OpenAIWire, Served

    body = OpenAIWire().body([1], SamplingParams(logprobs=3), Served("m", 64, {}), None)
    assert body["logprobs"] == 3 and body["return_tokens_as_token_ids"] is True
    engine = RemoteEngine.__new__(RemoteEngine)  # check_params reads only the wire
    engine.wire, engine.url = OpenAIWire(), "http://127.0.0.1:9"
    engine.check_params(SamplingParams(logprobs=0), None)
    engine.wire = LlamaCppWire()
    with pytest.raises(UnsupportedByEngine, match="logprobs"):
        engine.check_params(SamplingParams(logprobs=0), None)


def test_completions_give_openais_legacy_logprobs(live, model_id, app):
    body = {"model": model_id, "prompt": "Once upon a time", "max_tokens": 8,
            "temperature": 0, "logprobs": 2}
    choice = json.load(post_json(live.url + "/v1/completions", body))["choices"][0]
    lp = choice["logprobs"]
    n = len(lp["tokens"])
    assert n and len(lp["token_logprobs"]) == len(lp["top_logprobs"]) == len(lp["text_offset"]) == n
    assert lp["text_offset"][0] == 0 and lp["text_offset"] == sorted(lp["text_offset"])
    for token, value, top in zip(lp["tokens"], lp["token_logprobs"], lp["top_logprobs"],
                                 strict=True):
        assert len(top) == 2 and max(top, key=top.get) == token and top[token] == value
    as_ids = json.load(post_json(live.url + "/v1/completions",
                                 {**body, "return_tokens_as_token_ids": True}))["choices"][0]
    ids = [int(t.removeprefix("token_id:")) for t in as_ids["logprobs"]["tokens"]]
    assert tokenizer_of(app).detokenize(ids).startswith(choice["text"])


def test_a_stop_strings_tokens_are_not_listed(live, model_id):
    """The entries spell the reply returned, not the stop string it was cut at: a stop of three
    whole tokens is held back token by token, then dropped with its entries."""
    body = {"model": model_id, "messages": [user("Count: 1, 2, 3, 4, 5")], "max_tokens": 24,
            "temperature": 0, "logprobs": True}
    full = json.load(post_json(live.url + "/v1/chat/completions", body))["choices"][0]
    tokens = [e["token"] for e in full["logprobs"]["content"]]
    k = next(k for k in range(len(tokens) // 2, len(tokens) - 3)
             if "".join(tokens).index("".join(tokens[k:k + 3])) == len("".join(tokens[:k])))
    cut = json.load(post_json(live.url + "/v1/chat/completions",
                              {**body, "stop": ["".join(tokens[k:k + 3])]}))["choices"][0]
    assert cut["finish_reason"] == "stop" and cut["message"]["content"] == "".join(tokens[:k])
    assert [e["token"] for e in cut["logprobs"]["content"]] == tokens[:k]
