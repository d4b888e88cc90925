"""Constrained decoding: a row whose reply must be JSON matching a schema.

llguidance (chosen by measurement, docs/structured-output.md) keeps, per row, where the reply
stands in the schema's grammar and says which tokens may come next: a bit mask over the
vocabulary, computed in about 0.1-0.3 ms. The sampler sets every other token's score to -inf
before it picks, so greedy, sampled and penalised rows all stay inside the grammar; once the
JSON is complete only an end-of-reply token is allowed. Rows without a schema cost nothing.
"""

from __future__ import annotations

import json

import llguidance
import torch

from .decoding import byte_tokenizer

# How a schema is compiled: compact JSON (no free whitespace, which a small model can fill
# forever); ``api/structured.py`` checks a request's schema with the same options.
JSON_OPTIONS = {"whitespace_flexible": False}

_SHIFTS = torch.arange(32, dtype=torch.int32)
PROBE_TOKENS = 8  # how far ``schema_problem`` follows a schema before a request runs it


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
        self.controls = sorted(set(tokenizer.all_special_ids) - set(eos_ids))
        self._bits = torch.zeros((self.tokenizer.vocab_size + 31) // 32, dtype=torch.int32)

    def _check(self) -> None:
        if self.matcher.is_error():
            raise GrammarViolation("structured output failed: "
                                   f"{_first_line(self.matcher.get_error())}")

    def allowed(self) -> torch.Tensor:
        """A bool per token id of the tokenizer: may it come next?"""
        self.matcher.unsafe_compute_mask_ptr(self._bits.data_ptr(), self._bits.numel() * 4)
        self._check()
        bits = (self._bits.unsqueeze(1).bitwise_right_shift(_SHIFTS) & 1).view(-1)
        return bits[:self.tokenizer.vocab_size].bool()

    def mask(self, scores: torch.Tensor) -> None:
        """Set the score of every token the grammar forbids next to -inf (one row, in place)."""
        allowed = self.allowed()
        if self.controls:  # text, never a control token standing for it; the end stays allowed
            allowed[self.controls] = False
        if not bool(allowed.any()):
            raise GrammarViolation("structured output failed: no token can continue the reply")
        allowed = allowed.to(scores.device)
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


def _first_line(error: str) -> str:
    """The cause, without the parser state llguidance appends."""
    return (error.strip().splitlines() or ["unknown error"])[0][:300]


def schema_problem(schema: str, tokenizer, eos_ids) -> str | None:
    """Why a row could not follow ``schema`` on this tokenizer, found before it runs (None:
    it can): text in ``const`` or ``enum`` that the tokenizer reads as a control token (the
    model cannot write it as text), or a grammar past the parser's limits at its first token."""
    specials = [t for t in tokenizer.all_special_tokens if t]
    stack = [json.loads(schema)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            literals = [node.get("const"), *(node.get("enum") or [])] \
                if isinstance(node.get("enum", []), list) else [node.get("const")]
            for value in literals:
                for text in _strings(value):
                    hit = next((s for s in specials if s in text), None)
                    if hit:
                        return (f"the value {text[:60]!r} holds {hit!r}, which this model reads "
                                "as a control token and cannot write as text")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    try:  # its first tokens, the first allowed each time: past the parser's limits fails here
        row = JsonConstraint(schema, tokenizer, eos_ids)
        for _ in range(PROBE_TOKENS):
            allowed = row.allowed()
            allowed[row.controls] = False
            if row.matcher.is_stopped() or not bool(allowed.any()):
                break
            row.advance(int(allowed.nonzero()[0]))
    except GrammarViolation as exc:
        cause = str(exc).removeprefix("structured output failed: ")
        return f"{cause} (the schema is likely past the grammar engine's limits)"
    return None


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
