"""Constrained decoding: a row whose reply must be JSON matching a schema.

llguidance (chosen by measurement, docs/structured-output.md) keeps, per row, where the reply
stands in the schema's grammar and says which tokens may come next: a bit mask over the
vocabulary, computed in about 0.1-0.3 ms. The sampler sets every other token's score to -inf
before it picks, so greedy, sampled and penalised rows all stay inside the grammar; once the
JSON is complete only an end-of-reply token is allowed. Rows without a schema cost nothing.
"""

from __future__ import annotations

import llguidance
import torch

from .decoding import byte_tokenizer

# How a schema is compiled: compact JSON (no free whitespace, which a small model can fill
# forever); ``api/structured.py`` checks a request's schema with the same options.
JSON_OPTIONS = {"whitespace_flexible": False}

_SHIFTS = torch.arange(32, dtype=torch.int32)


class GrammarViolation(RuntimeError):
    """The reply left its grammar (a token outside the mask was fed, or the engine gave up on
    a schema too complex to follow); the request ends with this error."""


class JsonConstraint:
    """One row's grammar state: ``mask`` its scores, then ``advance`` with the token chosen."""

    def __init__(self, schema: str, tokenizer, eos_ids) -> None:
        self.tokenizer = byte_tokenizer(tokenizer, tuple(sorted(eos_ids)))
        grammar = llguidance.LLMatcher.grammar_from_json_schema(schema, defaults=JSON_OPTIONS)
        self.matcher = llguidance.LLMatcher(self.tokenizer, grammar)
        self._check()
        self._bits = torch.zeros((self.tokenizer.vocab_size + 31) // 32, dtype=torch.int32)

    def _check(self) -> None:
        if self.matcher.is_error():
            raise GrammarViolation(f"structured output failed: {self.matcher.get_error()[:300]}")

    def allowed(self) -> torch.Tensor:
        """A bool per token id of the tokenizer: may it come next?"""
        self.matcher.unsafe_compute_mask_ptr(self._bits.data_ptr(), self._bits.numel() * 4)
        self._check()
        bits = (self._bits.unsqueeze(1).bitwise_right_shift(_SHIFTS) & 1).view(-1)
        return bits[:self.tokenizer.vocab_size].bool()

    def mask(self, scores: torch.Tensor) -> None:
        """Set the score of every token the grammar forbids next to -inf (one row, in place)."""
        allowed = self.allowed().to(scores.device)
        width = min(scores.shape[-1], allowed.shape[0])
        scores[..., :width].masked_fill_(~allowed[:width], -torch.inf)
        scores[..., width:] = -torch.inf  # ids past the tokenizer's (padding rows of the head)

    def advance(self, token: int) -> None:
        if not self.matcher.consume_token(token):
            raise GrammarViolation(f"structured output failed: token {token} breaks the grammar")
        self._check()

    @property
    def complete(self) -> bool:
        return self.matcher.is_stopped() or self.matcher.is_accepting()
