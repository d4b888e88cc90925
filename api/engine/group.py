"""A group: sequences whose rows decode in one forward, over one left-padded KV cache.

Rows of a group are padded on the left to its longest row (``batch``), so a short row in a group
with a long one pays for the long one's positions, and joining a long prompt to a group of short
rows copies all of them to the long length. The runner therefore keeps a few groups and puts a
newcomer in the group where padding wastes little, or in a group of its own (``Runner.join``).
"""

from __future__ import annotations

import torch

from . import batch as kvbatch
from .request import Sequence


def offsets(seqs: list[Sequence]) -> list[int]:
    """Each sequence's first row, its rows following one another."""
    out, at = [], 0
    for s in seqs:
        out.append(at)
        at += s.rows
    return out


class Group:
    def __init__(self, seqs: list[Sequence], cache):
        self.seqs = list(seqs)
        self.cache = cache

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.seqs)

    @property
    def length(self) -> int:
        return kvbatch.cache_length(self.cache)

    @property
    def used(self) -> int:
        """KV positions its rows really hold (the rest is padding)."""
        return sum(s.fed * s.rows for s in self.seqs)

    def offsets(self) -> list[int]:
        return offsets(self.seqs)

    def inputs(self, device: torch.device) -> dict:
        """One decode step's inputs: every row's next token at its own position."""
        tokens, fed = [], []
        for s in self.seqs:
            tokens += s.next_tokens
            fed += [s.fed + 1] * s.rows
        length = self.length + 1
        fed_t = torch.tensor(fed, device=device)
        positions = torch.arange(length, device=device).unsqueeze(0)
        return dict(input_ids=torch.tensor(tokens, device=device).unsqueeze(1),
                    attention_mask=(positions >= (length - fed_t).unsqueeze(1)).long(),
                    position_ids=(fed_t - 1).unsqueeze(1), cache=self.cache)

    def adapters(self) -> list[str | None]:
        return [a for s in self.seqs for a in [s.adapter] * s.rows]

    def add(self, seqs: list[Sequence], cache) -> None:
        self.cache = kvbatch.concat(self.cache, cache)
        self.seqs += seqs

    def remove(self, gone: set[int]) -> None:
        """Drop sequences (by id) from the group: one indexed copy per layer."""
        keep_rows, keep = [], []
        for s, at in zip(self.seqs, self.offsets(), strict=True):
            if id(s) not in gone:
                keep_rows += range(at, at + s.rows)
                keep.append(s)
        if len(keep) == len(self.seqs):
            return
        self.seqs = keep
        if keep:
            kvbatch.select(self.cache, keep_rows, self.length - max(s.fed for s in keep))
        else:
            self.cache = None

    def reorder(self, seq: Sequence, sources: list[int]) -> None:
        first = self.offsets()[self.seqs.index(seq)]
        kvbatch.reorder_rows(self.cache, first, [first + s for s in sources])

    def row_kv(self, seq: Sequence):
        return kvbatch.row_kv(self.cache, self.offsets()[self.seqs.index(seq)], seq.fed)
