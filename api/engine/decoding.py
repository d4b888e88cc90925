"""Turn sampled token ids into text safely: incremental detokenizing, stop strings, sampling.

Streaming must never cut a multi-byte character in half (Chinese and emoji are the common case
here), so text is emitted only once the decoded tail no longer ends in U+FFFD, the replacement
character a partial UTF-8 sequence decodes to.
"""

from __future__ import annotations

import torch
from transformers.generation.logits_process import (
    LogitsProcessorList,
    NoRepeatNGramLogitsProcessor,
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from ..types import SamplingParams


class IncrementalDecoder:
    """Decode a growing list of token ids into text deltas that end on whole characters."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.ids: list[int] = []
        self.prefix_offset = 0  # start of the window re-decoded for context
        self.read_offset = 0  # ids before this are already emitted

    def _decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=True)

    def push(self, token_id: int) -> str:
        """Add one token id; return the newly complete text, possibly empty."""
        self.ids.append(token_id)
        before = self._decode(self.ids[self.prefix_offset:self.read_offset])
        after = self._decode(self.ids[self.prefix_offset:])
        if len(after) > len(before) and not after.endswith("\ufffd"):
            self.prefix_offset, self.read_offset = self.read_offset, len(self.ids)
            return after[len(before):]
        return ""


class StopMatcher:
    """Hold back just enough text to catch a stop string that spans several deltas."""

    def __init__(self, stops: tuple[str, ...]):
        self.stops = tuple(s for s in stops if s)
        self.hold = max((len(s) for s in self.stops), default=1) - 1
        self.pending = ""

    def push(self, delta: str) -> tuple[str, bool]:
        """Return (text safe to emit, whether a stop string was hit)."""
        self.pending += delta
        if self.stops:
            hits = [i for i in (self.pending.find(s) for s in self.stops) if i >= 0]
            if hits:
                out, self.pending = self.pending[:min(hits)], ""
                return out, True
        cut = len(self.pending) - self.hold
        if cut <= 0:
            return "", False
        out, self.pending = self.pending[:cut], self.pending[cut:]
        return out, False

    def flush(self) -> str:
        out, self.pending = self.pending, ""
        return out


# Below this temperature sampling is greedy decoding (as in vLLM): dividing logits by, say,
# 1e-38 overflows to inf, and softmax of inf is NaN.
MIN_SAMPLING_TEMPERATURE = 1e-5


class Sampler:
    """Pick the next token for one sequence from its logits, per its own parameters."""

    def __init__(self, params: SamplingParams, device: torch.device):
        procs = LogitsProcessorList()
        if params.repetition_penalty != 1.0:
            procs.append(RepetitionPenaltyLogitsProcessor(params.repetition_penalty))
        if params.no_repeat_ngram_size > 0:
            procs.append(NoRepeatNGramLogitsProcessor(params.no_repeat_ngram_size))
        self.needs_history = bool(procs)
        self.do_sample = params.do_sample and params.temperature >= MIN_SAMPLING_TEMPERATURE
        if self.do_sample:
            if params.temperature != 1.0:
                procs.append(TemperatureLogitsWarper(params.temperature))
            if params.top_k > 0:
                procs.append(TopKLogitsWarper(params.top_k))
            if params.top_p < 1.0:
                procs.append(TopPLogitsWarper(params.top_p))
        self.processors = procs
        self.generator = None
        if self.do_sample:
            self.generator = torch.Generator(device=device)
            if params.seed is not None:
                self.generator.manual_seed(params.seed)
            else:
                self.generator.seed()

    def __call__(self, logits: torch.Tensor, history: list[int]) -> int:
        """Choose a token from ``logits`` (shape [vocab]) given the ids so far."""
        scores = logits.float().unsqueeze(0)
        if self.processors:
            ids = torch.tensor([history], device=logits.device) if self.needs_history else None
            scores = self.processors(ids, scores)
        if not self.do_sample:
            return int(scores.argmax(dim=-1))
        # An extreme penalty can push a score to +inf: such tokens share the probability mass.
        top = torch.finfo(scores.dtype).max
        probs = torch.softmax(torch.nan_to_num(scores, nan=-torch.inf, posinf=top), dim=-1)
        return int(torch.multinomial(probs, 1, generator=self.generator))
