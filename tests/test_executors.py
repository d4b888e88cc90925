"""The executors' contract: whatever runs the forwards (``MNEMO_EXECUTOR``: transformers' forward,
the lean forward, the lean forward with the native step, and the speculative draft over it),
a greedy reply through the engine, alone or batched, is the one transformers' ``generate``
gives over the same weights, token for token.

Where products round differently (the lean forward's joined and packed float32 layers; under
int8/int4 the bfloat16 activations, keys and values), two forwards may pick different tokens
only at a near-tie: the stated tolerance is on the reference's own logits at the first token
that differs, whose lead over the executor's token must be within ``TOLERANCE`` of the largest
logit (the bounds tests/test_lean_forward.py holds the logits to). After that the replies go
their own ways.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from api.config import Settings
from api.engine import Engine
from api.types import SamplingParams

CASES = [  # (executor, quantize): every executor over every weight layout it runs
    ("transformers", "none"), ("lean", "none"),
    ("transformers", "int8"), ("lean", "int8"), ("native", "int8"),
    ("transformers", "int4"), ("lean", "int4"), ("native", "int4"),
]
# the lean forward's logits bounds (tests/test_lean_forward.py: 1e-5 of float32, 2e-2 under
# int8/int4, where activations, keys and values are rounded to bfloat16), with room for float32
TOLERANCE = {"none": 1e-4, "int8": 2e-2, "int4": 2e-2}
NEW = 24
TEXTS = ("Tell me about the sea.", "Quelle heure est-il à Tokyo ?", "def add(a, b):",
         "数一数：一、二、三", "The quick brown fox")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, tokenizer) -> Path:
    """A randomly initialised 2-layer Llama whose shapes every executor runs (the native step
    needs int4 layers joined, at multiples of 64 outputs: model_dir's 32-wide keys are not)."""
    path = tmp_path_factory.mktemp("executors")
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=128, intermediate_size=256,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=1024, tie_word_embeddings=True,
                         bos_token_id=1, eos_token_id=2, pad_token_id=2, initializer_range=0.2)
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def prompts(tokenizer) -> list[list[int]]:
    return [tokenizer(t, add_special_tokens=False)["input_ids"] for t in TEXTS]


def start(model_dir, cache_dir, **settings) -> Engine:
    engine = Engine(Settings.load(overrides={"model": str(model_dir), "adapters": {},
                                             "warmup": False, "cache_dir": str(cache_dir),
                                             **settings}))
    engine.start()
    for _ in range(1200):
        if engine.ready.wait(0.1):
            return engine
        if engine.load_error is not None:
            raise RuntimeError(f"model did not load: {engine.load_error!r}")
    raise RuntimeError("model did not load in 120 s")


def replies(engine: Engine, prompts: list[list[int]], together: bool) -> list[list[int]]:
    """Each prompt's greedy reply as token ids, submitted one by one or all at once."""
    params = SamplingParams(max_new_tokens=NEW, temperature=0.0, logprobs=0)

    def tokens(handle) -> list[int]:
        return [p.token for chunk in handle for p in chunk.logprobs]

    if together:
        handles = [engine.submit(ids, params, None) for ids in prompts]
        return [tokens(h) for h in handles]
    return [tokens(engine.submit(ids, params, None)) for ids in prompts]


@torch.inference_mode()
def reference(model, ids: list[int]) -> list[int]:
    out = model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                         max_new_tokens=NEW, do_sample=False, eos_token_id=None, pad_token_id=2)
    return out[0, len(ids):].tolist()


@torch.inference_mode()
def near_tie(model, ids: list[int], want: int, got: int, tolerance: float) -> tuple[bool, float]:
    """Whether ``got`` is within ``tolerance`` (relative to the largest logit) of ``want``, the
    reference's choice after ``ids``."""
    logits = model(torch.tensor([ids])).logits[0, -1].float()
    lead = float(logits[want] - logits[got]) / float(logits.abs().max())
    return lead <= tolerance, lead


@pytest.mark.parametrize("executor, quantize", CASES, ids=[f"{e}-{q}" for e, q in CASES])
def test_every_executor_decodes_as_transformers_generate(model_dir, tmp_path_factory, prompts,
                                                         executor, quantize):
    engine = start(model_dir, tmp_path_factory.getbasetemp() / "cache", executor=executor,
                   quantize=quantize)
    try:
        assert engine.loaded.executor == executor and engine.loaded.quantize == quantize
        assert f"executor {executor}" in engine.describe()
        model = engine.loaded.model  # transformers' own forward over the same weights
        wanted = [reference(model, ids) for ids in prompts]
        agreed = 0
        for together in (False, True):
            for ids, want, got in zip(prompts, wanted, replies(engine, prompts, together), strict=True):
                assert len(got) == NEW
                same = next((i for i, (a, b) in enumerate(zip(want, got, strict=True)) if a != b), NEW)
                agreed += same
                if same < NEW:
                    ok, lead = near_tie(model, ids + want[:same], want[same], got[same],
                                        TOLERANCE[quantize])
                    assert ok, (f"{executor}/{quantize} chose {got[same]} over {want[same]} at "
                                f"token {same} ({'batched' if together else 'alone'}), a lead of "
                                f"{lead:.2e} of the largest logit")
        assert agreed >= NEW * len(prompts)  # on the whole, they agree (not only at ties)
    finally:
        engine.stop()


def test_the_speculative_draft_changes_no_token(model_dir, tmp_path_factory, prompts):
    """The speculative wrapper over the native step: the float32 model keeps only its own
    choices, so its replies are the plain lean forward's, and that one's are held to
    transformers' ``generate`` above."""
    engine = start(model_dir, tmp_path_factory.getbasetemp() / "cache", speculative="int4")
    try:
        draft = engine.loaded.draft
        assert draft is not None and engine.loaded.executor == "lean"
        params = SamplingParams(max_new_tokens=NEW, temperature=0.0)
        drafted = ["".join(c.text for c in engine.submit(ids, params, None)) for ids in prompts]
        assert draft.steps > 0
        engine.loaded.draft = None  # the worker reads it each step: the next replies are plain
        plain = ["".join(c.text for c in engine.submit(ids, params, None)) for ids in prompts]
        assert drafted == plain
    finally:
        engine.stop()


@pytest.mark.parametrize("settings, message", [
    ({"executor": "native"}, "not quantized"),
    ({"executor": "fast"}, "must be auto, native, lean or transformers"),
])
def test_an_executor_that_cannot_run_stops_the_start(model_dir, tmp_path, settings, message):
    try:
        engine = start(model_dir, tmp_path, **settings)
    except Exception as exc:  # refused by the settings themselves
        assert message in str(exc)
        return
    engine.stop()
    raise AssertionError(f"the start with {settings} did not fail")
