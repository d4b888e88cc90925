"""Generation through the native API on the tiny model: parameters, adapters, batching, faults."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
import torch
from transformers import LogitsProcessor, LogitsProcessorList

from api import create_app
from api.exceptions import Overloaded
from api.types import SamplingParams
from tests.conftest import tiny_config, wait_ready
from tests.helpers import assistant, parse_sse, sleep_each_step, tokenizer_of, user, wait_for, wrap_forward

HELLO = [user("Hello, how are you?")]


def chat(client, **body):
    body.setdefault("messages", HELLO)
    resp = client.post("/api/chat", json=body)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def stream(client, **body):
    body.setdefault("messages", HELLO)
    resp = client.post("/api/chat", json={**body, "stream": True})
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    return parse_sse(resp.get_data(as_text=True))


def test_reply_shape_and_usage(client):
    body = chat(client, max_new_tokens=12, conversation_id="c-1")
    assert body["message"]["role"] == "assistant"
    assert body["conversation_id"] == "c-1"
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert 1 <= usage["completion_tokens"] <= 12
    assert body["history"] == {"received": 1, "used": 1, "dropped": 0, "dropped_by_max_turns": 0,
                               "dropped_by_context": 0, "first_used": 0, "pinned": [],
                               "recalled": [], "shortened": [], "summarised": 0, "lost": 0,
                               "dropped_ranges": [],
                               "summary": None}
    assert body["compaction"] == {"status": "not_needed"}
    if body["finish_reason"] == "length":
        assert usage["completion_tokens"] == 12


def test_greedy_is_deterministic_and_stream_equals_join(client):
    a = chat(client, max_new_tokens=20)
    b = chat(client, max_new_tokens=20)
    assert a["message"] == b["message"]
    events = stream(client, max_new_tokens=20)
    deltas = "".join(d["content"] for name, d in events if name == "delta")
    done = [d for name, d in events if name == "done"]
    assert len(done) == 1 and events[-1][0] == "done"
    assert deltas == a["message"]["content"] == done[0]["message"]["content"]
    assert done[0]["usage"] == a["usage"] and done[0]["history"] == a["history"]


def test_seeded_sampling_is_reproducible(client):
    a = chat(client, do_sample=True, temperature=1.5, top_k=50, seed=7, max_new_tokens=16)
    b = chat(client, do_sample=True, temperature=1.5, top_k=50, seed=7, max_new_tokens=16)
    c = chat(client, do_sample=True, temperature=1.5, top_k=50, seed=8, max_new_tokens=16)
    assert a["message"] == b["message"]
    assert a["message"] != c["message"]


class Occurrences(LogitsProcessor):
    """OpenAI's presence and frequency penalties as its documentation defines them, written
    plainly: each token the reply holds loses ``presence`` plus ``frequency`` per occurrence."""

    def __init__(self, prompt_len, presence, frequency):
        self.prompt_len, self.presence, self.frequency = prompt_len, presence, frequency

    def __call__(self, input_ids, scores):
        scores = scores.clone()
        for row in range(input_ids.shape[0]):
            for token, n in Counter(input_ids[row, self.prompt_len:].tolist()).items():
                scores[row, token] -= self.presence + self.frequency * n
        return scores


@pytest.fixture(scope="module")
def reference(tiny_dir, tokenizer):
    """transformers' own generate on the same tiny model: the behaviour to match."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()

    def generate(messages, presence_penalty=0.0, frequency_penalty=0.0, **kwargs):
        ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                            return_tensors="pt")["input_ids"]
        if presence_penalty or frequency_penalty:
            kwargs["logits_processor"] = LogitsProcessorList([Occurrences(
                ids.shape[1], presence_penalty, frequency_penalty)])
        out = model.generate(ids, attention_mask=torch.ones_like(ids), pad_token_id=2, **kwargs)
        return tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True)

    return generate


@pytest.mark.parametrize("params", [
    {},
    {"repetition_penalty": 1.5, "no_repeat_ngram_size": 2},
    {"num_beams": 3, "length_penalty": 1.0, "early_stopping": True},
    {"num_beams": 2, "repetition_penalty": 1.2, "no_repeat_ngram_size": 3},
    {"frequency_penalty": 1.5},
    {"presence_penalty": 2.0, "frequency_penalty": -0.5},
    {"num_beams": 2, "presence_penalty": 1.0, "frequency_penalty": 0.5},
])
def test_decoding_matches_transformers_generate(client, reference, params):
    messages = [user("Say something about penalties and repeated words words words.")]
    ours = chat(client, messages=messages, max_new_tokens=12, **params)
    expected = reference(messages, max_new_tokens=12, do_sample=False, **params)
    assert ours["message"]["content"] == expected
    assert ours["usage"]["completion_tokens"] <= 12


def test_long_reply_through_growing_kv_buffers_matches_generate(app, reference):
    """Past a few hundred tokens the KV buffers have grown (copied) more than once.

    Straight to the engine: this app's HTTP limit on new tokens is 64."""
    engine = app.extensions["engine"]
    messages = [user("Tell me everything you know.")]
    ids = tokenizer_of(engine).build_prompt(messages, system=None, max_new_tokens=400, max_turns=None).ids
    chunks = list(engine.submit(ids, SamplingParams(max_new_tokens=400), None))
    assert chunks[-1].usage.completion_tokens > 300
    expected = reference(messages, max_new_tokens=400, do_sample=False)
    assert "".join(c.text for c in chunks) == expected


def test_legal_preset_is_applied(client):
    resp = client.post("/api/chat/preview", json={"messages": HELLO, "template": "legal"})
    body = resp.get_json()
    assert "资深法律专家" in body["prompt"]
    assert body["max_new_tokens"] == 64  # the preset's 200, capped by this app's limit of 64
    plain = client.post("/api/chat/preview", json={"messages": HELLO}).get_json()
    assert plain["max_new_tokens"] == 16 and "资深法律专家" not in plain["prompt"]


def test_stop_strings_cut_the_reply(client):
    full = chat(client, max_new_tokens=30)["message"]["content"]
    assert len(full) > 6
    stop = full[3:6]
    cut = chat(client, max_new_tokens=30, stop=[stop])
    assert cut["finish_reason"] == "stop"
    assert cut["message"]["content"] == full[:full.index(stop)]


def test_preview_shows_what_the_model_sees(client):
    history = [user("one"), assistant("two"), user("three")]
    body = client.post("/api/chat/preview", json={"messages": history, "system": "Be kind."}).get_json()
    assert body["prompt"].startswith("<|im_start|>system\nBe kind.<|im_end|>")
    assert body["prompt"].endswith("<|im_start|>assistant\n")
    assert body["history"]["used"] == 3
    generated = chat(client, messages=history, system="Be kind.", max_new_tokens=2)
    assert generated["usage"]["prompt_tokens"] == body["prompt_tokens"]


def test_lora_adapter_changes_output(client):
    base = chat(client, max_new_tokens=16)
    adapted = chat(client, adapter="shouty", max_new_tokens=16)
    again = chat(client, max_new_tokens=16)
    assert adapted["message"] != base["message"]
    assert again["message"] == base["message"]
    assert adapted["model"] == "shouty"


def test_batched_answers_equal_solo_answers(app, client):
    requests = [
        dict(messages=[user(f"Question number {i}: tell me about {topic}")], max_new_tokens=24)
        for i, topic in enumerate(["cats", "rivers", "stars", "bread", "music", "glass"])
    ]
    requests[1]["adapter"] = "shouty"
    requests[2].update(do_sample=True, temperature=1.2, seed=3)
    requests[3]["messages"] = [user("a long history " * 40), assistant("ok"), user("and now?")]
    app.extensions["engine"].scheduler.prefix.clear()
    solo_bodies = [chat(client, **r) for r in requests]
    solo = [b["message"]["content"] for b in solo_bodies]
    app.extensions["engine"].scheduler.prefix.clear()
    results: dict[int, str] = {}
    scheduler = app.extensions["engine"].scheduler

    def worker(i):
        results[i] = chat(app.test_client(), **requests[i])["message"]["content"]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(requests))]
    steps_before = scheduler.steps
    # The worker is held until all six are queued: how far apart the threads get there (each
    # validates and renders its own prompt first) then decides nothing.
    gate, held = threading.Event(), threading.Event()
    scheduler.call(lambda: (held.set(), gate.wait(60)))
    assert held.wait(60)
    for t in threads:
        t.start()
    assert wait_for(lambda: scheduler.queue_depth == len(requests))
    gate.set()
    for t in threads:
        t.join()
    assert [results[i] for i in range(len(requests))] == solo
    # They really shared steps: one at a time would take a step per token after the first.
    steps = app.extensions["engine"].scheduler.steps - steps_before
    one_at_a_time = sum(b["usage"]["completion_tokens"] - 1 for b in solo_bodies)
    assert steps < one_at_a_time / 2


def test_waiting_requests_prefill_together_and_answer_as_alone(app, client, monkeypatch):
    """Requests that wait while the model is busy are prefilled in one forward: one row with
    a cached history (copied right-aligned), one with an adapter, one sampled, one left-padded."""
    engine = app.extensions["engine"]

    def prompt(messages):
        return tokenizer_of(engine).build_prompt(messages, system=None, max_new_tokens=12, max_turns=None).ids

    history = [user("Tell me about owls."), assistant("Owls hunt at night."), user("Why at night?")]
    greedy = SamplingParams(max_new_tokens=12)
    requests = [
        (history, greedy, None),
        ([user("Describe a quiet harbour town at dawn in a few words.")], greedy, "shouty"),
        ([user("What do bees do in winter, and why?")],
         SamplingParams(max_new_tokens=12, do_sample=True, temperature=1.3, seed=5), None),
        ([user("Hi!")], greedy, None),
    ]
    ids = [prompt(messages) for messages, _, _ in requests]

    def run(i):
        return "".join(c.text for c in engine.submit(ids[i], requests[i][1], requests[i][2]))

    solo = []
    for i in range(len(requests)):
        engine.scheduler.prefix.clear()
        solo.append(run(i))
    engine.scheduler.prefix.clear()
    list(engine.submit(prompt(history[:1]), greedy, None))  # the group's row 0 starts from it

    model = engine.scheduler.runner
    real, go, prefills = model.forward, threading.Event(), []

    def forward(*args, **kwargs):
        shape = tuple(kwargs["input_ids"].shape)
        if shape[1] > 1:
            prefills.append(shape)
        if len(prefills) == 1:
            go.wait(30)  # hold the worker inside the first prefill while the others queue
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)
    other = prompt([user("Something else")])
    blocker = threading.Thread(target=lambda: list(engine.submit(other, SamplingParams(max_new_tokens=1),
                                                                 None)))
    blocker.start()
    while not prefills:
        time.sleep(0.01)
    results: dict[int, str] = {}
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, run(i)))
               for i in range(len(requests))]
    for t in threads:
        t.start()
    while engine.scheduler.queue_depth < len(requests):
        time.sleep(0.01)
    go.set()
    for t in threads + [blocker]:
        t.join()
    assert prefills[1][0] == len(requests) and len(prefills) == 2  # one forward for all four
    assert [results[i] for i in range(len(requests))] == solo


def test_prefix_cache_changes_speed_never_answers(app, client):
    scheduler = app.extensions["engine"].scheduler
    turn1 = [user("Tell me a story about a lighthouse.")]
    reply = chat(client, messages=turn1, max_new_tokens=20)["message"]["content"]
    turn2 = turn1 + [assistant(reply), user("And what happened next?")]
    hits = scheduler.prefix.hits
    warm = chat(client, messages=turn2, max_new_tokens=20)
    assert scheduler.prefix.hits == hits + 1
    scheduler.prefix.clear()
    cold = chat(client, messages=turn2, max_new_tokens=20)
    assert warm["message"] == cold["message"]


def test_handed_over_and_shared_prefixes_never_change_answers(app, client):
    """Two conversations with one system prompt, interleaved: a new conversation reads the
    other's KV for what they share (and must not write into it), a next turn takes its own
    entry over and appends in place, a regenerated reply overwrites the tail it takes over."""
    scheduler = app.extensions["engine"].scheduler
    scheduler.prefix.clear()
    system = "You are a patient teacher. " * 8
    a1 = [user("Tell me about lighthouses.")]
    b1 = [user("Tell me about rivers and the sea.")]
    warm = {}

    def run(key, messages):
        warm[key] = chat(client, messages=messages, system=system, max_new_tokens=24)["message"]["content"]

    run("a1", a1)
    run("b1", b1)
    a2 = a1 + [assistant(warm["a1"]), user("And then?")]
    b2 = b1 + [assistant(warm["b1"]), user("Why?")]
    hits = scheduler.prefix.hits
    run("a2", a2)
    run("a2 again", a2)  # regenerate: the same prompt takes the entry it just stored
    run("b2", b2)
    run("a3", a2 + [assistant(warm["a2"]), user("Thanks.")])
    assert scheduler.prefix.hits == hits + 4
    steps = {"a1": a1, "b1": b1, "a2": a2, "a2 again": a2, "b2": b2,
             "a3": a2 + [assistant(warm["a2"]), user("Thanks.")]}
    for key, messages in steps.items():
        scheduler.prefix.clear()
        cold = chat(client, messages=messages, system=system, max_new_tokens=24)["message"]["content"]
        assert warm[key] == cold, key


def test_cancel_frees_the_slot(app):
    engine = app.extensions["engine"]
    ids = tokenizer_of(engine).build_prompt(HELLO, system=None, max_new_tokens=60, max_turns=None).ids
    handle = engine.submit(ids, SamplingParams(max_new_tokens=60), None)
    handle.cancel()
    chunks = list(handle)
    assert chunks[-1].finish_reason == "cancelled"
    assert engine.scheduler._inflight == 0


def test_overload_answers_429_with_retry_after(app, client):
    engine = app.extensions["engine"]
    ids = tokenizer_of(engine).build_prompt(HELLO, system=None, max_new_tokens=60, max_turns=None).ids
    handles = [engine.submit(ids, SamplingParams(max_new_tokens=60), None) for _ in range(8)]
    with pytest.raises(Overloaded):  # max_batch_size 4 + max_queue 4 are taken
        engine.submit(ids, SamplingParams(max_new_tokens=60), None)
    resp = client.post("/api/chat", json={"messages": HELLO})
    assert resp.status_code == 429 and resp.headers["Retry-After"] == "1"
    assert resp.get_json()["error"]["code"] == "overloaded"
    for h in handles:
        h.cancel()
    for h in handles:
        list(h)
    chat(client, max_new_tokens=4)


def test_generation_fault_gives_503_then_recovers(app, client, monkeypatch):
    def out_of_memory(n):
        if n == 1:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")

    restore = wrap_forward(monkeypatch, app, out_of_memory)
    resp = client.post("/api/chat", json={"messages": HELLO, "max_new_tokens": 4})
    assert resp.status_code == 503
    assert resp.get_json()["error"]["code"] == "generation_failed"
    assert "out of memory" in resp.get_json()["error"]["message"]
    restore()
    chat(client, max_new_tokens=4)


def test_failure_after_a_reply_is_whole_is_not_counted_twice(app, client, monkeypatch):
    """Storing a finished row's KV fails: its reply is already whole, and the request counts
    as done once (a second count would let the server take more requests than configured)."""
    scheduler = app.extensions["engine"].scheduler

    def broken_store(*args):
        raise RuntimeError("store failed (simulated)")

    monkeypatch.setattr(scheduler.prefix, "store", broken_store)
    body = chat(client, max_new_tokens=1)  # finishes at its prefill, then the store fails
    assert body["finish_reason"] == "length" and body["usage"]["completion_tokens"] == 1
    assert scheduler._inflight == 0
    monkeypatch.undo()
    chat(client, max_new_tokens=4)
    assert scheduler._inflight == 0


def test_stream_error_arrives_as_event(app, client, monkeypatch):
    def fail_third_step(n):
        if n == 3:
            raise RuntimeError("boom")

    restore = wrap_forward(monkeypatch, app, fail_third_step)
    events = stream(client, max_new_tokens=20)
    restore()
    assert events[-1][0] == "error"
    assert events[-1][1]["error"]["code"] == "generation_failed"
    chat(client, max_new_tokens=4)


@pytest.fixture(scope="module")
def slow_app(tiny_dir, lora_dir, tmp_path_factory):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, generation_timeout=0.2))
    wait_ready(app)
    return app


def test_generation_time_limit_ends_with_length(slow_app, monkeypatch):
    wrap_forward(monkeypatch, slow_app, sleep_each_step(0.05))
    body = chat(slow_app.test_client(), max_new_tokens=200)
    assert body["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] < 20
