"""The engine on the tiny model: isolation of faults at each stage, preemption, chunked prefill
and beam search inside the batch. Faults are injected where the engine calls out (the prefix
cache, the model's forward, the sampler), tied to one request by a marker in its prompt."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest
import torch

import api.engine.stages as stages_module
from api import create_app
from api.engine.request import Handle
from api.exceptions import GenerationFailed
from api.types import SamplingParams
from tests.conftest import tiny_config, wait_ready
from tests.helpers import tokenizer_of, user, wait_for

GREEDY = SamplingParams(max_new_tokens=20)


@pytest.fixture(scope="module")
def engine(tiny_dir, lora_dir, tmp_path_factory):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, max_batch_size=4,
                                 max_queue=8))
    wait_ready(app)
    return app.extensions["engine"]


def ids_of(engine, text: str) -> list[int]:
    return tokenizer_of(engine).build_prompt([user(text)], system=None, max_new_tokens=20, max_turns=None).ids


class Run:
    """A request on its own thread: its text and its error."""

    def __init__(self, engine, ids, params=GREEDY, adapter=None):
        self.handle = engine.submit(ids, params, adapter)
        self.text, self.error, self.finish_reason = "", None, None
        self.thread = threading.Thread(target=self._consume, daemon=True)
        self.thread.start()

    def _consume(self):
        try:
            for chunk in self.handle:
                self.text += chunk.text
                self.finish_reason = chunk.finish_reason or self.finish_reason
        except GenerationFailed as exc:
            self.error = exc

    def result(self, timeout=60):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the request never ended"
        return self


def solo(engine, ids, params=GREEDY, adapter=None) -> str:
    engine.scheduler.prefix.clear()
    return Run(engine, ids, params, adapter).result().text


@pytest.fixture()
def prompts(engine):
    texts = ["Tell me about harbours.", "What is bread made of?", "Name a few rivers.",
             "VICTIM please answer this one."]
    ids = {t: ids_of(engine, t) for t in texts}
    expected = {t: solo(engine, ids[t]) for t in texts[:3]}
    engine.scheduler.prefix.clear()
    return ids, expected


MARK = "VICTIM please answer this one."


def is_victim(engine, ids) -> bool:
    marker = ids_of(engine, MARK)[-8:]
    return any(ids[i:i + len(marker)] == marker for i in range(len(ids) - len(marker) + 1))


@contextlib.contextmanager
def worker_paused(engine):
    """Hold the worker between two steps, so requests submitted meanwhile arrive together."""
    gate, entered = threading.Event(), threading.Event()
    engine.scheduler.call(lambda: (entered.set(), gate.wait(30)))
    assert entered.wait(30)
    try:
        yield
    finally:
        gate.set()


class Steps:
    """Forwards the worker has run, counted on its own thread (an order, not a clock), and
    how many had run when each request's error or last chunk was put (``ended``, by handle)."""

    def __init__(self, engine, monkeypatch):
        self.n, self.ended = 0, {}
        runner, forward, put = engine.scheduler.runner, engine.scheduler.runner.forward, Handle.put

        def counted(*args, **kwargs):
            self.n += 1
            return forward(*args, **kwargs)

        def recorded(handle, item):
            if isinstance(item, BaseException) or item.finish_reason is not None:
                self.ended[handle] = self.n
            put(handle, item)

        monkeypatch.setattr(runner, "forward", counted)
        monkeypatch.setattr(Handle, "put", recorded)


@pytest.fixture()
def steps(engine, monkeypatch):
    return Steps(engine, monkeypatch)


class FirstDecodeHeld:
    """The worker's first one-row decode forward waits until ``release()``: a stream started
    meanwhile is still running when the test's next request arrives, however slowly this
    thread gets there (the tiny model's whole reply can take less time than one poll)."""

    def __init__(self, engine, monkeypatch):
        self.entered, self.released = threading.Event(), threading.Event()
        runner = engine.scheduler.runner
        forward = runner.forward

        def held(*args, **kwargs):
            if tuple(kwargs["input_ids"].shape) == (1, 1) and not self.released.is_set():
                self.entered.set()
                self.released.wait(60)
            return forward(*args, **kwargs)

        monkeypatch.setattr(runner, "forward", held)

    def wait(self) -> None:
        assert self.entered.wait(60), "the stream never reached its first decode step"

    def release(self) -> None:
        self.released.set()


def run_with_victim(engine, prompts, fault_times):
    """Three bystanders and the victim, arriving together; return (bystander runs, victim run)."""
    ids, expected = prompts
    with worker_paused(engine):
        runs = [Run(engine, ids[t]) for t in expected]
        victim = Run(engine, ids[MARK])
    for r in runs + [victim]:
        r.result()
    assert [r.text for r in runs] == list(expected.values())
    assert all(r.error is None for r in runs)
    assert engine.scheduler._inflight == 0
    return runs, victim


def assert_failed_fast(victim, faults, steps):
    """It failed with the error, before the worker ran another forward after the fault."""
    assert isinstance(victim.error, GenerationFailed), victim.text
    assert faults and steps.ended[victim.handle] == faults[-1]


def test_admission_fault_fails_only_its_request(engine, prompts, monkeypatch):
    """A parameter the generator refuses (a seed past 64 bits, past the API's validation)."""
    ids, expected = prompts
    runs = [Run(engine, ids[t]) for t in expected]
    bad = Run(engine, ids[MARK], SamplingParams(max_new_tokens=5, do_sample=True, seed=2**70))
    for r in runs + [bad]:
        r.result()
    assert isinstance(bad.error, GenerationFailed)
    assert [r.text for r in runs] == list(expected.values())
    assert engine.scheduler._inflight == 0


def test_lookup_fault_fails_only_its_request(engine, prompts, monkeypatch, steps):
    cache, real, times = engine.scheduler.prefix, engine.scheduler.prefix.lookup, []

    def lookup(owner, ids, **kwargs):
        if is_victim(engine, ids):
            times.append(steps.n)
            raise RuntimeError("lookup failed (injected)")
        return real(owner, ids, **kwargs)

    monkeypatch.setattr(cache, "lookup", lookup)
    _runs, victim = run_with_victim(engine, prompts, times)
    assert_failed_fast(victim, times, steps)


class Faults(list):
    """The forwards counted (``Steps.n``) at each fault; ``rows``: each failed forward's rows."""

    rows: list[int]


def fail_forward(engine, monkeypatch, when, steps):
    """Raise from the model's forward when ``when(input_ids)``; return the forwards counted
    (``steps``) at each fault (and, in ``times.rows``, the rows of each failed forward)."""
    model, times, rows = engine.scheduler.runner, Faults(), []
    times.rows = rows
    real = model.forward

    def forward(*args, **kwargs):
        if when(kwargs["input_ids"]):
            times.append(steps.n)
            rows.append(kwargs["input_ids"].shape[0])
            raise RuntimeError("forward failed (injected)")
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)
    return times


def test_prefill_fault_fails_only_its_request_even_inside_a_group(engine, prompts, monkeypatch,
                                                                  steps):
    times = fail_forward(engine, monkeypatch, lambda ids: ids.shape[1] > 1 and any(
        is_victim(engine, row) for row in ids.tolist()), steps)
    _runs, victim = run_with_victim(engine, prompts, times)
    assert_failed_fast(victim, times, steps)
    assert times.rows[0] > 1 and times.rows[-1] == 1  # its group failed, then it alone


def test_sampling_fault_fails_only_its_request(engine, prompts, monkeypatch, steps):
    real, times = stages_module.sample, []

    def sample(logits, samplers, histories):
        if any(is_victim(engine, h) and len(h) > len(ids_of(engine, MARK)) + 2 for h in histories):
            times.append(steps.n)
            raise RuntimeError("sampling failed (injected)")
        return real(logits, samplers, histories)

    monkeypatch.setattr(stages_module, "sample", sample)
    runs, victim = run_with_victim(engine, prompts, times)
    assert_failed_fast(victim, times, steps)
    assert victim.text  # it streamed its first tokens before the fault


def test_decode_fault_ends_the_rows_in_that_step_and_nothing_else(engine, prompts, monkeypatch,
                                                                   steps):
    """A failed decode forward cannot be pinned on one row: the rows in it end with the error;
    a request waiting meanwhile, and every later one, answers as before."""
    ids, expected = prompts
    decodes = {"n": 0}

    def third_decode(input_ids):
        if input_ids.shape[1] == 1:
            decodes["n"] += 1
            return decodes["n"] == 3
        return False

    times = fail_forward(engine, monkeypatch, third_decode, steps)
    with worker_paused(engine):
        first = [Run(engine, ids[t]) for t in list(expected)[:2]]
    for r in first:
        r.result()
    assert all(isinstance(r.error, GenerationFailed) for r in first)
    assert all(steps.ended[r.handle] == times[0] for r in first)  # in the step that failed
    later = Run(engine, ids[list(expected)[2]]).result()
    assert later.text == list(expected.values())[2]
    assert engine.scheduler._inflight == 0


def test_out_of_memory_half_way_through_the_lean_forward_leaves_the_cache_whole(
        engine, prompts, monkeypatch):
    """A decode step of several rows runs out of memory after its first layer wrote the new
    position into the KV cache (the lean forward's second layer raises): the newest request is
    preempted and the others go on over that cache, so it must be cut back to the step's
    length; every answer is still what it is alone."""
    ids, expected = prompts
    lean = engine.loaded.lean
    assert lean is not None  # the tiny Llama runs the lean forward on this CPU
    real, calls = lean._layer, {"n": 0}

    def layer(spec, index, h, rows, new, *args):
        if new == 1 and rows > 1 and index == 1:
            calls["n"] += 1
            if calls["n"] in (3, 4):
                raise torch.OutOfMemoryError("out of memory half way (simulated)")
        return real(spec, index, h, rows, new, *args)

    monkeypatch.setattr(lean, "_layer", layer)
    before = engine.scheduler.preemptions
    with worker_paused(engine):
        runs = [Run(engine, ids[t]) for t in expected]
    assert [r.result().text for r in runs] == list(expected.values())
    assert engine.scheduler.preemptions > before and engine.scheduler._inflight == 0
    assert f"mnemo_preemptions_total {engine.scheduler.preemptions}" in engine.metric_lines()


def test_store_fault_loses_only_the_cache_entry(engine, prompts, monkeypatch):
    ids, expected = prompts

    def store(*args):
        raise RuntimeError("store failed (injected)")

    monkeypatch.setattr(engine.scheduler.prefix, "store", store)
    runs = [Run(engine, ids[t]) for t in expected]
    assert [r.result().text for r in runs] == list(expected.values())
    assert all(r.error is None for r in runs) and engine.scheduler._inflight == 0


def test_out_of_memory_in_decode_preempts_and_every_request_finishes_correctly(
        engine, prompts, monkeypatch, steps):
    """Every decode step of more than one row runs out of memory: the newest are preempted,
    the KV budget drops to what fitted, and they wait instead of being readmitted into the
    same failure; the oldest keeps going, and every answer is what it is alone."""
    ids, expected = prompts
    model, real = engine.scheduler.runner, engine.scheduler.runner.forward

    def forward(*args, **kwargs):
        if kwargs["input_ids"].shape[0] > 1 and kwargs["input_ids"].shape[1] == 1:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)
    before, budget = engine.scheduler.preemptions, engine.scheduler.kv_budget
    with worker_paused(engine):
        runs = [Run(engine, ids[t]) for t in expected]
    assert [r.result().text for r in runs] == list(expected.values())
    assert 2 <= engine.scheduler.preemptions - before <= 4  # no preemption ping-pong
    assert steps.ended[runs[0].handle] < steps.ended[runs[2].handle]  # the oldest never starved
    assert engine.scheduler._inflight == 0
    deadline = time.monotonic() + 60
    while engine.scheduler.kv_tokens != budget and time.monotonic() < deadline:
        time.sleep(0.05)
    assert engine.scheduler.kv_tokens == budget  # back to the configured budget when idle


def test_kv_budget_preempts_and_recomputes_without_changing_answers(tiny_dir, lora_dir,
                                                                     tmp_path_factory):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, max_batch_size=4,
                                 kv_budget_tokens=150))
    wait_ready(app)
    engine = app.extensions["engine"]
    texts = ["Tell me about harbours.", "What is bread made of?", "Name a few rivers."]
    params = SamplingParams(max_new_tokens=40)
    expected = [solo(engine, ids_of(engine, t), params) for t in texts]
    with worker_paused(engine):
        runs = [Run(engine, ids_of(engine, t), params) for t in texts]
    assert [r.result().text for r in runs] == expected
    assert engine.scheduler.preemptions > 0
    engine.scheduler.stop()


def test_long_prompt_is_prefilled_in_chunks_between_decode_steps(tiny_dir, lora_dir,
                                                                 tmp_path_factory, monkeypatch):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, prefill_chunk_tokens=32))
    wait_ready(app)
    engine = app.extensions["engine"]
    long_ids = ids_of(engine, "a long story about the sea " * 40)
    short_ids = ids_of(engine, "Hello there")
    expected_long = solo(engine, long_ids)
    expected_short = solo(engine, short_ids, SamplingParams(max_new_tokens=60))
    engine.scheduler.prefix.clear()
    model, real, calls = engine.scheduler.runner, engine.scheduler.runner.forward, []

    def forward(*args, **kwargs):
        calls.append(tuple(kwargs["input_ids"].shape))
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)
    held = FirstDecodeHeld(engine, monkeypatch)
    stream = Run(engine, short_ids, SamplingParams(max_new_tokens=60))
    held.wait()
    long = Run(engine, long_ids)
    held.release()
    assert long.result().text == expected_long and stream.result().text == expected_short
    chunks = [i for i, shape in enumerate(calls) if shape[0] == 1 and shape[1] > 1][1:]
    assert len(chunks) >= len(long_ids) // 32  # the long prompt went in 32-token chunks...
    assert all(calls[i + 1][1] == 1 for i in chunks[:-1])  # ...each followed by a decode step
    engine.scheduler.stop()


def test_an_entry_given_back_whole_never_lets_a_later_request_write_over_a_reader(
        engine, monkeypatch):
    """An entry is handed over only to a prompt that overwrites less of it than any reader
    reads, which holds for its whole length only. A turn that took it and is cancelled while
    waiting gives it back whole: given back as the part that turn matched, a third request took
    it and wrote over what an older waiting request was still reading (a review found it)."""
    sched = engine.scheduler
    conversation = [1000 + 7 * i for i in range(100)]
    reader = conversation[:45] + [3000 + i for i in range(80)]  # reads it: 2 x 45 < 100
    taker = conversation[:60] + [5000]  # takes it: 2 x 60 >= 100
    third = conversation[:38] + [6001, 6002, 6003]  # would take a 60-position entry
    expected = solo(engine, reader)
    sched.prefix.clear()
    Run(engine, conversation, SamplingParams(max_new_tokens=1)).result()
    real = sched.runner.forward
    monkeypatch.setattr(sched.runner, "forward",
                        lambda *a, **k: (time.sleep(0.01), real(*a, **k))[1])
    with worker_paused(engine):
        blockers = [Run(engine, [200 + j, 300 + j, 400 + j], SamplingParams(max_new_tokens=900))
                    for j in range(4)]
    assert wait_for(lambda: len(sched.runner.seqs) == 4), "the blockers never filled the batch"
    with worker_paused(engine):
        read, take = Run(engine, reader), Run(engine, taker)
    assert wait_for(lambda: len(sched.waiting) == 2), "the two requests were never admitted"
    waiting = {s.handle: s for s in list(sched.waiting)}
    assert not waiting[read.handle].handed_over and waiting[take.handle].handed_over
    take.handle.cancel()
    take.result()
    assert cached_length(engine, conversation + [0]) == 100  # back whole
    with worker_paused(engine):
        late = Run(engine, third)
        for r in blockers:
            r.handle.cancel()
    assert read.result().text == expected
    late.result()
    for r in blockers:
        r.result()
    assert sched._inflight == 0


def test_a_long_prompt_whose_client_leaves_half_way_keeps_what_was_prefilled(
        tiny_dir, lora_dir, tmp_path_factory, monkeypatch):
    """A prompt fed in chunks whose client leaves before the last one: the positions its
    chunks computed stay in the cache for the same prompt sent again."""
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, prefill_chunk_tokens=32))
    wait_ready(app)
    engine = app.extensions["engine"]
    long_ids = ids_of(engine, "a long story about the sea " * 40)
    runner, real, chunks, runs = engine.scheduler.runner, engine.scheduler.runner.forward, [], []

    def forward(*args, **kwargs):
        out = real(*args, **kwargs)
        if runs and kwargs["input_ids"].shape[1] > 1:  # the long prompt's chunks
            chunks.append(kwargs["input_ids"].shape[1])
            if len(chunks) == 2:
                runs[0].handle.cancel()  # the client leaves after two chunks
        return out

    monkeypatch.setattr(runner, "forward", forward)
    held = FirstDecodeHeld(engine, monkeypatch)
    stream = Run(engine, ids_of(engine, "Hello there"), SamplingParams(max_new_tokens=200))
    held.wait()  # chunks are sized for a running stream
    runs.append(Run(engine, long_ids))
    held.release()
    assert runs[0].result().text == ""
    assert len(chunks) < len(long_ids) // 32  # it ended before its prompt was all fed
    assert cached_length(engine, long_ids) == sum(chunks)
    stream.handle.cancel()
    stream.result()
    engine.scheduler.stop()


def test_beam_search_runs_inside_the_batch_and_never_stalls_a_stream(engine, monkeypatch):
    beam = SamplingParams(max_new_tokens=20, num_beams=4, length_penalty=1.0)
    beam_ids, stream_ids = ids_of(engine, "Explain the law of contracts."), ids_of(engine, "Hi")
    params = SamplingParams(max_new_tokens=40)
    expected_beam = solo(engine, beam_ids, beam)
    expected_stream = solo(engine, stream_ids, params)
    model, real, shapes = engine.scheduler.runner, engine.scheduler.runner.forward, []

    def forward(*args, **kwargs):
        shapes.append(tuple(kwargs["input_ids"].shape))
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)
    engine.scheduler.prefix.clear()
    held = FirstDecodeHeld(engine, monkeypatch)
    stream = Run(engine, stream_ids, params)
    held.wait()
    beams = Run(engine, beam_ids, beam)
    held.release()
    assert beams.result().text == expected_beam and stream.result().text == expected_stream
    assert (5, 1) in shapes  # one decode step fed the stream's row and the four beams together


def cached_length(engine, ids) -> int:
    """How much of ``ids`` the prefix cache holds now (looked up without taking an entry)."""
    return engine.scheduler.prefix.lookup((None, None), ids, take=False)[0]


def test_a_beam_search_keeps_its_prompts_kv_for_the_next_turn(engine):
    """A beam request that takes its conversation's entry stores its prompt back (copied
    before the beams share it out), and its answer is the one it gives from nothing."""
    beam = SamplingParams(max_new_tokens=12, num_beams=3)
    first = ids_of(engine, "Explain the law of contracts.")
    reply = engine.loaded.tokenizer(solo(engine, first, GREEDY), add_special_tokens=False)["input_ids"]
    turn = first + reply + ids_of(engine, "And torts?")
    expected = solo(engine, turn, beam)
    engine.scheduler.prefix.clear()
    Run(engine, first, GREEDY).result()
    assert cached_length(engine, turn) > len(turn) // 2  # the beam request will take it over
    assert Run(engine, turn, beam).result().text == expected
    assert cached_length(engine, turn + [7]) == len(turn)
    assert engine.scheduler._inflight == 0


def test_a_request_that_keeps_no_kv_neither_stores_nor_takes_an_entry(engine):
    """A compaction's summary prompt (``keep_kv=False``) reads the cache but leaves it as it
    was: the conversation's entry stays, and nothing of its own is stored."""
    conversation = ids_of(engine, "Tell me about harbours.")
    engine.scheduler.prefix.clear()
    Run(engine, conversation, GREEDY).result()
    held = cached_length(engine, conversation + [7])
    assert held == len(conversation)
    one_off = conversation + ids_of(engine, "Summarise the conversation.")
    expected = solo(engine, one_off)
    engine.scheduler.prefix.clear()
    Run(engine, conversation, GREEDY).result()
    handle = engine.submit(one_off, GREEDY, None, keep_kv=False)
    assert "".join(chunk.text for chunk in handle) == expected
    assert len(engine.scheduler.prefix) == 1
    assert cached_length(engine, conversation + [7]) == held
    assert cached_length(engine, one_off + [7]) == held  # its own KV was not kept


def _a_turn_waiting_with_its_entry(engine, then):
    """A next turn admitted with its conversation's cache entry, waiting behind a full batch:
    ``then(waiter)`` runs while the worker is held with the turn found so (nothing moves on
    meanwhile, however slowly this thread is scheduled); returns (the waiting run, the
    blockers, the cached length its conversation had)."""
    first = ids_of(engine, "Explain the law of contracts.")
    reply = engine.loaded.tokenizer(solo(engine, first, GREEDY), add_special_tokens=False)["input_ids"]
    turn = first + reply + ids_of(engine, "And torts?")
    engine.scheduler.prefix.clear()
    Run(engine, first, GREEDY).result()
    held = cached_length(engine, turn)
    assert held > len(turn) // 2  # admission will hand the entry over
    long = SamplingParams(max_new_tokens=400)
    with worker_paused(engine):
        blockers = [Run(engine, ids_of(engine, f"Count to a thousand, {i}."), long) for i in range(4)]
    assert wait_for(lambda: len(engine.scheduler.runner.seqs) == 4), "the blockers never filled the batch"
    waiter = Run(engine, turn, GREEDY)

    def found() -> bool:
        with worker_paused(engine):
            if not any(s.handle is waiter.handle and s.handed_over
                       for s in list(engine.scheduler.waiting)):
                return False
            assert len(engine.scheduler.runner.seqs) == 4  # the blockers still run
            then(waiter)
            return True

    assert wait_for(found), "the turn was never admitted with the entry"
    return waiter, blockers, turn, held


def _end(engine, blockers):
    for r in blockers:
        r.handle.cancel()
        r.result()
    assert engine.scheduler._inflight == 0


def test_a_turn_whose_client_leaves_while_it_waits_gives_the_conversation_back(engine):
    """A next turn is handed its conversation's cache entry when it is admitted. If its client
    leaves while it waits behind a full batch, the entry goes back to the cache: the turn that
    follows does not recompute the whole conversation."""
    waiter, blockers, turn, held = _a_turn_waiting_with_its_entry(engine, lambda w: w.handle.cancel())
    assert waiter.result().finish_reason == "cancelled"  # it ended while still waiting
    assert cached_length(engine, turn) == held
    _end(engine, blockers)


def test_a_scheduling_failure_gives_the_waiting_turns_conversation_back(engine, monkeypatch):
    import api.engine.scheduler as scheduler_module

    plan_step, failed = scheduler_module.plan_step, []

    def fails_once(*args, **kwargs):
        if not failed:
            failed.append(True)
            raise RuntimeError("a fault of the policy")
        return plan_step(*args, **kwargs)

    waiter, blockers, turn, held = _a_turn_waiting_with_its_entry(
        engine, lambda w: monkeypatch.setattr(scheduler_module, "plan_step", fails_once))
    assert isinstance(waiter.result().error, GenerationFailed) and failed
    assert cached_length(engine, turn) == held
    _end(engine, blockers)
    assert all(r.error is None for r in blockers)  # running rows went on


def test_beam_search_ends_when_its_client_leaves_and_frees_its_place(engine, monkeypatch):
    runner, real = engine.scheduler.runner, engine.scheduler.runner.forward
    # 200 steps of 10 ms at least: the cancel lands while the beams run
    monkeypatch.setattr(runner, "forward", lambda *a, **k: (time.sleep(0.01), real(*a, **k))[1])
    beam = SamplingParams(max_new_tokens=200, num_beams=8)
    run = Run(engine, ids_of(engine, "Explain the law of contracts."), beam)
    assert wait_for(lambda: engine.scheduler.active == 1)  # the beams are running
    run.handle.cancel()
    assert run.result().finish_reason == "cancelled"  # ended by the cancel, not by its length
    assert engine.scheduler._inflight == 0
    assert Run(engine, ids_of(engine, "Hi"), SamplingParams(max_new_tokens=3)).result().text


def test_bfloat16_batched_answers_agree_with_solo_answers_mostly(tiny_dir, lora_dir,
                                                                 tmp_path_factory):
    """In bfloat16, a row's logits depend on what shares its batch by more than the last bit,
    so greedy answers batched and alone may part after a few tokens: measured here as the share
    of tokens before the first difference, not as equality (float32 stays exact, above)."""
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, dtype="bfloat16",
                                 max_batch_size=6))
    wait_ready(app)
    engine = app.extensions["engine"]
    assert engine.loaded.dtype == torch.bfloat16
    texts = [f"Question {i}: tell me about {t}" for i, t in
             enumerate(["cats", "rivers", "stars", "bread", "music", "glass"])]
    params = SamplingParams(max_new_tokens=24)
    ids = [ids_of(engine, t) for t in texts]
    alone = [engine.loaded.tokenizer(solo(engine, i, params))["input_ids"] for i in ids]
    engine.scheduler.prefix.clear()
    with worker_paused(engine):
        runs = [Run(engine, i, params) for i in ids]
    together = [engine.loaded.tokenizer(r.result().text)["input_ids"] for r in runs]
    agreed = total = 0
    for a, b in zip(alone, together, strict=True):
        same = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        agreed, total = agreed + same, total + max(len(a), len(b))
    print(f"bfloat16 batched/solo token agreement: {agreed}/{total}")
    assert agreed / total >= 0.5
    engine.scheduler.stop()


def test_a_join_that_fails_ends_only_the_request_joining(engine, prompts, monkeypatch):
    """Out of memory while a prefilled request joins the batch: it ends with the error (no
    hang, its place freed); the stream already running goes on unchanged."""
    import api.engine.batch as kvbatch

    ids, _expected = prompts
    long = SamplingParams(max_new_tokens=60)
    stream_ids = ids["Tell me about harbours."]
    expected = solo(engine, stream_ids, long)
    held = FirstDecodeHeld(engine, monkeypatch)
    stream = Run(engine, stream_ids, long)
    held.wait()

    def concat(*args):
        raise torch.OutOfMemoryError("out of memory joining (simulated)")

    monkeypatch.setattr(kvbatch, "concat", concat)
    joiner = Run(engine, ids[MARK])
    held.release()
    joiner.result()
    monkeypatch.undo()
    assert isinstance(joiner.error, GenerationFailed)
    assert stream.result().text == expected and stream.error is None
    assert engine.scheduler._inflight == 0


def test_requests_and_calls_after_the_worker_stopped_fail_at_once(tiny_dir, lora_dir,
                                                                  tmp_path_factory):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory))
    wait_ready(app)
    engine = app.extensions["engine"]
    engine.scheduler.stop()
    with pytest.raises(GenerationFailed):
        engine.submit(ids_of(engine, "Hi"), GREEDY, None)
    with pytest.raises(GenerationFailed):
        engine.scheduler.call(lambda: None).result(timeout=1)
