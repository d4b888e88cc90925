"""Turn sampled token ids into text safely: incremental detokenizing and stop strings.

Streaming must never cut a multi-byte character in half (Chinese and emoji are the common case
here), so text is emitted only once the decoded tail no longer ends in U+FFFD, the replacement
character a partial UTF-8 sequence decodes to.
"""

from __future__ import annotations

import functools

import llguidance
import llguidance.hf


@functools.lru_cache(maxsize=4)
def byte_tokenizer(tokenizer, eos_ids: tuple[int, ...] = ()) -> llguidance.LLTokenizer:
    """The tokenizer as bytes per token id, as llguidance reads it (grammars, and each
    token's bytes in log-probabilities); about 0.4 s to build, once per model."""
    return llguidance.hf.from_tokenizer(tokenizer, eos_token=list(eos_ids) or None)


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


def whole_text(tokenizer, ids: list[int]) -> str:
    """The text a stream of ``ids`` sends, all at once: a character the last ids leave
    unfinished (a reply cut at its token limit) is left out, never sent as U+FFFD."""
    decoder = IncrementalDecoder(tokenizer)
    return "".join(decoder.push(i) for i in ids)


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
