"""Speculative decoding of a float model, drafted by its own int4 copy (``MNEMO_SPECULATIVE``).

Decoding one row of the float32 model reads all its weights (540 MB) for each token, so one
user's speed is the memory's speed (docs/benchmarks.md). A forward of a few new positions reads
them once too. So a cheap draft (the same weights at int4, a fifth of the bytes, with the
native decode step) guesses the next ``k`` tokens one by one, and one forward of the float
model over the pending token and the ``k`` guesses (``Runner.verify``) gives its own choice at
each of those positions. Guesses are kept up to the first one the float model would not have
chosen, and that position's own token comes with them (``accepted``): each verifying forward
yields between one and ``k + 1`` tokens, all of them the float model's greedy tokens, so the
reply is the one plain decoding gives (the float model's products of ``k + 1`` rows against
one may differ in the last bits, as a batched row's do; tests/test_speculative.py checks the
tokens on fixed prompts).

The draft needs no cache of its own: it reads the float model's keys and values of the history
(better than its own would be) and writes its guesses' positions past them, which the runner
cuts off again before the float model writes its own there. It speaks only for greedy rows
decoded alone: a batch of several rows reads the weights once for all of them already, and a
sampled row's tokens would depend on the draft (drawn with another random stream).

``k`` adapts as in transformers' assisted generation: two more after a step whose guesses were
all kept, one fewer after a step where one was not, between 1 and ``MNEMO_SPECULATIVE_TOKENS``.
"""

from __future__ import annotations

import logging
from pathlib import Path

import torch

from ..config import ConfigError, Settings
from . import batch as kvbatch
from . import native
from .lean import LeanForward
from .malloc import release_freed_memory
from .quantize import quantize
from .store import Store

log = logging.getLogger("mnemo.speculative")

START_TOKENS = 4  # the first step's guesses, before k adapts


def accepted(drafts: list[int], targets: list[int]) -> int:
    """How many of the guesses ``drafts`` the verifying forward keeps: ``targets[i]`` is its
    token after the pending token and ``drafts[:i]``, so guesses hold up to the first that
    differs. ``targets`` has one more entry than ``drafts`` (the token after all of them)."""
    n = 0
    while n < len(drafts) and drafts[n] == targets[n]:
        n += 1
    return n


class Draft:
    """The int4 draft: proposes tokens over the float model's cache; counts what it proposed
    and what was kept (``/metrics``)."""

    def __init__(self, lean: LeanForward, max_tokens: int):
        self.lean = lean
        self.max_tokens = max_tokens
        self.k = min(START_TOKENS, max_tokens)
        self.steps = self.drafted = self.kept = 0

    def propose(self, cache, token: int, position: int, count: int) -> list[int]:
        """``count`` greedy guesses after ``token`` (not in ``cache`` yet, at ``position``,
        the cache's length); ``cache`` is back at ``position`` positions afterwards, whatever
        happens."""
        device = cache.layers[0].keys.device
        out = []
        try:
            for j in range(count):
                logits = self.lean(input_ids=torch.tensor([[token]], device=device),
                                   position_ids=torch.tensor([[position + j]], device=device),
                                   cache=cache, logits_to_keep=1).logits
                token = int(logits[0, -1].argmax())
                out.append(token)
        finally:
            kvbatch.truncate(cache, position)
        return out

    def learn(self, drafted: int, kept: int) -> None:
        """Adapt ``k`` to the step that kept ``kept`` of ``drafted`` guesses."""
        self.steps += 1
        self.drafted += drafted
        self.kept += kept
        if kept == drafted:
            self.k = min(self.max_tokens, self.k + 2)
        else:
            self.k = max(1, self.k - 1)


def build(settings: Settings, source: str, model, lean: LeanForward | None) -> Draft | None:
    """The draft for ``model`` if ``settings.speculative`` asks for one; ConfigError saying why
    where it cannot run. The settings that cannot combine were refused before
    (``combinations.refusal``, as configured and as resolved); what is left is found here: a
    model the lean forward or the native step does not run, a native step that cannot be
    built."""
    if settings.speculative == "none":
        return None
    why = draft = None
    if lean is None:
        why = "the lean forward does not serve this model (a GPU, or not a Llama model)"
    else:
        draft = _draft_forward(source, settings, model)
        why = native.unsupported(draft.layers)
    if why is None:
        module = native.load(Path(settings.cache_dir))
        why = "the native decode step is not built for this machine (logged above)" if module is None \
            else draft.use_native(module)
    if why is not None:
        raise ConfigError(f"MNEMO_SPECULATIVE: int4 cannot draft here: {why}")
    log.info("speculative decoding: an int4 draft guesses up to %d tokens a step",
             settings.speculative_tokens)
    return Draft(draft, settings.speculative_tokens)


def _draft_forward(source: str, settings: Settings, model) -> LeanForward:
    """The model's weights at int4 (the stored quantized layers of an earlier start where there
    are some), sharing the float model's embedding table, under a lean forward of their own."""
    from transformers import AutoModelForCausalLM

    draft = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32).eval()
    quantize(draft, "int4", Store.of(Path(source), "int4", Path(settings.cache_dir)))
    target = model.get_base_model() if hasattr(model, "get_base_model") else model
    shared = draft.model.embed_tokens = target.model.embed_tokens
    with torch.no_grad():  # the norms, out of the weights file's memory map
        for p in draft.parameters():
            if p is not shared.weight:
                p.data = p.data.clone()
    release_freed_memory()
    return LeanForward(draft)
