"""Speculative decoding (``MNEMO_SPECULATIVE=int4``): the int4 draft guesses, the float32 model
keeps what it would have chosen, so a greedy reply is the plain greedy reply.

The reference of every comparison is the same app with its draft taken away between requests
(``plain``): the same weights, the same float32 products of one row a step.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.request

import pytest

from api import create_app
from api.config import ConfigError, Settings
from api.engine.speculative import Draft, accepted
from api.types import SamplingParams

from .conftest import CACHE_DIR, LiveServer, wait_ready
from .helpers import tokenizer_of

pytestmark = pytest.mark.slow  # the default model

TOPICS = ("the ocean", "bread baking", "the history of chess", "volcanoes", "a city at night")
ESSAY = 40  # tokens of each topic's greedy essay: a few dozen draft rounds in all


# -- pure ------------------------------------------------------------------------------------
def test_accepted_keeps_guesses_up_to_the_first_the_model_would_not_choose():
    assert accepted([5, 6, 7], [5, 6, 7, 8]) == 3
    assert accepted([5, 6, 7], [5, 9, 7, 8]) == 1
    assert accepted([5, 6, 7], [4, 6, 7, 8]) == 0
    assert accepted([], [4]) == 0


def test_draft_length_adapts_within_its_bounds():
    draft = Draft(lean=None, max_tokens=8)
    assert draft.k == 4
    draft.learn(4, 4)
    assert draft.k == 6
    draft.learn(6, 6)
    draft.learn(8, 8)
    assert draft.k == 8  # never past the setting
    for _ in range(10):
        draft.learn(draft.k, 0)
    assert draft.k == 1  # never below one guess
    drafted = 4 + 6 + 8 + 8 + 7 + 6 + 5 + 4 + 3 + 2 + 1 + 1 + 1
    assert (draft.steps, draft.drafted, draft.kept) == (13, drafted, 18)
    assert Draft(lean=None, max_tokens=2).k == 2


@pytest.mark.parametrize("env, message", [
    ({"MNEMO_SPECULATIVE": "int8"}, "must be none or int4"),
    ({"MNEMO_SPECULATIVE": "int4", "MNEMO_QUANTIZE": "int4"}, "needs a float32 model"),
    ({"MNEMO_SPECULATIVE": "int4", "MNEMO_QUANTIZE": "int8"}, "MNEMO_QUANTIZE=int8 quantizes"),
    ({"MNEMO_SPECULATIVE_TOKENS": "0"}, "from 1 to 32"),
    ({"MNEMO_SPECULATIVE_TOKENS": "33"}, "from 1 to 32"),
    ({"MNEMO_SPECULATIVE": "int4", "MNEMO_EXECUTOR": "transformers"}, "MNEMO_EXECUTOR"),
    ({"MNEMO_SPECULATIVE": "int4", "MNEMO_EXECUTOR": "lean"}, "MNEMO_EXECUTOR at auto or native"),
    ({"MNEMO_SPECULATIVE": "int4", "MNEMO_DTYPE": "bfloat16"}, "MNEMO_DTYPE"),
    ({"MNEMO_SPECULATIVE": "int4", "MNEMO_DEVICE": "cuda"}, "MNEMO_DEVICE"),
])
def test_settings_refuse_what_cannot_draft(env, message):
    with pytest.raises(ConfigError, match=message):
        Settings.load(env)


def test_the_load_refuses_a_model_the_native_step_cannot_draft_for(tiny_dir, tmp_path):
    """The tiny model's int4 projections do not join (sizes not multiples of 64), so the
    native step cannot run its draft: found only once the model is loaded."""
    app = create_app({"model": str(tiny_dir), "adapters": {}, "cache_dir": str(tmp_path),
                      "warmup": False, "speculative": "int4"})
    message = "not quantized (int8/int4) and joined"
    engine = app.extensions["engine"]
    deadline = time.monotonic() + 120
    while engine.load_error is None and not engine.ready.is_set() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not engine.ready.is_set()
    assert isinstance(engine.load_error, ConfigError)
    assert message in str(engine.load_error)
    resp = app.test_client().get("/readyz")
    assert resp.status_code == 503 and resp.get_json()["error"]["code"] == "not_ready"


# -- the default model ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def spec_app(smol_dir):
    """The default model (with its demo adapter) and the int4 draft."""
    app = create_app({"cache_dir": str(CACHE_DIR), "warmup": True, "speculative": "int4",
                      "adapters": Settings.load({"MNEMO_ADAPTERS": "legal-demo"}).adapters})
    wait_ready(app, timeout=300)
    yield app
    app.extensions["engine"].stop()


@contextlib.contextmanager
def plain(app):
    """The same app decoding without its draft (between requests only)."""
    loaded = app.extensions["engine"].loaded
    draft, loaded.draft = loaded.draft, None
    try:
        yield
    finally:
        loaded.draft = draft


def prompt(app, topic: str) -> list[int]:
    engine = app.extensions["engine"]
    essay = [{"role": "user", "content": f"Write a long essay about {topic}."}]
    return tokenizer_of(engine).build_prompt(essay, system=None, max_new_tokens=64, max_turns=None).ids


def generate(app, ids, adapter=None, **params):
    """(text, finish reason, completion tokens) of one request."""
    text, end = "", None
    for chunk in app.extensions["engine"].submit(ids, SamplingParams(**params), adapter):
        text += chunk.text
        if chunk.finish_reason is not None:
            end = chunk
    return text, end.finish_reason, end.usage.completion_tokens


def counters(app):
    d = app.extensions["engine"].loaded.draft
    return d.steps, d.drafted, d.kept


@pytest.fixture(scope="module")
def plain_essays(spec_app):
    """Each topic's plain greedy essay of ``ESSAY`` tokens, decoded once for the tests that
    compare with it (a greedy reply of fewer tokens is its beginning)."""
    prompts = [prompt(spec_app, t) for t in TOPICS]
    with plain(spec_app):
        return [generate(spec_app, ids, max_new_tokens=ESSAY) for ids in prompts]


def test_greedy_replies_are_the_plain_ones_and_the_draft_is_kept(spec_app, plain_essays):
    before = counters(spec_app)
    prompts = [prompt(spec_app, t) for t in TOPICS]
    got = [generate(spec_app, ids, max_new_tokens=ESSAY) for ids in prompts]
    steps, drafted, kept = (a - b for a, b in zip(counters(spec_app), before, strict=True))
    assert got == plain_essays
    assert all(g[2] == ESSAY for g in got)
    # The draft really spoke: most of its guesses were the model's own tokens, and a verifying
    # forward gave more than two tokens on average (plain decoding gives one a forward).
    assert kept > 0.6 * drafted, (steps, drafted, kept)
    assert sum(g[2] for g in got) > 2 * steps


@pytest.mark.parametrize("max_new_tokens", [1, 2, 3, 7, 13])
def test_token_limits_end_exactly(spec_app, max_new_tokens):
    ids = prompt(spec_app, "the moon")
    got = generate(spec_app, ids, max_new_tokens=max_new_tokens)
    with plain(spec_app):
        want = generate(spec_app, ids, max_new_tokens=max_new_tokens)
    assert got == want
    assert got[1:] == ("length", max_new_tokens)


def test_a_stop_string_inside_kept_guesses_ends_the_reply_there(spec_app):
    ids = prompt(spec_app, "rivers")
    with plain(spec_app):
        full, _, _ = generate(spec_app, ids, max_new_tokens=48)
    words = full.split()
    stop = " " + words[len(words) // 2]  # a word in the middle of the reply
    got = generate(spec_app, ids, max_new_tokens=48, stop=(stop,))
    with plain(spec_app):
        want = generate(spec_app, ids, max_new_tokens=48, stop=(stop,))
    assert got == want
    assert got[1] == "stop" and stop not in got[0] and full.startswith(got[0])


def test_an_end_of_sequence_token_ends_the_reply_as_plain_decoding_does(spec_app):
    engine = spec_app.extensions["engine"]
    ids = tokenizer_of(engine).build_prompt([{"role": "user", "content": "Say hello in one word."}],
                              system=None, max_new_tokens=64, max_turns=None).ids
    got = generate(spec_app, ids, max_new_tokens=64)
    with plain(spec_app):
        want = generate(spec_app, ids, max_new_tokens=64)
    assert got == want
    assert got[1] == "stop"


def test_a_draft_that_guesses_wrong_still_gives_the_models_reply(spec_app, monkeypatch):
    """Every guess rejected: each step keeps only the model's own token, and the KV the wrong
    guesses wrote is cut away (a kept wrong position would change every later token)."""
    draft = spec_app.extensions["engine"].loaded.draft
    real = Draft.propose

    def wrong(self, cache, token, position, count):
        return [(t + 1) % 49152 for t in real(self, cache, token, position, count)]

    ids = prompt(spec_app, "glaciers")
    monkeypatch.setattr(Draft, "propose", wrong)
    before = counters(spec_app)
    got = generate(spec_app, ids, max_new_tokens=24)
    after = counters(spec_app)
    monkeypatch.undo()
    with plain(spec_app):
        want = generate(spec_app, ids, max_new_tokens=24)
    assert got == want
    assert after[2] == before[2] and after[0] > before[0]  # steps ran, nothing kept
    draft.k = 4


def test_the_next_turn_reuses_the_speculated_turns_kv(spec_app):
    """The prefix cache stores the reply's KV at its kept length: the next turn, built on it,
    is the plain next turn."""
    engine = spec_app.extensions["engine"]
    first = [{"role": "user", "content": "Name three colours."}]
    turns = {}
    for name, ctx in (("spec", contextlib.nullcontext()), ("plain", plain(spec_app))):
        engine.scheduler.prefix.clear()
        with ctx:
            reply, _, _ = generate(spec_app, tokenizer_of(engine).build_prompt(
                first, system=None, max_new_tokens=32, max_turns=None).ids, max_new_tokens=32)
            history = first + [{"role": "assistant", "content": reply},
                               {"role": "user", "content": "Now three animals."}]
            ids = tokenizer_of(engine).build_prompt(history, system=None, max_new_tokens=32,
                                                    max_turns=None).ids
            hits = engine.scheduler.prefix.hits
            turns[name] = (reply, generate(spec_app, ids, max_new_tokens=32))
            assert engine.scheduler.prefix.hits > hits  # the second turn started from the first's KV
    assert turns["spec"] == turns["plain"]


def test_sampled_penalised_adapter_and_batched_rows_decode_plainly(spec_app):
    """Only a lone greedy row speculates; every other request decodes as before."""
    ids = prompt(spec_app, "deserts")
    before = counters(spec_app)
    sampled = generate(spec_app, ids, max_new_tokens=16, do_sample=True, temperature=0.8, seed=3)
    penalised = generate(spec_app, ids, max_new_tokens=16, repetition_penalty=1.3)
    adapted = generate(spec_app, ids, adapter="legal-demo", max_new_tokens=16)
    assert counters(spec_app) == before
    with plain(spec_app):
        assert generate(spec_app, ids, max_new_tokens=16, do_sample=True, temperature=0.8,
                        seed=3) == sampled
        assert generate(spec_app, ids, max_new_tokens=16, repetition_penalty=1.3) == penalised
        assert generate(spec_app, ids, adapter="legal-demo", max_new_tokens=16) == adapted


def test_concurrent_greedy_requests_get_their_plain_replies(spec_app, plain_essays):
    prompts = [prompt(spec_app, t) for t in TOPICS[:3]]
    want = plain_essays[:3]
    got = [None] * len(prompts)

    def run(i):
        got[i] = generate(spec_app, prompts[i], max_new_tokens=ESSAY - 10 * i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(prompts))]
    before = counters(spec_app)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # rows decode batched, then the last one alone, speculating
    for i, (text, reason, tokens) in enumerate(got):
        assert reason == "length" and tokens == ESSAY - 10 * i
        assert want[i][0].startswith(text)
    assert counters(spec_app)[0] > before[0]  # the longest one ended alone, speculating


def test_a_failing_draft_turns_speculation_off_and_the_reply_goes_on(spec_app, monkeypatch):
    engine = spec_app.extensions["engine"]
    draft = engine.loaded.draft
    ids = prompt(spec_app, "storms")
    with plain(spec_app):
        want = generate(spec_app, ids, max_new_tokens=20)

    def broken(self, cache, token, position, count):
        raise RuntimeError("draft broke")

    monkeypatch.setattr(Draft, "propose", broken)
    try:
        assert generate(spec_app, ids, max_new_tokens=20) == want
        assert engine.loaded.draft is None
    finally:
        engine.loaded.draft = draft


def test_over_http_the_reply_streams_and_metrics_count_the_draft(spec_app):
    server = LiveServer(spec_app)
    try:
        body = {"model": "SmolLM2-135M-Instruct", "max_tokens": 32, "temperature": 0,
                "messages": [{"role": "user", "content": "Write about the sea."}]}
        req = urllib.request.Request(server.url + "/v1/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        before = counters(spec_app)
        with urllib.request.urlopen(req, timeout=120) as resp:
            got = json.load(resp)
        assert got["usage"]["completion_tokens"] == 32
        assert counters(spec_app)[0] > before[0]
        with urllib.request.urlopen(server.url + "/metrics", timeout=30) as resp:
            text = resp.read().decode()
        steps, drafted, kept = counters(spec_app)
        assert f"mnemo_speculative_steps_total {steps}" in text
        assert f"mnemo_speculative_drafted_tokens_total {drafted}" in text
        assert f"mnemo_speculative_accepted_tokens_total {kept}" in text
        with plain(spec_app):
            with urllib.request.urlopen(req, timeout=120) as resp:
                assert json.load(resp)["choices"][0]["message"]["content"] == \
                    got["choices"][0]["message"]["content"]
    finally:
        server.close()
